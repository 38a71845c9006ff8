//! Quick mode (`TimingOptions::quick_waves`: time the first waves of CTAs, estimate the rest)
//! against full runs.
//!
//! The checks run on a small launch in every build; the table of `docs/fidelity/quick.md` — every
//! bundled example and two Rodinia backprop kernels on `fermi-gtx480`, every registered scheme,
//! full run vs quick estimate — is printed by
//! `cargo test --release -p reglab-tests --test quick_fidelity -- --ignored --nocapture`.

#![allow(clippy::print_stderr, reason = "the test prints the fidelity table")]

use std::path::Path;
use std::time::Instant;

use sim_core::exec::LaunchSetup;
use sim_core::gpu::presets;
use sim_core::timing::report::{Outcome, Report};
use sim_core::timing::summary::{compare, headline};
use sim_core::timing::{Simulation, TimingOptions};

fn simulate(src: &str, setup: &LaunchSetup, gpu: &str, schemes: &[&str], options: TimingOptions) -> Vec<Report> {
    let module = sim_core::ptx::compile(src).unwrap_or_default();
    let Some(gpu) = presets::by_name(gpu) else { return Vec::new() };
    let reports = Simulation::from_launch(&module, setup, &gpu, schemes, options).and_then(|mut s| s.run_to_end());
    assert!(reports.is_ok(), "{reports:?}");
    reports.unwrap_or_default()
}

/// saxpy, 64 CTAs of 64 threads, on one SM of fermi-gtx480: 8 CTAs fit (the 8-CTA slot limit;
/// 2 warps each), so a wave is 8 CTAs and 3 waves 24: one wave in every 64 / 24 = 2 runs (CTAs
/// 0–7, 16–23, 32–39, 48–55), 32 CTAs in 4 waves. Every run times those 32, whatever its scheme; its summary carries the estimate
/// (outcome "estimate"), within 10% of the full run's cycles on this uniform grid. A grid of
/// fewer than 48 CTAs (two samples' worth) runs in full: the same report as without the option.
#[test]
fn a_large_grid_is_sampled_alike_in_every_run_and_a_small_one_runs_in_full() {
    let root = reglab_tests::repo_root();
    let src = std::fs::read_to_string(root.join("static/examples/saxpy.ptx")).unwrap_or_default();
    let launch = |ctas: u32| {
        let spec = format!(
            r#"{{"kernel": "_Z5saxpyifPKfPf", "grid": [{ctas}], "block": [64],
                "params": [{{"scalar": {{"type": "s32", "value": {n}}}}}, {{"scalar": {{"type": "f32", "value": 2.0}}}},
                           {{"buffer": {{"type": "f32", "len": {n}, "init": "random:1"}}}},
                           {{"buffer": {{"type": "f32", "len": {n}, "init": "random:2"}}}}]}}"#,
            n = ctas * 64
        );
        LaunchSetup::from_json(&spec)
    };
    let (Ok(big), Ok(small)) = (launch(64), launch(47)) else { unreachable!("the launch setups parse") };
    let one_sm = TimingOptions { sms: Some(1), ..TimingOptions::default() };
    let quick = TimingOptions { quick_waves: Some(3), ..one_sm.clone() };
    let schemes = ["baseline", "rfc-ob"];
    let full = simulate(&src, &big, "fermi-gtx480", &schemes, one_sm.clone());
    let sampled = simulate(&src, &big, "fermi-gtx480", &schemes, quick.clone());
    assert_eq!((full.len(), sampled.len()), (2, 2));
    let cmp = compare(&sampled, None);
    for ((f, q), row) in full.iter().zip(&sampled).zip(&cmp.rows) {
        assert_eq!((f.ctas, f.sample.as_ref()), (64, None), "{}", f.scheme);
        assert_eq!(q.outcome, Outcome::Finished);
        let Some(s) = &q.sample else { unreachable!("{}: quick run without a sample", q.scheme) };
        let got = (q.ctas, s.simulated_ctas, s.every, s.total_ctas, s.wave_ipc.len());
        assert_eq!(got, (32, 32, 2, 64, 4), "{}", q.scheme);
        assert!(q.cycles < f.cycles && q.warp_instructions < f.warp_instructions, "{}", q.scheme);
        let error = (s.estimated_cycles as f64 - f.cycles as f64).abs() / f.cycles as f64;
        assert!(error < 0.10, "{}: estimated {} vs {} cycles", q.scheme, s.estimated_cycles, f.cycles);
        assert_eq!((row.outcome.as_str(), row.cycles, row.warp_ipc), ("estimate", s.estimated_cycles, s.estimated_ipc));
        assert_eq!(headline(q).0, s.estimated_cycles);
    }
    let in_full = simulate(&src, &small, "fermi-gtx480", &schemes, quick);
    assert_eq!(in_full, simulate(&src, &small, "fermi-gtx480", &schemes, one_sm));
}

/// (name, PTX, launch setup) of every bundled example (the grid-stride ones also on a 32 times
/// larger grid), then Rodinia backprop's two kernels (GPGPU-Sim's launches, grid cut to 4 096
/// CTAs so the full runs take seconds).
fn workloads() -> Vec<(String, String, LaunchSetup)> {
    let root = reglab_tests::repo_root();
    let examples = root.join("static").join("examples");
    let mut out = Vec::new();
    for ptx in reglab_tests::ptx_files(&examples) {
        let Some(stem) = ptx.file_stem().and_then(|s| s.to_str()).map(String::from) else { continue };
        let launch = std::fs::read_to_string(examples.join(format!("{stem}.launch.json"))).unwrap_or_default();
        if let (Ok(src), Ok(setup)) = (std::fs::read_to_string(&ptx), LaunchSetup::from_json(&launch)) {
            // The grid-stride examples also with 32 times their CTAs (each does less): grids
            // large enough to sample.
            if stem == "vector_add" || stem == "saxpy" {
                let mut big = setup.clone();
                big.grid = vec![setup.grid.first().copied().unwrap_or(1) * 32, 1, 1];
                out.push((format!("{stem} ({} CTAs)", big.grid[0]), src.clone(), big));
            }
            out.push((stem, src, setup));
        }
    }
    let bp = reglab_tests::corpus_dir().join("gpgpu-sim/pr146_backprop.1.sm_30.ptx");
    let src = std::fs::read_to_string(&bp).unwrap_or_default();
    for k in ["backprop_layerforward", "backprop_adjust_weights"] {
        let path = root.join("docs/fidelity/gpgpu-sim").join(format!("{k}.launch.json"));
        let text = std::fs::read_to_string(Path::new(&path)).unwrap_or_default();
        if let Ok(mut setup) = LaunchSetup::from_json(&text) {
            setup.grid = vec![1, 4096, 1];
            out.push((format!("{k} (4096 CTAs)"), src.clone(), setup));
        }
    }
    out
}

#[test]
#[ignore = "minutes even in a release build: the table of docs/fidelity/quick.md (run with --release)"]
fn the_fidelity_table() {
    let schemes: Vec<&str> = sim_core::timing::regfile::registry::names().collect();
    let mut rows = vec![String::from(
        "| workload | scheme | CTAs timed | full warp IPC | quick warp IPC | IPC error | cycles error | spread |\n|---|---|---|---|---|---|---|---|",
    )];
    let mut errors: Vec<(String, f64)> = Vec::new();
    let mut times = Vec::new();
    for (name, src, setup) in workloads() {
        let options = TimingOptions::default();
        let t = Instant::now();
        let full = simulate(&src, &setup, "fermi-gtx480", &schemes, options.clone());
        let full_s = t.elapsed().as_secs_f64();
        let t = Instant::now();
        let quick = simulate(&src, &setup, "fermi-gtx480", &schemes, TimingOptions { quick_waves: Some(3), ..options });
        times.push(format!("{name}: full {full_s:.1} s, quick {:.1} s", t.elapsed().as_secs_f64()));
        for (f, q) in full.iter().zip(&quick) {
            let (qc, qipc, _) = headline(q);
            let fipc = f.ipc.warp_instructions_per_cycle;
            let err = if fipc > 0.0 { (qipc - fipc) / fipc } else { 0.0 };
            let cerr = if f.cycles > 0 { (qc as f64 - f.cycles as f64) / f.cycles as f64 } else { 0.0 };
            let (timed, spread) = match &q.sample {
                Some(s) => (
                    format!("{} of {} (every {})", s.simulated_ctas, s.total_ctas, s.every),
                    format!("{:.1}%", 100.0 * s.spread),
                ),
                None => (format!("all {} (grid < 6 waves)", q.ctas), String::from("—")),
            };
            rows.push(format!(
                "| {name} | {} | {timed} | {fipc:.3} | {qipc:.3} | {:+.1}% | {:+.1}% | {spread} |",
                f.scheme,
                100.0 * err,
                100.0 * cerr
            ));
            if q.sample.is_some() {
                errors.push((f.scheme.clone(), err.abs()));
            }
        }
    }
    eprintln!("{}", rows.join("\n"));
    let mean = |v: &[f64]| if v.is_empty() { 0.0 } else { 100.0 * v.iter().sum::<f64>() / v.len() as f64 };
    let all: Vec<f64> = errors.iter().map(|e| e.1).collect();
    eprintln!(
        "\nsampled runs: {}, mean |IPC error| {:.2}%, max {:.2}%",
        all.len(),
        mean(&all),
        100.0 * all.iter().copied().fold(0.0, f64::max)
    );
    for s in &schemes {
        let v: Vec<f64> = errors.iter().filter(|e| e.0 == *s).map(|e| e.1).collect();
        eprintln!("| {s} | {} | {:.2}% |", v.len(), mean(&v));
    }
    eprintln!("\n{}", times.join("\n"));
}
