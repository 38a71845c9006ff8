//! ptxas's stepped store pointers before Volta, as far as it matters for registers: a copy of a
//! function in which a single-block loop that stores through a 64-bit pointer and then steps
//! that pointer in place keeps the old pointer in a second register pair while the new one is
//! formed, as the machine code does. Only the register estimate reads the copy; the IR is not
//! changed.
//!
//! ```text
//! $L: st.global.s32 [%rd5], %r10;          // copied:
//!     add.u32 %r6, %r6, %r9;               // $L: mov.u64 %rd5$old, %rd5;
//!     add.u64 %rd5, %rd5, %rd6;            //     add.u64 %rd5, %rd5, %rd6;
//!     setp.lt.s32 %p2, %r6, %r7;           //     st.global.s32 [%rd5$old], %r10;
//!     @%p2 bra $L;                         //     add.u32 %r6, %r6, %r9; …
//! ```
//!
//! Why: in ptxas 12.6's sm_52 code of the corpus's thrust grid-stride loops
//! (`gpuocelot/thrust__bfs.ptx`: `__initialize`, `initialize` and `subtract_offset`) the pointer
//! is copied (`MOV R2, R4; MOV R3, R6`), the step is added to the original
//! (`IADD R4.CC, R4, R7` … `IADD.X R6, R6, R8`) and the store goes through the copy
//! (`STG.E [R2], R9`): both pairs are live at once, 10 registers where the PTX order needs 8.
//! The sm_80 code of the same loops stores through the pointer and steps it afterwards
//! (`STG.E [R2.64], R7` … `IMAD.WIDE.U32 R2, R5, 0x4, R2`), so the copy is a pre-Volta rule.
//!
//! The model (**A** beyond the loops read above): in a block that branches back to itself, an
//! unguarded `add` of a 64-bit integer type that writes the register it reads (`%a = %a + y`),
//! after a store whose address is `%a` (plus an offset) with neither `%a` nor `y` written in
//! between, is issued before that store, and every read of `%a` from the store up to the `add`
//! reads a copy taken just before it. Loads are left alone: a load reads its address when it
//! issues, so stepping the pointer after it needs no copy.

use alloc::format;
use alloc::vec::Vec;

use super::alloc_target::AllocTarget;
use super::ptxas_unroll::rename;
use super::rebuild::{rebuild, Slot};
use crate::ir::{Address, AddressBase, Block, Body, Function, Handle, Inst, Opcode, Operand, Reg, TypeList};

/// `kernel` with its stepped store pointers copied (module docs), or `None` when the target is
/// Volta or later or no loop has one.
pub fn copy_stepped_pointers(kernel: &Function, target: AllocTarget) -> Option<Function> {
    if !target.copies_stepped_pointers() {
        return None;
    }
    let body = kernel.body.as_ref()?;
    let mut grown = body.clone();
    let mut edits: Vec<(Handle<Block>, Vec<Slot>)> = Vec::new();
    for (b, block) in body.blocks.iter() {
        if let Some(slots) = copied_block(body, &mut grown, b, block) {
            edits.push((b, slots));
        }
    }
    if edits.is_empty() {
        return None;
    }
    let new_body = rebuild(&grown, |b, insts| match edits.iter_mut().find(|(l, _)| *l == b) {
        Some((_, slots)) => core::mem::take(slots),
        None => insts.iter().filter_map(|&h| grown.insts.get(h).map(|i| Slot { origin: h, inst: i.clone() })).collect(),
    });
    let mut out = kernel.clone();
    out.body = Some(new_body);
    Some(out)
}

/// The stepped pointer of a loop block: (the store's position, the `add`'s position, the
/// pointer).
fn stepped_pointer(body: &Body, b: Handle<Block>, block: &Block) -> Option<(usize, usize, Handle<Reg>)> {
    let insts: Vec<&Inst> = block.insts.iter().filter_map(|&h| body.insts.get(h)).collect();
    let branch = insts.last()?;
    if branch.opcode != Opcode::Bra || !branch.branch_targets().any(|t| t == b) {
        return None;
    }
    let writes = |i: &Inst, r: Handle<Reg>| {
        let mut hit = false;
        i.for_each_def(|d| hit |= d == r);
        hit
    };
    for (j, add) in insts.iter().enumerate() {
        let Some((a, step)) = in_place_step(add) else { continue };
        // The first store through `a` before the add with nothing in between writing `a` or
        // the step.
        let mut store = None;
        for (i, inst) in insts.iter().enumerate().take(j).rev() {
            if writes(inst, a) || step.is_some_and(|y| writes(inst, y)) {
                break;
            }
            if inst.opcode == Opcode::St && stores_through(inst, a) {
                store = Some(i);
            }
        }
        if let Some(i) = store {
            return Some((i, j, a));
        }
    }
    None
}

/// `%a = %a + y` in 64 bits, unguarded: `a` and the step register (`None`: an immediate).
fn in_place_step(inst: &Inst) -> Option<(Handle<Reg>, Option<Handle<Reg>>)> {
    if inst.opcode != Opcode::Add || inst.guard.is_some() || inst.mods != Default::default() {
        return None;
    }
    let ty = inst.ty()?;
    if ty.bits() != 64 || !ty.is_integer() {
        return None;
    }
    let [Operand::Reg(d), x, y] = inst.operands.as_slice() else { return None };
    // `add` commutes: the step is whichever source is not the pointer.
    let step = match (x.as_reg(), y.as_reg()) {
        (Some(r), _) if r == *d => y,
        (_, Some(r)) if r == *d => x,
        _ => return None,
    };
    match step {
        Operand::Reg(r) if r != d => Some((*d, Some(*r))),
        Operand::Imm(_) => Some((*d, None)),
        _ => None,
    }
}

/// Whether `inst` addresses memory through register `a`.
fn stores_through(inst: &Inst, a: Handle<Reg>) -> bool {
    inst.operands.iter().any(|o| matches!(o, Operand::Address(Address { base: AddressBase::Reg(r), .. }) if *r == a))
}

/// The slots of `block` with its stepped pointer copied, or `None` if it has none.
fn copied_block(body: &Body, grown: &mut Body, b: Handle<Block>, block: &Block) -> Option<Vec<Slot>> {
    let (store, add, a) = stepped_pointer(body, b, block)?;
    let reg = body.regs.get(a)?;
    let old = grown.regs.alloc(Reg { name: format!("{}$old", reg.name), ty: reg.ty, class: reg.class });
    let &add_h = block.insts.get(add)?;
    let step = body.insts.get(add_h)?.clone();
    let mut copy = Inst::new(Opcode::Mov, alloc::vec![Operand::Reg(old), Operand::Reg(a)]);
    copy.types = TypeList::one(step.ty()?);
    // From the store up to the step, reads of the pointer read the copy.
    let mut reads: Vec<Handle<Reg>> = grown.regs.handles().collect();
    if let Some(r) = reads.get_mut(a.index()) {
        *r = old;
    }
    let mut slots = Vec::with_capacity(block.insts.len() + 1);
    for (i, &h) in block.insts.iter().enumerate() {
        let Some(inst) = body.insts.get(h) else { continue };
        if i == add {
            continue;
        }
        if i == store {
            slots.push(Slot { origin: add_h, inst: copy.clone() });
            slots.push(Slot { origin: add_h, inst: step.clone() });
        }
        let mut inst = inst.clone();
        if (store..add).contains(&i) {
            let defs = inst.def_count();
            for (n, op) in inst.operands.iter_mut().enumerate() {
                rename(op, &reads, n < defs);
            }
        }
        slots.push(Slot { origin: h, inst });
    }
    Some(slots)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::test_util::kernel;
    use alloc::string::{String, ToString};

    /// The thrust `__initialize` loop (module docs), with `extra` before its back branch.
    fn grid_stride(extra: &str) -> String {
        alloc::format!(
            ".reg .pred %p<4>; .reg .b32 %r<12>; .reg .b64 %rd<8>;
             ld.param.u64 %rd2, [k_p0];
             mov.u32 %r9, %nctaid.x;
             mov.u32 %r6, %tid.x;
             mov.u32 %r7, 4096;
             mov.u32 %r10, 7;
             mul.wide.s32 %rd4, %r6, 4;
             add.u64 %rd5, %rd2, %rd4;
             mul.wide.u32 %rd6, %r9, 4;
             LOOP:
             st.global.s32 [%rd5+0], %r10;
             add.u32 %r6, %r6, %r9;
             add.u64 %rd5, %rd5, %rd6;
             {extra}
             setp.lt.s32 %p2, %r6, %r7;
             @%p2 bra LOOP;
             ret;"
        )
    }

    fn copied(src: &str, sm: u32) -> Option<String> {
        let m = kernel(src);
        let f = m.functions.values().next()?;
        let out = copy_stepped_pointers(f, AllocTarget::sm(sm))?;
        let mut module = m.clone();
        if let Some(slot) = module.functions.get_mut(Handle::from_index(0)) {
            *slot = out;
        }
        Some(module.to_string())
    }

    #[test]
    fn the_store_goes_through_a_copy_taken_before_the_step() {
        let text = copied(&grid_stride(""), 52).unwrap_or_default();
        let at = |needle: &str| text.find(needle).unwrap_or(usize::MAX);
        let (copy, step, store) =
            (at("mov.u64 %rd5$old, %rd5;"), at("add.u64 %rd5, %rd5, %rd6;"), at("st.global.s32 [%rd5$old"));
        assert!(copy < step && step < store && store < usize::MAX, "{text}");
    }

    #[test]
    fn reads_after_the_step_see_the_stepped_pointer() {
        let text = copied(&grid_stride("st.global.s32 [%rd5+4], %r10;"), 52).unwrap_or_default();
        assert!(text.contains("st.global.s32 [%rd5$old], %r10;"), "{text}");
        assert!(text.contains("st.global.s32 [%rd5+4], %r10;"), "{text}");
    }

    #[test]
    fn volta_and_later_keep_the_ptx_order() {
        assert!(copied(&grid_stride(""), 70).is_none());
        assert!(copied(&grid_stride(""), 80).is_none());
    }

    #[test]
    fn a_load_through_the_pointer_needs_no_copy() {
        let src = grid_stride("").replace("st.global.s32 [%rd5+0], %r10;", "ld.global.s32 %r10, [%rd5+0];");
        assert!(copied(&src, 52).is_none());
    }

    #[test]
    fn a_step_written_between_store_and_add_stops_it() {
        let src =
            grid_stride("").replace("add.u32 %r6, %r6, %r9;", "add.u32 %r6, %r6, %r9;\nmul.wide.u32 %rd6, %r6, 4;");
        assert!(copied(&src, 52).is_none());
    }
}
