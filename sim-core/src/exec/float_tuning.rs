//! Precision tuning of float registers (Angerd et al. TACO'17, as the static compression scheme
//! uses it; `SCHEMES.md` §B): a deterministic greedy search over the kernel's `.f32` registers
//! for the narrowest formats ([`super::float_formats::FORMATS`]) whose outputs stay within a
//! quality threshold on the launch's inputs.
//!
//! ```text
//! reference run (traced): outputs O, dynamic writes per register: %f3 1200, %f1 800, %f2 800
//! %f3: 28 ok, 24 ok, 20 fails → %f3 at 24 · %f1: 28 fails → 32 · %f2: 28 ok, … 8 ok → 8
//! ```
//!
//! Each trial runs with every choice accepted so far plus the one being tried, so the last
//! accepted trial is the whole combination, verified (nothing to back off). After `max_runs`
//! functional runs the search makes only the trials it can prove (below), keeping what it
//! verified. **A**: registers are visited in descending dynamic write count (warp-instructions
//! writing them), ties by declaration order.
//!
//! A trial needs no run when it would repeat the last accepted run exactly: every run records,
//! for each register still to be visited, the narrowest format whose rounding would have stored
//! every value the register was written unchanged ([`super::run::Run::track_exactness`]). A
//! trial lowering the register no further than that stores the same values, so every later
//! instruction, branch and output is the same: it is accepted as proved, with the accepted
//! run's deviation, and counted in [`TuningResult::proved`], not in the runs.
//!
//! ```text
//! %f1 holds 0, 1, …, 31 (exact down to 12 bits; 8 bits end at 15.5): 28 … 12 proved, 8 run
//! ```

use alloc::collections::BTreeMap;
use alloc::vec::Vec;

use super::error::ExecError;
use super::float_formats::FloatFormat;
use super::launch::LaunchSetup;
use super::run::{Run, RunOptions, RunResult};
use super::stream::TraceOptions;
use super::value::Value;
use crate::ir::{Module, Type};

/// How output quality is judged.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum QualityMetric {
    /// Max relative deviation over every output element at most this fraction (0.1 = 10%).
    MaxRelative(f64),
    /// Every output bit-identical.
    Exact,
}

/// Output buffers by parameter index.
type Outputs = BTreeMap<usize, Vec<Value>>;

/// What the search found.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TuningResult {
    /// Per (function raw handle, register raw handle): the chosen format's total bits (32 not
    /// listed).
    pub formats: BTreeMap<(u32, u32), u8>,
    /// Functional runs made, the reference run included.
    pub runs: u32,
    /// The run cap left out a trial that needed a run (the search went on with the trials it
    /// could prove without one).
    pub capped: bool,
    /// Max relative deviation of the accepted combination (0 when none was lowered).
    pub deviation: f64,
    /// Trials whose functional run failed (a fault, the budget, a barrier deadlock: a narrower
    /// value that feeds an address or a loop bound can do that); each is rejected like a trial
    /// whose outputs miss the quality bound, and the search goes on.
    pub faulted: u32,
    /// Registers visited (written `.f32` registers of the kernels).
    pub candidates: u32,
    /// Trials accepted without a functional run: the last accepted run's every write of the
    /// register is stored unchanged by the trial's format, so the trial would repeat that run.
    pub proved: u32,
}

/// Per (function, register): the total bits of the narrowest format that would store every
/// write of a run unchanged ([`super::run::Run::exactness`]).
type Exactness = BTreeMap<(u32, u32), u8>;

/// Outputs of one run of `module` on `setup` with `formats` applied, and its exactness record
/// of the registers `tracked`.
fn outputs(
    module: &Module,
    setup: &LaunchSetup,
    formats: &BTreeMap<(u32, u32), u8>,
    tracked: &[(u32, u32)],
) -> Result<(Outputs, Exactness), ExecError> {
    let mut run = Run::new(module, setup, RunOptions::default())?;
    run.round_float_registers(module, formats);
    run.track_exactness(module, tracked);
    let result = run.run_to_end()?;
    Ok((observed(result), run.exactness(module, tracked)))
}

/// What the search compares of a run: every output buffer, and for an output pointer table the
/// buffers behind it, entry after entry, in place of the table (whose addresses never change).
fn observed(result: RunResult) -> Outputs {
    let mut out = result.outputs;
    for (k, entries) in result.pointees {
        out.insert(k, entries.into_iter().flatten().collect());
    }
    out
}

fn number(v: &Value) -> Option<f64> {
    match v {
        Value::UInt(u) => Some(*u as f64),
        Value::Int(i) => Some(*i as f64),
        Value::Float(f) => Some(*f),
        Value::Single(f) => Some(f64::from(*f)),
        Value::Text(_) => None,
    }
}

/// Max relative deviation of `got` from `reference` (infinite where a zero or non-number
/// changed, or a NaN appeared or vanished).
pub fn max_relative_deviation(reference: &BTreeMap<usize, Vec<Value>>, got: &BTreeMap<usize, Vec<Value>>) -> f64 {
    let mut worst = 0.0f64;
    for (k, r) in reference {
        let Some(g) = got.get(k).filter(|g| g.len() == r.len()) else { return f64::INFINITY };
        for (a, b) in r.iter().zip(g) {
            let d = match (number(a), number(b)) {
                (Some(x), Some(y)) => relative(x, y),
                _ if a == b => 0.0,
                _ => f64::INFINITY,
            };
            worst = worst.max(d);
        }
    }
    worst
}

/// Relative deviation of `y` from `x` (infinite where a zero or an infinity changed, or a NaN
/// appeared or vanished).
fn relative(x: f64, y: f64) -> f64 {
    if x.is_nan() || y.is_nan() {
        return if x.is_nan() && y.is_nan() { 0.0 } else { f64::INFINITY };
    }
    if x == y {
        0.0
    } else if x == 0.0 || x.is_infinite() {
        f64::INFINITY
    } else {
        ((y - x) / x).abs()
    }
}

/// Whether `got` equals `reference` bit for bit (floats compared by their bits).
pub fn exact_match(reference: &BTreeMap<usize, Vec<Value>>, got: &BTreeMap<usize, Vec<Value>>) -> bool {
    let same = |a: &Value, b: &Value| match (a, b) {
        (Value::Single(x), Value::Single(y)) => x.to_bits() == y.to_bits(),
        (Value::Float(x), Value::Float(y)) => x.to_bits() == y.to_bits(),
        _ => a == b,
    };
    reference.len() == got.len()
        && reference
            .iter()
            .all(|(k, r)| got.get(k).is_some_and(|g| g.len() == r.len() && r.iter().zip(g).all(|(a, b)| same(a, b))))
}

/// The `.f32` registers of the kernels (function and register raw handles).
fn float_registers(module: &Module) -> Vec<(u32, u32)> {
    let mut out = Vec::new();
    for (h, f) in module.functions.iter() {
        let Some(body) = &f.body else { continue };
        out.extend(body.regs.iter().filter(|(_, r)| r.ty == Type::F32).map(|(r, _)| (h.raw(), r.raw())));
    }
    out
}

/// What the reference run gives the search.
struct Reference {
    /// Written `.f32` registers of the kernels, by descending dynamic write count (then by
    /// function and declaration order).
    order: Vec<(u32, u32)>,
    /// Its outputs.
    outputs: Outputs,
    /// Its exactness record of every `.f32` register.
    exact: Exactness,
}

/// The traced reference run ([`Reference`]).
fn candidates(module: &Module, setup: &LaunchSetup) -> Result<Reference, ExecError> {
    let trace = TraceOptions { enabled: true, ..TraceOptions::default() };
    let mut run = Run::new(module, setup, RunOptions { trace, ..RunOptions::default() })?;
    let floats = float_registers(module);
    run.track_exactness(module, &floats);
    let mut counts: BTreeMap<(u32, u32), u64> = BTreeMap::new();
    while let Some(cta) = run.next_cta()? {
        let Some(&kernel) = cta.functions.first() else { continue };
        let Some(body) = module.functions.get(kernel).and_then(|f| f.body.as_ref()) else { continue };
        for rec in cta.warps.iter().flat_map(|w| &w.records).filter(|r| r.func == 0) {
            let Some(inst) = body.insts.get(rec.inst) else { continue };
            inst.for_each_def(|reg| {
                if body.regs.get(reg).is_some_and(|r| r.ty == Type::F32) {
                    *counts.entry((kernel.raw(), reg.raw())).or_default() += 1;
                }
            });
        }
    }
    let reference = run.result().map(observed).unwrap_or_default();
    let exact = run.exactness(module, &floats);
    let mut order: Vec<((u32, u32), u64)> = counts.into_iter().collect();
    crate::sorting::sort_by(&mut order, |a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    Ok(Reference { order: order.into_iter().map(|(k, _)| k).collect(), outputs: reference, exact })
}

/// Where a search stands: `run` functional runs made, of at most `of` (the run cap, or one
/// reference run plus a trial per narrower format of every candidate when that is fewer).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct TuningStep {
    /// Functional runs made so far, the reference included.
    pub run: u32,
    /// The most runs the search can make.
    pub of: u32,
}

/// The greedy search on `setup` under `metric`, with at most `max_runs` functional runs.
pub fn tune(
    module: &Module,
    setup: &LaunchSetup,
    metric: QualityMetric,
    max_runs: u32,
) -> Result<TuningResult, ExecError> {
    tune_paired(module, setup, metric, max_runs, &mut |_| {}, None)
}

/// Two functional runs at once, where the caller can (native threads: `reglab run` with a
/// thread to spare); `both` returns once both jobs have run.
pub trait RunBoth {
    /// Runs `a` and `b`, at once or one after the other; `b` only helps (the search runs it
    /// itself when it needs it and `b` did not run).
    fn both(&self, a: &mut (dyn FnMut() + Send), b: &mut (dyn FnMut() + Send));
}

/// A trial that needs a run: register `reg` (the `visit`-th candidate) at `format`, with the
/// formats accepted so far.
#[derive(Clone, Debug, PartialEq)]
struct Trial {
    visit: usize,
    reg: (u32, u32),
    format: FloatFormat,
    formats: BTreeMap<(u32, u32), u8>,
}

/// What a trial's run gave.
type Outcome = Result<(Outputs, Exactness), ExecError>;

/// Where the greedy search stands: the candidate being visited and its format, the result so
/// far and the last accepted run's exactness record.
#[derive(Clone)]
struct Search {
    visit: usize,
    current: FloatFormat,
    res: TuningResult,
    exact: Exactness,
}

const FULL: FloatFormat = FloatFormat { bits: 32, exponent: 8, mantissa: 23 };

impl Search {
    /// Takes the trials that need no run (proved, or past the cap) and returns the next one
    /// that does (`None`: the search is over).
    fn next_trial(&mut self, regs: &[(u32, u32)], max_runs: u32) -> Option<Trial> {
        while let Some(&reg) = regs.get(self.visit) {
            let Some(next) = self.current.narrower() else {
                self.next_register();
                continue;
            };
            if self.exact.get(&reg).is_some_and(|&bits| bits <= next.bits) {
                // The trial would store what the accepted run stored: the same run.
                self.res.formats.insert(reg, next.bits);
                self.res.proved += 1;
                self.current = next;
                continue;
            }
            if self.res.runs >= max_runs {
                // No run left for this trial; later registers may still take proved ones.
                self.res.capped = true;
                self.next_register();
                continue;
            }
            let mut formats = self.res.formats.clone();
            formats.insert(reg, next.bits);
            return Some(Trial { visit: self.visit, reg, format: next, formats });
        }
        None
    }

    fn next_register(&mut self) {
        self.visit += 1;
        self.current = FULL;
    }

    /// Takes `trial`'s run: accepted when its outputs are `within` the bound, else (or when it
    /// failed) the register keeps its format and the next one is visited.
    fn take(&mut self, trial: Trial, outcome: Outcome, within: &dyn Fn(&Outputs) -> (bool, f64)) {
        self.res.runs += 1;
        let Ok((got, got_exact)) = outcome else {
            self.res.faulted += 1;
            return self.next_register();
        };
        let (ok, d) = within(&got);
        if !ok {
            return self.next_register();
        }
        self.res.formats = trial.formats;
        self.res.deviation = d;
        self.exact = got_exact;
        self.current = trial.format;
    }

    /// The trial the search would run after the one [`Search::next_trial`] just gave if that
    /// one were rejected.
    fn after_rejecting(&self, regs: &[(u32, u32)], max_runs: u32) -> Option<Trial> {
        let mut then = self.clone();
        then.res.runs += 1;
        then.next_register();
        then.next_trial(regs, max_runs)
    }
}

/// As [`tune`], telling `progress` before the reference run and after every functional run
/// (the app shows "tuning: run k of N" and can stop the search between two calls); with
/// `pair`, each trial runs beside the one the search would make next if the trial were rejected (most trials are: each register's search ends on one), and
/// that run is taken when it was. The result is the one-at-a-time search's in every field (a
/// run made beside a trial that was accepted is discarded and counts nowhere); only the time
/// differs.
pub fn tune_paired(
    module: &Module,
    setup: &LaunchSetup,
    metric: QualityMetric,
    max_runs: u32,
    progress: &mut dyn FnMut(TuningStep),
    pair: Option<&dyn RunBoth>,
) -> Result<TuningResult, ExecError> {
    progress(TuningStep { run: 0, of: max_runs });
    let Reference { order: regs, outputs: reference, exact } = candidates(module, setup)?;
    let steps = core::iter::successors(FULL.narrower(), |f| f.narrower()).count();
    let of = max_runs.min(u32::try_from(1 + steps * regs.len()).unwrap_or(u32::MAX));
    progress(TuningStep { run: 1, of });
    let res = TuningResult { runs: 1, candidates: regs.len() as u32, ..TuningResult::default() };
    let within = |got: &Outputs| -> (bool, f64) {
        match metric {
            QualityMetric::Exact => (exact_match(&reference, got), 0.0),
            QualityMetric::MaxRelative(limit) => {
                let d = max_relative_deviation(&reference, got);
                (d <= limit, d)
            }
        }
    };
    // The registers visited before a trial's keep their formats: only the rest are recorded.
    let run = |t: &Trial| outputs(module, setup, &t.formats, regs.get(t.visit..).unwrap_or_default());
    let mut search = Search { visit: 0, current: FULL, res, exact };
    // A trial whose run was made beside the last one, with its outcome.
    let mut made: Option<(Trial, Outcome)> = None;
    while let Some(trial) = search.next_trial(&regs, max_runs) {
        let outcome = match made.take() {
            Some((t, o)) if t == trial => o,
            _ => match (pair, search.after_rejecting(&regs, max_runs)) {
                (Some(pair), Some(then)) => {
                    let (mut a, mut b) = (None, None);
                    pair.both(&mut || a = Some(run(&trial)), &mut || b = Some(run(&then)));
                    if let Some(o) = b {
                        made = Some((then, o));
                    }
                    a.unwrap_or_else(|| run(&trial))
                }
                _ => run(&trial),
            },
        };
        search.take(trial, outcome, &within);
        progress(TuningStep { run: search.res.runs, of });
    }
    Ok(search.res)
}

#[cfg(test)]
mod tests {
    use super::{max_relative_deviation, tune, QualityMetric};
    use crate::exec::value::Value;
    use crate::exec::LaunchSetup;
    use alloc::collections::BTreeMap;
    use alloc::vec;

    /// `out[tid] = tid × 0.5 + 1` for 32 threads (`tests/cases/timing/compression_float.ptx`).
    const KERNEL: &str = ".version 7.0\n.target sm_20\n.address_size 64\n\
        .visible .entry k(.param .u64 out)\n{\n.reg .b32 %r<4>;\n.reg .f32 %f<4>;\n.reg .b64 %rd<6>;\n\
        ld.param.u64 %rd1, [out];\ncvta.to.global.u64 %rd2, %rd1;\nmov.u32 %r1, %tid.x;\n\
        cvt.rn.f32.u32 %f1, %r1;\nmul.f32 %f2, %f1, 0f3F000000;\nadd.f32 %f3, %f2, 0f3F800000;\n\
        mul.wide.u32 %rd3, %r1, 4;\nadd.s64 %rd4, %rd2, %rd3;\nst.global.f32 [%rd4], %f3;\nret;\n}\n";
    const LAUNCH: &str = r#"{"kernel": "k", "block": [32], "params": [{"buffer": {"type": "f32", "len": 32}}]}"#;

    /// `out[(tid + 2^23) − 2^23] = tid` (hand-worked in
    /// [`a_trial_that_faults_is_rejected_and_the_search_goes_on`]).
    const FAULTING: &str = ".version 7.0\n.target sm_20\n.address_size 64\n\
        .visible .entry k(.param .u64 out)\n{\n.reg .b32 %r<4>;\n.reg .f32 %f<4>;\n.reg .b64 %rd<6>;\n\
        ld.param.u64 %rd1, [out];\ncvta.to.global.u64 %rd2, %rd1;\nmov.u32 %r1, %tid.x;\n\
        cvt.rn.f32.u32 %f1, %r1;\nadd.f32 %f2, %f1, 0f4B000000;\nsub.f32 %f3, %f2, 0f4B000000;\n\
        cvt.rzi.u32.f32 %r2, %f3;\nmul.wide.u32 %rd3, %r2, 4;\nadd.s64 %rd4, %rd2, %rd3;\n\
        st.global.f32 [%rd4], %f1;\nret;\n}\n";

    /// `kernel` compiled and `launch` parsed (the test fails when either does not).
    fn inputs(kernel: &str, launch: &str) -> Option<(crate::ir::Module, LaunchSetup)> {
        let (module, setup) = (crate::ptx::compile(kernel), LaunchSetup::from_json(launch));
        assert!(module.is_ok() && setup.is_ok(), "{:?}", setup.as_ref().err());
        Some((module.ok()?, setup.ok()?))
    }

    /// The chosen formats' bits, narrowest first.
    fn sorted_bits(r: &super::TuningResult) -> vec::Vec<u8> {
        let mut bits: vec::Vec<u8> = r.formats.values().copied().collect();
        crate::sorting::sort(&mut bits);
        bits
    }

    /// Hand-worked: every register is written once per warp (a tie: declaration order %f1, %f2,
    /// %f3). The reference run's exactness record: %f1 = tid ∈ 0 … 31 needs 4 fraction bits and
    /// exponent 4, exact down to 12 bits (8 bits, 3/4, max 15.5, would overflow); %f2 = 0 … 15.5
    /// in halves, exact down to 8; %f3 = 1 … 16.5 (16.5 needs 5 fraction bits), down to 12.
    /// %f1: 28, 24, 20, 16, 12 proved, 8 run → Inf → out differs: stays at 12 (run 2). %f2: all
    /// six proved (the rejected run changed nothing accepted). %f3: 28 … 12 proved, 8 run → out
    /// differs (run 3). Runs 1 + 1 + 1 = 3, proved 5 + 6 + 5 = 16 — the 19 trials of a search that
    /// runs every one, and the same formats.
    #[test]
    fn greedy_search_finds_the_narrowest_exact_formats() {
        let Some((module, setup)) = inputs(KERNEL, LAUNCH) else { return };
        for metric in [QualityMetric::Exact, QualityMetric::MaxRelative(0.0)] {
            let r = tune(&module, &setup, metric, 64);
            assert!(r.is_ok(), "{r:?}");
            let Ok(r) = r else { return };
            let body = module.functions.values().next().and_then(|f| f.body.as_ref());
            let Some(body) = body else { return };
            let named: BTreeMap<&str, u8> = r
                .formats
                .iter()
                .filter_map(|(&(_, reg), &b)| {
                    let h = body.regs.handles().find(|h| h.raw() == reg)?;
                    Some((body.regs.get(h)?.name.as_str(), b))
                })
                .collect();
            assert_eq!(named, BTreeMap::from([("%f1", 12), ("%f2", 8), ("%f3", 12)]), "{metric:?}");
            assert_eq!((r.runs, r.proved, r.capped, r.candidates, r.deviation), (3, 16, false, 3, 0.0));
        }
        // A cap of 1 run (the reference): %f1's 8-bit and %f3's 8-bit trials are left out, every
        // proved trial is still taken → the same formats, capped.
        let capped = tune(&module, &setup, QualityMetric::Exact, 1);
        assert!(capped.is_ok(), "{capped:?}");
        let Ok(capped) = capped else { return };
        assert_eq!((sorted_bits(&capped), capped.runs, capped.proved, capped.capped), (vec![8, 12, 12], 1, 16, true));
    }

    /// The same kernel writing through a pointer table (`float **out`, Rodinia IMGVF's way): the
    /// search judges the buffer behind the table, not the table's addresses (which never
    /// change: judged alone, every register would pass at 8 bits). Same registers, same
    /// hand-worked formats, runs and proved trials as above.
    #[test]
    fn pointer_table_outputs_are_judged_by_their_buffers() {
        let kernel = KERNEL
            .replace("cvta.to.global.u64 %rd2, %rd1;", "cvta.to.global.u64 %rd5, %rd1;\nld.global.u64 %rd2, [%rd5];");
        let launch = r#"{"kernel": "k", "block": [32], "params": [{"pointers": [{"type": "f32", "len": 32}]}],
            "outputs": [0]}"#;
        let Some((module, setup)) = inputs(&kernel, launch) else { return };
        let r = tune(&module, &setup, QualityMetric::Exact, 64);
        assert!(r.is_ok(), "{r:?}");
        let Ok(r) = r else { return };
        assert_eq!((sorted_bits(&r), r.runs, r.proved), (vec![8, 12, 12], 3, 16));
    }

    /// A narrower format that moves an address out of bounds rejects the trial, it does not end
    /// the search. `out[(tid + 2^23) − 2^23] = tid`: hand-worked, in declaration order (each
    /// register is written once per warp). %f1 = tid as in the kernel above: exact down to 12
    /// bits, so 28 … 12 are proved; at 8 bits (max 15.5) tid ≥ 16 become Inf, so %f3 = Inf,
    /// `cvt.rzi.u32` saturates to 2^32 − 1 and the store faults far past the buffer: run 2,
    /// faulted, %f1 at 12. %f2 = 2^23 + tid needs all 23 fraction bits (no trial proved): at 28
    /// bits (19 fraction bits) it rounds to a multiple of 16, so the stores go to 0, 16 and 32 —
    /// wrong outputs (out[32] lies in the buffer's allocation slack, no fault): rejected, run 3.
    /// %f3 = tid again: 28 … 12 proved, 8 faults as %f1's (run 4). Runs 4, 2 faulted, 10 proved.
    #[test]
    fn a_trial_that_faults_is_rejected_and_the_search_goes_on() {
        let Some((module, setup)) = inputs(FAULTING, LAUNCH) else { return };
        let r = tune(&module, &setup, QualityMetric::Exact, 64);
        assert!(r.is_ok(), "{r:?}");
        let Ok(r) = r else { return };
        assert_eq!((sorted_bits(&r), r.runs, r.faulted, r.proved, r.deviation), (vec![12, 12], 4, 2, 10, 0.0));
        // Capped after %f1's faulting trial: %f2's run is left out, %f3 still proved to 12.
        let capped = tune(&module, &setup, QualityMetric::Exact, 2).map(|r| (sorted_bits(&r), r.runs, r.faulted));
        assert_eq!(capped, Ok((vec![12, 12], 2, 1)));
    }

    /// Runs both jobs one after the other (or only the first), counting the calls.
    struct Counting {
        calls: core::cell::Cell<u32>,
        run_second: bool,
    }

    impl super::RunBoth for Counting {
        fn both(&self, a: &mut (dyn FnMut() + Send), b: &mut (dyn FnMut() + Send)) {
            self.calls.set(self.calls.get() + 1);
            a();
            if self.run_second {
                b();
            }
        }
    }

    /// Two trials at a time give the one-at-a-time result in every field, on the kernels above
    /// under both metrics and with caps. Hand-worked for the first kernel (exact): the trials that
    /// need a run are %f1 at 8 bits and %f3 at 8 bits (above). %f1's runs beside the trial the
    /// search would make if it were rejected: %f2 is proved down to 8 bits without a run, so that
    /// is %f3 at 8. %f1's is rejected, so %f3's run is taken: one paired call, no trial run
    /// alone. For the faulting kernel: %f1 at 8 (faults) beside %f2 at 28 (taken: rejected), then
    /// %f3 at 8 alone (no register after it): one call again. A second job that does not run
    /// (its thread did not start) changes nothing but the time.
    #[test]
    fn two_trials_at_a_time_give_the_same_result() {
        for (kernel, calls) in [(KERNEL, 1), (FAULTING, 1)] {
            let Some((module, setup)) = inputs(kernel, LAUNCH) else { return };
            for metric in [QualityMetric::Exact, QualityMetric::MaxRelative(0.1)] {
                for cap in [1, 2, 3, 64] {
                    let one = tune(&module, &setup, metric, cap);
                    assert!(one.is_ok(), "{one:?}");
                    for run_second in [true, false] {
                        let pair = Counting { calls: core::cell::Cell::new(0), run_second };
                        let mut steps = vec::Vec::new();
                        let two =
                            super::tune_paired(&module, &setup, metric, cap, &mut |s| steps.push(s.run), Some(&pair));
                        assert_eq!(one, two, "{metric:?}, cap {cap}, second run {run_second}");
                        // Progress counts the runs taken, one by one, as the one-at-a-time search's.
                        let runs = two.as_ref().map_or(0, |r| r.runs);
                        assert_eq!(steps, [&[0u32][..], &(1..=runs).collect::<vec::Vec<_>>()].concat());
                        if cap == 64 && metric == QualityMetric::Exact && run_second {
                            assert_eq!(pair.calls.get(), calls, "{kernel:.40} second run {run_second}");
                        }
                    }
                }
            }
        }
    }

    /// Relative deviation: 1 → 1.1 is 10 %; a zero that changes, or a NaN that appears, is
    /// infinite; two NaNs agree.
    #[test]
    fn max_relative_deviation_over_buffers() {
        let m = |v: vec::Vec<Value>| BTreeMap::from([(0usize, v)]);
        let r = m(vec![Value::Single(1.0), Value::Single(-2.0), Value::Single(f32::NAN)]);
        let g = m(vec![Value::Single(1.1), Value::Single(-2.0), Value::Single(f32::NAN)]);
        let d = max_relative_deviation(&r, &g);
        assert!((d - 0.1).abs() < 1e-6, "{d}");
        let z = m(vec![Value::Single(0.0)]);
        assert_eq!(max_relative_deviation(&z, &m(vec![Value::Single(1e-30)])), f64::INFINITY);
        assert_eq!(
            max_relative_deviation(&m(vec![Value::Single(1.0)]), &m(vec![Value::Single(f32::NAN)])),
            f64::INFINITY
        );
    }
}
