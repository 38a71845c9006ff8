//! Write-back: results become due when their unit's latency (or the memory system) says so; each
//! cycle up to `writeback_width` results are written through the register-file scheme (which may
//! refuse one whose bank already took a write this cycle), oldest first; the rest wait. Results
//! without a register destination (stores, branches, predicate-only writes) complete without a
//! write port.
//!
//! ```text
//! due at 20: add (r3), ld (r7), mul (r9); width 2 → add and ld written at 20, mul at 21
//! ```
//!
//! Pending results wait on a timing wheel: one bucket per cycle of the next [`WHEEL`] cycles
//! (ALU latencies and most memory round trips), a heap for anything due later.

use alloc::collections::{BinaryHeap, VecDeque};
use alloc::vec::Vec;
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

/// Cycles the wheel covers.
pub const WHEEL: u64 = 256;

/// The write-back stage of one SM.
#[derive(Clone, Debug)]
pub struct WritebackQueue {
    /// Bucket `t mod WHEEL` holds the results due at `t`, for `t` in `[next, next + WHEEL)`.
    wheel: Vec<Vec<Completion>>,
    /// Results in the wheel.
    in_wheel: usize,
    /// The first cycle not yet collected.
    next: u64,
    /// Results due at `next + WHEEL` or later when pushed.
    far: BinaryHeap<Reverse<Completion>>,
    /// Results due and not yet written, oldest first.
    due: VecDeque<Completion>,
}

impl Default for WritebackQueue {
    fn default() -> Self {
        WritebackQueue {
            wheel: (0..WHEEL).map(|_| Vec::new()).collect(),
            in_wheel: 0,
            next: 0,
            far: BinaryHeap::new(),
            due: VecDeque::new(),
        }
    }
}

impl WritebackQueue {
    /// A result that will be due at `c.due`.
    pub fn push(&mut self, c: Completion) {
        if c.due >= self.next && c.due < self.next + WHEEL {
            if let Some(b) = self.wheel.get_mut((c.due % WHEEL) as usize) {
                b.push(c);
                self.in_wheel += 1;
                return;
            }
        }
        self.far.push(Reverse(c));
    }

    /// Moves the results due by `now` to the due list, in (due, issue order).
    pub fn collect_due(&mut self, now: u64) {
        let end = now + 1;
        while self.next < end {
            if self.in_wheel == 0 {
                // Nothing on the wheel: jump to the next far result (or to `end`).
                let far = self.far.peek().map_or(end, |Reverse(c)| c.due.max(self.next));
                if far >= end {
                    self.next = end;
                    break;
                }
                self.next = far;
            }
            let t = self.next;
            let slot = (t % WHEEL) as usize;
            if let Some(b) = self.wheel.get_mut(slot) {
                while let Some(Reverse(c)) = self.far.peek().copied() {
                    if c.due > t {
                        break;
                    }
                    self.far.pop();
                    b.push(c);
                    self.in_wheel += 1;
                }
                if !b.is_empty() {
                    b.sort_unstable();
                    self.in_wheel -= b.len();
                    self.due.extend(b.drain(..));
                }
            }
            self.next = t + 1;
        }
    }

    /// Removes the `i`-th due result.
    pub fn take(&mut self, i: usize) -> Option<Completion> {
        self.due.remove(i)
    }

    /// The `i`-th due result.
    pub fn peek(&self, i: usize) -> Option<Completion> {
        self.due.get(i).copied()
    }

    /// The next cycle with something to write back after `now`, if any.
    pub fn next_event(&self, now: u64) -> Option<u64> {
        if !self.due.is_empty() {
            return Some(now + 1);
        }
        let far = self.far.peek().map(|Reverse(c)| c.due);
        let wheel = (self.in_wheel > 0)
            .then(|| {
                (self.next..self.next + WHEEL)
                    .find(|&t| self.wheel.get((t % WHEEL) as usize).is_some_and(|b| !b.is_empty()))
            })
            .flatten();
        match (far, wheel) {
            (Some(a), Some(b)) => Some(a.min(b).max(now + 1)),
            (Some(a), None) | (None, Some(a)) => Some(a.max(now + 1)),
            (None, None) => None,
        }
    }

    /// Nothing pending.
    pub fn is_empty(&self) -> bool {
        self.due.is_empty() && self.in_wheel == 0 && self.far.is_empty()
    }
}
