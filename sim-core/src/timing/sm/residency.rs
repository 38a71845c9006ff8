//! Resident versus active CTAs under a scheme's control ([`crate::timing::sm::hooks`]): the
//! events the SM tells the scheme, and the actions it applies — a parked CTA's warps leave their
//! schedulers (so the issue stage never sees them and costs nothing), an activation puts them
//! back (as the youngest warps) after the move's cycles.
//!
//! ```text
//! warps 0, 2 of CTA 0 sleep on loads → CtaAllStalled { cta: 0 } → Swap { park: 0, activate: 1 }
//! → end of cycle: warps 0, 2 leave; CTA 1's warps join at t + 1 + cycles
//! ```
//!
//! Everything here runs only for schemes whose [`crate::timing::sm::hooks::HookSet`] asks for it.

use crate::timing::regfile::RegisterFileScheme;
use crate::timing::report::StallCause;
use crate::timing::sm::hooks::{HookSet, MoveCost, ResidencyAction, ResidencyEvent};
use crate::timing::sm::Sm;

impl<R: RegisterFileScheme + ?Sized> Sm<R> {
    /// Resident CTAs that are active (not parked).
    pub fn active_ctas(&self) -> u32 {
        self.ctas.iter().flatten().filter(|c| c.active).count() as u32
    }

    /// Start of cycle `now` (hooks in use): due activations, then completed scheme requests.
    pub(super) fn hooks_front(&mut self, now: u64) {
        while let Some((cta, number)) = self.side.take_activation(now) {
            if self.cta_numbers.get(cta as usize) == Some(&number) {
                self.activate_now(cta, now);
            }
        }
        while let Some(id) = self.side.take_done(now) {
            self.rf.on_memory_done(id, now, &mut self.out);
        }
    }

    /// End of cycle `now` (hooks in use): the cycle's events go to the scheme, its answers are
    /// applied.
    pub(super) fn hooks_back(&mut self, now: u64) {
        if self.hooks.contains(HookSet::ACTIVE_SET) {
            for s in self.schedulers.iter_mut() {
                for (warp, enter) in s.changes.drain(..) {
                    self.events.push(if enter {
                        ResidencyEvent::ActiveSetEnter { warp }
                    } else {
                        ResidencyEvent::ActiveSetLeave { warp }
                    });
                }
            }
        }
        let mut events = core::mem::take(&mut self.events);
        for ev in events.drain(..) {
            self.rf.on_residency(&ev, now, &mut self.out);
        }
        self.events = events;
        self.apply_actions(now);
        if !self.events.is_empty() {
            // Events raised by the actions themselves (a parked CTA already ready) go out next cycle.
            self.next_event = self.next_event.min(now + 1);
        }
    }

    /// Applies the scheme's answers at the end of cycle `now`.
    pub(super) fn apply_actions(&mut self, now: u64) {
        let mut out = core::mem::take(&mut self.out);
        for a in out.residency.drain(..) {
            let (park, activate, cost) = match a {
                ResidencyAction::Park { cta, cost } => (Some(cta), None, cost),
                ResidencyAction::Activate { cta, cost } => (None, Some(cta), cost),
                ResidencyAction::Swap { park, activate, cost } => (Some(park), Some(activate), cost),
            };
            let parked = park.is_some_and(|c| self.park_cta(c));
            let activated = activate.is_some_and(|c| self.schedule_activation(c, cost, now));
            let r = &mut self.stats.residency;
            r.parks += u64::from(parked);
            r.cta_switches += u64::from(activated);
            if parked || activated {
                r.move_cycles += u64::from(cost.cycles);
                r.moved_register_reads += cost.rf_reads;
                r.moved_register_writes += cost.rf_writes;
            }
        }
        for r in out.memory.drain(..) {
            self.side.queue(r);
        }
        self.out = out;
    }

    /// Parks active CTA `cta`: its live warps leave their schedulers. False if it was not active.
    fn park_cta(&mut self, cta: u32) -> bool {
        let Some(Some(c)) = self.ctas.get_mut(cta as usize) else { return false };
        if !c.active && !c.activating {
            return false;
        }
        let was_active = c.active;
        c.active = false;
        c.activating = false;
        self.side.cancel_activation(cta);
        if was_active {
            for w in self.warps_of(cta) {
                self.park_warp(w);
            }
            self.check_parked_ready(cta);
        }
        was_active
    }

    /// Tells the scheme when no warp of parked CTA `cta` waits on memory any more.
    pub(super) fn check_parked_ready(&mut self, cta: u32) {
        let Some(Some(c)) = self.ctas.get(cta as usize) else { return };
        if c.active || c.activating {
            return;
        }
        if self.warps_of(cta).iter().all(|&w| !self.scoreboard.waits_on_memory(w)) {
            self.events.push(ResidencyEvent::ParkedCtaReady { cta });
        }
    }

    /// Activates parked CTA `cta` after `cost.cycles` (at once when 0: its warps issue from
    /// `now + 1`, else from `now + 1 + cycles`). False if it was not parked.
    fn schedule_activation(&mut self, cta: u32, cost: MoveCost, now: u64) -> bool {
        let Some(Some(c)) = self.ctas.get_mut(cta as usize) else { return false };
        if c.active || c.activating {
            return false;
        }
        if cost.cycles == 0 {
            self.activate_now(cta, now);
        } else {
            c.activating = true;
            let number = self.cta_numbers.get(cta as usize).copied().unwrap_or(0);
            self.side.activate_at(now + 1 + u64::from(cost.cycles), cta, number);
        }
        true
    }

    /// CTA `cta`'s warps join their schedulers in cycle `now` (the issue stage looks at them
    /// in `now` if it has not run yet, else in `now + 1`).
    fn activate_now(&mut self, cta: u32, now: u64) {
        self.next_event = self.next_event.min(now + 1);
        let Some(Some(c)) = self.ctas.get_mut(cta as usize) else { return };
        c.active = true;
        c.activating = false;
        for w in self.warps_of(cta) {
            self.unpark_warp(w);
        }
    }

    /// The live warps of CTA slot `cta`.
    pub(super) fn warps_of(&self, cta: u32) -> alloc::vec::Vec<usize> {
        let Some(Some(c)) = self.ctas.get(cta as usize) else { return alloc::vec::Vec::new() };
        c.slots
            .iter()
            .map(|&w| w as usize)
            // A slot whose warp finished may already hold a later CTA's warp.
            .filter(|&w| self.warps.get(w).is_some_and(|x| x.live && x.cta == cta))
            .collect()
    }

    /// Warp `w` stops issuing (its instructions in flight complete).
    pub(super) fn park_warp(&mut self, w: usize) {
        self.undeep(w);
        let s = self.warps.get(w).map_or(0, |x| x.scheduler as usize);
        if let Some(x) = self.schedulers.get_mut(s) {
            x.remove(w as u32);
        }
        if let Some(x) = self.sched_slots.get_mut(s) {
            x.remove(w);
        }
        if !self.side.parked.contains(w) {
            self.side.parked.insert(w);
            if let Some(n) = self.parked_in.get_mut(s) {
                *n += 1;
            }
        }
    }

    /// Warp `w` left the parked set (activated or finished); true if it was parked.
    pub(super) fn forget_parked(&mut self, w: usize) -> bool {
        if !self.side.parked.remove(w) {
            return false;
        }
        let s = self.warps.get(w).map_or(0, |x| x.scheduler as usize);
        if let Some(n) = self.parked_in.get_mut(s) {
            *n = n.saturating_sub(1);
        }
        true
    }

    /// Warp `w` issues again.
    fn unpark_warp(&mut self, w: usize) {
        if !self.forget_parked(w) {
            return;
        }
        let s = self.warps.get(w).map_or(0, |x| x.scheduler as usize);
        if let Some(x) = self.schedulers.get_mut(s) {
            x.add(w as u32);
        }
        if let Some(x) = self.sched_slots.get_mut(s) {
            x.insert(w);
        }
        self.wake(w);
    }

    /// The cause of scheduler `s` with no warp to look at.
    pub(super) fn empty_cause(&self, s: usize) -> StallCause {
        if self.parked_in.get(s).is_some_and(|&n| n > 0) {
            StallCause::CtaSwitch
        } else {
            StallCause::Idle
        }
    }

    /// Warp `w` went to sleep on a load's result (residency hooks): tells the scheme, and that
    /// its CTA is all stalled when it is.
    pub(super) fn note_memory_sleep(&mut self, w: usize) {
        if !self.side.mem_deep.contains(w) {
            self.side.mem_deep.insert(w);
        }
        let Some(warp) = self.warps.get(w) else { return };
        let (cta, sid) = (warp.cta, warp.next.sid);
        self.events.push(ResidencyEvent::WarpLongLatencyStall { warp: w as u32, cta, sid });
        if let Some(Some(c)) = self.ctas.get_mut(cta as usize) {
            c.mem_waiting += 1;
        }
        self.check_all_stalled(cta);
    }

    /// Warp `w` woke from a sleep on a load's result.
    pub(super) fn note_memory_wake(&mut self, w: usize) {
        if !self.side.mem_deep.remove(w) {
            return;
        }
        let cta = self.warps.get(w).map_or(u32::MAX, |x| x.cta);
        if let Some(Some(c)) = self.ctas.get_mut(cta as usize) {
            c.mem_waiting = c.mem_waiting.saturating_sub(1);
        }
    }

    /// Tells the scheme if every unfinished warp of active CTA `cta` waits on a load or at a
    /// barrier, one at least on a load.
    pub(super) fn check_all_stalled(&mut self, cta: u32) {
        let Some(Some(c)) = self.ctas.get(cta as usize) else { return };
        if c.active && c.mem_waiting > 0 && c.mem_waiting + c.waiting >= c.live_warps {
            self.events.push(ResidencyEvent::CtaAllStalled { cta });
        }
    }

    /// Residency hooks: CTA `cta` was launched (parked unless `active`); tells the scheme and
    /// applies its answer.
    pub(super) fn launched(&mut self, cta: u32, number: u64, warps: u32, registers: u32, active: bool, now: u64) {
        if !active {
            for w in self.warps_of(cta) {
                self.park_warp(w);
            }
        }
        self.events.push(ResidencyEvent::CtaLaunched { cta, number, warps, registers, active });
        self.hooks_back(now);
        self.next_event = self.next_event.min(self.side.next_event(now));
    }
}
