//! Texture fetches in the instruction stream and the timing model: each `tex` is recorded as a
//! global load of the texel each lane reads first (4 bytes per lane for a one-channel `f32`
//! texture), so the timing model sends it through the L1/texture path like `ld.global`. The
//! kernel is the file test `tests/cases/exec/texture_address_modes.ptx`.

use reglab_tests::exec_case::launch_header;
use sim_core::exec::{LaunchSetup, RecordKind, Run, RunOptions, Space, TraceOptions};
use sim_core::gpu::presets;
use sim_core::ir::Opcode;
use sim_core::timing::{Simulation, TimingOptions};

fn case() -> (sim_core::ir::Module, LaunchSetup) {
    let path = reglab_tests::repo_root().join("tests/cases/exec/texture_address_modes.ptx");
    let src = std::fs::read_to_string(path).unwrap_or_default();
    let module = sim_core::ptx::compile(&src).unwrap_or_default();
    let setup = LaunchSetup::from_json(launch_header(&src).unwrap_or("{}"));
    assert!(setup.is_ok(), "{setup:?}");
    let setup = setup.unwrap_or_else(|_| sim_core::exec::propose_launch(&module, "k"));
    (module, setup)
}

#[test]
fn texture_fetches_are_recorded_as_global_loads_of_their_texels() {
    let (module, setup) = case();
    let options =
        RunOptions { trace: TraceOptions { enabled: true, ..TraceOptions::default() }, ..RunOptions::default() };
    let run = Run::new(&module, &setup, options);
    assert!(run.is_ok());
    let Ok(mut run) = run else { return };
    let mut texs = Vec::new();
    while let Ok(Some(cta)) = run.next_cta() {
        for w in &cta.warps {
            for r in &w.records {
                let f = cta.functions.get(usize::from(r.func)).and_then(|h| module.functions.get(*h));
                let inst = f.and_then(|f| f.body.as_ref()).and_then(|b| b.insts.get(r.inst));
                if inst.is_some_and(|i| i.opcode == Opcode::Tex) {
                    let at = r.addr_start as usize..(r.addr_start + r.addr_count) as usize;
                    texs.push((r.kind, r.space, r.bytes, w.addresses[at].to_vec()));
                }
            }
        }
    }
    // Three fetches by the one warp of 4 threads.
    assert_eq!(texs.len(), 3);
    for (kind, space, bytes, addrs) in &texs {
        assert_eq!((*kind, *space, *bytes), (RecordKind::Load, Some(Space::Global), 4));
        assert_eq!(addrs.len(), 4);
    }
    // The clamp texture's texels are the first allocation (0x2_0000_0000); x = -1.5, 0.5, 3.7,
    // 5.2 read texels 0, 0, 3, 3 (clamped), 4 bytes each.
    let base = 0x2_0000_0000u64;
    assert_eq!(texs[0].3, vec![base, base, base + 12, base + 12]);
}

#[test]
fn the_timing_model_counts_texture_fetches_as_global_loads() {
    let (module, setup) = case();
    let gpu = presets::volta_v100();
    let options = TimingOptions { sms: Some(1), max_cycles: 1_000_000, ..TimingOptions::default() };
    let reports =
        Simulation::from_launch(&module, &setup, &gpu, &["baseline"], options).and_then(|mut s| s.run_to_end());
    assert!(reports.is_ok(), "{reports:?}");
    let reports = reports.unwrap_or_default();
    let m = &reports[0].memory;
    // One warp: `ld.global.f32` of xs and three `tex` are global loads (4); one `st.global.v4`.
    assert_eq!((m.global_loads, m.global_stores), (4, 1));
    // The loads went through L1: each of the 4 loads looks up L1 at least once.
    assert!(m.l1_hits + m.l1_misses >= 4, "{m:?}");
}
