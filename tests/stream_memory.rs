//! Memory bounded by the CTAs in flight, not by their length (issue 16, item 1): a single CTA
//! that runs 200 M warp-instructions (`tests/stream/long_loop.ptx`) is simulated with its
//! streams in pieces, and what the pieces and the runs' windows hold stays within a few
//! executor batches however long it runs. Ignored in the normal suite (minutes in a debug
//! build); run it with `cargo test --release -p reglab-tests --test stream_memory -- --ignored`.
//! The fast check of the same bound is in `sim-core` (`exec_source::pieces` tests); the peak
//! memory of the whole CLI is measured with
//! `/usr/bin/time -v reglab run tests/stream/long_loop.ptx --launch tests/stream/long_loop.launch.json --gpu turing-rtx2060`.

#![allow(clippy::panic, reason = "a test fails by panicking")]

use sim_core::exec::LaunchSetup;
use sim_core::gpu::presets;
use sim_core::timing::{Simulation, TimingOptions};

#[test]
#[ignore = "200 M warp-instructions: run in release"]
fn a_200m_instruction_cta_is_simulated_in_bounded_memory() {
    let root = reglab_tests::repo_root().join("tests").join("stream");
    let src = std::fs::read_to_string(root.join("long_loop.ptx")).unwrap_or_default();
    let launch = std::fs::read_to_string(root.join("long_loop.launch.json")).unwrap_or_default();
    let module = sim_core::ptx::compile(&src).unwrap_or_default();
    let setup = LaunchSetup::from_json(&launch);
    let gpu = presets::by_name("turing-rtx2060");
    let (Ok(setup), Some(gpu)) = (setup, gpu) else { panic!("the kernel's files") };
    let sim = Simulation::from_launch(&module, &setup, &gpu, &["baseline"], TimingOptions::default());
    let Ok(mut sim) = sim else { panic!("the simulation starts") };
    let mut most = (0, 0);
    loop {
        let p = sim.step(100_000);
        let (store, windows) = sim.held_instructions();
        most = (most.0.max(store), most.1.max(windows));
        match p {
            Ok(p) if p.finished => break,
            Ok(_) => {}
            Err(e) => panic!("{e}"),
        }
    }
    let reports = sim.reports();
    // 8 warps × (4 × 6 250 000 + 9) = 200 000 072 warp-instructions.
    assert_eq!(reports.first().map(|r| r.warp_instructions), Some(200_000_072));
    // Pieces: one executor batch (65536) or a few; windows: per warp a piece plus what is kept
    // behind the replay (32768), 8 warps.
    assert!(most.0 <= 4 * 65_536, "pieces held {}", most.0);
    assert!(most.1 <= 8 * (65_536 + 2 * 32_768), "windows held {}", most.1);
}
