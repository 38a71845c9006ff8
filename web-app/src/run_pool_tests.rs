//! Tests of the worker pool's arithmetic and of its determinism: any number of workers gives the
//! reports of one run of all the schemes, byte for byte.

use sim_core::exec::LaunchSetup;
use sim_core::timing::SchemeSpec;

use super::*;
use crate::run_job::{saxpy_request as saxpy, tuning_counters};

fn vector_add(schemes: &[&str]) -> RunRequest {
    let ex = crate::examples::find("vector_add");
    let launch = crate::examples::launch_for("vector_add").and_then(|t| LaunchSetup::from_json(t).ok());
    let mut launch = launch.unwrap_or_else(|| sim_core::exec::propose_launch(&Default::default(), "none"));
    launch.grid = vec![4, 1, 1];
    RunRequest {
        ptx: ex.map_or(String::new(), |e| e.source.into()),
        launch,
        gpu: sim_core::gpu::presets::by_name("fermi-gtx480").unwrap_or_else(|| unreachable!()),
        schemes: schemes.iter().map(|s| SchemeSpec::parse(s).unwrap_or_else(|e| unreachable!("{e}"))).collect(),
        registers_per_thread: None,
        record_values: false,
        quick: false,
        searches: Default::default(),
    }
}

#[test]
fn workers_follow_the_cores_capped_at_four_and_at_the_schemes() {
    // 8 cores, 6 schemes → the cap, 4; 2 cores → 2; a browser that says 0 or nothing → 1.
    assert_eq!(worker_count(8.0, 6), 4);
    assert_eq!(worker_count(2.0, 6), 2);
    assert_eq!(worker_count(0.0, 6), 1);
    assert_eq!(worker_count(f64::NAN, 3), 1);
    // Never more workers than schemes, never none.
    assert_eq!(worker_count(16.0, 1), 1);
    assert_eq!(worker_count(4.0, 0), 1);
}

#[test]
fn schemes_are_dealt_round_robin() {
    assert_eq!(shares(5, 2), vec![vec![0, 2, 4], vec![1, 3]]);
    assert_eq!(shares(2, 4), vec![vec![0], vec![1]]);
    assert_eq!(shares(3, 1), vec![vec![0, 1, 2]]);
}

/// `composite` needs value summaries, the others do not: a share without it must still record
/// them, or its reports' `values` would differ from the one-run reports.
#[test]
fn any_number_of_workers_gives_the_one_run_reports_byte_for_byte() {
    let req = vector_add(&["baseline", "composite", "rfc-ob", "no-bank-conflicts", "baseline:collector_units=4"]);
    let shares_of_two = split(&req, &shares(5, 2));
    assert!(shares_of_two.iter().all(|r| r.record_values));
    assert_eq!(
        shares_of_two[1].schemes.iter().map(SchemeSpec::label).collect::<Vec<_>>(),
        ["composite", "no-bank-conflicts"]
    );
    let json = |workers| {
        let out = run_pooled(&req, workers, |_, _| {}).unwrap_or_else(|f| unreachable!("{f:?}"));
        serde_json::to_string_pretty(&out.reports).unwrap_or_default()
    };
    let one = json(1);
    let labels: Vec<String> =
        run_pooled(&req, 3, |_, _| {}).map(|o| o.reports).unwrap_or_default().into_iter().map(|r| r.scheme).collect();
    assert_eq!(labels, ["baseline", "composite", "rfc-ob", "no-bank-conflicts", "baseline:collector_units=4"]);
    assert!(one.len() > 1000);
    assert_eq!(json(2), one);
    assert_eq!(json(4), one);
}

/// Vector add over `n` elements on `ctas` CTAs of 256 threads, one SM of fermi-gtx480.
fn quick_vector_add(ctas: u32, n: u32) -> RunRequest {
    let mut req = vector_add(&["baseline", "virtual-thread", "rfc-ob"]);
    let spec = format!(
        r#"{{"kernel": "_Z6vecAddPKfS0_Pfi", "grid": [{ctas}], "block": [256],
            "params": [{{"buffer": {{"type": "f32", "len": {n}, "init": "random:1"}}}},
                       {{"buffer": {{"type": "f32", "len": {n}, "init": "random:2"}}}},
                       {{"buffer": {{"type": "f32", "len": {n}, "init": "zeros"}}}},
                       {{"scalar": {{"type": "s32", "value": {n}}}}}]}}"#
    );
    req.launch = LaunchSetup::from_json(&spec).unwrap_or_else(|e| unreachable!("{e}"));
    req.gpu.core.sm_count = 1;
    req.quick = true;
    req
}

/// Runs `req` in one worker and in two: the same reports, each with the sample `expected`
/// (CTAs timed, every, CTAs in all, refinements); gives the reports.
fn same_sample_in_one_or_two_workers(req: &RunRequest, expected: (u64, u64, u64, u32)) -> Vec<Report> {
    let one = run_pooled(req, 1, |_, _| {}).unwrap_or_else(|f| unreachable!("{f:?}")).reports;
    let two = run_pooled(req, 2, |_, _| {}).unwrap_or_else(|f| unreachable!("{f:?}")).reports;
    assert_eq!(one, two);
    for r in &one {
        let sample = r.sample.as_ref().map(|s| (s.simulated_ctas, s.every, s.total_ctas, s.refinements));
        assert_eq!(sample, Some(expected), "{}", r.scheme);
    }
    one
}

/// Quick mode samples the same CTAs whichever schemes a worker holds (virtual-thread admits more
/// CTAs than the slots; the sample does not follow it): vector add over 51 200 elements (every
/// CTA works), 200 CTAs of 256 threads on one SM of fermi-gtx480 (1536 threads → 6 CTAs per SM)
/// → 3 waves = 18: one wave of 6 in every 200 / 18 = 11 waves (66 CTAs): 3 × 6 + the 2 CTAs
/// left of the fourth = 20 of 200, in one run or in two workers alike; its waves agree, so it is
/// not refined.
#[test]
fn quick_runs_sample_the_same_ctas_in_any_worker() {
    let req = quick_vector_add(200, 200 * 256);
    same_sample_in_one_or_two_workers(&req, (20, 11, 200, 0));
}

/// Over 4 096 elements only CTAs 0–15 work, so the 3-wave sample (CTAs 0–5 work, 66–71, 132–137
/// and 198–199 do not) spreads far over 10%: timed again with 6 waves (every 200 / 36 = 5: 6
/// periods of 30 CTAs → 36 + 6 = 42 CTAs), still spread (only its first wave works), then with
/// 12 (every 200 / 72 = 2: 16 periods of 12 → 96 + 6 = 102 CTAs), the last refinement. The
/// same in one worker or two.
#[test]
fn quick_runs_refine_a_sample_that_does_not_settle_alike_in_any_worker() {
    let req = quick_vector_add(200, 4096);
    let one = same_sample_in_one_or_two_workers(&req, (102, 2, 200, 2));
    let lines = sim_core::timing::summary::quick_lines(&one);
    assert!(
        lines.iter().all(
            |(_, l)| l.contains("(the sample of 4 times the waves asked for: the smaller ones spread 10% or more)")
        ),
        "{lines:?}"
    );
}

#[test]
fn progress_is_per_scheme_and_reports_arrive_per_worker() {
    let req = vector_add(&["baseline", "rfc-ob", "no-bank-conflicts"]);
    let mut seen: Vec<(Vec<f64>, Vec<bool>)> = Vec::new();
    let out =
        run_pooled(&req, 2, |_, p| seen.push((p.fractions.clone(), p.reports.iter().map(Option::is_some).collect())));
    let out = out.unwrap_or_else(|f| unreachable!("{f:?}"));
    // Worker 0 (schemes 0 and 2) finishes first here: then only its two reports are in.
    assert!(seen.contains(&(vec![1.0, 0.0, 1.0], vec![true, false, true])), "{seen:?}");
    assert_eq!(seen.last(), Some(&(vec![1.0, 1.0, 1.0], vec![true, true, true])));
    // The host time is summed: two functional runs of the same CTAs.
    let alone = execute(&vector_add(&["baseline"]), |_| {}).unwrap_or_default();
    assert_eq!(out.host.executor_warp_instructions, 2 * alone.host.executor_warp_instructions);
    assert_eq!(out.host.timing_warp_instructions, 3 * alone.host.timing_warp_instructions);
}

#[test]
fn the_whole_progress_is_the_mean_of_the_schemes() {
    let mut pool = Pool::new(shares(3, 2), 3);
    // Worker 0 holds schemes 0 and 2, worker 1 scheme 1: (0.5 + 0.2 + 0.5) / 3 = 0.4.
    pool.progress(0, RunProgress { fraction: 0.5, warp_instructions: 100, cycles: 40, tuning: None });
    let p = pool.progress(1, RunProgress { fraction: 0.2, warp_instructions: 30, cycles: 90, tuning: None });
    assert!((p.fraction - 0.4).abs() < 1e-12, "{p:?}");
    assert_eq!((p.warp_instructions, p.cycles), (130, 90));
    assert_eq!(pool.partial().workers, 2);
    assert_eq!(pool.partial().fractions, [0.5, 0.2, 0.5]);
}

#[test]
fn a_failing_share_fails_the_run() {
    let mut req = vector_add(&["baseline", "baseline:banks=0"]);
    let failure = run_pooled(&req, 2, |_, _| {}).err();
    assert_eq!(failure.map(|f| f.kind), Some("scheme".to_owned()));
    req.schemes.clear();
    assert_eq!(run_pooled(&req, 2, |_, _| {}).err().map(|f| f.kind), Some("scheme".to_owned()));
}

/// Progress messages of a precision search while `req` ran on `workers` workers, and the
/// output.
fn tuning_runs(req: &RunRequest, workers: usize) -> (usize, RunOutput) {
    let mut steps = 0;
    let out = run_pooled(req, workers, |p, _| steps += usize::from(p.tuning.is_some()));
    assert!(out.is_ok(), "{:?}", out.err());
    (steps, out.unwrap_or_default())
}

#[test]
fn the_page_searches_once_for_runs_of_the_same_kernel_and_launch() {
    let mut cache = SearchCache::default();
    // First run: two workers, compression in one share; the search tells its steps.
    let first = cache.attach(saxpy(&["baseline", "compression"]));
    let (steps, out) = tuning_runs(&first, 2);
    assert!(steps > 0);
    assert_eq!(out.host.kept_searches, 0);
    assert_eq!(out.searches.len(), 1);
    cache.remember(&first.ptx, &first.launch, &out.searches);
    assert_eq!(cache.len(), 1);
    // Next run: another write-back delay and GPU, one worker: no search, the same result.
    let mut next = saxpy(&["compression:writeback_delay=8"]);
    next.gpu = sim_core::gpu::presets::by_name("volta-v100").unwrap_or_else(|| unreachable!());
    let next = cache.attach(next);
    assert_eq!(next.searches.len(), 1);
    // The request travels to the worker as JSON and reads back the same.
    let text = serde_json::to_string(&next).unwrap_or_default();
    assert_eq!(serde_json::from_str::<RunRequest>(&text).ok().as_ref(), Some(&next));
    let (steps, again) = tuning_runs(&next, 1);
    assert_eq!((steps, again.host.kept_searches), (0, 1), "the kept search is taken");
    assert!(again.host.summary().contains("taken from an earlier run"));
    let (kept, fresh) = (tuning_counters(&again.reports[0]), tuning_counters(&out.reports[1]));
    assert!(kept.iter().any(|(n, v)| n == "tuning_runs" && *v == 4), "{kept:?}");
    assert_eq!(kept, fresh);
    // ... and gives the report a run without the cache gives, byte for byte.
    let (_, uncached) = tuning_runs(&saxpy(&["compression:writeback_delay=8"]), 1);
    let volta = |mut r: RunRequest| {
        r.gpu = sim_core::gpu::presets::by_name("volta-v100").unwrap_or_else(|| unreachable!());
        r
    };
    let (_, uncached_volta) = tuning_runs(&volta(saxpy(&["compression:writeback_delay=8"])), 1);
    assert_ne!(uncached.reports, uncached_volta.reports);
    assert_eq!(
        serde_json::to_string(&again.reports).unwrap_or_default(),
        serde_json::to_string(&uncached_volta.reports).unwrap_or_default()
    );
    // Another search (10 % loss) is made and kept beside the first.
    let looser = cache.attach(saxpy(&["compression:quality_loss=10"]));
    let (steps, out) = tuning_runs(&looser, 1);
    assert!(steps > 0);
    cache.remember(&looser.ptx, &looser.launch, &out.searches);
    assert_eq!(cache.len(), 2);
    // Another launch setup (a different input) is another module's search: none is attached,
    // and a run that searches there starts the cache afresh.
    let mut other = saxpy(&["compression"]);
    other.launch.budget = Some(50_000_000);
    let other = cache.attach(other);
    assert!(other.searches.is_empty());
    let (steps, out) = tuning_runs(&other, 1);
    assert!(steps > 0);
    cache.remember(&other.ptx, &other.launch, &out.searches);
    assert_eq!(cache.len(), 1);
    // A run without compression keeps what is kept.
    let (_, plain) = tuning_runs(&saxpy(&["baseline"]), 1);
    cache.remember(&first.ptx, &first.launch, &plain.searches);
    assert_eq!(cache.len(), 1);
}
