//! Several Web Workers for one comparison or sweep: the schemes (or sweep points) are dealt round
//! robin to up to [`MAX_WORKERS`] workers (never more than `navigator.hardwareConcurrency`, nor
//! than schemes); each worker runs the functional executor once and the timing model for its
//! share, so "one functional run feeds every scheme" holds within each worker. Every report is
//! the same bit for bit as in one run of all the schemes (each scheme's timing model replays the
//! same CTA streams, and the executor records value summaries when any scheme of the whole
//! request needs them, [`RunRequest::record_values`]); [`Pool`] merges them back into the order
//! the user chose. Pure Rust: `worker_client.rs` is the browser glue, and [`run_pooled`] runs
//! the shares one after another natively (tests).
//!
//! ```text
//! 5 schemes, 2 cores → worker 0: schemes 0, 2, 4   worker 1: schemes 1, 3
//! progress(w, p) → every scheme of w at p.fraction; finished(w, out) → its reports in place;
//! the last finished → RunOutput { reports in the order asked, host: summed over the workers }
//! ```

use std::rc::Rc;

use sim_core::timing::{Report, Simulation, TimingOptions};

use sim_core::exec::LaunchSetup;
use sim_core::timing::regfile::compression_report::TuningMemo;

use crate::host_timing::HostTiming;
use crate::run_job::{execute, RunFailure, RunOutput, RunProgress, RunRequest};

/// The most workers one run uses (each holds its own wasm instance and functional run).
pub const MAX_WORKERS: usize = 4;

/// Workers for `schemes` schemes on a machine with `hardware` logical cores (the browser's
/// `navigator.hardwareConcurrency`, which may be missing or 0): at least 1, at most
/// [`MAX_WORKERS`], never more than schemes.
pub fn worker_count(hardware: f64, schemes: usize) -> usize {
    let cores = if hardware.is_finite() && hardware >= 1.0 { hardware as usize } else { 1 };
    cores.min(MAX_WORKERS).min(schemes).max(1)
}

/// The scheme indices of each worker, dealt round robin (a sweep's points spread along the
/// parameter, so its line charts fill in across the whole range).
pub fn shares(schemes: usize, workers: usize) -> Vec<Vec<usize>> {
    let workers = workers.max(1);
    (0..workers).map(|w| (w..schemes).step_by(workers).collect()).filter(|s: &Vec<usize>| !s.is_empty()).collect()
}

/// The request of each share: the same kernel, launch and GPU, only the share's schemes.
pub fn split(req: &RunRequest, shares: &[Vec<usize>]) -> Vec<RunRequest> {
    let values = req.record_values || Simulation::wants_values(&req.schemes, &TimingOptions::default());
    shares
        .iter()
        .map(|share| RunRequest {
            schemes: share.iter().filter_map(|&i| req.schemes.get(i).cloned()).collect(),
            record_values: values,
            ..req.clone()
        })
        .collect()
}

/// What the page shows while a pooled run goes on: each scheme's progress and the reports of the
/// schemes whose worker has finished (a sweep's line charts draw them at once).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PartialRun {
    /// Each scheme's completed fraction, 0 to 1, in the order asked.
    pub fractions: Vec<f64>,
    /// Each scheme's report once its worker has finished, in the order asked.
    pub reports: Vec<Option<Rc<Report>>>,
    /// Workers the run uses.
    pub workers: usize,
}

/// The merging side of a pooled run (one per run; the page keeps it while the workers work).
#[derive(Clone, Debug, Default)]
pub struct Pool {
    shares: Vec<Vec<usize>>,
    progress: Vec<RunProgress>,
    outputs: Vec<Option<RunOutput>>,
    partial: PartialRun,
}

impl Pool {
    /// A pool for `shares` (from [`shares`]) of `schemes` schemes.
    pub fn new(shares: Vec<Vec<usize>>, schemes: usize) -> Pool {
        let workers = shares.len();
        Pool {
            progress: vec![RunProgress::default(); workers],
            outputs: vec![None; workers],
            partial: PartialRun { fractions: vec![0.0; schemes], reports: vec![None; schemes], workers },
            shares,
        }
    }

    /// The shares, worker by worker.
    pub fn shares(&self) -> &[Vec<usize>] {
        &self.shares
    }

    /// Worker `w` advanced to `p`; returns the whole run's progress (the mean of the schemes'
    /// fractions, warp-instructions summed, cycles of the furthest worker, the first worker's
    /// precision tuning step while one tunes).
    pub fn progress(&mut self, w: usize, p: RunProgress) -> RunProgress {
        if let (Some(slot), Some(share)) = (self.progress.get_mut(w), self.shares.get(w)) {
            *slot = p;
            for &i in share {
                if let Some(f) = self.partial.fractions.get_mut(i) {
                    *f = p.fraction.clamp(0.0, 1.0);
                }
            }
        }
        self.total()
    }

    fn total(&self) -> RunProgress {
        let n = self.partial.fractions.len().max(1) as f64;
        RunProgress {
            fraction: self.partial.fractions.iter().sum::<f64>() / n,
            warp_instructions: self.progress.iter().map(|p| p.warp_instructions).sum(),
            cycles: self.progress.iter().map(|p| p.cycles).max().unwrap_or(0),
            // A worker still tuning precision (`compression`) says how far it is.
            tuning: self.progress.iter().find_map(|p| p.tuning),
        }
    }

    /// Where the schemes stand.
    pub fn partial(&self) -> &PartialRun {
        &self.partial
    }

    /// Worker `w` finished with `out`; the merged output once every worker has.
    pub fn finished(&mut self, w: usize, out: RunOutput) -> Option<RunOutput> {
        let share = self.shares.get(w)?;
        for (&i, r) in share.iter().zip(&out.reports) {
            if let (Some(f), Some(slot)) = (self.partial.fractions.get_mut(i), self.partial.reports.get_mut(i)) {
                *f = 1.0;
                *slot = Some(Rc::new(r.clone()));
            }
        }
        if let Some(p) = self.progress.get_mut(w) {
            p.warp_instructions = out.host.timing_warp_instructions;
        }
        *self.outputs.get_mut(w)? = Some(out);
        self.merged()
    }

    /// Every worker's reports in the order asked, host time summed (CPU time over the workers).
    fn merged(&self) -> Option<RunOutput> {
        let outputs: Vec<&RunOutput> = self.outputs.iter().map(Option::as_ref).collect::<Option<_>>()?;
        let mut reports: Vec<Option<Report>> = vec![None; self.partial.reports.len()];
        let mut host = HostTiming::default();
        let mut searches = TuningMemo::default();
        for (share, out) in self.shares.iter().zip(outputs) {
            for (&i, r) in share.iter().zip(&out.reports) {
                if let Some(slot) = reports.get_mut(i) {
                    *slot = Some(r.clone());
                }
            }
            host.add(&out.host);
            searches.merge(&out.searches);
        }
        Some(RunOutput { reports: reports.into_iter().collect::<Option<_>>()?, host, searches })
    }
}

/// The precision searches (`compression`) of the page's last kernel and launch, kept between
/// runs: the researcher's loop (change a write-back delay, a GPU, a slice width; run again) and
/// a sweep after a single run search once, not on every run. A run that searches on another
/// kernel text or launch setup starts the memo afresh, so it holds one module's searches (at most
/// [`sim_core::timing::regfile::compression_report::MEMO_SEARCHES`]); it is never saved.
#[derive(Clone, Debug, Default)]
pub struct SearchCache {
    kept: Option<(String, LaunchSetup, TuningMemo)>,
}

impl SearchCache {
    /// `req` with the searches kept for its kernel and launch.
    pub fn attach(&self, mut req: RunRequest) -> RunRequest {
        if let Some((ptx, launch, memo)) = &self.kept {
            if *ptx == req.ptx && *launch == req.launch {
                req.searches.merge(memo);
            }
        }
        req
    }

    /// Keeps `searches`, made or taken by a run of kernel text `ptx` on `launch`.
    pub fn remember(&mut self, ptx: &str, launch: &LaunchSetup, searches: &TuningMemo) {
        match &mut self.kept {
            Some((p, l, memo)) if p == ptx && l == launch => memo.merge(searches),
            _ if searches.is_empty() => {}
            _ => self.kept = Some((ptx.to_owned(), launch.clone(), searches.clone())),
        }
    }

    /// Searches kept (for the kernel and launch of the last run that made one).
    pub fn len(&self) -> usize {
        self.kept.as_ref().map_or(0, |(_, _, m)| m.len())
    }

    /// No search kept.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// The pool and the workers' requests for `req` on a machine with `hardware` cores (see
/// [`worker_count`]); a request without schemes goes whole to one worker (which says why it
/// cannot run).
pub fn plan(req: &RunRequest, hardware: f64) -> (Pool, Vec<RunRequest>) {
    let n = req.schemes.len();
    if n == 0 {
        return (Pool::new(vec![Vec::new()], 0), vec![req.clone()]);
    }
    let pool = Pool::new(shares(n, worker_count(hardware, n)), n);
    let requests = split(req, pool.shares());
    (pool, requests)
}

/// Runs `req` as `workers` workers would, one share after the other on this thread (native
/// tests, and the page's native build): the same merged output as the browser's pool.
pub fn run_pooled(
    req: &RunRequest,
    workers: usize,
    mut progress: impl FnMut(RunProgress, &PartialRun),
) -> Result<RunOutput, RunFailure> {
    let (mut pool, requests) = plan(req, workers as f64);
    let mut merged = None;
    for (w, share_req) in requests.iter().enumerate() {
        let out = execute(share_req, |p| {
            let total = pool.progress(w, p);
            progress(total, pool.partial());
        })?;
        merged = pool.finished(w, out);
        progress(pool.total(), pool.partial());
    }
    merged.ok_or_else(|| RunFailure::new("internal", "a worker's share gave no reports"))
}

#[cfg(test)]
#[path = "run_pool_tests.rs"]
mod tests;
