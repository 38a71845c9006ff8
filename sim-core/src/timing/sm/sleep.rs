//! Which warps the issue stage may skip: every warp slot has a [`Sleep`] record (until when, and
//! why, it cannot issue), and warps that wait for an event of their own — a write-back, a barrier
//! release — or for a freed operand collector are "deep" sleepers the issue stage passes over
//! without looking (their causes are counted per scheduler, so the cycle's stall cause needs no
//! scan). A warp the scheme refused (a full operand buffer, an acquire without room) is looked at
//! next cycle, but only its unit and the scheme are asked again
//! ([`crate::timing::regfile::RegisterFileScheme::refuse_again`]), which counts the refusal as a
//! full request would. Skipping only ever avoids work whose result is known: issue decisions, and
//! so cycles and every count, are exactly those of checking every warp every cycle. One simplification in
//! the stall attribution: a warp refused a collector keeps that cause until the scheme has a free
//! collector again, even if its execution unit meanwhile became busy (checking it every cycle
//! would name the unit for those cycles).
//!
//! ```text
//! warp 7 waits for ld %f1 → deep (memory) · write-back of %f1 → wake(7) → looked at again
//! warp 9 waits for its SP pipe until cycle 120 → skipped until 120, then only the pipe re-checked
//! ```

use crate::timing::exec_units::UnitKind;
use crate::timing::regfile::{RegisterFileScheme, SmGeometry};
use crate::timing::report::StallCause;
use crate::timing::sm::hooks::HookSet;
use crate::timing::sm::issue::EVENT;
use crate::timing::sm::Sm;

/// Why the issue stage may skip a warp: until `wake` (`u64::MAX`: until an event of its own),
/// because of `cause`; a warp refused a collector is looked at again once its group's `epoch` has
/// moved on and the scheme has a free collector.
#[derive(Clone, Copy, Debug)]
pub(super) struct Sleep {
    pub wake: u64,
    pub cause: StallCause,
    pub epoch: u32,
    /// Blocked only because this unit was busy (every earlier check passed, and those results
    /// cannot get worse while the warp waits): re-checking the unit is enough.
    pub unit: Option<UnitKind>,
    /// With `unit`: the unit was free and the scheme refused the instruction
    /// ([`crate::timing::regfile::IssueOutcome::Stall`]); re-checking the unit, then asking the
    /// scheme ([`RegisterFileScheme::refuse_again`]), is enough.
    pub refused: bool,
}

/// One scheduler's deep sleepers counted by cause rank, with a bit per rank that has any.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct DeepCauses {
    counts: [u16; 13],
    present: u16,
}

impl DeepCauses {
    fn add(&mut self, cause: StallCause) {
        let r = cause.rank();
        if let Some(n) = self.counts.get_mut(usize::from(r)) {
            *n += 1;
            self.present |= 1 << r;
        }
    }

    fn remove(&mut self, cause: StallCause) {
        let r = cause.rank();
        if let Some(n) = self.counts.get_mut(usize::from(r)) {
            *n = n.saturating_sub(1);
            if *n == 0 {
                self.present &= !(1 << r);
            }
        }
    }

    /// The highest-ranked cause counted (no eligible warp if none).
    fn best(&self) -> StallCause {
        if self.present == 0 {
            return StallCause::NoEligibleWarp;
        }
        // Rank r (1 for idle … 12 for issued) is `BY_RANK[r - 1]`.
        let top = 15 - self.present.leading_zeros() as usize;
        StallCause::BY_RANK.get(top.wrapping_sub(1)).copied().unwrap_or(StallCause::NoEligibleWarp)
    }
}

/// The scheduler group (sub-core) of scheduler `s`.
pub(super) fn group_of(s: u32, geo: &SmGeometry) -> u32 {
    let groups = geo.groups.max(1);
    let per_group = (geo.schedulers / groups).max(1);
    (s / per_group).min(groups - 1)
}

impl<R: RegisterFileScheme + ?Sized> Sm<R> {
    /// Something happened to warp `w` (a write-back, a barrier release, a start): its scheduler
    /// must look at it again.
    pub(super) fn wake(&mut self, w: usize) {
        self.undeep(w);
        if let Some(x) = self.sleep.get_mut(w) {
            x.wake = 0;
        }
        self.rescan(w);
    }

    /// Warp `w`'s scheduler must look at its warps again (warp `w` itself keeps sleeping).
    pub(super) fn rescan(&mut self, w: usize) {
        let s = self.warps.get(w).map_or(0, |x| x.scheduler as usize);
        if let Some(s) = self.schedulers.get_mut(s) {
            s.sleep_until = 0;
        }
    }

    /// Warp `w`'s record says it sleeps until an event (`z.wake` = `u64::MAX`): the issue stage
    /// may skip it outright until [`Sm::undeep`].
    pub(super) fn sleep_warp(&mut self, w: usize, s: usize, z: Sleep) {
        if let Some(x) = self.sleep.get_mut(w) {
            *x = z;
        }
        if z.wake != u64::MAX || self.deep.contains(w) {
            return;
        }
        self.deep.insert(w);
        if z.cause == StallCause::OperandCollection {
            self.deep_oc.insert(w);
        }
        if self.residency_hooks && z.cause == StallCause::Memory {
            self.note_memory_sleep(w);
        }
        if let Some(c) = self.deep_causes.get_mut(s) {
            c.add(z.cause);
        }
    }

    /// Warp `w` must be looked at again (its record stays).
    pub(super) fn undeep(&mut self, w: usize) {
        if !self.deep.remove(w) {
            return;
        }
        self.deep_oc.remove(w);
        if self.residency_hooks {
            self.note_memory_wake(w);
        }
        let s = self.warps.get(w).map_or(0, |x| x.scheduler as usize);
        let cause = self.sleep.get(w).map_or(StallCause::Idle, |z| z.cause);
        if let Some(c) = self.deep_causes.get_mut(s) {
            c.remove(cause);
        }
    }

    /// The highest-ranked cause among scheduler `s`'s deep sleepers.
    pub(super) fn deep_best(&self, s: usize) -> StallCause {
        self.deep_causes.get(s).map_or(StallCause::NoEligibleWarp, DeepCauses::best)
    }

    /// True if the issue stage may skip warp `w` of scheduler `s` at `now`, keeping its cause.
    /// A warp that last got as far as its unit or a collector only needs those re-checked: the
    /// earlier checks cannot get worse while it waits (no event of its own has happened since).
    pub(super) fn asleep(&mut self, w: usize, s: usize, now: u64) -> Option<Sleep> {
        let z = *self.sleep.get(w)?;
        if z.wake > now && (z.cause != StallCause::OperandCollection || z.epoch == self.group_epoch(s)) {
            return Some(z);
        }
        let unit = z.unit.filter(|_| z.wake != 0)?;
        let g = self.sched_group.get(s).copied().unwrap_or(0);
        let free = self.units.free_at(unit, g);
        let z = if free > now + 1 {
            let cause = if unit == UnitKind::LdSt { StallCause::Memory } else { StallCause::Structural };
            Sleep { wake: free - 1, cause, ..z }
        } else if self.cu_full_at.get(g as usize) == Some(&now) {
            Sleep { wake: EVENT, cause: StallCause::OperandCollection, epoch: self.group_epoch(s), ..z }
        } else if z.refused && !self.hooks.contains(HookSet::VALUES) && !self.hooks.contains(HookSet::PAIRING) {
            // The issue stage's own order of checks: the unit (above), the collectors, then the
            // scheme, which says whether it refuses again without a request built.
            let warp = self.warps.get(w)?;
            let cause = self.rf.refuse_again(w as u32, warp.scheduler, warp.next.sid, now)?;
            Sleep { wake: now + 1, cause, epoch: self.group_epoch(s), ..z }
        } else {
            return None;
        };
        self.sleep_warp(w, s, z);
        Some(z)
    }

    pub(super) fn group_epoch(&self, s: usize) -> u32 {
        let g = self.sched_group.get(s).copied().unwrap_or(0) as usize;
        self.cu_epoch.get(g).copied().unwrap_or(0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_best_deep_cause_is_the_highest_ranked_one_still_counted() {
        let mut d = DeepCauses::default();
        assert_eq!(d.best(), StallCause::NoEligibleWarp);
        d.add(StallCause::Memory);
        d.add(StallCause::OperandCollection);
        d.add(StallCause::Memory);
        assert_eq!(d.best(), StallCause::OperandCollection);
        d.remove(StallCause::OperandCollection);
        assert_eq!(d.best(), StallCause::Memory);
        d.remove(StallCause::Memory);
        assert_eq!(d.best(), StallCause::Memory, "one memory sleeper left");
        d.remove(StallCause::Memory);
        assert_eq!(d.best(), StallCause::NoEligibleWarp);
        d.add(StallCause::Idle);
        assert_eq!(d.best(), StallCause::Idle);
        for c in StallCause::BY_RANK {
            d.add(c);
            assert_eq!(d.best(), c, "added in ascending rank");
        }
    }
}
