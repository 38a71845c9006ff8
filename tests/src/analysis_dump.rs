//! A stable text rendering of the static analyses of every function in a PTX module, for the
//! file tests under `tests/cases/analysis/`. Sections are chosen by name (`cfg`, `dominators`,
//! `postdominators`, `loops`, …); blocks are named by their label or `bb<N>`.
//!
//! ```text
//! == .entry k
//! -- cfg
//! bb0 -> $L__BB0_2, bb1 | branch
//! ```

use std::fmt::Write as _;

use sim_core::analysis::{Callee, Cfg, Dominators, Loops, PostDomNode, PostDominators};
use sim_core::ir::{Block, Body, Handle, Module};

/// Renders `sections` for every defined function of the module compiled from `src`.
pub fn dump(src: &str, sections: &[&str]) -> String {
    let module = match sim_core::ptx::compile(src) {
        Ok(m) => m,
        Err(diags) => return diags.iter().map(|d| format!("error: {}\n", d.message)).collect(),
    };
    let mut out = String::new();
    for func in module.functions.values() {
        let Some(body) = &func.body else { continue };
        let kind = if func.is_entry() { ".entry" } else { ".func" };
        let _ = writeln!(out, "== {kind} {}", func.name);
        let cfg = Cfg::compute(func);
        for &section in sections {
            let _ = writeln!(out, "-- {section}");
            match section {
                "cfg" => cfg_section(&mut out, &module, body, &cfg),
                "dominators" => dom_section(&mut out, body, &cfg),
                "postdominators" => postdom_section(&mut out, body, &cfg),
                "loops" => loops_section(&mut out, body, &cfg),
                other => {
                    let _ = writeln!(out, "unknown section '{other}'");
                }
            }
        }
    }
    out
}

/// A block's label, or `bb<N>`.
pub fn block_name(body: &Body, b: Handle<Block>) -> String {
    body.blocks.get(b).and_then(|blk| blk.label.clone()).unwrap_or_else(|| format!("bb{}", b.index()))
}

fn names(body: &Body, blocks: &[Handle<Block>]) -> String {
    blocks.iter().map(|&b| block_name(body, b)).collect::<Vec<_>>().join(", ")
}

fn cfg_section(out: &mut String, module: &Module, body: &Body, cfg: &Cfg) {
    for b in cfg.blocks() {
        let mut flags = Vec::new();
        if cfg.exits(b) {
            flags.push("exit");
        }
        if cfg.branch(b).is_some() {
            flags.push("branch");
        }
        if !cfg.is_reachable(b) {
            flags.push("unreachable");
        }
        let _ = writeln!(
            out,
            "{} -> [{}] <- [{}]{}",
            block_name(body, b),
            names(body, cfg.succs(b)),
            names(body, cfg.preds(b)),
            if flags.is_empty() { String::new() } else { format!(" | {}", flags.join(" ")) }
        );
    }
    for call in cfg.call_sites() {
        let callee = match call.callee {
            Callee::Direct(f) => module.functions.get(f).map_or("?".to_string(), |f| f.name.clone()),
            Callee::External(i) => module.externals.get(i as usize).cloned().unwrap_or_default(),
            Callee::Indirect(r) => body.regs.get(r).map_or("?".to_string(), |r| r.name.clone()),
        };
        let _ = writeln!(out, "call in {}: {callee}", block_name(body, call.block));
    }
}

fn dom_section(out: &mut String, body: &Body, cfg: &Cfg) {
    let dom = Dominators::compute(cfg);
    for b in cfg.blocks() {
        let idom = dom.idom(b).map_or("-".to_string(), |d| block_name(body, d));
        let _ = writeln!(out, "{}: idom {idom}, frontier [{}]", block_name(body, b), names(body, dom.frontier(b)));
    }
}

fn postdom_section(out: &mut String, body: &Body, cfg: &Cfg) {
    let pdom = PostDominators::compute(cfg);
    for b in cfg.blocks() {
        let ipdom = match pdom.ipdom(b) {
            Some(PostDomNode::Block(p)) => block_name(body, p),
            Some(PostDomNode::Exit) => "exit".to_string(),
            None => "-".to_string(),
        };
        let reconv = if cfg.branch(b).is_some() { format!(" (reconverge at {ipdom})") } else { String::new() };
        let _ = writeln!(out, "{}: ipdom {ipdom}{reconv}", block_name(body, b));
    }
}

fn loops_section(out: &mut String, body: &Body, cfg: &Cfg) {
    let dom = Dominators::compute(cfg);
    let loops = Loops::compute(cfg, &dom);
    for (h, l) in loops.iter() {
        let parent = l.parent.map_or("-".to_string(), |p| format!("loop{}", p.index()));
        let _ = writeln!(
            out,
            "loop{} header {} depth {} parent {parent}: blocks [{}] latches [{}] exits [{}]",
            h.index(),
            block_name(body, l.header),
            l.depth,
            names(body, &l.blocks),
            names(body, &l.latches),
            names(body, &l.exits)
        );
    }
    if loops.has_irreducible_flow() {
        let _ = writeln!(out, "irreducible control flow");
    }
}
