//! The schemes of one `reglab run` (the points of one `reglab sweep`) spread over threads. With
//! one thread, one simulation times them all on one functional run. With more, each scheme is a
//! job of its own (its own functional run); the threads take the next job as they finish one,
//! and the schemes that need many functional runs (`compression`'s precision search) start
//! first, so one slow scheme does not hold the others back. A
//! scheme's report depends only on the launch, the GPU, the options and its own config — not on
//! which other schemes share the simulation — so the reports are those of one simulation of all
//! of them, in the same order (`cli/tests/threads_cli.rs` compares them byte for byte).
//!
//! ```text
//! [baseline, rfc-ob, demo, finereg, gilani, compression], 2 threads:
//!   thread 0: compression (up to 65 functional runs)   thread 1: baseline, rfc-ob, demo, …
//!   → reports in the listed order; the error one simulation would report
//! ```
//!
//! With at least two threads per job (one scheme on a 2-core machine), each job's executor
//! also runs on a thread of its own, ahead of its timing model (`pipelined_source`); the
//! reports are the same.
//!
//! Quick mode (`--quick`): a scheme whose sample did not settle is timed again with twice the
//! waves (`sim_core::timing::quick_sample::refine`), in its job (or, with one thread, with the
//! other unsettled schemes); a scheme's sample depends only on its own run, so the reports do
//! not depend on the threads either.
//!
//! Jobs asking for the same precision search share it (`shared_searches`): the first makes it,
//! the others take its result (waiting while it is under way), and a quick-mode retry takes
//! its own job's.

use std::num::NonZeroUsize;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use sim_core::exec::LaunchSetup;
use sim_core::gpu::GpuConfig;
use sim_core::timing::quick_sample;
use sim_core::timing::regfile::registry::functional_runs;
use sim_core::timing::stream::exec_source::ExecSource;
use sim_core::timing::{CtaSource, Report, SchemeSpec, Simulation, TimingError, TimingOptions};

use super::pipelined_source::Pipelined;
use super::shared_searches::SharedSearches;

/// One simulation's reports, or why it failed.
type Outcome = Result<Vec<Report>, TimingError>;

/// Threads to use when none is asked for: the machine's cores (1 if unknown).
pub fn default_threads() -> usize {
    std::thread::available_parallelism().map_or(1, NonZeroUsize::get)
}

/// What `Simulation::from_launch(module of src, setup, gpu, specs, options)` and `run_to_end`
/// give, the schemes spread over at most `threads` threads.
pub fn simulate(
    src: &str,
    setup: &LaunchSetup,
    gpu: &GpuConfig,
    specs: &[SchemeSpec],
    options: &TimingOptions,
    threads: usize,
) -> Result<Vec<Report>, TimingError> {
    // Threads to spare beyond one per job: each job's executor runs on a thread of its own,
    // ahead of its timing model (`pipelined_source`).
    let pipelined = threads >= 2 * specs.len().max(1);
    let threads = threads.clamp(1, specs.len().max(1));
    // Jobs asking for the same precision search (`compression`) share it, across threads too.
    let searches = SharedSearches::default();
    let one = |share: &[SchemeSpec]| -> Outcome {
        let module = sim_core::ptx::compile(src).map_err(|d| {
            TimingError::Internal(d.first().map(|d| d.message.clone()).unwrap_or_else(|| "does not compile".into()))
        })?;
        let wrap: &dyn Fn(ExecSource) -> Box<dyn CtaSource> =
            if pipelined { &Pipelined::start } else { &|s| Box::new(s) };
        let (mut memo, mut claim) = searches.enter(share, gpu, options);
        if pipelined {
            // A thread to spare: the search runs two trials at a time.
            claim.search_paired(share, (&module, setup), gpu, options, &mut memo);
        }
        let mut time = |quick_waves: Option<u32>, specs: &[SchemeSpec]| {
            let options = TimingOptions { quick_waves, ..options.clone() };
            let built = Simulation::from_launch_wrapped(&module, setup, gpu, specs, options, wrap, Some(&mut memo));
            // Built: its searches are made; the jobs waiting for them go on.
            claim.publish(&memo);
            built.and_then(|mut s| s.run_to_end())
        };
        match options.quick_waves {
            None => time(None, share),
            // Quick mode: a scheme whose sample did not settle is timed again with more waves
            // (and the search it made already).
            Some(waves) => quick_sample::refine(share.len(), waves, |waves, which| {
                let specs: Vec<SchemeSpec> = which.iter().filter_map(|&i| share.get(i).cloned()).collect();
                time(Some(waves), &specs)
            }),
        }
    };
    if threads == 1 {
        return one(specs);
    }
    // Jobs with the most functional runs first (a precision search), else in the listed order.
    let runs = |s: &SchemeSpec| s.resolve(gpu, &options.energy).map_or(1, |r| functional_runs(&r));
    let mut jobs: Vec<usize> = (0..specs.len()).collect();
    jobs.sort_by_key(|&i| core::cmp::Reverse(specs.get(i).map_or(1, runs)));
    let next = AtomicUsize::new(0);
    let done: Mutex<Vec<Option<Outcome>>> = Mutex::new(vec![None; specs.len()]);
    std::thread::scope(|scope| {
        for _ in 0..threads {
            scope.spawn(|| {
                while let Some(&i) = jobs.get(next.fetch_add(1, Ordering::Relaxed)) {
                    let Some(spec) = specs.get(i) else { break };
                    let result = one(core::slice::from_ref(spec));
                    if let Ok(mut d) = done.lock() {
                        if let Some(slot) = d.get_mut(i) {
                            *slot = Some(result);
                        }
                    }
                }
            });
        }
    });
    let done = done.into_inner().map_err(|_| TimingError::Internal("a simulation thread stopped".into()))?;
    // One simulation builds every scheme's program before it runs any: a scheme whose program
    // fails is reported before a failure of the run; among equals, the first scheme listed.
    let mut results = Vec::with_capacity(specs.len());
    for (i, r) in done.into_iter().enumerate() {
        results.push(r.ok_or_else(|| TimingError::Internal(format!("no report for scheme {i}")))?);
    }
    let building =
        results.iter().find_map(|r| r.as_ref().err().filter(|e| matches!(e, TimingError::SchemeProgram { .. })));
    if let Some(e) = building {
        return Err(e.clone());
    }
    let mut reports = Vec::with_capacity(specs.len());
    for r in results {
        reports.extend(r?);
    }
    Ok(reports)
}
