//! The earliest cycle a resident CTA can finish, from what the SM holds now: how far the chip
//! lets its SMs run apart ([`crate::timing::chip_sms`]'s windows end there, where the CTA
//! dispatcher may act). A bound too early only shortens a window; one too late would be an
//! error of the run, which the chip checks.
//!
//! ```text
//! CTA of 3 warps, 1 issue a cycle per warp, 2 schedulers:
//!   instructions left 5, 1, 0 → the first warp's last issues ≥ now + 4; all of them ≥ now + 2
//!   the third warp's last load due at now + 300 → the CTA finishes ≥ now + 300
//! ```

use crate::timing::regfile::RegisterFileScheme;
use crate::timing::sm::hooks::HookSet;
use crate::timing::sm::Sm;

impl<R: RegisterFileScheme + ?Sized> Sm<R> {
    /// A cycle, from `now` (not yet simulated) on, before which no resident CTA can finish;
    /// `u64::MAX` without resident CTAs. Each of these is a lower bound on a CTA's finish, and
    /// the latest holds:
    ///
    /// - issue: a warp issues at most `issue_per_cycle` instructions a cycle (+ 1 with dual
    ///   issue, + 1 paired with another warp's), the SM that many per scheduler, and a warp's
    ///   last instruction completes no earlier than it issues — so the warp with the most left,
    ///   and the CTA's instructions left over the SM's rate;
    /// - results: a warp finishes only once its instructions in flight have completed, and a
    ///   result waiting for write-back completes no earlier than the cycle it is due — so the
    ///   CTA's latest due result. This is what holds a CTA draining its last loads, with
    ///   nothing left to issue.
    pub(super) fn earliest_cta_finish(&mut self, now: u64) -> u64 {
        let per_warp = u64::from(self.issue_per_cycle + u32::from(self.dual_issue)).max(1);
        // A paired instruction of another warp adds one a cycle per scheduler.
        let rate = per_warp + u64::from(self.hooks.contains(HookSet::PAIRING));
        let per_sm = rate * u64::from(self.geo.schedulers.max(1));
        let mut latest = core::mem::take(&mut self.latest_due);
        latest.clear();
        latest.resize(self.ctas.len(), 0);
        let warps = &self.warps;
        self.wb.for_each_pending(|warp, due| {
            let cta = warps.get(warp as usize).map_or(usize::MAX, |x| x.cta as usize);
            if let Some(l) = latest.get_mut(cta) {
                *l = (*l).max(due);
            }
        });
        let mut earliest = u64::MAX;
        for (i, c) in self.ctas.iter().enumerate() {
            let Some(c) = c else { continue };
            let (mut remaining, mut most) = (0u64, 0u64);
            // A slot whose warp finished may already hold a later CTA's warp.
            for x in
                c.slots.iter().filter_map(|&w| self.warps.get(w as usize)).filter(|x| x.live && x.cta as usize == i)
            {
                let left = u64::from(x.len.saturating_sub(x.pc));
                remaining += left;
                most = most.max(left);
            }
            let cycles = most.div_ceil(rate).max(remaining.div_ceil(per_sm));
            let issued_by = now + cycles.saturating_sub(1);
            earliest = earliest.min(issued_by.max(latest.get(i).copied().unwrap_or(0)));
        }
        self.latest_due = latest;
        earliest
    }
}
