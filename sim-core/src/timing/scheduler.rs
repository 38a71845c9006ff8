//! Warp schedulers: which warp a scheduler tries first each cycle, by the preset's policy.
//!
//! - LRR (loose round robin): starting after the warp that issued last, in slot order.
//! - GTO (greedy then oldest): the warp that issued last, then the others oldest first.
//! - Two-level (Gebhart et al.): LRR over an active set of `active_warps`; a warp waiting on a
//!   load leaves the set for the back of a pending FIFO, and pending warps not waiting on memory
//!   fill the set in FIFO order.
//! - Oldest first (GCN3 in Wyse's model): oldest warp first.
//!
//! ```text
//! warps [3, 5, 8] (oldest first), last issued 5: LRR → 8, 3, 5 · GTO → 5, 3, 8 · oldest → 3, 5, 8
//! ```
//!
//! Each scheduler owns the warps whose slot is `slot % schedulers`; age is dispatch order.

use alloc::collections::VecDeque;
use alloc::vec::Vec;

use crate::gpu::SchedulingPolicy;

/// One warp scheduler.
#[derive(Clone, Debug)]
pub struct Scheduler {
    policy: SchedulingPolicy,
    /// Oldest first.
    warps: Vec<u32>,
    /// Sorted by slot.
    by_slot: Vec<u32>,
    last: Option<u32>,
    active: Vec<u32>,
    pending: VecDeque<u32>,
}

impl Scheduler {
    /// A scheduler with no warps.
    pub fn new(policy: SchedulingPolicy) -> Self {
        Scheduler {
            policy,
            warps: Vec::new(),
            by_slot: Vec::new(),
            last: None,
            active: Vec::new(),
            pending: VecDeque::new(),
        }
    }

    /// Adds a newly dispatched warp (the youngest).
    pub fn add(&mut self, warp: u32) {
        self.warps.push(warp);
        let at = self.by_slot.partition_point(|&w| w < warp);
        self.by_slot.insert(at, warp);
        if let SchedulingPolicy::TwoLevel { .. } = self.policy {
            self.pending.push_back(warp);
        }
    }

    /// Removes a finished warp.
    pub fn remove(&mut self, warp: u32) {
        self.warps.retain(|&w| w != warp);
        self.by_slot.retain(|&w| w != warp);
        self.active.retain(|&w| w != warp);
        self.pending.retain(|&w| w != warp);
        if self.last == Some(warp) {
            self.last = None;
        }
    }

    /// True when no warp is assigned.
    pub fn is_empty(&self) -> bool {
        self.warps.is_empty()
    }

    /// Records that `warp` issued.
    pub fn issued(&mut self, warp: u32) {
        self.last = Some(warp);
    }

    /// Two-level only: moves active warps that wait on memory to the pending FIFO and fills the
    /// active set from it. Other policies: nothing.
    pub fn refresh_active(&mut self, waits_on_memory: impl Fn(u32) -> bool) {
        let SchedulingPolicy::TwoLevel { active_warps } = self.policy else { return };
        let mut i = 0;
        while i < self.active.len() {
            let w = self.active[i];
            if waits_on_memory(w) {
                self.active.remove(i);
                self.pending.push_back(w);
            } else {
                i += 1;
            }
        }
        let mut scanned = 0;
        let n = self.pending.len();
        while self.active.len() < active_warps.max(1) as usize && scanned < n {
            scanned += 1;
            let Some(w) = self.pending.pop_front() else { break };
            if waits_on_memory(w) {
                self.pending.push_back(w);
            } else {
                self.active.push(w);
            }
        }
    }

    /// The warps in the order this cycle's policy tries them, written to `out`.
    pub fn order(&self, out: &mut Vec<u32>) {
        out.clear();
        match self.policy {
            SchedulingPolicy::Lrr => {
                let start = self.last.map_or(0, |l| self.by_slot.partition_point(|&w| w <= l));
                rotate(&self.by_slot, start, out);
            }
            SchedulingPolicy::TwoLevel { .. } => {
                let start = self.last.and_then(|l| self.active.iter().position(|&w| w == l)).map_or(0, |p| p + 1);
                rotate(&self.active, start, out);
            }
            SchedulingPolicy::Gto => {
                out.extend(self.last.filter(|l| self.warps.contains(l)));
                out.extend(self.warps.iter().copied().filter(|&w| Some(w) != self.last));
            }
            SchedulingPolicy::OldestFirst => out.extend_from_slice(&self.warps),
        }
    }
}

/// `list[start..]` then `list[..start]`.
fn rotate(list: &[u32], start: usize, out: &mut Vec<u32>) {
    let start = start.min(list.len());
    out.extend_from_slice(list.get(start..).unwrap_or(&[]));
    out.extend_from_slice(list.get(..start).unwrap_or(&[]));
}
