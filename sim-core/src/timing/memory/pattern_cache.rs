//! Remembered costs of affine warp access patterns. Most warp memory instructions walk an array
//! with a fixed stride ([`crate::timing::stream::trace::LaneAddrs::Affine`]), and the same few patterns
//! recur millions of times. What a pattern costs depends only on the strides, the lanes, the
//! access size and where the first address falls within the period that matters — a segment for
//! coalescing, `banks × bank width` for shared memory — so the answer worked out lane by lane the
//! first time is reused, shifted to the actual base. A cache, not a model: results are identical
//! with or without it.
//!
//! ```text
//! ld.global.f32, 32 lanes, stride 4, base ≡ 0 (mod 128) → segments [+0]      (base segment + 0)
//! ld.shared.f32, 2 rows × 16, stride 4 / 64, base ≡ 0 (mod 128) → conflict degree 1
//! ```

use alloc::vec;
use alloc::vec::Vec;

/// Segments remembered per pattern at most.
pub const MAX_SEGMENTS: usize = 8;

/// What identifies a pattern.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PatternKey {
    /// The first address modulo the period that matters.
    pub offset: u64,
    /// Stride between lanes of a row.
    pub sx: u64,
    /// Stride between rows.
    pub sy: u64,
    /// Lanes per row.
    pub w: u64,
    /// Lanes accessing.
    pub executed: crate::timing::stream::trace::LaneMask,
    /// Bytes per lane.
    pub bytes: u32,
    /// 0: shared-memory conflict degree; 1: global segments.
    pub kind: u32,
}

/// What a pattern costs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PatternCost {
    /// Shared memory: the conflict degree.
    pub degree: u32,
    /// Global memory: segment numbers relative to the first address's segment, ascending.
    pub segments: [i32; MAX_SEGMENTS],
    /// Entries of `segments` in use.
    pub len: u8,
}

impl PatternCost {
    /// The remembered segments.
    pub fn relative_segments(&self) -> &[i32] {
        self.segments.get(..usize::from(self.len)).unwrap_or(&[])
    }
}

#[derive(Clone, Copy, Debug, Default)]
struct Entry {
    key: PatternKey,
    valid: bool,
    cost: PatternCost,
}

/// A direct-mapped table of patterns.
#[derive(Clone, Debug)]
pub struct PatternCache {
    entries: Vec<Entry>,
}

const ENTRIES: usize = 64;

impl Default for PatternCache {
    fn default() -> Self {
        PatternCache { entries: vec![Entry::default(); ENTRIES] }
    }
}

impl PatternCache {
    fn slot(k: &PatternKey) -> usize {
        let mut h = k.offset ^ k.sx.rotate_left(17) ^ k.sy.rotate_left(31) ^ k.w.rotate_left(47);
        h ^= k.executed.rotate_left(7) ^ u64::from(k.bytes).rotate_left(53) ^ u64::from(k.kind);
        h = h.wrapping_mul(0x9E37_79B9_7F4A_7C15);
        (h >> 58) as usize % ENTRIES
    }

    /// The remembered cost of `k`.
    pub fn get(&self, k: &PatternKey) -> Option<PatternCost> {
        self.entries.get(Self::slot(k)).filter(|e| e.valid && e.key == *k).map(|e| e.cost)
    }

    /// Remembers `cost` for `k` (replacing whatever shared its slot).
    pub fn put(&mut self, k: PatternKey, cost: PatternCost) {
        if let Some(e) = self.entries.get_mut(Self::slot(&k)) {
            *e = Entry { key: k, valid: true, cost };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn remembers_by_the_whole_key() {
        let mut c = PatternCache::default();
        let k = PatternKey { offset: 4, sx: 4, sy: 64, w: 16, executed: u64::from(u32::MAX), bytes: 4, kind: 0 };
        assert_eq!(c.get(&k), None);
        c.put(k, PatternCost { degree: 2, ..PatternCost::default() });
        assert_eq!(c.get(&k).map(|x| x.degree), Some(2));
        assert_eq!(c.get(&PatternKey { offset: 8, ..k }), None);
        assert_eq!(c.get(&PatternKey { kind: 1, ..k }), None);
    }
}
