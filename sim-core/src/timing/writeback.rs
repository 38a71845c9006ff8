//! Write-back: results become due when their unit's latency (or the memory system) says so; each
//! cycle up to `writeback_width` results are written through the register-file scheme (which may
//! refuse one whose bank already took a write this cycle), oldest first; the rest wait. Results
//! without a register destination (stores, branches, predicate-only writes) complete without a
//! write port.
//!
//! ```text
//! due at 20: add (r3), ld (r7), mul (r9); width 2 → add and ld written at 20, mul at 21
//! ```

use alloc::collections::{BinaryHeap, VecDeque};
use core::cmp::Reverse;

/// A completing instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Completion {
    /// Cycle the result is available for write-back.
    pub due: u64,
    /// Issue order (ties on `due` are written oldest first).
    pub seq: u64,
    /// Warp slot.
    pub warp: u32,
    /// Static instruction.
    pub sid: u32,
}

/// The write-back stage of one SM.
#[derive(Clone, Debug, Default)]
pub struct WritebackQueue {
    future: BinaryHeap<Reverse<Completion>>,
    due: VecDeque<Completion>,
}

impl WritebackQueue {
    /// Schedules `c`.
    pub fn push(&mut self, c: Completion) {
        self.future.push(Reverse(c));
    }

    /// Moves everything due at `now` behind the results still waiting, oldest first.
    pub fn collect_due(&mut self, now: u64) {
        while let Some(Reverse(c)) = self.future.peek().copied() {
            if c.due > now {
                break;
            }
            self.future.pop();
            self.due.push_back(c);
        }
    }

    /// Results waiting to be written, oldest first.
    pub fn due_len(&self) -> usize {
        self.due.len()
    }

    /// Takes the `i`-th waiting result.
    pub fn take(&mut self, i: usize) -> Option<Completion> {
        self.due.remove(i)
    }

    /// The `i`-th waiting result.
    pub fn peek(&self, i: usize) -> Option<Completion> {
        self.due.get(i).copied()
    }

    /// The next cycle something is due: `now + 1` while results wait, else the earliest future.
    pub fn next_event(&self, now: u64) -> Option<u64> {
        if !self.due.is_empty() {
            return Some(now + 1);
        }
        self.future.peek().map(|Reverse(c)| c.due.max(now + 1))
    }

    /// True when nothing is in flight.
    pub fn is_empty(&self) -> bool {
        self.due.is_empty() && self.future.is_empty()
    }
}
