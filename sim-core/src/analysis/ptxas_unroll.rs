//! ptxas's loop unrolling, as far as it matters for registers: a copy of a function in which
//! each small single-block loop holds [`UNROLL`] iterations per trip, so that the latency
//! schedule ([`super::latency_schedule`]) can overlap one iteration's loads with the next one's,
//! as the machine code does. Only the register estimate reads the copy; the IR is not changed.
//!
//! ```text
//! $L: ld.global.f32 %f1, [%rd1];     // unrolled (two of four copies shown):
//!     add.f32 %f2, %f2, %f1;         // $L: ld.global.f32 %f1$u0, [%rd1];
//!     add.s64 %rd1, %rd1, 4;         //     add.f32 %f2$u0, %f2, %f1$u0;
//!     setp.ne.s64 %p1, %rd1, %rd2;   //     add.s64 %rd1$u0, %rd1, 4;
//!     @%p1 bra $L;                   //     setp.ne.s64 %p1$u0, %rd1$u0, %rd2;
//!                                    //     ld.global.f32 %f1, [%rd1$u0]; … @%p1 bra $L;
//! ```
//!
//! Why: ptxas unrolls loops itself (PTX has `.pragma "nounroll"` to stop it). Measured with
//! ptxas 12.6 on sm_52, sm_70, sm_75 and sm_80 (`-v` and the size of the code), on a loop that
//! sums `a[i]` with `i` stepped by 256 up to a parameter: 12 registers and eight copies of the
//! load on sm_52, 8 registers and one load with `nounroll`; the same loop is left rolled when
//! `i` is stepped by a register, when it stores to global memory and when it holds a
//! `bar.sync`, and unrolled when it stores to shared memory or loads from it. Its sm_80 code, read
//! with nvdisasm 13.5 (which no longer reads sm_52): a main loop of four iterations with the four
//! loads issued first (four 64-bit addresses and four values live), a peeled first iteration, and
//! remainders of two and of one iteration.
//!
//! The model (**A** where not measured as above): a loop is unrolled when it is one block that
//! branches back to itself, its exit test compares a counter stepped by a constant with a
//! loop-invariant bound, it has at most [`MAX_BODY`] instructions, no call, no guarded
//! instruction but the back branch, no write to memory other than shared, no barrier or fence,
//! and no `nounroll` pragma; it is unrolled [`UNROLL`] times (the main loop above; the peeled
//! iteration and the remainders hold fewer values at once), the exit tests of the first copies
//! dropped (the trip count taken as a multiple of the factor; the remainder loop holds fewer
//! values at once). Loops with a known trip count are not unrolled further (no full unrolling),
//! and loops of several blocks are left rolled.

use alloc::format;
use alloc::vec::Vec;

use super::latency_schedule;
use super::rebuild::{rebuild, Slot};
use crate::ir::{Address, AddressBase, Block, Body, Function, Handle, Inst, Opcode, Operand, Reg};

/// Iterations per trip of an unrolled loop (ptxas 12.6's main loop on sm_80, module docs).
pub const UNROLL: usize = 4;

/// The largest loop body unrolled, in PTX instructions (**A**).
pub const MAX_BODY: usize = 64;

/// An instruction of an unrolled loop and the instruction it copies.
type Copied = (Handle<Inst>, Inst);

/// `kernel` with its small single-block loops unrolled, or `None` if it has none.
pub fn unroll(kernel: &Function) -> Option<Function> {
    let body = kernel.body.as_ref()?;
    if kernel.perf.pragmas.iter().any(|p| p.contains("nounroll")) {
        return None;
    }
    let loops: Vec<Handle<Block>> =
        body.blocks.iter().filter(|&(b, block)| unrollable(body, b, block)).map(|(b, _)| b).collect();
    if loops.is_empty() {
        return None;
    }
    let mut grown = body.clone();
    let mut copies: Vec<(Handle<Block>, Vec<Copied>)> = Vec::new();
    for &b in &loops {
        if let Some(block) = body.blocks.get(b) {
            copies.push((b, unrolled_block(body, &mut grown, block)));
        }
    }
    let new_body = rebuild(&grown, |b, insts| match copies.iter().find(|(l, _)| *l == b) {
        Some((_, slots)) => slots.iter().map(|(origin, inst)| Slot { origin: *origin, inst: inst.clone() }).collect(),
        None => insts.iter().filter_map(|&h| grown.insts.get(h).map(|i| Slot { origin: h, inst: i.clone() })).collect(),
    });
    let mut out = kernel.clone();
    out.body = Some(new_body);
    Some(out)
}

/// Whether block `b` is a loop this model unrolls.
fn unrollable(body: &Body, b: Handle<Block>, block: &Block) -> bool {
    let Some((&last, rest)) = block.insts.split_last() else { return false };
    let Some(branch) = body.insts.get(last) else { return false };
    let back = branch.opcode == Opcode::Bra && branch.guard.is_some() && branch.branch_targets().any(|t| t == b);
    let small = block.insts.len() <= MAX_BODY;
    let plain = rest.iter().all(|&h| {
        body.insts.get(h).is_some_and(|i| {
            i.guard.is_none()
                && !i.reads_dest()
                && !i.opcode.is_terminator()
                && !matches!(i.opcode, Opcode::Call)
                && !latency_schedule::blocks_unrolling(i)
                && !i.operands.iter().any(|o| matches!(o, Operand::Scheme(_)))
        })
    });
    let pragma = body.pragmas.iter().any(|p| p.block == b && p.text.contains("nounroll"));
    back && small && plain && !pragma && counted(body, block, branch)
}

/// Whether the loop's exit test compares a counter stepped by a constant with a loop-invariant
/// bound (ptxas 12.6 leaves loops whose step is a register rolled: measured on sm_52 … sm_80).
fn counted(body: &Body, block: &Block, branch: &Inst) -> bool {
    let Some(guard) = branch.guard else { return false };
    let insts: Vec<&Inst> = block.insts.iter().filter_map(|&h| body.insts.get(h)).collect();
    let defined_in_loop = |r: Handle<Reg>| insts.iter().any(|i| i.defs().iter().any(|d| d.as_reg() == Some(r)));
    let Some(test) = insts.iter().rev().find(|i| i.defs().iter().any(|d| d.as_reg() == Some(guard.reg))) else {
        return false;
    };
    if test.opcode != Opcode::Setp {
        return false;
    }
    let step_by_constant = |r: Handle<Reg>| {
        let defs: Vec<&&Inst> = insts.iter().filter(|i| i.defs().iter().any(|d| d.as_reg() == Some(r))).collect();
        defs.len() == 1
            && defs.iter().all(|i| {
                matches!(i.opcode, Opcode::Add | Opcode::Sub)
                    && i.uses().iter().any(|o| matches!(o, Operand::Imm(_)))
                    && i.uses().iter().any(|o| o.as_reg() == Some(r))
            })
    };
    let invariant = |o: &Operand| match o {
        Operand::Reg(r) => !defined_in_loop(*r),
        Operand::Imm(_) => true,
        _ => false,
    };
    match test.uses() {
        [a, c, ..] => match (a.as_reg(), c.as_reg()) {
            (Some(x), _) if step_by_constant(x) && invariant(c) => true,
            (_, Some(y)) if step_by_constant(y) && invariant(a) => true,
            _ => false,
        },
        _ => false,
    }
}

/// The instructions of the unrolled `block`, each with the instruction it copies (the last copy
/// keeps the original registers and the back branch); fresh registers are added to `grown`.
fn unrolled_block(body: &Body, grown: &mut Body, block: &Block) -> Vec<Copied> {
    let mut current: Vec<Handle<Reg>> = grown.regs.handles().collect();
    let mut out = Vec::with_capacity(UNROLL * block.insts.len());
    for k in 0..UNROLL {
        let last = k + 1 == UNROLL;
        for (i, &h) in block.insts.iter().enumerate() {
            let Some(inst) = body.insts.get(h) else { continue };
            let is_branch = i + 1 == block.insts.len();
            if is_branch && !last {
                continue;
            }
            let mut new = inst.clone();
            let defs = new.def_count();
            for (n, op) in new.operands.iter_mut().enumerate() {
                rename(op, &current, n < defs);
            }
            if let Some(g) = new.guard.as_mut() {
                g.reg = current.get(g.reg.index()).copied().unwrap_or(g.reg);
            }
            // Each definition of a copy but the last writes a fresh register.
            let mut written = Vec::new();
            inst.for_each_def(|r| written.push(r));
            for r in written {
                let target = if last {
                    r
                } else {
                    let Some(reg) = body.regs.get(r) else { continue };
                    let fresh = Reg { name: format!("{}$u{k}", reg.name), ty: reg.ty, class: reg.class };
                    grown.regs.alloc(fresh)
                };
                for op in new.operands.iter_mut().take(defs) {
                    rename_def(op, r, target);
                }
                if let Some(c) = current.get_mut(r.index()) {
                    *c = target;
                }
            }
            out.push((h, new));
        }
    }
    out
}

/// Renames the registers `op` reads to their current names (in a destination operand, only
/// address bases and texture handles are reads).
pub(super) fn rename(op: &mut Operand, current: &[Handle<Reg>], dest: bool) {
    let map = |r: &mut Handle<Reg>| *r = current.get(r.index()).copied().unwrap_or(*r);
    match op {
        Operand::Reg(r) | Operand::NotReg(r) if !dest => map(r),
        Operand::Address(Address { base: AddressBase::Reg(r), .. }) => map(r),
        Operand::Vector(items) | Operand::List(items) => items.iter_mut().for_each(|o| rename(o, current, dest)),
        Operand::Pair(pair) => pair.iter_mut().for_each(|o| rename(o, current, dest)),
        Operand::Tex(t) => {
            rename(&mut t.texture, current, false);
            if let Some(s) = t.sampler.as_mut() {
                rename(s, current, false);
            }
            rename(&mut t.coords, current, false);
        }
        _ => {}
    }
}

/// Renames the written register `from` in destination operand `op` to `to`.
fn rename_def(op: &mut Operand, from: Handle<Reg>, to: Handle<Reg>) {
    match op {
        Operand::Reg(r) if *r == from => *r = to,
        Operand::Vector(items) => items.iter_mut().for_each(|o| rename_def(o, from, to)),
        Operand::Pair(pair) => pair.iter_mut().for_each(|o| rename_def(o, from, to)),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::test_util::kernel;
    use alloc::string::{String, ToString};

    /// The loop measured with ptxas 12.6 (module docs), its body after the label given by `body`
    /// and its step by `step`.
    fn summing_loop(body: &str, step: &str) -> String {
        alloc::format!(
            ".shared .align 4 .f32 sh[64];
             .reg .pred %p<3>; .reg .f32 %f<4>; .reg .b32 %r<4>; .reg .b64 %rd<8>;
             ld.param.u64 %rd1, [k_p0];
             cvta.to.global.u64 %rd3, %rd1;
             mov.u32 %r1, 4096;
             mov.u32 %r3, %nctaid.x;
             mov.u32 %r2, %tid.x;
             mov.f32 %f1, 0f00000000;
             LOOP:
             {body}
             mul.wide.u32 %rd4, %r2, 4;
             add.s64 %rd5, %rd3, %rd4;
             ld.global.f32 %f2, [%rd5];
             add.f32 %f1, %f1, %f2;
             add.s32 %r2, %r2, {step};
             setp.lt.u32 %p2, %r2, %r1;
             @%p2 bra LOOP;
             st.global.f32 [%rd3], %f1;
             ret;"
        )
    }

    fn loop_lengths(src: &str) -> Option<(usize, String)> {
        let m = kernel(src);
        let f = m.functions.values().next()?;
        let unrolled = unroll(f)?;
        let body = unrolled.body.as_ref()?;
        let longest = body.blocks.values().map(|b| b.insts.len()).max()?;
        let mut text = String::new();
        let mut module = m.clone();
        if let Some(slot) = module.functions.get_mut(Handle::from_index(0)) {
            *slot = unrolled;
        }
        text.push_str(&module.to_string());
        Some((longest, text))
    }

    #[test]
    fn a_counted_loop_holds_four_iterations() {
        // Body: mul.wide, add, ld, add.f32, add.s32, setp, bra = 7; four copies without the
        // first three branches: 4 × 6 + 1 = 25.
        let (len, text) = loop_lengths(&summing_loop("", "256")).unwrap_or_default();
        assert_eq!(len, 25, "{text}");
        // The copies chain: the second load's address comes from the counter the first copy
        // stepped, and the last copy writes the original registers.
        assert!(text.contains("add.s32 %r2$u0, %r2, 256;"), "{text}");
        assert!(text.contains("mul.wide.u32 %rd4$u1, %r2$u0, 4;"), "{text}");
        assert!(text.contains("add.s32 %r2, %r2$u2, 256;"), "{text}");
        assert!(text.contains("add.f32 %f1, %f1$u2, %f2;"), "{text}");
    }

    #[test]
    fn loops_ptxas_leaves_rolled_are_not_unrolled() {
        // Measured (module docs): a register step, a global store, a barrier; and the pragma.
        for (body, step) in [
            ("", "%r3"),
            ("st.global.f32 [%rd3+4], %f1;", "256"),
            ("bar.sync 0;", "256"),
            (".pragma \"nounroll\";", "256"),
        ] {
            assert!(loop_lengths(&summing_loop(body, step)).is_none(), "{body} {step}");
        }
    }

    #[test]
    fn a_loop_storing_to_shared_memory_is_unrolled() {
        let (len, _) = loop_lengths(&summing_loop("st.shared.f32 [sh], %f1;", "256")).unwrap_or_default();
        assert_eq!(len, 4 * 7 + 1);
    }
}
