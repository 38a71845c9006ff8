//! DeMO (`SCHEMES.md` §3) end to end: on bundled examples and corpus kernels, `demo:spaces=all`
//! removes from the main register file exactly the folded values' accesses — one write and one
//! read per dynamic direct operand, the accesses `demo-ideal` removes — and issues one warp
//! instruction fewer per direct operand; the functional run is the original kernel's, so outputs
//! are unchanged by construction. The ignored sweep prints the figures of
//! `docs/fidelity/demo.md` (`cargo test --release -p reglab-tests --test timing_demo -- --ignored
//! --nocapture`).

#![allow(clippy::print_stderr, reason = "the sweep prints the figures of docs/fidelity/demo.md")]

use std::path::{Path, PathBuf};

use reglab_tests::{corpus_dir, ptx_files};
use sim_core::exec::{propose_launch, LaunchSetup, Run, RunOptions};
use sim_core::gpu::presets;
use sim_core::ir::Module;
use sim_core::timing::report::{Outcome, Report};
use sim_core::timing::summary::{single_use_share, summarise};
use sim_core::timing::StallCause;
use sim_core::timing::{Simulation, TimingOptions};

const SCHEMES: [&str; 5] = ["baseline", "demo:spaces=all", "demo-ideal", "demo", "demo:spaces=all,issue=load"];

/// The figures of one kernel: single-use share of RF accesses and conflicts, IPC and RF energy
/// changes of `demo:spaces=all`, `demo-ideal`, `demo` (global loads only) and
/// `demo:spaces=all,issue=load` (the paper's SASS).
struct Row {
    name: String,
    share: f64,
    /// Bank conflicts involving a single-use access, over all the baseline's (paper Fig. 2).
    involved: f64,
    conflicts: f64,
    /// The baseline's resident CTAs per SM (its limit, or the launch's CTAs over the SMs if
    /// fewer), bank conflicts per warp instruction and share of scheduler
    /// cycles stalled on operand collection (why the Ideal gains little or much).
    ctas: u32,
    per_inst: f64,
    oc: f64,
    ipc: [f64; 4],
    energy: [f64; 4],
}

fn main_rf(r: &Report) -> u64 {
    r.register_file.scheme.structures.iter().filter(|s| s.name == "main_rf").map(|s| s.reads + s.writes).sum()
}

fn counter(r: &Report, name: &str) -> u64 {
    r.register_file.scheme.counters.iter().filter(|c| c.name == name).map(|c| c.value).sum()
}

fn ratio(new: f64, old: f64) -> f64 {
    if old > 0.0 {
        new / old - 1.0
    } else {
        0.0
    }
}

/// Runs the four schemes on `module`/`setup` and checks the accounting; the figures.
fn check(name: &str, module: &Module, setup: &LaunchSetup, gpu: &str, sms: u32) -> Option<Row> {
    let gpu = presets::by_name(gpu).unwrap_or_else(presets::turing_rtx2060);
    let options = TimingOptions {
        sms: Some(sms),
        max_cycles: 50_000_000,
        single_use_attribution: true,
        ..TimingOptions::default()
    };
    let reports = Simulation::from_launch(module, setup, &gpu, &SCHEMES, options).and_then(|mut s| s.run_to_end());
    assert!(reports.is_ok(), "{name}: {reports:?}");
    let reports = reports.unwrap_or_default();
    assert_eq!(reports.len(), 5, "{name}: five reports expected");
    let [base, all, ideal, global, split] = &reports[..] else { return None };
    for r in &reports {
        assert_eq!(r.outcome, Outcome::Finished, "{name}: {}", r.scheme);
    }
    for demo in [all, global] {
        let folded = counter(demo, "direct_operands");
        assert_eq!(main_rf(base) - main_rf(demo), 2 * folded, "{name}: {} main RF accesses", demo.scheme);
        assert_eq!(base.warp_instructions - demo.warp_instructions, folded, "{name}: {} issues", demo.scheme);
    }
    assert_eq!(main_rf(base) - main_rf(ideal), 2 * counter(all, "direct_operands"), "{name}: ideal");
    // The Ideal counts the baseline's single-use accesses it bypasses: one write and one read each.
    let single = (counter(ideal, "single_use_reads"), counter(ideal, "single_use_writes"));
    assert_eq!(single, (counter(all, "direct_operands"), counter(all, "direct_operands")), "{name}: ideal counters");
    // The baseline's attribution marks exactly the accesses the Ideal bypasses.
    let marked = (counter(base, "single_use_reads"), counter(base, "single_use_writes"));
    assert_eq!(marked, single, "{name}: baseline single-use accesses");
    let attributed = single_use_share(base);
    assert!(attributed.as_ref().is_some_and(|u| u.bank_conflicts <= base.register_file.bank_conflicts));
    // The paper's SASS: the same instructions; each direct load's value skips one write and one read.
    let folded = counter(split, "direct_operands");
    assert_eq!(main_rf(base) - main_rf(split), 2 * folded, "{name}: issue=load main RF accesses");
    assert_eq!(base.warp_instructions, split.warp_instructions, "{name}: issue=load issues");
    let ipc = |r: &Report| r.ipc.warp_instructions_per_cycle;
    let base_ipc = ipc(base);
    // IPC counts the original kernel's work: the folded loads are issues the baseline needed.
    let work = |r: &Report| base.warp_instructions as f64 / r.cycles.max(1) as f64;
    let conflicts = |r: &Report| r.register_file.bank_conflicts as f64;
    let energy = |r: &Report| r.register_file.energy_total_nj;
    Some(Row {
        name: name.to_string(),
        share: (main_rf(base) - main_rf(ideal)) as f64 / main_rf(base).max(1) as f64,
        involved: attributed.map_or(0.0, |u| u.conflict_share),
        ctas: base.kernels.first().map_or(0, |k| k.ctas_per_sm).min(base.ctas.div_ceil(sms.max(1) as u64) as u32),
        per_inst: conflicts(base) / base.warp_instructions.max(1) as f64,
        oc: summarise(base, base.cycles).stall(StallCause::OperandCollection),
        conflicts: if conflicts(base) > 0.0 { 1.0 - conflicts(ideal) / conflicts(base) } else { 0.0 },
        ipc: [
            ratio(work(all), base_ipc),
            ratio(work(ideal), base_ipc),
            ratio(work(global), base_ipc),
            ratio(work(split), base_ipc),
        ],
        energy: [
            ratio(energy(all), energy(base)),
            ratio(energy(ideal), energy(base)),
            ratio(energy(global), energy(base)),
            ratio(energy(split), energy(base)),
        ],
    })
}

fn example(stem: &str) -> Option<(Module, LaunchSetup)> {
    let root = reglab_tests::repo_root();
    let src = std::fs::read_to_string(root.join("static").join("examples").join(format!("{stem}.ptx")));
    let dir = root.join("tests").join("cases").join("exec").join("examples");
    let launch = std::fs::read_to_string(dir.join(format!("{stem}.launch.json"))).unwrap_or_default();
    let module = sim_core::ptx::compile(&src.unwrap_or_default()).unwrap_or_default();
    let setup = LaunchSetup::from_json(&launch);
    assert!(setup.is_ok(), "{stem}: {setup:?}");
    Some((module, setup.ok()?))
}

fn print(rows: &[Row]) {
    let pct = |x: f64| format!("{:+.1}%", 100.0 * x);
    eprintln!("kernel | single-use share of RF accesses | conflicts involving single-use accesses | conflicts removed (ideal) | IPC demo:all / ideal / demo / load | RF energy demo:all / ideal / demo / load | CTAs/SM | conflicts per warp instr | oc stall");
    let four = |v: &[f64; 4]| v.iter().map(|&x| pct(x)).collect::<Vec<_>>().join(" / ");
    for r in rows {
        eprintln!(
            "{} | {:.1}% | {:.1}% | {:.1}% | {} | {} | {} | {:.3} | {:.1}%",
            r.name,
            100.0 * r.share,
            100.0 * r.involved,
            100.0 * r.conflicts,
            four(&r.ipc),
            four(&r.energy),
            r.ctas,
            r.per_inst,
            100.0 * r.oc
        );
    }
    let n = rows.len().max(1) as f64;
    let mean = |f: &dyn Fn(&Row) -> f64| rows.iter().map(f).sum::<f64>() / n;
    let ipc = [0, 1, 2, 3].map(|i| mean(&|r| r.ipc[i]));
    let energy = [0, 1, 2, 3].map(|i| mean(&|r| r.energy[i]));
    let max = [0, 1, 2, 3].map(|i| rows.iter().map(|r| r.ipc[i]).fold(f64::MIN, f64::max));
    eprintln!(
        "mean of {} | {:.1}% | {:.1}% | {:.1}% | {} | {} | {:.1} | {:.3} | {:.1}% (IPC max {})",
        rows.len(),
        100.0 * mean(&|r| r.share),
        100.0 * mean(&|r| r.involved),
        100.0 * mean(&|r| r.conflicts),
        four(&ipc),
        four(&energy),
        mean(&|r| f64::from(r.ctas)),
        mean(&|r| r.per_inst),
        100.0 * mean(&|r| r.oc),
        four(&max)
    );
}

/// The smallest bundled examples, two CTAs on one SM (cheap in a debug build).
#[test]
fn demo_removes_exactly_the_folded_accesses() {
    let Some((module, mut setup)) = example("vector_add") else { return };
    setup.grid = vec![2, 1, 1];
    let row = check("vector_add", &module, &setup, "turing-rtx2060", 1);
    // vector_add reads each loaded element once: the single-use share is real.
    assert!(row.as_ref().is_some_and(|r| r.share > 0.0), "vector_add: no single-use value");
    print(&row.into_iter().collect::<Vec<_>>());
}

/// Single-use attribution only adds the baseline's four counters: with them removed, the report
/// is the one without the option, bit for bit (timing, accesses, conflicts).
#[test]
fn attribution_adds_counters_and_changes_nothing_else() {
    let Some((module, mut setup)) = example("hotspot") else { return };
    setup.grid = vec![2, 1, 1];
    let gpu = presets::turing_rtx2060();
    let run = |single_use_attribution: bool| {
        let options = TimingOptions { sms: Some(1), single_use_attribution, ..TimingOptions::default() };
        let reports = Simulation::from_launch(&module, &setup, &gpu, &["baseline", "demo-ideal"], options)
            .and_then(|mut s| s.run_to_end());
        assert!(reports.is_ok(), "{reports:?}");
        reports.unwrap_or_default()
    };
    let (plain, mut marked) = (run(false), run(true));
    let names: Vec<&str> = marked[0].register_file.scheme.counters.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(names, ["single_use_reads", "single_use_writes", "single_use_bank_conflicts", "single_use_waits"]);
    let share = single_use_share(&marked[0]);
    assert!(share.is_some_and(|u| u.accesses > 0), "hotspot has single-use values");
    assert_eq!(single_use_share(&plain[0]), None);
    marked[0].register_file.scheme.counters.clear();
    let json = |r: &[Report]| serde_json::to_string(r).unwrap_or_default();
    assert_eq!(json(&plain), json(&marked), "only the counters differ; demo-ideal is untouched");
}

/// The corpus kernels of the paper's suites (Rodinia, Parboil, CUDA samples) the executor runs.
fn suite_kernels() -> Vec<PathBuf> {
    let suites = ["rodinia", "parboil", "cuda-samples", "cuda3.2", "cuda2.2", "sdk"];
    ptx_files(&corpus_dir())
        .into_iter()
        .filter(|p| suites.iter().any(|s| p.to_string_lossy().to_lowercase().contains(s)))
        .collect()
}

/// A launch of the corpus: at most `ctas` CTAs of the proposed launch, a `budget` of warp
/// instructions, at most `per_file` kernels of each file.
struct Launch {
    ctas: u32,
    /// Launch exactly `ctas` CTAs (else at most `ctas` of the proposed grid).
    exact: bool,
    budget: u64,
    per_file: usize,
}

/// The sweep's launch: at most 8 CTAs over 4 SMs, 200 000 instructions.
const SMALL: Launch = Launch { ctas: 8, exact: false, budget: 200_000, per_file: usize::MAX };

fn corpus_rows(files: &[PathBuf], gpu: &str, launch: &Launch) -> Vec<Row> {
    let mut rows = Vec::new();
    for path in files {
        let Ok(src) = std::fs::read_to_string(path) else { continue };
        let Ok(module) = sim_core::ptx::compile(&src) else { continue };
        let mut kernels = 0;
        for kernel in sim_core::exec::plan::kernel_names(&module) {
            let mut setup = propose_launch(&module, &kernel);
            let proposed = setup.grid.first().copied().unwrap_or(1);
            setup.grid = vec![if launch.exact { launch.ctas } else { proposed.min(launch.ctas) }, 1, 1];
            setup.budget = Some(launch.budget);
            if kernels >= launch.per_file
                || Run::new(&module, &setup, RunOptions::default()).and_then(|mut r| r.run_to_end()).is_err()
            {
                continue;
            }
            kernels += 1;
            let name = format!("{}::{kernel} ({} CTAs)", short(path), setup.grid[0]);
            rows.extend(check(&name, &module, &setup, gpu, 4));
        }
    }
    rows
}

fn short(path: &Path) -> String {
    let dir = corpus_dir();
    path.strip_prefix(&dir).unwrap_or(path).display().to_string()
}

/// The figures of docs/fidelity/demo.md: every bundled example and every runnable suite kernel.
#[test]
#[ignore = "a sweep for docs/fidelity/demo.md; run it in a release build"]
fn demo_figures_on_examples_and_suite_kernels() {
    let mut rows = Vec::new();
    for stem in ["vector_add", "saxpy", "reduction", "histogram", "matmul_tiled", "hotspot", "imgvf"] {
        let Some((module, setup)) = example(stem) else { continue };
        rows.extend(check(stem, &module, &setup, "turing-rtx2060", 30));
    }
    print(&rows);
    let corpus = corpus_rows(&suite_kernels(), "turing-rtx2060", &SMALL);
    print(&corpus);
}

/// Larger launches, where conflicts bind: suite kernels whose conflicts involve single-use
/// accesses most at the small launch, with 120 CTAs on 4 SMs (30 per SM: every SM full for
/// several waves) and up to 20 million warp instructions.
#[test]
#[ignore = "a sweep for docs/fidelity/demo.md; run it in a release build"]
fn demo_figures_at_larger_launches() {
    let picks =
        ["backprop", "convolutionSeparable", "threadFenceReduction", "particles", "srad", "matrixMul_kernel.ptx"];
    let files: Vec<PathBuf> =
        suite_kernels().into_iter().filter(|p| picks.iter().any(|k| p.to_string_lossy().contains(k))).collect();
    let launch = Launch { ctas: 120, exact: true, budget: 20_000_000, per_file: 2 };
    print(&corpus_rows(&files, "turing-rtx2060", &launch));
}
