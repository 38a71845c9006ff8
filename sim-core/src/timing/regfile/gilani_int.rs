//! Which static instructions write integer values, for the share of integer register values that
//! fit 16 bits (Gilani et al. Fig. 1, "RF16 writes" of INT benchmarks; SCHEMES.md §5). The
//! functional run's value summaries do not say what a value is, so the family asks the kernel:
//! per `sid`, whether its written register units hold integers.
//!
//! The rule (an assumption, stated in the family's model notes):
//!
//! - the instruction's type (its first type: the destination's, `cvt.f32.s32` → `.f32`) is an
//!   integer type (`.s`/`.u` 4 to 64 bits): integer; a float type (`.f16`…`.f64`, packed and
//!   tensor formats): not integer;
//! - a bit type (`.b8`…`.b128`) or none: the type of the value moved, as far as the kernel
//!   declares it — not integer when any register the instruction writes or reads is declared
//!   float (`mov.b32 %f1, %r1`, `mov.b32 %r1, %f1`, `ld.b32 %f1, [..]`), integer otherwise
//!   (`.b32` registers of nvcc's `%r`, masks, packed bytes).
//!
//! Predicates are never counted (they have no summaries). A 64-bit integer register counts as its
//! two 32-bit units, as the summaries do.
//!
//! ```text
//! mov.u32  %r1, %tid.x;        // .u32            → integer
//! cvt.rn.f32.u32 %f1, %r1;     // .f32 (dest)     → not integer
//! mov.b32  %r2, %f1;           // .b32, reads %f1 → not integer (float bits)
//! and.b32  %r3, %r2, 255;      // .b32, all .b32  → integer
//! ```

use alloc::vec;
use alloc::vec::Vec;

use crate::ir::{Arena, Inst, Module, Reg};
use crate::timing::program::Program;

/// Whether `inst` (of a body with registers `regs`) writes integer values (see the module docs).
pub fn writes_integer(inst: &Inst, regs: &Arena<Reg>) -> bool {
    match inst.ty() {
        Some(t) if t.is_signed_int() || t.is_unsigned_int() => true,
        Some(t) if t.is_float() => false,
        _ => {
            let float = |r| regs.get(r).is_some_and(|reg: &Reg| reg.ty.is_float());
            let mut any_float = false;
            inst.for_each_def(|r| any_float |= float(r));
            inst.for_each_use(|r| any_float |= float(r));
            !any_float
        }
    }
}

/// Per static id of `program` (decoded from `module`): whether the instruction writes integer
/// values. Ids the module does not name (none in a consistent pair) read as integer.
pub fn integer_results(module: &Module, program: &Program) -> Vec<bool> {
    let mut out = vec![true; program.insts.len()];
    for (fh, func) in module.functions.iter() {
        let Some(body) = &func.body else { continue };
        for (ih, inst) in body.insts.iter() {
            let Some(slot) = program.sid(fh, ih).and_then(|sid| out.get_mut(sid as usize)) else { continue };
            *slot = writes_integer(inst, &body.regs);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gpu::presets;

    const PTX: &str = r#"
.version 7.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 out)
{
    .reg .b32 %r<6>;
    .reg .f32 %f<3>;
    .reg .pred %p<2>;
    mov.u32 %r1, %tid.x;
    cvt.rn.f32.u32 %f1, %r1;
    add.f32 %f2, %f1, %f1;
    mov.b32 %r2, %f2;
    and.b32 %r3, %r1, 255;
    setp.lt.s32 %p1, %r1, 4;
    selp.b32 %r4, %r1, %r3, %p1;
    ret;
}
"#;

    #[test]
    fn integer_writes_follow_the_type_and_declared_registers() {
        // An empty table (the kernel did not compile) fails the comparison below.
        let ints = match (crate::ptx::compile(PTX), presets::by_name("gt200-fx5800")) {
            (Ok(module), Some(gpu)) => integer_results(&module, &Program::decode(&module, &gpu)),
            _ => Vec::new(),
        };
        // mov.u32 int · cvt.f32 float · add.f32 float · mov.b32 reads %f2: float ·
        // and.b32 all .b32: int · setp (.s32: int, writes only a predicate) · selp.b32 int · ret.
        assert_eq!(ints, [true, false, false, false, true, true, true, true]);
    }
}
