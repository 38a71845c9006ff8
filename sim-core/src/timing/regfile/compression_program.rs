//! The compile-time part of static data compression (Angerd, Sintorn, Stenström; `SCHEMES.md`
//! §2): every allocation value gets a width — integers from the range analysis (launch-aware when
//! the simulation knows the launch), floats from precision tuning (full width unless tuned) — and
//! the slices of physical registers it lives in ([`crate::analysis::slice_alloc`]). The result is
//! the scheme's register assignment (the indirection table) and its registers per thread.
//!
//! ```text
//! mov.u32 %r1, %tid.x;          // block 256: [0, 255] → 8 bits → 2 slices → R0 0x03
//! and.b32 %r2, %r1, 31;         // [0, 31] → 5 bits → 2 slices → R0 0x0c (best fit)
//! ld.global.f32 %f1, [%rd3];    // float, untuned: 32 bits → 8 slices → R2 0xff
//! ```
//!
//! A value is an allocation *web* ([`crate::analysis::alloc_values`]): its width is the widest of
//! its definitions; its live interval runs over the instructions in layout order from the first
//! point where it is live (or defined) to the last, so a value live around a loop covers the loop.
//! Rematerialised values the allocator loads into a register start at their load point. Scratch
//! registers of multi-instruction SASS sequences take whole registers at their instruction.
//! **A**: a function with calls keeps the allocator's registers (values passed to calls are not
//! compressed); an allocation that would need more registers than the allocator's is not used.

use alloc::collections::BTreeMap;
use alloc::string::String;
use alloc::vec;
use alloc::vec::Vec;

use crate::analysis::alloc_values::{Values, Web};
use crate::analysis::slice_alloc::{allocate, LiveValue, Piece, SliceAllocation};
use crate::analysis::{AllocTarget, BitSet, KernelAnalysis, ModuleAnalysis, RangeAnalysis, RangeSeeds};
use crate::exec::LaunchSetup;
use crate::ir::{Function, Handle, Module};
use crate::timing::program_regs::{AssignInputs, PhysSlice, RegisterAssignment};
pub use crate::timing::regfile::compression_report::{tuned_floats, tuning, tuning_remembered};

/// Tag on the register number of a narrow float operand: the scheme converts it (one cycle) and
/// strips the tag before the bank mapping (below [`crate::timing::program_regs::UNALLOCATED`]).
pub const NARROW_FLOAT: u32 = 1 << 23;

/// The format of one value and where it lives.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ValueFormat {
    /// A register the value is written to (its first definition's), by name.
    pub reg: String,
    /// Bits stored.
    pub bits: u32,
    /// A float (reduced format) rather than an integer.
    pub float: bool,
    /// Slices taken.
    pub slices: u32,
    /// Its physical registers and slice masks (two for a split value).
    pub pieces: Vec<Piece>,
    /// Its live interval in half positions of the layout order (`2p`: live on entry to
    /// instruction `p`, `2p + 1`: defined by it), first and last inclusive.
    pub live: (u32, u32),
}

/// The compression of one function.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FunctionPlan {
    /// The function's name.
    pub name: String,
    /// Registers per thread of the allocator's assignment.
    pub registers_before: u32,
    /// Registers per thread with the slices (equal to `registers_before` when not used).
    pub registers_after: u32,
    /// Registers per thread the slice allocation needs (used or not).
    pub registers_slices: u32,
    /// Values placed beside another in one register, and values split over two.
    pub fits: u32,
    /// Values split over two registers.
    pub splits: u32,
    /// Why the allocator's registers were kept (`None`: the slices are used).
    pub kept: Option<&'static str>,
    /// Every value's format and place, by web.
    pub values: Vec<ValueFormat>,
    /// Scratch registers of multi-instruction SASS sequences (named `scratch`, whole registers).
    pub scratch: Vec<ValueFormat>,
    /// Per web: its definitions (ids in the function's def-use chains).
    defs: Vec<Vec<u32>>,
}

/// Launch facts for the range analysis: the grid and CTA of `setup` when every launch of it has
/// the same shape (else `None`: architectural limits).
pub fn launch_seeds(setup: &LaunchSetup) -> Option<RangeSeeds> {
    let dims = |v: &[u32]| -> [u32; 3] {
        let g = |i: usize| v.get(i).copied().unwrap_or(1).max(1);
        [g(0), g(1), g(2)]
    };
    let shapes: Vec<([u32; 3], [u32; 3])> = if setup.launches.is_empty() {
        vec![(dims(&setup.grid), dims(&setup.block))]
    } else {
        setup
            .launches
            .iter()
            .map(|s| (dims(s.grid.as_deref().unwrap_or(&setup.grid)), dims(s.block.as_deref().unwrap_or(&setup.block))))
            .collect()
    };
    let first = *shapes.first()?;
    shapes.iter().all(|s| *s == first).then(|| RangeSeeds::launch(first.0, first.1))
}

/// The compression of every function of `module` with `slice_bits`-bit slices.
pub fn plan(module: &Module, analysis: &ModuleAnalysis, inputs: &AssignInputs, slice_bits: u32) -> Vec<FunctionPlan> {
    let seeds = inputs.seeds.clone().unwrap_or_else(RangeSeeds::architectural);
    let target = inputs.target.map_or_else(|| AllocTarget::of_module(module), |t| t.compiling(module));
    let mut out = Vec::new();
    for (h, f) in module.functions.iter() {
        let Some(a) = analysis.get(h) else { continue };
        out.push(plan_function(h, f, a, &seeds, target, inputs, slice_bits));
    }
    out
}

fn plan_function(
    h: Handle<Function>,
    f: &Function,
    a: &KernelAnalysis,
    seeds: &RangeSeeds,
    target: AllocTarget,
    inputs: &AssignInputs,
    slice_bits: u32,
) -> FunctionPlan {
    let before = a.allocation.registers();
    let mut p = FunctionPlan {
        name: f.name.clone(),
        registers_before: before,
        registers_after: before,
        ..FunctionPlan::default()
    };
    let Some(body) = &f.body else { return p };
    if !a.cfg.call_sites().is_empty() {
        p.kept = Some("the function calls others (values passed to calls are not compressed)");
        return p;
    }
    let du = &a.def_use;
    let values = Values::compute(f, du);
    let ranges = RangeAnalysis::compute(f, &a.cfg, &a.dominators, &a.liveness, seeds);
    let webs = allocated_webs(a, &values);
    let widths = web_widths(h, f, a, &values, &ranges, inputs);
    let pos = positions(f);
    let spans = live_spans(f, a, &values, &pos);
    let (mut live, mut owner) = (Vec::new(), Vec::new());
    let per_reg = (32 / slice_bits.clamp(1, 32)).max(1);
    for &w in &webs {
        let (bits, _) = widths.get(w as usize).copied().unwrap_or((32, false));
        let (start, end) = spans.get(w as usize).copied().flatten().unwrap_or((0, 0));
        let units = values.units.get(w as usize).copied().unwrap_or(1);
        let slices = bits.div_ceil(slice_bits.max(1));
        // A value over two registers' worth (a 128-bit vector) takes whole registers.
        let parts = if units > 2 { vec![per_reg; units as usize] } else { vec![slices] };
        for s in parts {
            live.push(LiveValue { start, end, slices: s });
            owner.push(w);
        }
    }
    for (ih, inst) in body.insts.iter() {
        let at = pos.get(ih.index()).copied().unwrap_or(0);
        for _ in 0..target.scratch(inst) {
            live.push(LiveValue { start: 2 * at, end: 2 * at + 1, slices: per_reg });
            owner.push(Web::MAX);
        }
    }
    let alloc = allocate(&live, slice_bits, &[target.reserved_register()]);
    let trivial = body.insts.values().all(|i| i.opcode.is_terminator());
    // The slices are packed in PTX order; the registers ptxas's issue order adds to the
    // uncompressed kernel (loads early, loops unrolled) are taken to be added to the compressed
    // one too (A).
    let in_order = target.reported_with_spill(alloc.registers, trivial).0;
    let after = (in_order + before).saturating_sub(a.allocation.ptx_order_registers());
    record(&mut p, f, du, &values, &widths, Packed { owner: &owner, live: &live, alloc: &alloc });
    p.registers_slices = after;
    if after >= before {
        p.kept = Some("the slices need no fewer registers than the allocator's assignment");
    } else {
        p.registers_after = after;
    }
    p
}

/// Per instruction (by index): its position in layout order.
fn positions(f: &Function) -> Vec<u32> {
    let Some(body) = &f.body else { return Vec::new() };
    let mut pos = vec![0u32; body.insts.len()];
    let mut next = 0u32;
    for block in body.blocks.values() {
        for ih in &block.insts {
            if let Some(p) = pos.get_mut(ih.index()) {
                *p = next;
            }
            next += 1;
        }
    }
    pos
}

/// Per web: its live interval in half positions (`2p`: live on entry to instruction `p`,
/// `2p + 1`: defined by it); `None` if never live. A rematerialised web starts where the
/// allocator loads it into a register.
fn live_spans(f: &Function, a: &KernelAnalysis, values: &Values, pos: &[u32]) -> Vec<Option<(u32, u32)>> {
    let mut spans: Vec<Option<(u32, u32)>> = vec![None; values.len()];
    let Some(body) = &f.body else { return spans };
    let du = &a.def_use;
    let mut extend = |w: Web, at: u32| {
        if let Some(s) = spans.get_mut(w as usize) {
            *s = Some(s.map_or((at, at), |(lo, hi)| (lo.min(at), hi.max(at))));
        }
    };
    let web = |d: usize| values.web_of_def.get(d).copied().unwrap_or(0);
    for (b, block) in body.blocks.iter() {
        let mut set = du.reaching_at_entry(b).cloned().unwrap_or_else(|| BitSet::new(du.def_count()));
        for &ih in &block.insts {
            let p = pos.get(ih.index()).copied().unwrap_or(0);
            for reg in a.liveness.unit_map().regs_in(a.liveness.live_in(ih)) {
                for d in du.reg_def_range(reg).filter(|&d| set.contains(d)) {
                    extend(web(d), 2 * p);
                }
            }
            du.step(body, ih, &mut set);
            for &d in du.defs_at(ih) {
                extend(web(d as usize), 2 * p + 1);
            }
        }
    }
    let sinks = values.sink_points(body, &a.cfg, &a.dominators, &a.loops, du, false);
    for (ih, w) in sinks {
        let at = 2 * pos.get(ih.index()).copied().unwrap_or(0);
        if let Some(Some((lo, hi))) = spans.get_mut(w as usize) {
            *lo = (*lo).max(at).min(*hi);
        }
    }
    spans
}

/// The slice allocation's input entries (the web each belongs to, `Web::MAX` for scratch, and
/// its live interval) and where they went.
struct Packed<'a> {
    owner: &'a [Web],
    live: &'a [LiveValue],
    alloc: &'a SliceAllocation,
}

/// Fills `p.values`, `p.scratch` and `p.defs` from the allocation of the packed entries.
fn record(
    p: &mut FunctionPlan,
    f: &Function,
    du: &crate::analysis::DefUse,
    values: &Values,
    widths: &[(u32, bool)],
    packed: Packed<'_>,
) {
    let Packed { owner, live, alloc } = packed;
    let mut by_web: BTreeMap<Web, (Vec<Piece>, (u32, u32))> = BTreeMap::new();
    for (i, &w) in owner.iter().enumerate() {
        let pieces = alloc.pieces.get(i).into_iter().flatten().copied();
        let span = live.get(i).map_or((0, 0), |l| (l.start, l.end));
        if w == Web::MAX {
            let pieces: Vec<Piece> = pieces.collect();
            let slices = pieces.iter().map(|x| x.mask.count_ones()).sum();
            let reg = String::from("scratch");
            p.scratch.push(ValueFormat { reg, bits: 32, float: false, slices, pieces, live: span });
            continue;
        }
        let e = by_web.entry(w).or_insert_with(|| (Vec::new(), span));
        e.0.extend(pieces);
        e.1 = (e.1 .0.min(span.0), e.1 .1.max(span.1));
    }
    let mut defs: BTreeMap<Web, Vec<u32>> = BTreeMap::new();
    for (d, &w) in values.web_of_def.iter().enumerate() {
        defs.entry(w).or_default().push(d as u32);
    }
    let reg_name = |d: u32| {
        let reg = du.defs().get(d as usize).map(|x| x.reg);
        let body = f.body.as_ref();
        reg.and_then(|r| body.and_then(|b| b.regs.get(r))).map_or_else(String::new, |r| r.name.clone())
    };
    for (w, (pieces, live)) in by_web {
        let (bits, float) = widths.get(w as usize).copied().unwrap_or((32, false));
        let d = defs.get(&w).cloned().unwrap_or_default();
        let slices = pieces.iter().map(|x| x.mask.count_ones()).sum();
        let reg = d.first().map_or_else(String::new, |&x| reg_name(x));
        p.values.push(ValueFormat { reg, bits, float, slices, pieces, live });
        p.defs.push(d);
    }
    p.fits = alloc.fits;
    p.splits = alloc.splits;
}

/// The scheme's register assignment with `slice_bits`-bit slices: every value of a function
/// whose slices need fewer registers moves to its slices (narrow floats tagged
/// [`NARROW_FLOAT`]); registers per thread follow.
pub fn assign_slices(
    module: &Module,
    analysis: &ModuleAnalysis,
    out: &mut RegisterAssignment,
    slice_bits: u32,
) -> Result<(), String> {
    let plans = plan(module, analysis, &out.inputs, slice_bits);
    for (h, p) in module.functions.handles().zip(&plans).filter(|(_, p)| p.kept.is_none()) {
        for (v, defs) in p.values.iter().zip(&p.defs) {
            let narrow = v.float && v.bits < 32;
            let tag = if narrow { NARROW_FLOAT } else { 0 };
            let pieces: Vec<PhysSlice> =
                v.pieces.iter().map(|x| PhysSlice { reg: x.reg | tag, slices: x.mask }).collect();
            for &d in defs {
                out.values.insert((h.raw(), d), pieces.clone());
            }
        }
        out.registers.insert(h.raw(), p.registers_after);
    }
    Ok(())
}

/// The assignment with 4-bit slices (the paper's).
pub fn assign_4(m: &Module, a: &ModuleAnalysis, out: &mut RegisterAssignment) -> Result<(), String> {
    assign_slices(m, a, out, 4)
}

/// The assignment with 8-bit slices.
pub fn assign_8(m: &Module, a: &ModuleAnalysis, out: &mut RegisterAssignment) -> Result<(), String> {
    assign_slices(m, a, out, 8)
}

/// The assignment with 16-bit slices.
pub fn assign_16(m: &Module, a: &ModuleAnalysis, out: &mut RegisterAssignment) -> Result<(), String> {
    assign_slices(m, a, out, 16)
}

/// The assignment with 32-bit slices (whole registers: no packing).
pub fn assign_32(m: &Module, a: &ModuleAnalysis, out: &mut RegisterAssignment) -> Result<(), String> {
    assign_slices(m, a, out, 32)
}

/// Webs the allocator gave a register.
fn allocated_webs(a: &KernelAnalysis, values: &Values) -> Vec<Web> {
    let mut has = vec![false; values.len()];
    for (d, &w) in values.web_of_def.iter().enumerate() {
        if a.allocation.physical(d as u32).is_some() {
            if let Some(x) = has.get_mut(w as usize) {
                *x = true;
            }
        }
    }
    (0..values.len() as Web).filter(|&w| has.get(w as usize).copied().unwrap_or(false)).collect()
}

/// Per web: bits it needs and whether it is a float. Integers: the widest of its definitions'
/// range bitwidths; floats: the tuned format of the register, else full width.
fn web_widths(
    h: Handle<Function>,
    f: &Function,
    a: &KernelAnalysis,
    values: &Values,
    ranges: &RangeAnalysis,
    inputs: &AssignInputs,
) -> Vec<(u32, bool)> {
    let mut out = vec![(0u32, false); values.len()];
    let Some(body) = &f.body else { return out };
    for (d, def) in a.def_use.defs().iter().enumerate() {
        let w = values.web_of_def.get(d).copied().unwrap_or(0) as usize;
        let declared = 32 * values.units.get(w).copied().unwrap_or(1);
        let ty = body.regs.get(def.reg).map(|r| r.ty);
        let float = ty.is_some_and(|t| t.is_float());
        let bits = if float {
            let tuned = inputs.float_bits.get(&(h.raw(), def.reg.raw())).map(|&b| u32::from(b));
            tuned.unwrap_or(declared)
        } else {
            ranges.bitwidth(def.inst, def.reg).map_or(declared, |b| b.bits)
        };
        if let Some(o) = out.get_mut(w) {
            *o = (o.0.max(bits.min(declared).max(1)), o.1 || float);
        }
    }
    out
}
