//! Values that ptxas keeps in *uniform registers* (UR0–UR62, Turing and later), which
//! `ptxas -v` does not count among the registers a kernel uses.
//!
//! ```text
//! mov.u32 %r1, %ctaid.x;          // S2UR UR4, SR_CTAID.X          — uniform register
//! ld.param.u64 %rd1, [p + 8];     // ULDC.64 UR6, c[0x0][0x168]    — uniform register
//! mul.wide.u32 %rd2, %r1, 24;     // UIMAD.WIDE.U32 UR4, UR4, 0x18 — uniform register
//! add.s64 %rd3, %rd1, %rd2;       // UIADD3 …                      — uniform register
//! ld.global.f32 %f1, [%rd3];      // the address must sit in R2:R3 on sm_80: MOV R2, UR4 …
//! ```
//!
//! A web qualifies when every definition is uniform (see `uniformity`), is an integer or bitwise
//! operation the uniform datapath has (moves, add, sub, integer multiply, shifts, logic, integer
//! conversions, selects, parameter loads, address-space conversions), and reads only qualifying
//! or rematerialised webs. `cvta.local` of the local depot is one: the generic stack address is
//! the stack pointer plus the local window's base, `ULDC.64 UR4, c[0x0][0x20]` and
//! `[R1.U32+UR4]` in ptxas 12.6's sm_75 code, `R2UR UR13, R1; UIADD3 UR6, UP0, UR13,
//! c[0x0][0x20]` in its sm_80 code of the corpus's Kokkos `evaluate_coefficients` kernels.
//! Such a web then behaves like a rematerialised one: it takes a regular register only where an
//! instruction must read a regular register (an address on sm_80+, data stored), copied from its
//! uniform register just before. Observed with ptxas 12.6 and nvdisasm on sm_80 corpus kernels.
//! On sm_75 memory instructions read a uniform address from the uniform register itself
//! (`LDG.E.SYS R0, [UR4]`; see `AllocTarget::uniform_addresses` and
//! `alloc_values::takes_uniform_address`), so there an address is no per-thread consumer.
//!
//! Grid-index arithmetic is the exception: a 32-bit value read from a special register (`%ctaid`,
//! or a launch constant such as `%ntid`) or computed from one, that a per-thread instruction
//! consumes, stays in a regular register, and so does everything it is computed from:
//!
//! ```text
//! mov.u32 %r1, %ctaid.x;          // S2R R0, SR_CTAID.X            — not S2UR
//! mov.u32 %r2, %tid.x;            // S2R R3, SR_TID.X
//! mad.lo.s32 %r3, %r1, %ntid, %r2;// IMAD R0, R0, c[0x0][0x0], R3  — folded into the per-thread IMAD
//! ```
//!
//! In the corpus compiled for sm_80 with ptxas 12.6, 366 reads of `SR_CTAID` are `S2R` into a
//! regular register and 51 are `S2UR`, the latter where the value feeds only uniform arithmetic
//! (loop bounds, uniform addresses). Without this rule the estimate for those kernels on sm_80 was
//! low by 2–4 registers (median 0.83 of ptxas; `docs/fidelity/registers.md`).

use alloc::vec;
use alloc::vec::Vec;

use super::alloc_values::{takes_uniform_address, Values};
use super::def_use::DefUse;
use super::uniformity::Uniformity;
use crate::ir::{Body, Inst, Opcode, Operand, StateSpace, WidthClass};

/// For each web of `values`: whether it lives in a uniform register.
pub(crate) fn uniform_webs(body: &Body, du: &DefUse, values: &Values, uniformity: &Uniformity) -> Vec<bool> {
    let mut ok: Vec<bool> =
        (0..values.len()).map(|w| values.class[w] != WidthClass::Pred && !values.remat[w]).collect();
    for (d, def) in du.defs().iter().enumerate() {
        let w = values.web_of_def[d] as usize;
        let fits = uniformity.is_uniform_def(d as u32) && body.insts.get(def.inst).is_some_and(datapath_op);
        ok[w] &= fits;
    }
    let from_sreg = from_special_register(body, du, values);
    let mut changed = true;
    while changed {
        changed = false;
        for (d, def) in du.defs().iter().enumerate() {
            let w = values.web_of_def[d] as usize;
            for &u in du.uses_at(def.inst) {
                let Some(src) = values.web_of_use(du, u).map(|s| s as usize) else { continue };
                let src_ok = ok[src] || values.remat[src] || values.class[src] == WidthClass::Pred;
                if ok[w] && !src_ok {
                    ok[w] = false;
                    changed = true;
                }
                // S2R rather than S2UR: a 32-bit value read from a special register (or computed
                // from one) that a per-thread instruction consumes is kept in a regular register.
                let per_thread_consumer = !ok[w] && values.class[w] != WidthClass::Pred;
                let as_address = values.uniform_addresses
                    && body.insts.get(def.inst).is_some_and(|i| takes_uniform_address(i, du.uses()[u as usize].reg));
                if ok[src]
                    && from_sreg[src]
                    && values.class[src] == WidthClass::B32
                    && per_thread_consumer
                    && !as_address
                {
                    ok[src] = false;
                    changed = true;
                }
            }
        }
    }
    ok
}

/// For each web: whether it is a special-register read (`%ctaid`, `%smid`, …; launch constants
/// such as `%ntid` are rematerialised, not webs of this kind) or computed from one.
fn from_special_register(body: &Body, du: &DefUse, values: &Values) -> Vec<bool> {
    let mut from = vec![false; values.len()];
    for (d, def) in du.defs().iter().enumerate() {
        let read = body.insts.get(def.inst).is_some_and(|i| matches!(i.uses(), [Operand::Special(_)]));
        from[values.web_of_def[d] as usize] |= read;
    }
    let mut changed = true;
    while changed {
        changed = false;
        for (d, def) in du.defs().iter().enumerate() {
            let w = values.web_of_def[d] as usize;
            let tainted =
                du.uses_at(def.inst).iter().any(|&u| values.web_of_use(du, u).is_some_and(|s| from[s as usize]));
            if tainted && !from[w] {
                from[w] = true;
                changed = true;
            }
        }
    }
    from
}

/// Whether the uniform datapath has an instruction for `inst` (integer and bitwise only).
fn datapath_op(inst: &Inst) -> bool {
    use Opcode::*;
    let integer = inst.types.iter().all(|t| !t.is_float());
    let ok_op = match inst.opcode {
        Mov | Add | Sub | Shl | Shr | And | Or | Xor | Not | Selp | Cvt | Cvta => true,
        Mul | Mad => inst.mods.mul_mode != Some(crate::ir::MulMode::Hi),
        Ld => inst.mods.space.is_some_and(StateSpace::is_param) && inst.mods.vec.is_none(),
        _ => false,
    };
    let no_vector = !inst.operands.iter().any(|op| matches!(op, Operand::Vector(_)));
    ok_op && integer && no_vector && inst.guard.is_none()
}
