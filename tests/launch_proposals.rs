//! How far "paste a kernel and it runs" gets: every entry kernel of the corpus, launched with the
//! setup RegLab proposes (grid capped at 2 CTAs in x, 1 in y and z), tallied as ran / fault /
//! unsupported / budget / other, with the first reason seen for each failing kind. The table is
//! printed (`cargo test -p reglab-tests --test launch_proposals -- --nocapture`); the budget is
//! `REGLAB_SURVEY_BUDGET` warp-instructions per kernel (default 2 million). The figures are kept
//! in `docs/fidelity/launch-proposals.md`; the test fails if fewer kernels run than recorded there.

#![allow(clippy::print_stderr, reason = "the test prints each kernel's outcome and the table")]

use std::collections::BTreeMap;

use reglab_tests::{corpus_dir, ptx_files};
use sim_core::exec::{propose_launch, ExecError, Progress, Run, RunOptions};

/// At least this many corpus kernels run to completion with their proposed launch (measured:
/// see `docs/fidelity/launch-proposals.md`).
const MIN_RAN: usize = 350;

fn outcome(module: &sim_core::ir::Module, kernel: &str, budget: u64) -> (&'static str, String) {
    let mut setup = propose_launch(module, kernel);
    setup.grid = vec![setup.grid.first().copied().unwrap_or(1).min(2), 1, 1];
    let options = RunOptions { budget: Some(budget), ..RunOptions::default() };
    // Run to the end without collecting the outputs (large proposed buffers would cost more to
    // report than to run).
    let finished = |mut r: Run| loop {
        match r.step(u64::MAX / 4) {
            Ok(Progress::Finished) => return Ok(()),
            Ok(Progress::Running { .. }) => {}
            Err(e) => return Err(e),
        }
    };
    match Run::new(module, &setup, options).and_then(finished) {
        Ok(()) => ("ran", String::new()),
        Err(e) => {
            let detail = match &e {
                ExecError::Unsupported { reason, .. } => reason.clone(),
                ExecError::InvalidLaunch { message } => message.clone(),
                ExecError::Fault(f) => format!("{:?} {} `{}`", f.reason, f.space.name(), f.site.instruction),
                other => other.to_string(),
            };
            let kind = match &e {
                ExecError::Fault(_) => "fault",
                ExecError::Unsupported { .. } => "unsupported",
                ExecError::BudgetExceeded { .. } => "budget",
                _ => "other",
            };
            (kind, detail)
        }
    }
}

#[test]
fn proposed_launches_run_the_corpus() {
    let budget = std::env::var("REGLAB_SURVEY_BUDGET").ok().and_then(|b| b.parse().ok()).unwrap_or(2_000_000);
    let mut tally: BTreeMap<&'static str, usize> = BTreeMap::new();
    let mut first: BTreeMap<&'static str, String> = BTreeMap::new();
    for path in ptx_files(&corpus_dir()) {
        let Ok(src) = std::fs::read_to_string(&path) else { continue };
        let Ok(module) = sim_core::ptx::compile(&src) else { continue };
        for kernel in sim_core::exec::plan::kernel_names(&module) {
            let (kind, detail) = outcome(&module, &kernel, budget);
            let name = format!("{}::{kernel}", path.strip_prefix(corpus_dir()).unwrap_or(&path).display());
            eprintln!("{name}: {kind} {detail}");
            *tally.entry(kind).or_default() += 1;
            if kind != "ran" {
                first.entry(kind).or_insert(format!("{name}: {detail}"));
            }
        }
    }
    let total: usize = tally.values().sum();
    let mut table = String::from("| outcome | kernels | first reason |\n|---|---|---|\n");
    for kind in ["ran", "fault", "unsupported", "budget", "other"] {
        let n = tally.get(kind).copied().unwrap_or(0);
        table.push_str(&format!("| {kind} | {n} | {} |\n", first.get(kind).map_or("", String::as_str)));
    }
    table.push_str(&format!("| total | {total} | budget {budget} warp-instructions, grid ≤ 2 CTAs |\n"));
    eprint!("{table}");
    // Kept for scripts/test.sh, which prints the figures at the end of the run.
    let figures = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("figures");
    let written = std::fs::create_dir_all(&figures).and_then(|()| {
        std::fs::write(figures.join("launch-proposals.txt"), format!("launch proposals over the corpus:\n{table}"))
    });
    if let Err(e) = written {
        eprintln!("could not keep the table in {}: {e}", figures.display());
    }
    if total == 0 {
        eprintln!("no corpus at {}: nothing measured", corpus_dir().display());
        return;
    }
    let ran = tally.get("ran").copied().unwrap_or(0);
    assert!(ran >= MIN_RAN, "only {ran} of {total} kernels ran (at least {MIN_RAN} did when measured)");
}
