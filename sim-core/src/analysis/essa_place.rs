//! Where the e-SSA view puts its σ- and φ-values: the conditional branches that compare integer
//! registers (σ per compared register and successor edge) and the pruned iterated dominance
//! frontiers of all definitions, σ-values included (φ per join block and live register).
//!
//! ```text
//! setp.lt.u32 %p1, %r1, %r2;     // a plain integer setp in the branching block …
//! @!%p1 bra $L_else;             // … so %r1 and %r2 get σs on both edges:
//!                                //   to $L_else: %r1 >= %r2, %r2 <= %r1 (unsigned)
//!                                //   fall-through: %r1 < %r2, %r2 > %r1
//! ```

use alloc::collections::{BTreeMap, BTreeSet};
use alloc::vec::Vec;

use super::cfg::Cfg;
use super::dominators::Dominators;
use super::essa::Cmp;
use super::liveness::Liveness;
use crate::ir::{Block, Body, CmpOp, Handle, Imm, Inst, Opcode, Operand, Reg};

/// The other side of a σ's comparison, before renaming.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Bound {
    /// An immediate.
    Const(u64),
    /// A register (its value at the branch).
    Reg(Handle<Reg>),
}

/// A σ to create on an edge.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct EdgeSigma {
    pub reg: Handle<Reg>,
    pub cmp: Cmp,
    pub signed: bool,
    pub bits: u32,
    pub against: Bound,
}

/// The one predecessor of `b` through which σs of that edge sit at `b`'s top, if `b` is not a
/// join (the entry block is always a join: control also enters it from outside).
pub(crate) fn single_pred(cfg: &Cfg, b: Handle<Block>) -> Option<Handle<Block>> {
    match cfg.preds(b) {
        [p] if Some(b) != cfg.entry() => Some(*p),
        _ => None,
    }
}

fn live_in(live: &Liveness, b: Handle<Block>, reg: Handle<Reg>) -> bool {
    let Some(set) = live.block_live_in(b) else { return false };
    live.unit_map().units_of(reg).any(|u| set.contains(u))
}

/// The σs of every conditional branch, by edge.
pub(crate) fn branch_tests(
    body: &Body,
    cfg: &Cfg,
    live: &Liveness,
    tracked: &[bool],
) -> BTreeMap<(Handle<Block>, Handle<Block>), Vec<EdgeSigma>> {
    let mut out = BTreeMap::new();
    for b in cfg.blocks() {
        let Some((cmp, signed, bits, lhs, rhs, taken)) = branch_compare(body, cfg, b) else { continue };
        for &to in cfg.succs(b) {
            let c = if to == taken { cmp } else { cmp.negated() };
            let mut list = Vec::new();
            let is_tracked = |r: Handle<Reg>| tracked.get(r.index()).copied().unwrap_or(false) && live_in(live, to, r);
            if let Bound::Reg(r) = lhs {
                if is_tracked(r) && lhs != rhs {
                    list.push(EdgeSigma { reg: r, cmp: c, signed, bits, against: rhs });
                }
            }
            if let Bound::Reg(r) = rhs {
                if is_tracked(r) && lhs != rhs {
                    list.push(EdgeSigma { reg: r, cmp: c.swapped(), signed, bits, against: lhs });
                }
            }
            if !list.is_empty() {
                out.insert((b, to), list);
            }
        }
    }
    out
}

type Compare = (Cmp, bool, u32, Bound, Bound, Handle<Block>);

/// The comparison that holds on the taken edge of `b`'s two-way `@p bra`, with its signedness,
/// width, operands and the taken successor.
fn branch_compare(body: &Body, cfg: &Cfg, b: Handle<Block>) -> Option<Compare> {
    let bra_h = cfg.branch(b)?;
    let bra = body.insts.get(bra_h)?;
    let guard = bra.guard?;
    let taken = bra.branch_targets().next()?;
    if bra.opcode != Opcode::Bra || cfg.succs(b).len() != 2 {
        return None;
    }
    let insts = &body.blocks.get(b)?.insts;
    let at = insts.iter().position(|&i| i == bra_h)?;
    let (pos, setp) = insts[..at].iter().enumerate().rev().find_map(|(i, &h)| {
        let inst = body.insts.get(h)?;
        writes(inst, guard.reg).then_some((i, inst))
    })?;
    let (cmp, signed) = compare(setp)?;
    let polarity = match setp.operands.first()? {
        Operand::Reg(p) if *p == guard.reg => true,
        Operand::Pair(pair) if pair[0].as_reg() == Some(guard.reg) => true,
        Operand::Pair(pair) if pair[1].as_reg() == Some(guard.reg) => false,
        _ => return None,
    };
    let lhs = bound(setp.operands.get(1)?)?;
    let rhs = bound(setp.operands.get(2)?)?;
    let rewritten = insts[pos + 1..at]
        .iter()
        .filter_map(|&h| body.insts.get(h))
        .any(|i| [lhs, rhs].iter().any(|x| matches!(x, Bound::Reg(r) if writes(i, *r))));
    if rewritten {
        return None;
    }
    let holds = polarity != guard.negated;
    let bits = setp.ty()?.bits();
    Some((if holds { cmp } else { cmp.negated() }, signed, bits, lhs, rhs, taken))
}

/// A plain integer `setp` (no `.and`/`.or`/`.xor` with a third predicate, unguarded).
fn compare(setp: &Inst) -> Option<(Cmp, bool)> {
    let ty = setp.ty()?;
    if setp.opcode != Opcode::Setp || setp.guard.is_some() || setp.mods.bool_op.is_some() || !ty.is_integer() {
        return None;
    }
    let signed = ty.is_signed_int();
    Some(match setp.mods.cmp? {
        CmpOp::Eq => (Cmp::Eq, signed),
        CmpOp::Ne => (Cmp::Ne, signed),
        CmpOp::Lt => (Cmp::Lt, signed),
        CmpOp::Le => (Cmp::Le, signed),
        CmpOp::Gt => (Cmp::Gt, signed),
        CmpOp::Ge => (Cmp::Ge, signed),
        CmpOp::Lo => (Cmp::Lt, false),
        CmpOp::Ls => (Cmp::Le, false),
        CmpOp::Hi => (Cmp::Gt, false),
        CmpOp::Hs => (Cmp::Ge, false),
        _ => return None,
    })
}

fn bound(op: &Operand) -> Option<Bound> {
    match op {
        Operand::Reg(r) => Some(Bound::Reg(*r)),
        Operand::Imm(Imm::Int(v)) => Some(Bound::Const(*v)),
        _ => None,
    }
}

fn writes(inst: &Inst, reg: Handle<Reg>) -> bool {
    let mut w = false;
    inst.for_each_def(|r| w |= r == reg);
    w
}

/// The (block, register) pairs that get a φ: iterated dominance frontiers of the definitions
/// (σs included), kept only where the register is live-in; σs on an edge into a join force a φ
/// there; a loop back to the entry block puts a φ there for every register defined in the body.
pub(crate) fn place_phis(
    body: &Body,
    cfg: &Cfg,
    dom: &Dominators,
    live: &Liveness,
    tracked: &[bool],
    sigmas: &BTreeMap<(Handle<Block>, Handle<Block>), Vec<EdgeSigma>>,
) -> BTreeSet<(Handle<Block>, Handle<Reg>)> {
    let mut sites: BTreeMap<Handle<Reg>, BTreeSet<Handle<Block>>> = BTreeMap::new();
    for b in cfg.reverse_postorder() {
        for inst in body.blocks.get(*b).into_iter().flat_map(|blk| blk.insts.iter()).filter_map(|&i| body.insts.get(i))
        {
            inst.for_each_def(|r| {
                if tracked.get(r.index()).copied().unwrap_or(false) {
                    sites.entry(r).or_default().insert(*b);
                }
            });
        }
    }
    let mut phis = BTreeSet::new();
    for (&(from, to), list) in sigmas {
        for s in list {
            sites.entry(s.reg).or_default().insert(to);
            if single_pred(cfg, to) != Some(from) {
                phis.insert((to, s.reg));
            }
        }
    }
    if let Some(entry) = cfg.entry().filter(|&e| !cfg.preds(e).is_empty()) {
        phis.extend(sites.keys().filter(|&&r| live_in(live, entry, r)).map(|&r| (entry, r)));
    }
    for (reg, defs) in &sites {
        let mut work: Vec<Handle<Block>> = defs.iter().copied().collect();
        let mut seen: BTreeSet<Handle<Block>> = defs.clone();
        while let Some(x) = work.pop() {
            for &y in dom.frontier(x) {
                if live_in(live, y, *reg) && phis.insert((y, *reg)) && seen.insert(y) {
                    work.push(y);
                }
            }
        }
    }
    phis
}
