//! The backward liveness dataflow shared by [`super::liveness`] (over register units) and
//! [`super::regalloc`] (over allocation values): given, per instruction, which slots it reads and
//! writes, it computes live-in and live-out sets per block and per instruction.
//!
//! ```text
//! @%p1 mov.u32 %r2, 1;   // a guarded write does not kill: %r2 stays live above it if read below
//! add.s32 %r3, %r2, 1;   // live-in {%r2}, live-out {%r3} if %r3 is read later
//! ```
//!
//! A slot is live at a point if some path from the point reads it before an unguarded write, and
//! some path from the entry to the point writes it (a read of a never-written register makes
//! nothing live: the value is garbage either way). The second condition matters for registers only
//! ever written under a guard, which would otherwise look live from the entry.

use alloc::vec;
use alloc::vec::Vec;
use core::ops::Range;

use super::bitset::{BitMatrix, BitSet};
use super::cfg::Cfg;
use crate::ir::{Body, Handle, Inst};

/// Slot ranges each instruction reads and writes, stored flat.
#[derive(Clone, Debug, Default)]
pub(crate) struct Effects {
    /// Capacity: slots are `0..slots`.
    pub slots: usize,
    defs: Vec<(u32, u32)>,
    uses: Vec<(u32, u32)>,
    def_at: Vec<u32>,
    use_at: Vec<u32>,
    guarded: Vec<bool>,
}

impl Effects {
    /// Effects of every instruction of `body` (indexed by instruction handle), as given by `each`,
    /// which calls `def(range)` and `use(range)` for one instruction.
    pub fn build(
        body: &Body,
        slots: usize,
        mut each: impl FnMut(Handle<Inst>, &Inst, &mut dyn FnMut(Range<usize>, bool)),
    ) -> Effects {
        let n = body.insts.len();
        let mut e = Effects {
            slots,
            defs: Vec::new(),
            uses: Vec::new(),
            def_at: Vec::with_capacity(n + 1),
            use_at: Vec::with_capacity(n + 1),
            guarded: Vec::with_capacity(n),
        };
        for (ih, inst) in body.insts.iter() {
            e.def_at.push(e.defs.len() as u32);
            e.use_at.push(e.uses.len() as u32);
            let (defs, uses) = (&mut e.defs, &mut e.uses);
            each(ih, inst, &mut |r, is_def| {
                let pair = (r.start as u32, r.end as u32);
                if is_def {
                    defs.push(pair);
                } else {
                    uses.push(pair);
                }
            });
            e.guarded.push(inst.guard.is_some());
        }
        e.def_at.push(e.defs.len() as u32);
        e.use_at.push(e.uses.len() as u32);
        e
    }

    /// Slot ranges `inst` writes.
    pub fn defs(&self, inst: Handle<Inst>) -> &[(u32, u32)] {
        slice(&self.defs, &self.def_at, inst.index())
    }

    /// Slot ranges `inst` reads.
    pub fn uses(&self, inst: Handle<Inst>) -> &[(u32, u32)] {
        slice(&self.uses, &self.use_at, inst.index())
    }

    fn kills(&self, inst: Handle<Inst>) -> bool {
        !self.guarded.get(inst.index()).copied().unwrap_or(true)
    }

    /// `set := (set - kills(inst)) ∪ uses(inst)`: one step backwards over `inst`.
    pub fn step_back(&self, inst: Handle<Inst>, set: &mut BitSet) {
        if self.kills(inst) {
            for &(a, b) in self.defs(inst) {
                set.remove_range(a as usize, (b - a) as usize);
            }
        }
        for &(a, b) in self.uses(inst) {
            set.insert_range(a as usize, (b - a) as usize);
        }
    }

    /// Adds the slots `inst` writes to `set`.
    pub fn add_defs(&self, inst: Handle<Inst>, set: &mut BitSet) {
        for &(a, b) in self.defs(inst) {
            set.insert_range(a as usize, (b - a) as usize);
        }
    }
}

fn slice<'a>(items: &'a [(u32, u32)], at: &[u32], i: usize) -> &'a [(u32, u32)] {
    match (at.get(i), at.get(i + 1)) {
        (Some(&a), Some(&b)) => items.get(a as usize..b as usize).unwrap_or(&[]),
        _ => &[],
    }
}

/// Live sets per block and per instruction.
#[derive(Clone, Debug, Default)]
pub(crate) struct LiveSets {
    pub block_in: Vec<BitSet>,
    pub block_out: Vec<BitSet>,
    /// Live-in of each instruction (row = instruction handle index).
    pub inst_in: BitMatrix,
    /// Live-out of each instruction.
    pub inst_out: BitMatrix,
}

/// What holds at the function's boundaries: slots written before the entry (register
/// parameters) and slots read after the exit (register return values).
#[derive(Clone, Debug, Default)]
pub(crate) struct Boundary {
    pub entry_defined: Vec<(u32, u32)>,
    pub exit_live: Vec<(u32, u32)>,
}

fn add_ranges(set: &mut BitSet, ranges: &[(u32, u32)]) {
    for &(a, b) in ranges {
        set.insert_range(a as usize, (b - a) as usize);
    }
}

/// Solves liveness for `effects` over `cfg`.
pub(crate) fn solve(body: &Body, cfg: &Cfg, effects: &Effects, boundary: &Boundary) -> LiveSets {
    let n = cfg.len();
    let slots = effects.slots;
    let mut live_in = vec![BitSet::new(slots); n];
    let mut live_out = vec![BitSet::new(slots); n];
    let order: Vec<Handle<crate::ir::Block>> = postorder_all(cfg);
    let mut changed = true;
    let mut scratch = BitSet::new(slots);
    while changed {
        changed = false;
        for &b in &order {
            scratch.clear();
            for s in cfg.succs(b) {
                scratch.union_with(&live_in[s.index()]);
            }
            if cfg.exits(b) {
                add_ranges(&mut scratch, &boundary.exit_live);
            }
            live_out[b.index()].copy_from(&scratch);
            for &ih in body.blocks[b].insts.iter().rev() {
                effects.step_back(ih, &mut scratch);
            }
            changed |= live_in[b.index()].union_with(&scratch);
        }
    }
    let defined = defined_sets(body, cfg, effects, boundary);
    let mut sets = LiveSets {
        block_in: live_in,
        block_out: live_out,
        inst_in: BitMatrix::new(body.insts.len(), slots),
        inst_out: BitMatrix::new(body.insts.len(), slots),
    };
    per_instruction(body, cfg, effects, &defined, &mut sets);
    sets
}

/// Blocks in postorder (reachable ones first, then the rest in reverse layout order), so that
/// the backward iteration converges in few rounds.
fn postorder_all(cfg: &Cfg) -> Vec<Handle<crate::ir::Block>> {
    let mut order: Vec<_> = cfg.reverse_postorder().iter().rev().copied().collect();
    order.extend(cfg.blocks().rev().filter(|&b| !cfg.is_reachable(b)));
    order
}

/// May-be-written sets at block entries (forward: union over predecessors).
fn defined_sets(body: &Body, cfg: &Cfg, effects: &Effects, boundary: &Boundary) -> Vec<BitSet> {
    let n = cfg.len();
    let mut def_in = vec![BitSet::new(effects.slots); n];
    let mut def_out = vec![BitSet::new(effects.slots); n];
    let mut order: Vec<_> = cfg.reverse_postorder().to_vec();
    order.extend(cfg.blocks().filter(|&b| !cfg.is_reachable(b)));
    let mut changed = true;
    let mut scratch = BitSet::new(effects.slots);
    while changed {
        changed = false;
        for &b in &order {
            scratch.clear();
            for p in cfg.preds(b) {
                scratch.union_with(&def_out[p.index()]);
            }
            if Some(b) == cfg.entry() {
                add_ranges(&mut scratch, &boundary.entry_defined);
            }
            def_in[b.index()].copy_from(&scratch);
            for &ih in &body.blocks[b].insts {
                effects.add_defs(ih, &mut scratch);
            }
            changed |= def_out[b.index()].union_with(&scratch);
        }
    }
    def_in
}

/// Walks each block backwards from its live-out to fill the per-instruction rows, then forwards to
/// mask every set with what may have been written by then.
fn per_instruction(body: &Body, cfg: &Cfg, effects: &Effects, defined: &[BitSet], sets: &mut LiveSets) {
    let mut cur = BitSet::new(effects.slots);
    for b in cfg.blocks() {
        let insts = &body.blocks[b].insts;
        cur.copy_from(&sets.block_out[b.index()]);
        let mut rows_out = Vec::with_capacity(insts.len());
        for &ih in insts.iter().rev() {
            rows_out.push(cur.clone());
            effects.step_back(ih, &mut cur);
        }
        let mut def = defined[b.index()].clone();
        sets.block_in[b.index()].intersect_with(&def);
        let mut live_in = sets.block_in[b.index()].clone();
        for (&ih, mut out) in insts.iter().zip(rows_out.into_iter().rev()) {
            sets.inst_in.set_row(ih.index(), &live_in);
            effects.add_defs(ih, &mut def);
            out.intersect_with(&def);
            sets.inst_out.set_row(ih.index(), &out);
            live_in = out;
        }
        sets.block_out[b.index()].intersect_with(&def);
    }
}
