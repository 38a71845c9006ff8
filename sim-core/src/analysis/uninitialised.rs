//! Registers that may be read before any write: a forward "must be written" dataflow over the
//! CFG (a register unit is written on entry to a block when it is written on every path from the
//! function's start; `.reg` parameters are written on entry), then a scan of each reachable block
//! for reads of units not yet written. PTX leaves such a register undefined; RegLab's executor
//! reads 0 (a GPU reads whatever the register held), so results can differ from hardware.
//! Reported as one warning per register, at the first such read in layout order.
//!
//! ```text
//! .entry k() { .reg .b32 %r<3>;
//!   add.s32 %r2, %r1, 1;     // warning: %r1 may be read before it is written
//!   mov.u32 %r1, 5; … }
//! ```
//!
//! Assumption: a guarded write (`@%p mov.u32 %r4, 7;`) counts as a write. Compilers pair guarded
//! writes under complementary predicates (`@%p …; @!%p …;`), and counting them as writes keeps
//! such code free of false warnings at the price of missing a read that only a false guard leaves
//! unwritten.

use alloc::format;
use alloc::vec;
use alloc::vec::Vec;

use super::bitset::BitSet;
use super::cfg::Cfg;
use super::kernel::ModuleAnalysis;
use super::liveness::UnitMap;
use crate::diagnostic::Diagnostic;
use crate::ir::{Body, Function, Handle, Inst, Module, Reg};

/// The registers of one function read before any write on some path, each with the first
/// instruction (layout order) that reads it so.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct UninitialisedReads {
    reads: Vec<(Handle<Reg>, Handle<Inst>)>,
}

/// Register units, then predicates after them, as one index space.
struct Slots<'a> {
    map: &'a UnitMap,
}

impl Slots<'_> {
    fn len(&self) -> usize {
        self.map.units() + self.map.preds()
    }

    fn of(&self, r: Handle<Reg>) -> core::ops::Range<usize> {
        match self.map.pred_index(r) {
            Some(p) => self.map.units() + p..self.map.units() + p + 1,
            None => self.map.units_of(r),
        }
    }

    fn write(&self, set: &mut BitSet, inst: &Inst) {
        inst.for_each_def(|r| self.of(r).for_each(|i| _ = set.insert(i)));
    }
}

impl UninitialisedReads {
    /// Finds them in `function` over its control-flow graph `cfg`.
    pub fn compute(function: &Function, cfg: &Cfg) -> UninitialisedReads {
        let Some(body) = &function.body else { return UninitialisedReads::default() };
        let map = UnitMap::compute(function);
        let slots = Slots { map: &map };
        let written_in = must_written(body, cfg, &slots);
        let mut reads: Vec<(Handle<Reg>, Handle<Inst>)> = Vec::new();
        for (b, block) in body.blocks.iter() {
            let Some(mut written) = written_in.get(b.index()).cloned().flatten() else { continue };
            for &ih in &block.insts {
                let Some(inst) = body.insts.get(ih) else { continue };
                inst.for_each_use(|r| {
                    let unwritten = slots.of(r).any(|i| !written.contains(i));
                    if unwritten && !reads.iter().any(|&(x, _)| x == r) {
                        reads.push((r, ih));
                    }
                });
                slots.write(&mut written, inst);
            }
        }
        crate::sorting::sort_by_key(&mut reads, |&(r, at)| (at.index(), r.index()));
        UninitialisedReads { reads }
    }

    /// `(register, first instruction reading it unwritten)`, in layout order.
    pub fn reads(&self) -> &[(Handle<Reg>, Handle<Inst>)] {
        &self.reads
    }

    /// One warning per register, at the instruction that first reads it unwritten.
    pub fn diagnostics(&self, function: &Function) -> Vec<Diagnostic> {
        let Some(body) = &function.body else { return Vec::new() };
        self.reads
            .iter()
            .filter_map(|&(r, at)| {
                let name = &body.regs.get(r)?.name;
                let message =
                    format!("{name} may be read before it is written (on some path through {})", function.name);
                let hint = format!(
                    "PTX leaves an unwritten register undefined: RegLab reads 0, a GPU whatever the register held. \
                     Write {name} on every path before this instruction"
                );
                Some(Diagnostic::warning(body.inst_spans.get(at), message).with_hint(hint))
            })
            .collect()
    }
}

/// Per block (by index): the slots written on every path from the start to its entry; `None` for
/// unreachable blocks.
fn must_written(body: &Body, cfg: &Cfg, slots: &Slots<'_>) -> Vec<Option<BitSet>> {
    let n = slots.len();
    let full = {
        let mut s = BitSet::new(n);
        s.insert_range(0, n);
        s
    };
    let mut entry = BitSet::new(n);
    for &r in &body.param_regs {
        slots.of(r).for_each(|i| _ = entry.insert(i));
    }
    let mut out: Vec<BitSet> = vec![full.clone(); body.blocks.len()];
    let mut inn: Vec<Option<BitSet>> = vec![None; body.blocks.len()];
    let order = cfg.reverse_postorder();
    let start = cfg.entry();
    let mut changed = true;
    while changed {
        changed = false;
        for &b in order {
            let mut set = if Some(b) == start { entry.clone() } else { full.clone() };
            for &p in cfg.preds(b).iter().filter(|&&p| cfg.is_reachable(p)) {
                if let Some(o) = out.get(p.index()) {
                    set.intersect_with(o);
                }
            }
            let mut after = set.clone();
            for inst in body.blocks.get(b).iter().flat_map(|blk| blk.insts.iter()).filter_map(|&i| body.insts.get(i)) {
                slots.write(&mut after, inst);
            }
            if let Some(slot) = inn.get_mut(b.index()) {
                *slot = Some(set);
            }
            if let Some(o) = out.get_mut(b.index()) {
                if *o != after {
                    *o = after;
                    changed = true;
                }
            }
        }
    }
    inn
}

/// The warnings of every function of `module` with a body, from its analyses.
pub fn warnings(module: &Module, analysis: &ModuleAnalysis) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    for (h, f) in module.functions.iter() {
        if let Some(a) = analysis.get(h) {
            out.extend(UninitialisedReads::compute(f, &a.cfg).diagnostics(f));
        }
    }
    out
}
