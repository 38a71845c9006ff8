//! The schemes' analyses and passes on every kernel of the corpus: ranges (e-SSA, constraint
//! solving), single-use loads, composite pairs (both rule sets), the DeMO rewrite and composite
//! fusion run without error (also fusion after the rewrite), and the passes' output passes the
//! verifier; every range solution (with and without a launch) is a post-fixpoint of its
//! constraints. Prints corpus statistics
//! (run with `--nocapture` to see them).

use reglab_tests::{corpus_dir, ptx_files};
use sim_core::analysis::{
    composite_fuse, demo_rewrite, Cfg, CompositePairs, CompositeRules, Dominators, Liveness, RangeAnalysis, RangeSeeds,
    SingleUseLoads,
};
use sim_core::ir::{Function, Module};

#[derive(Default)]
struct Stats {
    files: usize,
    functions: usize,
    instructions: usize,
    loads: usize,
    eligible: usize,
    single_use: usize,
    pairs: usize,
    pairs_crf: usize,
    int_defs: usize,
    narrow_defs: usize,
    rewritten: usize,
    fused: usize,
    /// Range values that are not a post-fixpoint of their constraints (must be 0).
    unstable: usize,
}

fn function(func: &Function, stats: &mut Stats) {
    let cfg = Cfg::compute(func);
    let dom = Dominators::compute(&cfg);
    let live = Liveness::compute(func, &cfg);
    let ranges = RangeAnalysis::compute(func, &cfg, &dom, &live, &RangeSeeds::architectural());
    stats.unstable += ranges.unstable_values(func, &RangeSeeds::architectural()).len();
    let launch = RangeSeeds::launch([3, 2, 1], [96, 2, 1]);
    let launched = RangeAnalysis::compute(func, &cfg, &dom, &live, &launch);
    stats.unstable += launched.unstable_values(func, &launch).len();
    let loads = SingleUseLoads::compute(func, &live);
    stats.loads += loads.load_count();
    stats.eligible += loads.eligible_count();
    stats.single_use += loads.len();
    stats.pairs += CompositePairs::compute(func, &live, CompositeRules::spec()).len();
    stats.pairs_crf += CompositePairs::compute(func, &live, CompositeRules::gilani_fig4()).len();
    let Some(body) = &func.body else { return };
    stats.instructions += body.insts.len();
    for ih in body.insts_in_order() {
        for &(reg, _) in ranges.essa().writes_of(ih) {
            if let Some(w) = ranges.bitwidth(ih, reg) {
                stats.int_defs += 1;
                stats.narrow_defs += usize::from(w.bits <= 16);
            }
        }
    }
}

fn module(name: &str, module: &Module, stats: &mut Stats, failures: &mut Vec<String>) {
    stats.files += 1;
    for func in module.functions.values().filter(|f| f.body.is_some()) {
        stats.functions += 1;
        function(func, stats);
    }
    match demo_rewrite(module) {
        Ok(r) => {
            stats.rewritten += r.rewritten;
            // The passes compose: composite fusion on DeMO's output (memory operands count as
            // the pair's one memory access, their address registers as register sources).
            if let Err(d) = composite_fuse(&r.module, CompositeRules::spec()) {
                failures.push(format!("{name}: fusion after DeMO fails the verifier: {}", d[0].message));
            }
        }
        Err(d) => failures.push(format!("{name}: DeMO rewrite fails the verifier: {}", d[0].message)),
    }
    for rules in [CompositeRules::spec(), CompositeRules::gilani_fig4()] {
        match composite_fuse(module, rules) {
            Ok(r) => stats.fused += r.fused,
            Err(d) => failures.push(format!("{name}: composite fusion fails the verifier: {}", d[0].message)),
        }
    }
}

#[test]
fn every_corpus_kernel_analyzes_and_transforms() {
    let files = ptx_files(&corpus_dir());
    assert!(files.len() >= 85, "corpus not found at {}", corpus_dir().display());
    let (mut stats, mut failures) = (Stats::default(), Vec::new());
    for path in &files {
        let src = std::fs::read_to_string(path).unwrap_or_default();
        if let Ok(m) = sim_core::ptx::compile(&src) {
            module(&path.display().to_string(), &m, &mut stats, &mut failures);
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert_eq!(stats.unstable, 0, "range values whose constraints leave their range");
    let pct = |a: usize, b: usize| 100.0 * a as f64 / b.max(1) as f64;
    #[allow(clippy::print_stderr, reason = "the corpus statistics are this test's report")]
    {
        eprintln!(
            "corpus: {} files, {} functions; loads {}, scalar 32-bit loads {}, single-use {} ({:.1}% of loads, {:.1}% of scalar 32-bit loads), DeMO rewrites {}",
            stats.files,
            stats.functions,
            stats.loads,
            stats.eligible,
            stats.single_use,
            pct(stats.single_use, stats.loads),
            pct(stats.single_use, stats.eligible),
            stats.rewritten
        );
        eprintln!(
            "instructions {}; composite pairs: {} (spec), {} (CRF forwarding); fused {}",
            stats.instructions, stats.pairs, stats.pairs_crf, stats.fused
        );
        eprintln!(
            "integer defs: {}, of which <= 16 bits: {} ({:.1}%)",
            stats.int_defs,
            stats.narrow_defs,
            pct(stats.narrow_defs, stats.int_defs)
        );
    }
}
