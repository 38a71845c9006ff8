//! The control-flow graph of one function body: basic blocks as nodes, plus a virtual exit node
//! that every `ret`, `exit` and fall-off-the-end leads to.
//!
//! ```text
//! $L__BB0_1:                  // block 1: preds [0, 2]
//!   @%p1 bra $L__BB0_3;       // succs [3, 2]: the branch target first, then the fall-through
//!   add.s32 %r1, %r1, 1;      // block 2: succs [1] (after the unconditional `bra $L__BB0_1`)
//!   bra.uni $L__BB0_1;
//! $L__BB0_3:
//!   ret;                      // block 3: no block successor, exits to the virtual exit
//! ```
//!
//! Edges: an unguarded `bra` goes to its target; a guarded one to its target and the next block;
//! `brx.idx` to every label of its target list (to every labelled block if the list is unknown:
//! conservative); `ret`/`exit` to the virtual exit (guarded: also to the next block); any other
//! last instruction falls through (off the last block: the virtual exit). `call` does not end a
//! block: the analysis is per function, and call sites are recorded in [`Cfg::call_sites`].

use alloc::vec;
use alloc::vec::Vec;

use crate::ir::{Block, Function, Handle, Inst, Opcode, Operand, Reg, Symbol};

/// What a `call` calls.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Callee {
    /// A function of this module.
    Direct(Handle<Function>),
    /// A function the module never declares (`Module::externals[i]`).
    External(u32),
    /// An indirect call through a register holding a function address.
    Indirect(Handle<Reg>),
}

/// One `call` instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CallSite {
    /// The instruction.
    pub inst: Handle<Inst>,
    /// Its block.
    pub block: Handle<Block>,
    /// The target.
    pub callee: Callee,
}

/// The control-flow graph of one function (empty for a declaration without body).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Cfg {
    succs: Vec<Vec<Handle<Block>>>,
    preds: Vec<Vec<Handle<Block>>>,
    exits: Vec<bool>,
    rpo: Vec<Handle<Block>>,
    rpo_index: Vec<u32>,
    inst_pos: Vec<Option<(Handle<Block>, u32)>>,
    branch: Vec<Option<Handle<Inst>>>,
    calls: Vec<CallSite>,
}

const UNREACHED: u32 = u32::MAX;

impl Cfg {
    /// Builds the CFG of `kernel`'s body.
    pub fn compute(kernel: &Function) -> Cfg {
        let Some(body) = &kernel.body else {
            return Cfg::default();
        };
        let n = body.blocks.len();
        let labelled: Vec<Handle<Block>> =
            body.blocks.iter().filter(|(_, b)| b.label.is_some()).map(|(h, _)| h).collect();
        let mut cfg = Cfg {
            succs: vec![Vec::new(); n],
            preds: vec![Vec::new(); n],
            exits: vec![false; n],
            rpo: Vec::new(),
            rpo_index: vec![UNREACHED; n],
            inst_pos: vec![None; body.insts.len()],
            branch: vec![None; n],
            calls: Vec::new(),
        };
        for (bh, block) in body.blocks.iter() {
            for (i, &ih) in block.insts.iter().enumerate() {
                if let Some(slot) = cfg.inst_pos.get_mut(ih.index()) {
                    *slot = Some((bh, i as u32));
                }
                if let Some(callee) = body.insts.get(ih).and_then(call_target) {
                    cfg.calls.push(CallSite { inst: ih, block: bh, callee });
                }
            }
            let next = (bh.index() + 1 < n).then(|| Handle::from_index(bh.raw() + 1));
            let last = block.insts.last().and_then(|&ih| body.insts.get(ih).map(|inst| (ih, inst)));
            cfg.block_edges(bh, next, last, &labelled);
        }
        cfg.compute_rpo();
        cfg
    }

    fn block_edges(
        &mut self,
        bh: Handle<Block>,
        next: Option<Handle<Block>>,
        last: Option<(Handle<Inst>, &Inst)>,
        labelled: &[Handle<Block>],
    ) {
        let b = bh.index();
        let (mut targets, falls, exits) = match last {
            Some((_, inst)) if matches!(inst.opcode, Opcode::Bra | Opcode::BrxIdx) => {
                let mut t: Vec<Handle<Block>> = inst.branch_targets().collect();
                if t.is_empty() && inst.opcode == Opcode::BrxIdx {
                    t = labelled.to_vec();
                }
                (t, inst.guard.is_some(), false)
            }
            Some((_, inst)) if matches!(inst.opcode, Opcode::Ret | Opcode::Exit) => {
                (Vec::new(), inst.guard.is_some(), true)
            }
            _ => (Vec::new(), true, false),
        };
        if falls {
            match next {
                Some(nx) => targets.push(nx),
                None => self.exits[b] = true,
            }
        }
        self.exits[b] |= exits;
        let mut seen = Vec::with_capacity(targets.len());
        for t in targets {
            if !seen.contains(&t) && t.index() < self.succs.len() {
                seen.push(t);
                self.preds[t.index()].push(bh);
            }
        }
        if seen.len() + usize::from(self.exits[b]) > 1 {
            self.branch[b] = last.map(|(ih, _)| ih);
        }
        self.succs[b] = seen;
    }

    fn compute_rpo(&mut self) {
        let n = self.succs.len();
        if n == 0 {
            return;
        }
        let mut post = Vec::with_capacity(n);
        let mut visited = vec![false; n];
        let mut stack: Vec<(usize, usize)> = vec![(0, 0)];
        visited[0] = true;
        while let Some(&mut (b, ref mut next)) = stack.last_mut() {
            if let Some(&s) = self.succs[b].get(*next) {
                *next += 1;
                if !visited[s.index()] {
                    visited[s.index()] = true;
                    stack.push((s.index(), 0));
                }
            } else {
                post.push(Handle::from_index(b as u32));
                stack.pop();
            }
        }
        post.reverse();
        for (i, b) in post.iter().enumerate() {
            self.rpo_index[b.index()] = i as u32;
        }
        self.rpo = post;
    }

    /// Number of blocks.
    pub fn len(&self) -> usize {
        self.succs.len()
    }

    /// True for a function without body.
    pub fn is_empty(&self) -> bool {
        self.succs.is_empty()
    }

    /// The entry block (the first in layout order).
    pub fn entry(&self) -> Option<Handle<Block>> {
        (!self.is_empty()).then(|| Handle::from_index(0))
    }

    /// Every block, in layout order.
    pub fn blocks(&self) -> impl DoubleEndedIterator<Item = Handle<Block>> + ExactSizeIterator {
        (0..self.len() as u32).map(Handle::from_index)
    }

    /// Successor blocks, without duplicates: branch targets in operand order, then the
    /// fall-through block.
    pub fn succs(&self, b: Handle<Block>) -> &[Handle<Block>] {
        self.succs.get(b.index()).map_or(&[], Vec::as_slice)
    }

    /// Predecessor blocks, in layout order of the edges' sources.
    pub fn preds(&self, b: Handle<Block>) -> &[Handle<Block>] {
        self.preds.get(b.index()).map_or(&[], Vec::as_slice)
    }

    /// True if `b` has an edge to the virtual exit (`ret`, `exit`, or falling off the end).
    pub fn exits(&self, b: Handle<Block>) -> bool {
        self.exits.get(b.index()).copied().unwrap_or(false)
    }

    /// Blocks with an edge to the virtual exit, in layout order.
    pub fn exit_blocks(&self) -> impl Iterator<Item = Handle<Block>> + '_ {
        self.blocks().filter(|&b| self.exits(b))
    }

    /// Blocks reachable from the entry, in reverse postorder (a block before its successors,
    /// back edges aside).
    pub fn reverse_postorder(&self) -> &[Handle<Block>] {
        &self.rpo
    }

    /// Position of `b` in [`Cfg::reverse_postorder`], `None` if unreachable.
    pub fn rpo_index(&self, b: Handle<Block>) -> Option<usize> {
        self.rpo_index.get(b.index()).filter(|&&i| i != UNREACHED).map(|&i| i as usize)
    }

    /// True if `b` is reachable from the entry.
    pub fn is_reachable(&self, b: Handle<Block>) -> bool {
        self.rpo_index(b).is_some()
    }

    /// The block holding `inst` and its index in that block.
    pub fn position(&self, inst: Handle<Inst>) -> Option<(Handle<Block>, usize)> {
        self.inst_pos.get(inst.index()).copied().flatten().map(|(b, i)| (b, i as usize))
    }

    /// The instruction ending `b` that chooses between two or more successors (a guarded `bra`,
    /// `brx.idx`, a guarded `ret`/`exit`): where threads of a warp may diverge.
    pub fn branch(&self, b: Handle<Block>) -> Option<Handle<Inst>> {
        self.branch.get(b.index()).copied().flatten()
    }

    /// Every `call`, in layout order.
    pub fn call_sites(&self) -> &[CallSite] {
        &self.calls
    }
}

fn call_target(inst: &Inst) -> Option<Callee> {
    if inst.opcode != Opcode::Call {
        return None;
    }
    // `call (rets), target, (args)`, `call target, (args)`, `call target`.
    let target = inst.operands.iter().find(|op| !matches!(op, Operand::List(_)))?;
    match target {
        Operand::Symbol { symbol: Symbol::Function(f), .. } => Some(Callee::Direct(*f)),
        Operand::Symbol { symbol: Symbol::External(e), .. } => Some(Callee::External(*e)),
        Operand::Reg(r) => Some(Callee::Indirect(*r)),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::test_util::kernel;

    #[test]
    fn diamond_and_loop_edges() {
        let m = kernel(
            ".reg .pred %p<2>; .reg .b32 %r<3>;
             mov.u32 %r1, %tid.x;
             setp.eq.s32 %p1, %r1, 0;
             @%p1 bra THEN;
             add.s32 %r2, %r1, 1;
             bra.uni JOIN;
             THEN: add.s32 %r2, %r1, 2;
             JOIN: setp.lt.s32 %p1, %r2, 10;
             @%p1 bra JOIN;
             ret;",
        );
        let f = &m.functions[Handle::from_index(0)];
        let cfg = Cfg::compute(f);
        let b = |i: u32| Handle::<Block>::from_index(i);
        assert_eq!(cfg.len(), 5);
        assert_eq!(cfg.succs(b(0)), [b(2), b(1)]);
        assert_eq!(cfg.succs(b(1)), [b(3)]);
        assert_eq!(cfg.succs(b(2)), [b(3)]);
        assert_eq!(cfg.succs(b(3)), [b(3), b(4)]);
        assert_eq!(cfg.preds(b(3)), [b(1), b(2), b(3)]);
        assert!(cfg.exits(b(4)) && !cfg.exits(b(3)));
        assert_eq!(cfg.reverse_postorder()[0], b(0));
        assert!(cfg.branch(b(0)).is_some() && cfg.branch(b(1)).is_none());
        assert_eq!(cfg.exit_blocks().collect::<Vec<_>>(), [b(4)]);
    }

    #[test]
    fn guarded_exit_and_unreachable() {
        let m = kernel(
            ".reg .pred %p<2>;
             setp.eq.u32 %p1, 1, 1;
             @%p1 exit;
             ret;
             DEAD: bra.uni DEAD;",
        );
        let cfg = Cfg::compute(&m.functions[Handle::from_index(0)]);
        let b = |i: u32| Handle::<Block>::from_index(i);
        assert_eq!(cfg.succs(b(0)), [b(1)]);
        assert!(cfg.exits(b(0)) && cfg.exits(b(1)));
        assert!(cfg.branch(b(0)).is_some());
        assert!(!cfg.is_reachable(b(2)));
        assert_eq!(cfg.succs(b(2)), [b(2)]);
    }

    #[test]
    fn indirect_branches() {
        let mut m = kernel(
            ".reg .b32 %r<2>;
             mov.u32 %r1, %tid.x;
             bra.uni A;
             A: add.s32 %r1, %r1, 1;
             B: ret;
             C: ret;",
        );
        let b = |i: u32| Handle::<Block>::from_index(i);
        let f = m.functions.get_mut(Handle::from_index(0));
        let body = f.and_then(|f| f.body.as_mut());
        assert!(body.is_some());
        let Some(body) = body else { return };
        let bra = body.blocks[b(0)].insts[1];
        let Some(inst) = body.insts.get_mut(bra) else { return };
        inst.opcode = Opcode::BrxIdx;
        inst.operands =
            vec![Operand::Reg(Handle::from_index(1)), Operand::List(vec![Operand::Label(b(2)), Operand::Label(b(3))])];
        let cfg = Cfg::compute(&m.functions[Handle::from_index(0)]);
        assert_eq!(cfg.succs(b(0)), [b(2), b(3)]);
        assert!(cfg.branch(b(0)).is_some());
        // Unknown targets: every labelled block.
        if let Some(inst) = m
            .functions
            .get_mut(Handle::from_index(0))
            .and_then(|f| f.body.as_mut())
            .and_then(|bd| bd.insts.get_mut(bra))
        {
            inst.operands.truncate(1);
        }
        let cfg = Cfg::compute(&m.functions[Handle::from_index(0)]);
        assert_eq!(cfg.succs(b(0)), [b(1), b(2), b(3)]);
    }
}
