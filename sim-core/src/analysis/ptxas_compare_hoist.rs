//! ptxas's early compares, as far as they matter for registers: a copy of a function in which a
//! `setp` that a later block makes of a value computed earlier is made where the value is
//! computed, so the value dies there and only the predicate crosses the code in between. Only
//! the register estimate reads the copy; the IR is not changed.
//!
//! ```text
//! mov.u32 %r1, %tid.x;                     // copied:
//! …                                        // mov.u32 %r1, %tid.x;
//! @%p1 bra $Lt_0;   // a loop that never   // setp.ne.u32 %p3, %r1, 0;   ← %r1 dies here
//! …                 // reads %r1           // …
//! $Lt_0: bar.sync 0;                       // $Lt_0: bar.sync 0;
//! mov.u32 %r9, 0;                          // mov.u32 %r9, 0;
//! setp.ne.u32 %p3, %r1, %r9;               // @%p3 bra $Lt_1;
//! @%p3 bra $Lt_1;
//! ```
//!
//! Why: in ptxas 12.6's sm_52 and sm_80 code of the SDK's `reduce6` and `reduceMultiPass`
//! (`gpuocelot/sdk2.2__reduction_kernel.ptx`, `sdk2.2__threadFenceReduction_kernel.ptx`) the
//! `tid == 0` test after the grid-stride loop is made right after `S2R R2, SR_TID.X`
//! (`ISETP.NE.U32.AND P0, PT, R2, RZ, PT` at the kernel's start, `@P0 EXIT` after the loop):
//! `%tid.x` is not held across the loop, 12 registers on sm_52 where the PTX order needs 13.
//!
//! The model (**A** beyond the kernels read above): an unguarded two-source `setp` whose
//! predicate has no other definition moves to just after the last definition of its register
//! sources when that definition's block runs exactly as often as the `setp`'s (it dominates the
//! `setp`'s block, which post-dominates it, in the same loop) and at least one source is read
//! nowhere else after that block. Each source must have one definition in the function; a source
//! set by `mov` of an immediate is read as that immediate.
//!
//! Measured against ptxas 12.6 over the corpus (each file's own target): the rule brings 7
//! kernels within ±15% (the `reduce6` and `reduceMultiPass` variants with one or two elements
//! per thread; 277 of 358 instead of 270), moves none out and raises no estimate. Dropping the
//! post-dominance condition changes nothing; also letting the compare leave its loop (a
//! loop-invariant compare made before the loop) takes two Kokkos kernels on sm_80 from 56 to 54
//! registers, where ptxas has 64, out of ±15% (276), so the compare stays in its loop nest.

use alloc::vec::Vec;

use super::cfg::Cfg;
use super::def_use::{DefId, DefUse};
use super::dominators::{Dominators, PostDomNode, PostDominators};
use super::loops::Loops;
use super::rebuild::{rebuild, Slot};
use crate::ir::{Block, Body, Function, Handle, Inst, Opcode, Operand};

/// `kernel` with its compares made early (module docs), or `None` when none moves.
pub fn hoist_compares(kernel: &Function) -> Option<Function> {
    let body = kernel.body.as_ref()?;
    let cfg = Cfg::compute(kernel);
    let dom = Dominators::compute(&cfg);
    let post = PostDominators::compute(&cfg);
    let loops = Loops::compute(&cfg, &dom);
    let du = DefUse::compute(kernel, &cfg);
    let facts = Facts { body, cfg: &cfg, dom: &dom, post: &post, loops: &loops, du: &du };
    // (the compare, the block it moves to, the index it follows there, its new form)
    let mut moves: Vec<(Handle<Inst>, Handle<Block>, usize, Inst)> = Vec::new();
    for (_, block) in body.blocks.iter() {
        for &h in &block.insts {
            if let Some((to, after, inst)) = facts.early_place(h) {
                moves.push((h, to, after, inst));
            }
        }
    }
    if moves.is_empty() {
        return None;
    }
    let new_body = rebuild(body, |b, insts| {
        let mut slots = Vec::with_capacity(insts.len() + moves.len());
        let place = |after: Option<usize>, slots: &mut Vec<Slot>| {
            for (origin, _, _, inst) in moves.iter().filter(|m| m.1 == b && Some(m.2) == after) {
                slots.push(Slot { origin: *origin, inst: inst.clone() });
            }
        };
        for (i, &h) in insts.iter().enumerate() {
            if !moves.iter().any(|m| m.0 == h) {
                if let Some(inst) = body.insts.get(h) {
                    slots.push(Slot { origin: h, inst: inst.clone() });
                }
            }
            place(Some(i), &mut slots);
        }
        slots
    });
    let mut out = kernel.clone();
    out.body = Some(new_body);
    Some(out)
}

/// What the rule reads of the function.
struct Facts<'a> {
    body: &'a Body,
    cfg: &'a Cfg,
    dom: &'a Dominators,
    post: &'a PostDominators,
    loops: &'a Loops,
    du: &'a DefUse,
}

impl Facts<'_> {
    /// Where compare `h` moves: the block, the index of the instruction it follows there and
    /// its form with immediate sources substituted; `None` if it stays.
    fn early_place(&self, h: Handle<Inst>) -> Option<(Handle<Block>, usize, Inst)> {
        let inst = self.body.insts.get(h)?;
        if inst.opcode != Opcode::Setp || inst.guard.is_some() || inst.operands.len() != 3 {
            return None;
        }
        let (home, _) = self.cfg.position(h)?;
        let Operand::Reg(p) = inst.operands[0] else { return None };
        if self.du.reg_def_range(p).len() != 1 {
            return None;
        }
        let mut moved = inst.clone();
        // The latest definition among the register sources: (block, index).
        let mut latest: Option<(Handle<Block>, usize)> = None;
        let mut sources = Vec::new();
        for k in 1..3 {
            let r = match &inst.operands[k] {
                Operand::Imm(_) => continue,
                Operand::Reg(r) => *r,
                _ => return None,
            };
            let range = self.du.reg_def_range(r);
            if range.len() != 1 {
                return None;
            }
            let d = self.du.defs().get(range.start)?;
            let def = self.body.insts.get(d.inst)?;
            if let Some(imm) = immediate_of(def) {
                moved.operands[k] = imm;
                continue;
            }
            let (db, di) = self.cfg.position(d.inst)?;
            sources.push((range.start as DefId, db));
            latest = match latest {
                None => Some((db, di)),
                Some((lb, li)) if lb == db => Some((db, li.max(di))),
                Some((lb, _)) if self.dom.dominates(lb, db) => Some((db, di)),
                Some((lb, li)) if self.dom.dominates(db, lb) => Some((lb, li)),
                Some(_) => return None,
            };
        }
        let (to, after) = latest?;
        let same_loop = self.loops.innermost(to) == self.loops.innermost(home);
        if to == home
            || !same_loop
            || !self.dom.dominates(to, home)
            || !self.post.post_dominates(PostDomNode::Block(home), PostDomNode::Block(to))
        {
            return None;
        }
        // Worth it only if a source then dies in `to`: read nowhere but there and by the compare.
        let dies = sources.iter().any(|&(d, db)| {
            db == to
                && self
                    .du
                    .uses_of(d)
                    .iter()
                    .filter_map(|&u| self.du.uses().get(u as usize))
                    .all(|u| u.inst == h || self.cfg.position(u.inst).is_some_and(|(ub, _)| ub == to))
        });
        dies.then_some((to, after, moved))
    }
}

/// The immediate a `mov` of one sets, as an operand.
fn immediate_of(def: &Inst) -> Option<Operand> {
    match def.operands.as_slice() {
        [_, imm @ Operand::Imm(_)] if def.opcode == Opcode::Mov && def.guard.is_none() => Some(imm.clone()),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::test_util::passed;
    use alloc::string::String;

    /// `reduce6`'s shape (module docs): `%r1` read before a loop and by a compare after it;
    /// `loop_extra` is placed in the loop, `after_extra` after the compare.
    fn reduce(loop_extra: &str, after_extra: &str) -> String {
        alloc::format!(
            ".reg .pred %p<4>; .reg .b32 %r<12>; .reg .f32 %f<4>; .reg .b64 %rd<8>;
             mov.u32 %r1, %tid.x;
             ld.param.u64 %rd2, [k_p0];
             mul.wide.u32 %rd4, %r1, 4;
             add.u64 %rd5, %rd2, %rd4;
             mov.u32 %r6, 0;
             mov.f32 %f1, 0f00000000;
             LOOP:
             ld.global.f32 %f2, [%rd5];
             add.f32 %f1, %f1, %f2;
             add.u64 %rd5, %rd5, 4;
             add.u32 %r6, %r6, 1;
             {loop_extra}
             setp.lt.u32 %p2, %r6, 64;
             @%p2 bra LOOP;
             bar.sync 0;
             mov.u32 %r9, 0;
             setp.ne.u32 %p3, %r1, %r9;
             {after_extra}
             @%p3 bra DONE;
             st.global.f32 [%rd2], %f1;
             DONE:
             ret;"
        )
    }

    fn hoisted(src: &str) -> Option<String> {
        passed(src, hoist_compares)
    }

    #[test]
    fn the_compare_is_made_where_its_source_is_defined_with_the_immediate_read_in() {
        let text = hoisted(&reduce("", "")).unwrap_or_default();
        let at = |needle: &str| text.find(needle).unwrap_or(usize::MAX);
        // Right after %r1's definition, as ptxas's `ISETP` follows its `S2R`.
        let (def, cmp, lp) = (at("mov.u32 %r1, %tid.x;"), at("setp.ne.u32 %p3, %r1, 0;"), at("LOOP:"));
        assert!(def < cmp && cmp < lp && lp < usize::MAX, "{text}");
        assert_eq!(text.matches("setp.ne.u32").count(), 1, "{text}");
    }

    #[test]
    fn a_source_read_in_between_keeps_the_compare_in_place() {
        assert!(hoisted(&reduce("add.u32 %r7, %r1, %r6;", "")).is_none());
        assert!(hoisted(&reduce("", "add.u32 %r7, %r1, 1;")).is_none());
    }

    #[test]
    fn a_compare_inside_a_loop_stays_there() {
        // The loop's own compare reads %r8, defined before the loop and read nowhere else: a
        // different loop nest, so it stays; the compare after the loop still moves.
        let src = reduce("", "")
            .replace("setp.lt.u32 %p2, %r6, 64;", "setp.lt.u32 %p2, %r8, %r6;")
            .replace("mov.u32 %r6, 0;", "mov.u32 %r6, 0;\nadd.u32 %r8, %r1, 64;");
        let text = hoisted(&src).unwrap_or_default();
        let at = |needle: &str| text.find(needle).unwrap_or(usize::MAX);
        assert!(at("LOOP:") < at("setp.lt.u32 %p2, %r8, %r6;"), "{text}");
        assert!(at("setp.ne.u32 %p3, %r1, 0;") < at("LOOP:"), "{text}");
    }

    #[test]
    fn a_guarded_compare_or_a_twice_set_predicate_stays() {
        assert!(hoisted(&reduce("", "").replace("setp.ne.u32 %p3", "@%p2 setp.ne.u32 %p3")).is_none());
        assert!(hoisted(&reduce("", "setp.eq.u32 %p3, %r6, 3;")).is_none());
    }
}
