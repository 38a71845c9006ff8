//! Text renderings of the register-file schemes' analyses and passes (single-use loads, the DeMO
//! rewrite, composite pairs and fusion, integer ranges) for the file tests under
//! `tests/cases/analysis/`. Each section renders one function; instructions print in the IR's
//! text form.
//!
//! ```text
//! -- single_use_loads
//! loads 4, single-use 1
//! ld.const.f32 %f2, [%rd1+4] -> mul.ftz.f32 %f3, %f2, %f1 (operand 1)
//! ```

use std::fmt::Write as _;

use sim_core::analysis::essa::{Against, ValueKind};
use sim_core::analysis::{
    composite_fuse, demo_rewrite, BitWidth, Cfg, CompositePairs, CompositeRules, Dominators, Interval, Liveness,
    Placement, RangeAnalysis, RangeSeeds, SingleUseLoads,
};
use sim_core::ir::print_inst::{write_inst, Names};
use sim_core::ir::{Block, Function, Handle, Inst, Module, Reg};

/// The sections this module renders.
pub const SECTIONS: &[&str] = &[
    "single_use_loads",
    "demo",
    "composite",
    "composite_crf",
    "fuse",
    "fuse_crf",
    "ranges",
    "ranges_launch",
    "ranges_params",
];

/// Renders `section` of `func` (a function of `module`) into `out`;
/// false if the section is not one of [`SECTIONS`].
pub fn section(out: &mut String, module: &Module, func: &Function, section: &str) -> bool {
    match section {
        "single_use_loads" => single_use(out, module, func),
        "demo" => match demo_rewrite(module) {
            Ok(r) => listing(out, &r.module, &func.name),
            Err(d) => verifier_errors(out, &d),
        },
        "composite" => pairs(out, module, func, CompositeRules::spec()),
        "composite_crf" => pairs(out, module, func, CompositeRules::gilani_fig4()),
        "fuse" | "fuse_crf" => {
            let rules = if section == "fuse" { CompositeRules::spec() } else { CompositeRules::gilani_fig4() };
            match composite_fuse(module, rules) {
                Ok(r) => listing(out, &r.module, &func.name),
                Err(d) => verifier_errors(out, &d),
            }
        }
        "ranges" => ranges(out, module, func, &RangeSeeds::architectural()),
        // A launch of 64 × 1 × 1 CTAs of 256 × 1 × 1 threads.
        "ranges_launch" => ranges(out, module, func, &RangeSeeds::launch([64, 1, 1], [256, 1, 1])),
        // No launch; the user says kernel parameter 1 lies in [1, 1000].
        "ranges_params" => {
            ranges(out, module, func, &RangeSeeds::architectural().with_param(1, Interval::new(1, 1000)))
        }
        _ => return false,
    }
    true
}

fn width(b: Option<BitWidth>) -> String {
    b.map_or(String::from("-"), |b| format!("{}{}", b.bits, if b.signed { "s" } else { "u" }))
}

/// Per block: σs arriving, φs, then each instruction with the ranges and bitwidths of what it
/// writes; last, every register's union of ranges and bitwidth.
fn ranges(out: &mut String, module: &Module, func: &Function, seeds: &RangeSeeds) {
    let Some(body) = &func.body else { return };
    let cfg = Cfg::compute(func);
    let dom = Dominators::compute(&cfg);
    let live = Liveness::compute(func, &cfg);
    let ra = RangeAnalysis::compute(func, &cfg, &dom, &live, seeds);
    let reg = |r: Handle<Reg>| body.regs.get(r).map_or(String::from("?"), |r| r.name.clone());
    let block = |b: Handle<Block>| crate::analysis_dump::block_name(body, b);
    for (bh, blk) in body.blocks.iter() {
        let _ = writeln!(out, "{}:", block(bh));
        // σs of edges into this block first (on a split critical edge they feed its φs), then φs.
        for (h, v) in ra.essa().values() {
            if let ValueKind::Sigma { from, to, test, .. } = &v.kind {
                if *to == bh {
                    let against = match test.against {
                        Against::Const(c) => format!("{}", c as i64),
                        Against::Value(w) => ra.essa().value(w).map_or(String::from("?"), |w| reg(w.reg)),
                    };
                    let sign = if test.signed { "s" } else { "u" };
                    let (name, cmp, r) = (reg(v.reg), test.cmp.symbol(), ra.value_range(h));
                    let _ = writeln!(out, "  σ {name} from {}: {name} {cmp}{sign} {against} -> {r}", block(*from));
                }
            }
        }
        for (h, v) in ra.essa().values() {
            if matches!(v.kind, ValueKind::Phi { block: b, .. } if b == bh) {
                let _ = writeln!(out, "  φ {} -> {}", reg(v.reg), ra.value_range(h));
            }
        }
        for &ih in &blk.insts {
            let defs: Vec<String> = ra
                .essa()
                .writes_of(ih)
                .iter()
                .map(|&(r, v)| format!("{} {} {}", reg(r), ra.value_range(v), width(ra.bitwidth(ih, r))))
                .collect();
            let text = inst_text(module, func, ih);
            if defs.is_empty() {
                let _ = writeln!(out, "  {text}");
            } else {
                let _ = writeln!(out, "  {text:<36} ; {}", defs.join(", "));
            }
        }
    }
    let _ = writeln!(out, "registers:");
    for r in body.regs.handles() {
        if let Some(range) = ra.register_range(r).filter(|r| !r.is_empty()) {
            let _ = writeln!(out, "  {} {range} {}", reg(r), width(ra.register_bitwidth(r)));
        }
    }
}

/// One instruction in the IR's text form.
pub fn inst_text(module: &Module, func: &Function, h: Handle<Inst>) -> String {
    let mut s = String::new();
    if let Some(body) = &func.body {
        if let Some(inst) = body.insts.get(h) {
            let _ = write_inst(&mut s, &Names { module, func, body }, inst);
        }
    }
    s
}

fn single_use(out: &mut String, module: &Module, func: &Function) {
    let loads = SingleUseLoads::compute(func, &Liveness::compute(func, &Cfg::compute(func)));
    let _ = writeln!(out, "loads {}, single-use {}", loads.load_count(), loads.len());
    for u in loads.iter() {
        let (l, c) = (inst_text(module, func, u.load), inst_text(module, func, u.consumer));
        let _ = writeln!(out, "{l} -> {c} (operand {})", u.operand);
    }
}

fn pairs(out: &mut String, module: &Module, func: &Function, rules: CompositeRules) {
    let pairs = CompositePairs::compute(func, &Liveness::compute(func, &Cfg::compute(func)), rules);
    let _ = writeln!(out, "pairs {}", pairs.len());
    for p in pairs.iter() {
        let at = if p.placement == Placement::AtFirst { "first" } else { "second" };
        let (a, b) = (inst_text(module, func, p.first), inst_text(module, func, p.second));
        let _ = writeln!(out, "{} ({}) at {at}: {a} + {b}", p.class.name(), p.class.resources());
        for &r in &p.crf_reads {
            let _ = writeln!(out, "  reads %crf: {}", inst_text(module, func, r));
        }
    }
}

/// The instructions of function `name` in `module`, one per line, labels on their own lines.
fn listing(out: &mut String, module: &Module, name: &str) {
    let Some(func) = module.functions.values().find(|f| f.name == name) else { return };
    let Some(body) = &func.body else { return };
    for block in body.blocks.values() {
        if let Some(label) = &block.label {
            let _ = writeln!(out, "{label}:");
        }
        for &h in &block.insts {
            let _ = writeln!(out, "  {};", inst_text(module, func, h));
        }
    }
}

fn verifier_errors(out: &mut String, diags: &[sim_core::diagnostic::Diagnostic]) {
    for d in diags {
        let _ = writeln!(out, "verifier: {}", d.message);
    }
}
