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
//! Pending results wait on a timing wheel kept small so that it stays in the host's cache: one
//! bucket of [`SLOTS`] results per cycle of the next [`WHEEL`] cycles (ALU latencies, L1 hits),
//! with a bit per bucket saying which hold anything; a heap takes whatever is due later or does
//! not fit its bucket.

use alloc::collections::{BinaryHeap, VecDeque};
use alloc::vec::Vec;
use core::cmp::Reverse;

/// A completing instruction.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord)]
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

/// Cycles the wheel covers (one bit each in a `u64`).
pub const WHEEL: u64 = 64;

/// Results one bucket holds.
pub const SLOTS: usize = 4;

/// The write-back stage of one SM.
#[derive(Clone, Debug)]
pub struct WritebackQueue {
    /// Bucket `t mod WHEEL` (slots `SLOTS·b ..`) holds results due at `t`, for `t` in
    /// `[next, next + WHEEL)`.
    wheel: Vec<Completion>,
    /// Results in each bucket.
    counts: [u8; WHEEL as usize],
    /// Bit `b` set while bucket `b` is not empty.
    occupied: u64,
    /// The first cycle not yet collected.
    next: u64,
    /// Results due at `next + WHEEL` or later when pushed, or pushed to a full bucket.
    far: BinaryHeap<Reverse<Completion>>,
    /// Results due and not yet written, oldest first.
    due: VecDeque<Completion>,
}

impl Default for WritebackQueue {
    fn default() -> Self {
        WritebackQueue {
            wheel: alloc::vec![Completion::default(); WHEEL as usize * SLOTS],
            counts: [0; WHEEL as usize],
            occupied: 0,
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
            let b = (c.due % WHEEL) as usize;
            if let Some(n) = self.counts.get_mut(b) {
                if let Some(slot) = self.wheel.get_mut(b * SLOTS + usize::from(*n)).filter(|_| usize::from(*n) < SLOTS)
                {
                    *slot = c;
                    *n += 1;
                    self.occupied |= 1 << b;
                    return;
                }
            }
        }
        self.far.push(Reverse(c));
    }

    /// Moves the results due by `now` to the due list, in (due, issue order).
    pub fn collect_due(&mut self, now: u64) {
        let end = now + 1;
        while self.next < end {
            let t = match self.first_pending() {
                Some(t) if t < end => t,
                _ => {
                    self.next = end;
                    break;
                }
            };
            let b = (t % WHEEL) as usize;
            let before = self.due.len();
            let n = self.counts.get(b).map_or(0, |&n| usize::from(n));
            if n > 0 {
                self.due.extend(self.wheel.get(b * SLOTS..b * SLOTS + n).unwrap_or(&[]).iter().copied());
                if let Some(c) = self.counts.get_mut(b) {
                    *c = 0;
                }
                self.occupied &= !(1 << b);
            }
            while let Some(Reverse(c)) = self.far.peek().copied() {
                if c.due > t {
                    break;
                }
                self.far.pop();
                self.due.push_back(c);
            }
            if self.due.len() - before > 1 {
                if let Some(new) = self.due.make_contiguous().get_mut(before..) {
                    new.sort_unstable();
                }
            }
            self.next = t + 1;
        }
    }

    /// The first cycle, from `next` on, with a result waiting (on the wheel or far).
    fn first_pending(&self) -> Option<u64> {
        let wheel = (self.occupied != 0)
            .then(|| self.next + u64::from(self.occupied.rotate_right((self.next % WHEEL) as u32).trailing_zeros()));
        let far = self.far.peek().map(|Reverse(c)| c.due.max(self.next));
        match (wheel, far) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// Removes the `i`-th due result.
    pub fn take(&mut self, i: usize) -> Option<Completion> {
        if i == 0 {
            self.due.pop_front()
        } else {
            self.due.remove(i)
        }
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
        self.first_pending().map(|t| t.max(now + 1))
    }

    /// Calls `f` with the warp and due cycle of every result not yet written, in no particular
    /// order.
    pub fn for_each_pending(&self, mut f: impl FnMut(u32, u64)) {
        let mut m = self.occupied;
        while m != 0 {
            let b = m.trailing_zeros() as usize;
            m &= m - 1;
            let n = self.counts.get(b).map_or(0, |&n| usize::from(n));
            for c in self.wheel.get(b * SLOTS..b * SLOTS + n).unwrap_or(&[]) {
                f(c.warp, c.due);
            }
        }
        for Reverse(c) in &self.far {
            f(c.warp, c.due);
        }
        for c in &self.due {
            f(c.warp, c.due);
        }
    }

    /// Nothing pending.
    pub fn is_empty(&self) -> bool {
        self.due.is_empty() && self.occupied == 0 && self.far.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn c(due: u64, seq: u64) -> Completion {
        Completion { due, seq, warp: 0, sid: 0 }
    }

    fn drain(q: &mut WritebackQueue) -> Vec<(u64, u64)> {
        let mut out = Vec::new();
        while let Some(x) = q.take(0) {
            out.push((x.due, x.seq));
        }
        out
    }

    #[test]
    fn results_come_due_in_cycle_then_issue_order_past_a_full_bucket_and_the_wheel() {
        let mut q = WritebackQueue::default();
        // Six results due at 5 (more than a bucket holds), pushed out of issue order; one far.
        for seq in [3, 1, 6, 2, 5, 4] {
            q.push(c(5, seq));
        }
        q.push(c(5 + 3 * WHEEL, 0));
        q.push(c(7, 9));
        assert_eq!(q.next_event(0), Some(5));
        q.collect_due(4);
        assert!(drain(&mut q).is_empty());
        q.collect_due(6);
        assert_eq!(drain(&mut q), [(5, 1), (5, 2), (5, 3), (5, 4), (5, 5), (5, 6)]);
        assert_eq!(q.next_event(6), Some(7));
        q.collect_due(100);
        assert_eq!(drain(&mut q), [(7, 9)]);
        assert_eq!(q.next_event(100), Some(5 + 3 * WHEEL));
        q.collect_due(5 + 3 * WHEEL);
        assert_eq!(drain(&mut q), [(5 + 3 * WHEEL, 0)]);
        assert!(q.is_empty());
        assert_eq!(q.next_event(1000), None);
    }

    #[test]
    fn every_pending_result_is_seen_on_the_wheel_far_and_due() {
        let mut q = WritebackQueue::default();
        // Warp 1: due at 3 and 3 + 2·WHEEL (far); warp 2: five due at 9 (one past the bucket,
        // far) and one at 4, collected into the due list at 4 and left unwritten.
        q.push(Completion { due: 3, seq: 0, warp: 1, sid: 0 });
        q.push(Completion { due: 3 + 2 * WHEEL, seq: 1, warp: 1, sid: 0 });
        for seq in 2..7 {
            q.push(Completion { due: 9, seq, warp: 2, sid: 0 });
        }
        q.push(Completion { due: 4, seq: 7, warp: 2, sid: 0 });
        q.collect_due(4);
        let mut seen = Vec::new();
        q.for_each_pending(|warp, due| seen.push((warp, due)));
        seen.sort_unstable();
        let mut want = alloc::vec![(1, 3), (1, 3 + 2 * WHEEL), (2, 4)];
        want.extend([(2, 9); 5]);
        want.sort_unstable();
        assert_eq!(seen, want);
        // Written results are no longer pending.
        drain(&mut q);
        let mut left = Vec::new();
        q.for_each_pending(|warp, due| left.push((warp, due)));
        left.sort_unstable();
        assert_eq!(left, [(1, 3 + 2 * WHEEL), (2, 9), (2, 9), (2, 9), (2, 9), (2, 9)]);
    }

    #[test]
    fn the_wheel_wraps_and_a_late_push_is_still_written() {
        let mut q = WritebackQueue::default();
        q.collect_due(WHEEL + 10);
        // Due before the first uncollected cycle (a zero-latency result): written next collection.
        q.push(c(WHEEL, 2));
        q.push(c(2 * WHEEL + 9, 1));
        q.push(c(WHEEL + 11, 3));
        assert_eq!(q.next_event(WHEEL + 10), Some(WHEEL + 11));
        q.collect_due(WHEEL + 11);
        assert_eq!(drain(&mut q), [(WHEEL, 2), (WHEEL + 11, 3)]);
        q.collect_due(2 * WHEEL + 9);
        assert_eq!(drain(&mut q), [(2 * WHEEL + 9, 1)]);
    }
}
