//! Composite-instruction pairs (Gilani et al., "Power-efficient computing for compute-intensive
//! GPGPU applications", §3 and Table 1): dependent 32-bit integer instructions in one block that
//! an enhanced FMA unit executes as one instruction, the intermediate kept in the composite
//! register file (CRF, one entry per warp).
//!
//! ```text
//! xor.b32 %r0, %r2, %r0;        // ┐ add/logic-shift (ALU-NSFT)
//! shr.u32 %r0, %r0, 31;         // ┘
//! sub.s32 %r5, %r5, %r4;
//! xor.b32 %r4, %r4, %r5;        // ┐ add/logic-add (ALU-RADD), with CRF forwarding:
//! neg.s32 %r6, %r4;             // │ the neg reads the intermediate from the CRF
//! add.s32 %r0, %r0, %r4;        // ┘
//! ```
//!
//! Rules (`SCHEMES.md` §5): a Table 1 class ([`composite_class`]); the first result has exactly
//! that one use (or, with [`CompositeRules::crf_forwarding`], its other uses in the block read the
//! CRF, as in the paper's Fig. 4); at most three register sources; the same guard; at most one
//! memory access; greedy top-down, each instruction in at most one pair. The composite stands where
//! the first instruction stood (the second is hoisted) or, failing that, where the second stood;
//! either move must not reorder a dependence. A CRF entry is not overwritten while still needed.

use alloc::collections::{BTreeMap, BTreeSet};
use alloc::vec::Vec;

use serde::{Deserialize, Serialize};

use super::liveness::Liveness;
use super::single_use_loads::live_out_of_block;
use crate::ir::scheme::{composite_class, composite_register_sources, memory_operands, CompositeClass};
use crate::ir::{Function, Handle, Inst, Operand, Reg};

/// Which pairs count (a scheme parameter).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CompositeRules {
    /// Other uses of the intermediate in the same block read it from the CRF instead of
    /// disqualifying the pair (the paper's Fig. 4 does this; `SCHEMES.md` §5 does not).
    pub crf_forwarding: bool,
    /// Most distinct registers a composite reads from the main register file (3: its read ports).
    pub max_register_sources: usize,
}

impl CompositeRules {
    /// `SCHEMES.md` §5: the first result has exactly one use.
    pub fn spec() -> Self {
        CompositeRules { crf_forwarding: false, max_register_sources: 3 }
    }

    /// The paper's Fig. 4: further uses in the block read the intermediate from the CRF.
    pub fn gilani_fig4() -> Self {
        CompositeRules { crf_forwarding: true, ..Self::spec() }
    }
}

/// Where the fused instruction stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Placement {
    /// At the first instruction (the second is hoisted).
    AtFirst,
    /// At the second instruction (the first is sunk).
    AtSecond,
}

/// One composite pair.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CompositePair {
    /// The producer.
    pub first: Handle<Inst>,
    /// The consumer.
    pub second: Handle<Inst>,
    /// Its Table 1 class.
    pub class: CompositeClass,
    /// The register carrying the intermediate.
    pub intermediate: Handle<Reg>,
    /// The operand index of `second` that reads the intermediate.
    pub operand: usize,
    /// Where the composite stands.
    pub placement: Placement,
    /// Other instructions that read the intermediate, now from the CRF (CRF forwarding only).
    pub crf_reads: Vec<Handle<Inst>>,
}

/// The composite pairs of one function.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CompositePairs {
    pairs: Vec<CompositePair>,
    member: BTreeMap<Handle<Inst>, usize>,
    crf_reader: BTreeMap<Handle<Inst>, usize>,
}

/// A use of the first instruction's result inside the block.
struct Use {
    pos: usize,
    /// Read only through plain source operands.
    plain: bool,
}

/// Per block state of the greedy search.
struct Search<'a> {
    insts: Vec<&'a Inst>,
    handles: &'a [Handle<Inst>],
    taken: BTreeSet<usize>,
    /// CRF lifetimes `[placement, last read]` of the pairs found so far.
    busy: Vec<(usize, usize)>,
    rules: CompositeRules,
}

impl CompositePairs {
    /// Finds the pairs of every block of `func`, greedily top-down; `live` is the liveness of
    /// `func`.
    pub fn compute(func: &Function, live: &Liveness, rules: CompositeRules) -> CompositePairs {
        let mut out = CompositePairs::default();
        let Some(body) = &func.body else { return out };
        for (bh, block) in body.blocks.iter() {
            let insts: Vec<&Inst> = block.insts.iter().filter_map(|&h| body.insts.get(h)).collect();
            if insts.len() != block.insts.len() {
                continue;
            }
            let mut s = Search { insts, handles: &block.insts, taken: BTreeSet::new(), busy: Vec::new(), rules };
            for i in 0..s.insts.len() {
                if let Some(pair) = s.pair_at(i, |r| live_out_of_block(live, bh, r)) {
                    out.member.insert(pair.first, out.pairs.len());
                    out.member.insert(pair.second, out.pairs.len());
                    for &r in &pair.crf_reads {
                        out.crf_reader.insert(r, out.pairs.len());
                    }
                    out.pairs.push(pair);
                }
            }
        }
        out
    }

    /// The pair `inst` belongs to (as first or second).
    pub fn pair_of(&self, inst: Handle<Inst>) -> Option<&CompositePair> {
        self.member.get(&inst).and_then(|&i| self.pairs.get(i))
    }

    /// The pair whose intermediate `inst` reads from the CRF (CRF forwarding only).
    pub fn crf_source_of(&self, inst: Handle<Inst>) -> Option<&CompositePair> {
        self.crf_reader.get(&inst).and_then(|&i| self.pairs.get(i))
    }

    /// Every pair, in block order, top-down.
    pub fn iter(&self) -> impl Iterator<Item = &CompositePair> + '_ {
        self.pairs.iter()
    }

    /// Number of pairs.
    pub fn len(&self) -> usize {
        self.pairs.len()
    }

    /// True if there is none.
    pub fn is_empty(&self) -> bool {
        self.pairs.is_empty()
    }
}

impl Search<'_> {
    /// The pair whose first instruction is at `i`, if one qualifies.
    fn pair_at(&mut self, i: usize, live_out: impl Fn(Handle<Reg>) -> bool) -> Option<CompositePair> {
        if self.taken.contains(&i) {
            return None;
        }
        let first = *self.insts.get(i)?;
        let d = single_reg_def(first)?;
        let uses = self.uses_of(i, d, live_out)?;
        if !self.rules.crf_forwarding && uses.len() != 1 || uses.iter().any(|u| !u.plain) {
            return None;
        }
        let j = uses.iter().map(|u| u.pos).find(|&j| self.qualifies(i, j, d))?;
        let others: Vec<usize> = uses.iter().map(|u| u.pos).filter(|&p| p != j).collect();
        if others.iter().any(|p| self.taken.contains(p)) {
            return None;
        }
        let placement = if self.can_hoist(i, j) {
            Placement::AtFirst
        } else if others.is_empty() && self.can_sink(i, j) {
            Placement::AtSecond
        } else {
            return None;
        };
        let at = if placement == Placement::AtFirst { i } else { j };
        let until = others.iter().copied().max().unwrap_or(at);
        if self.busy.iter().any(|&(p, u)| (p < at && at <= u) || (at < p && p <= until)) {
            return None;
        }
        self.busy.push((at, until));
        self.taken.extend([i, j].iter().chain(&others));
        let second = self.insts.get(j)?;
        let operand =
            second.operands.iter().enumerate().skip(second.def_count()).find(|(_, o)| o.as_reg() == Some(d))?.0;
        Some(CompositePair {
            first: *self.handles.get(i)?,
            second: *self.handles.get(j)?,
            class: composite_class(first, second)?,
            intermediate: d,
            operand,
            placement,
            crf_reads: others.iter().filter_map(|&p| self.handles.get(p).copied()).collect(),
        })
    }

    /// The reads of `d` (defined at `i`) up to its redefinition; `None` if the value escapes the
    /// block or may survive a guarded redefinition.
    fn uses_of(&self, i: usize, d: Handle<Reg>, live_out: impl Fn(Handle<Reg>) -> bool) -> Option<Vec<Use>> {
        let mut uses = Vec::new();
        for (pos, inst) in self.insts.iter().enumerate().skip(i + 1) {
            let mut reads = 0;
            inst.for_each_use(|r| reads += usize::from(r == d));
            if reads > 0 {
                let plain = inst.uses().iter().filter(|o| o.as_reg() == Some(d)).count();
                let guard_or_address = inst.guard.is_some_and(|g| g.reg == d);
                uses.push(Use { pos, plain: plain == reads && !guard_or_address });
            }
            if writes(inst, d) {
                return inst.guard.is_none().then_some(uses);
            }
        }
        (!live_out(d)).then_some(uses)
    }

    /// The pair (`i`, `j`) passes the class, guard, memory, source-count and taken rules.
    fn qualifies(&self, i: usize, j: usize, d: Handle<Reg>) -> bool {
        let (Some(first), Some(second)) = (self.insts.get(i), self.insts.get(j)) else { return false };
        if self.taken.contains(&j) || composite_class(first, second).is_none() || first.guard != second.guard {
            return false;
        }
        let mut reads = 0;
        second.for_each_use(|r| reads += usize::from(r == d));
        let Some(pos) =
            second.operands.iter().enumerate().skip(second.def_count()).find(|(_, o)| o.as_reg() == Some(d))
        else {
            return false;
        };
        reads == 1
            && memory_operands(first) + memory_operands(second) <= 1
            && composite_register_sources(first, second, pos.0) <= self.rules.max_register_sources
            && single_reg_def(second).is_some()
    }

    /// Moving the instruction at `j` up to `i` reorders no dependence.
    fn can_hoist(&self, i: usize, j: usize) -> bool {
        let Some(second) = self.insts.get(j) else { return false };
        let (reads, writes_) = regs_of(second);
        let memory = memory_operands(second) > 0;
        self.between(i, j).all(|k| {
            let (r, w) = regs_of(k);
            w.is_disjoint(&reads) && r.is_disjoint(&writes_) && w.is_disjoint(&writes_) && !(memory && orders(k))
        })
    }

    /// Moving the instruction at `i` down to `j` reorders no dependence.
    fn can_sink(&self, i: usize, j: usize) -> bool {
        let Some(first) = self.insts.get(i) else { return false };
        let (reads, _) = regs_of(first);
        let memory = memory_operands(first) > 0;
        self.between(i, j).all(|k| regs_of(k).1.is_disjoint(&reads) && !(memory && orders(k)))
    }

    fn between(&self, i: usize, j: usize) -> impl Iterator<Item = &Inst> + '_ {
        self.insts.iter().take(j).skip(i + 1).copied()
    }
}

/// The one register an instruction writes (no vector, pair or predicate results).
fn single_reg_def(inst: &Inst) -> Option<Handle<Reg>> {
    match inst.defs() {
        [Operand::Reg(r)] => Some(*r),
        _ => None,
    }
}

fn writes(inst: &Inst, d: Handle<Reg>) -> bool {
    let mut w = false;
    inst.for_each_def(|r| w |= r == d);
    w
}

fn regs_of(inst: &Inst) -> (BTreeSet<Handle<Reg>>, BTreeSet<Handle<Reg>>) {
    let (mut r, mut w) = (BTreeSet::new(), BTreeSet::new());
    inst.for_each_use(|x| {
        r.insert(x);
    });
    inst.for_each_def(|x| {
        w.insert(x);
    });
    (r, w)
}

/// Memory writes and synchronisation, which a memory operand may not cross.
fn orders(inst: &Inst) -> bool {
    super::single_use_loads::orders_memory(inst.opcode)
}
