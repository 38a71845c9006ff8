//! Integer arithmetic: `add`, `sub`, `mul` (`.lo`/`.hi`/`.wide`), `mad`, `mul24`, `mad24`, `sad`,
//! `div`, `rem`, `abs`, `neg`, `min`, `max`, logic and shifts, with `.sat`; and the carry chains
//! (`add.cc`, `addc`, `sub.cc`, `subc`, `mad.cc`, `madc`).
//!
//! ```text
//! mul.wide.s32 %rd1, %r1, %r2;    // 64-bit product of sign-extended operands
//! add.cc.u32 %r1, %r2, %r3;       // carry-out into the lane's CC.CF
//! addc.u32 %r4, %r5, %r6;         // %r5 + %r6 + CC.CF
//! ```
//!
//! Values are computed in 64 bits and brought back to the type with [`Ext`]: sign-extended for
//! signed types, zero-extended otherwise (the register write then masks to the register width).
//! Division by zero is defined: unsigned gives all ones, signed gives -1, `rem` gives the dividend.

use super::super::program::{CarryOp, Dst, IntOp, IntTy, Src};
use super::super::warp::{Env, Lanes, Warp, ZERO};

/// Extension of 64-bit intermediate values to an integer type.
#[derive(Clone, Copy, Debug)]
pub struct Ext {
    sh: u32,
    signed: bool,
    bits: u32,
}

impl Ext {
    /// The extension for `ty`.
    pub fn new(ty: IntTy) -> Ext {
        let bits = ty.bits.clamp(1, 64);
        Ext { sh: 64 - bits, signed: ty.signed, bits }
    }

    /// True for signed types.
    pub fn signed(self) -> bool {
        self.signed
    }

    /// `v` extended from the type's width by its signedness.
    #[inline]
    pub fn ext(self, v: u64) -> u64 {
        if self.signed {
            (((v << self.sh) as i64) >> self.sh) as u64
        } else {
            (v << self.sh) >> self.sh
        }
    }

    /// `v` sign-extended from the type's width.
    #[inline]
    pub fn sx(self, v: u64) -> i64 {
        ((v << self.sh) as i64) >> self.sh
    }

    /// `v` zero-extended from the type's width.
    #[inline]
    pub fn zx(self, v: u64) -> u64 {
        (v << self.sh) >> self.sh
    }

    /// The value as an `i128` by the type's signedness.
    #[inline]
    fn wide(self, v: u64) -> i128 {
        if self.signed {
            i128::from(self.sx(v))
        } else {
            i128::from(self.zx(v))
        }
    }

    fn clamp(self, v: i128) -> u64 {
        let (lo, hi) = if self.signed {
            (-(1i128 << (self.bits - 1)), (1i128 << (self.bits - 1)) - 1)
        } else {
            (0, (1i128 << self.bits) - 1)
        };
        self.ext(v.clamp(lo, hi) as u64)
    }
}

fn map2(out: &mut Lanes, a: &Lanes, b: &Lanes, f: impl Fn(u64, u64) -> u64) {
    for ((o, &x), &y) in out.iter_mut().zip(a).zip(b) {
        *o = f(x, y);
    }
}

fn map3(out: &mut Lanes, a: &Lanes, b: &Lanes, c: &Lanes, f: impl Fn(u64, u64, u64) -> u64) {
    for (((o, &x), &y), &z) in out.iter_mut().zip(a).zip(b).zip(c) {
        *o = f(x, y, z);
    }
}

/// The high half of the double-width product.
fn mul_hi(k: Ext, x: u64, y: u64) -> u64 {
    let p = k.wide(x) * k.wide(y);
    k.ext((p >> k.bits) as u64)
}

/// The double-width product, extended from twice the width.
fn mul_wide(k: Ext, x: u64, y: u64) -> u64 {
    let p = (k.wide(x) * k.wide(y)) as u64;
    Ext::new(IntTy { bits: k.bits * 2, signed: k.signed }).ext(p)
}

/// 24-bit multiply: the low or high 32 bits of the 48-bit product.
fn mul24(k: Ext, x: u64, y: u64, hi: bool) -> u64 {
    let e24 = Ext::new(IntTy { bits: 24, signed: k.signed });
    let p = e24.wide(x) * e24.wide(y);
    k.ext(if hi { (p >> 16) as u64 } else { p as u64 })
}

fn div(k: Ext, x: u64, y: u64) -> u64 {
    if k.signed {
        let (a, b) = (k.sx(x), k.sx(y));
        k.ext(if b == 0 { u64::MAX } else { a.wrapping_div(b) as u64 })
    } else {
        let (a, b) = (k.zx(x), k.zx(y));
        k.ext(a.checked_div(b).unwrap_or(u64::MAX))
    }
}

fn rem(k: Ext, x: u64, y: u64) -> u64 {
    if k.signed {
        let (a, b) = (k.sx(x), k.sx(y));
        k.ext(if b == 0 { a as u64 } else { a.wrapping_rem(b) as u64 })
    } else {
        let (a, b) = (k.zx(x), k.zx(y));
        k.ext(a.checked_rem(b).unwrap_or(a))
    }
}

fn shift_right(k: Ext, x: u64, amount: u64) -> u64 {
    let n = amount & 0xFFFF_FFFF;
    if k.signed {
        k.ext((k.sx(x) >> n.min(63)) as u64)
    } else if n >= u64::from(k.bits) {
        0
    } else {
        k.zx(x) >> n
    }
}

fn shift_left(k: Ext, x: u64, amount: u64) -> u64 {
    let n = amount & 0xFFFF_FFFF;
    if n >= u64::from(k.bits) {
        0
    } else {
        k.ext(x << n)
    }
}

fn min_max(k: Ext, x: u64, y: u64, max: bool) -> u64 {
    let pick_x = if k.signed { (k.sx(x) > k.sx(y)) == max } else { (k.zx(x) > k.zx(y)) == max };
    k.ext(if pick_x { x } else { y })
}

/// The lanes of `mask` whose divisor in `b` is zero (in the type's width).
fn zero_divisors(k: Ext, b: &Lanes, mask: u32) -> u32 {
    let mut zero = 0;
    for (lane, &y) in b.iter().enumerate().take(32) {
        if mask & (1 << lane) != 0 && k.zx(y) == 0 {
            zero |= 1 << lane;
        }
    }
    zero
}

/// Executes a two- or three-operand integer instruction; returns the lanes of `mask` that
/// divided by zero (`div` and `rem` only; [`super::super::notice`] reports them).
#[allow(clippy::too_many_arguments, reason = "the operands of one PTX instruction")]
pub fn exec(
    w: &mut Warp,
    env: &Env,
    op: IntOp,
    ty: IntTy,
    sat: bool,
    d: Dst,
    a: Src,
    b: Src,
    c: Src,
    mask: u32,
) -> u32 {
    let mut t = [ZERO; 3];
    let [ta, tb, tc] = &mut t;
    let k = Ext::new(ty);
    let mut out = ZERO;
    let mut zero = 0;
    {
        let av = w.read(a, env, ta);
        let bv = w.read(b, env, tb);
        if matches!(op, IntOp::Div | IntOp::Rem) {
            zero = zero_divisors(k, bv, mask);
        }
        match op {
            IntOp::Add if sat => map2(&mut out, av, bv, |x, y| k.clamp(k.wide(x) + k.wide(y))),
            IntOp::Sub if sat => map2(&mut out, av, bv, |x, y| k.clamp(k.wide(x) - k.wide(y))),
            IntOp::Add => map2(&mut out, av, bv, |x, y| k.ext(x.wrapping_add(y))),
            IntOp::Sub => map2(&mut out, av, bv, |x, y| k.ext(x.wrapping_sub(y))),
            IntOp::MulLo => map2(&mut out, av, bv, |x, y| k.ext(x.wrapping_mul(y))),
            IntOp::MulHi => map2(&mut out, av, bv, |x, y| mul_hi(k, x, y)),
            IntOp::MulWide => map2(&mut out, av, bv, |x, y| mul_wide(k, x, y)),
            IntOp::Mul24Lo => map2(&mut out, av, bv, |x, y| mul24(k, x, y, false)),
            IntOp::Mul24Hi => map2(&mut out, av, bv, |x, y| mul24(k, x, y, true)),
            IntOp::Div => map2(&mut out, av, bv, |x, y| div(k, x, y)),
            IntOp::Rem => map2(&mut out, av, bv, |x, y| rem(k, x, y)),
            IntOp::Abs => map2(&mut out, av, bv, |x, _| k.ext(k.sx(x).wrapping_abs() as u64)),
            IntOp::Neg => map2(&mut out, av, bv, |x, _| k.ext(x.wrapping_neg())),
            IntOp::Min => map2(&mut out, av, bv, |x, y| min_max(k, x, y, false)),
            IntOp::Max => map2(&mut out, av, bv, |x, y| min_max(k, x, y, true)),
            IntOp::And => map2(&mut out, av, bv, |x, y| k.ext(x & y)),
            IntOp::Or => map2(&mut out, av, bv, |x, y| k.ext(x | y)),
            IntOp::Xor => map2(&mut out, av, bv, |x, y| k.ext(x ^ y)),
            IntOp::Not => map2(&mut out, av, bv, |x, _| k.ext(!x)),
            IntOp::Cnot => map2(&mut out, av, bv, |x, _| u64::from(k.zx(x) == 0)),
            IntOp::Shl => map2(&mut out, av, bv, |x, y| shift_left(k, x, y)),
            IntOp::Shr => map2(&mut out, av, bv, |x, y| shift_right(k, x, y)),
            IntOp::Mov => map2(&mut out, av, bv, |x, _| k.ext(x)),
            IntOp::MadLo | IntOp::MadHi | IntOp::MadWide | IntOp::Mad24Lo | IntOp::Mad24Hi | IntOp::Sad => {
                let cv = w.read(c, env, tc);
                exec_mad(&mut out, k, op, sat, av, bv, cv);
            }
            _ => super::bits::exec_unary(&mut out, k, op, av, bv, w.read(c, env, tc)),
        }
    }
    w.write(d, &out, mask);
    zero
}

fn exec_mad(out: &mut Lanes, k: Ext, op: IntOp, sat: bool, av: &Lanes, bv: &Lanes, cv: &Lanes) {
    let k32 = Ext::new(IntTy { bits: 32, signed: true });
    match op {
        IntOp::MadLo => map3(out, av, bv, cv, |x, y, z| k.ext(x.wrapping_mul(y).wrapping_add(z))),
        IntOp::MadHi if sat => {
            map3(out, av, bv, cv, |x, y, z| k32.clamp(i128::from(k.sx(mul_hi(k, x, y))) + i128::from(k.sx(z))))
        }
        IntOp::MadHi => map3(out, av, bv, cv, |x, y, z| k.ext(mul_hi(k, x, y).wrapping_add(z))),
        IntOp::MadWide => {
            let kw = Ext::new(IntTy { bits: k.bits * 2, signed: k.signed });
            map3(out, av, bv, cv, |x, y, z| kw.ext(mul_wide(k, x, y).wrapping_add(z)));
        }
        IntOp::Mad24Lo => map3(out, av, bv, cv, |x, y, z| k.ext(mul24(k, x, y, false).wrapping_add(z))),
        IntOp::Mad24Hi if sat => {
            map3(out, av, bv, cv, |x, y, z| k32.clamp(i128::from(k.sx(mul24(k, x, y, true))) + i128::from(k.sx(z))))
        }
        IntOp::Mad24Hi => map3(out, av, bv, cv, |x, y, z| k.ext(mul24(k, x, y, true).wrapping_add(z))),
        _ => map3(out, av, bv, cv, |x, y, z| {
            let diff = if k.signed { k.sx(x).abs_diff(k.sx(y)) } else { k.zx(x).abs_diff(k.zx(y)) };
            k.ext(diff.wrapping_add(z))
        }),
    }
}

/// Executes a carry-chain instruction: reads CC.CF if `cin`, writes it if `cout`.
#[allow(clippy::too_many_arguments, reason = "the operands of one PTX instruction")]
pub fn exec_carry(
    w: &mut Warp,
    env: &Env,
    op: CarryOp,
    ty: IntTy,
    (cin, cout): (bool, bool),
    d: Dst,
    (a, b, c): (Src, Src, Src),
    mask: u32,
) {
    let k = Ext::new(IntTy { bits: ty.bits, signed: false });
    let top = 1u128 << ty.bits;
    let mut out = ZERO;
    let mut flags = 0u32;
    for (lane, slot) in out.iter_mut().enumerate() {
        if (mask >> lane) & 1 == 0 {
            continue;
        }
        let x = u128::from(k.zx(w.read_lane(a, lane, env)));
        let y = u128::from(k.zx(w.read_lane(b, lane, env)));
        let z = u128::from(k.zx(w.read_lane(c, lane, env)));
        let cf = if cin { u128::from((w.cc >> lane) & 1) } else { 0 };
        let (res, carry) = match op {
            CarryOp::Add => {
                let s = x + y + cf;
                (s, s >= top)
            }
            CarryOp::Sub => {
                let sub = y + cf;
                (x.wrapping_sub(sub) & (top - 1), sub > x)
            }
            CarryOp::MadLo | CarryOp::MadHi => {
                let p = if ty.signed {
                    let e = Ext::new(ty);
                    (i128::from(e.sx(x as u64)) * i128::from(e.sx(y as u64))) as u128
                } else {
                    x * y
                };
                let part = if op == CarryOp::MadHi { (p >> ty.bits) & (top - 1) } else { p & (top - 1) };
                let s = part + z + cf;
                (s, s >= top)
            }
        };
        *slot = k.ext(res as u64);
        flags |= u32::from(carry) << lane;
    }
    w.write(d, &out, mask);
    if cout {
        w.cc = (w.cc & !mask) | (flags & mask);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn extension_and_products() {
        let s32 = Ext::new(IntTy { bits: 32, signed: true });
        let u32t = Ext::new(IntTy { bits: 32, signed: false });
        assert_eq!(s32.ext(0xFFFF_FFFF), u64::MAX);
        assert_eq!(u32t.ext(0x1_0000_0001), 1);
        assert_eq!(mul_wide(s32, 0xFFFF_FFFF, 2), (-2i64) as u64);
        assert_eq!(mul_hi(u32t, 0xFFFF_FFFF, 2), 1);
        assert_eq!(mul_hi(s32, 0xFFFF_FFFF, 2), u64::MAX);
        assert_eq!(div(s32, (-7i64) as u64, 2), (-3i64) as u64);
        assert_eq!(div(u32t, 7, 0), 0xFFFF_FFFF);
        assert_eq!(shift_right(s32, 0x8000_0000, 40), u64::MAX);
        assert_eq!(shift_left(u32t, 1, 32), 0);
        assert_eq!(s32.clamp(1i128 << 40), 0x7FFF_FFFF);
        assert_eq!(mul24(u32t, 0xFF_FFFF, 0xFF_FFFF, true), 0xFFFF_FE00);
    }
}
