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

use alloc::vec::Vec;

use crate::timing::regfile::RegisterFileScheme;
use crate::timing::sm::hooks::HookSet;
use crate::timing::sm::warp::Warp;
use crate::timing::sm::Sm;

/// A cycle `before` which an SM cannot have room for a CTA needing fewer than `resident`
/// resident CTAs and `warps` free warp slots ([`Sm::earliest_room`]'s cache; 0: none).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct RoomBound {
    pub before: u64,
    pub resident: u32,
    pub warps: u32,
}

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
        let rate = self.warp_issue_rate();
        let per_sm = rate * u64::from(self.geo.schedulers.max(1));
        let cta_of = |warps: &[Warp], w: u32| warps.get(w as usize).map_or(usize::MAX, |x| x.cta as usize);
        let latest = self.latest_due_by(self.ctas.len(), cta_of);
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

    /// The most instructions a warp issues in a cycle: the issue width, + 1 with dual issue, + 1
    /// paired with another warp's instruction.
    fn warp_issue_rate(&self) -> u64 {
        let per_warp = u64::from(self.issue_per_cycle + u32::from(self.dual_issue)).max(1);
        per_warp + u64::from(self.hooks.contains(HookSet::PAIRING))
    }

    /// The latest cycle a result not yet written is due, per index `0..n` that `index` maps a
    /// result's warp slot to (0 where none is); in the `latest_due` scratch, to be put back.
    fn latest_due_by(&mut self, n: usize, index: impl Fn(&[Warp], u32) -> usize) -> Vec<u64> {
        let mut latest = core::mem::take(&mut self.latest_due);
        latest.clear();
        latest.resize(n, 0);
        let warps = &self.warps;
        self.wb.for_each_pending(|warp, due| {
            if let Some(l) = latest.get_mut(index(warps, warp)) {
                *l = (*l).max(due);
            }
        });
        latest
    }

    /// A cycle, from `now` (not yet simulated) on, before which this SM cannot come to hold
    /// fewer than `resident` CTAs with `warps` warp slots free — the room the CTA dispatcher
    /// waits for ([`crate::timing::cta_dispatch::Waiting::Room`]); `now` if it has that room,
    /// `u64::MAX` if it never can. Room comes only from warps finishing (a CTA finishing is its
    /// last warp finishing), so both conditions are bounds of their own and the later holds:
    ///
    /// - CTAs: with `resident` or more resident, one must finish ([`Sm::finish_bound`]);
    /// - warp slots: with `k` more needed, `k` warps must finish, and the `k`-th earliest of
    ///   the warps' finish bounds (each as [`Sm::earliest_cta_finish`]'s, for one warp: its
    ///   instructions left at its issue rate, and its latest result due) is a bound on that.
    ///
    /// ```text
    /// 2 slots free, 8 needed, 48 warps with bounds now+3, now+3, now+40, … → the 6th earliest
    /// ```
    pub(in crate::timing) fn earliest_room(&mut self, now: u64, resident: u32, warps: u32) -> u64 {
        // A bound stays valid as cycles pass (warps finish no sooner); a launch clears it.
        let b = self.room_bound;
        if b.before > now && (b.resident, b.warps) == (resident, warps) {
            return b.before;
        }
        let before = self.room_from(now, resident, warps);
        self.room_bound = RoomBound { before, resident, warps };
        before
    }

    /// [`Sm::earliest_room`] computed afresh.
    fn room_from(&mut self, now: u64, resident: u32, warps: u32) -> u64 {
        let by_ctas = if self.resident_ctas() < resident { now } else { self.finish_bound(now) };
        let free = self.free_warp_slots();
        if free >= warps {
            return by_ctas;
        }
        let needed = (warps - free) as usize;
        let rate = self.warp_issue_rate();
        let mut bounds = self.latest_due_by(self.warps.len(), |_, w| w as usize);
        // Each live warp's bound, packed to the front in slot order.
        let mut live = 0;
        for (i, x) in self.warps.iter().enumerate() {
            if !x.live {
                continue;
            }
            let left = u64::from(x.len.saturating_sub(x.pc));
            let issued_by = now + left.div_ceil(rate).saturating_sub(1);
            let b = bounds.get(i).copied().unwrap_or(0).max(issued_by);
            if let Some(slot) = bounds.get_mut(live) {
                *slot = b;
            }
            live += 1;
        }
        bounds.truncate(live);
        let by_warps = match needed.checked_sub(1) {
            Some(k) if k < live => *bounds.select_nth_unstable(k).1,
            _ => u64::MAX,
        };
        self.latest_due = bounds;
        by_ctas.max(by_warps)
    }
}

#[cfg(test)]
#[allow(clippy::panic, reason = "a failing test panics")]
mod tests {
    use alloc::boxed::Box;
    use alloc::rc::Rc;
    use alloc::vec::Vec;

    use super::super::{ChipContext, Sm};
    use crate::gpu::presets;
    use crate::timing::memory::l2::L2;
    use crate::timing::memory::MemoryStats;
    use crate::timing::program::Program;
    use crate::timing::regfile::config::SchemeSpec;
    use crate::timing::regfile::no_bank_conflicts::ConflictFreeRegisterFile;
    use crate::timing::regfile::{EnergyModel, SchemeContext, SmGeometry};
    use crate::timing::stream::trace::{CtaStream, LaunchShape, WarpStream};

    /// A chain: each add reads the one before it, so a warp waits the add latency between
    /// issues and finishes long after its issue-rate bound.
    const CHAIN: &str = ".version 7.0\n.target sm_90\n.address_size 64\n.visible .entry k()\n{\n\
        .reg .s32 %r<16>;\nmov.s32 %r1, 1;\nadd.s32 %r2, %r1, 1;\nadd.s32 %r3, %r2, 1;\n\
        add.s32 %r4, %r3, 1;\nadd.s32 %r5, %r4, 1;\nadd.s32 %r6, %r5, 1;\nadd.s32 %r7, %r6, 1;\n\
        add.s32 %r8, %r7, 1;\nadd.s32 %r9, %r8, 1;\nadd.s32 %r10, %r9, 1;\nadd.s32 %r11, %r10, 1;\n\
        add.s32 %r12, %r11, 1;\nadd.s32 %r13, %r12, 1;\nret;\n}\n";

    /// One SM of hopper-h100 (4 schedulers, one issue a cycle each) with 8 warp slots, holding
    /// two CTAs launched at the end of cycle 0 whose warps run the chain's first 1, 5, 9 and 13
    /// instructions and `ret` (2, 6, 10 and 14 instructions).
    fn two_ctas() -> Option<(Sm<ConflictFreeRegisterFile>, Program)> {
        let gpu = presets::hopper_h100();
        let energy = EnergyModel::default();
        let geo = SmGeometry { schedulers: 4, groups: gpu.core.sub_cores.max(1), warp_size: 32, max_warps: 8 };
        let ctx = SchemeContext { gpu: &gpu, geometry: geo, energy: &energy };
        let spec = SchemeSpec { scheme: "no-bank-conflicts".into(), params: Default::default() };
        let rf = spec.resolve(&gpu, &energy).and_then(|r| ConflictFreeRegisterFile::new(&ctx, &r.config)).ok()?;
        let program = Program::decode(&crate::ptx::compile(CHAIN).ok()?, &gpu);
        let ret = program.insts.len() as u32 - 1;
        let warps: Vec<WarpStream> = [1u32, 5, 9, 13]
            .iter()
            .map(|&n| WarpStream::from_plain((0..n).chain([ret]).map(|sid| (sid, u32::MAX))))
            .collect();
        let cta =
            CtaStream { launch: 0, shape: LaunchShape { kernel: 0, threads: 128, dynamic_smem: 0 }, warps, more: None };
        let mut sm = Sm::new(&gpu, geo, Box::new(rf));
        for n in 0..2 {
            sm.launch(Rc::new(cta.clone()), n, 1024, 2, 0);
        }
        Some((sm, program))
    }

    #[test]
    fn room_waits_for_the_kth_earliest_warp_or_a_cta() {
        let Some((mut sm, _)) = two_ctas() else { panic!("the test SM does not build") };
        assert_eq!(sm.free_warp_slots(), 0);
        // From cycle 1 a warp with n instructions left issues its last no earlier than n cycles
        // on (1 + n - 1): bounds 2, 2, 6, 6, 10, 10, 14, 14.
        // 3 slots: the 3rd earliest, 6. One slot: 2. Nine: never (8 warps).
        assert_eq!(sm.earliest_room(1, 8, 3), 6);
        assert_eq!(sm.earliest_room(1, 8, 1), 2);
        assert_eq!(sm.earliest_room(1, 8, 9), u64::MAX);
        // At most 2 resident CTAs: a CTA must finish first, its 14-instruction warp at 14 (the
        // CTA's 30 instructions over 4 schedulers take 8 cycles: not the binding part).
        assert_eq!(sm.earliest_room(1, 2, 1), 14);
        // Three resident allowed and one slot free would be room now.
        sm.live_warps -= 1;
        assert_eq!(sm.earliest_room(1, 3, 1), 1);
    }

    #[test]
    fn room_never_comes_before_its_bound() {
        // Simulated cycle by cycle: after every cycle, the bound from the next one on is never
        // later than the cycle 3 slots (or a CTA's place, at most 1 resident) first come free.
        for (resident, warps) in [(8, 3), (8, 1), (8, 6), (1, 1)] {
            let Some((mut sm, program)) = two_ctas() else { panic!("the test SM does not build") };
            let gpu = presets::hopper_h100();
            let (mut l2, mut mem) = (L2::new(&gpu), MemoryStats::default());
            let mut bounds = Vec::new();
            let mut room_at = None;
            let mut t = 1;
            while room_at.is_none() && t < 10_000 {
                bounds.push((t, sm.earliest_room(t, resident, warps)));
                let mut cx = ChipContext { program: &program, l2: &mut l2, mem_stats: &mut mem };
                sm.cycle(t, &mut cx);
                if sm.resident_ctas() < resident && sm.free_warp_slots() >= warps {
                    room_at = Some(t);
                }
                t += 1;
            }
            let Some(room) = room_at else { panic!("no room for {warps} warps within 10 000 cycles") };
            // The chain's warps wait for each add: room comes well after the first bound.
            assert!(bounds.first().is_some_and(|&(_, b)| b < room), "{resident}, {warps}: {bounds:?} room {room}");
            assert!(bounds.iter().all(|&(_, b)| b <= room), "{resident}, {warps}: {bounds:?}, room at {room}");
        }
    }
}
