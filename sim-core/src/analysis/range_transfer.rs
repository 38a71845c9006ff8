//! Interval arithmetic per opcode: the range of the value an instruction writes, given the ranges
//! of what it reads (the constraint of one e-SSA definition in Campos et al.'s terms).
//!
//! ```text
//! and.b32 %r2, %r1, 255;           // [0, 255] whatever %r1 is
//! shr.u32 %r3, %r1, 28;            // %r1 unsigned 32-bit → [0, 15]
//! mul.wide.u32 %rd1, %r4, 4;       // %r4 ∈ [0, 1023] → [0, 4092]
//! cvt.u16.u32 %rs1, %r5;           // truncation: %r5 if it fits in 16 bits, else [0, 65535]
//! ```
//!
//! Results are computed over the integers; the caller wraps them into the destination register's
//! window (PTX arithmetic wraps). Anything not modelled (floats, bit tricks such as `prmt`, `brev`,
//! `lop3`, atomics, textures) is the destination's full range.

use core::cmp::{max, min};

use super::interval::{ceil_log2, Interp, Interval};
use crate::ir::{AddressBase, Imm, Inst, MulMode, Opcode, Operand, Symbol, Type};

/// What a transfer function reads.
pub(crate) trait Reader {
    /// The values `op` may hold, read under `t` (registers: their range wrapped into `t`'s window;
    /// immediates: their bits at `t`; special registers: their seeds; addresses of shared
    /// variables: offsets in the shared window; anything else: full).
    fn operand(&self, op: &Operand, t: Interp) -> Interval;
    /// A user-given range of kernel parameter `index`.
    fn param(&self, index: u32) -> Option<Interval>;
}

/// The interpretation an instruction type gives its integer operands.
pub(crate) fn interp_of(t: Type) -> Interp {
    Interp::new(t.bits(), t.is_signed_int())
}

/// The value of an immediate read at `t`.
pub(crate) fn immediate(v: u64, t: Interp) -> Interval {
    let bits = t.bits;
    let raw = if bits >= 64 { i128::from(v) } else { i128::from(v & ((1u64 << bits) - 1)) };
    let value = if t.signed && raw > t.max() { raw - t.modulus() } else { raw };
    Interval::constant(value)
}

/// The range destination `def` of `inst` receives, before wrapping into `dest`.
pub(crate) fn transfer(inst: &Inst, def: u32, dest: Interp, r: &dyn Reader) -> Interval {
    let full = Interval::full(dest);
    let Some(t) = inst.ty() else { return full };
    match inst.opcode {
        Opcode::Mov => mov(inst, def, dest, r),
        Opcode::Cvt => cvt(inst, r).unwrap_or(full),
        Opcode::Ld | Opcode::Ldu => load(inst, t, r).unwrap_or(full),
        Opcode::Shfl if def == 0 => inst.operands.get(1).map_or(full, |op| r.operand(op, dest)),
        // Half results are 1.0, packed sources a 16-bit mask or 1.0 per half: no small range.
        Opcode::Set if is_half(t) || inst.types.last().is_some_and(|s| matches!(s, Type::F16x2 | Type::Bf16x2)) => full,
        Opcode::Set => Interval::new(-1, 0),
        op if op.is_video() => full,
        _ if t.is_integer() => arithmetic(inst, interp_of(t), r).unwrap_or(full),
        _ => full,
    }
}

fn is_half(t: Type) -> bool {
    matches!(t, Type::F16 | Type::F16x2 | Type::Bf16 | Type::Bf16x2)
}

fn src(inst: &Inst, i: usize) -> Option<&Operand> {
    inst.operands.get(inst.def_count() + i)
}

/// Reads source `i` under `t` (⊥-free: a missing operand is the full window).
fn read(inst: &Inst, i: usize, t: Interp, r: &dyn Reader) -> Interval {
    src(inst, i).map_or(Interval::full(t), |op| r.operand(op, t))
}

fn mov(inst: &Inst, def: u32, dest: Interp, r: &dyn Reader) -> Interval {
    let full = Interval::full(dest);
    match (inst.operands.first(), inst.operands.get(1)) {
        (Some(Operand::Vector(items)), Some(source)) if items.len() == 2 && dest.bits == 32 => {
            let v = r.operand(source, Interp::new(64, false));
            if def == 0 {
                v
            } else {
                Interval::new(v.lo >> 32, v.hi >> 32)
            }
        }
        (
            Some(Operand::Reg(_)),
            Some(op @ (Operand::Reg(_) | Operand::Imm(_) | Operand::Special(_) | Operand::Symbol { .. })),
        ) => {
            let t = inst.ty().map_or(dest, interp_of);
            r.operand(op, Interp::new(t.bits, dest.signed))
        }
        _ => full,
    }
}

fn cvt(inst: &Inst, r: &dyn Reader) -> Option<Interval> {
    let (to, from) = (inst.types.first()?, inst.types.get(1)?);
    if !to.is_integer() {
        return None;
    }
    let dst = interp_of(to);
    if !from.is_integer() {
        return Some(Interval::full(dst));
    }
    let v = read(inst, 0, interp_of(from), r);
    if inst.mods.sat {
        return Some(Interval::new(v.lo.clamp(dst.min(), dst.max()), v.hi.clamp(dst.min(), dst.max())));
    }
    Some(v.wrap(dst))
}

fn load(inst: &Inst, t: Type, r: &dyn Reader) -> Option<Interval> {
    if !t.is_integer() {
        return None;
    }
    let param = match inst.operands.get(1) {
        Some(Operand::Address(a))
            if a.offset == 0 && inst.mods.vec.is_none() && inst.mods.space.is_some_and(|s| s.is_param()) =>
        {
            match a.base {
                AddressBase::Symbol(Symbol::Param(i)) => r.param(i),
                _ => None,
            }
        }
        _ => None,
    };
    Some(param.unwrap_or_else(|| Interval::full(interp_of(t))))
}

/// Integer arithmetic and logic at the instruction's interpretation `t`.
fn arithmetic(inst: &Inst, t: Interp, r: &dyn Reader) -> Option<Interval> {
    use Opcode::*;
    let a = || read(inst, 0, t, r);
    let b = || read(inst, 1, t, r);
    let u = Interp::new(t.bits, false);
    let mode = inst.mods.mul_mode.unwrap_or(MulMode::Lo);
    let wide = Interp::new(2 * t.bits, t.signed);
    Some(match inst.opcode {
        Add if !inst.mods.cc && !inst.mods.sat => a() + b(),
        Sub if !inst.mods.cc && !inst.mods.sat => a() - b(),
        Mul => product(a(), b(), mode, t.bits),
        Mad if !inst.mods.cc && !inst.mods.sat => {
            let c = read(inst, 2, if mode == MulMode::Wide { wide } else { t }, r);
            product(a(), b(), mode, t.bits) + c
        }
        Mul24 | Mad24 if mode == MulMode::Lo => {
            let w24 = Interval::full(Interp::new(24, t.signed));
            let (x, y) = (a(), b());
            if !x.within(w24) || !y.within(w24) {
                return None;
            }
            let c = if inst.opcode == Mad24 { read(inst, 2, t, r) } else { Interval::constant(0) };
            x * y + c
        }
        Div => divide(a(), b())?,
        Rem => remainder(a(), b())?,
        Neg => -a(),
        Abs => absolute(a()),
        Not => Interval::new(-1, -1) - a(),
        Cnot => Interval::new(0, 1),
        Min => a().corners(b(), min),
        Max => a().corners(b(), max),
        And => {
            let (x, y) = (read(inst, 0, u, r), read(inst, 1, u, r));
            Interval::new(0, min(x.hi, y.hi))
        }
        Or | Xor => {
            let (x, y) = (read(inst, 0, u, r), read(inst, 1, u, r));
            let lo = if inst.opcode == Or { max(x.lo, y.lo) } else { 0 };
            Interval::new(lo, ones(max(x.hi, y.hi)))
        }
        Shl => shift_left(a(), shift_amount(inst, t, r)),
        Shr => shift_right(a(), shift_amount(inst, t, r), t),
        Popc | Clz => Interval::new(0, i128::from(t.bits)),
        Bfind => Interval::new(-1, i128::from(t.bits) - 1),
        Bfe => field(read(inst, 2, Interp::new(32, false), r), t),
        Selp | Slct => a().union(b()),
        _ => return None,
    })
}

fn product(a: Interval, b: Interval, mode: MulMode, bits: u32) -> Interval {
    let p = a * b;
    match mode {
        MulMode::Hi if !p.is_empty() => Interval::new(p.lo >> bits, p.hi >> bits),
        _ => p,
    }
}

/// `2^bitlen(x) - 1`: all ones up to `x`'s highest set bit (0 for x ≤ 0).
fn ones(x: i128) -> i128 {
    match ceil_log2(x.saturating_add(1)) {
        _ if x <= 0 => 0,
        b if b >= 126 => i128::MAX,
        b => (1i128 << b) - 1,
    }
}

fn divide(a: Interval, b: Interval) -> Option<Interval> {
    if b.is_empty() || a.is_empty() {
        return Some(Interval::EMPTY);
    }
    if b.contains(0) {
        return None;
    }
    Some(a.corners(b, |x, y| x.checked_div(y).unwrap_or(i128::MAX)))
}

fn remainder(a: Interval, b: Interval) -> Option<Interval> {
    if b.is_empty() || a.is_empty() {
        return Some(Interval::EMPTY);
    }
    if b.contains(0) {
        return None;
    }
    let m = max(b.lo.saturating_abs(), b.hi.saturating_abs()) - 1;
    let lo = if a.lo >= 0 { 0 } else { max(a.lo, -m) };
    let hi = if a.hi <= 0 { 0 } else { min(a.hi, m) };
    Some(Interval::new(lo, hi))
}

fn absolute(a: Interval) -> Interval {
    if a.is_empty() || a.lo >= 0 {
        a
    } else if a.hi <= 0 {
        -a
    } else {
        Interval::new(0, max(a.lo.saturating_neg(), a.hi))
    }
}

/// The shift amount, clamped to `[0, bits]` (PTX clamps larger shifts).
fn shift_amount(inst: &Inst, t: Interp, r: &dyn Reader) -> Interval {
    let s = read(inst, 1, Interp::new(32, false), r);
    let cap = i128::from(t.bits);
    if s.is_empty() {
        return s;
    }
    Interval::new(s.lo.clamp(0, cap), s.hi.clamp(0, cap))
}

fn shift_left(a: Interval, s: Interval) -> Interval {
    a.corners(s, |x, k| x.saturating_mul(1i128 << k.clamp(0, 64)))
}

fn shift_right(a: Interval, s: Interval, t: Interp) -> Interval {
    let cap = if t.signed { i128::from(t.bits) - 1 } else { i128::from(t.bits) };
    a.corners(s, |x, k| x >> k.clamp(0, cap).clamp(0, 127))
}

/// `bfe`: a field of `len` bits, zero- or sign-extended.
fn field(len: Interval, t: Interp) -> Interval {
    if len.is_empty() || len.hi > 255 {
        return Interval::full(t);
    }
    let l = min(len.hi, i128::from(t.bits)) as u32;
    match (l, t.signed) {
        (0, _) => Interval::constant(0),
        (l, false) => Interval::new(0, (1i128 << l) - 1),
        (l, true) => Interval::new(-(1i128 << (l - 1)), (1i128 << (l - 1)) - 1),
    }
}

/// Reads an immediate operand at `t` (for readers).
pub(crate) fn imm_operand(op: &Operand, t: Interp) -> Option<Interval> {
    match op {
        Operand::Imm(Imm::Int(v)) => Some(immediate(*v, t)),
        _ => None,
    }
}
