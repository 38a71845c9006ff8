//! One timing run as the Web Worker does it, and the messages between page and worker (JSON).
//! Pure Rust over `sim-core`, so it is tested natively; `worker_main.rs` is only the glue.
//!
//! ```text
//! worker → page   "ready"                     (its wasm has loaded)
//! page → worker   RunRequest { ptx, launch, gpu (the occupancy panel's edited GpuConfig),
//!                              schemes: [{scheme, params}], registers_per_thread ("ptxas says N") }
//! worker → page   {"progress":{"fraction":0.4,"warp_instructions":81920,"cycles":12000}} …
//!                 {"done":{"reports":[Report, …],"host":HostTiming}}
//!                 or  {"failed":{"kind":"fault",…}}
//! ```
//!
//! The job worker (`jobs_main.rs`) takes a [`Job`] (`{"diff":…}` or `{"kernel":…}`) and answers
//! `WorkerReply::Diff` or `WorkerReply::Kernel` the same way.
//!
//! The replies are externally tagged (serde's default for enums): a tag inside the object
//! (`{"type":"done",…}`) makes serde buffer the whole reply before reading it, and the page's
//! wasm then holds a second copy of every report's deserializer (36 KB of code before
//! `wasm-opt`).
//!
//! The reports are deterministic (identical natively and in wasm); the host timing beside them
//! (`host_timing.rs`) is not, which is why it travels next to them and never inside.

use serde::{Deserialize, Serialize};
use sim_core::exec::float_tuning::TuningStep;
use sim_core::exec::LaunchSetup;
use sim_core::gpu::GpuConfig;
use sim_core::timing::error::SourceError;
use sim_core::timing::regfile::compression_report::{search_of, TuningMemo};
use sim_core::timing::stream::exec_source::{ExecSource, SourceOptions};
use sim_core::timing::{Program, Report, SchemeLaunch, SchemeSpec, Simulation, TimingError, TimingOptions};

use crate::host_timing::{now_ms, HostTiming};
use sim_core::timing::stream::timed_source::TimedSource;

/// Cycles between occupancy samples (the model doubles it to keep at most 1024 samples), small
/// enough that short runs still get an occupancy curve.
pub const SAMPLE_INTERVAL_CYCLES: u64 = 16;

/// Cycles simulated between two progress messages.
pub const CHUNK_CYCLES: u64 = 20_000;

/// What the page asks the worker to run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RunRequest {
    /// The PTX module.
    pub ptx: String,
    /// The launch setup.
    pub launch: LaunchSetup,
    /// The GPU: the occupancy panel's preset with the user's edits (`model::occupancy::gpu_config`).
    pub gpu: GpuConfig,
    /// Register-file schemes with their parameters (`sim_core::timing::regfile::registry` names;
    /// parameters not set take their defaults).
    pub schemes: Vec<SchemeSpec>,
    /// Registers per thread as ptxas reports them (the user's "ptxas says N"), instead of the
    /// scheme's estimate.
    #[serde(default)]
    pub registers_per_thread: Option<u32>,
    /// Record value summaries even when none of these schemes needs them: the page's runs do,
    /// for Gilani's value shares in every report (sweeps do not); and a worker's share of a
    /// larger request whose other schemes do (`run_pool.rs`) must give the reports one run of
    /// all the schemes gives.
    #[serde(default)]
    pub record_values: bool,
    /// Quick mode: time the first [`QUICK_WAVES`] waves of CTAs and estimate the rest
    /// (`sim_core::timing::TimingOptions::quick_waves`); the page's "Quick estimate" button.
    #[serde(default)]
    pub quick: bool,
    /// Precision searches (`compression`) already made on this `ptx` and `launch`, by an earlier
    /// run of the page ([`crate::run_pool::SearchCache`]): a scheme asking for one of them takes
    /// its result instead of searching again (the same result, the search being deterministic).
    #[serde(default, skip_serializing_if = "TuningMemo::is_empty")]
    pub searches: TuningMemo,
}

/// Waves of CTAs a quick run times (the CLI's `--quick-waves` default).
pub const QUICK_WAVES: u32 = 3;

/// Where a run stands.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct RunProgress {
    /// Completed CTAs over all CTAs × schemes, 0 to 1.
    pub fraction: f64,
    /// Warp-instructions issued so far, summed over schemes.
    pub warp_instructions: u64,
    /// Core cycles simulated so far (the furthest scheme).
    pub cycles: u64,
    /// While `compression`'s precision tuning searches (before the simulation starts): its
    /// functional runs made and the most it can make ("tuning: run k of N").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tuning: Option<TuningStep>,
}

/// Why a run gave no reports.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunFailure {
    /// `compile`, `gpu`, `scheme`, `invalid_launch`, `fault`, `budget_exceeded`, `unsupported`,
    /// `does_not_fit`, `deadlock`, `internal`, `worker`.
    pub kind: String,
    /// What happened, with the instruction, thread and address where the executor names them.
    pub message: String,
}

impl RunFailure {
    /// A failure of `kind`.
    pub fn new(kind: &str, message: impl Into<String>) -> Self {
        RunFailure { kind: kind.into(), message: message.into() }
    }

    /// A heading for the error box.
    pub fn title(&self) -> &'static str {
        match self.kind.as_str() {
            "compile" => "The kernel does not compile",
            "invalid_launch" => "The launch setup is not valid",
            "fault" => "Memory fault",
            "budget_exceeded" => "Instruction budget exceeded",
            "unsupported" => "Unsupported instruction",
            "does_not_fit" => "The kernel does not fit on an SM",
            "gpu" | "scheme" => "Unknown choice",
            "worker" => "The worker failed",
            _ => "The run failed",
        }
    }
}

/// What a finished run gives.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct RunOutput {
    /// One report per scheme, in the order asked (deterministic).
    pub reports: Vec<Report>,
    /// How long it took on the host (not deterministic).
    #[serde(default)]
    pub host: HostTiming,
    /// The precision searches the run made or took (the request's and its new ones), for the
    /// page's next run of the same kernel and launch.
    #[serde(default, skip_serializing_if = "TuningMemo::is_empty")]
    pub searches: TuningMemo,
}

/// A job for the job worker (`jobs_main.rs`), externally tagged like the replies:
/// `{"diff":{…}}` or `{"kernel":{…}}`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Job {
    /// One scheme's rewrite of a module (`diff_job.rs`).
    Diff(Box<crate::diff_job::DiffRequest>),
    /// The selected kernel's view (`kernel_job.rs`).
    Kernel(crate::kernel_job::KernelRequest),
}

impl Job {
    /// What the job worker answers.
    pub fn answer(&self) -> WorkerReply {
        match self {
            Job::Diff(req) => WorkerReply::Diff(crate::diff_job::execute(req)),
            Job::Kernel(req) => WorkerReply::Kernel(crate::kernel_job::execute(req)),
        }
    }
}

/// A message from the worker.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum WorkerReply {
    /// The worker has loaded and listens (messages sent before that would be lost).
    Ready,
    /// The run advanced.
    Progress(RunProgress),
    /// One report per scheme, in the order asked, and the host time the run took.
    Done(RunOutput),
    /// The run failed.
    Failed(RunFailure),
    /// A PTX diff's answer (`diff_job.rs`).
    Diff(crate::diff_job::DiffResult),
    /// A kernel view's answer (`kernel_job.rs`).
    Kernel(crate::kernel_job::KernelAnswer),
}

/// How to raise the warp-instruction budget in the app.
fn budget_hint(budget: u64) -> String {
    format!(
        " If the kernel needs more, raise the budget in the launch setup: \"budget\": N warp-instructions \
         (now {budget})."
    )
}

fn from_timing(mut e: TimingError, src: &str) -> RunFailure {
    e.locate(src);
    match &e {
        TimingError::Source(SourceError::Exec(x @ sim_core::exec::ExecError::BudgetExceeded { budget, .. })) => {
            RunFailure::new(x.kind(), format!("{e}.{}", budget_hint(*budget)))
        }
        TimingError::Source(SourceError::Exec(x)) => RunFailure::new(x.kind(), e.to_string()),
        TimingError::Source(SourceError::Stream(_)) => RunFailure::new("executor", e.to_string()),
        TimingError::UnknownScheme(_) | TimingError::SchemeConfig(_) | TimingError::SchemeProgram { .. } => {
            RunFailure::new("scheme", e.to_string())
        }
        TimingError::UnsupportedGpu(_) => RunFailure::new("gpu", e.to_string()),
        TimingError::DoesNotFit { .. } | TimingError::Occupancy(_) => RunFailure::new("does_not_fit", e.to_string()),
        TimingError::Deadlock { .. } => RunFailure::new("deadlock", e.to_string()),
        TimingError::Internal(_) => RunFailure::new("internal", e.to_string()),
    }
}

/// Runs `req` to the end, calling `progress` after every chunk of cycles, and measures the host
/// time of the simulation itself (building and stepping it; not compiling, not the progress
/// messages), with the executor's share measured around every CTA it produces.
pub fn execute(req: &RunRequest, mut progress: impl FnMut(RunProgress)) -> Result<RunOutput, RunFailure> {
    let checked = sim_core::ptx::check(&req.ptx);
    let module = checked.module.ok_or_else(|| {
        let first = checked.diagnostics.first().map(|d| d.message.clone()).unwrap_or_default();
        RunFailure::new("compile", first)
    })?;
    if req.schemes.is_empty() {
        return Err(RunFailure::new("scheme", "choose at least one register-file scheme"));
    }
    sim_core::exec::plan::plan(&module, &req.launch).map_err(|e| RunFailure::new("invalid_launch", e.message))?;
    // One module and launch for every simulation of this request: their `compression` schemes
    // share a precision search that asks the same (a sweep's points, quick mode's second try),
    // also with the page's earlier runs of this kernel and launch.
    let mut memo = req.searches.clone();
    let kept = kept_searches(req);
    if !req.quick {
        let out = time_schemes(&module, req, &req.schemes, None, &mut progress, &mut memo)?;
        return Ok(RunOutput { host: HostTiming { kept_searches: kept, ..out.host }, searches: memo, ..out });
    }
    // Quick mode: a scheme whose sample did not settle is timed again with more waves; the host
    // time of every try counts.
    let mut host = HostTiming::default();
    let reports = sim_core::timing::quick_sample::refine(req.schemes.len(), QUICK_WAVES, |waves, which| {
        let schemes: Vec<SchemeSpec> = which.iter().filter_map(|&i| req.schemes.get(i).cloned()).collect();
        let out = time_schemes(&module, req, &schemes, Some(waves), &mut progress, &mut memo)?;
        host.add(&out.host);
        Ok(out.reports)
    })?;
    Ok(RunOutput { reports, host: HostTiming { kept_searches: kept, ..host }, searches: memo })
}

/// The distinct precision searches `req`'s schemes ask for that its [`RunRequest::searches`]
/// already holds.
fn kept_searches(req: &RunRequest) -> u32 {
    let energy = TimingOptions::default().energy;
    let mut kept = Vec::new();
    for key in req.schemes.iter().filter_map(|s| search_of(s, &req.gpu, &energy)) {
        if req.searches.get(&key).is_some() && !kept.contains(&key) {
            kept.push(key);
        }
    }
    kept.len() as u32
}

/// Times `schemes` of `req` on `module` (quick mode with `quick_waves` waves, or in full), taking
/// the precision searches `memo` holds and adding its new ones.
fn time_schemes(
    module: &sim_core::ir::Module,
    req: &RunRequest,
    schemes: &[SchemeSpec],
    quick_waves: Option<u32>,
    progress: &mut impl FnMut(RunProgress),
    memo: &mut TuningMemo,
) -> Result<RunOutput, RunFailure> {
    let (gpu, launch, module) = (&req.gpu, &req.launch, module);
    let from_timing = |e: TimingError| from_timing(e, &req.ptx);
    let options = TimingOptions {
        sample_interval_cycles: SAMPLE_INTERVAL_CYCLES,
        registers_per_thread: req.registers_per_thread,
        // DeMO's potential on every baseline (issue 26): the single-use memory values' accesses
        // and the bank conflicts they are involved in, shown before the user picks DeMO.
        single_use_attribution: req.schemes.iter().any(|s| s.scheme == "baseline"),
        quick_waves,
        ..TimingOptions::default()
    };
    let program = Program::decode_for(module, gpu, &options).map_err(|m| from_timing(TimingError::Internal(m)))?;
    let values = req.record_values || Simulation::wants_values(schemes, &options);
    let source_options = SourceOptions::for_gpu(gpu, values);
    let mut source = ExecSource::with_options(module, launch, &program, source_options)
        .map_err(|e| from_timing(TimingError::Source(e.into())))?;
    if let Some(waves) = options.quick_waves {
        source.sample_waves(&program, gpu, waves);
    }
    let (source, executor) = TimedSource::new(source, now_ms);
    let start = now_ms();
    // Precision tuning (`compression`) runs while the simulation is built: its steps are the
    // progress until then; Cancel terminates the worker, between two steps or in one.
    let mut tuning = |t: TuningStep| progress(RunProgress { tuning: Some(t), ..RunProgress::default() });
    let scheme_launch = SchemeLaunch { setup: launch, tuning_progress: Some(&mut tuning), tuning_memo: Some(memo) };
    let mut sim = Simulation::from_module_source_launch_progress(
        module,
        program,
        Box::new(source),
        gpu,
        schemes,
        options,
        scheme_launch,
    )
    .map_err(from_timing)?;
    let mut compute_ms = now_ms() - start;
    loop {
        let chunk = now_ms();
        let p = sim.step(CHUNK_CYCLES).map_err(from_timing)?;
        compute_ms += now_ms() - chunk;
        if p.finished {
            break;
        }
        let reports = sim.reports();
        progress(RunProgress {
            fraction: p.done_fraction,
            warp_instructions: reports.iter().map(|r| r.warp_instructions).sum(),
            cycles: reports.iter().map(|r| r.cycles).max().unwrap_or(0),
            tuning: None,
        });
    }
    let mut reports = sim.reports();
    reports.iter_mut().for_each(|r| r.locate(&req.ptx));
    let exec = executor.get();
    let host = HostTiming {
        total_ms: compute_ms,
        executor_ms: exec.ms,
        timing_warp_instructions: reports.iter().map(|r| r.warp_instructions).sum(),
        executor_warp_instructions: exec.warp_instructions,
        kept_searches: 0,
    };
    Ok(RunOutput { reports, host, searches: TuningMemo::default() })
}

/// Runs `req` and turns the outcome into the worker's last message.
pub fn execute_to_reply(req: &RunRequest, progress: impl FnMut(RunProgress)) -> WorkerReply {
    match execute(req, progress) {
        Ok(out) => WorkerReply::Done(out),
        Err(f) => WorkerReply::Failed(f),
    }
}

/// Tests: the saxpy example with its launch on fermi-gtx480 under `schemes`.
#[cfg(test)]
pub(crate) fn saxpy_request(schemes: &[&str]) -> RunRequest {
    let ex = crate::examples::find("saxpy");
    let launch = crate::examples::launch_for("saxpy").and_then(|t| LaunchSetup::from_json(t).ok());
    let (Some(ex), Some(launch), Some(gpu)) = (ex, launch, sim_core::gpu::presets::by_name("fermi-gtx480")) else {
        unreachable!("the saxpy example and fermi-gtx480")
    };
    RunRequest {
        ptx: ex.source.into(),
        launch,
        gpu,
        schemes: schemes.iter().map(|s| SchemeSpec::parse(s).unwrap_or_default()).collect(),
        registers_per_thread: None,
        record_values: false,
        quick: false,
        searches: TuningMemo::default(),
    }
}

/// Tests: the tuning steps ((run, of) as the worker tells them) and the reports of
/// [`saxpy_request`] under `schemes`.
#[cfg(test)]
pub(crate) fn saxpy_tuning(schemes: &[&str]) -> (Vec<(u32, u32)>, Vec<Report>) {
    let mut steps = Vec::new();
    let out = execute(&saxpy_request(schemes), |p| steps.extend(p.tuning.map(|t| (t.run, t.of))));
    assert!(out.is_ok(), "{:?}", out.err());
    (steps, out.map(|o| o.reports).unwrap_or_default())
}

/// Tests: report `r`'s precision-tuning counters (`tuning_*`, `float_bits:*`), name and value.
#[cfg(test)]
pub(crate) fn tuning_counters(r: &Report) -> Vec<(String, u64)> {
    let c = r.register_file.scheme.counters.iter();
    c.filter(|c| c.name.starts_with("tuning_") || c.name.starts_with("float_bits:"))
        .map(|c| (c.name.clone(), c.value))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vector_add(grid: u32) -> RunRequest {
        let ex = crate::examples::find("vector_add");
        let launch = crate::examples::launch_for("vector_add").and_then(|t| LaunchSetup::from_json(t).ok());
        let mut launch = launch.unwrap_or_else(|| sim_core::exec::propose_launch(&Default::default(), "none"));
        launch.grid = vec![grid, 1, 1];
        RunRequest {
            ptx: ex.map_or(String::new(), |e| e.source.into()),
            launch,
            gpu: sim_core::gpu::presets::by_name("turing-rtx2060").unwrap_or_else(|| unreachable!()),
            schemes: vec![SchemeSpec::named("baseline"), SchemeSpec::named("no-bank-conflicts")],
            registers_per_thread: None,
            record_values: false,
            quick: false,
            searches: TuningMemo::default(),
        }
    }

    #[test]
    fn vector_add_runs_deterministically_with_progress() {
        let req = vector_add(16);
        let mut steps = 0;
        let a = execute(&req, |_| steps += 1).map(|o| o.reports);
        let b = execute(&req, |_| {}).map(|o| o.reports);
        assert!(matches!(&a, Ok(r) if r.len() == 2 && r[0].ipc.warp_instructions_per_cycle > 0.0), "{a:?}");
        assert_eq!(a, b);
        let json = serde_json::to_string(&execute_to_reply(&req, |_| {})).unwrap_or_default();
        assert!(json.starts_with("{\"done\":{\"reports\":["), "{}", &json[..40.min(json.len())]);
        assert!(json.contains("\"host\":{\"total_ms\":"), "the host timing travels beside the reports");
        let back: Result<WorkerReply, _> = serde_json::from_str(&json);
        assert!(matches!(back, Ok(WorkerReply::Done(_))), "{back:?}");
    }

    #[test]
    fn the_edited_gpu_is_the_one_simulated() {
        let mut req = vector_add(4);
        let gpu = crate::model::occupancy::GpuSettings {
            preset: "turing-rtx2060".into(),
            sm_count: Some(3),
            ..Default::default()
        };
        req.gpu = crate::model::occupancy::gpu_config(&gpu).unwrap_or_else(|| unreachable!());
        let json = serde_json::to_string(&req).unwrap_or_default();
        let back: Result<RunRequest, _> = serde_json::from_str(&json);
        assert_eq!(back.as_ref().ok(), Some(&req));
        let reports = execute(&req, |_| {}).unwrap_or_default().reports;
        assert!(!reports.is_empty());
        assert!(reports.iter().all(|r| r.sms == 3), "{:?}", reports.first().map(|r| &r.gpu));
    }

    #[test]
    fn an_endless_loop_ends_with_a_message_that_says_where_and_what_to_do() {
        let ptx = ".version 7.0\n.target sm_80\n.address_size 64\n.visible .entry k()\n{\n.reg .b32 %r<2>;\n\
                   L:\nadd.s32 %r1, %r1, 1;\nbra L;\n}\n";
        let mut req = vector_add(1);
        req.ptx = ptx.into();
        req.launch = sim_core::exec::propose_launch(&sim_core::ptx::compile(ptx).unwrap_or_default(), "k");
        req.launch.budget = Some(100_000);
        let failure = execute(&req, |_| {}).err().unwrap_or_else(|| RunFailure::new("none", ""));
        assert_eq!(failure.kind, "budget_exceeded");
        // Line 8 is the loop's head (`add`), line 9 its back edge (`bra L`). The CTA and warp are
        // the ones running when the budget ran out: CTAs now run in pieces of up to 65536
        // instructions each as the timing model asks, so that is not CTA 0's first warp.
        for part in ["kernel k", "CTA [", ", warp ", "lines 8-9", "\"budget\": N", "(now 100000)"] {
            assert!(failure.message.contains(part), "{part:?} in {}", failure.message);
        }
    }

    #[test]
    fn bad_launches_and_choices_fail_with_a_kind() {
        let mut req = vector_add(16);
        req.launch.block = vec![0, 1, 1];
        assert_eq!(execute(&req, |_| {}).map_err(|f| f.kind), Err("invalid_launch".into()));
        let mut req = vector_add(16);
        req.schemes.clear();
        assert_eq!(execute(&req, |_| {}).map_err(|f| f.kind), Err("scheme".into()));
        let mut req = vector_add(16);
        req.schemes = vec![SchemeSpec::parse("baseline:banks=0").unwrap_or_default()];
        let failure = execute(&req, |_| {}).err();
        assert_eq!(failure.as_ref().map(|f| f.kind.as_str()), Some("scheme"));
        assert!(failure.is_some_and(|f| f.message.contains("banks = 0 is out of range")));
        let mut req = vector_add(16);
        req.ptx = "garbage".into();
        assert_eq!(execute(&req, |_| {}).map_err(|f| f.kind), Err("compile".into()));
    }

    /// The user's "ptxas says N" reaches the timing model: vector_add's estimate is far below
    /// 200 registers, and at 200 × 256 threads = 51,200 of turing-rtx2060's 65,536 registers per
    /// SM only one CTA fits.
    #[test]
    fn the_users_register_count_is_the_one_simulated() {
        let mut req = vector_add(4);
        let estimated = execute(&req, |_| {}).unwrap_or_default().reports;
        req.registers_per_thread = Some(200);
        let told = execute(&req, |_| {}).unwrap_or_default().reports;
        let regs =
            |r: &[Report]| r.first().and_then(|r| r.kernels.first()).map(|k| (k.registers_per_thread, k.ctas_per_sm));
        assert!(regs(&estimated).is_some_and(|(n, _)| n < 200), "{:?}", regs(&estimated));
        assert_eq!(regs(&told), Some((200, 1)));
    }

    /// Variants of `compression` that ask for the same precision search (here they differ in
    /// `slice_bits` only, as a sweep's points do) share it: the run tells the steps of one search
    /// at 0 % and one at 10 %, not three, and the two variants' reports carry the same tuning
    /// counters as the scheme run alone.
    #[test]
    fn variants_asking_for_the_same_search_share_it() {
        let (alone, reports) = super::saxpy_tuning(&["compression"]);
        let (looser, _) = super::saxpy_tuning(&["compression:quality_loss=10"]);
        // saxpy at 0 %: before the reference run, after it, then its three trials that needed a run.
        assert_eq!(alone.len(), 5, "{alone:?}");
        let (all, three) =
            super::saxpy_tuning(&["compression", "compression:slice_bits=8", "compression:quality_loss=10"]);
        assert_eq!(all, [alone.clone(), looser].concat());
        let tuning = super::tuning_counters;
        assert_eq!(three.len(), 3);
        assert!(!tuning(&three[0]).is_empty());
        assert_eq!(tuning(&three[0]), tuning(&reports[0]));
        assert_eq!(tuning(&three[1]), tuning(&reports[0]));
    }
}
