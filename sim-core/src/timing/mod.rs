//! The cycle-level timing model: SMs consuming the executor's per-warp instruction streams, with
//! the register file behind one trait ([`regfile::RegisterFileScheme`]).
//!
//! ```text
//! let program = Program::decode(&module, &gpu);
//! let mut sim = Simulation::new(program, source, &gpu, &["baseline", "baseline:collector_units=2"], opts)?;
//! while !sim.step(100_000)?.finished { /* report progress, maybe cancel */ }
//! let reports = sim.reports();          // one Report per scheme, same streams
//! ```
//!
//! What is modelled (each module documents its part and its assumptions):
//! [`cta_dispatch`] CTAs to SMs under the occupancy limits the scheme implies, refilled as CTAs
//! finish; per SM ([`sm`]): [`ibuffer`] (control hazards), [`scheduler`] (LRR, GTO, two-level,
//! oldest first), [`scoreboard`], issue width and dual issue, operand collection through the
//! register-file scheme ([`regfile`]), [`exec_units`] with latency and initiation interval per
//! opcode class from the preset, [`writeback`] ports; [`memory`]: coalescing, shared-memory bank
//! conflicts, L1, L2 and DRAM with latency, bandwidth and MSHR limits; barriers, divergence as the
//! streams recorded it, kernel completion. [`value_stats`] computes reads per value and
//! producer→consumer distances; [`report`] is the serializable result.
//!
//! Several schemes share one functional run: a [`Simulation`] pulls each CTA from its source once
//! and replays it to one [`chip::ChipRun`] per scheme ([`feed`]); memory stays bounded by the CTAs
//! in flight plus the spread between runs, which [`Simulation::step`] keeps small by advancing the
//! run that has taken the fewest CTAs first. Reports do not depend on how the work is chunked.
//!
//! A scheme that transforms code (its registry entry's `transform`) is timed on its own program,
//! decoded from the transformed and re-verified IR, while the functional run stays that of the
//! original kernel: [`program_map`] maps the recorded original instructions onto the scheme's.
//!
//! The usual entry is [`Simulation::from_launch`] (decode, start the executor through
//! [`exec_source::ExecSource`], one run per scheme). A web worker calls [`Simulation::step`] with
//! a cycle quantum, posts [`Progress::done_fraction`], and cancels by dropping the simulation.
//!
//! Assumptions worth knowing (details in the modules): a warp instruction holds its SP/INT/DP pipe
//! `max(initiation interval, warp size / SIMD width)` cycles; a write takes its bank for the cycle
//! (GPGPU-Sim); branches resolve after their unit's latency before the warp fetches again; a
//! barrier releases when every unfinished warp of the CTA waits at one; memory is timed when the
//! LD/ST unit sends a transaction (L2 and DRAM are shared FIFO servers); on a preset with 64-wide
//! wavefronts (GCN3) each wavefront is replayed from a pair of the executor's 32-thread warps
//! ([`crate::exec::wavefront`]; the source must be built for the GPU's width,
//! [`exec_source::SourceOptions::for_gpu`]).
//!
//! Everything is deterministic: integer cycle arithmetic, ordered containers, no host time; the
//! shortcuts that make it fast (sleeping warps and SMs, skipped idle cycles, compact addresses)
//! only skip work whose outcome is known, and `sim-core/tests/timing.rs` pins report digests
//! natively and in the browser.

pub mod chip;
mod chip_sms;
pub mod cta_dispatch;
pub mod error;
pub mod exec_units;
pub mod memory;
pub mod program;
pub mod program_map;
pub mod program_regs;
pub mod quick_sample;
pub mod regfile;
pub mod report;
pub mod sm;
pub mod stream;
pub mod summary;
pub mod sweep_values;
pub mod value_stats;

use alloc::boxed::Box;
use alloc::string::String;
use alloc::vec::Vec;

use serde::{Deserialize, Serialize};

use crate::exec::float_tuning::TuningStep;
use crate::exec::LaunchSetup;
use crate::gpu::GpuConfig;
use crate::ir::Module;
use chip::ChipRun;
use program_map::SchemeProgram;
use stream::exec_source::{ExecSource, SourceOptions};
use stream::feed::Feed;

pub use error::TimingError;
pub use program::Program;
pub use regfile::{EnergyModel, IntoSchemeSpec, RegisterFileScheme, SchemeSpec};
pub use report::{Report, StallCause};
pub use stream::trace::{CtaSource, CtaStream, DynInst, LaunchShape, MemSpace, VecSource, WarpStream};

/// Options of a timing simulation.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct TimingOptions {
    /// Budget in core cycles per scheme; a run that reaches it stops with
    /// [`report::Outcome::BudgetExceeded`].
    pub max_cycles: u64,
    /// Cycles between occupancy samples (doubled as needed to keep at most 1024).
    pub sample_interval_cycles: u64,
    /// Registers per thread to use instead of the scheme's estimate ("ptxas says N").
    pub registers_per_thread: Option<u32>,
    /// SMs to simulate instead of the preset's count.
    pub sms: Option<u32>,
    /// Energy per access.
    pub energy: EnergyModel,
    /// A study, off by default: banks and register-file structures see PTX virtual register
    /// units instead of the registers the allocator assigns (real banks hold allocated registers,
    /// [`program_regs`]); a scheme's own assignment still applies, and the scoreboard is on
    /// virtual units either way. Read by [`Simulation::from_launch`] and
    /// [`Simulation::from_launch_runs`]; with [`Simulation::new`] and
    /// [`Simulation::from_module_source`] the caller decodes the program: [`Program::decode_for`]
    /// follows this option.
    pub virtual_register_banks: bool,
    /// Have the executor record value summaries (uniform, significant bits) of every register
    /// written, for schemes that model values ([`WarpStream::values_at`]); off, the streams and
    /// the replay are as without the option.
    pub values: bool,
    /// DeMO's baseline measurements (Fig. 1 and 2), off by default: runs of the original
    /// program whose scheme counts them (the baseline) mark the register-file accesses of
    /// single-use memory values and report them and the bank conflicts they are involved in as
    /// counters (`single_use_reads`, `single_use_writes`, `single_use_bank_conflicts`,
    /// `single_use_waits`; [`regfile::demo_marks`]); off, the reports are as without the option.
    pub single_use_attribution: bool,
    /// Quick mode, off (`None`) by default: every run times only the first `waves × SMs × CTAs
    /// per SM` CTAs (CTAs per SM as the GPU's limits allow the first kernel's CTA, registers
    /// aside: every run times the same CTAs, whichever schemes share the simulation) and its
    /// report says it is a sample ([`report::CtaSample`]: the estimated
    /// whole-sequence cycles and how steady the waves were). A grid no larger than the sample
    /// runs in full, as without the option. The executor runs only the CTAs taken (and a batch
    /// ahead), so later launches of a sequence see the outputs of a partial one.
    pub quick_waves: Option<u32>,
    /// Every SM stops at each window's end (the first cycle any CTA could finish), as before SMs
    /// ran past it (the chip's run-ahead, `chip_sms.rs`): off by default; the reports are the same either
    /// way, only slower with it on (a check of the run-ahead, `sim-core/tests/timing.rs`).
    pub lockstep_windows: bool,
}

/// The launch a simulation's source runs, as its schemes are told it (launch-aware range
/// analysis, precision tuning: `compression`), and who hears of precision tuning's progress.
pub struct SchemeLaunch<'a> {
    /// The launch setup.
    pub setup: &'a LaunchSetup,
    /// Told before precision tuning's reference run and after every functional run of it
    /// (`None`: nobody).
    pub tuning_progress: Option<&'a mut dyn FnMut(TuningStep)>,
    /// Precision-tuning searches made on this module and setup by earlier simulations, which a
    /// scheme asking for the same search takes instead of searching again; this simulation's
    /// new searches are added (`None`: only the simulation's own schemes share their searches).
    pub tuning_memo: Option<&'a mut regfile::compression_report::TuningMemo>,
}

impl<'a> SchemeLaunch<'a> {
    /// `setup`, with nobody told of tuning's progress and no searches from earlier simulations.
    pub fn of(setup: &'a LaunchSetup) -> SchemeLaunch<'a> {
        SchemeLaunch { setup, tuning_progress: None, tuning_memo: None }
    }
}

impl Default for TimingOptions {
    fn default() -> Self {
        TimingOptions {
            max_cycles: 1_000_000_000,
            sample_interval_cycles: 1000,
            registers_per_thread: None,
            sms: None,
            energy: EnergyModel::default(),
            virtual_register_banks: false,
            values: false,
            single_use_attribution: false,
            quick_waves: None,
            lockstep_windows: false,
        }
    }
}

/// Where a simulation stands.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Progress {
    /// Completed CTAs over all CTAs × schemes (0 to 1; 0 while the total is unknown).
    pub done_fraction: f64,
    /// Every run has ended.
    pub finished: bool,
}

/// Cycles one run advances before the driver looks at the others again.
const QUANTUM: u64 = 4096;

/// Warp-instructions the pieces of unfinished CTAs may hold before the run that has taken the
/// fewest goes first.
const HOLD: u64 = 1 << 17;

/// One timing run: a registered scheme and the transform its program comes from (the entry's
/// own for [`Simulation::from_launch`]; tests pass their own).
#[derive(Clone, Debug)]
pub struct RunSpec {
    /// The scheme and its parameters.
    pub spec: SchemeSpec,
    /// The IR → IR pass its program comes from (`None`: the original program).
    pub transform: Option<program_map::ProgramTransform>,
    /// The register assignment its banks see (`None`: the allocator's).
    pub assign: Option<program_regs::AssignRegisters>,
}

/// A resolved scheme with the program passes its run is timed on.
type Plan = (regfile::ResolvedScheme, Option<program_map::ProgramTransform>, Option<program_regs::AssignRegisters>);

/// `gpu` as simulated under `options` (SM count applied), if the timing model can size it.
fn simulated_gpu(gpu: &GpuConfig, options: &TimingOptions) -> Result<GpuConfig, TimingError> {
    if gpu.warp_size() != 32 && gpu.warp_size() != 64 {
        return Err(TimingError::UnsupportedGpu(alloc::format!(
            "{}: warps of {} threads; the timing model replays 32-thread warps and 64-wide wavefronts",
            gpu.name,
            gpu.warp_size()
        )));
    }
    let mut gpu = gpu.clone();
    if let Some(n) = options.sms {
        gpu.core.sm_count = n.max(1);
    }
    crate::gpu::check::check_message(&gpu).map_err(TimingError::UnsupportedGpu)?;
    Ok(gpu)
}

fn config_error(e: regfile::SchemeConfigError) -> TimingError {
    match e {
        regfile::SchemeConfigError::UnknownScheme { scheme } => TimingError::UnknownScheme(scheme),
        e => TimingError::SchemeConfig(e),
    }
}

/// `schemes` resolved, each with its registry entry's program passes.
fn plans<S: IntoSchemeSpec>(schemes: &[S], gpu: &GpuConfig, options: &TimingOptions) -> Result<Vec<Plan>, TimingError> {
    let resolved = resolve(schemes, gpu, options)?;
    Ok(resolved
        .into_iter()
        .map(|r| {
            let (t, a) = (regfile::registry::transform_of(&r), regfile::registry::assign_of(&r));
            (r, t, a)
        })
        .collect())
}

/// `schemes` checked against their schemas on `gpu`, with distinct labels.
fn resolve<S: IntoSchemeSpec>(
    schemes: &[S],
    gpu: &GpuConfig,
    options: &TimingOptions,
) -> Result<Vec<regfile::ResolvedScheme>, TimingError> {
    regfile::config::resolve_all(schemes, gpu, &options.energy).map_err(config_error)
}

/// A timing simulation of one launch sequence under one or more register-file schemes.
pub struct Simulation {
    program: Program,
    gpu: GpuConfig,
    options: TimingOptions,
    feed: Feed,
    runs: Vec<ChipRun>,
    /// Quick mode's sample size has been set (or found not to apply).
    sampled: bool,
}

impl Simulation {
    /// A simulation of the CTAs from `source` (decoded against `program`) on `gpu`, once per
    /// scheme in `schemes`: [`regfile::SchemeSpec`]s or their text (`"baseline"`,
    /// `"baseline:collector_units=2"`), each with a distinct label. A scheme that transforms code
    /// needs the module: use [`Simulation::from_launch`].
    pub fn new<S: IntoSchemeSpec>(
        program: Program,
        source: Box<dyn CtaSource>,
        gpu: &GpuConfig,
        schemes: &[S],
        options: TimingOptions,
    ) -> Result<Simulation, TimingError> {
        let gpu = simulated_gpu(gpu, &options)?;
        let mut runs = Vec::new();
        for r in resolve(schemes, &gpu, &options)? {
            if regfile::registry::transform_of(&r).is_some() || regfile::registry::assign_of(&r).is_some() {
                let message = String::from(
                    "it transforms code or assigns registers: build the simulation from the module (from_launch)",
                );
                return Err(TimingError::SchemeProgram { scheme: String::from(r.entry.name), message });
            }
            runs.push((r, None));
        }
        Simulation::assemble(program, source, gpu, runs, options)
    }

    /// Decodes `module` for `gpu`, starts the executor on `setup` and prepares one timing run per
    /// scheme: the usual way to simulate a kernel. A scheme that transforms code is timed on its
    /// own program ([`program_map`]).
    pub fn from_launch<S: IntoSchemeSpec>(
        module: &Module,
        setup: &LaunchSetup,
        gpu: &GpuConfig,
        schemes: &[S],
        options: TimingOptions,
    ) -> Result<Simulation, TimingError> {
        Simulation::from_launch_wrapped(module, setup, gpu, schemes, options, &|s| Box::new(s), None)
    }

    /// As [`Simulation::from_launch`], the executor handed to `wrap` before the timing model
    /// reads it: a native caller moves it onto a thread of its own (`reglab run`'s pipelined
    /// executor) or measures it. `wrap` must hand out exactly what the executor does, in order.
    /// Precision searches (`compression`) already in `memo` are taken, new ones added
    /// ([`SchemeLaunch::tuning_memo`]).
    pub fn from_launch_wrapped<S: IntoSchemeSpec>(
        module: &Module,
        setup: &LaunchSetup,
        gpu: &GpuConfig,
        schemes: &[S],
        options: TimingOptions,
        wrap: &dyn Fn(ExecSource) -> Box<dyn CtaSource>,
        memo: Option<&mut regfile::compression_report::TuningMemo>,
    ) -> Result<Simulation, TimingError> {
        let gpu = simulated_gpu(gpu, &options)?;
        let runs = plans(schemes, &gpu, &options)?;
        Simulation::launch_resolved(module, setup, gpu, runs, options, wrap, memo)
    }

    /// As [`Simulation::from_launch`], for runs given as [`RunSpec`]s: a scheme with a transform
    /// is timed on its transformed, re-verified and decoded program, fed by the one functional
    /// run of `module` ([`program_map`]). Labels need not be distinct (tests compare a scheme
    /// with itself under another transform).
    pub fn from_launch_runs(
        module: &Module,
        setup: &LaunchSetup,
        gpu: &GpuConfig,
        specs: &[RunSpec],
        options: TimingOptions,
    ) -> Result<Simulation, TimingError> {
        let gpu = simulated_gpu(gpu, &options)?;
        let mut runs = Vec::new();
        for s in specs {
            runs.push((s.spec.resolve(&gpu, &options.energy).map_err(config_error)?, s.transform, s.assign));
        }
        Simulation::launch_resolved(module, setup, gpu, runs, options, &|s| Box::new(s), None)
    }

    fn launch_resolved(
        module: &Module,
        setup: &LaunchSetup,
        gpu: GpuConfig,
        runs: Vec<Plan>,
        options: TimingOptions,
        wrap: &dyn Fn(ExecSource) -> Box<dyn CtaSource>,
        memo: Option<&mut regfile::compression_report::TuningMemo>,
    ) -> Result<Simulation, TimingError> {
        let program = Program::decode_assigned(module, &gpu, !options.virtual_register_banks, None)
            .map_err(TimingError::Internal)?;
        let values = options.values || runs.iter().any(|(r, _, _)| r.entry.needs_values);
        let source_options = SourceOptions::for_gpu(&gpu, values);
        let mut source = ExecSource::with_options(module, setup, &program, source_options)
            .map_err(|e| TimingError::Source(e.into()))?;
        if let Some(waves) = options.quick_waves {
            source.sample_waves(&program, &gpu, waves);
        }
        let launch = SchemeLaunch { tuning_memo: memo, ..SchemeLaunch::of(setup) };
        Simulation::with_module(module, program, wrap(source), gpu, runs, options, Some(launch))
    }

    /// A simulation of the CTAs from `source` (the functional run of `module`, decoded as
    /// `program`), once per scheme in `schemes`; schemes that transform code are timed on their
    /// own programs. For callers that wrap the executor (the app measures its host time); build
    /// the source with [`Simulation::wants_values`] so schemes that read values get them.
    pub fn from_module_source<S: IntoSchemeSpec>(
        module: &Module,
        program: Program,
        source: Box<dyn CtaSource>,
        gpu: &GpuConfig,
        schemes: &[S],
        options: TimingOptions,
    ) -> Result<Simulation, TimingError> {
        let gpu = simulated_gpu(gpu, &options)?;
        let runs = plans(schemes, &gpu, &options)?;
        Simulation::with_module(module, program, source, gpu, runs, options, None)
    }

    /// As [`Simulation::from_module_source`], telling schemes the launch the source runs
    /// (launch-aware range analysis, precision tuning: `compression`) and `launch.tuning_progress`
    /// where precision tuning stands after every functional run of its search (the app's
    /// "tuning: run k of N"; [`SchemeLaunch::of`] for nobody).
    pub fn from_module_source_launch_progress<S: IntoSchemeSpec>(
        module: &Module,
        program: Program,
        source: Box<dyn CtaSource>,
        gpu: &GpuConfig,
        schemes: &[S],
        options: TimingOptions,
        launch: SchemeLaunch<'_>,
    ) -> Result<Simulation, TimingError> {
        let gpu = simulated_gpu(gpu, &options)?;
        let runs = plans(schemes, &gpu, &options)?;
        Simulation::with_module(module, program, source, gpu, runs, options, Some(launch))
    }

    /// Whether the executor must record value summaries for `schemes` under `options` (a
    /// scheme that reads them, or [`TimingOptions::values`]); unknown schemes count as no (the
    /// simulation reports them).
    pub fn wants_values<S: IntoSchemeSpec>(schemes: &[S], options: &TimingOptions) -> bool {
        options.values
            || schemes
                .iter()
                .filter_map(|s| s.to_spec().ok())
                .filter_map(|s| regfile::by_name(&s.scheme))
                .any(|e| e.needs_values)
    }

    fn with_module(
        module: &Module,
        program: Program,
        source: Box<dyn CtaSource>,
        gpu: GpuConfig,
        runs: Vec<Plan>,
        options: TimingOptions,
        launch: Option<SchemeLaunch<'_>>,
    ) -> Result<Simulation, TimingError> {
        let physical = !options.virtual_register_banks;
        let mut noop = |_: TuningStep| {};
        let mut own_memo = regfile::compression_report::TuningMemo::default();
        let (setup, progress, memo) = match launch {
            Some(l) => (Some(l.setup), l.tuning_progress, l.tuning_memo),
            None => (None, None, None),
        };
        let progress: &mut dyn FnMut(TuningStep) = match progress {
            Some(p) => p,
            None => &mut noop,
        };
        // Schemes of this simulation asking for the same search share it, whoever else does.
        let memo = match memo {
            Some(m) => m,
            None => &mut own_memo,
        };
        let mut own_runs = Vec::new();
        for (r, transform, assign) in runs {
            let own = if transform.is_some() || assign.is_some() {
                let message = |message| TimingError::SchemeProgram { scheme: String::from(r.entry.name), message };
                let (inputs, counters) =
                    regfile::registry::assign_inputs_remembered(&r, module, setup, &mut *progress, memo)
                        .map_err(message)?;
                let slice_map = regfile::registry::slice_map(&r, module, &gpu, &inputs);
                let built = SchemeProgram::build_with(module, &program, transform, assign, &gpu, physical, inputs);
                Some(SchemeProgram { counters, slice_map, ..built.map_err(message)? })
            } else {
                None
            };
            own_runs.push((r, own));
        }
        let mut sim = Simulation::assemble(program, source, gpu, own_runs, options)?;
        sim.feed.set_integer(regfile::gilani_int::integer_results(module, &sim.program));
        for run in &mut sim.runs {
            run.prepare(module, &sim.program);
        }
        if sim.options.single_use_attribution {
            let marks = regfile::demo_marks::SingleUseMarks::compute(module, &sim.program, &sim.gpu, physical)
                .map_err(TimingError::Internal)?;
            let marks = alloc::rc::Rc::new(marks);
            for run in &mut sim.runs {
                run.attribute_single_use(&marks);
            }
        }
        Ok(sim)
    }

    fn assemble(
        program: Program,
        source: Box<dyn CtaSource>,
        gpu: GpuConfig,
        runs: Vec<(regfile::ResolvedScheme, Option<SchemeProgram>)>,
        options: TimingOptions,
    ) -> Result<Simulation, TimingError> {
        if source.lanes() != gpu.warp_size() {
            return Err(TimingError::UnsupportedGpu(alloc::format!(
                "{}: warps of {} threads, but the source records {}-lane warps (build it with \
                 SourceOptions::for_gpu)",
                gpu.name,
                gpu.warp_size(),
                source.lanes()
            )));
        }
        let mut chip_runs = Vec::with_capacity(runs.len());
        for (r, own) in runs {
            chip_runs.push(ChipRun::with_program(r, &gpu, &options, own).map_err(TimingError::SchemeConfig)?);
        }
        for (i, run) in chip_runs.iter_mut().enumerate() {
            run.set_stream_run(i);
        }
        let mut feed = Feed::new(source, &program);
        feed.set_runs(chip_runs.len());
        Ok(Simulation { program, gpu, options, feed, runs: chip_runs, sampled: false })
    }

    /// Advances every unfinished run by up to `max_cycles` cycles, the run that has taken the
    /// fewest CTAs first, in quanta of 4096 cycles.
    pub fn step(&mut self, max_cycles: u64) -> Result<Progress, TimingError> {
        if !self.sampled {
            self.set_sample()?;
        }
        let mut left: Vec<u64> = self.runs.iter().map(|r| if r.done() { 0 } else { max_cycles }).collect();
        while let Some(i) = self.pick(&left) {
            let (Some(run), Some(l)) = (self.runs.get_mut(i), left.get_mut(i)) else { break };
            let q = (*l).min(QUANTUM);
            let before = run.cycle();
            run.step(q, &mut self.feed, &self.program, &self.gpu, &self.options)?;
            let used = run.cycle().saturating_sub(before).max(1);
            *l = if run.done() { 0 } else { l.saturating_sub(used) };
            if run.done() {
                self.feed.run_ended(i);
            }
            let keep = self.runs.iter().map(|r| r.dispatcher.next).min().unwrap_or(0);
            self.feed.trim(keep);
        }
        Ok(self.progress())
    }

    /// Quick mode: when the source hands out a stratified sample ([`CtaSource::sampling`]),
    /// every run logs its waves (SMs × [`quick_sample::ctas_per_sm`] of the first CTA) for the
    /// estimate of the whole sequence.
    fn set_sample(&mut self) -> Result<(), TimingError> {
        self.sampled = true;
        let Some((every, whole)) = self.feed.sampling() else { return Ok(()) };
        self.feed.record_work();
        let Some(first) = self.feed.get(0, &self.program)? else { return Ok(()) };
        let wave =
            quick_sample::ctas_per_sm(&self.program, &self.gpu, first.shape) * u64::from(self.gpu.core.sm_count.max(1));
        for run in &mut self.runs {
            run.log_waves(wave, every, whole);
        }
        Ok(())
    }

    /// The run to advance next among those with cycles `left`: the one that has taken the
    /// fewest CTAs (whole CTAs wait in the feed until every run has taken them), unless the
    /// pieces of CTAs that arrived unfinished hold more than [`HOLD`] warp-instructions: then
    /// the run that has taken the fewest pieces (they wait for it).
    fn pick(&self, left: &[u64]) -> Option<usize> {
        let going = || (0..self.runs.len()).filter(|&i| left.get(i).is_some_and(|&l| l > 0));
        if self.feed.pieces(0).0 > HOLD {
            return going().min_by_key(|&i| self.feed.pieces(i).1);
        }
        going().min_by_key(|&i| self.runs.get(i).map_or(u64::MAX, |r| r.dispatcher.next))
    }

    /// Instructions held for replay beyond the CTAs' first streams: the pieces waiting in the
    /// shared store (the most at any time) and the windows of every run now (memory checks).
    pub fn held_instructions(&self) -> (u64, u64) {
        (self.feed.max_held(), self.runs.iter().map(ChipRun::window_instructions).sum())
    }

    /// Runs every scheme to the end (or its budget) and returns the reports.
    pub fn run_to_end(&mut self) -> Result<Vec<Report>, TimingError> {
        while !self.step(u64::MAX / 4)?.finished {}
        Ok(self.reports())
    }

    /// Where the simulation stands.
    pub fn progress(&self) -> Progress {
        let finished = self.runs.iter().all(ChipRun::done);
        let total = self.feed.total().unwrap_or(0).saturating_mul(self.runs.len() as u64);
        let done: u64 = self.runs.iter().map(|r| r.dispatcher.completed).sum();
        let done_fraction = if finished {
            1.0
        } else if total == 0 {
            0.0
        } else {
            (done as f64 / total as f64).min(1.0)
        };
        Progress { done_fraction, finished }
    }

    /// One report per scheme, in the order given (complete once finished).
    pub fn reports(&self) -> Vec<Report> {
        self.runs.iter().map(|r| r.report(&self.gpu, &self.feed)).collect()
    }

    /// The GPU as simulated (SM count applied).
    pub fn gpu(&self) -> &GpuConfig {
        &self.gpu
    }

    /// The decoded program.
    pub fn program(&self) -> &Program {
        &self.program
    }

    /// CTAs currently held by the feed window (memory bound diagnostics).
    pub fn feed_window(&self) -> usize {
        self.feed.window_len()
    }
}

#[cfg(test)]
mod tests;
