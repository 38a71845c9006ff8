//! The `rfc-ob` scheme on real kernels: every corpus kernel the executor runs (small setups, as
//! `timing_corpus.rs`) finishes under the smallest RFCs and with Gebhart's options (no
//! allocation deadlock, the executor's instruction counts), and on two kernels the share of OB
//! source reads the RFC serves never decreases as the RFC grows (Wyse Fig. 5).

use reglab_tests::{corpus_dir, ptx_files, repo_root};
use sim_core::exec::{propose_launch, LaunchSetup, Run, RunOptions};
use sim_core::gpu::presets;
use sim_core::ir::Module;
use sim_core::timing::report::{Outcome, Report};
use sim_core::timing::{Simulation, TimingOptions};

const SMALL: [&str; 2] =
    ["rfc-ob:rfc_entries=2", "rfc-ob:rfc_entries=2,last_use_bit=true,two_level=true,active_warps=2"];

fn counter(r: &Report, name: &str) -> u64 {
    r.register_file.scheme.counters.iter().find(|c| c.name == name).map_or(0, |c| c.value)
}

/// Reads saved per RFC size (2, 4, …, 512) of `module` under `setup` on fermi-gtx480.
fn reads_saved(module: &Module, setup: &LaunchSetup) -> Vec<f64> {
    let Some(gpu) = presets::by_name("fermi-gtx480") else { return Vec::new() };
    let specs: Vec<String> = (1..=9).map(|k| format!("rfc-ob:rfc_entries={}", 1u32 << k)).collect();
    let options = TimingOptions { sms: Some(2), ..TimingOptions::default() };
    let reports = Simulation::from_launch(module, setup, &gpu, &specs, options).and_then(|mut s| s.run_to_end());
    assert!(reports.is_ok(), "{:?}", reports.err());
    let reports = reports.unwrap_or_default();
    assert!(reports.iter().all(|r| r.outcome == Outcome::Finished));
    reports
        .iter()
        .map(|r| {
            let (h, m) = (counter(r, "rfc_hits"), counter(r, "rfc_misses"));
            h as f64 / (h + m).max(1) as f64
        })
        .collect()
}

#[test]
fn reads_saved_never_decrease_with_rfc_size() {
    let root = repo_root().join("static").join("examples");
    let src = std::fs::read_to_string(root.join("hotspot.ptx")).unwrap_or_default();
    let launch = std::fs::read_to_string(root.join("hotspot.launch.json")).unwrap_or_default();
    let parsed = sim_core::ptx::compile(&src).ok().zip(LaunchSetup::from_json(&launch).ok());
    assert!(parsed.is_some(), "the hotspot example compiles and has a launch");
    let Some((module, setup)) = parsed else { return };
    let saved = reads_saved(&module, &setup);
    assert_eq!(saved.len(), 9);
    assert!(saved.windows(2).all(|w| w[0] <= w[1]), "hotspot: {saved:?}");
    // 512 entries hold every value a warp keeps: most reads are served (Wyse: > 80 % for half the
    // applications); 2 entries serve few.
    assert!(saved[8] > 0.5 && saved[0] < 0.25, "hotspot: {saved:?}");

    let path = corpus_dir().join("gpuocelot").join("rodinia__backprop_cuda_kernel.ptx");
    let Some(module) = std::fs::read_to_string(path).ok().and_then(|s| sim_core::ptx::compile(&s).ok()) else {
        return; // no corpus: the example above is the check
    };
    let kernel = sim_core::exec::plan::kernel_names(&module).into_iter().next().unwrap_or_default();
    let mut setup = propose_launch(&module, &kernel);
    setup.grid = vec![setup.grid.first().copied().unwrap_or(1).min(8), 1, 1];
    setup.budget = Some(200_000);
    let saved = reads_saved(&module, &setup);
    assert!(saved.windows(2).all(|w| w[0] <= w[1]), "backprop: {saved:?}");
}

#[test]
fn every_runnable_corpus_kernel_finishes_with_small_rfcs_and_gebharts_options() {
    // volta-v100 as timing_corpus.rs (Fermi's 63-register limit refuses a few corpus kernels).
    let Some(gpu) = presets::by_name("volta-v100") else { return };
    let options = TimingOptions { sms: Some(2), max_cycles: 20_000_000, ..TimingOptions::default() };
    let (mut ran, mut failures) = (0, Vec::new());
    for path in ptx_files(&corpus_dir()) {
        let Ok(src) = std::fs::read_to_string(&path) else { continue };
        let Ok(module) = sim_core::ptx::compile(&src) else { continue };
        for kernel in sim_core::exec::plan::kernel_names(&module) {
            let mut setup = propose_launch(&module, &kernel);
            setup.grid = vec![setup.grid.first().copied().unwrap_or(1).min(2), 1, 1];
            setup.budget = Some(20_000);
            let Ok(functional) = Run::new(&module, &setup, RunOptions::default()).and_then(|mut r| r.run_to_end())
            else {
                continue;
            };
            let result = Simulation::from_launch(&module, &setup, &gpu, &SMALL, options.clone())
                .and_then(|mut s| s.run_to_end());
            let name = format!("{}::{kernel}", path.display());
            match result {
                Ok(reports)
                    if reports.iter().all(|r| {
                        r.outcome == Outcome::Finished && r.warp_instructions == functional.warp_instructions
                    }) =>
                {
                    ran += 1
                }
                Ok(reports) => {
                    failures.push(format!("{name}: {:?}", reports.iter().map(|r| &r.outcome).collect::<Vec<_>>()))
                }
                Err(e) => failures.push(format!("{name}: {e}")),
            }
        }
    }
    assert!(failures.is_empty(), "{failures:#?}");
    let corpus_present = corpus_dir().is_dir();
    assert!(!corpus_present || ran > 20, "only {ran} corpus kernels ran");
}

/// Same input, same report, with every option on (BTreeMap-ordered cache, no hash order).
#[test]
fn rfc_ob_reports_are_deterministic() {
    let root = repo_root().join("static").join("examples");
    let src = std::fs::read_to_string(root.join("reduction.ptx")).unwrap_or_default();
    let launch = std::fs::read_to_string(root.join("reduction.launch.json")).unwrap_or_default();
    let parsed = sim_core::ptx::compile(&src).ok().zip(LaunchSetup::from_json(&launch).ok());
    assert!(parsed.is_some(), "the reduction example compiles and has a launch");
    let Some((module, setup)) = parsed else { return };
    let Some(gpu) = presets::by_name("volta-v100") else { return };
    let spec = ["rfc-ob:rfc_entries=4,last_use_bit=true,two_level=true"];
    let run = || {
        Simulation::from_launch(
            &module,
            &setup,
            &gpu,
            &spec,
            TimingOptions { sms: Some(2), ..TimingOptions::default() },
        )
        .and_then(|mut s| s.run_to_end())
        .ok()
        .and_then(|r| serde_json::to_string(&r).ok())
    };
    let first = run();
    assert!(first.as_ref().is_some_and(|j| j.contains("rfc_dead_drops") && j.contains("rfc_flushed")));
    assert_eq!(first, run());
}
