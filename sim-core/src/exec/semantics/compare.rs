//! Comparison and selection: `setp`, `set`, `selp`, `slct`, `testp`, and logic on predicates.
//!
//! ```text
//! setp.nan.f32 %p1, %f1, %f2;          // true if either is NaN
//! setp.lt.and.s32 %p1|%p2, %r1, 0, %p0; // %p1 = (r1 < 0) & %p0, %p2 = !(r1 < 0) & %p0
//! selp.b32 %r1, %r2, %r3, %p1;
//! ```

use super::super::program::{CmpTy, Dst, FTy, IntOp, IntTy, Src};
use super::super::warp::{Env, Lanes, Warp, ZERO};
use super::int::Ext;
use super::round::{self, Format};
use crate::ir::{BoolOp, CmpOp, TestpOp};

fn cmp_float(op: CmpOp, x: f64, y: f64) -> bool {
    let unordered = x.is_nan() || y.is_nan();
    match op {
        CmpOp::Eq => x == y,
        CmpOp::Ne => !unordered && x != y,
        CmpOp::Lt | CmpOp::Lo => x < y,
        CmpOp::Le | CmpOp::Ls => x <= y,
        CmpOp::Gt | CmpOp::Hi => x > y,
        CmpOp::Ge | CmpOp::Hs => x >= y,
        CmpOp::Equ => unordered || x == y,
        CmpOp::Neu => unordered || x != y,
        CmpOp::Ltu => unordered || x < y,
        CmpOp::Leu => unordered || x <= y,
        CmpOp::Gtu => unordered || x > y,
        CmpOp::Geu => unordered || x >= y,
        CmpOp::Num => !unordered,
        CmpOp::Nan => unordered,
    }
}

fn cmp_int(op: CmpOp, t: IntTy, a: u64, b: u64) -> bool {
    let k = Ext::new(t);
    let (sa, sb) = (k.sx(a), k.sx(b));
    let (ua, ub) = (k.zx(a), k.zx(b));
    let order = if t.signed { sa.cmp(&sb) } else { ua.cmp(&ub) };
    match op {
        CmpOp::Eq | CmpOp::Equ => ua == ub,
        CmpOp::Ne | CmpOp::Neu => ua != ub,
        CmpOp::Lt | CmpOp::Ltu => order.is_lt(),
        CmpOp::Le | CmpOp::Leu => order.is_le(),
        CmpOp::Gt | CmpOp::Gtu => order.is_gt(),
        CmpOp::Ge | CmpOp::Geu => order.is_ge(),
        CmpOp::Lo => ua < ub,
        CmpOp::Ls => ua <= ub,
        CmpOp::Hi => ua > ub,
        CmpOp::Hs => ua >= ub,
        CmpOp::Num => true,
        CmpOp::Nan => false,
    }
}

fn flush_value(fmt: Format, bits: u64, ftz: bool) -> f64 {
    let mag = bits & (fmt.sign_bit() - 1);
    if ftz && mag != 0 && mag < (1 << fmt.man_bits) {
        0.0
    } else {
        fmt.decode(bits)
    }
}

/// The format and lane shift of half `h` of a float compare type.
fn float_value(ty: FTy, bits: u64, half: u32, ftz: bool) -> f64 {
    match ty {
        FTy::F64 => {
            let v = f64::from_bits(bits);
            if ftz && v.is_subnormal() {
                0.0
            } else {
                v
            }
        }
        FTy::F32 => flush_value(round::F32, bits & 0xFFFF_FFFF, ftz),
        FTy::F16 | FTy::F16x2 => flush_value(round::F16, (bits >> (16 * half)) & 0xFFFF, ftz),
        FTy::Bf16 | FTy::Bf16x2 => flush_value(round::BF16, (bits >> (16 * half)) & 0xFFFF, ftz),
    }
}

/// `a cmp b` for one lane (`half` selects the upper half of packed types).
pub fn compare(op: CmpOp, ty: CmpTy, ftz: bool, a: u64, b: u64, half: u32) -> bool {
    match ty {
        CmpTy::Int(t) => cmp_int(op, t, a, b),
        CmpTy::Float(f) => cmp_float(op, float_value(f, a, half, ftz), float_value(f, b, half, ftz)),
    }
}

fn combine(op: BoolOp, x: bool, c: bool) -> bool {
    match op {
        BoolOp::And => x && c,
        BoolOp::Or => x || c,
        BoolOp::Xor => x != c,
    }
}

/// The truth table of integer comparison `op` over the ordering of its operands (bit 0: less,
/// bit 1: equal, bit 2: greater), and whether it orders them as signed values — the table form
/// of [`cmp_int`] (equality is the same either way).
fn int_table(op: CmpOp, t: IntTy) -> (u32, bool) {
    const LT: u32 = 1;
    const EQ: u32 = 2;
    const GT: u32 = 4;
    match op {
        CmpOp::Eq | CmpOp::Equ => (EQ, false),
        CmpOp::Ne | CmpOp::Neu => (LT | GT, false),
        CmpOp::Lt | CmpOp::Ltu => (LT, t.signed),
        CmpOp::Le | CmpOp::Leu => (LT | EQ, t.signed),
        CmpOp::Gt | CmpOp::Gtu => (GT, t.signed),
        CmpOp::Ge | CmpOp::Geu => (GT | EQ, t.signed),
        CmpOp::Lo => (LT, false),
        CmpOp::Ls => (LT | EQ, false),
        CmpOp::Hi => (GT, false),
        CmpOp::Hs => (GT | EQ, false),
        CmpOp::Num => (LT | EQ | GT, false),
        CmpOp::Nan => (0, false),
    }
}

/// Integer `a cmp b` in all 32 lanes at once (bit `l`: lane `l`; [`int_lanes_of`]).
fn int_lanes(w: &Warp, env: &Env, op: CmpOp, t: IntTy, a: Src, b: Src) -> u32 {
    let (mut ta, mut tb) = (ZERO, ZERO);
    int_lanes_of(op, t, w.read(a, env, &mut ta), w.read(b, env, &mut tb))
}

/// `xa[l] cmp xb[l]` for every lane `l` (bit `l`), as [`cmp_int`] would say lane by lane. Each
/// value is shifted left so that its type's bits are the top ones: unsigned order is then the
/// order of the shifted words, and signed order that of the shifted words with the sign bit
/// flipped (`0x80…` < `0x00…` after the flip).
fn int_lanes_of(op: CmpOp, t: IntTy, xa: &Lanes, xb: &Lanes) -> u32 {
    let (table, signed) = int_table(op, t);
    let sh = 64 - t.bits.clamp(1, 64);
    let flip = if signed { 1u64 << 63 } else { 0 };
    let mut bits = 0u32;
    for (lane, (&x, &y)) in xa.iter().zip(xb).enumerate() {
        let (x, y) = ((x << sh) ^ flip, (y << sh) ^ flip);
        // 0: less, 1: equal, 2: greater.
        let order = u32::from(x >= y) + u32::from(x > y);
        bits |= (table >> order & 1) << lane;
    }
    bits
}

/// [`combine`] on 32 lanes at once.
fn combine_bits(op: BoolOp, x: u32, c: u32) -> u32 {
    match op {
        BoolOp::And => x & c,
        BoolOp::Or => x | c,
        BoolOp::Xor => x ^ c,
    }
}

/// `setp`: writes the comparison (and, with a pair destination, its complement) combined with
/// an optional predicate. Packed types write the low half's result to `d` and the high half's to
/// `d2`.
#[allow(clippy::too_many_arguments, reason = "the operands of one PTX instruction")]
pub fn exec_setp(
    w: &mut Warp,
    env: &Env,
    (cmp, ty, ftz): (CmpOp, CmpTy, bool),
    d: Dst,
    d2: Dst,
    a: Src,
    b: Src,
    comb: Option<(BoolOp, Src)>,
    mask: u32,
) {
    let packed = matches!(ty, CmpTy::Float(FTy::F16x2 | FTy::Bf16x2));
    let cmask = comb.map(|(_, c)| w.read_mask(c, env));
    if let CmpTy::Int(t) = ty {
        let r = int_lanes(w, env, cmp, t, a, b);
        let (p, q) = match (comb, cmask) {
            (Some((op, _)), Some(cm)) => (combine_bits(op, r, cm), combine_bits(op, !r, cm)),
            _ => (r, !r),
        };
        write_pred(w, d, p & mask, mask);
        write_pred(w, d2, q & mask, mask);
        return;
    }
    let (mut p, mut q) = (0u32, 0u32);
    for lane in 0..32 {
        if (mask >> lane) & 1 == 0 {
            continue;
        }
        let (x, y) = (w.read_lane(a, lane, env), w.read_lane(b, lane, env));
        let r = compare(cmp, ty, ftz, x, y, 0);
        let (r1, r2) = if packed { (r, compare(cmp, ty, ftz, x, y, 1)) } else { (r, !r) };
        let (r1, r2) = match (comb, cmask) {
            (Some((op, _)), Some(cm)) => {
                let c = (cm >> lane) & 1 == 1;
                (combine(op, r1, c), combine(op, r2, c))
            }
            _ => (r1, r2),
        };
        p |= u32::from(r1) << lane;
        q |= u32::from(r2) << lane;
    }
    write_pred(w, d, p, mask);
    write_pred(w, d2, q, mask);
}

fn write_pred(w: &mut Warp, d: Dst, bits: u32, mask: u32) {
    match d {
        Dst::Pred(id) => w.write_mask(id, bits, mask),
        Dst::Reg(..) => {
            let mut vals = ZERO;
            for (l, v) in vals.iter_mut().enumerate() {
                *v = u64::from((bits >> l) & 1);
            }
            w.write(d, &vals, mask);
        }
        Dst::Sink => {}
    }
}

/// `set`: like `setp` but writes `one` where the result is true: all ones for an integer
/// destination, 1.0 in the destination's float type. Packed (`.f16x2`/`.bf16x2`) sources compare
/// each half and write `one` into that half of `d` (a 16-bit mask or 1.0 per half).
#[allow(clippy::too_many_arguments, reason = "the operands of one PTX instruction")]
pub fn exec_set(
    w: &mut Warp,
    env: &Env,
    (cmp, ty, ftz, one): (CmpOp, CmpTy, bool, u64),
    d: Dst,
    a: Src,
    b: Src,
    comb: Option<(BoolOp, Src)>,
    mask: u32,
) {
    let halves = if matches!(ty, CmpTy::Float(FTy::F16x2 | FTy::Bf16x2)) { 2 } else { 1 };
    let cmask = comb.map(|(_, c)| w.read_mask(c, env));
    let mut out = ZERO;
    for (lane, o) in out.iter_mut().enumerate() {
        let (x, y) = (w.read_lane(a, lane, env), w.read_lane(b, lane, env));
        for half in 0..halves {
            let r = compare(cmp, ty, ftz, x, y, half);
            let r = match (comb, cmask) {
                (Some((op, _)), Some(cm)) => combine(op, r, (cm >> lane) & 1 == 1),
                _ => r,
            };
            if r {
                *o |= one << (16 * half);
            }
        }
    }
    w.write(d, &out, mask);
}

/// `selp`: `a` where the predicate is true, else `b`.
pub fn exec_selp(w: &mut Warp, env: &Env, d: Dst, a: Src, b: Src, p: Src, mask: u32) {
    let pm = w.read_mask(p, env);
    let mut t = [ZERO; 2];
    let [ta, tb] = &mut t;
    let mut out = ZERO;
    {
        let (av, bv) = (w.read(a, env, ta), w.read(b, env, tb));
        for l in 0..32 {
            out[l] = if (pm >> l) & 1 == 1 { av[l] } else { bv[l] };
        }
    }
    w.write(d, &out, mask);
}

/// `slct`: `a` where `c >= 0`, else `b`.
#[allow(clippy::too_many_arguments, reason = "the operands of one PTX instruction")]
pub fn exec_slct(w: &mut Warp, env: &Env, ty: CmpTy, d: Dst, a: Src, b: Src, c: Src, mask: u32) {
    let mut out = ZERO;
    for (lane, o) in out.iter_mut().enumerate() {
        let cv = w.read_lane(c, lane, env);
        let ge = match ty {
            CmpTy::Int(_) => (cv as u32 as i32) >= 0,
            CmpTy::Float(_) => f32::from_bits(cv as u32) >= 0.0,
        };
        *o = if ge { w.read_lane(a, lane, env) } else { w.read_lane(b, lane, env) };
    }
    w.write(d, &out, mask);
}

/// `testp`: a property of a float.
pub fn exec_testp(w: &mut Warp, env: &Env, op: TestpOp, ty: FTy, d: Dst, a: Src, mask: u32) {
    let mut bits = 0u32;
    for lane in 0..32 {
        let v = float_value(ty, w.read_lane(a, lane, env), 0, false);
        let r = match op {
            TestpOp::Finite => v.is_finite(),
            TestpOp::Infinite => v.is_infinite(),
            TestpOp::Number => !v.is_nan(),
            TestpOp::NotANumber => v.is_nan(),
            TestpOp::Normal => is_normal(ty, v),
            TestpOp::Subnormal => v != 0.0 && v.is_finite() && !is_normal(ty, v),
        };
        bits |= u32::from(r) << lane;
    }
    write_pred(w, d, bits, mask);
}

fn is_normal(ty: FTy, v: f64) -> bool {
    let min = match ty {
        FTy::F64 => f64::MIN_POSITIVE,
        FTy::F32 | FTy::Bf16 | FTy::Bf16x2 => f64::from(f32::MIN_POSITIVE),
        FTy::F16 | FTy::F16x2 => round::pow2(-14),
    };
    v.is_finite() && v.abs() >= min
}

/// `and`/`or`/`xor`/`not`/`mov` on predicates.
pub fn exec_pred_logic(w: &mut Warp, env: &Env, op: IntOp, d: Dst, a: Src, b: Src, mask: u32) {
    let (x, y) = (w.read_mask(a, env), w.read_mask(b, env));
    let r = match op {
        IntOp::And => x & y,
        IntOp::Or => x | y,
        IntOp::Xor => x ^ y,
        IntOp::Not => !x,
        _ => x,
    };
    write_pred(w, d, r, mask);
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::vec::Vec;

    /// Every integer comparison, width and signedness on values around each width's limits (and
    /// with junk above a narrow type's bits): all 32 lanes at once say what `cmp_int` says lane by
    /// lane. E.g. `lt.s8`: 0x80 (-128) < 0x7F, but `lo.u8`: 0x80 > 0x7F; 0x1_0000_0005 and 5 are
    /// equal as 32-bit values.
    #[test]
    fn lanes_at_once_agree_with_lane_by_lane() {
        let values = [
            0u64,
            1,
            5,
            0x7F,
            0x80,
            0xFF,
            0x7FFF,
            0x8000,
            0x7FFF_FFFF,
            0x8000_0000,
            0xFFFF_FFFF,
            0x1_0000_0005,
            i64::MAX as u64,
            1 << 63,
            u64::MAX,
            0xDEAD_BEEF_0000_0080,
        ];
        let ops = [
            CmpOp::Eq,
            CmpOp::Ne,
            CmpOp::Lt,
            CmpOp::Le,
            CmpOp::Gt,
            CmpOp::Ge,
            CmpOp::Lo,
            CmpOp::Ls,
            CmpOp::Hi,
            CmpOp::Hs,
            CmpOp::Equ,
            CmpOp::Neu,
            CmpOp::Ltu,
            CmpOp::Leu,
            CmpOp::Gtu,
            CmpOp::Geu,
            CmpOp::Num,
            CmpOp::Nan,
        ];
        let mut pairs = Vec::new();
        for &x in &values {
            for &y in &values {
                pairs.push((x, y));
            }
        }
        for bits in [8, 16, 32, 64] {
            for signed in [false, true] {
                let t = IntTy { bits, signed };
                for op in ops {
                    for chunk in pairs.chunks(32) {
                        let (mut xa, mut xb) = (ZERO, ZERO);
                        for (l, &(x, y)) in chunk.iter().enumerate() {
                            xa[l] = x;
                            xb[l] = y;
                        }
                        let got = int_lanes_of(op, t, &xa, &xb);
                        for l in 0..32 {
                            let want = cmp_int(op, t, xa[l], xb[l]);
                            assert_eq!(got >> l & 1 == 1, want, "{op:?} {t:?} {:#x} {:#x}", xa[l], xb[l]);
                        }
                    }
                }
            }
        }
        // The examples above, through the lanes-at-once path.
        let (mut xa, mut xb) = (ZERO, ZERO);
        (xa[0], xb[0], xa[1], xb[1]) = (0x80, 0x7F, 0x1_0000_0005, 5);
        assert_eq!(int_lanes_of(CmpOp::Lt, IntTy { bits: 8, signed: true }, &xa, &xb) & 1, 1);
        assert_eq!(int_lanes_of(CmpOp::Hi, IntTy { bits: 8, signed: false }, &xa, &xb) & 1, 1);
        assert_eq!(int_lanes_of(CmpOp::Eq, IntTy { bits: 32, signed: false }, &xa, &xb) >> 1 & 1, 1);
    }
}
