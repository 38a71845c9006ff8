//! The value side of a warp's stream: for each instruction that wrote registers, the
//! [`ValueSummary`] of every unit it wrote (uniform or not, significant bits; definitions in
//! [`crate::exec::value_summary`]). Present only when a scheme asked the executor for values
//! ([`crate::exec::TraceOptions::values`]); otherwise both vectors stay empty and replay never
//! looks at them — the records the timing model decodes do not grow.
//!
//! ```text
//! stream:  #0 mov %r2, %tid.x   #1 add %r3, %r2, 1   #2 bra   #3 st
//! index:   [(0, 0), (1, 1)]                          // (position, first unit)
//! units:   [{not uniform, u5 s6}, {not uniform, u6 s7}]
//! ```

use alloc::string::String;
use alloc::vec::Vec;

use serde::{Deserialize, Serialize};

pub use crate::exec::value_summary::ValueSummary;

/// Value summaries of one warp's stream.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct StreamValues {
    /// `(position in the stream, index of its first unit in units)`, by position.
    index: Vec<(u32, u32)>,
    /// The summaries, in stream order.
    units: Vec<ValueSummary>,
    /// Units dropped from the front of a window ([`StreamValues::trim`]): the second numbers
    /// of `index` count from the stream's first unit.
    #[serde(default, skip_serializing_if = "is_zero")]
    dropped: u32,
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

impl StreamValues {
    /// True when nothing was recorded (values off, or no instruction wrote a register).
    pub fn is_empty(&self) -> bool {
        self.index.is_empty()
    }

    /// Records that the instruction at position `at` (after every position recorded so far)
    /// wrote `units`.
    pub fn push(&mut self, at: u32, units: &[ValueSummary]) -> Result<(), &'static str> {
        if units.is_empty() {
            return Ok(());
        }
        if self.index.last().is_some_and(|&(p, _)| p >= at) {
            return Err("value summaries out of order");
        }
        let start = u32::try_from(self.units.len() + self.dropped as usize)
            .map_err(|_| "too many value summaries in a warp")?;
        self.index.push((at, start));
        self.units.extend_from_slice(units);
        Ok(())
    }

    /// The summaries of the instruction at position `at` (empty if it wrote no register or
    /// values were not recorded), one per unit in destination order.
    pub fn at(&self, at: u32) -> &[ValueSummary] {
        let Ok(i) = self.index.binary_search_by_key(&at, |&(p, _)| p) else { return &[] };
        let d = self.dropped as usize;
        let start = self.index.get(i).map_or(0, |&(_, s)| s as usize);
        let end = self.index.get(i + 1).map_or(self.units.len() + d, |&(_, s)| s as usize);
        self.units.get(start.wrapping_sub(d)..end.wrapping_sub(d)).unwrap_or(&[])
    }

    /// Every recorded instruction in position order: its position and its summaries.
    pub fn entries(&self) -> impl Iterator<Item = (u32, &[ValueSummary])> + '_ {
        let d = self.dropped as usize;
        let ends = self.index.iter().skip(1).map(|&(_, s)| s as usize).chain(core::iter::once(self.units.len() + d));
        self.index.iter().zip(ends).map(move |(&(p, s), end)| {
            (p, self.units.get((s as usize).wrapping_sub(d)..end.wrapping_sub(d)).unwrap_or(&[]))
        })
    }

    /// Appends the summaries of `chunk`, the instructions that follow (positions already
    /// counted from the stream's start).
    pub fn append(&mut self, chunk: &StreamValues) {
        let shift = (self.units.len() + self.dropped as usize) as u32;
        let from = chunk.dropped;
        self.index.extend(chunk.index.iter().map(|&(p, s)| (p, s.wrapping_sub(from).wrapping_add(shift))));
        self.units.extend_from_slice(&chunk.units);
    }

    /// Drops the summaries of positions before `start`.
    pub fn trim(&mut self, start: u32) {
        let k = self.index.iter().take_while(|&&(p, _)| p < start).count();
        if k == 0 {
            return;
        }
        let first = self.index.get(k).map_or(self.units.len() as u32 + self.dropped, |&(_, s)| s);
        self.index.drain(..k);
        let n = (first - self.dropped) as usize;
        self.units.drain(..n.min(self.units.len()));
        self.dropped = first;
    }

    /// Checks the positions against a stream of `len` instructions.
    pub fn validate(&self, len: u32) -> Result<(), String> {
        let sorted = self.index.windows(2).all(|w| w[0].0 < w[1].0 && w[0].1 < w[1].1);
        let in_range = self
            .index
            .last()
            .is_none_or(|&(p, s)| p < len && s >= self.dropped && ((s - self.dropped) as usize) < self.units.len());
        if sorted && in_range {
            Ok(())
        } else {
            Err(String::from("value summaries out of range"))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn summaries_are_found_by_position() {
        let (a, b, c) = (ValueSummary::new(true, 3, 4), ValueSummary::new(false, 32, 1), ValueSummary::new(true, 0, 1));
        let mut v = StreamValues::default();
        assert!(v.is_empty());
        assert_eq!(v.push(0, &[a]), Ok(()));
        assert_eq!(v.push(2, &[]), Ok(()), "nothing written: nothing kept");
        assert_eq!(v.push(3, &[b, c]), Ok(()));
        assert_eq!(v.at(0), [a]);
        assert_eq!(v.at(1), []);
        assert_eq!(v.at(2), []);
        assert_eq!(v.at(3), [b, c]);
        assert_eq!(v.validate(4), Ok(()));
        assert!(v.validate(3).is_err(), "position 3 is past a 3-instruction stream");
        assert!(v.push(3, &[a]).is_err(), "positions only increase");
    }
}
