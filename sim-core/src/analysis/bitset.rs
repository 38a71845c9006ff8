//! Compact bit sets for dataflow: [`BitSet`] (owned, fixed capacity), [`Bits`] (a borrowed view of
//! one row) and [`BitMatrix`] (one row per instruction, stored flat).
//!
//! ```text
//! .reg .b64 %rd<2>;  .reg .b32 %r<2>;   // units: %rd0 → 0..2, %rd1 → 2..4, %r0 → 4, %r1 → 5
//! add.s64 %rd1, %rd0, 8;                // live-in {0, 1}, live-out {2, 3}
//! ```
//!
//! Liveness keeps one bit per 32-bit register *unit*, so counting set bits gives register
//! pressure directly; the same types serve reaching definitions (one bit per definition).

use alloc::vec;
use alloc::vec::Vec;

const WORD: usize = 64;

fn words_for(len: usize) -> usize {
    len.div_ceil(WORD)
}

/// A set of integers in `0..capacity`, one bit each.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct BitSet {
    words: Vec<u64>,
    capacity: usize,
}

impl BitSet {
    /// An empty set that can hold `0..capacity`.
    pub fn new(capacity: usize) -> Self {
        BitSet { words: vec![0; words_for(capacity)], capacity }
    }

    /// The capacity given to [`BitSet::new`].
    pub fn capacity(&self) -> usize {
        self.capacity
    }

    /// Adds `i`; returns true if it was absent. Out-of-range values are ignored.
    pub fn insert(&mut self, i: usize) -> bool {
        match self.words.get_mut(i / WORD) {
            Some(w) if i < self.capacity => {
                let bit = 1u64 << (i % WORD);
                let was = *w & bit != 0;
                *w |= bit;
                !was
            }
            _ => false,
        }
    }

    /// Removes `i`.
    pub fn remove(&mut self, i: usize) {
        if let Some(w) = self.words.get_mut(i / WORD) {
            *w &= !(1u64 << (i % WORD));
        }
    }

    /// Adds `start..start + n`.
    pub fn insert_range(&mut self, start: usize, n: usize) {
        self.update_range(start, n, true);
    }

    /// Removes `start..start + n`.
    pub fn remove_range(&mut self, start: usize, n: usize) {
        self.update_range(start, n, false);
    }

    fn update_range(&mut self, start: usize, n: usize, set: bool) {
        let end = (start + n).min(self.capacity);
        let mut i = start;
        while i < end {
            let (wi, bit) = (i / WORD, i % WORD);
            let len = (WORD - bit).min(end - i);
            let mask = if len == WORD { u64::MAX } else { ((1u64 << len) - 1) << bit };
            if let Some(w) = self.words.get_mut(wi) {
                if set {
                    *w |= mask;
                } else {
                    *w &= !mask;
                }
            }
            i += len;
        }
    }

    /// Whether `i` is in the set.
    pub fn contains(&self, i: usize) -> bool {
        self.as_bits().contains(i)
    }

    /// Removes everything.
    pub fn clear(&mut self) {
        self.words.iter_mut().for_each(|w| *w = 0);
    }

    /// Adds every element of `other`; returns true if the set grew.
    pub fn union_with(&mut self, other: &BitSet) -> bool {
        self.union_with_words(&other.words)
    }

    /// Adds every element of a row; returns true if the set grew.
    pub fn union_with_words(&mut self, other: &[u64]) -> bool {
        let mut changed = false;
        for (a, b) in self.words.iter_mut().zip(other) {
            let new = *a | b;
            changed |= new != *a;
            *a = new;
        }
        changed
    }

    /// Removes every element of `other`.
    pub fn subtract(&mut self, other: &BitSet) {
        for (a, b) in self.words.iter_mut().zip(&other.words) {
            *a &= !b;
        }
    }

    /// Keeps only the elements also in `other`.
    pub fn intersect_with(&mut self, other: &BitSet) {
        self.intersect_with_words(&other.words);
    }

    /// Keeps only the elements also in the row `other`.
    pub fn intersect_with_words(&mut self, other: &[u64]) {
        for (a, b) in self.words.iter_mut().zip(other) {
            *a &= b;
        }
    }

    /// Makes this set equal to `other` (same capacity assumed).
    pub fn copy_from(&mut self, other: &BitSet) {
        self.words.copy_from_slice(&other.words);
    }

    /// Number of elements.
    pub fn count(&self) -> usize {
        self.as_bits().count()
    }

    /// True if no element is present.
    pub fn is_empty(&self) -> bool {
        self.words.iter().all(|w| *w == 0)
    }

    /// Elements in increasing order.
    pub fn iter(&self) -> impl Iterator<Item = usize> + '_ {
        iter_ones(&self.words)
    }

    /// Elements in `range`, in increasing order.
    pub fn iter_range(&self, range: core::ops::Range<usize>) -> impl Iterator<Item = usize> + '_ {
        let (start, end) = (range.start, range.end.min(self.capacity));
        let (first, last) = (start / WORD, end.div_ceil(WORD));
        self.words.get(first..last.max(first)).unwrap_or(&[]).iter().enumerate().flat_map(move |(k, &w)| {
            let wi = first + k;
            let mut rest = w;
            if wi == start / WORD {
                rest &= u64::MAX << (start % WORD);
            }
            if wi + 1 == last && end % WORD != 0 {
                rest &= u64::MAX >> (WORD - end % WORD);
            }
            core::iter::from_fn(move || {
                if rest == 0 {
                    return None;
                }
                let bit = rest.trailing_zeros() as usize;
                rest &= rest - 1;
                Some(wi * WORD + bit)
            })
        })
    }

    /// True if some element lies in `range`.
    pub fn any_in(&self, range: core::ops::Range<usize>) -> bool {
        self.iter_range(range).next().is_some()
    }

    /// The underlying words (bit `i` is bit `i % 64` of word `i / 64`).
    pub fn words(&self) -> &[u64] {
        &self.words
    }

    /// A borrowed view.
    pub fn as_bits(&self) -> Bits<'_> {
        Bits { words: &self.words }
    }
}

fn iter_ones(words: &[u64]) -> impl Iterator<Item = usize> + '_ {
    words.iter().enumerate().flat_map(|(wi, &w)| {
        let mut rest = w;
        core::iter::from_fn(move || {
            if rest == 0 {
                return None;
            }
            let bit = rest.trailing_zeros() as usize;
            rest &= rest - 1;
            Some(wi * WORD + bit)
        })
    })
}

/// A borrowed, read-only bit set (one row of a [`BitMatrix`], or a [`BitSet`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Bits<'a> {
    words: &'a [u64],
}

impl<'a> Bits<'a> {
    /// Whether `i` is in the set.
    pub fn contains(self, i: usize) -> bool {
        self.words.get(i / WORD).is_some_and(|w| w & (1u64 << (i % WORD)) != 0)
    }

    /// Number of elements.
    pub fn count(self) -> usize {
        self.words.iter().map(|w| w.count_ones() as usize).sum()
    }

    /// Elements in increasing order.
    pub fn iter(self) -> impl Iterator<Item = usize> + 'a {
        iter_ones(self.words)
    }

    /// The underlying words.
    pub fn words(self) -> &'a [u64] {
        self.words
    }

    /// An owned copy with capacity `capacity`.
    pub fn to_bitset(self, capacity: usize) -> BitSet {
        let mut s = BitSet::new(capacity);
        s.union_with_words(self.words);
        s
    }
}

/// `rows` bit sets of equal capacity stored in one allocation.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct BitMatrix {
    words_per_row: usize,
    rows: usize,
    capacity: usize,
    data: Vec<u64>,
}

impl BitMatrix {
    /// `rows` empty rows, each able to hold `0..capacity`.
    pub fn new(rows: usize, capacity: usize) -> Self {
        let words_per_row = words_for(capacity);
        BitMatrix { words_per_row, rows, capacity, data: vec![0; words_per_row * rows] }
    }

    /// Number of rows.
    pub fn rows(&self) -> usize {
        self.rows
    }

    /// Capacity of each row.
    pub fn capacity(&self) -> usize {
        self.capacity
    }

    /// Row `r` (empty if out of range).
    pub fn row(&self, r: usize) -> Bits<'_> {
        let start = r * self.words_per_row;
        Bits { words: self.data.get(start..start + self.words_per_row).unwrap_or(&[]) }
    }

    /// Overwrites row `r` with `set`.
    pub fn set_row(&mut self, r: usize, set: &BitSet) {
        let start = r * self.words_per_row;
        if let Some(dst) = self.data.get_mut(start..start + self.words_per_row) {
            dst.copy_from_slice(set.words());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn set_operations() {
        let mut a = BitSet::new(130);
        assert!(a.insert(3));
        assert!(!a.insert(3));
        a.insert_range(63, 3);
        assert!(!a.insert(130));
        assert_eq!(a.iter().collect::<Vec<_>>(), [3, 63, 64, 65]);
        let mut b = BitSet::new(130);
        b.insert(129);
        b.insert(3);
        assert!(a.union_with(&b));
        assert!(!a.union_with(&b));
        assert_eq!(a.count(), 5);
        a.subtract(&b);
        assert_eq!(a.iter().collect::<Vec<_>>(), [63, 64, 65]);
        a.remove_range(64, 2);
        assert!(a.contains(63) && !a.contains(64));
        let mut c = BitSet::new(200);
        [0, 5, 63, 64, 127, 128, 150, 199].iter().for_each(|&i| {
            c.insert(i);
        });
        assert_eq!(c.iter_range(5..128).collect::<Vec<_>>(), [5, 63, 64, 127]);
        assert_eq!(c.iter_range(64..64).count(), 0);
        assert_eq!(c.iter_range(129..200).collect::<Vec<_>>(), [150, 199]);
        assert!(!c.any_in(1..5) && c.any_in(1..6));
        let mut m = BitMatrix::new(2, 130);
        m.set_row(1, &b);
        assert_eq!(m.row(1).iter().collect::<Vec<_>>(), [3, 129]);
        assert_eq!(m.row(0).count(), 0);
        assert_eq!(m.row(5).count(), 0);
    }
}
