//! Quick mode (`TimingOptions::quick_waves`: time a sample of the CTAs' waves, estimate the rest;
//! `quick_sample::refine`: time a sample that did not settle again with more waves) against full
//! runs.
//!
//! The checks run on small launches in every build; the two tables of `docs/fidelity/quick.md` —
//! every bundled example and two Rodinia backprop kernels on `fermi-gtx480`, and every runnable
//! corpus kernel on one SM, every registered scheme, full run vs first sample vs refined
//! estimate — are printed by
//! `cargo test --release -p reglab-tests --test quick_fidelity -- --ignored --nocapture`.

#![allow(clippy::print_stderr, reason = "the test prints the fidelity tables")]

use std::path::Path;
use std::time::Instant;

use sim_core::exec::LaunchSetup;
use sim_core::gpu::presets;
use sim_core::timing::report::{Outcome, Report};
use sim_core::timing::summary::{self, compare, headline};
use sim_core::timing::{quick_sample, Simulation, TimingOptions};

fn simulate(src: &str, setup: &LaunchSetup, gpu: &str, schemes: &[&str], options: TimingOptions) -> Vec<Report> {
    let module = sim_core::ptx::compile(src).unwrap_or_default();
    let Some(gpu) = presets::by_name(gpu) else { return Vec::new() };
    let reports = Simulation::from_launch(&module, setup, &gpu, schemes, options).and_then(|mut s| s.run_to_end());
    assert!(reports.is_ok(), "{reports:?}");
    reports.unwrap_or_default()
}

/// The bundled saxpy example's PTX.
fn saxpy_source() -> String {
    std::fs::read_to_string(reglab_tests::repo_root().join("static/examples/saxpy.ptx")).unwrap_or_default()
}

/// saxpy over `n` elements on `ctas` CTAs of 64 threads (a grid-stride loop).
fn saxpy(ctas: u32, n: u32) -> Result<LaunchSetup, sim_core::exec::LaunchError> {
    let spec = format!(
        r#"{{"kernel": "_Z5saxpyifPKfPf", "grid": [{ctas}], "block": [64],
            "params": [{{"scalar": {{"type": "s32", "value": {n}}}}}, {{"scalar": {{"type": "f32", "value": 2.0}}}},
                       {{"buffer": {{"type": "f32", "len": {n}, "init": "random:1"}}}},
                       {{"buffer": {{"type": "f32", "len": {n}, "init": "random:2"}}}}]}}"#
    );
    LaunchSetup::from_json(&spec)
}

/// Quick mode as the CLI and the app run it: `options.quick_waves` waves, schemes whose sample
/// did not settle again with more (`quick_sample::refine`).
/// Gives the first sample's reports and the refined ones.
fn quick(
    src: &str,
    setup: &LaunchSetup,
    gpu: &str,
    schemes: &[&str],
    options: TimingOptions,
) -> (Vec<Report>, Vec<Report>) {
    let waves = options.quick_waves.unwrap_or(3);
    let module = sim_core::ptx::compile(src).unwrap_or_default();
    let Some(gpu) = presets::by_name(gpu) else { return (Vec::new(), Vec::new()) };
    let mut first = None;
    let timed = quick_sample::refine(schemes.len(), waves, |waves, which| {
        let some: Vec<&str> = which.iter().filter_map(|&i| schemes.get(i).copied()).collect();
        let options = TimingOptions { quick_waves: Some(waves), ..options.clone() };
        let reports = Simulation::from_launch(&module, setup, &gpu, &some, options).and_then(|mut s| s.run_to_end());
        if first.is_none() {
            first = reports.as_ref().ok().cloned();
        }
        reports
    });
    assert!(timed.is_ok(), "{timed:?}");
    (first.unwrap_or_default(), timed.unwrap_or_default())
}

/// saxpy over 1 024 elements on 64 CTAs of 64 threads (a grid-stride loop: CTAs 0–15 do the
/// work, the others exit at once), one SM of fermi-gtx480 (waves of 8 CTAs). Quick mode's first
/// sample, 3 waves (one in every 64 / 24 = 2: CTAs 0–7, 16–23, 32–39, 48–55), has all its work
/// in the first wave: a work spread of (8 × w − 2 × w) / (2 × w) = 300% (mean 2 w per wave of
/// 8 w in all, w a working CTA's warp-instructions). Refined to 6 waves, one in every 64 / 48 = 1:
/// the whole grid, so the report is the full run's, exactly. saxpy on 64 CTAs that all work
/// settles at once: one try, not refined.
#[test]
fn a_sample_that_does_not_settle_is_timed_again_with_more_waves() {
    let src = saxpy_source();
    let (Ok(front), Ok(even)) = (saxpy(64, 1024), saxpy(64, 4096)) else { unreachable!("the launch setups parse") };
    let one_sm = TimingOptions { sms: Some(1), ..TimingOptions::default() };
    let sampled = TimingOptions { quick_waves: Some(3), ..one_sm.clone() };
    let schemes = ["baseline", "rfc-ob"];
    let first = simulate(&src, &front, "fermi-gtx480", &schemes, sampled.clone());
    for r in &first {
        let Some(s) = &r.sample else { unreachable!("{}: 64 CTAs in waves of 8 are sampled", r.scheme) };
        assert_eq!((s.simulated_ctas, s.every), (32, 2), "{}", r.scheme);
        assert!(s.spread >= quick_sample::SETTLED_SPREAD, "{}: spread {}", r.scheme, s.spread);
    }
    let (again, refined) = quick(&src, &front, "fermi-gtx480", &schemes, sampled.clone());
    assert_eq!((&again, &refined), (&first, &simulate(&src, &front, "fermi-gtx480", &schemes, one_sm.clone())));
    // A budget the first sample keeps to but the whole grid exceeds: the refinement fails and the
    // first sample's reports stand (the executor counts the warp-instructions of the CTAs it runs).
    let sample_insts = first.first().map_or(0, |r| r.warp_instructions);
    let whole = refined.first().map_or(0, |r| r.warp_instructions);
    assert!(sample_insts < whole, "{sample_insts} {whole}");
    let tight = LaunchSetup { budget: Some(sample_insts), ..front.clone() };
    let (kept, after) = quick(&src, &tight, "fermi-gtx480", &schemes, sampled.clone());
    assert_eq!((&kept, &after), (&first, &first));
    let (_, settled) = quick(&src, &even, "fermi-gtx480", &schemes, sampled.clone());
    assert_eq!(settled, simulate(&src, &even, "fermi-gtx480", &schemes, sampled));
    for r in &settled {
        let Some(s) = &r.sample else { unreachable!("{}: sampled", r.scheme) };
        assert!(s.spread < quick_sample::SETTLED_SPREAD && s.refinements == 0, "{}: {s:?}", r.scheme);
    }
    // What the CLI and the page print: a line per scheme once one is sampled; a scheme timed in
    // full after refinement says so; nothing when no scheme was sampled.
    let mixed: Vec<Report> = settled.iter().take(1).chain(refined.iter().skip(1)).cloned().collect();
    let lines = summary::quick_lines(&mixed);
    assert_eq!(lines.len(), 2);
    assert!(lines[0].1.starts_with("timed every 2nd wave of CTAs (32 of 64, 4 waves)"), "{lines:?}");
    assert!(lines[1].1.starts_with("all 64 CTAs timed (exact): its sample spread 10% or more"), "{lines:?}");
    assert!(summary::quick_lines(&refined).is_empty());
}

/// saxpy, 64 CTAs of 64 threads, on one SM of fermi-gtx480: 8 CTAs fit (the 8-CTA slot limit;
/// 2 warps each), so a wave is 8 CTAs and 3 waves 24: one wave in every 64 / 24 = 2 runs (CTAs
/// 0–7, 16–23, 32–39, 48–55), 32 CTAs in 4 waves. Every run times those 32, whatever its scheme; its summary carries the estimate
/// (outcome "estimate"), within 10% of the full run's cycles on this uniform grid. A grid of
/// fewer than 48 CTAs (two samples' worth) runs in full: the same report as without the option.
#[test]
fn a_large_grid_is_sampled_alike_in_every_run_and_a_small_one_runs_in_full() {
    let src = saxpy_source();
    let (Ok(big), Ok(small)) = (saxpy(64, 64 * 64), saxpy(47, 47 * 64)) else {
        unreachable!("the launch setups parse")
    };
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

/// A quick run against its full run: the IPC error of the estimate, and what was timed.
struct Measured {
    /// (estimated − full) / full warp IPC; 0 for a run timed in full.
    error: f64,
    /// "316 of 4096 (every 15)", or "all 1024" for a run timed in full.
    timed: String,
    /// The sample's spread (`None`: timed in full).
    spread: Option<f64>,
}

fn measure(full: &Report, quick: &Report) -> Measured {
    let (_, qipc, _) = headline(quick);
    let fipc = full.ipc.warp_instructions_per_cycle;
    let error = if fipc > 0.0 { (qipc - fipc) / fipc } else { 0.0 };
    match &quick.sample {
        Some(s) => Measured {
            error,
            timed: format!("{} of {} (every {})", s.simulated_ctas, s.total_ctas, s.every),
            spread: Some(s.spread),
        },
        None => Measured { error, timed: format!("all {}", quick.ctas), spread: None },
    }
}

fn cell(m: &Measured) -> String {
    let spread = m.spread.map_or_else(|| String::from("—"), |s| format!("{:.1}%", 100.0 * s));
    format!("{} | {:+.1}% | {spread}", m.timed, 100.0 * m.error)
}

/// Quick mode's first sample and its refined result for every sampled run: (scheme, first,
/// refined); prints the means.
fn print_means(runs: &[(String, Measured, Measured)], schemes: &[&str]) {
    let mean = |v: &[f64]| if v.is_empty() { 0.0 } else { 100.0 * v.iter().sum::<f64>() / v.len() as f64 };
    let max = |v: &[f64]| 100.0 * v.iter().copied().fold(0.0, f64::max);
    let first: Vec<f64> = runs.iter().map(|r| r.1.error.abs()).collect();
    let refined: Vec<f64> = runs.iter().map(|r| r.2.error.abs()).collect();
    let settled = |m: &Measured| m.spread.is_none_or(|s| s < quick_sample::SETTLED_SPREAD);
    let first_settled: Vec<f64> = runs.iter().filter(|r| settled(&r.1)).map(|r| r.1.error.abs()).collect();
    let refined_settled: Vec<f64> = runs.iter().filter(|r| settled(&r.2)).map(|r| r.2.error.abs()).collect();
    let refined_runs = runs.iter().filter(|r| r.1.timed != r.2.timed).count();
    eprintln!("\n| set | runs | mean IPC error | max IPC error |\n|---|---|---|---|");
    eprintln!("| first sample, all sampled runs | {} | {:.1}% | {:.1}% |", first.len(), mean(&first), max(&first));
    eprintln!(
        "| first sample, spread under 10% | {} | {:.1}% | {:.1}% |",
        first_settled.len(),
        mean(&first_settled),
        max(&first_settled)
    );
    eprintln!(
        "| refined, all sampled runs ({refined_runs} refined) | {} | {:.1}% | {:.1}% |",
        refined.len(),
        mean(&refined),
        max(&refined)
    );
    eprintln!(
        "| refined, spread under 10% at the end | {} | {:.1}% | {:.1}% |",
        refined_settled.len(),
        mean(&refined_settled),
        max(&refined_settled)
    );
    eprintln!("\n| scheme | runs | first sample | refined |\n|---|---|---|---|");
    for s in schemes {
        let of = |pick: fn(&(String, Measured, Measured)) -> f64| -> Vec<f64> {
            runs.iter().filter(|r| r.0 == *s).map(pick).collect()
        };
        let (a, b) = (of(|r| r.1.error.abs()), of(|r| r.2.error.abs()));
        eprintln!("| {s} | {} | {:.2}% | {:.2}% |", a.len(), mean(&a), mean(&b));
    }
}

#[test]
#[ignore = "minutes even in a release build: the table of docs/fidelity/quick.md (run with --release)"]
fn the_fidelity_table() {
    let schemes: Vec<&str> = sim_core::timing::regfile::registry::names().collect();
    let mut rows = vec![String::from(
        "| workload | scheme | full warp IPC | first sample: CTAs timed | IPC error | spread | refined: CTAs timed | IPC error | spread |\n|---|---|---|---|---|---|---|---|---|",
    )];
    let (mut runs, mut times, mut unsampled) = (Vec::new(), Vec::new(), Vec::new());
    for (name, src, setup) in workloads() {
        let options = TimingOptions::default();
        let t = Instant::now();
        let full = simulate(&src, &setup, "fermi-gtx480", &schemes, options.clone());
        let full_s = t.elapsed().as_secs_f64();
        let t = Instant::now();
        let (first, refined) =
            quick(&src, &setup, "fermi-gtx480", &schemes, TimingOptions { quick_waves: Some(3), ..options });
        times.push(format!("{name}: full {full_s:.1} s, quick {:.1} s", t.elapsed().as_secs_f64()));
        if first.iter().all(|r| r.sample.is_none()) {
            unsampled.push(name);
            continue;
        }
        for ((f, a), b) in full.iter().zip(&first).zip(&refined) {
            let (a, b) = (measure(f, a), measure(f, b));
            let fipc = f.ipc.warp_instructions_per_cycle;
            rows.push(format!("| {name} | {} | {fipc:.3} | {} | {} |", f.scheme, cell(&a), cell(&b)));
            runs.push((f.scheme.clone(), a, b));
        }
    }
    eprintln!("{}", rows.join("\n"));
    eprintln!("\nrun in full (under 6 waves), identical reports: {}", unsampled.join(", "));
    print_means(&runs, &schemes);
    eprintln!("\n{}", times.join("\n"));
}

/// Every runnable corpus kernel at its proposed launch (`sim_core::exec::propose_launch`, its
/// grid as proposed), on one SM of `fermi-gtx480` so that a proposed grid of 64 CTAs is 8 waves
/// or more: full run vs quick estimate (first sample and refined) for `REGLAB_QUICK_SCHEMES`
/// (comma-separated; default every registered scheme). Kernels whose full run does not finish
/// within 2 million warp-instructions, or whose grid is under 6 waves, are left out.
#[test]
#[ignore = "minutes in a release build: the corpus table of docs/fidelity/quick.md (run with --release)"]
fn the_corpus_table() {
    let registered: Vec<String> = sim_core::timing::regfile::registry::names().map(String::from).collect();
    let chosen: Vec<String> = std::env::var("REGLAB_QUICK_SCHEMES")
        .map(|s| s.split(',').map(|x| x.trim().to_owned()).filter(|x| !x.is_empty()).collect())
        .unwrap_or(registered);
    let schemes: Vec<&str> = chosen.iter().map(String::as_str).collect();
    let Some(gpu) = presets::by_name("fermi-gtx480") else { return };
    let one_sm = TimingOptions { sms: Some(1), ..TimingOptions::default() };
    let (mut runs, mut lines, mut skipped, mut kernels) = (Vec::new(), Vec::new(), 0, 0);
    let started = Instant::now();
    for path in reglab_tests::ptx_files(&reglab_tests::corpus_dir()) {
        let Ok(src) = std::fs::read_to_string(&path) else { continue };
        let Ok(module) = sim_core::ptx::compile(&src) else { continue };
        for kernel in sim_core::exec::plan::kernel_names(&module) {
            let mut setup = sim_core::exec::propose_launch(&module, &kernel);
            setup.budget = Some(2_000_000);
            let run = |options: TimingOptions, schemes: &[&str]| {
                Simulation::from_launch(&module, &setup, &gpu, schemes, options).and_then(|mut s| s.run_to_end())
            };
            let mut first = None;
            let refined = quick_sample::refine(schemes.len(), 3, |waves, which| {
                let some: Vec<&str> = which.iter().filter_map(|&i| schemes.get(i).copied()).collect();
                let reports = run(TimingOptions { quick_waves: Some(waves), ..one_sm.clone() }, &some);
                if first.is_none() {
                    first = reports.as_ref().ok().cloned();
                }
                reports
            });
            let (Ok(full), Some(first), Ok(refined)) = (run(one_sm.clone(), &schemes), first, refined) else {
                skipped += 1;
                continue;
            };
            if first.iter().all(|r| r.sample.is_none()) {
                continue;
            }
            kernels += 1;
            let name =
                format!("{}::{kernel}", path.strip_prefix(reglab_tests::corpus_dir()).unwrap_or(&path).display());
            for ((f, a), b) in full.iter().zip(&first).zip(&refined) {
                if [f, a, b].iter().any(|r| r.outcome != Outcome::Finished) {
                    continue;
                }
                let (a, b) = (measure(f, a), measure(f, b));
                lines.push(format!("| {name} | {} | {} | {} |", f.scheme, cell(&a), cell(&b)));
                runs.push((f.scheme.clone(), a, b));
            }
        }
    }
    eprintln!("{}", lines.join("\n"));
    eprintln!(
        "\ncorpus: {kernels} kernels sampled ({skipped} not runnable), {} runs, {:.0} s",
        runs.len(),
        started.elapsed().as_secs_f64()
    );
    print_means(&runs, &schemes);
}
