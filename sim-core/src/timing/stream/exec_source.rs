//! The thin adapter from the functional executor to the timing model: runs
//! [`crate::exec::Run`] with tracing on and turns each [`crate::exec::CtaTrace`] into a
//! [`CtaStream`] — static ids instead of (function, instruction) handles, the launch's block
//! shape, and generic addresses resolved to their state space (offsets within it).
//!
//! ```text
//! ExecSource::new(&module, &setup, &program)?   // then Simulation::new(program, Box::new(src), …)
//! TraceRecord { func 0, inst #12, executed ffffffff, space None, addrs [0x7e00_0000_0040, …] }
//!   → sid 12, access { space Shared, addrs [0x40, …] }
//! ```

use alloc::collections::BTreeMap;
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use crate::exec::memory::{AddressLayout, Space};
use crate::exec::plan::{address_bits, plan};
use crate::exec::{ExecError, LaunchSetup, Run, RunOptions, TraceOptions, WarpTrace};
use crate::ir::{Function, Handle, Module};
use crate::timing::error::SourceError;
use crate::timing::program::Program;
use crate::timing::stream::store::Piece;
use crate::timing::stream::trace::{CtaSource, CtaStream, LaunchShape, MemSpace, WarpStream};

mod pieces;
mod wavefronts;

/// What the executor records beyond the instruction stream, and its budget.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SourceOptions {
    /// Record value summaries ([`crate::exec::value_summary`]) for schemes that model values.
    pub values: bool,
    /// Warp-instruction budget instead of the launch setup's (or its default).
    pub budget: Option<u64>,
    /// Lanes per warp of the machine the streams are for ([`crate::gpu::GpuConfig::warp_size`]):
    /// 32, or 64 for GCN3 wavefronts, each merged from a pair of the executor's 32-thread warps
    /// ([`crate::exec::wavefront`]); 0 means 32.
    pub lanes: u32,
}

impl SourceOptions {
    /// The options for a timing run on `gpu`: its warp width, values as asked.
    pub fn for_gpu(gpu: &crate::gpu::GpuConfig, values: bool) -> Self {
        SourceOptions { values, budget: None, lanes: gpu.warp_size() }
    }
}

/// CTAs from the executor.
pub struct ExecSource {
    run: Run,
    layout: AddressLayout,
    func_base: Vec<(u32, u32)>,
    /// Per launch step: its shape.
    steps: Vec<LaunchShape>,
    total: Option<u64>,
    /// CTAs of each launch step.
    step_ctas: Vec<u64>,
    /// Quick mode's stratified sample: `(every, whole sequence's CTAs)`.
    sampling: Option<(u64, u64)>,
    warp_instructions: u64,
    /// CTAs handed out unfinished, by number.
    open: BTreeMap<u64, pieces::Open>,
    /// The number of the next CTA to hand out.
    next_number: u64,
    /// 64: streams of wavefronts merged from pairs of warps ([`wavefronts`]); else 32.
    lanes: u32,
}

impl ExecSource {
    /// Starts the executor on `setup` (tracing on) for a timing run of `program` (decoded from
    /// the same `module`).
    pub fn new(module: &Module, setup: &LaunchSetup, program: &Program) -> Result<ExecSource, ExecError> {
        ExecSource::with_options(module, setup, program, SourceOptions::default())
    }

    /// CTAs handed out unfinished and not yet run to their end ([`CtaSource::more`] may be
    /// asked of them). While there are none, the next call can only be `next_cta`, so a caller
    /// may make it ahead of time (`reglab run`'s pipelined executor).
    pub fn open_ctas(&self) -> usize {
        self.open.len()
    }

    /// [`ExecSource::new`] with `options` (value summaries, a budget other than the setup's).
    pub fn with_options(
        module: &Module,
        setup: &LaunchSetup,
        program: &Program,
        options: SourceOptions,
    ) -> Result<ExecSource, ExecError> {
        let checked = plan(module, setup)?;
        let lanes = if options.lanes == 64 { 64 } else { 32 };
        if options.lanes != 0 && options.lanes != 32 && options.lanes != 64 {
            return Err(ExecError::InvalidLaunch {
                message: format!(
                    "a warp of {} lanes: the timing model replays 32-lane warps and 64-lane wavefronts",
                    options.lanes
                ),
            });
        }
        let mut steps = Vec::new();
        for s in &checked.steps {
            let kernel = program.kernel_index(&s.name).ok_or_else(|| ExecError::InvalidLaunch {
                message: format!("kernel {} is not an entry of the decoded program", s.name),
            })?;
            let threads = s.block.iter().map(|&d| d.max(1)).product();
            steps.push(LaunchShape { kernel, threads, dynamic_smem: s.dynamic_smem });
        }
        let step_ctas: Vec<u64> =
            checked.steps.iter().map(|s| s.grid.iter().map(|&g| u64::from(g.max(1))).product::<u64>()).collect();
        let total = checked.repeat.is_none().then(|| step_ctas.iter().sum());
        let layout = if address_bits(module) == 64 { AddressLayout::bits64() } else { AddressLayout::bits32() };
        // 64-wide wavefronts join two warps' value summaries: they need each unit's first value.
        let trace = TraceOptions { enabled: true, values: options.values, first_values: options.values && lanes == 64 };
        let options = RunOptions { budget: options.budget, trace };
        let run = Run::new(module, setup, options)?;
        if lanes == 64 {
            if let Some(e) = crate::exec::wavefront_check::refuse_for_width(module, &run.functions_run(), lanes) {
                return Err(e);
            }
        }
        let func_base = program.func_base.iter().map(|(&f, &b)| (f, b)).collect();
        Ok(ExecSource {
            run,
            layout,
            func_base,
            steps,
            total,
            step_ctas,
            sampling: None,
            warp_instructions: 0,
            open: BTreeMap::new(),
            next_number: 0,
            lanes,
        })
    }

    /// Quick mode ([`crate::timing::TimingOptions::quick_waves`]): when the first launch has at
    /// least two samples' worth of CTAs — a sample being `waves` waves, each wave SMs × the CTAs
    /// per SM `gpu`'s limits allow the kernel's CTA, registers aside — runs one wave of
    /// consecutive CTAs in every k waves of each launch, k = the first launch's CTAs / sample,
    /// rounded down ([`Run::sample_ctas`]): about `waves` waves spread over the grid. Nothing
    /// changes for a smaller grid, or for a sequence that repeats until a condition (its length
    /// is unknown). Before the first CTA.
    pub fn sample_waves(&mut self, program: &Program, gpu: &crate::gpu::GpuConfig, waves: u32) {
        let (Some(whole), Some(&first), Some(&ctas)) = (self.total, self.steps.first(), self.step_ctas.first()) else {
            return;
        };
        let wave = crate::timing::quick_sample::ctas_per_sm(program, gpu, first) * u64::from(gpu.core.sm_count.max(1));
        let every = ctas / wave.saturating_mul(u64::from(waves.max(1))).max(1);
        if every < 2 {
            return;
        }
        self.run.sample_ctas(every, wave);
        let period = every * wave;
        self.total = Some(self.step_ctas.iter().map(|n| n / period * wave + (n % period).min(wave)).sum());
        self.sampling = Some((every, whole));
    }

    /// Warp-instructions handed over so far.
    pub fn warp_instructions(&self) -> u64 {
        self.warp_instructions
    }

    /// The executor's run (for its outputs once the streams are consumed).
    pub fn run(&self) -> &Run {
        &self.run
    }

    #[cfg(test)]
    fn convert(&mut self, t: crate::exec::CtaTrace) -> Result<CtaStream, String> {
        let bases = self.bases(&t.functions);
        let shape = self.shape(t.launch)?;
        let mut warps = Vec::with_capacity(t.warps.len());
        for w in t.warps {
            warps.push(self.convert_warp(&bases, t.cta, w, 0)?);
        }
        Ok(CtaStream { launch: t.launch, shape, warps, more: None })
    }

    /// The static id of each function's first instruction, by the records' function index.
    fn bases(&self, functions: &[Handle<Function>]) -> Vec<Option<u32>> {
        functions
            .iter()
            .map(|f| {
                let i = self.func_base.binary_search_by_key(&f.raw(), |&(k, _)| k).ok()?;
                self.func_base.get(i).map(|&(_, b)| b)
            })
            .collect()
    }

    fn shape(&self, launch: u32) -> Result<LaunchShape, String> {
        let step = (launch as usize).checked_rem(self.steps.len()).and_then(|i| self.steps.get(i).copied());
        step.ok_or_else(|| format!("launch {launch} has no launch step"))
    }

    /// Warp `w`'s records as a stream whose first instruction is at position `start`.
    fn convert_warp(
        &mut self,
        bases: &[Option<u32>],
        cta: [u32; 3],
        w: WarpTrace,
        start: u32,
    ) -> Result<WarpStream, String> {
        let mut raw = w.addresses;
        let mut stream = WarpStream::starting_at(start);
        for r in &w.records {
            let sid = sid_of(bases, cta, r)?;
            let (a, n) = (r.addr_start as usize, r.addr_count as usize);
            let lanes = raw.get_mut(a..a + n).unwrap_or(&mut []);
            match space_of(&self.layout, r, lanes) {
                Some(space) => {
                    let padded = padded(r, lanes);
                    let lanes = padded.as_deref().unwrap_or(lanes);
                    if lanes.len() != r.executed.count_ones() as usize {
                        return Err(format!(
                            "CTA {cta:?}: {n} addresses for {} executing lanes",
                            r.executed.count_ones()
                        ));
                    }
                    stream.push_access(sid, u64::from(r.executed), space, r.bytes, lanes).map_err(String::from)?;
                }
                None => stream.push(sid, u64::from(r.executed)),
            }
            if r.value_units > 0 {
                let v = r.value_start as usize;
                let units = w.values.get(v..v + usize::from(r.value_units)).unwrap_or(&[]);
                stream.push_values(units).map_err(String::from)?;
            }
        }
        self.warp_instructions += u64::from(stream.len() - start);
        Ok(stream)
    }

    /// One half-warp record of a 64-wide wavefront, converted ([`wavefronts`]).
    fn convert_half(
        layout: &AddressLayout,
        bases: &[Option<u32>],
        cta: [u32; 3],
        r: &crate::exec::stream::TraceRecord,
        addrs: &[u64],
    ) -> Result<wavefronts::Converted, String> {
        let sid = sid_of(bases, cta, r)?;
        let mut lanes = addrs.to_vec();
        let access = match space_of(layout, r, &mut lanes) {
            Some(space) => {
                let lanes = padded(r, &lanes).unwrap_or(lanes);
                if lanes.len() != r.executed.count_ones() as usize {
                    return Err(format!(
                        "CTA {cta:?}: {} addresses for {} executing lanes",
                        lanes.len(),
                        r.executed.count_ones()
                    ));
                }
                Some((space, r.bytes, lanes))
            }
            None => None,
        };
        Ok(wavefronts::Converted { sid, access })
    }
}

/// The static id of record `r` (function base plus instruction).
fn sid_of(bases: &[Option<u32>], cta: [u32; 3], r: &crate::exec::stream::TraceRecord) -> Result<u32, String> {
    let base = bases.get(r.func as usize).copied().flatten();
    Ok(base.ok_or_else(|| format!("function #{} of CTA {cta:?} was not decoded", r.func))? + r.inst.raw())
}

/// The space record `r` accessed (`None`: not a memory record); generic addresses (`lanes`) are
/// resolved by the first and rewritten to offsets in their space.
fn space_of(layout: &AddressLayout, r: &crate::exec::stream::TraceRecord, lanes: &mut [u64]) -> Option<MemSpace> {
    match r.space {
        Some(s) => Some(from_exec(s)),
        None if !lanes.is_empty() => {
            let &first = lanes.first()?;
            let (space, _) = layout.classify(first);
            for a in lanes.iter_mut() {
                *a = layout.from_generic(space, *a);
            }
            Some(from_exec(space))
        }
        None => None,
    }
}

/// `ldmatrix.x1`/`.x2` take row addresses from the first 8/16 lanes only: the other executing
/// lanes repeat them (same sectors, so the traffic is unchanged). `None`: the list as it is.
fn padded(r: &crate::exec::stream::TraceRecord, lanes: &[u64]) -> Option<Vec<u64>> {
    let (n, active) = (lanes.len(), r.executed.count_ones() as usize);
    (n > 0 && n < active && active % n == 0).then(|| lanes.iter().copied().cycle().take(active).collect())
}

fn from_exec(s: Space) -> MemSpace {
    match s {
        Space::Global => MemSpace::Global,
        Space::Shared => MemSpace::Shared,
        Space::Local => MemSpace::Local,
        Space::Const => MemSpace::Const,
        Space::Param => MemSpace::Param,
    }
}

impl CtaSource for ExecSource {
    fn next_cta(&mut self) -> Result<Option<CtaStream>, SourceError> {
        self.open_next().map_err(|e| match e {
            pieces::Failure::Exec(e) => SourceError::from(e),
            pieces::Failure::Stream(m) => SourceError::Stream(m),
        })
    }

    fn more(&mut self, cta: u64, warp: usize) -> Result<Vec<Piece>, SourceError> {
        self.continue_cta(cta, warp).map_err(|e| match e {
            pieces::Failure::Exec(e) => SourceError::from(e),
            pieces::Failure::Stream(m) => SourceError::Stream(m),
        })
    }

    fn ready(&self) -> bool {
        self.open.is_empty() || !self.run.next_opens_launch() || !self.run.launches_follow()
    }

    fn total_ctas(&self) -> Option<u64> {
        self.total
    }

    fn sampling(&self) -> Option<(u64, u64)> {
        self.sampling
    }

    fn lanes(&self) -> u32 {
        self.lanes
    }

    fn notices(&self) -> Vec<crate::exec::Notice> {
        self.run.notices().to_vec()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::timing::stream::values::ValueSummary;

    /// Warp 0: lanes 0–31 (tid 0–31); warp 1: lanes 0–7 (tid 32–39).
    const KERNEL: &str = ".version 7.0\n.target sm_70\n.address_size 64\n.visible .entry k()\n{\n\
        .reg .b32 %r<8>;\n.reg .b64 %rd<3>;\n\
        mov.u32 %r1, %tid.x;\n\
        mov.u32 %r2, 32767;\n\
        mov.b32 %r3, -1;\n\
        mov.b32 %r4, 0x80000000;\n\
        add.s32 %r5, %r1, -16;\n\
        cvt.u64.u32 %rd1, %r1;\n\
        shl.b64 %rd2, %rd1, 32;\n\
        ret;\n}\n";

    fn streams(values: bool) -> Vec<WarpStream> {
        let module = crate::ptx::compile(KERNEL).unwrap_or_default();
        let Some(gpu) = crate::gpu::presets::by_name("turing-rtx2060") else { unreachable!() };
        let program = Program::decode(&module, &gpu);
        let setup = LaunchSetup::from_json(r#"{"kernel": "k", "grid": [1], "block": [40], "params": []}"#);
        let options = SourceOptions { values, budget: None, lanes: 32 };
        let source =
            setup.map_err(ExecError::from).and_then(|s| ExecSource::with_options(&module, &s, &program, options));
        let cta = source.and_then(|mut s| s.run.next_cta().map(|t| t.map(|t| s.convert(t))));
        match cta {
            Ok(Some(Ok(c))) => c.warps,
            other => unreachable!("{other:?}"),
        }
    }

    fn parts(v: &[ValueSummary]) -> Vec<(bool, u32, u32)> {
        v.iter().map(|s| (s.uniform(), s.unsigned_bits(), s.signed_bits())).collect()
    }

    #[test]
    fn value_summaries_reach_the_stream_only_when_asked_for() {
        let off = streams(false);
        assert!(off.iter().all(|w| !w.has_values() && w.validate(64).is_ok()));
        let on = streams(true);
        assert_eq!(on.len(), 2);
        let w0: Vec<_> = (0..on[0].len()).map(|pc| parts(on[0].values_at(pc))).collect();
        let expected_w0 = [
            vec![(false, 5, 6)],               // %tid.x 0..31: 31 needs 5 bits, +1 sign bit
            vec![(true, 15, 16)],              // 0x7fff
            vec![(true, 32, 1)],               // −1: all ones unsigned, one sign bit
            vec![(true, 32, 32)],              // 0x8000_0000 = −2^31
            vec![(false, 32, 5)],              // −16..15: negative lanes are all ones unsigned
            vec![(false, 5, 6), (true, 0, 1)], // 64-bit 0..31: low unit like %tid.x, high 0
            vec![(true, 0, 1), (false, 5, 6)], // shifted by 32: low 0, high 0..31
            vec![],                            // ret writes nothing
        ];
        assert_eq!(w0, expected_w0);
        // Warp 1 runs lanes 0–7 only, tid 32–39 (100000–100111): 6 bits, 7 signed; 32 − 16 = 16
        // to 23: 5 bits, 6 signed.
        assert_eq!(parts(on[1].values_at(0)), [(false, 6, 7)]);
        assert_eq!(parts(on[1].values_at(4)), [(false, 5, 6)]);
        // The instructions themselves are the same with or without values.
        assert!(on.iter().zip(&off).all(|(a, b)| a.iter().eq(b.iter())));
    }
}
