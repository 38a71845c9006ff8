//! A stable text rendering of the static analyses of every function in a PTX module, for the
//! file tests under `tests/cases/analysis/` (run by `tests/file_tests.rs`). Sections are chosen by name (`cfg`, `dominators`,
//! `postdominators`, `loops`, …); blocks are named by their label or `bb<N>`.
//!
//! ```text
//! == .entry k
//! -- cfg
//! bb0 -> $L__BB0_2, bb1 | branch
//! ```

use std::fmt::Write as _;

use sim_core::analysis::{
    AllocTarget, Allocation, Bits, Callee, Cfg, DefUse, Dominators, KernelAnalysis, Liveness, Loops, PostDomNode,
    PostDominators, Uniformity, UniformityOptions, UnitMap, UseCounts,
};
use sim_core::diagnostic::LineIndex;
use sim_core::ir::print_inst::{write_inst, Names};
use sim_core::ir::{Block, Body, Function, Handle, Inst, Module};

/// What the per-instruction listings need: names for printing, and the source for line numbers.
pub struct Ctx<'a> {
    /// Names of the function being listed.
    pub names: Names<'a>,
    /// The source text.
    pub src: &'a str,
    /// Its line index.
    pub index: LineIndex,
}

fn ctx<'a>(module: &'a Module, func: &'a Function, body: &'a Body, src: &'a str) -> Ctx<'a> {
    Ctx { names: Names { module, func, body }, src, index: LineIndex::new(src) }
}

impl Ctx<'_> {
    /// `line: text` of an instruction.
    pub fn inst(&self, ih: Handle<Inst>) -> String {
        let body = self.names.body;
        let line = self.index.line_col(self.src, body.inst_spans.get(ih).start).line;
        let mut text = String::new();
        if let Some(inst) = body.insts.get(ih) {
            let _ = write_inst(&mut text, &self.names, inst);
        }
        format!("{line:>4}: {text:<40}")
    }

    /// Register names of a unit set (and optionally a predicate set).
    pub fn regs(&self, map: &UnitMap, units: Bits<'_>, preds: Option<Bits<'_>>) -> String {
        let body = self.names.body;
        let mut names: Vec<String> =
            map.regs_in(units).iter().filter_map(|&r| body.regs.get(r).map(|r| r.name.clone())).collect();
        if let Some(p) = preds {
            names.extend(
                p.iter().filter_map(|i| map.reg_of_pred(i)).filter_map(|r| body.regs.get(r).map(|r| r.name.clone())),
            );
        }
        format!("{{{}}}", names.join(" "))
    }
}

/// The section names [`dump`] knows.
pub const SECTIONS: &[&str] =
    &["cfg", "dominators", "postdominators", "loops", "liveness", "uniformity", "uses", "regalloc", "uninitialised"];

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
                "liveness" => liveness_section(&mut out, &ctx(&module, func, body, src), &cfg),
                "uniformity" => uniformity_section(&mut out, &ctx(&module, func, body, src), &cfg),
                "uses" => uses_section(&mut out, &ctx(&module, func, body, src), &cfg),
                "regalloc" => regalloc_section(&mut out, &ctx(&module, func, body, src), &cfg),
                "uninitialised" => uninitialised_section(&mut out, func, src, &cfg),
                other => {
                    if !crate::scheme_dump::section(&mut out, &module, func, other) {
                        let _ = writeln!(out, "unknown section '{other}'");
                    }
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

fn liveness_section(out: &mut String, c: &Ctx<'_>, cfg: &Cfg) {
    let live = Liveness::compute(c.names.func, cfg);
    let map = live.unit_map();
    let body = c.names.body;
    for b in cfg.blocks() {
        let (Some(li), Some(lo)) = (live.block_live_in(b), live.block_live_out(b)) else { continue };
        let _ = writeln!(
            out,
            "{}: in {} out {}",
            block_name(body, b),
            c.regs(map, li.as_bits(), None),
            c.regs(map, lo.as_bits(), None)
        );
    }
    for ih in body.insts_in_order() {
        let _ = writeln!(
            out,
            "{} | pressure {:>2} | in {}",
            c.inst(ih),
            live.pressure(ih),
            c.regs(map, live.live_in(ih), Some(live.pred_live_in(ih)))
        );
    }
    let at = live.max_pressure_at().map(|i| c.inst(i)).unwrap_or_default();
    let _ = writeln!(out, "max pressure {} at {}", live.max_pressure(), at.trim_end());
}

fn uniformity_section(out: &mut String, c: &Ctx<'_>, cfg: &Cfg) {
    let func = c.names.func;
    let pdom = PostDominators::compute(cfg);
    let du = DefUse::compute(func, cfg);
    let uni = Uniformity::compute(func, cfg, &pdom, &du, UniformityOptions::default());
    let body = c.names.body;
    for b in cfg.blocks().filter(|&b| cfg.branch(b).is_some()) {
        let what = if uni.is_divergent_branch(b) { "divergent" } else { "uniform" };
        let _ = writeln!(out, "branch at end of {}: {what}", block_name(body, b));
    }
    for ih in body.insts_in_order() {
        let what = if uni.is_uniform(ih) { "uniform" } else { "varying" };
        let _ = writeln!(out, "{} | {what}", c.inst(ih));
    }
}

fn uses_section(out: &mut String, c: &Ctx<'_>, cfg: &Cfg) {
    let du = DefUse::compute(c.names.func, cfg);
    let counts = UseCounts::compute(&du);
    let body = c.names.body;
    for ih in body.insts_in_order() {
        let defs: Vec<String> = counts
            .at(&du, ih)
            .iter()
            .map(|&(r, n)| format!("{}×{n}", body.regs.get(r).map_or("?", |r| r.name.as_str())))
            .collect();
        let _ = writeln!(out, "{} | {}", c.inst(ih), defs.join(" "));
    }
    let h = counts.histogram();
    let _ = writeln!(out, "values read 0/1/2/more times: {}/{}/{}/{}", h.zero, h.one, h.two, h.more);
}

fn regalloc_section(out: &mut String, c: &Ctx<'_>, cfg: &Cfg) {
    let func = c.names.func;
    let dom = Dominators::compute(cfg);
    let loops = Loops::compute(cfg, &dom);
    let du = DefUse::compute(func, cfg);
    let live = Liveness::compute(func, cfg);
    let target = AllocTarget::of_module(c.names.module);
    let alloc = Allocation::compute(func, cfg, &dom, &loops, &du, &live, target);
    let body = c.names.body;
    for ih in body.insts_in_order() {
        let defs: Vec<String> = du
            .defs_at(ih)
            .iter()
            .map(|&d| {
                let name = body.regs.get(du.defs()[d as usize].reg).map_or("?", |r| r.name.as_str());
                match alloc.physical(d) {
                    Some(r) if r.len() == 1 => format!("{name}→R{}", r.start),
                    Some(r) => format!("{name}→R{}:R{}", r.start, r.end - 1),
                    None => format!("{name}→-"),
                }
            })
            .collect();
        let _ = writeln!(out, "{} | {}", c.inst(ih), defs.join(" "));
    }
    let _ = writeln!(
        out,
        "sm_{}: {} registers per thread, {} predicates",
        target.sm,
        alloc.registers(),
        alloc.predicates()
    );
    // The estimate the CLI and the page report: the order ptxas issues (loops unrolled, loads
    // early, before Volta stepped store pointers copied).
    let issued = KernelAnalysis::compute_for(func, UniformityOptions::default(), target).allocation.registers();
    let _ = writeln!(out, "sm_{}: {issued} registers per thread in the order ptxas issues", target.sm);
}

/// The registers read before any write, as the warnings the CLI and the page show.
fn uninitialised_section(out: &mut String, func: &sim_core::ir::Function, src: &str, cfg: &Cfg) {
    let index = sim_core::diagnostic::LineIndex::new(src);
    for d in sim_core::analysis::UninitialisedReads::compute(func, cfg).diagnostics(func) {
        out.push_str(&d.render_text("case.ptx", src, &index));
    }
}
