//! Compact summaries of the values a warp-instruction wrote, for schemes that model values (a
//! scalar unit for uniform values, a sliced datapath for narrow ones, narrow-width statistics):
//! per written register unit, whether every executed lane wrote the same value, and how many
//! significant bits the values need, unsigned and signed. Recorded only when
//! [`super::TraceOptions::values`] asks for it.
//!
//! Definitions (per unit, across the lanes that executed the instruction):
//!
//! - A *unit* is a 32-bit slice of a register: a register of 32 bits or fewer is one unit of its
//!   own width (`.b16`, `.b8` registers: 16 or 8 bits); a 64-bit register is two units, its low
//!   32 bits first, then its high 32 bits, each read as a 32-bit number. Predicates are not
//!   summarised (they are a file of their own).
//! - *Unsigned bits*: the smallest `n ≥ 0` with every value `< 2^n` (the bits of the largest
//!   value): 0 → 0, 1 → 1, 0x7fff → 15, 0x8000_0000 → 32, −1 → the unit's width.
//! - *Signed bits*: the smallest `n ≥ 1` with every value, read as a two's-complement number of
//!   the unit's width, in `[−2^(n−1), 2^(n−1))`: 0 → 1, −1 → 1, 1 → 2, 0x7fff → 16, −32768 → 16,
//!   0x8000_0000 → 32.
//! - *Uniform*: every executed lane wrote the same value to the unit.
//!
//! ```text
//! mov.u32 %r2, %tid.x;      // lanes 0..31 → 0..31: not uniform, unsigned 5, signed 6
//! add.s32 %r3, %r3, -1;     // every lane −1:       uniform, unsigned 32, signed 1
//! ```
//!
//! An instruction whose guard held in no lane wrote nothing and has no summaries.

use serde::{Deserialize, Serialize};

use super::warp::Lanes;

/// The summary of one written unit, packed in 16 bits: unsigned bits (0–32) in bits 0–5, signed
/// bits (1–32) in bits 6–11, uniform in bit 15.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct ValueSummary(pub u16);

const UNIFORM: u16 = 1 << 15;

impl ValueSummary {
    /// A summary from its parts (`unsigned` 0–32, `signed` 1–32).
    pub fn new(uniform: bool, unsigned: u32, signed: u32) -> Self {
        let u = (unsigned.min(32) as u16) | ((signed.clamp(1, 32) as u16) << 6);
        ValueSummary(u | if uniform { UNIFORM } else { 0 })
    }

    /// Every executed lane wrote the same value.
    pub fn uniform(self) -> bool {
        self.0 & UNIFORM != 0
    }

    /// Bits of the largest value, read unsigned.
    pub fn unsigned_bits(self) -> u32 {
        u32::from(self.0 & 0x3f)
    }

    /// Bits of two's complement needed for every value, read signed.
    pub fn signed_bits(self) -> u32 {
        u32::from((self.0 >> 6) & 0x3f)
    }
}

/// The summary of one unit: bits `shift..shift + width` of each lane of `lanes` in `executed`
/// (`executed` must not be 0; `width` 1 to 32).
pub fn summarise_unit(lanes: &Lanes, executed: u32, shift: u32, width: u32) -> ValueSummary {
    let width = width.clamp(1, 32);
    let mask = if width == 32 { u32::MAX } else { (1u32 << width) - 1 };
    let pad = 32 - width;
    let unit = |v: u64| (v >> shift) as u32 & mask;
    let first = unit(lanes[(executed.trailing_zeros() & 31) as usize]);
    let (mut ors, mut mag, mut same) = (0u32, 0u32, true);
    let mut m = executed;
    while m != 0 {
        let x = unit(lanes[m.trailing_zeros() as usize]);
        m &= m - 1;
        same &= x == first;
        ors |= x;
        // Sign-extend from `width` bits; a negative value's magnitude bits are those of !s.
        let s = ((x << pad) as i32) >> pad;
        mag |= (s ^ (s >> 31)) as u32;
    }
    ValueSummary::new(same, 32 - ors.leading_zeros(), 33 - mag.leading_zeros())
}

/// Appends the summaries of a register of `bits` bits (the width mask of its destination)
/// written with `lanes` in `executed` to `out`: one unit, or two for a 64-bit register.
pub fn summarise(lanes: &Lanes, executed: u32, width_mask: u64, out: &mut alloc::vec::Vec<ValueSummary>) {
    if executed == 0 {
        return;
    }
    let bits = 64 - width_mask.leading_zeros();
    if bits > 32 {
        out.push(summarise_unit(lanes, executed, 0, 32));
        out.push(summarise_unit(lanes, executed, 32, bits - 32));
    } else {
        out.push(summarise_unit(lanes, executed, 0, bits));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::vec::Vec;

    fn one(v: u64, width_mask: u64) -> Vec<ValueSummary> {
        let mut out = Vec::new();
        summarise(&[v; 32], u32::MAX, width_mask, &mut out);
        out
    }

    fn parts(s: ValueSummary) -> (bool, u32, u32) {
        (s.uniform(), s.unsigned_bits(), s.signed_bits())
    }

    #[test]
    fn widths_of_single_values_follow_the_definitions() {
        let w32 = 0xFFFF_FFFF;
        // 0x7fff: 15 bits unsigned; signed needs a 0 sign bit above them: 16.
        assert_eq!(one(0x7fff, w32).iter().map(|&s| parts(s)).collect::<Vec<_>>(), [(true, 15, 16)]);
        // −1 (all ones): unsigned the full 32 bits; signed a single sign bit.
        assert_eq!(parts(one(0xFFFF_FFFF, w32)[0]), (true, 32, 1));
        // 0: no bits unsigned, one (the sign) signed.
        assert_eq!(parts(one(0, w32)[0]), (true, 0, 1));
        // 1: one bit; signed 01 → 2.
        assert_eq!(parts(one(1, w32)[0]), (true, 1, 2));
        // 0x8000_0000: 32 unsigned; as s32 it is −2^31, the most negative value: 32 signed.
        assert_eq!(parts(one(0x8000_0000, w32)[0]), (true, 32, 32));
        // −32768 = 0xffff8000: signed 16 (1000…0 in 16 bits).
        assert_eq!(parts(one(0xFFFF_8000, w32)[0]), (true, 32, 16));
    }

    #[test]
    fn narrow_and_wide_registers_use_their_own_units() {
        // A 16-bit register holding 0xffff is −1 in its own width: signed 1, unsigned 16.
        assert_eq!(parts(one(0xFFFF, 0xFFFF)[0]), (true, 16, 1));
        // A 64-bit −1: two units, each all ones.
        let s = one(u64::MAX, u64::MAX);
        assert_eq!(s.iter().map(|&x| parts(x)).collect::<Vec<_>>(), [(true, 32, 1), (true, 32, 1)]);
        // 0x1_0000_0005: low unit 5 (3 bits, signed 4), high unit 1 (1 bit, signed 2).
        let s = one(0x1_0000_0005, u64::MAX);
        assert_eq!(s.iter().map(|&x| parts(x)).collect::<Vec<_>>(), [(true, 3, 4), (true, 1, 2)]);
    }

    #[test]
    fn uniformity_and_widths_only_count_executed_lanes() {
        let mut lanes = [0u64; 32];
        for (l, v) in lanes.iter_mut().enumerate() {
            *v = l as u64;
        }
        let mut out = Vec::new();
        // Lane l holds l: not uniform; max 31 → 5 bits; signed 6.
        summarise(&lanes, u32::MAX, 0xFFFF_FFFF, &mut out);
        // Only lanes 4 and 5 (4 = 100, 5 = 101): not uniform, 3 bits, signed 4.
        summarise(&lanes, 0b11_0000, 0xFFFF_FFFF, &mut out);
        // Only lane 7: uniform by itself.
        summarise(&lanes, 1 << 7, 0xFFFF_FFFF, &mut out);
        // No lane: nothing written, no summary.
        summarise(&lanes, 0, 0xFFFF_FFFF, &mut out);
        let got: Vec<_> = out.iter().map(|&s| parts(s)).collect();
        assert_eq!(got, [(false, 5, 6), (false, 3, 4), (true, 3, 4)]);
        // A mix of −1 and 1: signed 2 (11, 01), unsigned 32.
        let mut mixed = [1u64; 32];
        mixed[3] = 0xFFFF_FFFF;
        out.clear();
        summarise(&mixed, u32::MAX, 0xFFFF_FFFF, &mut out);
        assert_eq!(parts(out[0]), (false, 32, 2));
    }
}
