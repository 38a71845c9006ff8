//! The GPU presets: every paper's baseline is there with GPUS.md's numbers, self-consistent, and
//! round-trips through JSON (the app edits presets as JSON); the occupancy curves the web panel
//! draws.
#![allow(clippy::unwrap_used, reason = "tests fail loudly")]

use sim_core::gpu::limits::ResidencyLimits;
use sim_core::gpu::presets;
use sim_core::gpu::{GpuConfig, SchedulingPolicy};
use sim_core::occupancy::curves::curves;
use sim_core::occupancy::{compute, OccupancyInput};

fn all() -> Vec<GpuConfig> {
    presets::PRESETS.iter().map(|(_, make)| make()).collect()
}

#[test]
fn every_preset_is_registered_by_its_name_and_round_trips() {
    let names: Vec<&str> = presets::names().collect();
    assert_eq!(
        names,
        ["gt200-fx5800", "fermi-gtx480", "maxwell-gtx980", "turing-rtx2060", "volta-v100", "hopper-h100", "gcn3-cu"]
    );
    for gpu in all() {
        assert_eq!(presets::by_name(&gpu.name).as_ref(), Some(&gpu));
        let text = serde_json::to_string_pretty(&gpu).unwrap();
        let back: GpuConfig = serde_json::from_str(&text).unwrap();
        assert_eq!(back, gpu, "{}", gpu.name);
        assert!(!gpu.description.is_empty());
    }
    assert!(presets::by_name("pascal").is_none());
}

#[test]
fn presets_are_self_consistent() {
    for gpu in all() {
        let rf = &gpu.register_file;
        let register_bytes = match &gpu.limits {
            ResidencyLimits::Nvidia(sm) => u64::from(sm.registers_per_sm) * 4,
            ResidencyLimits::Gcn3(cu) => {
                u64::from(cu.vgprs_per_simd) * u64::from(cu.simds_per_cu) * u64::from(cu.wavefront_size) * 4
            }
        };
        assert_eq!(rf.capacity_bytes(), register_bytes, "{}: banks × entries × width", gpu.name);
        assert_eq!(rf.banks % gpu.core.sub_cores, 0, "{}: banks split over sub-cores", gpu.name);
        assert_eq!(rf.collector_units % gpu.core.sub_cores, 0, "{}", gpu.name);
        assert!(gpu.execution.units.sp > 0 && gpu.execution.simd_width > 0, "{}", gpu.name);
        assert!(gpu.execution.fp32.mad.latency > 0 && gpu.memory.dram.latency > 0, "{}", gpu.name);
        assert_eq!(gpu.warp_size(), if gpu.name == "gcn3-cu" { 64 } else { 32 });
    }
}

/// GPUS.md's preset table, column by column.
#[test]
fn presets_carry_gpus_md_numbers() {
    // name, SMs, clock MHz, max warps, regs per SM (NVIDIA) / VGPRs per SIMD (GCN3), banks, CUs,
    // schedulers, policy
    let table = [
        ("gt200-fx5800", 30, 1300.0, 32, 16384, 8, 0, 1, SchedulingPolicy::Lrr),
        ("fermi-gtx480", 15, 1400.0, 48, 32768, 16, 16, 2, SchedulingPolicy::Gto),
        ("maxwell-gtx980", 16, 1126.0, 64, 65536, 16, 8, 4, SchedulingPolicy::Gto),
        ("turing-rtx2060", 30, 1365.0, 32, 65536, 8, 8, 4, SchedulingPolicy::Lrr),
        ("volta-v100", 80, 1132.0, 64, 65536, 16, 8, 4, SchedulingPolicy::Lrr),
        ("hopper-h100", 132, 1980.0, 64, 65536, 16, 8, 4, SchedulingPolicy::Lrr),
        ("gcn3-cu", 1, 1000.0, 40, 512, 8, 0, 2, SchedulingPolicy::OldestFirst),
    ];
    for (name, sms, clock, warps, regs, banks, cus, scheds, policy) in table {
        let gpu = presets::by_name(name).unwrap();
        assert_eq!(gpu.core.sm_count, sms, "{name}");
        assert_eq!(gpu.core.core_clock_mhz, clock, "{name}");
        assert_eq!(gpu.limits.max_warps(), warps, "{name}");
        let got_regs = match &gpu.limits {
            ResidencyLimits::Nvidia(sm) => sm.registers_per_sm,
            ResidencyLimits::Gcn3(cu) => cu.vgprs_per_simd,
        };
        assert_eq!(got_regs, regs, "{name}");
        assert_eq!((gpu.register_file.banks, gpu.register_file.collector_units), (banks, cus), "{name}");
        assert_eq!((gpu.scheduler.schedulers_per_sm, gpu.scheduler.policy), (scheds, policy), "{name}");
    }
    let fermi = presets::fermi_gtx480();
    let int = fermi.execution.int;
    assert_eq!([int.add, int.max, int.mul, int.mad, int.div].map(|o| o.latency), [4, 13, 4, 5, 145]);
    let fp = fermi.execution.fp32;
    assert_eq!([fp.add, fp.max, fp.mul, fp.mad, fp.div].map(|o| o.latency), [4, 13, 4, 5, 39]);
    let turing = presets::turing_rtx2060();
    let int = turing.execution.int;
    assert_eq!([int.add, int.max, int.mul, int.mad, int.div].map(|o| o.latency), [4, 4, 4, 4, 21]);
    let fp = turing.execution.fp32;
    assert_eq!([fp.add, fp.max, fp.mul, fp.mad, fp.div].map(|o| o.latency), [4, 4, 4, 4, 39]);
}

#[test]
fn curves_for_the_web_panel() {
    let fermi = presets::fermi_gtx480().limits;
    let imgvf = OccupancyInput::new(320, 29).with_static_shared_memory(14_560);
    let c = curves(&fermi, &imgvf).unwrap();

    assert_eq!(c.registers.points.len(), 63);
    assert_eq!((c.registers.points[0].x, c.registers.points[62].x), (1, 63));
    assert_eq!(c.registers.kernel.x, 29);
    assert_eq!((c.registers.kernel.blocks_per_sm, c.registers.kernel.occupancy), (3, 0.625));
    assert_eq!(c.registers.points[28], c.registers.kernel, "the kernel lies on its curve");
    assert!(c.registers.points.windows(2).all(|w| w[0].blocks_per_sm >= w[1].blocks_per_sm));
    assert_eq!(c.registers.points[51].blocks_per_sm, 1, "52 registers: 1 block");

    assert_eq!(c.block_size.points.len(), 32);
    assert!(c.block_size.points.iter().enumerate().all(|(i, p)| p.x == 32 * (i as u64 + 1)));
    assert_eq!(c.block_size.kernel.x, 320);
    assert_eq!(c.block_size.points[9], c.block_size.kernel);

    assert_eq!(c.shared_memory.points.len(), 48 * 1024 / 128 + 1);
    assert_eq!(c.shared_memory.kernel.x, 14_560);
    let at = |bytes: u64| c.shared_memory.points.iter().find(|p| p.x == bytes).unwrap().blocks_per_sm;
    assert_eq!((at(0), at(14_592), at(16_384), at(24_576), at(49_152)), (3, 3, 3, 2, 1));

    let hopper = presets::hopper_h100().limits;
    let opted = OccupancyInput { max_dynamic_shared_memory: Some(0), ..OccupancyInput::new(256, 32) };
    let h = curves(&hopper, &opted).unwrap();
    assert_eq!(h.shared_memory.points.last().unwrap().x, 227 * 1024);
    assert_eq!(h.shared_memory.points.last().unwrap().blocks_per_sm, 1);
    assert_eq!(h.registers.points.len(), 256);

    let gcn = presets::gcn3_cu().limits;
    let g = curves(&gcn, &OccupancyInput::new(256, 64).with_scalar_registers(16)).unwrap();
    assert_eq!((g.registers.points.len(), g.block_size.points.len()), (256, 16));
    assert!(curves(&fermi, &OccupancyInput::new(0, 29)).is_err());
    let json = serde_json::to_string(&c).unwrap();
    assert!(json.starts_with("{\"registers\":{\"points\":[{\"x\":1,"), "{}", &json[..60]);
    let o = compute(&fermi, &imgvf).unwrap();
    assert!(serde_json::to_string(&o).unwrap().contains("\"binding\":[\"registers\",\"shared_memory\"]"));
}
