//! RegMutex's compiler pass (Khorasani et al., ISCA'18, as the FineReg paper compares it;
//! SCHEMES.md §4): a warp owns a base register set (|BRS| registers per thread) and takes its
//! extended registers from the SM's shared register pool (SRP) only around the regions where
//! more registers are live. The pass analyses the kernel (liveness; the input module is not
//! touched), inserts `regmutex.acquire N;` before a region and `regmutex.release N;` after it,
//! and says where each original instruction went ([`InstMap`]), so the shared functional run of
//! the original kernel feeds the transformed one.
//!
//! ```text
//! peak live units per instruction (max of live-in and |live-out ∪ defs|):  3 3 5 6 6 4 2 0
//! |BRS| = lower median = 4 → extension E = max peak − |BRS| = 2; need = peak > 4:  · · x x x · · ·
//! transformed:  i0 i1 [regmutex.acquire 2] i2 i3 i4 [regmutex.release 2] i5 i6 i7
//! ```
//!
//! Placement: the state "held" after every instruction is its own need, so an acquire goes
//! before an instruction that needs the pool when the state before it is not known to be held
//! (a block's entry state is its predecessors' common exit state; unknown when they disagree),
//! and a release before one that does not when the state is not known to be free. Both are
//! idempotent at run time (an acquire while holding, a release while free, do nothing), so an
//! unknown entry state is safe. **A**: a barrier never needs the pool (the region is split
//! around it, so a warp waiting at a barrier holds no SRP registers and cannot deadlock the warps
//! it waits for); the values of the extension are assumed kept across it at no cost.

use alloc::collections::BTreeMap;
use alloc::vec;
use alloc::vec::Vec;

use crate::analysis::rebuild::{rebuild, Slot};
use crate::analysis::{Cfg, Liveness};
use crate::ir::{Block, Function, Handle, Imm, Inst, Module, Opcode, Operand};
use crate::timing::program::Program;
use crate::timing::program_map::{InstFate, InstMap};

/// The base set and the regions of one function.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Regions {
    /// Peak live 32-bit units of each instruction (by instruction handle).
    pub peak: Vec<u32>,
    /// |BRS| in live units: the lower median of `peak` (**A**: the compiler's choice).
    pub base: u32,
    /// Units taken from the pool per thread by an acquire: max peak − `base` (0: no region).
    pub extension: u32,
    /// Instructions (by handle) that run with the extension held.
    pub need: Vec<bool>,
}

/// The regions of `func` (empty for a function without a body).
pub fn regions(func: &Function) -> Regions {
    let Some(body) = &func.body else { return Regions::default() };
    let live = Liveness::compute(func, &Cfg::compute(func));
    let peak: Vec<u32> =
        body.insts.iter().map(|(h, _)| (live.live_in(h).count() as u32).max(live.pressure(h))).collect();
    let mut sorted = peak.clone();
    crate::sorting::sort(&mut sorted);
    let base = sorted.get(sorted.len().saturating_sub(1) / 2).copied().unwrap_or(0);
    let max = sorted.last().copied().unwrap_or(0);
    let need = body.insts.iter().map(|(h, i)| !is_barrier(i) && peak.get(h.index()).is_some_and(|&p| p > base));
    Regions { need: need.collect(), peak, base, extension: max.saturating_sub(base) }
}

fn is_barrier(inst: &Inst) -> bool {
    matches!(inst.opcode, Opcode::Bar | Opcode::Barrier)
}

/// Whether the pool is held: known held, known free, or unknown (predecessors disagree).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Held {
    Yes,
    No,
    Unknown,
}

/// Each block's entry state: free at the kernel's entry; the common exit state of the
/// predecessors (a block's exit is its last instruction's need; an empty block passes its entry
/// on); unknown where they disagree or a block has no predecessor.
fn entry_states(func: &Function, cfg: &Cfg, need: &[bool]) -> Vec<Held> {
    let Some(body) = &func.body else { return Vec::new() };
    let n = body.blocks.len();
    let exit_of = |b: Handle<Block>, entry: &[Option<Held>]| -> Option<Held> {
        let block = body.blocks.get(b)?;
        match block.insts.last() {
            Some(&last) => Some(if need.get(last.index()).copied().unwrap_or(false) { Held::Yes } else { Held::No }),
            None => entry.get(b.index()).copied().flatten(),
        }
    };
    let mut entry: Vec<Option<Held>> = vec![None; n];
    let first = cfg.entry();
    for _ in 0..=n {
        let mut changed = false;
        for b in cfg.blocks() {
            let state = if Some(b) == first {
                Some(Held::No)
            } else {
                let mut acc: Option<Held> = None;
                for &p in cfg.preds(b) {
                    acc = match (acc, exit_of(p, &entry)) {
                        (a, None) => a,
                        (None, s) => s,
                        (Some(a), Some(s)) if a == s => Some(a),
                        _ => Some(Held::Unknown),
                    };
                }
                Some(acc.unwrap_or(Held::Unknown))
            };
            if entry.get(b.index()).copied().flatten() != state {
                if let Some(e) = entry.get_mut(b.index()) {
                    *e = state;
                }
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
    entry.into_iter().map(|s| s.unwrap_or(Held::Unknown)).collect()
}

/// A `regmutex.acquire N;` (`acquire`) or `regmutex.release N;`.
pub fn pool_inst(acquire: bool, registers: u32) -> Inst {
    Inst {
        opcode: if acquire { Opcode::RegmutexAcquire } else { Opcode::RegmutexRelease },
        guard: None,
        mods: Default::default(),
        types: Default::default(),
        operands: vec![Operand::Imm(Imm::Int(u64::from(registers)))],
    }
}

/// The pass: `module` with acquire/release around every function's regions, and the map.
pub fn transform(module: &Module) -> Result<(Module, InstMap), alloc::string::String> {
    let mut out = module.clone();
    let mut map = InstMap::new();
    for (fh, func) in module.functions.iter() {
        let Some(body) = &func.body else { continue };
        let r = regions(func);
        if r.extension == 0 {
            continue;
        }
        let entry = entry_states(func, &Cfg::compute(func), &r.need);
        let mut next = 0u32;
        let mut fates: BTreeMap<u32, InstFate> = BTreeMap::new();
        let new_body = rebuild(body, |bh, insts| {
            let mut state = entry.get(bh.index()).copied().unwrap_or(Held::Unknown);
            let mut slots = Vec::new();
            for &ih in insts {
                let need = r.need.get(ih.index()).copied().unwrap_or(false);
                let mut fate = InstFate::default();
                let want = if need { Held::Yes } else { Held::No };
                if state != want {
                    slots.push(Slot { origin: ih, inst: pool_inst(need, r.extension) });
                    fate.before.push(Handle::from_index(next));
                    next += 1;
                }
                state = want;
                if let Some(inst) = body.insts.get(ih) {
                    slots.push(Slot { origin: ih, inst: inst.clone() });
                }
                fate.main = Some(Handle::from_index(next));
                next += 1;
                fates.insert(ih.raw(), fate);
            }
            slots
        });
        for (ih, fate) in fates {
            map.set(fh, Handle::from_index(ih), fate);
        }
        if let Some(f) = out.functions.get_mut(fh) {
            *f = Function { body: Some(new_body), ..func.clone() };
        }
    }
    Ok((out, map))
}

/// What one static instruction does to the pool.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum PoolOp {
    /// Nothing.
    #[default]
    None,
    /// Takes the extension (registers per thread, in live units).
    Acquire(u32),
    /// Gives it back.
    Release(u32),
}

/// The pool operation of every static instruction of `program` (decoded from `module`); empty
/// when the module has no `regmutex.*` instruction.
pub fn pool_ops(module: &Module, program: &Program) -> Vec<PoolOp> {
    let mut out = Vec::new();
    for (fh, func) in module.functions.iter() {
        let Some(body) = &func.body else { continue };
        for (ih, inst) in body.insts.iter() {
            let n = match inst.operands.first() {
                Some(Operand::Imm(i)) => u32::try_from(i.bits()).unwrap_or(u32::MAX),
                _ => 0,
            };
            let op = match inst.opcode {
                Opcode::RegmutexAcquire => PoolOp::Acquire(n),
                Opcode::RegmutexRelease => PoolOp::Release(n),
                _ => continue,
            };
            let Some(sid) = program.sid(fh, ih) else { continue };
            if out.len() <= sid as usize {
                out.resize(program.insts.len().max(sid as usize + 1), PoolOp::None);
            }
            if let Some(x) = out.get_mut(sid as usize) {
                *x = op;
            }
        }
    }
    out
}
