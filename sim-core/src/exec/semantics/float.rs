//! Floating-point arithmetic in `f32`, `f64`, `f16`, `bf16` and the packed `f16x2`/`bf16x2`, with
//! the rounding modes `.rn`/`.rz`/`.rm`/`.rp`, `.ftz`, `.sat` and `.relu`.
//!
//! ```text
//! add.rp.f32 %f1, %f2, %f3;        // correctly rounded towards +inf
//! fma.rn.f16x2 %r1, %r2, %r3, %r4; // two independent half-precision fmas
//! sin.approx.ftz.f32 %f1, %f2;     // defined as the f64 libm result rounded to f32
//! ```
//!
//! Additions, multiplications and fmas of `f32` and narrower formats are computed exactly in
//! `f64` (with error-free transformations where `f64` alone would round) and rounded once into the
//! destination format, so every rounding mode is correct. Division and square root derive the
//! direction of the rounding error from an exact remainder. `f64` operations round to nearest
//! first and then step one ulp when a directed mode needs it. Approximate instructions (`sin`,
//! `cos`, `lg2`, `ex2`, `tanh`, `rsqrt`, `.approx` division and reciprocal) are defined as the
//! deterministic `libm` result in `f64` rounded to the destination; hardware may differ by a few
//! ulp. NaN results are the canonical NaN of the format (`0x7FFFFFFF` for `f32`).

use super::super::program::{Dst, FMode, FTy, FloatOp, Src};
use super::super::warp::{Env, Warp, ZERO};
use super::round::{self, two_sum, Format, Mode};

const TINY: f64 = f64::MIN_POSITIVE;

/// The rounding-error direction of a result `q` whose exact remainder is `rem` with the sign of
/// the divisor `y`: a tail small enough to only break ties.
fn tail(rem: f64, y: f64) -> f64 {
    if rem == 0.0 || rem.is_nan() {
        0.0
    } else if (rem > 0.0) == (y > 0.0) {
        TINY
    } else {
        -TINY
    }
}

fn is_subnormal(fmt: Format, bits: u64) -> bool {
    let mag = bits & (fmt.sign_bit() - 1);
    mag != 0 && mag < (1 << fmt.man_bits)
}

/// Flushes a subnormal to a zero of the same sign.
fn flush(fmt: Format, bits: u64) -> u64 {
    if is_subnormal(fmt, bits) {
        bits & fmt.sign_bit()
    } else {
        bits
    }
}

fn min_max(fmt: Format, a: u64, b: u64, max: bool, nan: bool) -> u64 {
    choose_min_max(fmt, (fmt.decode(a), fmt.decode(b)), a, b, max, nan)
}

/// `min`/`max` of the `fmt` encodings `a` and `b`, whose values are `x` and `y`: a NaN operand
/// gives the other one (the canonical NaN with `.NaN`, or when both are NaN), and -0 orders below
/// +0.
fn choose_min_max(fmt: Format, (x, y): (f64, f64), a: u64, b: u64, max: bool, nan: bool) -> u64 {
    let nan_bits = fmt.nan();
    match (x.is_nan(), y.is_nan()) {
        (true, true) => return nan_bits,
        (true, false) => return if nan { nan_bits } else { b },
        (false, true) => return if nan { nan_bits } else { a },
        _ => {}
    }
    if x == y {
        // -0 < +0.
        let a_neg = a & fmt.sign_bit() != 0;
        return if a_neg != max { a } else { b };
    }
    if (x > y) == max {
        a
    } else {
        b
    }
}

/// Applies `op` to one lane of a format no wider than `f32`.
pub fn small(op: FloatOp, m: FMode, fmt: Format, a: u64, b: u64, c: u64) -> u64 {
    let mask = (fmt.sign_bit() << 1) - 1;
    let (a, b, c) = (a & mask, b & mask, c & mask);
    let (a, b, c) = if m.ftz { (flush(fmt, a), flush(fmt, b), flush(fmt, c)) } else { (a, b, c) };
    let (x, y, z) = (fmt.decode(a), fmt.decode(b), fmt.decode(c));
    let rnd = |(hi, lo): (f64, f64)| round::round(hi, lo, fmt, m.round, false);
    let near = |v: f64| round::round(v, 0.0, fmt, Mode::NearestEven, false);
    let r = match op {
        FloatOp::Add => rnd(two_sum(x, y)),
        FloatOp::Sub => rnd(two_sum(x, -y)),
        FloatOp::Mul => rnd((x * y, 0.0)),
        FloatOp::Fma => rnd(two_sum(x * y, z)),
        FloatOp::Div => {
            let q = x / y;
            rnd((q, tail(libm::fma(-q, y, x), y)))
        }
        FloatOp::Rcp => {
            let q = 1.0 / x;
            rnd((q, tail(libm::fma(-q, x, 1.0), x)))
        }
        FloatOp::Sqrt => {
            let s = libm::sqrt(x);
            rnd((s, tail(libm::fma(-s, s, x), 1.0)))
        }
        FloatOp::Rsqrt => near(1.0 / libm::sqrt(x)),
        FloatOp::Sin => near(libm::sin(x)),
        FloatOp::Cos => near(libm::cos(x)),
        FloatOp::Lg2 => near(libm::log2(x)),
        FloatOp::Ex2 => near(libm::exp2(x)),
        FloatOp::Tanh => near(libm::tanh(x)),
        FloatOp::Abs => a & !fmt.sign_bit(),
        FloatOp::Neg => a ^ fmt.sign_bit(),
        FloatOp::Min => min_max(fmt, a, b, false, m.nan),
        FloatOp::Max => min_max(fmt, a, b, true, m.nan),
        FloatOp::Copysign => (b & !fmt.sign_bit()) | (a & fmt.sign_bit()),
        FloatOp::Mov => a,
    };
    finish(fmt, m, r, op)
}

fn finish(fmt: Format, m: FMode, r: u64, op: FloatOp) -> u64 {
    let keeps_payload = matches!(op, FloatOp::Abs | FloatOp::Neg | FloatOp::Copysign | FloatOp::Mov);
    let mut r = if fmt.is_nan(r) && !keeps_payload { fmt.nan() } else { r };
    if m.sat {
        let v = fmt.decode(r);
        r = if v.is_nan() || v <= 0.0 {
            0
        } else if v >= 1.0 {
            round::round(1.0, 0.0, fmt, Mode::NearestEven, false)
        } else {
            r
        };
    }
    if m.relu && r & fmt.sign_bit() != 0 && !fmt.is_nan(r) {
        r = 0;
    }
    if m.ftz {
        r = flush(fmt, r);
    }
    r
}

/// Applies `op` to one `f32` lane: native arithmetic (correctly rounded to nearest) where the
/// mode is round-to-nearest without `.sat`/`.relu`, the general path otherwise.
pub fn f32_lane(op: FloatOp, m: FMode, a: u64, b: u64, c: u64) -> u64 {
    if m.round == Mode::NearestEven && !m.sat && !m.relu {
        let flush = |x: f32| if m.ftz && x.is_subnormal() { 0.0f32.copysign(x) } else { x };
        let (x, y) = (flush(f32::from_bits(a as u32)), flush(f32::from_bits(b as u32)));
        let wide = |f: fn(f64) -> f64| f(f64::from(x)) as f32;
        let r = match op {
            FloatOp::Add => Some(x + y),
            FloatOp::Sub => Some(x - y),
            FloatOp::Mul => Some(x * y),
            FloatOp::Fma => Some(libm::fmaf(x, y, flush(f32::from_bits(c as u32)))),
            FloatOp::Div => Some(x / y),
            FloatOp::Rcp => Some(1.0 / x),
            FloatOp::Sqrt => Some(libm::sqrtf(x)),
            FloatOp::Rsqrt => Some((1.0 / libm::sqrt(f64::from(x))) as f32),
            FloatOp::Sin => Some(wide(libm::sin)),
            FloatOp::Cos => Some(wide(libm::cos)),
            FloatOp::Lg2 => Some(wide(libm::log2)),
            FloatOp::Ex2 => Some(wide(libm::exp2)),
            FloatOp::Tanh => Some(wide(libm::tanh)),
            _ => None,
        };
        if let Some(r) = r {
            let r = flush(r);
            return if r.is_nan() { 0x7FFF_FFFF } else { u64::from(r.to_bits()) };
        }
    }
    small(op, m, round::F32, a, b, c)
}

fn f64_flush(v: f64) -> f64 {
    if v.is_subnormal() {
        0.0f64.copysign(v)
    } else {
        v
    }
}

/// Applies `op` to one `f64` lane.
pub fn f64_lane(op: FloatOp, m: FMode, a: u64, b: u64, c: u64) -> u64 {
    let f = |v: u64| if m.ftz { f64_flush(f64::from_bits(v)) } else { f64::from_bits(v) };
    let (x, y, z) = (f(a), f(b), f(c));
    let dir = |(hi, lo): (f64, f64)| round::round_f64(hi, lo, m.round);
    let r = match op {
        FloatOp::Add => dir(two_sum(x, y)),
        FloatOp::Sub => dir(two_sum(x, -y)),
        FloatOp::Mul => dir(round::two_prod(x, y)),
        FloatOp::Fma => {
            let r = libm::fma(x, y, z);
            let (p, pe) = round::two_prod(x, y);
            let (s, se) = two_sum(p, z);
            dir((r, ((s - r) + se) + pe))
        }
        FloatOp::Div => {
            let q = x / y;
            dir((q, tail(libm::fma(-q, y, x), y)))
        }
        FloatOp::Rcp => {
            let q = 1.0 / x;
            dir((q, tail(libm::fma(-q, x, 1.0), x)))
        }
        FloatOp::Sqrt => {
            let s = libm::sqrt(x);
            dir((s, tail(libm::fma(-s, s, x), 1.0)))
        }
        FloatOp::Rsqrt => 1.0 / libm::sqrt(x),
        FloatOp::Sin => libm::sin(x),
        FloatOp::Cos => libm::cos(x),
        FloatOp::Lg2 => libm::log2(x),
        FloatOp::Ex2 => libm::exp2(x),
        FloatOp::Tanh => libm::tanh(x),
        FloatOp::Abs => return a & !(1 << 63),
        FloatOp::Neg => return a ^ (1 << 63),
        FloatOp::Copysign => return (b & !(1 << 63)) | (a & (1 << 63)),
        FloatOp::Mov => return a,
        FloatOp::Min | FloatOp::Max => {
            let fmt = Format { exp_bits: 11, man_bits: 52, has_inf: true };
            return choose_min_max(fmt, (f64::from_bits(a), f64::from_bits(b)), a, b, op == FloatOp::Max, m.nan);
        }
    };
    let mut r = if m.ftz { f64_flush(r) } else { r };
    if m.sat {
        r = if r.is_nan() || r <= 0.0 { 0.0 } else { r.min(1.0) };
    }
    if m.relu && r < 0.0 {
        r = 0.0;
    }
    if r.is_nan() {
        0x7FFF_FFFF_FFFF_FFFF
    } else {
        r.to_bits()
    }
}

/// One lane of a float operation of type `ty`.
pub fn lane(op: FloatOp, ty: FTy, m: FMode, a: u64, b: u64, c: u64) -> u64 {
    let half = |fmt: Format, sh: u32| small(op, m, fmt, a >> sh, b >> sh, c >> sh);
    match ty {
        FTy::F32 => f32_lane(op, m, a, b, c),
        FTy::F64 => f64_lane(op, m, a, b, c),
        FTy::F16 => half(round::F16, 0),
        FTy::Bf16 => half(round::BF16, 0),
        FTy::F16x2 => half(round::F16, 0) | (half(round::F16, 16) << 16),
        FTy::Bf16x2 => half(round::BF16, 0) | (half(round::BF16, 16) << 16),
    }
}

/// Executes a float instruction.
#[allow(clippy::too_many_arguments, reason = "the operands of one PTX instruction")]
pub fn exec(w: &mut Warp, env: &Env, op: FloatOp, ty: FTy, m: FMode, d: Dst, a: Src, b: Src, c: Src, mask: u32) {
    let mut t = [ZERO; 3];
    let [ta, tb, tc] = &mut t;
    let mut out = ZERO;
    {
        let (av, bv) = (w.read(a, env, ta), w.read(b, env, tb));
        let cv = if op == FloatOp::Fma { w.read(c, env, tc) } else { &ZERO };
        if ty == FTy::F32 && (m == FMode::PLAIN || m == FMode::FTZ) {
            // The common cases as tight loops (the operation chosen once, not per lane).
            let ftz = m.ftz;
            match op {
                FloatOp::Add => lanes3::<false>(&mut out, av, bv, cv, ftz, |x, y, _| x + y),
                FloatOp::Sub => lanes3::<false>(&mut out, av, bv, cv, ftz, |x, y, _| x - y),
                FloatOp::Mul => lanes3::<false>(&mut out, av, bv, cv, ftz, |x, y, _| x * y),
                FloatOp::Fma => lanes3::<true>(&mut out, av, bv, cv, ftz, libm::fmaf),
                _ => {
                    for l in 0..32 {
                        out[l] = f32_lane(op, m, av[l], bv[l], cv[l]);
                    }
                }
            }
        } else {
            for l in 0..32 {
                if (mask >> l) & 1 != 0 {
                    out[l] = lane(op, ty, m, av[l], bv[l], cv[l]);
                }
            }
        }
    }
    w.write(d, &out, mask);
}

/// `f` on every lane's `f32` operands (`C`: it reads the third), round to nearest, results
/// NaN-canonical as [`f32_lane`] gives them; `ftz`: subnormal operands and results flushed to
/// signed zero.
fn lanes3<const C: bool>(
    out: &mut [u64; 32],
    a: &[u64; 32],
    b: &[u64; 32],
    c: &[u64; 32],
    ftz: bool,
    f: impl Fn(f32, f32, f32) -> f32,
) {
    let flush = |x: f32| if x.is_subnormal() { 0.0f32.copysign(x) } else { x };
    for (l, o) in out.iter_mut().enumerate() {
        let (mut x, mut y) = (f32::from_bits(a[l] as u32), f32::from_bits(b[l] as u32));
        let mut z = if C { f32::from_bits(c[l] as u32) } else { 0.0 };
        if ftz {
            (x, y, z) = (flush(x), flush(y), flush(z));
        }
        let mut r = f(x, y, z);
        if ftz {
            r = flush(r);
        }
        *o = if r.is_nan() { 0x7FFF_FFFF } else { u64::from(r.to_bits()) };
    }
}

impl FMode {
    /// Round to nearest, no flags.
    pub const PLAIN: FMode = FMode { round: Mode::NearestEven, ftz: false, sat: false, relu: false, nan: false };
    /// Round to nearest, subnormals flushed (`.ftz`).
    pub const FTZ: FMode = FMode { ftz: true, ..FMode::PLAIN };
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(round: Mode) -> FMode {
        FMode { round, ..FMode::PLAIN }
    }

    /// The whole-warp loops of `exec` (add, sub, mul, fma; plain and `.ftz`) give what
    /// `f32_lane` gives lane by lane, on edge operands: subnormals (flushed or not), signed
    /// zeros, infinities, NaN (canonical result), a product that rounds to a subnormal, and an
    /// fma whose exact result differs from the rounded product plus the addend.
    #[test]
    fn warp_loops_agree_with_lane_by_lane() {
        let edge: [u32; 12] = [
            0x0000_0001, // smallest subnormal
            0x8040_0000, // negative subnormal
            0x0000_0000,
            0x8000_0000,
            0x7F80_0000, // +inf
            0xFF80_0000,
            0x7FC0_0000, // NaN
            0x3F80_0001, // 1 + ulp
            0x1F80_0000, // 2^-64: squares to a subnormal
            0x3F7F_FFFF, // 1 - ulp/2
            0xBF80_0000, // -1
            0x4049_0FDB, // pi
        ];
        let (mut a, mut b, mut c) = (ZERO, ZERO, ZERO);
        for l in 0..32 {
            a[l] = u64::from(edge[l % 12]);
            b[l] = u64::from(edge[(l * 5 + 3) % 12]);
            c[l] = u64::from(edge[(l * 7 + 1) % 12]);
        }
        for m in [FMode::PLAIN, FMode::FTZ] {
            for op in [FloatOp::Add, FloatOp::Sub, FloatOp::Mul, FloatOp::Fma] {
                let mut out = ZERO;
                let f: fn(f32, f32, f32) -> f32 = match op {
                    FloatOp::Add => |x, y, _| x + y,
                    FloatOp::Sub => |x, y, _| x - y,
                    FloatOp::Mul => |x, y, _| x * y,
                    _ => libm::fmaf,
                };
                if op == FloatOp::Fma {
                    lanes3::<true>(&mut out, &a, &b, &c, m.ftz, f);
                } else {
                    lanes3::<false>(&mut out, &a, &b, &c, m.ftz, f);
                }
                for l in 0..32 {
                    assert_eq!(out[l], f32_lane(op, m, a[l], b[l], c[l]), "{op:?} {m:?} lane {l}");
                }
            }
        }
    }

    #[test]
    fn directed_f32_add() {
        let (one, tiny) = (u64::from(1.0f32.to_bits()), 0x3380_0000u64);
        assert_eq!(f32_lane(FloatOp::Add, m(Mode::Up), one, tiny, 0), 0x3F80_0001);
        assert_eq!(f32_lane(FloatOp::Add, m(Mode::Down), one, tiny, 0), 0x3F80_0000);
        let nan = f32_lane(FloatOp::Add, FMode::PLAIN, 0x7FC0_0000, one, 0);
        assert_eq!(nan, 0x7FFF_FFFF);
    }

    #[test]
    fn f16x2_fma() {
        let r = lane(FloatOp::Fma, FTy::F16x2, FMode::PLAIN, 0x4000_4040, 0x4040_4080, 0x40A0_4040);
        assert_eq!(r, 1_183_860_456);
    }

    #[test]
    fn sat_and_min() {
        let sat = FMode { sat: true, ..FMode::PLAIN };
        assert_eq!(f32_lane(FloatOp::Add, sat, u64::from(2.0f32.to_bits()), 0, 0), u64::from(1.0f32.to_bits()));
        assert_eq!(f32_lane(FloatOp::Min, FMode::PLAIN, 0x7FC0_0000, 5, 0), 5);
        assert_eq!(f32_lane(FloatOp::Min, FMode::PLAIN, 0x8000_0000, 0, 0), 0x8000_0000);
        let d = f64_lane(FloatOp::Div, m(Mode::Up), 1.0f64.to_bits(), 3.0f64.to_bits(), 0);
        assert!(f64::from_bits(d) > 1.0 / 3.0);
    }
}
