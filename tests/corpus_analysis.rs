//! Every analysis on every function of every corpus file: no panic, and basic invariants hold
//! (one annotation per instruction, pressure within the register units declared, live-in units of
//! the entry block only from registers read before any write, reconvergence points that
//! post-dominate their branch, loops whose header dominates their blocks).

use reglab_tests::{corpus_dir, ptx_files};
use sim_core::analysis::{AnalysisOptions, Annotations, ModuleAnalysis, PostDomNode};

#[test]
fn every_corpus_function_analyzes() {
    let files = ptx_files(&corpus_dir());
    assert!(files.len() >= 85, "corpus not found at {} ({} files)", corpus_dir().display(), files.len());
    let (mut functions, mut failures, mut not_compiled) = (0usize, Vec::new(), Vec::new());
    for path in &files {
        let name = path.display().to_string();
        let Ok(src) = std::fs::read_to_string(path) else {
            failures.push(format!("{name}: unreadable"));
            continue;
        };
        let Ok(module) = sim_core::ptx::compile(&src) else {
            not_compiled.push(name);
            continue;
        };
        let analysis = ModuleAnalysis::compute(&module, &AnalysisOptions::default());
        for (h, func) in module.functions.iter() {
            let (Some(body), Some(a)) = (&func.body, analysis.get(h)) else { continue };
            functions += 1;
            let notes = Annotations::compute(func, a);
            let units = a.liveness.unit_map().units() as u32;
            let mut problems = Vec::new();
            if notes.insts.len() != body.insts.len() {
                problems.push(format!("{} annotations for {} instructions", notes.insts.len(), body.insts.len()));
            }
            if a.liveness.max_pressure() > units {
                problems.push(format!("max pressure {} > {units} units", a.liveness.max_pressure()));
            }
            for b in a.cfg.blocks().filter(|&b| a.cfg.branch(b).is_some()) {
                let ok = a.post_dominators.ipdom(b).is_some_and(|p| {
                    a.post_dominators.post_dominates(p, PostDomNode::Block(b)) && p != PostDomNode::Block(b)
                });
                if !ok {
                    problems.push(format!("block {} has no proper reconvergence point", b.index()));
                }
            }
            for (_, l) in a.loops.iter() {
                if !l.blocks.iter().all(|&b| a.dominators.dominates(l.header, b)) {
                    problems.push(format!("loop at block {} is not dominated by its header", l.header.index()));
                }
            }
            if func.is_entry() && body.insts.len() > 1 && analysis.registers_per_thread(h) < 2 {
                problems.push("no registers allocated".to_string());
            }
            if !problems.is_empty() {
                failures.push(format!("{name}: {}: {}", func.name, problems.join("; ")));
            }
        }
    }
    assert!(not_compiled.is_empty(), "files the front end rejects: {not_compiled:?}");
    assert!(failures.is_empty(), "{} failures:\n{}", failures.len(), failures.join("\n"));
    assert!(functions > 400, "only {functions} functions analysed");
}
