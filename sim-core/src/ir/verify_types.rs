//! Type legality of the verifier: which instruction types, modifiers and operations PTX allows
//! together, as ptxas enforces it (version-dependent requirements such as the rounding mode old
//! PTX could leave out are not enforced).
//!
//! ```text
//! and.s32 %r1, %r2, %r3;        // error: 'and' takes .b16/.b32/.b64 or .pred, not .s32
//! mul.s32 %r1, %r2, %r3;        // error: integer 'mul' needs .lo, .hi or .wide
//! setp.lo.s32 %p1, %r1, %r2;    // error: '.lo' compares unsigned values, not .s32
//! cvt.rn.s32.s64 %r1, %rd1;     // error: integer-to-integer 'cvt' takes no rounding mode
//! ```

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use super::inst::Inst;
use super::modifiers::{AtomOp, BarMode, CacheOp, CmpOp, MemSem, Modifiers, Precision, ReduceOp, Rounding, Scope};
use super::opcode::Opcode;
use super::types::{StateSpace, Type};

/// Problems with the types and modifiers of `inst` (empty if legal).
pub fn type_problems(inst: &Inst) -> Vec<String> {
    let mut out = Vec::new();
    let name = inst.opcode.name();
    let Some(t) = inst.ty() else {
        barrier_rules(inst, &mut out);
        return out;
    };
    let m = &inst.mods;
    let allowed = |ok: bool, out: &mut Vec<String>, what: &str| {
        if !ok {
            out.push(format!("'{name}' takes {what}, not {t}"));
        }
    };
    use Opcode::*;
    match inst.opcode {
        Add | Sub | Min | Max => allowed(arith(t), &mut out, "an integer or floating-point type"),
        Mul | Mad | Mul24 | Mad24 | Div | Fma | Sad | Rem => {}
        Abs | Neg => allowed(arith(t) && !t.is_unsigned_int(), &mut out, "a signed integer or float type"),
        And | Or | Xor | Not => allowed(t.is_bits() || t == Type::Pred, &mut out, ".b16/.b32/.b64 or .pred"),
        Cnot | Shl | Popc | Clz | Brev | Bfi => allowed(bits_16_64(t), &mut out, "a .b type"),
        Shr => allowed(int_16_64(t) || bits_16_64(t), &mut out, "an integer or .b type"),
        Bfind | Bfe => {
            allowed(matches!(t, Type::U32 | Type::U64 | Type::S32 | Type::S64), &mut out, ".u32/.u64/.s32/.s64")
        }
        Fns | Lop3 | Prmt | Shf | Shfl => allowed(t == Type::B32, &mut out, ".b32"),
        Testp | Copysign => allowed(matches!(t, Type::F32 | Type::F64), &mut out, ".f32 or .f64"),
        Selp | Setp => allowed(t != Type::Pred, &mut out, "a non-predicate type"),
        Vadd | Vsub | Vabsdiff | Vmin | Vmax | Vshl | Vshr | Vmad | Vset => video_rules(inst, &mut out),
        _ => {}
    }
    int_or_float_rules(inst, t, &mut out);
    match inst.opcode {
        Setp | Set => compare_rules(m, inst.types.last().unwrap_or(t), &mut out),
        Cvt => cvt_rules(inst, &mut out),
        Atom | Red => atomic_rules(inst, t, &mut out),
        Ld | Ldu | St => memory_rules(inst, &mut out),
        Bar | Barrier => barrier_rules(inst, &mut out),
        _ => {}
    }
    out
}

/// Video instructions: every type `.u32` or `.s32`; the shift amount of `vshl`/`vshr` `.u32`.
fn video_rules(inst: &Inst, out: &mut Vec<String>) {
    let name = inst.opcode.name();
    if inst.types.iter().any(|t| !matches!(t, Type::U32 | Type::S32)) {
        out.push(format!("'{name}' takes .u32 or .s32 types"));
    }
    let shift = matches!(inst.opcode, Opcode::Vshl | Opcode::Vshr);
    if shift && inst.types.get(2) != Some(Type::U32) {
        out.push(format!("the shift amount of '{name}' is .u32"));
    }
    let six = matches!(inst.mods.cmp, Some(CmpOp::Eq | CmpOp::Ne | CmpOp::Lt | CmpOp::Le | CmpOp::Gt | CmpOp::Ge));
    if inst.opcode == Opcode::Vset && !six {
        out.push(format!("'{name}' compares with .eq, .ne, .lt, .le, .gt or .ge"));
    }
}

fn arith(t: Type) -> bool {
    int_16_64(t) || matches!(t, Type::F16 | Type::F16x2 | Type::Bf16 | Type::Bf16x2 | Type::F32 | Type::F64)
}

fn int_16_64(t: Type) -> bool {
    (t.is_signed_int() || t.is_unsigned_int()) && t.bits() >= 16
}

fn bits_16_64(t: Type) -> bool {
    matches!(t, Type::B16 | Type::B32 | Type::B64)
}

/// Rounding, `.ftz`, `.sat`, `.cc` and multiply modes against integer or float arithmetic.
fn int_or_float_rules(inst: &Inst, t: Type, out: &mut Vec<String>) {
    use Opcode::*;
    if !matches!(inst.opcode, Add | Sub | Mul | Mad | Div | Rem | Min | Max | Abs | Neg | Fma) {
        return;
    }
    let m = &inst.mods;
    let name = inst.opcode.name();
    if int_16_64(t) || t.is_bits() {
        let float_only = [
            (m.rounding.is_some(), "a rounding mode"),
            (m.ftz, "'.ftz'"),
            (m.precision.is_some(), "'.approx'/'.full'"),
            (m.sat && !(t == Type::S32 && matches!(inst.opcode, Add | Sub | Mad)), "'.sat'"),
        ];
        for (present, what) in float_only {
            if present {
                out.push(format!("integer '{name}' ({t}) takes no {what}"));
            }
        }
        if matches!(inst.opcode, Mul | Mad) && m.mul_mode.is_none() {
            out.push(format!("integer '{name}' needs .lo, .hi or .wide"));
        }
        if m.mul_mode == Some(super::MulMode::Wide) && t.bits() > 32 {
            out.push(format!("'{name}.wide' takes 16- or 32-bit integers, not {t}"));
        }
    } else if t.is_float() {
        if m.mul_mode.is_some() || m.cc {
            out.push(format!("floating-point '{name}' takes no .lo/.hi/.wide/.cc"));
        }
        if inst.opcode == Rem {
            out.push(format!("'rem' takes integers, not {t}"));
        }
        if m.precision == Some(Precision::Approx) && inst.opcode == Div && t == Type::F64 {
            out.push("'div.approx' takes .f32 only".into());
        }
    }
}

/// Unsigned-only and unordered comparisons, `.ftz` on floats.
fn compare_rules(m: &Modifiers, t: Type, out: &mut Vec<String>) {
    use CmpOp::*;
    let Some(cmp) = m.cmp else { return };
    if matches!(cmp, Lo | Ls | Hi | Hs) && !(t.is_unsigned_int() || t.is_bits()) {
        out.push(format!("'{cmp}' compares unsigned values, not {t}"));
    }
    if matches!(cmp, Equ | Neu | Ltu | Leu | Gtu | Geu | Num | Nan) && !t.is_float() {
        out.push(format!("'{cmp}' is a floating-point comparison, not for {t}"));
    }
    if m.ftz && !t.is_float() {
        out.push(format!("'.ftz' applies to floating-point comparisons, not {t}"));
    }
}

/// Which rounding family a conversion takes.
fn cvt_rules(inst: &Inst, out: &mut Vec<String>) {
    let (Some(d), Some(a)) = (inst.types.first(), inst.types.get(1)) else { return };
    let Some(r) = inst.mods.rounding else { return };
    let int_rounding = matches!(r, Rounding::Rni | Rounding::Rzi | Rounding::Rmi | Rounding::Rpi);
    let ok = match (d.is_float(), a.is_float()) {
        (false, false) => false,
        (true, false) => !int_rounding,
        (false, true) => int_rounding,
        (true, true) => !int_rounding || d == a || d.bits() >= a.bits(),
    };
    if !ok {
        out.push(format!("'cvt{d}{a}' takes no '{r}' rounding"));
    }
}

/// Operation and type pairs of `atom`/`red`.
fn atomic_rules(inst: &Inst, t: Type, out: &mut Vec<String>) {
    use AtomOp::*;
    let Some(op) = inst.mods.atom_op else { return };
    let ok = match op {
        And | Or | Xor => matches!(t, Type::B32 | Type::B64),
        Cas => matches!(t, Type::B16 | Type::B32 | Type::B64 | Type::B128) && inst.opcode == Opcode::Atom,
        Exch => matches!(t, Type::B32 | Type::B64 | Type::B128) && inst.opcode == Opcode::Atom,
        Inc | Dec => t == Type::U32,
        Add => {
            matches!(t, Type::U32 | Type::S32 | Type::U64 | Type::F32 | Type::F64 | Type::F16x2 | Type::Bf16x2)
                || (matches!(t, Type::F16 | Type::Bf16) && inst.mods.noftz)
        }
        Min | Max => {
            matches!(
                t,
                Type::U32 | Type::S32 | Type::U64 | Type::S64 | Type::F16 | Type::F16x2 | Type::Bf16 | Type::Bf16x2
            )
        }
    };
    if !ok {
        out.push(format!("'{}{op}' does not take {t}", inst.opcode.name()));
    }
    if matches!(inst.mods.space, Some(StateSpace::Local | StateSpace::Const | StateSpace::Param)) {
        out.push(format!("'{}' works on global or shared memory", inst.opcode.name()));
    }
}

/// Cache operators per direction, `.nc` on global loads, scopes with memory semantics.
fn memory_rules(inst: &Inst, out: &mut Vec<String>) {
    use CacheOp::*;
    let m = &inst.mods;
    let name = inst.opcode.name();
    let load = inst.opcode != Opcode::St;
    if let Some(c) = m.cache {
        let ok = if load { matches!(c, Ca | Cg | Cs | Lu | Cv) } else { matches!(c, Wb | Cg | Cs | Wt) };
        if !ok {
            out.push(format!("'{c}' is not a cache operator of '{name}'"));
        }
    }
    if m.nc && m.space != Some(StateSpace::Global) {
        out.push("'.nc' loads from .global only".into());
    }
    if m.l1_eviction.is_some() && m.l2_eviction.is_some() {
        out.push(format!("'{name}' takes one eviction priority"));
    }
    match m.sem {
        Some(MemSem::Relaxed | MemSem::Acquire | MemSem::Release) if m.scope.is_none() => {
            out.push(format!("'{name}' with '{}' needs a scope such as .gpu", m.sem.map_or("", MemSem::as_str)));
        }
        Some(MemSem::Volatile | MemSem::Weak) if m.scope.is_some() => {
            out.push(format!("'{name}' takes a scope only with .relaxed, .acquire or .release"));
        }
        Some(MemSem::Acquire) if !load => out.push("'st' cannot be .acquire".into()),
        Some(MemSem::Release) if load => out.push(format!("'{name}' cannot be .release")),
        Some(MemSem::AcqRel | MemSem::Sc) => {
            out.push(format!("'{name}' takes no '{}'", m.sem.map_or("", MemSem::as_str)))
        }
        _ => {}
    }
    if m.scope == Some(Scope::Cluster) && m.sem.is_none() {
        out.push(format!("'{name}' takes a scope only with memory semantics"));
    }
}

/// Operand counts and reduction types of `bar`/`barrier`; `membar`/`fence` scopes.
fn barrier_rules(inst: &Inst, out: &mut Vec<String>) {
    let m = &inst.mods;
    let n = inst.operands.len();
    match (inst.opcode, m.bar_mode) {
        (Opcode::Bar | Opcode::Barrier, Some(BarMode::Sync | BarMode::Arrive)) if !(1..=2).contains(&n) => {
            out.push(format!("'{}' takes a barrier and an optional thread count", inst.opcode.name()));
        }
        (Opcode::Bar | Opcode::Barrier, Some(BarMode::Red)) => {
            if !(3..=4).contains(&n) {
                out.push(format!(
                    "'{}.red' takes a destination, a barrier, an optional count and a predicate",
                    inst.opcode.name()
                ));
            }
            let want = if m.reduce == Some(ReduceOp::Popc) { Type::U32 } else { Type::Pred };
            if inst.ty() != Some(want) {
                out.push(format!("'{}.red' with this reduction produces {want}", inst.opcode.name()));
            }
        }
        (Opcode::Membar, _) if m.scope == Some(Scope::Cluster) => out.push("'membar' has no .cluster level".into()),
        (Opcode::Fence, _) if m.sem == Some(MemSem::Relaxed) => out.push("'fence' cannot be .relaxed".into()),
        _ => {}
    }
}
