//! Warp schedulers: which warp a scheduler tries first each cycle, by the preset's policy.
//!
//! - LRR (loose round robin): starting after the warp that issued last, in slot order.
//! - GTO (greedy then oldest): the warp that issued last, then the others oldest first.
//! - Two-level (Gebhart et al.): LRR over an active set of `active_warps`; a warp waiting on a
//!   load (or at a barrier) leaves the set for the back of a pending FIFO, and pending warps not
//!   waiting fill the set in FIFO order.
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
use crate::timing::report::StallCause;

/// One warp scheduler.
#[derive(Clone, Debug)]
pub struct Scheduler {
    policy: SchedulingPolicy,
    /// Oldest first.
    warps: Vec<u32>,
    /// Sorted by slot.
    by_slot: Vec<u32>,
    /// By slot: the warp's position in `warps` (its age rank).
    rank: Vec<u32>,
    last: Option<u32>,
    active: Vec<u32>,
    pending: VecDeque<u32>,
    /// No warp of this scheduler can issue before this cycle (`u64::MAX`: before one of them is
    /// woken by an event); 0 when it must look.
    pub sleep_until: u64,
    /// The stall cause while asleep.
    pub sleep_cause: StallCause,
    /// Two-level only, when tracked: warps that entered (`true`) or left the active set since
    /// last drained.
    pub changes: Vec<(u32, bool)>,
    track: bool,
}

impl Scheduler {
    /// A scheduler with no warps.
    pub fn new(policy: SchedulingPolicy) -> Self {
        Scheduler {
            policy,
            warps: Vec::new(),
            by_slot: Vec::new(),
            rank: Vec::new(),
            last: None,
            active: Vec::new(),
            pending: VecDeque::new(),
            sleep_until: 0,
            sleep_cause: StallCause::Idle,
            changes: Vec::new(),
            track: false,
        }
    }

    /// Records active-set changes in [`Scheduler::changes`] when `on` (two-level only).
    pub fn tracking_active_set(mut self, on: bool) -> Self {
        self.track = on;
        self
    }

    /// Adds a newly dispatched warp (the youngest).
    pub fn add(&mut self, warp: u32) {
        self.sleep_until = 0;
        self.warps.push(warp);
        if self.rank.len() <= warp as usize {
            self.rank.resize(warp as usize + 1, 0);
        }
        if let Some(r) = self.rank.get_mut(warp as usize) {
            *r = self.warps.len() as u32 - 1;
        }
        let at = self.by_slot.partition_point(|&w| w < warp);
        self.by_slot.insert(at, warp);
        if let SchedulingPolicy::TwoLevel { .. } = self.policy {
            self.pending.push_back(warp);
        }
    }

    /// Removes a finished warp.
    pub fn remove(&mut self, warp: u32) {
        self.sleep_until = 0;
        self.warps.retain(|&w| w != warp);
        for (i, &w) in self.warps.iter().enumerate() {
            if let Some(r) = self.rank.get_mut(w as usize) {
                *r = i as u32;
            }
        }
        self.by_slot.retain(|&w| w != warp);
        if self.track && self.active.contains(&warp) {
            self.changes.push((warp, false));
        }
        self.active.retain(|&w| w != warp);
        self.pending.retain(|&w| w != warp);
        if self.last == Some(warp) {
            self.last = None;
        }
    }

    /// Two-level scheduling (only the active set is looked at).
    pub fn is_two_level(&self) -> bool {
        matches!(self.policy, SchedulingPolicy::TwoLevel { .. })
    }

    /// Loose round robin (the issue stage walks slot bit masks instead of [`Scheduler::nth`]).
    pub fn is_lrr(&self) -> bool {
        self.policy == SchedulingPolicy::Lrr
    }

    /// Greedy-then-oldest or oldest-first: the order is by age, after the greedy warp if any.
    pub fn is_age_ordered(&self) -> bool {
        matches!(self.policy, SchedulingPolicy::Gto | SchedulingPolicy::OldestFirst)
    }

    /// The warp tried first whatever its age (GTO: the last to issue).
    pub fn greedy(&self) -> Option<u32> {
        match self.policy {
            SchedulingPolicy::Gto => self.last,
            _ => None,
        }
    }

    /// The age rank of live warp `warp` (0: oldest).
    pub fn age_rank(&self, warp: u32) -> u32 {
        self.rank.get(warp as usize).copied().unwrap_or(0)
    }

    /// The warp of age rank `rank`.
    pub fn by_age(&self, rank: u32) -> Option<u32> {
        self.warps.get(rank as usize).copied()
    }

    /// The warp that issued last.
    pub fn last(&self) -> Option<u32> {
        self.last
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
                if self.track {
                    self.changes.push((w, false));
                }
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
                if self.track {
                    self.changes.push((w, true));
                }
            }
        }
    }

    /// Where this cycle's order starts (see [`Scheduler::nth`]).
    pub fn start(&self) -> usize {
        match self.policy {
            SchedulingPolicy::Lrr => self.last.map_or(0, |l| self.by_slot.partition_point(|&w| w <= l)),
            SchedulingPolicy::TwoLevel { .. } => {
                self.last.and_then(|l| self.active.iter().position(|&w| w == l)).map_or(0, |p| p + 1)
            }
            SchedulingPolicy::Gto => {
                self.last.and_then(|l| self.warps.iter().position(|&w| w == l)).unwrap_or(usize::MAX)
            }
            SchedulingPolicy::OldestFirst => 0,
        }
    }

    /// Warps this cycle's policy considers.
    pub fn len(&self) -> usize {
        match self.policy {
            SchedulingPolicy::TwoLevel { .. } => self.active.len(),
            _ => self.warps.len(),
        }
    }

    /// The `i`-th warp this cycle's policy tries, `start` being [`Scheduler::start`].
    pub fn nth(&self, start: usize, i: usize) -> Option<u32> {
        let rotate = |list: &[u32]| {
            let k = start + i;
            list.get(if k >= list.len() { k - list.len() } else { k }).copied()
        };
        match self.policy {
            SchedulingPolicy::Lrr => rotate(&self.by_slot),
            SchedulingPolicy::TwoLevel { .. } => rotate(&self.active),
            SchedulingPolicy::Gto if start != usize::MAX => {
                if i == 0 {
                    self.warps.get(start).copied()
                } else {
                    let j = i - 1;
                    self.warps.get(if j >= start { j + 1 } else { j }).copied()
                }
            }
            SchedulingPolicy::Gto | SchedulingPolicy::OldestFirst => self.warps.get(i).copied(),
        }
    }
}
