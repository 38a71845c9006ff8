//! A run: a checked launch plan, device memory with the module's static data and the launch
//! buffers, and the progress through launches, rounds and CTAs. [`Run::step`] executes a bounded
//! number of warp-instructions and returns, so a caller (the web worker) can report progress and
//! cancel; [`Run::next_cta`] yields the instruction stream CTA by CTA for the timing model.
//!
//! ```text
//! let mut run = Run::new(&module, &setup, RunOptions::default())?;
//! while let Progress::Running { .. } = run.step(1_000_000)? { /* report, maybe cancel */ }
//! let result = run.result();   // outputs and instruction counts
//! ```

use alloc::collections::{BTreeMap, VecDeque};
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use serde::{Deserialize, Serialize};

use super::cta::{CtaExec, LaunchCx};
use super::decode::build_program;
use super::error::ExecError;
use super::execute::Counters;
use super::image;
use super::launch::LaunchSetup;
use super::memory::{AddressLayout, GlobalMemory};
use super::notice::{Notice, Notices};
use super::plan::{plan, Plan, PoolEntry};
use super::program::Program;
use super::stream::{CtaTrace, TraceOptions};
use super::value::Value;
use super::warp::Env;
use crate::ir::{Function, Handle, Module};

mod open;
pub use open::OpenCta;

/// Options of a run beyond the launch setup.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunOptions {
    /// Overrides the setup's budget (warp-instructions).
    pub budget: Option<u64>,
    /// What to record of the instruction stream.
    pub trace: TraceOptions,
}

/// Where a run stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "state", rename_all = "snake_case")]
pub enum Progress {
    /// More to do.
    Running {
        /// Warp-instructions executed so far.
        warp_instructions: u64,
        /// Launches started so far (counting repetitions).
        launches: u32,
    },
    /// All launches are done; [`Run::result`] has the outputs.
    Finished,
}

/// Instruction counts of one launch.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LaunchStats {
    /// The kernel.
    pub kernel: String,
    /// Grid dimensions.
    pub grid: [u32; 3],
    /// CTA dimensions.
    pub block: [u32; 3],
    /// Warp-instructions.
    pub warp_instructions: u64,
    /// Thread-instructions (active lanes whose guard holds, as GPGPU-Sim counts them).
    pub thread_instructions: u64,
}

/// The outcome of a finished run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RunResult {
    /// Values of each output buffer, by parameter index.
    pub outputs: BTreeMap<usize, Vec<Value>>,
    /// Warp-instructions executed in all launches.
    pub warp_instructions: u64,
    /// Thread-instructions executed in all launches.
    pub thread_instructions: u64,
    /// Each launch in order.
    pub launches: Vec<LaunchStats>,
    /// Rounds of a repeated sequence (1 without `repeat`).
    pub rounds: u32,
    /// Accesses past a buffer's requested length that stayed inside its allocation granule.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
    /// Behaviour the PTX ISA leaves to the machine that the kernel relied on (divisions by zero),
    /// each with its first site; [`RunResult::locate`] fills in their lines.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notices: Vec<Notice>,
    /// The buffers behind each output pointer table (`{"pointers": …}`), by parameter index,
    /// entry by entry (the table's own output lists their addresses).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub pointees: BTreeMap<usize, Vec<Vec<Value>>>,
}

impl RunResult {
    /// Fills in the notices' line numbers from the source text the module was compiled from.
    pub fn locate(&mut self, src: &str) {
        self.notices.iter_mut().for_each(|n| n.locate(src));
    }
}

/// A run in progress.
pub struct Run {
    plan: Plan,
    layout: AddressLayout,
    global: GlobalMemory,
    const_bank: Vec<u8>,
    buffers: Vec<Option<u64>>,
    programs: BTreeMap<Handle<Function>, Program>,
    trace: TraceOptions,
    budget: u64,
    counters: Counters,
    step_index: usize,
    round: u32,
    cta_next: u64,
    /// Quick mode's sample ([`Run::sample_ctas`]): `(every, chunk)`, `(1, 1)` for all CTAs.
    cta_sample: (u64, u64),
    params: Vec<u8>,
    current: Option<CtaExec>,
    launches: Vec<LaunchStats>,
    launch_start: Counters,
    pending: VecDeque<CtaTrace>,
    /// Per warp of the last traced CTA: its records, addresses and values — the next CTA's
    /// warps start with that much room (a kernel's CTAs are alike), not growing from nothing.
    trace_sizes: Vec<[usize; 3]>,
    finished: Option<Result<(), ExecError>>,
    ctas_started: u64,
    notices: Notices,
    /// Precision tuning's exactness record per kernel, folded from every finished CTA
    /// ([`Run::track_exactness`]; empty when not asked).
    exactness: BTreeMap<Handle<Function>, Vec<u8>>,
}

impl Run {
    /// Checks `setup` against `module`, lays out device memory and decodes the kernels.
    pub fn new(module: &Module, setup: &LaunchSetup, options: RunOptions) -> Result<Run, ExecError> {
        let plan = plan(module, setup)?;
        let layout =
            if super::plan::address_bits(module) == 64 { AddressLayout::bits64() } else { AddressLayout::bits32() };
        let mut global = GlobalMemory::new(layout.global_base);
        let image = image::build(module, &mut global, layout).map_err(|m| ExecError::InvalidLaunch { message: m })?;
        let mut buffers = Vec::new();
        for (i, entry) in plan.pool.iter().enumerate() {
            buffers.push(super::pointer_table::allocate(&mut global, i, entry)?);
        }
        super::texture::bind_refs(module, &image, &mut global, &setup.textures)
            .map_err(|m| ExecError::InvalidLaunch { message: m })?;
        let mut programs = BTreeMap::new();
        for s in &plan.steps {
            programs.entry(s.kernel).or_insert_with(|| build_program(module, &image, s.kernel));
        }
        let budget = options.budget.unwrap_or(plan.budget);
        Ok(Run {
            plan,
            layout,
            global,
            const_bank: image.const_bank,
            buffers,
            programs,
            trace: options.trace,
            budget,
            counters: Counters::default(),
            step_index: 0,
            round: 0,
            cta_next: 0,
            cta_sample: (1, 1),
            params: Vec::new(),
            current: None,
            launches: Vec::new(),
            launch_start: Counters::default(),
            pending: VecDeque::new(),
            trace_sizes: Vec::new(),
            finished: None,
            ctas_started: 0,
            notices: Notices::default(),
            exactness: BTreeMap::new(),
        })
    }

    /// Rounds every write of the given registers of each kernel to a reduced float format
    /// (precision tuning, [`super::float_formats`]): per (kernel, register), the format's total
    /// bits. Call before the first step.
    pub fn round_float_registers(&mut self, module: &Module, formats: &BTreeMap<(u32, u32), u8>) {
        for (h, prog) in &mut self.programs {
            if let Some(f) = module.functions.get(*h) {
                prog.rounding = super::float_formats::rounding_slots(h.raw(), f, formats);
            }
        }
    }

    /// Records, for the `.f32` registers `tracked` (per (kernel, register)), the narrowest float
    /// format whose rounding of each register's writes would have left every stored value as
    /// this run stores it ([`Run::exactness`]): a precision-tuning trial that lowers only such a
    /// register that far would repeat this run exactly ([`super::float_tuning`]). Call before
    /// the first step; kept through [`Run::step`], [`Run::run_to_end`] and [`Run::next_cta`].
    pub fn track_exactness(&mut self, module: &Module, tracked: &[(u32, u32)]) {
        for (h, prog) in &mut self.programs {
            if let Some(f) = module.functions.get(*h) {
                prog.exactness = super::float_formats::exactness_slots(h.raw(), f, tracked);
                if !prog.exactness.is_empty() {
                    self.exactness.insert(*h, prog.exactness.clone());
                }
            }
        }
    }

    /// The exactness record of the CTAs finished so far ([`Run::track_exactness`]): per tracked
    /// (kernel, register), the total bits of the narrowest format that would have stored its
    /// every write unchanged (32: none narrower).
    pub fn exactness(&self, module: &Module, tracked: &[(u32, u32)]) -> BTreeMap<(u32, u32), u8> {
        let mut out = BTreeMap::new();
        for (h, slots) in &self.exactness {
            if let Some(f) = module.functions.get(*h) {
                out.extend(super::float_formats::exactness_by_register(h.raw(), f, slots, tracked));
            }
        }
        out
    }

    /// What the run has to tell its user so far (divisions by zero, …).
    pub fn notices(&self) -> &[Notice] {
        self.notices.list()
    }

    /// Instructions executed so far.
    pub fn counters(&self) -> Counters {
        self.counters
    }

    /// Executes at most about `max_warp_instructions` more warp-instructions (with tracing on,
    /// it also returns after each finished CTA, whose stream [`Run::next_cta`] then hands out:
    /// drain it, or streams accumulate).
    pub fn step(&mut self, max_warp_instructions: u64) -> Result<Progress, ExecError> {
        if let Some(done) = &self.finished {
            return done.clone().map(|()| Progress::Finished);
        }
        let target = self.counters.warp.saturating_add(max_warp_instructions.max(1));
        match self.advance(target) {
            Ok(true) => {
                self.finished = Some(Ok(()));
                Ok(Progress::Finished)
            }
            Ok(false) => {
                Ok(Progress::Running { warp_instructions: self.counters.warp, launches: self.launches.len() as u32 })
            }
            Err(e) => {
                self.finished = Some(Err(e.clone()));
                self.current = None;
                Err(e)
            }
        }
    }

    /// Runs only the first `chunk` CTAs of every `every × chunk` of each launch (CTA `i` runs
    /// when `i mod (every × chunk) < chunk`): a systematic sample for a quick timing estimate
    /// that keeps neighbouring CTAs together (they share cache lines). The CTAs left out never
    /// run, so a later launch sees their outputs missing. Before the first step.
    pub fn sample_ctas(&mut self, every: u64, chunk: u64) {
        self.cta_sample = (every.max(1), chunk.max(1));
    }

    /// Runs to the end (or the first error).
    pub fn run_to_end(&mut self) -> Result<RunResult, ExecError> {
        loop {
            if let Progress::Finished = self.step(u64::MAX / 4)? {
                return self.result().ok_or_else(|| ExecError::InvalidLaunch { message: "no result".into() });
            }
        }
    }

    /// The next CTA's instruction stream (tracing must be enabled), `None` after the last.
    pub fn next_cta(&mut self) -> Result<Option<CtaTrace>, ExecError> {
        loop {
            if let Some(t) = self.pending.pop_front() {
                return Ok(Some(t));
            }
            if !self.trace.enabled {
                return Ok(None);
            }
            if let Progress::Finished = self.step(1 << 20)? {
                return Ok(self.pending.pop_front());
            }
        }
    }

    /// `true` when finished; runs CTAs until `counters.warp` reaches `target`.
    fn advance(&mut self, target: u64) -> Result<bool, ExecError> {
        loop {
            if self.counters.warp >= target {
                return Ok(false);
            }
            if self.current.is_none() && !self.start_next_cta()? {
                return Ok(true);
            }
            let Some(mut cta) = self.current.take() else { continue };
            let remaining = target - self.counters.warp;
            let Some(mut cx) = self.launch_cx(self.step_index) else {
                self.current = Some(cta);
                return Ok(true);
            };
            let ran = cta.run(&mut cx, remaining);
            match ran {
                Ok(true) => {}
                Ok(false) => {
                    self.current = Some(cta);
                    continue;
                }
                Err(e) => {
                    self.current = Some(cta);
                    return Err(e);
                }
            }
            let Some(step) = self.plan.steps.get(self.step_index) else { return Ok(true) };
            if let Some(slots) = self.exactness.get_mut(&step.kernel) {
                cta.fold_exactness(slots);
            }
            let Some(prog) = self.programs.get(&step.kernel) else { return Ok(true) };
            let launch = self.launches.len().saturating_sub(1) as u32;
            if let Some(t) = cta.into_trace(launch, step.name.clone(), prog) {
                self.size_traces_like(&t.warps);
                self.pending.push_back(t);
                return Ok(false);
            }
        }
    }

    /// What every CTA of launch step `step` shares (the one place a [`LaunchCx`] is built);
    /// `None` when the step or its program is missing.
    fn launch_cx(&mut self, step: usize) -> Option<LaunchCx<'_>> {
        let step = self.plan.steps.get(step)?;
        let prog = self.programs.get(&step.kernel)?;
        Some(LaunchCx {
            prog,
            layout: self.layout,
            global: &mut self.global,
            consts: &self.const_bank,
            params: &self.params,
            counters: &mut self.counters,
            budget: self.budget,
            kernel: &step.name,
            values: self.trace.values,
            first_values: self.trace.values && self.trace.first_values,
            notices: &mut self.notices,
        })
    }

    /// Moves to the next CTA (next launch, next round); `false` when there is none.
    fn start_next_cta(&mut self) -> Result<bool, ExecError> {
        loop {
            let Some(step) = self.plan.steps.get(self.step_index) else {
                if !self.next_round() {
                    return Ok(false);
                }
                continue;
            };
            let (kernel, grid, block, smem, name) =
                (step.kernel, step.grid, step.block, step.dynamic_smem, step.name.clone());
            let total = grid.iter().map(|&g| u64::from(g)).product::<u64>();
            if self.cta_next == 0 {
                self.begin_launch();
            }
            if self.cta_next < total {
                self.ctas_started += 1;
                if self.ctas_started > self.budget {
                    return Err(self.budget_error(name));
                }
                let i = self.cta_next;
                let [gx, gy, _] = grid.map(u64::from);
                let ctaid = [(i % gx) as u32, ((i / gx) % gy) as u32, (i / (gx * gy)) as u32];
                let env = Env {
                    ctaid,
                    nctaid: grid,
                    ntid: block,
                    nwarps: 0,
                    dynamic_smem: smem,
                    total_smem: 0,
                    gridid: self.launches.len() as u64,
                };
                let Some(prog) = self.programs.get(&kernel) else { return Ok(false) };
                let sizes = self.trace.enabled.then_some(self.trace_sizes.as_slice());
                self.current = Some(CtaExec::new(prog, env, sizes));
                self.cta_next += 1;
                let (every, chunk) = self.cta_sample;
                if every > 1 && self.cta_next % every.saturating_mul(chunk) == chunk {
                    self.cta_next = self.cta_next.saturating_add((every - 1).saturating_mul(chunk));
                }
                return Ok(true);
            }
            self.end_launch();
            self.step_index += 1;
            self.cta_next = 0;
        }
    }

    fn budget_error(&self, kernel: String) -> ExecError {
        ExecError::BudgetExceeded {
            executed: self.counters.warp,
            thread_instructions: self.counters.thread,
            budget: self.budget,
            kernel,
            cta: None,
            warp: None,
            hot_loop: None,
        }
    }

    fn begin_launch(&mut self) {
        if self.step_index == 0 {
            self.round += 1;
            if let Some(r) = self.plan.repeat {
                self.fill_buffer(r.until_zero, 0);
            }
        }
        let Some(step) = self.plan.steps.get(self.step_index) else { return };
        let Some(prog) = self.programs.get(&step.kernel) else { return };
        let ptr = if self.layout.global_base > u64::from(u32::MAX) { 8 } else { 4 };
        let mut bank = alloc::vec![0u8; prog.param_bytes as usize];
        for (&(off, size), &arg) in prog.param_layout.iter().zip(&step.args) {
            let bytes: Vec<u8> = match (self.plan.pool.get(arg), self.buffers.get(arg).copied().flatten()) {
                (Some(PoolEntry::Buffer { spec, .. }), Some(addr)) => {
                    addr.wrapping_add(spec.offset.unwrap_or(0)).to_le_bytes()[..ptr].to_vec()
                }
                (Some(PoolEntry::Scalar(b)), _) => b.clone(),
                (Some(PoolEntry::Struct { .. }), Some(addr)) => self.global.bytes_of(addr).unwrap_or(&[]).to_vec(),
                _ => Vec::new(),
            };
            let (off, n) = (off as usize, (size as usize).min(bytes.len()));
            if let Some(dst) = bank.get_mut(off..off + n) {
                dst.copy_from_slice(&bytes[..n]);
            }
        }
        self.params = bank;
        self.launch_start = self.counters;
        self.launches.push(LaunchStats {
            kernel: step.name.clone(),
            grid: step.grid,
            block: step.block,
            warp_instructions: 0,
            thread_instructions: 0,
        });
    }

    fn end_launch(&mut self) {
        if let Some(l) = self.launches.last_mut() {
            l.warp_instructions = self.counters.warp - self.launch_start.warp;
            l.thread_instructions = self.counters.thread - self.launch_start.thread;
        }
    }

    /// After the last launch of a round: `true` if another round starts.
    fn next_round(&mut self) -> bool {
        let Some(r) = self.plan.repeat else { return false };
        if self.round >= r.max || self.buffer_is_zero(r.until_zero) {
            return false;
        }
        self.step_index = 0;
        self.cta_next = 0;
        true
    }

    fn buffer_is_zero(&self, i: usize) -> bool {
        let Some(addr) = self.buffers.get(i).copied().flatten() else { return true };
        self.global.bytes_of(addr).is_none_or(|b| b.iter().all(|&x| x == 0))
    }

    fn fill_buffer(&mut self, i: usize, byte: u8) {
        let Some(addr) = self.buffers.get(i).copied().flatten() else { return };
        if let Some(r) = self.global.region_mut(addr) {
            let n = r.len as usize;
            r.data[..n].iter_mut().for_each(|b| *b = byte);
        }
    }

    /// The outputs and counts, once finished.
    pub fn result(&self) -> Option<RunResult> {
        if !matches!(self.finished, Some(Ok(()))) {
            return None;
        }
        let mut outputs = BTreeMap::new();
        for &i in &self.plan.outputs {
            let (Some(PoolEntry::Buffer { ty, .. }), Some(addr)) =
                (self.plan.pool.get(i), self.buffers.get(i).copied().flatten())
            else {
                continue;
            };
            let bytes = self.global.bytes_of(addr).unwrap_or(&[]);
            let values =
                bytes.chunks_exact(ty.size()).map(|c| Value::from_bits(super::memory::read_le(c), *ty)).collect();
            outputs.insert(i, values);
        }
        let mut warnings = Vec::new();
        if let Some((addr, base)) = self.global.first_slack {
            warnings.push(format!(
                "{} access(es) past the end of an allocation stayed inside its {}-byte granule (first: address 0x{addr:x}, allocation at 0x{base:x}); real GPUs do not fault there either",
                self.global.slack_accesses,
                super::memory::GRANULE
            ));
        }
        Some(RunResult {
            outputs,
            warp_instructions: self.counters.warp,
            thread_instructions: self.counters.thread,
            launches: self.launches.clone(),
            rounds: self.round,
            warnings,
            notices: self.notices.list().to_vec(),
            pointees: super::pointer_table::outputs(&self.plan, &self.global),
        })
    }
}

/// Runs `setup` on `module` to the end.
pub fn run(module: &Module, setup: &LaunchSetup) -> Result<RunResult, ExecError> {
    Run::new(module, setup, RunOptions::default())?.run_to_end()
}
