//! Single-use loads: DeMO's Algorithm 1 (Mohammadpur-Fard et al., "DeMO: direct memory
//! operands") with RegLab's assumptions **A** (`SCHEMES.md` §3).
//!
//! ```text
//! ld.const.f32 %f1, [%rd1];        // %f1 is read twice: not single-use
//! ld.const.f32 %f2, [%rd1+4];      // %f2 is read once, by the mul: single-use
//! mul.ftz.f32 %f3, %f2, %f1;       // … so the mul can read %c[%rd1+4] directly
//! fma.rn.ftz.f32 %f3, %f1, %f3, %f3;
//! ```
//!
//! Algorithm 1 walks the instructions keeping, per register last written by a load, its usage
//! count and last consumer; a redefinition (or the end of the kernel) ends the register's lifetime,
//! and a count of exactly one makes the load single-use. RegLab walks each basic block (the
//! window whose instructions are all definitely executed) and ends a lifetime at the block's end
//! only if the register is dead there (liveness), otherwise the value is read again elsewhere.
//! **A**: only scalar 32-bit `ld.global/.shared/.local/.const/.param` without `.volatile` or other
//! memory-model semantics count; the one consumer is in the same block, is an arithmetic
//! instruction reading the register as a plain source and holding no other memory operand; no
//! store, atomic, fence, barrier or call lies between; the address register and the load's guard
//! are not rewritten in between; the load is unguarded or has the consumer's guard.

use alloc::collections::BTreeMap;
use alloc::vec::Vec;

use serde::{Deserialize, Serialize};

use super::liveness::Liveness;
use crate::ir::scheme::{accepts_memory_operand, memory_operands};
use crate::ir::{AddressBase, Block, Body, Function, Handle, Inst, Opcode, Operand, Reg, StateSpace};

/// Which state spaces a load may come from to become a memory operand (the `demo` scheme's
/// `spaces` parameter).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum LoadSpaces {
    /// Every space **A** allows: `.global`, `.shared`, `.local`, `.const`, `.param`.
    #[default]
    All,
    /// `.global` only.
    Global,
}

impl LoadSpaces {
    /// Whether a load from `space` qualifies (before **A**'s other rules).
    pub fn admits(self, space: StateSpace) -> bool {
        let any = matches!(
            space,
            StateSpace::Global | StateSpace::Local | StateSpace::Const | StateSpace::Shared | StateSpace::SharedCta
        ) || space.is_param();
        match self {
            LoadSpaces::All => any,
            LoadSpaces::Global => space == StateSpace::Global,
        }
    }
}

/// One single-use load and the instruction that reads its value.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SingleUse {
    /// The load.
    pub load: Handle<Inst>,
    /// Its destination register.
    pub reg: Handle<Reg>,
    /// The one instruction that reads the value.
    pub consumer: Handle<Inst>,
    /// The consumer's operand index that names `reg`.
    pub operand: usize,
}

/// The single-use loads of one function.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SingleUseLoads {
    by_load: BTreeMap<Handle<Inst>, SingleUse>,
    by_consumer: BTreeMap<Handle<Inst>, Handle<Inst>>,
    loads: usize,
    eligible: usize,
}

/// A load whose lifetime Algorithm 1 is following (`R_active`).
struct Active {
    load: Handle<Inst>,
    uses: u32,
    consumer: Option<Handle<Inst>>,
    /// Something between the load and now forbids moving the read to a later consumer.
    blocked: bool,
}

impl SingleUseLoads {
    /// Runs Algorithm 1 over every block of `func` (an empty result for a declaration), with
    /// `live` the liveness of `func`.
    pub fn compute(func: &Function, live: &Liveness) -> SingleUseLoads {
        SingleUseLoads::compute_in(func, live, LoadSpaces::All)
    }

    /// As [`SingleUseLoads::compute`], counting only loads from `spaces`.
    pub fn compute_in(func: &Function, live: &Liveness, spaces: LoadSpaces) -> SingleUseLoads {
        let mut out = SingleUseLoads::default();
        let Some(body) = &func.body else { return out };
        for (bh, block) in body.blocks.iter() {
            out.block(body, bh, block, live, spaces);
        }
        out
    }

    /// True if `load` is a single-use load that the DeMO rewrite removes.
    pub fn is_single_use(&self, load: Handle<Inst>) -> bool {
        self.by_load.contains_key(&load)
    }

    /// The single-use record of `load`.
    pub fn get(&self, load: Handle<Inst>) -> Option<&SingleUse> {
        self.by_load.get(&load)
    }

    /// The single-use load whose value `consumer` reads, if any.
    pub fn load_consumed_by(&self, consumer: Handle<Inst>) -> Option<&SingleUse> {
        self.by_consumer.get(&consumer).and_then(|l| self.by_load.get(l))
    }

    /// Every single-use load, in instruction order.
    pub fn iter(&self) -> impl Iterator<Item = &SingleUse> + '_ {
        self.by_load.values()
    }

    /// Number of single-use loads.
    pub fn len(&self) -> usize {
        self.by_load.len()
    }

    /// True if there is none.
    pub fn is_empty(&self) -> bool {
        self.by_load.is_empty()
    }

    /// Number of `ld` instructions in the function (single-use or not).
    pub fn load_count(&self) -> usize {
        self.loads
    }

    /// Number of loads of the kind **A** allows to become memory operands (scalar 32-bit, plain
    /// `.global/.shared/.local/.const/.param`), single-use or not.
    pub fn eligible_count(&self) -> usize {
        self.eligible
    }

    fn block(&mut self, body: &Body, bh: Handle<Block>, block: &Block, live: &Liveness, spaces: LoadSpaces) {
        let mut active: BTreeMap<Handle<Reg>, Active> = BTreeMap::new();
        let mut found = Vec::new();
        for &ih in &block.insts {
            let Some(inst) = body.insts.get(ih) else { continue };
            inst.for_each_use(|r| {
                if let Some(a) = active.get_mut(&r) {
                    a.uses += 1;
                    a.consumer = Some(ih);
                }
            });
            // Events after the one consumer do not matter: a second read disqualifies anyway.
            if orders_memory(inst.opcode) {
                active.values_mut().filter(|a| a.consumer.is_none()).for_each(|a| a.blocked = true);
            }
            inst.for_each_def(|r| {
                for a in active.values_mut().filter(|a| a.consumer.is_none()) {
                    if body.insts.get(a.load).is_some_and(|l| load_reads(l, r)) {
                        a.blocked = true;
                    }
                }
                // A guarded write may not happen: the loaded value lives on and keeps counting.
                if inst.guard.is_none() {
                    if let Some(a) = active.remove(&r) {
                        found.push((r, a));
                    }
                }
            });
            if inst.opcode == Opcode::Ld {
                self.loads += 1;
                if let Some(r) = eligible_load(body, inst, spaces) {
                    self.eligible += 1;
                    let blocked = load_reads(inst, r);
                    active.insert(r, Active { load: ih, uses: 0, consumer: None, blocked });
                }
            }
        }
        found.extend(active.into_iter().filter(|(r, _)| !live_out_of_block(live, bh, *r)));
        crate::sorting::sort_by_key(&mut found, |(_, a)| a.load);
        for (reg, a) in found {
            self.accept(body, reg, &a);
        }
    }

    /// Records `a` if its lifetime saw exactly one read by a consumer that can take the load.
    fn accept(&mut self, body: &Body, reg: Handle<Reg>, a: &Active) {
        let (1, Some(consumer), false) = (a.uses, a.consumer, a.blocked) else { return };
        if self.by_consumer.contains_key(&consumer) {
            return;
        }
        let (Some(load), Some(user)) = (body.insts.get(a.load), body.insts.get(consumer)) else { return };
        if !accepts_memory_operand(user) || memory_operands(user) > 0 {
            return;
        }
        if load.guard.is_some() && load.guard != user.guard {
            return;
        }
        let from = user.def_count();
        let Some(operand) = user.operands.iter().skip(from).position(|o| *o == Operand::Reg(reg)) else { return };
        let record = SingleUse { load: a.load, reg, consumer, operand: operand + from };
        self.by_load.insert(a.load, record);
        self.by_consumer.insert(consumer, a.load);
    }
}

/// The destination of a load that **A** allows to become a memory operand.
fn eligible_load(body: &Body, inst: &Inst, spaces: LoadSpaces) -> Option<Handle<Reg>> {
    let m = &inst.mods;
    let space_ok = m.space.is_some_and(|s| spaces.admits(s));
    let ty_ok = inst.ty().is_some_and(|t| t.bits() == 32 && (t.is_integer() || t.is_float()));
    if !space_ok || !ty_ok || m.sem.is_some() || m.vec.is_some() || inst.operands.len() != 2 {
        return None;
    }
    let reg = inst.operands.first()?.as_reg()?;
    let reg_ok = body.regs.get(reg).is_some_and(|r| r.ty.bits() == 32);
    let addr_ok = matches!(inst.operands.get(1), Some(Operand::Address(_)));
    (reg_ok && addr_ok).then_some(reg)
}

/// True if the value `load` reads depends on register `r` (its address base or its guard).
fn load_reads(load: &Inst, r: Handle<Reg>) -> bool {
    let base = matches!(load.operands.get(1), Some(Operand::Address(a)) if a.base == AddressBase::Reg(r));
    base || load.guard.is_some_and(|g| g.reg == r)
}

/// Instructions a load may not be moved past: memory writes, atomics, fences, barriers, calls.
pub(crate) fn orders_memory(op: Opcode) -> bool {
    use Opcode::*;
    matches!(
        op,
        St | Atom
            | Red
            | Membar
            | Fence
            | Bar
            | Barrier
            | BarWarpSync
            | BarrierClusterArrive
            | BarrierClusterWait
            | Call
            | CpAsync
            | CpAsyncBulk
            | CpAsyncWaitGroup
            | CpAsyncWaitAll
            | CpAsyncBulkWaitGroup
            | CpAsyncMbarrierArrive
            | Stmatrix
            | WmmaStore
            | Sust
            | Sured
            | MbarrierInit
            | MbarrierInval
            | MbarrierArrive
            | MbarrierArriveDrop
            | MbarrierExpectTx
            | MbarrierCompleteTx
            | MbarrierTestWait
            | MbarrierTryWait
            | GriddepcontrolWait
            | Alloca
            | Stackrestore
    )
}

/// True if some unit of `reg` is live at the end of `block`.
pub(crate) fn live_out_of_block(live: &Liveness, block: Handle<Block>, reg: Handle<Reg>) -> bool {
    let Some(out) = live.block_live_out(block) else { return true };
    let map = live.unit_map();
    match map.pred_index(reg) {
        Some(_) => true,
        None => map.units_of(reg).any(|u| out.contains(u)),
    }
}
