//! One streaming multiprocessor: warp slots, schedulers, scoreboard, the register-file scheme
//! (operand collection), execution units, the LD/ST pipeline with its L1, and write-back.
//!
//! ```text
//! cycle t:  write-back (due results claim banks, release the scoreboard)
//!        →  operand collection (scheme arbitrates reads; collected instructions become ready)
//!        →  dispatch (ready instructions start on a free unit; memory ones are timed)
//!        →  issue (each scheduler picks a warp by policy; one cause per scheduler cycle)
//! ```
//!
//! Timing of a dependent ALU chain: issue at t, operands read at t + 1 (no conflicts) and
//! dispatched, result written back at t + 1 + latency; write-back precedes issue within a cycle,
//! so the dependent issues in that same cycle — a period of latency + 1 cycles (worked examples:
//! `tests/cases/timing/`).
//!
//! The SM sleeps through cycles in which nothing can change (no issue, no queued reads, no
//! result due, no warp about to become ready): [`Sm::next_event`] says when to call it again and
//! the skipped cycles are charged to the causes of the last simulated one, so the results are the
//! same as simulating every cycle.

mod finish_bound;
#[cfg(test)]
mod hook_tests;
pub mod hooks;
pub mod ibuffer;
mod issue;
mod issue_hooks;
mod pipeline;
mod refill;
mod residency;
pub mod scheduler;
mod scheme_side;
pub mod scoreboard;
mod sleep;
pub mod warp;
pub mod writeback;

use alloc::boxed::Box;
use alloc::collections::VecDeque;
use alloc::rc::Rc;
use alloc::vec;
use alloc::vec::Vec;

use crate::gpu::GpuConfig;
use crate::timing::exec_units::{ExecUnits, UnitKind, UNIT_KINDS};
use crate::timing::memory::l1::L1;
use crate::timing::memory::l2::L2;
use crate::timing::memory::{MemoryStats, SmMemory};
use crate::timing::program::Program;
use crate::timing::program_map::{SchemeProgram, Translate};
use crate::timing::regfile::{CuId, RegisterFileScheme, SmGeometry};
use crate::timing::report::{ResidencyStats, StallBreakdown, StallCause};
use crate::timing::stream::trace::{CtaStream, DynInst};
use finish_bound::RoomBound;
use hooks::{HookSet, ResidencyEvent, SmActions};
use ibuffer::IBuffer;
use scheduler::Scheduler;
use scheme_side::SchemeSide;
use scoreboard::Scoreboard;
use sleep::{group_of, DeepCauses, Sleep};
use warp::{ResidentCta, Warp, WarpSet};
use writeback::WritebackQueue;

/// What the SM shares with the rest of the chip during a cycle.
pub struct ChipContext<'a> {
    /// The decoded program.
    pub program: &'a Program,
    /// L2 and DRAM.
    pub l2: &'a mut L2,
    /// Memory counts.
    pub mem_stats: &'a mut MemoryStats,
}

/// An instruction in a collector.
#[derive(Clone, Copy, Debug)]
struct InFlight {
    pub warp: u32,
    pub inst: DynInst,
    pub seq: u64,
    /// The unit it executes on (its own unless the scheme routed it).
    pub unit: UnitKind,
    /// A scheme unit pool it was routed to ([`NO_POOL`]: none).
    pub pool: u8,
    /// Extra cycles before dispatch and before write-back (per-operand latency hook).
    pub extra_read: u16,
    pub extra_write: u16,
}

/// [`InFlight::pool`] of an instruction on an SM unit.
const NO_POOL: u8 = u8::MAX;

/// A collected instruction waiting for dispatch.
#[derive(Clone, Copy, Debug)]
struct Ready {
    pub cu: CuId,
    pub at: u64,
    pub unit: UnitKind,
    pub group: u32,
}

/// Counts of one SM.
#[derive(Clone, Copy, Debug, Default)]
pub struct SmStats {
    /// Warp-instructions issued.
    pub warp_instructions: u64,
    /// Thread-instructions issued.
    pub thread_instructions: u64,
    /// Scheduler cycles by cause.
    pub stalls: StallBreakdown,
    /// What the scheme's residency actions did and cost.
    pub residency: ResidencyStats,
}

/// One SM, generic over its register-file scheme `R` so that the scheme's calls in the inner
/// loop are static and inlined (`Sm<dyn RegisterFileScheme>`, the default, calls through the
/// trait object: the chip instantiates the registered schemes it knows, see [`crate::timing::chip`]).
pub struct Sm<R: RegisterFileScheme + ?Sized = dyn RegisterFileScheme> {
    warps: Vec<Warp>,
    ctas: Vec<Option<ResidentCta>>,
    schedulers: Vec<Scheduler>,
    scoreboard: Scoreboard,
    units: ExecUnits,
    rf: Box<R>,
    mem: SmMemory,
    wb: WritebackQueue,
    in_cu: Vec<Option<InFlight>>,
    collected: Vec<CuId>,
    /// Collected instructions waiting for their unit: collector, first cycle, unit, group.
    /// One FIFO per pool of pipelines (a unit kind, per group where groups have their own), so a
    /// busy pool is checked once per cycle, not once per instruction waiting for it; instructions
    /// bound for different pools never compete, so dispatching pool by pool, oldest first within
    /// each, is dispatching oldest first overall.
    ready: Vec<VecDeque<Ready>>,
    /// Instructions in `ready`.
    ready_len: usize,
    /// Bit `q` set while `ready[q]` is not empty (pools beyond 64 are always visited).
    ready_pools: u64,
    /// Bit `q` set for the LD/ST pools among the first 64.
    ldst_pools: u64,
    /// A cycle before which no resident CTA can finish (see [`Sm::earliest_cta_finish`]); 0
    /// after a launch. It stays a valid bound as cycles pass: a warp cannot issue faster, nor
    /// a result come back sooner.
    finish_bound: u64,
    /// Per CTA slot, the latest cycle a result of its warps is due (scratch of
    /// [`Sm::earliest_cta_finish`] and [`Sm::earliest_room`]).
    latest_due: Vec<u64>,
    /// [`Sm::earliest_room`]'s last bound; cleared by a launch.
    room_bound: RoomBound,
    /// Per warp slot: the first cycle the issue stage must look at it again (`u64::MAX`: after
    /// an event of its own, see [`Sm::wake`]) and why it could not issue when last looked at.
    sleep: Vec<Sleep>,
    /// Per group: collectors released so far (wakes warps refused a collector).
    cu_epoch: Vec<u32>,
    /// Per group: the cycle the scheme last refused an issue for lack of a collector (the issue
    /// stage does not ask again in that cycle).
    cu_full_at: Vec<u64>,
    /// Per scheduler: its group.
    sched_group: Vec<u32>,
    /// Warps asleep until an event of their own (or, for `deep_oc`, a freed collector): the issue
    /// stage skips them without looking at their record.
    deep: WarpSet,
    /// The deep sleepers waiting for a collector.
    deep_oc: WarpSet,
    /// Per scheduler: its live warps.
    sched_slots: Vec<WarpSet>,
    /// Per scheduler: deep sleepers by cause rank.
    deep_causes: Vec<DeepCauses>,
    seq: u64,
    geo: SmGeometry,
    writeback_width: u32,
    issue_per_cycle: u32,
    dual_issue: bool,
    stats: SmStats,
    causes: Vec<StallCause>,
    accounted_to: u64,
    next_event: u64,
    /// CTAs completed in the last simulated cycle (their run-wide numbers).
    finished: Vec<u64>,
    /// The cycle the first of `finished` completed in.
    finished_at: Option<u64>,
    /// Warp slots in use.
    live_warps: u32,
    cta_numbers: Vec<u64>,
    /// The hooks the scheme uses (asked once).
    hooks: HookSet,
    /// `hooks` has residency events.
    residency_hooks: bool,
    /// Events waiting for the scheme (handled at the end of the cycle).
    events: Vec<ResidencyEvent>,
    /// The scheme's answers, applied at the end of the cycle.
    out: SmActions,
    /// Parked warps, activations, scheme units and memory requests.
    side: SchemeSide,
    /// Per scheduler: warps of parked CTAs.
    parked_in: Vec<u32>,
    /// While the issue stage looks for a pair: the (warp, static instruction) issued first.
    pair_first: Option<(u32, u32)>,
    /// The static instruction issued last (pairing hook only).
    pair_sid: u32,
    /// The scheme's own program and, per warp slot, where its replay stands in the recorded
    /// stream (`None`: the scheme runs the original program and replay reads the stream as is).
    xlate: Option<(Rc<SchemeProgram>, Vec<Translate>)>,
    /// The scheme has been shown the timed program ([`RegisterFileScheme::bind_program`]).
    program_bound: bool,
    /// This SM's timing run, among those sharing the CTAs' pieces ([`refill`]).
    pub stream_run: usize,
}

impl<R: RegisterFileScheme + ?Sized> Sm<R> {
    /// An empty SM of `gpu` with register file `rf`.
    pub fn new(gpu: &GpuConfig, geo: SmGeometry, rf: Box<R>) -> Self {
        let policy = rf.scheduler_policy(gpu.scheduler.policy);
        let hooks = rf.hooks();
        let base = UNIT_KINDS * geo.groups.max(1) as usize;
        let units = if hooks.is_empty() { Vec::new() } else { rf.scheme_units() };
        let side = SchemeSide::new(units, geo.max_warps, base);
        let ready_pools = base + side.pools();
        let units = ExecUnits::new(gpu, geo.groups);
        let ldst_pools = (0..geo.groups.max(1))
            .map(|g| units.pool_id(UnitKind::LdSt, g))
            .filter(|&q| q < 64)
            .fold(0u64, |m, q| m | 1 << q);
        Sm {
            warps: vec![Warp::empty(); geo.max_warps as usize],
            ctas: Vec::new(),
            schedulers: (0..geo.schedulers)
                .map(|_| Scheduler::new(policy).tracking_active_set(hooks.contains(HookSet::ACTIVE_SET)))
                .collect(),
            scoreboard: Scoreboard::new(geo.max_warps as usize),
            units,
            rf,
            mem: SmMemory::new(gpu),
            wb: WritebackQueue::default(),
            in_cu: Vec::new(),
            collected: Vec::new(),
            ready: vec![VecDeque::new(); ready_pools],
            ready_len: 0,
            ready_pools: 0,
            ldst_pools,
            finish_bound: 0,
            latest_due: Vec::new(),
            room_bound: RoomBound::default(),
            sleep: vec![
                Sleep { wake: 0, cause: StallCause::Idle, epoch: 0, unit: None, refused: false };
                geo.max_warps as usize
            ],
            cu_epoch: vec![0; geo.groups.max(1) as usize],
            cu_full_at: vec![u64::MAX; geo.groups.max(1) as usize],
            sched_group: (0..geo.schedulers).map(|s| group_of(s, &geo)).collect(),
            deep: WarpSet::new(geo.max_warps as usize),
            deep_oc: WarpSet::new(geo.max_warps as usize),
            deep_causes: vec![DeepCauses::default(); geo.schedulers as usize],
            sched_slots: vec![WarpSet::new(geo.max_warps as usize); geo.schedulers as usize],
            seq: 0,
            geo,
            writeback_width: gpu.register_file.writeback_width.max(1),
            issue_per_cycle: gpu.scheduler.issue_width.max(1),
            dual_issue: gpu.scheduler.dual_issue,
            stats: SmStats::default(),
            causes: vec![StallCause::Idle; geo.schedulers as usize],
            accounted_to: 0,
            next_event: u64::MAX,
            finished: Vec::new(),
            finished_at: None,
            live_warps: 0,
            cta_numbers: Vec::new(),
            hooks,
            residency_hooks: hooks.contains(HookSet::RESIDENCY),
            events: Vec::new(),
            out: SmActions::default(),
            side,
            parked_in: vec![0; geo.schedulers as usize],
            pair_first: None,
            pair_sid: 0,
            xlate: None,
            program_bound: false,
            stream_run: 0,
        }
    }

    /// Replays streams as the instructions of `program` (a scheme that transforms code).
    pub fn set_scheme_program(&mut self, program: Rc<SchemeProgram>) {
        let n = self.warps.len();
        self.rf.on_scheme_program(&program);
        self.xlate = Some((program, vec![Translate::default(); n]));
    }

    /// The next cycle at which this SM must be simulated (`u64::MAX`: only a new CTA wakes it).
    pub fn next_event(&self) -> u64 {
        self.next_event
    }

    /// Whether CTAs finished in the last simulated cycle (the chip must dispatch before going on).
    pub fn has_finished_ctas(&self) -> bool {
        !self.finished.is_empty()
    }

    /// The cycle the first CTA of [`Sm::take_finished`] finished in, if any.
    pub fn first_finish(&self) -> Option<u64> {
        self.finished_at
    }

    /// Takes the CTAs finished since the last call: how many.
    pub fn take_finished(&mut self) -> usize {
        self.finished_at = None;
        let n = self.finished.len();
        self.finished.clear();
        n
    }

    /// A cycle, from `now` on, before which no resident CTA can finish (refreshed from
    /// [`Sm::earliest_cta_finish`] once `now` reaches the last bound).
    pub fn finish_bound(&mut self, now: u64) -> u64 {
        if self.finish_bound <= now {
            self.finish_bound = self.earliest_cta_finish(now);
        }
        self.finish_bound
    }

    /// The first cycle whose issue this SM has still to simulate, at `now` or later: where it
    /// stands when it ran past the chip's window ([`crate::timing::chip_sms`]).
    pub fn resume_at(&self, now: u64) -> u64 {
        now.max(self.accounted_to)
    }

    /// Counts so far.
    pub fn stats(&self) -> &SmStats {
        &self.stats
    }

    /// The register-file scheme of this SM.
    pub fn scheme(&self) -> &R {
        &self.rf
    }

    /// The register-file scheme of this SM, to prepare it before the run.
    pub fn scheme_mut(&mut self) -> &mut R {
        &mut self.rf
    }

    /// The SM's L1 data cache (hit and miss counts).
    pub fn l1(&self) -> &L1 {
        &self.mem.l1
    }

    /// Resident CTAs.
    pub fn resident_ctas(&self) -> u32 {
        self.ctas.iter().filter(|c| c.is_some()).count() as u32
    }

    /// Resident unfinished warps.
    pub fn resident_warps(&self) -> u32 {
        self.ctas.iter().flatten().map(|c| c.live_warps).sum()
    }

    /// Free warp slots.
    pub fn free_warp_slots(&self) -> u32 {
        self.geo.max_warps.saturating_sub(self.live_warps)
    }

    /// Starts CTA number `number` at the end of cycle `now`: its warps fetch from `now + 1`. It
    /// is active unless the scheme has residency hooks and `active_limit` CTAs are active.
    pub fn launch(&mut self, stream: Rc<CtaStream>, number: u64, registers: u32, active_limit: u32, now: u64) {
        let slot = match self.ctas.iter().position(Option::is_none) {
            Some(s) => s,
            None => {
                self.ctas.push(None);
                self.cta_numbers.push(0);
                self.ctas.len() - 1
            }
        };
        let mut slots = Vec::with_capacity(stream.warps.len());
        for (index, ws) in stream.warps.iter().enumerate() {
            let Some(w) = self.warps.iter().position(|w| !w.live) else { break };
            let len = self.xlate.as_ref().map_or(ws.len(), |(p, _)| p.map.issued(ws));
            self.start_warp(w, slot as u32, index as u32, number, len, now);
            slots.push(w as u32);
        }
        let live_warps = slots.len() as u32;
        let (pieces, stream) = if stream.more.is_some() {
            let (p, header) = refill::Pieces::new(&stream);
            (Some(p), header)
        } else {
            (None, stream)
        };
        if live_warps == 0 {
            self.finished.push(number);
            self.finished_at.get_or_insert(now);
            return;
        }
        // CTAs moving in count as active (their activation is already under way).
        let busy = self.ctas.iter().flatten().filter(|c| c.active || c.activating).count() as u32;
        let active = !self.residency_hooks || busy < active_limit;
        let c = ResidentCta {
            stream,
            slots,
            live_warps,
            waiting: 0,
            registers,
            active,
            activating: false,
            mem_waiting: 0,
            pieces,
        };
        if let Some(x) = self.ctas.get_mut(slot) {
            *x = Some(c);
        }
        if let Some(n) = self.cta_numbers.get_mut(slot) {
            *n = number;
        }
        for i in 0..live_warps as usize {
            let w = self.ctas.get(slot).and_then(|c| c.as_ref()).and_then(|c| c.slots.get(i).copied());
            if let Some(w) = w {
                self.load_next(w as usize);
            }
        }
        self.next_event = self.next_event.min(now + 1);
        self.finish_bound = 0;
        self.room_bound = RoomBound::default();
        for w in self.ctas.get(slot).and_then(|c| c.as_ref()).map(|c| c.slots.clone()).unwrap_or_default() {
            self.finish_if_done(w as usize, now);
        }
        if self.residency_hooks {
            self.launched(slot as u32, number, live_warps, registers, active, now);
        }
    }

    /// Puts warp `index` of CTA `number` (in CTA slot `cta`, `len` instructions) in warp slot `w`;
    /// it fetches from `now + 1`.
    fn start_warp(&mut self, w: usize, cta: u32, index: u32, number: u64, len: u32, now: u64) {
        let scheduler = w as u32 % self.geo.schedulers.max(1);
        let group = group_of(scheduler, &self.geo);
        if let Some(warp) = self.warps.get_mut(w) {
            *warp = Warp {
                live: true,
                cta,
                index,
                uid: number * 1024 + u64::from(index),
                pc: 0,
                len,
                ib: IBuffer::starting_at(now + 1),
                at_barrier: false,
                in_flight: 0,
                scheduler,
                group,
                next: DynInst::default(),
                cursor: Default::default(),
                fed: u32::MAX,
            };
        }
        if let Some(t) = self.xlate.as_mut().and_then(|(_, t)| t.get_mut(w)) {
            *t = Translate::default();
        }
        self.scoreboard.clear(w);
        self.wake(w);
        if let Some(s) = self.schedulers.get_mut(scheduler as usize) {
            s.add(w as u32);
        }
        if let Some(s) = self.sched_slots.get_mut(scheduler as usize) {
            s.insert(w);
        }
        self.live_warps += 1;
    }

    /// The first half of cycle `now`: write-back, operand collection, and collected
    /// instructions joining their unit's queue. Nothing in it reads or writes chip-wide state.
    pub(in crate::timing) fn cycle_front(&mut self, now: u64, program: &Program) {
        self.account_until(now);
        if !self.hooks.is_empty() {
            if !self.program_bound {
                self.program_bound = true;
                self.rf.bind_program(program);
            }
            self.hooks_front(now);
        }
        self.writeback(now, program);
        self.rf.cycle(now, &mut self.collected);
        // With per-operand latency, each instruction carries its own (the scheme-wide stages
        // are the per-operand default).
        let extra =
            if self.hooks.contains(HookSet::OPERAND_LATENCY) { 0 } else { u64::from(self.rf.extra_read_stages()) };
        for cu in self.collected.drain(..) {
            let Some(Some(f)) = self.in_cu.get(cu as usize) else { continue };
            let (unit, pool, at) = (f.unit, f.pool, now + extra + u64::from(f.extra_read));
            let group = self.warps.get(f.warp as usize).map_or(0, |w| w.group);
            let q = if pool == NO_POOL { self.units.pool_id(unit, group) } else { self.side.base + usize::from(pool) };
            if let Some(queue) = self.ready.get_mut(q) {
                queue.push_back(Ready { cu, at, unit, group });
                self.ready_len += 1;
                if q < 64 {
                    self.ready_pools |= 1 << q;
                }
            }
        }
    }

    /// The second half of cycle `now` (after [`Sm::cycle_front`]): dispatch — where global and
    /// local accesses reach the chip's L2 — and issue.
    pub(in crate::timing) fn cycle_back(&mut self, now: u64, cx: &mut ChipContext<'_>) {
        self.dispatch(now, cx);
        let (issued, wake) = self.issue(now, cx.program);
        self.accounted_to = now + 1;
        self.next_event = if issued || self.rf.busy() || self.ready_len > 0 {
            now + 1
        } else {
            let wb = self.wb.next_event(now).unwrap_or(u64::MAX);
            wb.min(wake).max(now + 1)
        };
        if !self.hooks.is_empty() {
            self.hooks_back(now);
            self.next_event = self.next_event.min(self.side.next_event(now));
        }
    }

    /// Simulates cycle `now`.
    pub fn cycle(&mut self, now: u64, cx: &mut ChipContext<'_>) {
        self.cycle_front(now, cx.program);
        self.cycle_back(now, cx);
    }

    /// Caches warp `w`'s next instruction (after its `pc` moved).
    fn load_next(&mut self, w: usize) {
        if self.warps.get(w).is_some_and(|x| x.pc >= x.len) {
            self.refill(w);
        }
        let Some(warp) = self.warps.get_mut(w) else { return };
        if let Some((p, tr)) = &mut self.xlate {
            let (Some(Some(c)), Some(t)) = (self.ctas.get(warp.cta as usize), tr.get_mut(w)) else { return };
            let Some(stream) = c.warp_stream(warp.index) else { return };
            warp.next = t.decode(&p.map, stream, warp.pc, &mut warp.cursor);
            return;
        }
        if let Some(d) = warp.cursor.cached(warp.pc) {
            warp.next = d;
            return;
        }
        let Some(Some(c)) = self.ctas.get(warp.cta as usize) else { return };
        let Some(stream) = c.warp_stream(warp.index) else { return };
        warp.next = stream.decode(warp.pc, &mut warp.cursor);
    }

    /// Charges the cycles from the last simulated one up to (not including) `now` to the causes
    /// of the last simulated cycle.
    pub fn account_until(&mut self, now: u64) {
        if now > self.accounted_to {
            let n = now - self.accounted_to;
            for &c in &self.causes {
                self.stats.stalls.add(c, n);
            }
            self.accounted_to = now;
        }
    }

    /// Records this cycle's cause of scheduler `s`.
    fn set_cause(&mut self, s: usize, cause: StallCause) {
        if let Some(c) = self.causes.get_mut(s) {
            *c = cause;
        }
        self.stats.stalls.add(cause, 1);
    }

    /// Warp `w` finished its stream and has nothing in flight: frees it, and its CTA when it was
    /// the last.
    fn finish_if_done(&mut self, w: usize, now: u64) {
        let Some(warp) = self.warps.get_mut(w) else { return };
        if !warp.live || !warp.done() {
            return;
        }
        let (cta, sched) = (warp.cta as usize, warp.scheduler as usize);
        self.undeep(w);
        let Some(warp) = self.warps.get_mut(w) else { return };
        warp.live = false;
        self.live_warps = self.live_warps.saturating_sub(1);
        if let Some(s) = self.schedulers.get_mut(sched) {
            s.remove(w as u32);
        }
        if let Some(s) = self.sched_slots.get_mut(sched) {
            s.remove(w);
        }
        self.scoreboard.clear(w);
        self.forget_parked(w);
        if self.residency_hooks {
            self.events.push(ResidencyEvent::WarpFinished { warp: w as u32, cta: cta as u32 });
        }
        let Some(Some(c)) = self.ctas.get_mut(cta) else { return };
        c.live_warps = c.live_warps.saturating_sub(1);
        if c.live_warps == 0 {
            if let Some(slot) = self.ctas.get_mut(cta) {
                *slot = None;
            }
            self.side.cancel_activation(cta as u32);
            if self.residency_hooks {
                self.events.push(ResidencyEvent::CtaFinished { cta: cta as u32 });
            }
            self.finished.push(self.cta_numbers.get(cta).copied().unwrap_or(0));
            self.finished_at.get_or_insert(now);
        } else {
            self.try_release_barrier(cta, now);
            if self.residency_hooks {
                self.check_all_stalled(cta as u32);
            }
        }
    }

    /// Releases CTA `cta`'s barrier if every unfinished warp waits at it.
    fn try_release_barrier(&mut self, cta: usize, now: u64) {
        let Some(Some(c)) = self.ctas.get_mut(cta) else { return };
        if c.waiting == 0 || c.waiting < c.live_warps {
            return;
        }
        c.waiting = 0;
        let n = c.slots.len();
        for i in 0..n {
            let Some(w) = self.ctas.get(cta).and_then(|c| c.as_ref()).and_then(|c| c.slots.get(i).copied()) else {
                return;
            };
            // A slot whose warp finished may already hold a later CTA's warp.
            if self.warps.get(w as usize).is_none_or(|x| x.cta as usize != cta) {
                continue;
            }
            if let Some(warp) = self.warps.get_mut(w as usize) {
                if warp.live && warp.at_barrier {
                    warp.at_barrier = false;
                    warp.ib.released(now);
                    self.wake(w as usize);
                }
            }
            self.finish_if_done(w as usize, now);
        }
    }
}
