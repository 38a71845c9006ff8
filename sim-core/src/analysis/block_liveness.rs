//! Registers live at the end of each basic block: the one liveness fact the block-local scheme
//! analyses (single-use loads, composite pairs) need, to know whether a value defined in a block
//! is read after it.
//!
//! ```text
//! $L1: ld.global.u32 %r1, [%rd1];   // %r1 is live out of $L1: $L2 reads it
//!      bra $L2;
//! $L2: add.s32 %r2, %r1, 1;
//! ```
//!
//! Classic backward data flow over the control-flow graph, iterated to a fixpoint in reverse
//! layout order.

use alloc::collections::BTreeSet;
use alloc::vec::Vec;

use crate::ir::{Block, Body, Function, Handle, Reg};

/// Per block, the registers live at its end.
#[derive(Clone, Debug, Default)]
pub struct BlockLiveness {
    live_out: Vec<BTreeSet<Handle<Reg>>>,
}

impl BlockLiveness {
    /// Liveness at block ends of `func` (empty for a declaration).
    pub fn compute(func: &Function) -> BlockLiveness {
        let Some(body) = &func.body else { return BlockLiveness::default() };
        let n = body.blocks.len();
        let mut gen = alloc::vec![BTreeSet::new(); n];
        let mut kill = alloc::vec![BTreeSet::new(); n];
        for (bh, block) in body.blocks.iter() {
            let (g, k) = (&mut gen[bh.index()], &mut kill[bh.index()]);
            for inst in block.insts.iter().filter_map(|&i| body.insts.get(i)) {
                inst.for_each_use(|r| {
                    if !k.contains(&r) {
                        g.insert(r);
                    }
                });
                inst.for_each_def(|r| {
                    // A guarded definition may not happen: the old value stays live through it.
                    if inst.guard.is_none() {
                        k.insert(r);
                    }
                });
            }
        }
        let mut live_in: Vec<BTreeSet<Handle<Reg>>> = gen.clone();
        let mut live_out = alloc::vec![BTreeSet::new(); n];
        let mut changed = true;
        while changed {
            changed = false;
            for b in body.blocks.handles().collect::<Vec<_>>().into_iter().rev() {
                let out: BTreeSet<Handle<Reg>> =
                    successors(body, b).iter().flat_map(|s| live_in[s.index()].iter().copied()).collect();
                let inn: BTreeSet<Handle<Reg>> =
                    gen[b.index()].iter().copied().chain(out.difference(&kill[b.index()]).copied()).collect();
                if inn != live_in[b.index()] {
                    live_in[b.index()] = inn;
                    changed = true;
                }
                live_out[b.index()] = out;
            }
        }
        BlockLiveness { live_out }
    }

    /// True if `reg` is live at the end of `block`.
    pub fn live_out(&self, block: Handle<Block>, reg: Handle<Reg>) -> bool {
        self.live_out.get(block.index()).is_some_and(|s| s.contains(&reg))
    }
}

/// The blocks control may reach from the end of `b`: branch targets, and the next block in layout
/// unless `b` ends in an unconditional branch, `ret` or `exit`.
fn successors(body: &Body, b: Handle<Block>) -> Vec<Handle<Block>> {
    let Some(block) = body.blocks.get(b) else { return Vec::new() };
    let last = block.insts.last().and_then(|&i| body.insts.get(i));
    let mut out: Vec<Handle<Block>> = last.map(|i| i.branch_targets().collect()).unwrap_or_default();
    let ends = last.is_some_and(|i| i.guard.is_none() && i.opcode.is_terminator());
    let next = Handle::from_index(b.raw() + 1);
    if !ends && body.blocks.contains(next) {
        out.push(next);
    }
    out
}
