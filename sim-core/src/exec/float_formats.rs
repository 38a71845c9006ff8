//! Reduced float formats of precision tuning (Angerd et al. TACO'17, as the static compression
//! scheme uses them; `SCHEMES.md` §B): a value computed in FP32 is rounded to a narrower format
//! when its register is written.
//!
//! ```text
//! format 16 (5/10):  1.00048828125 (1 + 2^-11, a tie) → 1.0 (even) · 70000.0 → +Inf
//!                    1e-5 (below the smallest normal 2^-14) → +0.0 · NaN → NaN
//! ```
//!
//! **A**: round to nearest, ties to even; a result above the largest normal is ±Inf; below the
//! smallest normal (after rounding) it is zero of the same sign (no subnormals); NaN is kept
//! (its payload too); infinities stay.
//!
//! The executor applies a format at its one register write point ([`Warp::write`],
//! [`Warp::write_lane`]) for the registers [`super::run::Run::round_float_registers`] names.

use alloc::collections::BTreeMap;
use alloc::vec::Vec;

use super::program::Dst;
use super::warp::{Lanes, Warp};
use crate::ir::{Function, Type};

/// A float format: sign, `exponent` bits, `mantissa` bits.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct FloatFormat {
    /// Total bits (sign + exponent + mantissa).
    pub bits: u8,
    /// Exponent bits.
    pub exponent: u8,
    /// Mantissa (fraction) bits.
    pub mantissa: u8,
}

/// The formats precision tuning chooses from, widest first (`SCHEMES.md` §B).
pub const FORMATS: [FloatFormat; 7] = [
    FloatFormat { bits: 32, exponent: 8, mantissa: 23 },
    FloatFormat { bits: 28, exponent: 7, mantissa: 20 },
    FloatFormat { bits: 24, exponent: 6, mantissa: 17 },
    FloatFormat { bits: 20, exponent: 5, mantissa: 14 },
    FloatFormat { bits: 16, exponent: 5, mantissa: 10 },
    FloatFormat { bits: 12, exponent: 4, mantissa: 7 },
    FloatFormat { bits: 8, exponent: 3, mantissa: 4 },
];

impl FloatFormat {
    /// The format of `bits` total bits, if it is one of [`FORMATS`].
    pub fn of_bits(bits: u8) -> Option<FloatFormat> {
        FORMATS.iter().copied().find(|f| f.bits == bits)
    }

    /// The next narrower format (`None` for the narrowest).
    pub fn narrower(self) -> Option<FloatFormat> {
        let i = FORMATS.iter().position(|f| *f == self)?;
        FORMATS.get(i + 1).copied()
    }

    /// The exponent bias.
    fn bias(self) -> i32 {
        (1 << (self.exponent - 1)) - 1
    }

    /// `x` rounded to this format (and back to FP32).
    pub fn round(self, x: f32) -> f32 {
        if self.exponent >= 8 && self.mantissa >= 23 || x.is_nan() || x.is_infinite() {
            return x;
        }
        let bits = x.to_bits();
        let sign = bits & 0x8000_0000;
        let drop = 23 - u32::from(self.mantissa.min(23));
        let mut r = bits & 0x7fff_ffff;
        if drop > 0 {
            let mask = (1u32 << drop) - 1;
            let (rem, half) = (bits & mask, 1u32 << (drop - 1));
            r &= !mask;
            if rem > half || (rem == half && (r >> drop) & 1 == 1) {
                r += 1 << drop;
            }
        }
        // Unbiased exponent of the rounded magnitude (f32 subnormals and zero: below any normal).
        let e = ((r >> 23) & 0xff) as i32 - 127;
        if e > self.bias() {
            return f32::from_bits(sign | 0x7f80_0000);
        }
        if r == 0 || (r >> 23) == 0 || e < 1 - self.bias() {
            return f32::from_bits(sign);
        }
        f32::from_bits(sign | r)
    }

    /// [`FloatFormat::round`] on the low 32 bits of a register value (an FP32 bit pattern).
    pub fn round_bits(self, v: u64) -> u64 {
        u64::from(self.round(f32::from_bits(v as u32)).to_bits())
    }

    /// The largest finite value.
    pub fn max_normal(self) -> f32 {
        let m = 2.0 - libm_exp2(-i32::from(self.mantissa));
        m * libm_exp2(self.bias())
    }

    /// The smallest positive normal value.
    pub fn min_normal(self) -> f32 {
        libm_exp2(1 - self.bias())
    }
}

/// Index in [`FORMATS`] of the narrowest format in which the FP32 value of bit pattern `x` is
/// exact, so that [`FloatFormat::round`] to it and every wider one gives `x` back: NaN, the
/// infinities and zero in all; a subnormal (flushed by every narrower format) in none but FP32;
/// a normal value in those whose mantissa keeps its lowest set bit and whose exponent range
/// holds its exponent.
fn exact_down_to(x: u32) -> u8 {
    let (exp, frac) = ((x >> 23) & 0xff, x & 0x7f_ffff);
    if exp == 0xff || x & 0x7fff_ffff == 0 {
        return (FORMATS.len() - 1) as u8;
    }
    if exp == 0 {
        return 0;
    }
    let e = exp as i32 - 127;
    let low_zeros = frac.trailing_zeros().min(23);
    let mut k = 0u8;
    for (i, f) in FORMATS.iter().enumerate().skip(1) {
        if 23 - u32::from(f.mantissa) > low_zeros || e > f.bias() || e < 1 - f.bias() {
            break;
        }
        k = i as u8;
    }
    k
}

/// The non-predicate registers of `f` with their register slots (the decoder's numbering:
/// declaration order), each with its type.
fn register_slots(f: &Function) -> impl Iterator<Item = (usize, crate::ir::Handle<crate::ir::Reg>, Type)> + '_ {
    let regs = f.body.iter().flat_map(|b| b.regs.iter());
    regs.filter(|(_, r)| r.ty != Type::Pred).enumerate().map(|(slot, (h, r))| (slot, h, r.ty))
}

/// Per register slot of function `f` (raw handle `func`): the format bits `formats` gives its
/// register (0: none); empty if none is named. Slots number the non-predicate registers in
/// declaration order, as the decoder does.
pub fn rounding_slots(func: u32, f: &Function, formats: &BTreeMap<(u32, u32), u8>) -> Vec<u8> {
    let slots: Vec<u8> = register_slots(f)
        .map(|(_, h, ty)| if ty == Type::F32 { formats.get(&(func, h.raw())).copied().unwrap_or(0) } else { 0 })
        .collect();
    if slots.iter().all(|&b| b == 0 || b >= 32) {
        return Vec::new();
    }
    slots
}

/// Per register slot of function `f` (raw handle `func`): where precision tuning's exactness
/// record of a run starts ([`Warp::note_exactness`]) — the narrowest format's index for the
/// `.f32` registers in `tracked`, 0 (not recorded) for the others; empty if none is tracked.
pub fn exactness_slots(func: u32, f: &Function, tracked: &[(u32, u32)]) -> Vec<u8> {
    let narrowest = (FORMATS.len() - 1) as u8;
    let slots: Vec<u8> = register_slots(f)
        .map(|(_, h, ty)| u8::from(ty == Type::F32 && tracked.contains(&(func, h.raw()))) * narrowest)
        .collect();
    if slots.iter().all(|&k| k == 0) {
        return Vec::new();
    }
    slots
}

/// The exactness record `slots` of function `f` (raw handle `func`) as (function, register) →
/// total bits of the narrowest format every write of the run left unchanged, for the tracked
/// registers ([`exactness_slots`]).
pub fn exactness_by_register(func: u32, f: &Function, slots: &[u8], tracked: &[(u32, u32)]) -> Vec<((u32, u32), u8)> {
    register_slots(f)
        .filter(|(_, h, ty)| *ty == Type::F32 && tracked.contains(&(func, h.raw())))
        .filter_map(|(slot, h, _)| {
            let k = *slots.get(slot)?;
            Some(((func, h.raw()), FORMATS.get(usize::from(k))?.bits))
        })
        .collect()
}

/// The narrowest index `k` at most `upto` for which a run writing `v` rounded to each format
/// from `current`'s (`None`: FP32) down to `FORMATS[k]` would store the same value as it does
/// now (under register mask `m`); at least `current`'s own index.
fn kept_down_to(current: Option<(usize, FloatFormat)>, v: u64, m: u64, upto: u8) -> u8 {
    let Some((j, c)) = current else {
        // Unrounded: the stored value is `v & m`, a narrower format's `round_bits(v) & m`.
        if (v & m) >> 32 != 0 {
            return 0;
        }
        return exact_down_to(v as u32).min(upto);
    };
    let stored = c.round_bits(v) & m;
    let mut k = j as u8;
    for (i, f) in FORMATS.iter().enumerate().take(usize::from(upto) + 1).skip(j + 1) {
        if f.round_bits(v) & m != stored {
            break;
        }
        k = i as u8;
    }
    k
}

impl Warp {
    /// The format a write to `d` is rounded to: a register of the kernel's frame named in
    /// [`Warp::rounding`].
    fn rounding_of(&self, d: Dst) -> Option<FloatFormat> {
        let Dst::Reg(r, _) = d else { return None };
        if self.frames.len() != 1 {
            return None;
        }
        let bits = self.rounding.get(r as usize).copied().filter(|&b| b > 0 && b < 32)?;
        FloatFormat::of_bits(bits)
    }

    /// `vals` rounded for a write to `d` (`None`: no rounding).
    pub(crate) fn rounded(&self, d: Dst, vals: &Lanes) -> Option<Lanes> {
        let f = self.rounding_of(d)?;
        let mut out = *vals;
        for v in &mut out {
            *v = f.round_bits(*v);
        }
        Some(out)
    }

    /// Precision tuning's exactness record ([`Warp::exactness`]) for a write of `vals` (before
    /// rounding) to `d` in the lanes of `mask`: a tracked register of the kernel's frame keeps the
    /// narrowest format index whose rounding would have stored every value it was written so far
    /// unchanged — a trial of that format, or of any between, repeats this run exactly.
    pub(crate) fn note_exactness(&mut self, d: Dst, vals: &Lanes, mask: u32) {
        let lanes = vals.iter().enumerate().filter(|&(l, _)| mask >> l & 1 == 1).map(|(_, &v)| v);
        self.note_exactness_of(d, lanes);
    }

    /// [`Warp::note_exactness`] for a write of one lane's value `v`.
    pub(crate) fn note_exactness_lane(&mut self, d: Dst, v: u64) {
        self.note_exactness_of(d, core::iter::once(v));
    }

    fn note_exactness_of(&mut self, d: Dst, values: impl Iterator<Item = u64>) {
        let Dst::Reg(r, m) = d else { return };
        if self.frames.len() != 1 {
            return;
        }
        let Some(&upto) = self.exactness.get(r as usize).filter(|&&k| k > 0) else { return };
        let current = self.rounding_of(d).and_then(|f| Some((FORMATS.iter().position(|x| *x == f)?, f)));
        let mut k = upto;
        for v in values {
            k = kept_down_to(current, v, m, k);
            if k == 0 {
                break;
            }
        }
        if let Some(slot) = self.exactness.get_mut(r as usize) {
            *slot = k;
        }
    }

    /// One lane's value `v` rounded for a write to `d`.
    pub(crate) fn rounded_lane(&self, d: Dst, v: u64) -> u64 {
        self.rounding_of(d).map_or(v, |f| f.round_bits(v))
    }
}

/// `2^e` for the exponents formats have (−126 ..= 127).
fn libm_exp2(e: i32) -> f32 {
    f32::from_bits(((e.clamp(-126, 127) + 127) as u32) << 23)
}

#[cfg(test)]
mod tests {
    use super::{exact_down_to, kept_down_to, libm_exp2, FloatFormat, FORMATS};
    use alloc::vec;
    use alloc::vec::Vec;

    fn each_narrow() -> impl Iterator<Item = FloatFormat> {
        FORMATS.iter().copied().filter(|f| f.bits < 32)
    }

    /// The largest finite value of each format stays; one half-ulp above rounds up to the next
    /// binade, which is out of range: ±Inf. Just below the half-ulp it rounds back to the max.
    #[test]
    fn overflow_goes_to_infinity() {
        for f in each_narrow() {
            let max = f.max_normal();
            let ulp = libm_exp2(f.bias() - i32::from(f.mantissa));
            assert_eq!(f.round(max), max, "{f:?}");
            assert_eq!(f.round(-max), -max, "{f:?}");
            assert_eq!(f.round(max + ulp / 2.0), f32::INFINITY, "{f:?}: the tie rounds to even = up");
            assert_eq!(f.round(-(max + ulp)), f32::NEG_INFINITY, "{f:?}");
            assert_eq!(f.round(max + ulp / 4.0), max, "{f:?}");
            assert_eq!(f.round(f32::INFINITY), f32::INFINITY);
        }
        // Format 16 (5/10, half precision): max 65504; 65520 is the tie → Inf; 65519 → 65504.
        let h = FloatFormat { bits: 16, exponent: 5, mantissa: 10 };
        assert_eq!((h.round(65504.0), h.round(65520.0), h.round(65519.0)), (65504.0, f32::INFINITY, 65504.0));
    }

    /// Below the smallest normal → zero of the same sign (no subnormals); the smallest normal
    /// stays.
    #[test]
    fn below_the_smallest_normal_is_signed_zero() {
        for f in each_narrow() {
            let min = f.min_normal();
            assert_eq!(f.round(min), min, "{f:?}");
            let half = f.round(min / 2.0);
            assert!(half == 0.0 && half.is_sign_positive(), "{f:?}: {half}");
            let neg = f.round(-min * 0.75);
            assert!(neg == 0.0 && neg.is_sign_negative(), "{f:?}: {neg}");
            assert_eq!(f.round(0.0).to_bits(), 0);
            assert_eq!(f.round(-0.0).to_bits(), 0x8000_0000);
        }
        // Format 8 (3/4): bias 3, smallest normal 2^-2 = 0.25; 0.2 → +0.
        let q = FloatFormat { bits: 8, exponent: 3, mantissa: 4 };
        assert_eq!((q.min_normal(), q.round(0.2), q.max_normal()), (0.25, 0.0, 15.5));
    }

    /// NaN stays NaN with its payload; every format.
    #[test]
    fn nan_is_kept() {
        let payload = f32::from_bits(0x7fc0_1234);
        for f in FORMATS {
            assert_eq!(f.round(payload).to_bits(), 0x7fc0_1234, "{f:?}");
        }
    }

    /// Ties round to even: 1 + 2^-(m+1) lies halfway between 1 (even) and 1 + 2^-m (odd) → 1;
    /// 1 + 3·2^-(m+1) lies halfway between 1 + 2^-m (odd) and 1 + 2^-(m-1) (even) → the latter.
    /// Off-tie values round to nearest.
    #[test]
    fn ties_round_to_even() {
        for f in each_narrow() {
            let m = i32::from(f.mantissa);
            let step = libm_exp2(-m);
            assert_eq!(f.round(1.0 + step / 2.0), 1.0, "{f:?}");
            assert_eq!(f.round(1.0 + 1.5 * step), 1.0 + 2.0 * step, "{f:?}");
            assert_eq!(f.round(1.0 + 0.75 * step), 1.0 + step, "{f:?}");
            assert_eq!(f.round(-(1.0 + step / 2.0)), -1.0, "{f:?}");
        }
        // Format 8 (4 mantissa bits): 1.03125 = 1 + 2^-5 → 1.0; 1.09375 = 1 + 3·2^-5 → 1.125.
        let q = FloatFormat { bits: 8, exponent: 3, mantissa: 4 };
        assert_eq!((q.round(1.03125), q.round(1.09375)), (1.0, 1.125));
    }

    /// FP32 is the identity, and the order of formats is widest first.
    #[test]
    fn thirty_two_bits_is_the_identity_and_formats_narrow_in_order() {
        let f = FORMATS[0];
        for x in [1.0e-40f32, 3.4e38, -1.1754944e-38, 0.1] {
            assert_eq!(f.round(x).to_bits(), x.to_bits());
        }
        let chain: Vec<u8> = core::iter::successors(Some(f), |g| g.narrower()).map(|g| g.bits).collect();
        assert_eq!(chain, vec![32, 28, 24, 20, 16, 12, 8]);
    }

    /// Bit patterns around every format's edges (its smallest and largest normal, the rounding
    /// boundaries of its mantissa, ties, FP32 subnormals, zeros, infinities, NaNs) and a spread
    /// of others.
    fn patterns() -> Vec<u32> {
        let mut out = vec![0, 0x8000_0000, 0x7f80_0000, 0xff80_0000, 0x7fc0_0001, 1, 0x0040_0000, 0x0080_0000];
        for f in FORMATS {
            for x in
                [f.min_normal(), f.max_normal(), 1.0 + libm_exp2(-i32::from(f.mantissa)), 16.5, 2.0f32.powi(23) + 1.0]
            {
                for d in -3i64..=3 {
                    let b = (i64::from(x.to_bits()) + d) as u32;
                    out.extend([b, b | 0x8000_0000]);
                }
            }
        }
        let mut z = 0x1234_5678u32;
        for _ in 0..4000 {
            z ^= z << 13;
            z ^= z >> 17;
            z ^= z << 5;
            // Few low fraction bits set, so narrow formats keep some of them exactly.
            out.extend([z, z & !0x0000_ffff, z & !0x003f_ffff]);
        }
        out
    }

    /// The index `exact_down_to` gives is the last of the formats, widest first, whose `round`
    /// gives the bits back unchanged, and every wider one does too.
    #[test]
    fn exactness_is_the_last_format_that_rounds_to_the_same_bits() {
        for x in patterns() {
            let same = |f: &FloatFormat| f.round(f32::from_bits(x)).to_bits() == x;
            let brute = FORMATS.iter().take_while(|f| same(f)).count() - 1;
            assert_eq!(usize::from(exact_down_to(x)), brute, "{x:#010x}");
        }
    }

    /// For a register already rounded to format `j`, the index `kept_down_to` gives is the last
    /// before the first narrower format whose rounding of the raw value stores other bits than
    /// format `j` does — checked from every `j`, under a 32-bit register mask and with bits above
    /// it, and capped by `upto`.
    #[test]
    fn kept_formats_store_what_the_run_stored() {
        let m = u64::from(u32::MAX);
        for x in patterns() {
            let v = u64::from(x);
            assert_eq!(kept_down_to(None, v, m, 6), exact_down_to(x));
            assert_eq!(kept_down_to(None, v, m, 2), exact_down_to(x).min(2));
            // A 64-bit register slot holding more than a float: only FP32 keeps it.
            assert_eq!(kept_down_to(None, v | 1 << 40, u64::MAX, 6), 0);
            for (j, c) in FORMATS.iter().enumerate().skip(1) {
                let stored = c.round_bits(v) & m;
                let brute = FORMATS.iter().skip(j + 1).take_while(|f| f.round_bits(v) & m == stored).count() + j;
                assert_eq!(usize::from(kept_down_to(Some((j, *c)), v, m, 6)), brute, "{x:#010x} from {j}");
            }
        }
    }
}
