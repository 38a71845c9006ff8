//! The issue stage: each scheduler walks its warps in policy order and issues from the first
//! that can go; if none can, the cycle's single stall cause is that of the warp that came
//! closest ([`StallCause::rank`]).
//!
//! ```text
//! warp checks, in order: finished/draining → barrier → instruction buffer (branch) →
//! scoreboard (memory or ALU producer) → execution unit free next cycle → collector (scheme)
//! ```
//!
//! Issue width: up to `issue_width` consecutive instructions of the chosen warp per cycle; with
//! dual issue (GT200) one more, to a different kind of unit.

use crate::timing::exec_units::UnitKind;
use crate::timing::program::{Control, MemOp, Program, StaticInst};
use crate::timing::regfile::{CuId, IssueOutcome, OperandRequest, RegisterFileScheme};
use crate::timing::report::StallCause;
use crate::timing::sm::hooks::HookSet;
use crate::timing::sm::scoreboard::Pending;
use crate::timing::sm::sleep::Sleep;
use crate::timing::sm::{InFlight, Sm, NO_POOL};
use crate::timing::stream::trace::DynInst;

/// Why a warp could not issue, and the first cycle it might: `EVENT` when only an event of its
/// own (a write-back, a barrier release) can change that, which also wakes it.
#[derive(Clone, Copy, Debug)]
pub(super) struct Blocked {
    cause: StallCause,
    wake: u64,
    /// Set when only this busy unit stopped it.
    unit: Option<UnitKind>,
    /// The scheme refused it ([`IssueOutcome::Stall`]) after every other check passed.
    refused: bool,
}

/// The bits of 64-slot word `wi` whose slots lie in `lo..hi`.
fn bits_between(lo: usize, hi: usize, wi: usize) -> u64 {
    let base = wi * 64;
    let from = lo.saturating_sub(base).min(64);
    let to = hi.saturating_sub(base).min(64);
    if to <= from {
        return 0;
    }
    let upto = if to == 64 { u64::MAX } else { (1u64 << to) - 1 };
    let below = if from == 64 { u64::MAX } else { (1u64 << from) - 1 };
    upto & !below
}

/// Woken by an event of the warp's own, not by time.
pub(super) const EVENT: u64 = u64::MAX;

/// Blocked until an event of the warp.
const fn blocked(cause: StallCause) -> Blocked {
    Blocked { cause, wake: EVENT, unit: None, refused: false }
}

/// Blocked until cycle `wake` at the latest.
const fn until(cause: StallCause, wake: u64) -> Blocked {
    Blocked { cause, wake, unit: None, refused: false }
}

/// What one scheduler's look at its warps found.
#[derive(Clone, Copy, Debug)]
struct Scan {
    issued: bool,
    /// The cause of the warp that came closest to issuing.
    best: StallCause,
    /// The earliest cycle a warp may become ready by itself.
    wake: u64,
}

impl Default for Scan {
    fn default() -> Self {
        Scan { issued: false, best: StallCause::NoEligibleWarp, wake: EVENT }
    }
}

impl Scan {
    fn note(&mut self, cause: StallCause, wake: u64) {
        if cause.rank() > self.best.rank() {
            self.best = cause;
        }
        self.wake = self.wake.min(wake);
    }
}

impl<R: RegisterFileScheme + ?Sized> Sm<R> {
    /// Runs every scheduler at `now`; returns whether anything issued and the earliest cycle a
    /// blocked warp may become ready by itself.
    pub(super) fn issue(&mut self, now: u64, program: &Program) -> (bool, u64) {
        let mut any = false;
        let mut wake = u64::MAX;
        for s in 0..self.schedulers.len() {
            let Some(sched) = self.schedulers.get_mut(s) else { continue };
            let cause = if sched.is_empty() {
                self.empty_cause(s)
            } else if sched.sleep_until > now {
                if sched.sleep_until != EVENT {
                    wake = wake.min(sched.sleep_until);
                }
                sched.sleep_cause
            } else {
                let scan = self.run_scheduler(s, now, program);
                wake = wake.min(scan.wake);
                any |= scan.issued;
                if scan.issued {
                    StallCause::Issued
                } else {
                    scan.best
                }
            };
            self.set_cause(s, cause);
        }
        (any, wake)
    }

    /// Scheduler `s` tries its warps in policy order at `now` (it is awake).
    fn run_scheduler(&mut self, s: usize, now: u64, program: &Program) -> Scan {
        let Some(sched) = self.schedulers.get_mut(s) else { return Scan::default() };
        let (sb, warps) = (&self.scoreboard, &self.warps);
        // Two-level: a warp waiting at a barrier leaves the active set too, else a full set of
        // warps at a barrier would keep out the warps of their CTA the barrier waits for.
        sched.refresh_active(|w| sb.waits_on_memory(w as usize) || warps.get(w as usize).is_some_and(|x| x.at_barrier));
        let (lrr, two_level, age_ordered) = (sched.is_lrr(), sched.is_two_level(), sched.is_age_ordered());
        let best = if two_level { StallCause::NoEligibleWarp } else { self.deep_best(s) };
        let mut scan = Scan { issued: false, best, wake: EVENT };
        // Warps not in deep sleep; once all are seen the rest of the order holds only deep
        // sleepers, whose causes `deep_best` already has (two-level looks at every warp). Deep
        // sleepers refused a collector are looked at again, in order, while one is free.
        let group = self.sched_group.get(s).copied().unwrap_or(0);
        let oc_retry =
            self.sched_slots.get(s).is_some_and(|x| x.intersects(&self.deep_oc)) && self.rf.collector_free(group);
        if lrr {
            self.scan_lrr(s, now, program, oc_retry, &mut scan);
            self.end_scan(s, &scan);
            return scan;
        }
        if age_ordered && self.deep.word_count() == 1 {
            self.scan_by_age::<false>(s, now, program, oc_retry, &mut scan);
            self.end_scan(s, &scan);
            return scan;
        }
        if age_ordered && self.schedulers.get(s).is_some_and(|x| x.len() <= 64) {
            self.scan_by_age::<true>(s, now, program, oc_retry, &mut scan);
            self.end_scan(s, &scan);
            return scan;
        }
        let Some(sched) = self.schedulers.get(s) else { return scan };
        let (start, n) = (sched.start(), sched.len());
        let mut left = self.sched_slots.get(s).map_or(0, |x| x.count_without(&self.deep));
        for i in 0..n {
            if left == 0 && !two_level && !oc_retry {
                break;
            }
            let Some(w) = self.schedulers.get(s).and_then(|x| x.nth(start, i)) else { break };
            if self.deep.contains(w as usize) {
                if oc_retry && self.deep_oc.contains(w as usize) && self.rf.collector_free(group) {
                    self.undeep(w as usize);
                    if self.try_warp(s, w, now, program, &mut scan) {
                        break;
                    }
                    continue;
                }
                if two_level {
                    scan.note(self.sleep.get(w as usize).map_or(StallCause::NoEligibleWarp, |z| z.cause), EVENT);
                }
                continue;
            }
            left = left.saturating_sub(1);
            if self.try_warp(s, w, now, program, &mut scan) {
                break;
            }
        }
        self.end_scan(s, &scan);
        scan
    }

    /// Loose round robin: the live warps of scheduler `s` that are not in deep sleep (and, with
    /// `oc_retry`, those waiting for a collector while one is free) in slot order from the one
    /// after the last to issue, wrapping — the order of [`crate::timing::sm::scheduler::Scheduler::nth`],
    /// walked over slot bit masks. Only an issue changes which warps qualify, and it ends the walk.
    fn scan_lrr(&mut self, s: usize, now: u64, program: &Program, oc_retry: bool, scan: &mut Scan) {
        let first = self.schedulers.get(s).and_then(|x| x.last()).map_or(0, |l| l as usize + 1);
        let end = self.deep.word_count() * 64;
        for (lo, hi) in [(first.min(end), end), (0, first.min(end))] {
            for wi in lo / 64..hi.div_ceil(64) {
                let live = self.sched_slots.get(s).map_or(0, |x| x.word(wi));
                let deep = self.deep.word(wi);
                let oc = if oc_retry { live & deep & self.deep_oc.word(wi) } else { 0 };
                let mut m = ((live & !deep) | oc) & bits_between(lo, hi, wi);
                while m != 0 {
                    let bit = m.trailing_zeros();
                    m &= m - 1;
                    let w = (wi * 64) as u32 + bit;
                    if self.try_qualifying(s, w, deep >> bit & 1 == 1, now, program, scan) {
                        return;
                    }
                }
            }
        }
    }

    /// Greedy-then-oldest and oldest-first for a scheduler with at most 64 warps: the greedy
    /// warp first; if it does not issue, the other qualifying warps (as for [`Sm::scan_lrr`]) are
    /// placed by age rank in a bit mask and walked oldest first — the order of
    /// [`crate::timing::sm::scheduler::Scheduler::nth`], without visiting the warps that do not
    /// qualify. A greedy warp that issues (the common case) saves building the mask. `WIDE`:
    /// more than 64 warp slots (Virtual Thread's and RegMutex's lifted limits), every slot word
    /// looked at and a warp's deep bit read when it is reached (only the warp tried changes its
    /// own; an issue ends the walk); else the one word's masks as the scan began.
    fn scan_by_age<const WIDE: bool>(
        &mut self,
        s: usize,
        now: u64,
        program: &Program,
        oc_retry: bool,
        scan: &mut Scan,
    ) {
        let Some(sched) = self.schedulers.get(s) else { return };
        let (qualify, deep) = self.qualifying(s, 0, oc_retry);
        let qualifies = |this: &Self, w: u32| match w {
            0..64 => qualify >> w & 1 == 1,
            _ => WIDE && this.qualifying(s, w as usize / 64, oc_retry).0 >> (w % 64) & 1 == 1,
        };
        let is_deep =
            |this: &Self, w: u32| if WIDE { this.deep.contains(w as usize) } else { deep >> (w % 64) & 1 == 1 };
        let greedy = sched.greedy().filter(|&g| qualifies(self, g));
        if let Some(g) = greedy {
            if self.try_qualifying(s, g, is_deep(self, g), now, program, scan) {
                return;
            }
        }
        let Some(sched) = self.schedulers.get(s) else { return };
        let mut by_age = 0u64;
        let words = if WIDE { self.deep.word_count() } else { 1 };
        for wi in 0..words {
            let q = if wi == 0 { qualify } else { self.qualifying(s, wi, oc_retry).0 };
            let mut m = q & !greedy.filter(|&g| g as usize / 64 == wi).map_or(0, |g| 1 << (g % 64));
            while m != 0 {
                let bit = m.trailing_zeros();
                m &= m - 1;
                by_age |= 1 << (sched.age_rank((wi * 64) as u32 + bit) % 64);
            }
        }
        while by_age != 0 {
            let rank = by_age.trailing_zeros();
            by_age &= by_age - 1;
            let Some(w) = self.schedulers.get(s).and_then(|x| x.by_age(rank)) else { continue };
            if self.try_qualifying(s, w, is_deep(self, w), now, program, scan) {
                return;
            }
        }
    }

    /// Scheduler `s`'s warps among slots `64 × wi` … that qualify for a scan (live and not in
    /// deep sleep, or with `oc_retry` waiting for a collector), and those in deep sleep.
    fn qualifying(&self, s: usize, wi: usize, oc_retry: bool) -> (u64, u64) {
        let live = self.sched_slots.get(s).map_or(0, |x| x.word(wi));
        let deep = self.deep.word(wi);
        let oc = if oc_retry { live & deep & self.deep_oc.word(wi) } else { 0 };
        ((live & !deep) | oc, deep)
    }

    /// Tries warp `w`, which qualified for this scan of scheduler `s`: a deep sleeper (`deep`)
    /// qualified by waiting for a collector and is looked at only while its group has one free.
    /// True if it issued.
    #[inline]
    fn try_qualifying(&mut self, s: usize, w: u32, deep: bool, now: u64, program: &Program, scan: &mut Scan) -> bool {
        if deep {
            let group = self.sched_group.get(s).copied().unwrap_or(0);
            if !self.rf.collector_free(group) {
                return false;
            }
            self.undeep(w as usize);
        }
        self.try_warp(s, w, now, program, scan)
    }

    /// A scheduler that issued nothing sleeps until the earliest wake its scan found.
    fn end_scan(&mut self, s: usize, scan: &Scan) {
        if !scan.issued {
            if let Some(sched) = self.schedulers.get_mut(s) {
                sched.sleep_until = scan.wake;
                sched.sleep_cause = scan.best;
            }
        }
    }

    /// Looks at warp `w` of scheduler `s`: skipped while asleep, else issued if it can go (true),
    /// else put to sleep with its cause noted in `scan`.
    fn try_warp(&mut self, s: usize, w: u32, now: u64, program: &Program, scan: &mut Scan) -> bool {
        if let Some(z) = self.asleep(w as usize, s, now) {
            scan.note(z.cause, z.wake);
            return false;
        }
        match self.issue_warp(w as usize, now, program) {
            Ok(()) => {
                if let Some(x) = self.sleep.get_mut(w as usize) {
                    x.wake = 0;
                    x.unit = None;
                    x.refused = false;
                }
                if let Some(sched) = self.schedulers.get_mut(s) {
                    sched.issued(w);
                }
                self.sleep_if_dependent(w as usize, s, now, program);
                scan.issued = true;
                if self.hooks.contains(HookSet::PAIRING) {
                    self.try_pair(s, w, now, program);
                }
                true
            }
            Err(b) => {
                scan.note(b.cause, b.wake);
                let epoch = self.group_epoch(s);
                let z = Sleep { wake: b.wake, cause: b.cause, epoch, unit: b.unit, refused: b.refused };
                self.sleep_warp(w as usize, s, z);
                false
            }
        }
    }

    /// After warp `w` issued at `now`: if its next instruction waits on a result still in
    /// flight, it sleeps right away with the cause the next cycle's look would find (that look
    /// passes the same earlier checks — buffer ready at `now + 1`, no barrier — and every
    /// release of its scoreboard wakes it), so the next scan need not try it.
    pub(super) fn sleep_if_dependent(&mut self, w: usize, s: usize, now: u64, program: &Program) {
        let Some(warp) = self.warps.get(w) else { return };
        if !warp.live || warp.pc >= warp.len || warp.at_barrier || !warp.ib.ready(now + 1) {
            return;
        }
        let Some(st) = program.insts.get(warp.next.sid as usize) else { return };
        let Some(cause) = self.dependence(w, st, program) else { return };
        let epoch = self.group_epoch(s);
        self.sleep_warp(w, s, Sleep { wake: EVENT, cause, epoch, unit: None, refused: false });
    }

    /// After a write-back of warp `w` at `now`: true if the warp sleeps on a dependence of its
    /// next instruction and that instruction still waits, for the same cause — the look the
    /// issue stage would take at it (every earlier check passed when it went to sleep, and
    /// nothing but this write-back happened to it since) would put it back to sleep unchanged, so
    /// it need not be woken.
    pub(super) fn still_dependent(&self, w: usize, now: u64, program: &Program) -> bool {
        let (Some(z), Some(warp)) = (self.sleep.get(w), self.warps.get(w)) else { return false };
        if z.wake != EVENT || z.unit.is_some() || !matches!(z.cause, StallCause::Memory | StallCause::Scoreboard) {
            return false;
        }
        if !self.deep.contains(w) || !warp.live || warp.pc >= warp.len || warp.at_barrier || !warp.ib.ready(now) {
            return false;
        }
        let Some(st) = program.insts.get(warp.next.sid as usize) else { return false };
        self.dependence(w, st, program) == Some(z.cause)
    }

    /// Whether `s`, warp `w`'s next instruction, waits on a result in flight: a load's (memory)
    /// or another instruction's (scoreboard).
    fn dependence(&self, w: usize, s: &StaticInst, program: &Program) -> Option<StallCause> {
        match self.scoreboard.blocked_by(w, s, program)? {
            Pending::Memory => Some(StallCause::Memory),
            Pending::Alu => Some(StallCause::Scoreboard),
        }
    }

    /// Issues up to the issue width from warp `w`.
    fn issue_warp(&mut self, w: usize, now: u64, program: &Program) -> Result<(), Blocked> {
        let first = self.issue_one(w, now, program, None)?;
        let max = self.issue_per_cycle + u32::from(self.dual_issue);
        let mut prev = first;
        for _ in 1..max {
            match self.issue_one(w, now, program, Some(prev)) {
                Ok(unit) => prev = unit,
                Err(_) => break,
            }
        }
        Ok(())
    }

    /// Issues the next instruction of warp `w` if it can go; `after` is the unit of an instruction
    /// this warp already issued this cycle.
    pub(super) fn issue_one(
        &mut self,
        w: usize,
        now: u64,
        program: &Program,
        after: Option<UnitKind>,
    ) -> Result<UnitKind, Blocked> {
        let inst = self.ready_instruction(w, now, after)?;
        let Some(s) = program.insts.get(inst.sid as usize) else {
            return Err(blocked(StallCause::NoEligibleWarp));
        };
        if after.is_some_and(|u| !self.dual_issue_allowed(u, s.unit)) {
            return Err(until(StallCause::Structural, now + 1));
        }
        if let Some(cause) = self.dependence(w, s, program) {
            return Err(blocked(cause));
        }
        if let Control::Barrier { .. } | Control::Exit = s.control {
            if self.pair_first.is_some() {
                return Err(until(StallCause::Structural, now + 1));
            }
            self.issue_control(w, now, s.control, inst.executed);
            return Ok(s.unit);
        }
        if self.hooks.contains(HookSet::VALUES) {
            self.feed_values(w);
        }
        let (cu, unit, pool) = self.collect(w, &inst, s, now, program)?;
        let why =
            if matches!(s.mem, MemOp::Load | MemOp::Atomic | MemOp::Operand) { Pending::Memory } else { Pending::Alu };
        self.scoreboard.reserve_for(w, s, program, why);
        if self.in_cu.len() <= cu as usize {
            self.in_cu.resize(cu as usize + 1, None);
        }
        let (extra_read, extra_write) = if self.hooks.contains(HookSet::OPERAND_LATENCY) {
            self.operand_latencies(w, &inst, s, program)
        } else {
            (0, 0)
        };
        if let Some(slot) = self.in_cu.get_mut(cu as usize) {
            *slot = Some(InFlight { warp: w as u32, inst, seq: self.seq, unit, pool, extra_read, extra_write });
        }
        if self.hooks.contains(HookSet::PAIRING) {
            self.pair_sid = inst.sid;
        }
        self.seq += 1;
        if let Some(warp) = self.warps.get_mut(w) {
            warp.pc += 1;
            warp.in_flight += 1;
            warp.ib.issued(now, s.control == Control::Branch);
        }
        self.load_next(w);
        self.count_issue(inst.executed);
        Ok(unit)
    }

    /// Warp `w`'s next instruction if it is live, not at a barrier and has it buffered.
    fn ready_instruction(&self, w: usize, now: u64, after: Option<UnitKind>) -> Result<DynInst, Blocked> {
        let Some(warp) = self.warps.get(w) else { return Err(blocked(StallCause::Idle)) };
        if !warp.live || warp.pc >= warp.len {
            return Err(blocked(StallCause::NoEligibleWarp));
        }
        if warp.at_barrier {
            return Err(blocked(StallCause::Barrier));
        }
        let buffered = match after {
            None => warp.ib.ready(now),
            Some(_) => warp.ib.ready_at() == Some(now + 1),
        };
        if !buffered {
            return Err(until(StallCause::NoEligibleWarp, warp.ib.ready_at().unwrap_or(EVENT)));
        }
        Ok(warp.next)
    }

    /// The execution unit must be free next cycle, then the scheme must take the instruction
    /// into a collector.
    fn collect(
        &mut self,
        w: usize,
        inst: &DynInst,
        s: &StaticInst,
        now: u64,
        program: &Program,
    ) -> Result<(CuId, UnitKind, u8), Blocked> {
        let (group, scheduler) = self.warps.get(w).map_or((0, 0), |x| (x.group, x.scheduler));
        let (unit, pool) =
            if self.hooks.contains(HookSet::ROUTE) { self.route(w, inst, s, now, program) } else { (s.unit, NO_POOL) };
        let free = if pool == NO_POOL { self.units.free_at(unit, group) } else { self.side.free_at(pool) };
        // Only the instruction's own unit is re-checked by itself (a routed one is looked at
        // again, and routed again, when its unit may be free).
        let own = (unit == s.unit && pool == NO_POOL).then_some(unit);
        if free > now + 1 {
            let cause = if unit == UnitKind::LdSt { StallCause::Memory } else { StallCause::Structural };
            return Err(Blocked { cause, wake: free - 1, unit: own, refused: false });
        }
        if self.pair_first.is_some() && !self.pairs(w, inst, s, program) {
            return Err(until(StallCause::Structural, now + 1));
        }
        let refused = Blocked { cause: StallCause::OperandCollection, wake: EVENT, unit: own, refused: false };
        if self.cu_full_at.get(group as usize) == Some(&now) {
            return Err(refused);
        }
        let (rf_reads, rf_writes) = (program.bank_reads(inst.sid), program.bank_writes(inst.sid));
        let req = OperandRequest {
            warp: w as u32,
            scheduler,
            group,
            sid: inst.sid,
            reads: rf_reads,
            writes: rf_writes,
            unit: s.unit,
            mem: s.mem,
        };
        match self.rf.try_issue(&req, now) {
            IssueOutcome::Collecting(cu) => Ok((cu, unit, pool)),
            IssueOutcome::NoCollector => {
                if let Some(t) = self.cu_full_at.get_mut(group as usize) {
                    *t = now;
                }
                Err(refused)
            }
            // Looked at again next cycle; the scheme may then refuse it without a request
            // (`Sm::asleep`), its unit re-checked first as here.
            IssueOutcome::Stall => {
                Err(Blocked { cause: self.rf.issue_stall_cause(), wake: now + 1, unit: own, refused: true })
            }
        }
    }

    fn dual_issue_allowed(&self, prev: UnitKind, next: UnitKind) -> bool {
        !self.dual_issue || prev != next
    }

    /// Counts an issued warp-instruction and its `lanes` (those whose guard held).
    fn count_issue(&mut self, lanes: crate::timing::stream::trace::LaneMask) {
        self.stats.warp_instructions += 1;
        self.stats.thread_instructions += u64::from(lanes.count_ones());
    }

    /// Issues a barrier or exit: no operands, no unit.
    fn issue_control(
        &mut self,
        w: usize,
        now: u64,
        control: Control,
        executed: crate::timing::stream::trace::LaneMask,
    ) {
        let Some(warp) = self.warps.get_mut(w) else { return };
        warp.pc += 1;
        warp.ib.issued(now, false);
        let cta = warp.cta as usize;
        let at_barrier = matches!(control, Control::Barrier { wait: true });
        warp.at_barrier = at_barrier;
        self.load_next(w);
        if at_barrier {
            if let Some(Some(c)) = self.ctas.get_mut(cta) {
                c.waiting += 1;
            }
            if self.residency_hooks {
                self.check_all_stalled(cta as u32);
            }
        }
        self.count_issue(executed);
        self.finish_if_done(w, now);
        self.try_release_barrier(cta, now);
    }
}
