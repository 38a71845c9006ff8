//! One timing run: the whole chip (SMs, L2, DRAM, CTA dispatcher) under one register-file
//! scheme, advanced cycle by cycle — skipping cycles in which no SM can change state — and
//! summarised in a [`Report`].
//!
//! ```text
//! cycle t: SMs due at t simulate it (in SM order) → finished CTAs leave → new CTAs dispatched
//!          (their warps issue from t + 1) → occupancy samples → next t = earliest SM event
//! ```
//!
//! The result is that of simulating every SM cycle by cycle, but the host runs each SM ahead
//! through a window of cycles at a time (so its state stays in the host's cache). A window ends
//! at the first cycle any resident CTA could finish — all its instructions left must issue, at
//! most the SM's issue width a cycle, and its slowest warp has at least the CTA's average of
//! them and issues at most one scheduler's width a cycle — or before an occupancy sample. Within
//! it an SM stops before a cycle whose dispatch may reach the L2, and stopped SMs resume in
//! (cycle, SM) order, the order the L2 would see cycle by cycle. A CTA that finishes anywhere
//! but at a window's end is reported as an internal error (a wrong bound), never absorbed.
//!
//! ```text
//! window 100..=131: SM 0 runs 100–131 · SM 1 stops at 104 (a global load) · SM 2 stops at 101
//!   → SM 2's 101 dispatch, on to 131 · SM 1's 104 dispatch, on to 131 → CTA finishes at 131
//! ```
//!
//! An SM the dispatcher cannot concern at the window's end runs past it: up to the cycle
//! before one of its own CTAs could finish or it could have the room the dispatcher waits for
//! (free warp slots and a CTA place, [`crate::timing::cta_dispatch::Waiting`]), or the next
//! occupancy sample. It stops before an L2 access past the window's end as well, and resumes
//! once a later window reaches that cycle, so the L2's order is unchanged. Reports are those of
//! every SM stopping at each window's end ([`TimingOptions::lockstep_windows`]).
//!
//! ```text
//! window 100..=131, SM 3 full, no CTA of it done before 900: SM 3 runs 100–180, stops at 181
//!   (a global load) · windows to 160, 175, 190: in the one to 190 SM 3's 181 dispatch, on …
//! ```
//!
//! The run starts with every SM idle at cycle 0 and the first CTAs dispatched at its end; it ends
//! in the cycle its last CTA finishes (`cycles` counts cycles 0 to that one).

use alloc::boxed::Box;
use alloc::collections::BTreeMap;
use alloc::rc::Rc;
use alloc::vec::Vec;

use super::{TimingError, TimingOptions};
use crate::gpu::GpuConfig;
use crate::timing::chip_sms::{self, RunAhead, SmArray, SmShape};
use crate::timing::cta_dispatch::Dispatcher;
use crate::timing::memory::l2::L2;
use crate::timing::memory::MemoryStats;
use crate::timing::program::Program;
use crate::timing::program_map::SchemeProgram;
use crate::timing::quick_sample;
use crate::timing::regfile::{
    RegisterFileScheme, ResolvedScheme, SchemeConfigError, SchemeContext, SchemeStats, SmGeometry,
};
use crate::timing::report::{
    Ipc, OccupancySample, OccupancyTimeline, Outcome, RegisterFileReport, Report, ResidencyStats, StallBreakdown,
};
use crate::timing::sm::ChipContext;
use crate::timing::stream::feed::Feed;

const MAX_SAMPLES: usize = 1024;

/// A run of one scheme.
pub struct ChipRun {
    /// The scheme, its label and its full config.
    scheme: ResolvedScheme,
    /// The scheme instance answering kernel-level questions (registers, residency limits).
    kernel_scheme: Box<dyn RegisterFileScheme>,
    /// The SMs, on the scheme's own type where [`chip_sms::build`] knows it.
    sms: Box<dyn SmArray>,
    l2: L2,
    mem_stats: MemoryStats,
    pub(super) dispatcher: Dispatcher,
    now: u64,
    /// The first CTAs have been dispatched.
    started: bool,
    outcome: Outcome,
    end: Option<u64>,
    timeline: OccupancyTimeline,
    next_sample: u64,
    max_warps: u32,
    /// The scheme's own program when it transforms code (else it runs the shared one).
    own: Option<Rc<SchemeProgram>>,
    /// Quick mode: the waves timed so far.
    sample: Option<quick_sample::WaveLog>,
}

impl ChipRun {
    /// A run of `scheme` on `gpu` (SM count already applied).
    pub fn new(scheme: ResolvedScheme, gpu: &GpuConfig, options: &TimingOptions) -> Result<Self, SchemeConfigError> {
        ChipRun::with_program(scheme, gpu, options, None)
    }

    /// A run of `scheme` timed on its own program `own` (a scheme that transforms code), fed the
    /// streams of the shared functional run.
    pub fn with_program(
        scheme: ResolvedScheme,
        gpu: &GpuConfig,
        options: &TimingOptions,
        own: Option<SchemeProgram>,
    ) -> Result<Self, SchemeConfigError> {
        let make = |ctx: &SchemeContext<'_>, config| scheme.entry.make(ctx, config);
        let mut kernel_scheme = make(
            &SchemeContext { gpu, geometry: geometry(gpu, gpu.limits.max_warps()), energy: &options.energy },
            &scheme.config,
        )?;
        // The placement instance sees the scheme's program too (RegMutex's registers per thread
        // depend on the extension its pass found).
        if let Some(p) = &own {
            kernel_scheme.on_scheme_program(p);
        }
        let max_warps = kernel_scheme.residency_limits(gpu).max_warps();
        // Warp slots of the model: more when the scheme keeps parked CTAs' warps resident.
        let geo = geometry(gpu, kernel_scheme.max_resident_warps(max_warps).max(max_warps));
        let ctx = SchemeContext { gpu, geometry: geo, energy: &options.energy };
        let own = own.map(Rc::new);
        let mut rfs = Vec::new();
        for _ in 0..gpu.core.sm_count.max(1) {
            rfs.push(make(&ctx, &scheme.config)?);
        }
        let sms = chip_sms::build(rfs, &SmShape { gpu, geo, own: own.as_ref() });
        Ok(ChipRun {
            scheme,
            kernel_scheme,
            sms,
            l2: L2::new(gpu),
            mem_stats: MemoryStats::default(),
            dispatcher: Dispatcher::default(),
            now: 0,
            started: false,
            outcome: Outcome::Running,
            end: None,
            timeline: OccupancyTimeline { interval_cycles: options.sample_interval_cycles.max(1), samples: Vec::new() },
            next_sample: 0,
            max_warps,
            own,
            sample: None,
        })
    }

    /// Gives every SM's scheme its compile-time tables ([`crate::timing::regfile::RegisterFileScheme::prepare`])
    /// from `module`, decoded as `program`; a run timed on its own program is left alone.
    pub fn prepare(&mut self, module: &crate::ir::Module, program: &crate::timing::program::Program) {
        if self.own.is_some() {
            return;
        }
        self.sms.prepare(module, program);
    }

    /// Turns on single-use attribution in every SM's scheme
    /// ([`crate::timing::regfile::RegisterFileScheme::attribute_single_use`]); `marks` are of the
    /// shared program, so a run timed on its own program is left alone.
    pub fn attribute_single_use(&mut self, marks: &Rc<crate::timing::regfile::demo_marks::SingleUseMarks>) {
        if self.own.is_none() {
            self.sms.attribute_single_use(marks);
        }
    }

    /// Makes this run number `run` among those sharing the feed (the store of pieces tells
    /// their takes apart).
    pub fn set_stream_run(&mut self, run: usize) {
        self.sms.set_stream_run(run);
    }

    /// Quick mode: log the end of every wave of `wave` CTAs, for the estimate of a `whole`-CTA
    /// sequence the source sampled one CTA in `every`.
    pub fn log_waves(&mut self, wave: u64, every: u64, whole: u64) {
        self.sample = Some(quick_sample::WaveLog::new(wave, every, whole));
    }

    /// Warp-instructions issued so far on every SM.
    fn warp_instructions(&self) -> u64 {
        let mut n = 0;
        self.sms.for_each_stats(&mut |stats, _, _| n += stats.warp_instructions);
        n
    }

    /// Instructions the windows of CTAs that arrived in pieces hold in this run.
    pub fn window_instructions(&self) -> u64 {
        self.sms.window_instructions()
    }

    /// The run has ended (finished or out of budget).
    pub fn done(&self) -> bool {
        self.outcome != Outcome::Running
    }

    /// Current cycle.
    pub fn cycle(&self) -> u64 {
        self.now
    }

    /// Advances at most `max_cycles` cycles.
    pub fn step(
        &mut self,
        max_cycles: u64,
        feed: &mut Feed,
        program: &Program,
        gpu: &GpuConfig,
        options: &TimingOptions,
    ) -> Result<(), TimingError> {
        let stop = self.now.saturating_add(max_cycles);
        // The streams are decoded against the shared program; the SMs time the scheme's own.
        let own = self.own.clone();
        let timed = own.as_ref().map_or(program, |p| &p.program);
        while !self.done() && self.now < stop {
            if self.now >= options.max_cycles {
                self.close(options.max_cycles);
                self.outcome = Outcome::BudgetExceeded { budget_cycles: options.max_cycles };
                return Ok(());
            }
            let t = self.now;
            self.sample_until(t);
            // Until the first dispatch, and while a launch left a CTA to account for, one cycle
            // at a time; otherwise up to the first cycle a CTA could finish (where the dispatcher
            // acts), the cycle before the next occupancy sample, the budget and this step's end.
            let pending = self.sms.has_finished_ctas();
            let cap = self
                .next_sample
                .saturating_sub(1)
                .min(options.max_cycles.saturating_sub(1))
                .min(stop.saturating_sub(1))
                .max(t);
            let end = if !self.started || pending { t } else { self.sms.finish_bound(t).min(cap).max(t) };
            // Quick mode counts every SM's instructions when a wave ends: no SM runs past it.
            let waiting = (self.sample.is_none() && !options.lockstep_windows).then_some(self.dispatcher.waiting);
            let ahead = RunAhead { waiting, cap };
            let mut cx = ChipContext { program: timed, l2: &mut self.l2, mem_stats: &mut self.mem_stats };
            let last = self.sms.advance(t, end, ahead, &mut cx);
            // A CTA that could not be continued ended its warps early: its error comes first.
            if let Some(e) = feed.failure() {
                return Err(TimingError::Source(e));
            }
            let last = last?;
            self.end_of_cycle(end, feed, (program, timed), gpu, options)?;
            if self.dispatcher.drained && self.dispatcher.in_flight() == 0 {
                self.close(end + 1);
                self.outcome = Outcome::Finished;
                return Ok(());
            }
            let next = self.sms.next_event();
            if next == u64::MAX {
                return Err(TimingError::Deadlock { cycle: last.unwrap_or(end) });
            }
            self.now = next.max(end + 1);
        }
        Ok(())
    }

    /// The end of cycle `t`: finished CTAs leave, new ones are dispatched (`programs`: the shared
    /// program the streams refer to, the one timed).
    fn end_of_cycle(
        &mut self,
        t: u64,
        feed: &mut Feed,
        programs: (&Program, &Program),
        gpu: &GpuConfig,
        options: &TimingOptions,
    ) -> Result<(), TimingError> {
        let mut freed = !self.started;
        for _ in 0..self.sms.take_finished() {
            self.dispatcher.finished();
            freed = true;
        }
        if freed && self.sample.as_ref().is_some_and(|w| w.due(self.dispatcher.completed)) {
            let (completed, insts) = (self.dispatcher.completed, self.warp_instructions());
            if let Some(w) = &mut self.sample {
                w.record(completed, t + 1, insts);
            }
        }
        // Room for a CTA appears only when one finishes (or at the start).
        if freed {
            let scheme = &*self.kernel_scheme;
            self.sms.dispatch(&mut self.dispatcher, t, feed, programs, gpu, scheme, options.registers_per_thread)?;
            self.started = true;
        }
        Ok(())
    }

    fn close(&mut self, end: u64) {
        self.sample_until(end.saturating_sub(1));
        self.sms.account_until(end);
        self.end = Some(end);
        self.now = end;
    }

    /// Records occupancy samples due up to cycle `t` with the current state.
    fn sample_until(&mut self, t: u64) {
        while self.next_sample <= t {
            let (resident, active, warps) = self.sms.occupancy();
            let capacity = f64::from(self.max_warps) * self.sms.len() as f64;
            self.timeline.samples.push(OccupancySample {
                cycle: self.next_sample,
                resident_ctas: resident,
                active_ctas: active,
                resident_warps: warps,
                achieved_occupancy: if capacity > 0.0 { f64::from(warps) / capacity } else { 0.0 },
            });
            if self.timeline.samples.len() > MAX_SAMPLES {
                let kept: Vec<OccupancySample> = self.timeline.samples.iter().step_by(2).copied().collect();
                self.timeline.samples = kept;
                self.timeline.interval_cycles *= 2;
            }
            let last = self.timeline.samples.last().map_or(0, |s| s.cycle);
            self.next_sample = last + self.timeline.interval_cycles;
        }
    }

    /// The report so far (complete once [`ChipRun::done`]).
    pub fn report(&self, gpu: &GpuConfig, feed: &Feed) -> Report {
        let cycles = self.end.unwrap_or(self.now);
        let mut stalls = StallBreakdown::default();
        let mut scheme = SchemeStats::default();
        let (mut warp_insts, mut thread_insts) = (0, 0);
        let mut residency = ResidencyStats::default();
        let mut memory = self.mem_stats.clone();
        self.sms.for_each_stats(&mut |stats, scheme_stats, l1| {
            stalls.merge(&stats.stalls);
            scheme.add(&scheme_stats);
            warp_insts += stats.warp_instructions;
            thread_insts += stats.thread_instructions;
            residency.add(&stats.residency);
            memory.l1_hits += l1.hits;
            memory.l1_misses += l1.misses;
            memory.l1_mshr_wait_cycles += l1.mshr_wait_cycles;
        });
        // What the scheme's program passes found (once per run, not per SM).
        scheme.counters.extend(self.own.iter().flat_map(|p| p.counters.iter().cloned()));
        let per_cycle = |n: u64| if cycles == 0 { 0.0 } else { n as f64 / cycles as f64 };
        memory.l2_hits = self.l2.hits;
        memory.l2_misses = self.l2.misses;
        memory.dram_reads = self.l2.dram.reads;
        memory.dram_writes = self.l2.dram.writes;
        memory.dram_bytes = self.l2.dram.bytes();
        Report {
            scheme: self.scheme.label.clone(),
            gpu: gpu.name.clone(),
            sms: self.sms.len() as u32,
            schedulers_per_sm: gpu.scheduler.schedulers_per_sm,
            outcome: self.outcome.clone(),
            kernels: self.dispatcher.placements(),
            ctas: self.dispatcher.completed,
            cycles,
            warp_instructions: warp_insts,
            thread_instructions: thread_insts,
            ipc: Ipc {
                warp_instructions_per_cycle: per_cycle(warp_insts),
                thread_instructions_per_cycle: per_cycle(thread_insts),
            },
            stalls,
            register_file: register_file_report(scheme),
            values: feed.values_report(),
            occupancy_over_time: self.timeline.clone(),
            memory,
            cta_park_requests: residency.parks,
            residency,
            notices: feed.notices(),
            slice_map: self.own.as_ref().and_then(|p| p.slice_map.clone()),
            sample: self
                .sample
                .as_ref()
                .map(|w| w.estimate(self.dispatcher.completed, cycles, warp_insts, feed.work())),
            config: self.scheme.echo(),
        }
    }
}

fn register_file_report(scheme: SchemeStats) -> RegisterFileReport {
    let mut energy_nj = BTreeMap::new();
    let (mut reads, mut writes, mut total) = (0, 0, 0.0);
    for s in &scheme.structures {
        reads += s.reads;
        writes += s.writes;
        let e = s.energy_nj();
        total += e;
        energy_nj.insert(s.name.clone(), e);
    }
    let bank_conflicts =
        scheme.bank_conflicts_read_read + scheme.bank_conflicts_read_write + scheme.bank_conflicts_write_write;
    RegisterFileReport { scheme, reads, writes, bank_conflicts, energy_nj, energy_total_nj: total }
}

/// The SM's shape under `gpu` with `max_warps` warp slots.
pub fn geometry(gpu: &GpuConfig, max_warps: u32) -> SmGeometry {
    SmGeometry {
        schedulers: gpu.scheduler.schedulers_per_sm.max(1),
        groups: gpu.core.sub_cores.max(1),
        warp_size: gpu.warp_size(),
        max_warps: max_warps.max(1),
    }
}
