//! Rebuilding a function body from new per-block instruction lists: the common tail of the IR →
//! IR passes (DeMO rewrite, composite fusion). Removed instructions leave the arena, handles are
//! renumbered in layout order, and spans, `.loc`s and body pragmas follow their instructions.
//!
//! ```text
//! before: bb0 [i0 ld, i1 mul, i2 fma]      after: bb0 [i0 mul(with %c[..]), i1 fma]
//! ```

use alloc::vec::Vec;

use crate::ir::{Arena, Block, Body, Handle, Inst, SpanTable};

/// One instruction of a rebuilt block: its new form and the instruction it stems from (whose
/// span and `.loc` it keeps).
pub struct Slot {
    /// The original instruction.
    pub origin: Handle<Inst>,
    /// The instruction to place.
    pub inst: Inst,
}

/// A copy of `body` whose blocks hold, in order, the slots `edit` returns for each block (given
/// the block and its original instructions).
pub fn rebuild(body: &Body, mut edit: impl FnMut(Handle<Block>, &[Handle<Inst>]) -> Vec<Slot>) -> Body {
    let mut insts = Arena::new();
    let mut spans = SpanTable::default();
    let mut locs = Vec::new();
    let mut blocks = Arena::new();
    let mut pragmas = body.pragmas.clone();
    for (bh, block) in body.blocks.iter() {
        let slots = edit(bh, &block.insts);
        let old_pos = |h: Handle<Inst>| block.insts.iter().position(|&x| x == h).unwrap_or(usize::MAX);
        for p in pragmas.iter_mut().filter(|p| p.block == bh) {
            let before = slots.iter().filter(|s| old_pos(s.origin) < p.index as usize).count();
            p.index = u32::try_from(before).unwrap_or(u32::MAX);
        }
        let mut list = Vec::with_capacity(slots.len());
        for slot in slots {
            let h = insts.alloc(slot.inst);
            spans.insert(h, body.inst_spans.get(slot.origin));
            locs.push(body.loc(slot.origin));
            list.push(h);
        }
        blocks.alloc(Block { label: block.label.clone(), insts: list });
    }
    // Every other part of the body (registers, variables, prototypes, …) is kept as it is.
    Body { blocks, insts, inst_spans: spans, locs, pragmas, ..body.clone() }
}
