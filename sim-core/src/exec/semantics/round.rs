//! Correct rounding of an exactly known real value into any small binary floating-point format,
//! in every PTX rounding mode. The value comes as an unevaluated sum `hi + lo` of two `f64`s with
//! `|lo|` at most half an ulp of `hi` (what the error-free transformations [`two_sum`] and
//! [`two_prod`] give), so double rounding never happens.
//!
//! ```text
//! add.rp.f32 %f1, %f2, %f3;              // two_sum(a, b) → round(hi, lo, F32, Up)
//! cvt.rn.satfinite.e4m3x2.f32 %h, %a, %b; // round(a, 0, E4M3, NearestEven) with saturation
//! ```
//!
//! Formats are described by [`Format`]: exponent and mantissa widths, and whether the all-ones
//! exponent encodes infinities (IEEE formats) or ordinary numbers (`e4m3`, which has only NaN
//! there). Bit patterns of non-negative values are ordered like the values, which is what makes
//! "one step up" a `+ 1`.

use crate::ir::Rounding;

/// A binary floating-point format narrower than `f64`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Format {
    /// Exponent field width.
    pub exp_bits: u32,
    /// Stored mantissa width.
    pub man_bits: u32,
    /// IEEE style: the all-ones exponent is infinity/NaN. `false` for `e4m3`.
    pub has_inf: bool,
}

/// IEEE single precision.
pub const F32: Format = Format { exp_bits: 8, man_bits: 23, has_inf: true };
/// IEEE half precision.
pub const F16: Format = Format { exp_bits: 5, man_bits: 10, has_inf: true };
/// bfloat16.
pub const BF16: Format = Format { exp_bits: 8, man_bits: 7, has_inf: true };
/// TensorFloat-32 (19 significant bits; stored in the top of an `f32`).
pub const TF32: Format = Format { exp_bits: 8, man_bits: 10, has_inf: true };
/// FP8 e4m3 (no infinities; max 448).
pub const E4M3: Format = Format { exp_bits: 4, man_bits: 3, has_inf: false };
/// FP8 e5m2 (IEEE style).
pub const E5M2: Format = Format { exp_bits: 5, man_bits: 2, has_inf: true };

/// A rounding direction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// To nearest, ties to even (`.rn`, the default).
    NearestEven,
    /// To nearest, ties away from zero (`.rna`).
    NearestAway,
    /// Towards zero (`.rz`).
    Zero,
    /// Towards minus infinity (`.rm`).
    Down,
    /// Towards plus infinity (`.rp`).
    Up,
}

impl Mode {
    /// The mode of a PTX rounding modifier (integer-rounding spellings map to the same direction;
    /// no modifier, and stochastic `.rs`, are round-to-nearest-even).
    pub fn from_ptx(r: Option<Rounding>) -> Mode {
        match r {
            Some(Rounding::Rz | Rounding::Rzi) => Mode::Zero,
            Some(Rounding::Rm | Rounding::Rmi) => Mode::Down,
            Some(Rounding::Rp | Rounding::Rpi) => Mode::Up,
            Some(Rounding::Rna) => Mode::NearestAway,
            _ => Mode::NearestEven,
        }
    }
}

impl Format {
    const fn bias(self) -> i32 {
        (1 << (self.exp_bits - 1)) - 1
    }

    /// The sign bit.
    pub const fn sign_bit(self) -> u64 {
        1 << (self.exp_bits + self.man_bits)
    }

    /// The largest finite magnitude's bit pattern.
    pub const fn max_finite(self) -> u64 {
        let top = (1u64 << self.exp_bits) - 1;
        if self.has_inf {
            ((top - 1) << self.man_bits) | ((1 << self.man_bits) - 1)
        } else {
            (top << self.man_bits) | ((1 << self.man_bits) - 2)
        }
    }

    /// Positive infinity (the NaN pattern for formats without infinities).
    pub const fn inf(self) -> u64 {
        if self.has_inf {
            ((1u64 << self.exp_bits) - 1) << self.man_bits
        } else {
            self.nan()
        }
    }

    /// The canonical NaN RegLab produces: all exponent and mantissa bits set, sign clear
    /// (`0x7FFFFFFF` for `f32`, as NVIDIA GPUs do).
    pub const fn nan(self) -> u64 {
        self.sign_bit() - 1
    }

    /// True if `bits` is a NaN of this format.
    pub fn is_nan(self, bits: u64) -> bool {
        let mag = bits & (self.sign_bit() - 1);
        if self.has_inf {
            mag > self.inf()
        } else {
            mag == self.nan()
        }
    }

    /// The exact value of a bit pattern.
    pub fn decode(self, bits: u64) -> f64 {
        let neg = bits & self.sign_bit() != 0;
        let mag = bits & (self.sign_bit() - 1);
        let v = if self.is_nan(bits) {
            f64::NAN
        } else if self.has_inf && mag == self.inf() {
            f64::INFINITY
        } else {
            self.decode_mag(mag)
        };
        if neg {
            -v
        } else {
            v
        }
    }

    /// The value of a magnitude pattern by the plain formula (no special values), which also gives
    /// the "one past the largest finite" value used as the overflow threshold.
    fn decode_mag(self, mag: u64) -> f64 {
        let field = (mag >> self.man_bits) as i32;
        let man = mag & ((1 << self.man_bits) - 1);
        let (sig, exp) = if field == 0 {
            (man, 1 - self.bias() - self.man_bits as i32)
        } else {
            (man | (1 << self.man_bits), field - self.bias() - self.man_bits as i32)
        };
        sig as f64 * pow2(exp)
    }

    /// The largest magnitude pattern whose value is at most `a` (finite, positive), clamped to
    /// the largest finite value.
    fn trunc(self, a: f64) -> u64 {
        let bits = a.to_bits();
        let field = ((bits >> 52) & 0x7ff) as i32;
        if field == 0 {
            return 0;
        }
        let exp = field - 1023;
        let emin = 1 - self.bias();
        let emax_field = if self.has_inf { (1 << self.exp_bits) - 2 } else { (1 << self.exp_bits) - 1 };
        if exp > emax_field - self.bias() {
            return self.max_finite();
        }
        let m = bits & ((1u64 << 52) - 1);
        if exp >= emin {
            let t = (((exp + self.bias()) as u64) << self.man_bits) | (m >> (52 - self.man_bits));
            t.min(self.max_finite())
        } else {
            let shift = (52 - self.man_bits) as i32 + (emin - exp);
            if shift >= 64 {
                0
            } else {
                ((1u64 << 52) | m) >> shift
            }
        }
    }
}

/// `2^k` for `-1074 <= k <= 1023`.
pub fn pow2(k: i32) -> f64 {
    if k >= -1022 {
        f64::from_bits(((k + 1023) as u64) << 52)
    } else {
        f64::from_bits(1u64 << (k + 1074).max(0))
    }
}

/// Rounds the exact value `hi + lo` into `fmt` with `mode`. `satfinite` clamps overflow (and
/// infinities) to the largest finite value; NaN gives the canonical NaN.
pub fn round(hi: f64, lo: f64, fmt: Format, mode: Mode, satfinite: bool) -> u64 {
    if hi.is_nan() || lo.is_nan() {
        return fmt.nan();
    }
    let neg = hi.is_sign_negative();
    let sign = if neg { fmt.sign_bit() } else { 0 };
    let a = hi.abs();
    if a.is_infinite() {
        return sign | if satfinite { fmt.max_finite() } else { fmt.inf() };
    }
    if a == 0.0 {
        // Only a tail: a value far below every format's smallest subnormal.
        return if lo == 0.0 { sign } else { round(lo, 0.0, fmt, mode, satfinite) };
    }
    // Direction of the tail relative to the magnitude.
    let d = if neg { -lo } else { lo };
    let mut t = fmt.trunc(a);
    if a == fmt.decode_mag(t) {
        if d == 0.0 {
            return sign | t;
        }
        if d < 0.0 {
            t -= 1;
        }
    }
    // The exact magnitude now lies strictly between value(t) and value(t + 1).
    let up = match mode {
        Mode::Zero => false,
        Mode::Up => !neg,
        Mode::Down => neg,
        Mode::NearestEven | Mode::NearestAway => {
            let mid = (fmt.decode_mag(t) + fmt.decode_mag(t + 1)) / 2.0;
            if a > mid || (a == mid && d > 0.0) {
                true
            } else if a < mid || (a == mid && d < 0.0) {
                false
            } else {
                mode == Mode::NearestAway || t & 1 == 1
            }
        }
    };
    let r = t + u64::from(up);
    if r > fmt.max_finite() {
        return sign | if satfinite { fmt.max_finite() } else { fmt.inf() };
    }
    sign | r
}

/// Error-free sum: `s + e == a + b` exactly (for finite inputs without overflow).
pub fn two_sum(a: f64, b: f64) -> (f64, f64) {
    let s = a + b;
    if !s.is_finite() {
        return (s, 0.0);
    }
    let bb = s - a;
    let e = (a - (s - bb)) + (b - bb);
    (s, e)
}

/// Error-free product: `p + e == a * b` exactly (barring underflow).
pub fn two_prod(a: f64, b: f64) -> (f64, f64) {
    let p = a * b;
    if !p.is_finite() {
        return (p, 0.0);
    }
    (p, libm::fma(a, b, -p))
}

/// Rounds an `f64` correctly rounded to nearest (`hi`) whose exact value differs from it by a tail
/// of sign `sign_of(lo)`, into `f64` with a directed `mode`: one ulp step where needed.
pub fn round_f64(hi: f64, lo: f64, mode: Mode) -> f64 {
    if !hi.is_finite() || lo == 0.0 || lo.is_nan() {
        return hi;
    }
    match mode {
        Mode::NearestEven | Mode::NearestAway => hi,
        Mode::Up if lo > 0.0 => next_up(hi),
        Mode::Down if lo < 0.0 => next_down(hi),
        Mode::Zero if hi > 0.0 && lo < 0.0 => next_down(hi),
        Mode::Zero if hi < 0.0 && lo > 0.0 => next_up(hi),
        _ => hi,
    }
}

/// The next `f64` above `x`.
pub fn next_up(x: f64) -> f64 {
    if x.is_nan() || x == f64::INFINITY {
        return x;
    }
    if x == 0.0 {
        return f64::from_bits(1);
    }
    let b = x.to_bits();
    f64::from_bits(if x > 0.0 { b + 1 } else { b - 1 })
}

/// The next `f64` below `x`.
pub fn next_down(x: f64) -> f64 {
    -next_up(-x)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f32r(x: f64, mode: Mode) -> f32 {
        f32::from_bits(round(x, 0.0, F32, mode, false) as u32)
    }

    #[test]
    fn f32_rounding_matches_native_and_directions() {
        for x in [0.1f64, -0.1, 1.0 / 3.0, 1e-40, -1e-45, 3.4e38, 1e39, 16777217.0] {
            assert_eq!(f32r(x, Mode::NearestEven).to_bits(), (x as f32).to_bits(), "{x}");
            let (d, u) = (f32r(x, Mode::Down), f32r(x, Mode::Up));
            assert!(f64::from(d) <= x && x <= f64::from(u) || u.is_infinite() || d.is_infinite());
        }
        // 1 + 2^-24 is a tie: even is 1, up is the next float.
        let (hi, lo) = two_sum(1.0, f64::from(f32::from_bits(0x3380_0000)));
        assert_eq!(round(hi, lo, F32, Mode::Up, false), 0x3F80_0001);
        assert_eq!(round(hi, lo, F32, Mode::Down, false), 0x3F80_0000);
        assert_eq!(round(hi, lo, F32, Mode::NearestEven, false), 0x3F80_0000);
        assert_eq!(round(1e39, 0.0, F32, Mode::Zero, false), 0x7F7F_FFFF);
    }

    #[test]
    fn tails_break_ties_and_cross_binades() {
        // Exactly 1.0 minus a tiny tail rounds down across the binade boundary.
        assert_eq!(round(1.0, -1e-30, F32, Mode::Zero, false), 0x3F7F_FFFF);
        assert_eq!(round(1.0, -1e-30, F32, Mode::NearestEven, false), 0x3F80_0000);
        assert_eq!(round(1.0 + f64::from(f32::EPSILON) / 2.0, 1e-30, F32, Mode::NearestEven, false), 0x3F80_0001);
    }

    #[test]
    fn small_formats() {
        assert_eq!(round(0.40625, 0.0, E4M3, Mode::NearestEven, true), 0x2D);
        assert_eq!(round(f64::from(12.9f32), 0.0, E4M3, Mode::NearestEven, true), 0x55);
        assert_eq!(round(1000.0, 0.0, E4M3, Mode::NearestEven, true), 0x7E);
        assert_eq!(round(1000.0, 0.0, E4M3, Mode::NearestEven, false), 0x7F);
        assert_eq!(round(65520.0, 0.0, F16, Mode::NearestEven, false), 0x7C00);
        assert_eq!(round(65519.0, 0.0, F16, Mode::NearestEven, false), 0x7BFF);
        assert_eq!(round(1.0, 0.0, F16, Mode::NearestEven, false), 0x3C00);
        assert_eq!(F16.decode(0x0001), pow2(-24));
        assert_eq!(round(pow2(-25), 0.0, F16, Mode::NearestEven, false), 0);
        assert_eq!(round(pow2(-25), 1e-40, F16, Mode::NearestEven, false), 1);
        assert_eq!(E4M3.decode(0x7E), 448.0);
        assert!(E4M3.decode(0x7F).is_nan());
    }

    #[test]
    fn f64_directed() {
        let (hi, lo) = two_sum(1.0, 1e-30);
        assert_eq!(round_f64(hi, lo, Mode::Up), next_up(1.0));
        assert_eq!(round_f64(hi, lo, Mode::Down), 1.0);
        assert_eq!(round_f64(-hi, -lo, Mode::Zero), -1.0);
        assert_eq!(round_f64(-hi, -lo, Mode::Down), next_down(-1.0));
    }
}
