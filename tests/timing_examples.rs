//! The bundled examples (with their suggested launch setups) through the timing model: every one
//! completes with the baseline register file (figures printed); the two smallest also run under
//! every scheme, twice, giving identical reports (serialized and compared), no bank conflicts in
//! the conflict-free limit and fewer cycles there, and no fewer CTAs per SM with 2× registers.

#![allow(clippy::print_stderr, reason = "the test prints each example's figures")]

use std::path::PathBuf;

use sim_core::exec::LaunchSetup;
use sim_core::gpu::presets;
use sim_core::timing::report::{Outcome, Report};
use sim_core::timing::{Simulation, TimingOptions};

const SCHEMES: [&str; 3] = ["baseline", "no-bank-conflicts", "2x-registers"];

/// The bundled examples (`static/examples`) that have a launch setup (`tests/cases/exec/examples`).
fn examples() -> Vec<PathBuf> {
    let root = reglab_tests::repo_root();
    let launches = root.join("tests").join("cases").join("exec").join("examples");
    reglab_tests::ptx_files(&root.join("static").join("examples"))
        .into_iter()
        .filter(|p| launch_of(p, &launches).exists())
        .collect()
}

fn launch_of(ptx: &std::path::Path, dir: &std::path::Path) -> PathBuf {
    dir.join(format!("{}.launch.json", name(ptx)))
}

fn simulate(path: &PathBuf, gpu: &str, sms: u32, schemes: &[&str]) -> Vec<Report> {
    let src = std::fs::read_to_string(path).unwrap_or_default();
    let dir = reglab_tests::repo_root().join("tests").join("cases").join("exec").join("examples");
    let launch = std::fs::read_to_string(launch_of(path, &dir)).unwrap_or_default();
    let module = sim_core::ptx::compile(&src).unwrap_or_default();
    let setup = LaunchSetup::from_json(&launch);
    assert!(setup.is_ok(), "{}: launch setup {setup:?}", path.display());
    let Some(gpu) = presets::by_name(gpu) else { return Vec::new() };
    let options = TimingOptions { sms: Some(sms), ..TimingOptions::default() };
    let result = setup
        .map_err(|e| format!("{e:?}"))
        .and_then(|s| Simulation::from_launch(&module, &s, &gpu, schemes, options).map_err(|e| e.to_string()))
        .and_then(|mut sim| sim.run_to_end().map_err(|e| e.to_string()));
    assert!(result.is_ok(), "{}: {result:?}", path.display());
    result.unwrap_or_default()
}

fn name(path: &std::path::Path) -> &str {
    path.file_stem().and_then(|s| s.to_str()).unwrap_or_default()
}

#[test]
fn every_example_completes_with_the_baseline() {
    let files = examples();
    assert!(files.len() >= 7, "bundled examples missing: {files:?}");
    for path in &files {
        let reports = simulate(path, "fermi-gtx480", 15, &["baseline"]);
        let r = &reports[0];
        assert_eq!(r.outcome, Outcome::Finished, "{}", path.display());
        assert_eq!(r.stalls.total(), r.cycles * u64::from(r.schedulers_per_sm) * u64::from(r.sms));
        eprintln!(
            "{}: {} warp-insts in {} cycles (IPC {:.2} warp / {:.1} thread), bank conflicts {}",
            name(path),
            r.warp_instructions,
            r.cycles,
            r.ipc.warp_instructions_per_cycle,
            r.ipc.thread_instructions_per_cycle,
            r.register_file.bank_conflicts
        );
    }
}

#[test]
fn small_examples_under_every_scheme_twice_identically() {
    for path in examples().iter().filter(|p| ["imgvf", "hotspot"].contains(&name(p))) {
        let first = simulate(path, "turing-rtx2060", 2, &SCHEMES);
        let second = simulate(path, "turing-rtx2060", 2, &SCHEMES);
        assert_eq!(first.len(), SCHEMES.len());
        let a = serde_json::to_string(&first).unwrap_or_default();
        let b = serde_json::to_string(&second).unwrap_or_default();
        assert!(a == b && !a.is_empty(), "{}: two runs differ", path.display());
        let [base, free, double] = [&first[0], &first[1], &first[2]];
        for r in &first {
            assert_eq!(r.outcome, Outcome::Finished, "{} {}", path.display(), r.scheme);
            assert_eq!(r.stalls.total(), r.cycles * u64::from(r.schedulers_per_sm) * u64::from(r.sms));
            assert_eq!(r.warp_instructions, base.warp_instructions);
        }
        assert_eq!(free.register_file.bank_conflicts, 0);
        assert!(free.cycles < base.cycles, "{}: the conflict-free limit is not faster", path.display());
        let ctas = |r: &Report| r.kernels.iter().map(|k| k.ctas_per_sm).collect::<Vec<_>>();
        assert!(ctas(double).iter().zip(ctas(base)).all(|(d, b)| *d >= b));
        eprintln!(
            "{}: cycles baseline {} / no-conflicts {} / 2x-registers {}",
            name(path),
            base.cycles,
            free.cycles,
            double.cycles
        );
    }
}
