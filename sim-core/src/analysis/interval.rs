//! Integer intervals for the range analysis (Campos, Rodrigues, Pereira): bounds as `i128`, so
//! that every 64-bit value and every product of two 64-bit values' bounds is exact or saturates
//! far outside any register's range.
//!
//! ```text
//! add.s32 %r2, %r1, 1;     // %r1 ∈ [0, 49]  →  %r2 ∈ [1, 50]: 6 bits, unsigned
//! sub.s32 %r3, %r1, 50;    // %r1 ∈ [0, 49]  →  %r3 ∈ [-50, -1]: 7 bits, signed
//! ```
//!
//! An interval describes the values of an `n`-bit register read under an [`Interp`]retation
//! (signed: `[-2^(n-1), 2^(n-1)-1]`, unsigned: `[0, 2^n-1]`, the "window"). PTX arithmetic wraps
//! modulo `2^n`, so a result computed over the integers is brought back into a window by
//! [`Interval::wrap`]: shifted by a multiple of `2^n` when it then fits, otherwise the whole
//! window. For a fixed window this is monotone, which the solver's narrowing relies on.

use core::cmp::{max, min};

use serde::{Deserialize, Serialize};

/// How the bits of a value are read: width and signedness.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct Interp {
    /// Width in bits (1 to 64; wider values are clamped to 64).
    pub bits: u32,
    /// Two's complement rather than unsigned.
    pub signed: bool,
}

impl Interp {
    /// `bits` wide, `signed` or not.
    pub fn new(bits: u32, signed: bool) -> Self {
        Interp { bits: bits.clamp(1, 64), signed }
    }

    /// Smallest value of the window.
    pub fn min(self) -> i128 {
        if self.signed {
            -(1i128 << (self.bits - 1))
        } else {
            0
        }
    }

    /// Largest value of the window.
    pub fn max(self) -> i128 {
        if self.signed {
            (1i128 << (self.bits - 1)) - 1
        } else {
            (1i128 << self.bits) - 1
        }
    }

    /// `2^bits`.
    pub fn modulus(self) -> i128 {
        1i128 << self.bits
    }
}

/// A closed interval `[lo, hi]`; empty (⊥, no value yet or unreachable) when `lo > hi`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Interval {
    /// Lower bound.
    pub lo: i128,
    /// Upper bound.
    pub hi: i128,
}

/// Bits needed to store a value range: `SCHEMES.md` §A's formula.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct BitWidth {
    /// Number of bits.
    pub bits: u32,
    /// Needs sign extension (the range has negative values).
    pub signed: bool,
}

impl Interval {
    /// The empty interval ⊥.
    pub const EMPTY: Interval = Interval { lo: 1, hi: 0 };

    /// `[lo, hi]`.
    pub fn new(lo: i128, hi: i128) -> Self {
        Interval { lo, hi }
    }

    /// `[v, v]`.
    pub fn constant(v: i128) -> Self {
        Interval { lo: v, hi: v }
    }

    /// The whole window of `t`.
    pub fn full(t: Interp) -> Self {
        Interval { lo: t.min(), hi: t.max() }
    }

    /// True for ⊥.
    pub fn is_empty(self) -> bool {
        self.lo > self.hi
    }

    /// True if `v` is in the interval.
    pub fn contains(self, v: i128) -> bool {
        self.lo <= v && v <= self.hi
    }

    /// Smallest interval holding both.
    pub fn union(self, o: Interval) -> Interval {
        match (self.is_empty(), o.is_empty()) {
            (true, _) => o,
            (_, true) => self,
            _ => Interval { lo: min(self.lo, o.lo), hi: max(self.hi, o.hi) },
        }
    }

    /// The common part (⊥ if none).
    pub fn meet(self, o: Interval) -> Interval {
        if self.is_empty() || o.is_empty() {
            return Interval::EMPTY;
        }
        let r = Interval { lo: max(self.lo, o.lo), hi: min(self.hi, o.hi) };
        if r.is_empty() {
            Interval::EMPTY
        } else {
            r
        }
    }

    /// True if every value of `self` is in `o`.
    pub fn within(self, o: Interval) -> bool {
        self.is_empty() || (!o.is_empty() && o.lo <= self.lo && self.hi <= o.hi)
    }

    /// The values modulo `2^t.bits`, as an interval in `t`'s window (see the module docs).
    pub fn wrap(self, t: Interp) -> Interval {
        if self.is_empty() {
            return self;
        }
        let window = Interval::full(t);
        if self.within(window) {
            return self;
        }
        let m = t.modulus();
        if self.hi.saturating_sub(self.lo) >= m - 1 {
            return window;
        }
        let shift = self.lo.checked_sub(t.min()).and_then(|off| off.div_euclid(m).checked_mul(m));
        let shifted = shift.and_then(|k| Some(Interval { lo: self.lo.checked_sub(k)?, hi: self.hi.checked_sub(k)? }));
        shifted.filter(|s| s.within(window)).unwrap_or(window)
    }

    /// Brings a value into `t`'s window: modular ([`Interval::wrap`]), or, in the solver's
    /// mathematical phase, only reinterpreting values that fit the `t.bits`-bit patterns and
    /// keeping anything beyond them as the unbounded integers Campos et al. work with.
    pub fn convert(self, t: Interp, modular: bool) -> Interval {
        let patterns = Interval::new(Interp::new(t.bits, true).min(), Interp::new(t.bits, false).max());
        if modular || self.within(patterns) {
            self.wrap(t)
        } else {
            self
        }
    }

    /// Applies a monotone-in-each-argument function to the four corners and takes the hull (⊥ if
    /// either input is ⊥).
    pub fn corners(self, o: Interval, f: impl Fn(i128, i128) -> i128) -> Interval {
        if self.is_empty() || o.is_empty() {
            return Interval::EMPTY;
        }
        let c = [f(self.lo, o.lo), f(self.lo, o.hi), f(self.hi, o.lo), f(self.hi, o.hi)];
        let lo = c.iter().copied().min().unwrap_or(0);
        let hi = c.iter().copied().max().unwrap_or(0);
        Interval { lo, hi }
    }

    /// The bits needed for the range (`SCHEMES.md` §A), at most `declared` (anything wider is
    /// full width). ⊥ (never written, or unreachable) counts as full width.
    pub fn bitwidth(self, declared: u32) -> BitWidth {
        if self.is_empty() {
            return BitWidth { bits: declared, signed: false };
        }
        let (bits, signed) = if self.lo >= 0 {
            (max(1, ceil_log2(self.hi.saturating_add(1))), false)
        } else {
            let up = if self.hi >= 0 { ceil_log2(self.hi.saturating_add(1)) } else { 0 };
            (1 + max(up, ceil_log2(self.lo.saturating_neg())), true)
        };
        BitWidth { bits: min(bits, declared), signed }
    }
}

/// `ceil(log2(v))` for `v ≥ 1` (0 for `v ≤ 1`).
pub fn ceil_log2(v: i128) -> u32 {
    if v <= 1 {
        return 0;
    }
    128 - (v - 1).leading_zeros()
}

impl core::ops::Add for Interval {
    type Output = Interval;
    /// `self + o` over the integers.
    fn add(self, o: Interval) -> Interval {
        self.corners(o, i128::saturating_add)
    }
}

impl core::ops::Sub for Interval {
    type Output = Interval;
    /// `self - o` over the integers.
    fn sub(self, o: Interval) -> Interval {
        self.corners(o, i128::saturating_sub)
    }
}

impl core::ops::Mul for Interval {
    type Output = Interval;
    /// `self * o` over the integers.
    fn mul(self, o: Interval) -> Interval {
        self.corners(o, i128::saturating_mul)
    }
}

impl core::ops::Neg for Interval {
    type Output = Interval;
    /// `-self`.
    fn neg(self) -> Interval {
        if self.is_empty() {
            return self;
        }
        Interval { lo: self.hi.saturating_neg(), hi: self.lo.saturating_neg() }
    }
}

impl core::fmt::Display for Interval {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        if self.is_empty() {
            f.write_str("⊥")
        } else {
            write!(f, "[{}, {}]", self.lo, self.hi)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const S32: Interp = Interp { bits: 32, signed: true };
    const U32: Interp = Interp { bits: 32, signed: false };

    #[test]
    fn bitwidth_formula() {
        assert_eq!(Interval::new(0, 50).bitwidth(32), BitWidth { bits: 6, signed: false });
        assert_eq!(Interval::new(0, 0).bitwidth(32), BitWidth { bits: 1, signed: false });
        assert_eq!(Interval::new(0, 255).bitwidth(32), BitWidth { bits: 8, signed: false });
        assert_eq!(Interval::new(0, 256).bitwidth(32), BitWidth { bits: 9, signed: false });
        assert_eq!(Interval::new(-1, 0).bitwidth(32), BitWidth { bits: 1, signed: true });
        assert_eq!(Interval::new(-128, 127).bitwidth(32), BitWidth { bits: 8, signed: true });
        assert_eq!(Interval::new(-129, 127).bitwidth(32), BitWidth { bits: 9, signed: true });
        assert_eq!(Interval::new(-50, -1).bitwidth(32), BitWidth { bits: 7, signed: true });
        assert_eq!(Interval::full(U32).bitwidth(32), BitWidth { bits: 32, signed: false });
        assert_eq!(Interval::full(S32).bitwidth(32), BitWidth { bits: 32, signed: true });
        assert_eq!(Interval::new(0, 1 << 40).bitwidth(32), BitWidth { bits: 32, signed: false });
    }

    #[test]
    fn wrapping() {
        assert_eq!(Interval::new(1, 50).wrap(S32), Interval::new(1, 50));
        // 0xFFFFFFFE + [0, 3] in unsigned arithmetic is {-2, -1, 0, 1} as signed.
        assert_eq!(Interval::new(0xFFFF_FFFE, 0x1_0000_0001).wrap(S32), Interval::new(-2, 1));
        assert_eq!(Interval::new(0xFFFF_FFFE, 0x1_0000_0001).wrap(U32), Interval::full(U32));
        assert_eq!(Interval::new(-3, -1).wrap(U32), Interval::new(0xFFFF_FFFD, 0xFFFF_FFFF));
        assert_eq!(Interval::new(0, 1 << 32).wrap(U32), Interval::full(U32));
        assert_eq!(Interval::new(1 << 31, 1 << 31).wrap(S32), Interval::constant(-(1 << 31)));
    }

    #[test]
    fn arithmetic() {
        let a = Interval::new(-2, 3);
        assert_eq!(a * Interval::new(-4, 5), Interval::new(-12, 15));
        assert_eq!(a - Interval::new(1, 2), Interval::new(-4, 2));
        assert_eq!(a.meet(Interval::new(4, 9)), Interval::EMPTY);
        assert_eq!(Interval::EMPTY.union(a), a);
        assert!((Interval::EMPTY + a).is_empty());
    }
}
