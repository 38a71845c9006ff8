//! A set-associative tag array with LRU replacement, a fill time per line (a line whose fill is
//! still under way is a *pending hit*: the access merges into the outstanding miss) and a dirty
//! bit, plus the miss-status holding registers (MSHRs) as a list of outstanding fill times.
//!
//! ```text
//! 16 KB, 128-byte lines, 4 ways → 32 sets; line 0x1000 → set (0x1000 / 128) % 32 = 0
//! access(line, t) → Hit { ready: t0 } | Miss;  fill(line, ready, dirty) evicts the LRU way
//! ```
//!
//! A set's ways are allocated on its first use, so a 50 MB L2 costs memory mostly for what a
//! kernel touches.

use alloc::collections::BinaryHeap;
use alloc::vec::Vec;
use core::cmp::Reverse;

use crate::gpu::CacheConfig;

/// One way of a set.
#[derive(Clone, Copy, Debug)]
struct Line {
    tag: u64,
    last_use: u64,
    ready: u64,
    dirty: bool,
}

/// What a lookup found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Lookup {
    /// The line is present (or being filled); its data is there from `ready` on.
    Hit {
        /// Cycle the line's data is available.
        ready: u64,
    },
    /// Not present.
    Miss,
}

/// A cache's tags and MSHRs.
#[derive(Clone, Debug)]
pub struct TagArray {
    line_bytes: u64,
    sets: u64,
    ways: usize,
    /// Per set its lines (allocated on first use).
    lines: Vec<Vec<Line>>,
    stamp: u64,
    mshrs: usize,
    outstanding: BinaryHeap<Reverse<u64>>,
}

impl TagArray {
    /// Tags for `cfg`.
    pub fn new(cfg: &CacheConfig) -> Self {
        let line_bytes = u64::from(cfg.line_bytes.max(1));
        let ways = cfg.associativity.max(1) as usize;
        let sets = (cfg.size_bytes / line_bytes / ways as u64).max(1);
        TagArray {
            line_bytes,
            sets,
            ways,
            lines: alloc::vec![Vec::new(); sets as usize],
            stamp: 0,
            mshrs: cfg.mshrs.max(1) as usize,
            outstanding: BinaryHeap::new(),
        }
    }

    /// The line number of byte address `addr`.
    pub fn line_of(&self, addr: u64) -> u64 {
        if self.line_bytes.is_power_of_two() {
            addr >> self.line_bytes.trailing_zeros()
        } else {
            addr / self.line_bytes
        }
    }

    fn set_of(&self, line: u64) -> u64 {
        if self.sets.is_power_of_two() {
            line & (self.sets - 1)
        } else {
            line % self.sets
        }
    }

    /// Looks `line` up (updating LRU); `dirty` marks it written.
    pub fn access(&mut self, line: u64, dirty: bool) -> Lookup {
        self.stamp += 1;
        let stamp = self.stamp;
        let key = self.set_of(line) as usize;
        let Some(set) = self.lines.get_mut(key) else { return Lookup::Miss };
        match set.iter_mut().find(|l| l.tag == line) {
            Some(l) => {
                l.last_use = stamp;
                l.dirty |= dirty;
                Lookup::Hit { ready: l.ready }
            }
            None => Lookup::Miss,
        }
    }

    /// Installs `line` with data from `ready` on; returns the evicted line if it was dirty.
    pub fn fill(&mut self, line: u64, ready: u64, dirty: bool) -> Option<u64> {
        self.stamp += 1;
        let new = Line { tag: line, last_use: self.stamp, ready, dirty };
        let key = self.set_of(line) as usize;
        let set = self.lines.get_mut(key)?;
        if set.len() < self.ways {
            set.push(new);
            return None;
        }
        let victim = set.iter_mut().min_by_key(|l| l.last_use)?;
        let evicted = victim.dirty.then_some(victim.tag);
        *victim = new;
        evicted
    }

    /// The earliest cycle ≥ `now` at which an MSHR is free (outstanding fills before `now` done).
    pub fn mshr_free_at(&mut self, now: u64) -> u64 {
        self.retire(now);
        if self.outstanding.len() < self.mshrs {
            return now;
        }
        self.outstanding.peek().map_or(now, |Reverse(t)| (*t).max(now))
    }

    fn retire(&mut self, now: u64) {
        while self.outstanding.peek().is_some_and(|Reverse(t)| *t <= now) {
            self.outstanding.pop();
        }
    }

    /// Records a miss outstanding until `done`.
    pub fn mshr_allocate(&mut self, start: u64, done: u64) {
        self.retire(start);
        if self.outstanding.len() >= self.mshrs {
            self.outstanding.pop();
        }
        self.outstanding.push(Reverse(done));
    }
}
