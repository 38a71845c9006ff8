//! FineReg, Virtual Thread and Reg+DRAM on bundled examples (`docs/fidelity/finereg.md`): one SM
//! of `maxwell-gtx980` (the paper's GTX 980-like machine), so the launches are several waves.
//! Each run twice gives identical reports; the functional work is the baseline's (same warp and
//! thread instructions: the executor runs the original kernel once for every scheme); on a
//! slot-limited memory-bound kernel (saxpy) FineReg and Virtual Thread keep more CTAs resident and
//! switch CTAs; on a register-limited one (hotspot, "ptxas says 64") Reg+DRAM moves contexts
//! through memory and Virtual Thread admits nothing more than the baseline.

use sim_core::exec::LaunchSetup;
use sim_core::gpu::presets;
use sim_core::timing::report::{Outcome, Report};
use sim_core::timing::{Simulation, TimingOptions};

const SCHEMES: [&str; 4] = ["baseline", "finereg", "virtual-thread", "reg-dram"];

fn simulate(example: &str, registers: Option<u32>) -> Vec<Report> {
    let root = reglab_tests::repo_root().join("static").join("examples");
    let src = std::fs::read_to_string(root.join(format!("{example}.ptx"))).unwrap_or_default();
    let launch = std::fs::read_to_string(root.join(format!("{example}.launch.json"))).unwrap_or_default();
    let module = sim_core::ptx::compile(&src).unwrap_or_default();
    let Some(gpu) = presets::by_name("maxwell-gtx980") else { return Vec::new() };
    let options = TimingOptions { sms: Some(1), registers_per_thread: registers, ..TimingOptions::default() };
    let result = LaunchSetup::from_json(&launch)
        .map_err(|e| format!("{e:?}"))
        .and_then(|s| Simulation::from_launch(&module, &s, &gpu, &SCHEMES, options).map_err(|e| e.to_string()))
        .and_then(|mut sim| sim.run_to_end().map_err(|e| e.to_string()));
    assert!(result.is_ok(), "{example}: {result:?}");
    result.unwrap_or_default()
}

/// The most resident CTAs any occupancy sample saw.
fn peak_resident(r: &Report) -> u32 {
    r.occupancy_over_time.samples.iter().map(|s| s.resident_ctas).max().unwrap_or(0)
}

fn counter(r: &Report, name: &str) -> u64 {
    r.register_file.scheme.counters.iter().find(|c| c.name == name).map_or(0, |c| c.value)
}

fn same_work_and_deterministic(example: &str, registers: Option<u32>) -> Vec<Report> {
    let first = simulate(example, registers);
    let second = simulate(example, registers);
    assert_eq!(first.len(), 4);
    let json = |r: &[Report]| serde_json::to_string(r).unwrap_or_default();
    assert_eq!(json(&first), json(&second), "{example}: reports differ between two runs");
    let base = &first[0];
    for r in &first {
        assert_eq!(r.outcome, Outcome::Finished, "{example} {}", r.scheme);
        assert_eq!((r.warp_instructions, r.ctas), (base.warp_instructions, base.ctas), "{example} {}", r.scheme);
        assert_eq!(r.stalls.total(), r.cycles * u64::from(r.schedulers_per_sm));
    }
    first
}

#[test]
fn saxpy_slot_limited_more_resident_ctas_and_switches() {
    let r = same_work_and_deterministic("saxpy", None);
    let (base, finereg, vt) = (&r[0], &r[1], &r[2]);
    // 8 registers: warps bind (8 CTAs of 256 threads); FineReg's 128 KB ACRF still holds them.
    assert_eq!(base.kernels[0].ctas_per_sm, finereg.kernels[0].ctas_per_sm);
    assert!(peak_resident(finereg) > peak_resident(base), "FineReg parks CTAs in the PCRF and starts others");
    assert!(peak_resident(vt) > peak_resident(base), "Virtual Thread admits beyond the slots");
    assert!(counter(finereg, "cta_switches") > 0 && finereg.residency.parks > 0);
    assert!(counter(finereg, "live_vector_misses") > 0, "cold vector cache");
    assert_eq!(counter(finereg, "storage_bytes"), 5850);
    // Every warp-register moved is counted in the ACRF and the PCRF.
    let pcrf = finereg.register_file.scheme.structures.iter().find(|s| s.name == "pcrf");
    assert_eq!(pcrf.map(|s| s.reads + s.writes), Some(finereg.residency.moved_register_reads));
    // Slots bind, registers do not: Reg+DRAM never needs an off-chip context.
    assert_eq!(counter(&r[3], "context_moves"), 0);
}

#[test]
fn hotspot_register_limited_contexts_move_through_memory() {
    let r = same_work_and_deterministic("hotspot", Some(64));
    let (base, finereg, vt, dram) = (&r[0], &r[1], &r[2], &r[3]);
    // 64 registers × 256 threads: registers bind at 4 CTAs; FineReg's ACRF holds half.
    assert_eq!((base.kernels[0].ctas_per_sm, finereg.kernels[0].ctas_per_sm), (4, 2));
    assert_eq!(peak_resident(vt), peak_resident(base), "no spare registers to admit more");
    assert!(peak_resident(dram) > peak_resident(base));
    assert!(counter(dram, "context_moves") > 0);
    // 64 × 256 × 4 = 65536 bytes per context, written out and read back in 4 KB requests.
    assert_eq!(counter(dram, "context_bytes_out") % 65536, 0);
    assert_eq!(dram.memory.scheme_bytes, counter(dram, "context_bytes_out") + counter(dram, "context_bytes_in"));
    assert_eq!(base.memory.scheme_bytes, 0);
}
