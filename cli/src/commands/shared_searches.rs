//! `compression`'s precision searches shared by the threads of one `reglab run` (one `reglab
//! sweep`): each job is a simulation of its own, but a search depends only on the module, the
//! launch and what [`SearchKey`] names, so the first job that needs a search makes it and every
//! other job asking for the same one takes its result — also a job on another thread, which
//! waits while the search is under way rather than making it a second time. The search is
//! deterministic, so a report does not depend on which job searched.
//!
//! A job with a thread to spare (one scheme on two cores) makes its search two trials at a time
//! ([`ThreadPair`], `sim_core::exec::float_tuning::tune_paired`): each trial beside the one the
//! search would make next if it were rejected; the same result, sooner.
//!
//! ```text
//! sweep compression:writeback_delay=0,2,4,8, 2 threads:
//!   thread 0: delay=0 claims the search, searches (25 runs), publishes, is timed; delay=4 takes it
//!   thread 1: delay=2 waits for it, takes it, is timed; delay=8 takes it
//! ```

use std::sync::{Condvar, Mutex, MutexGuard};

use sim_core::exec::float_tuning::RunBoth;
use sim_core::exec::LaunchSetup;
use sim_core::gpu::GpuConfig;
use sim_core::ir::Module;
use sim_core::timing::regfile::compression_report::{search_of, tuning_remembered, SearchKey, TuningMemo};
use sim_core::timing::{SchemeSpec, TimingOptions};

/// Two functional runs on two threads (the second on a scoped thread of its own; not run at all
/// if that thread cannot be started).
pub struct ThreadPair;

impl RunBoth for ThreadPair {
    fn both(&self, a: &mut (dyn FnMut() + Send), b: &mut (dyn FnMut() + Send)) {
        std::thread::scope(|scope| {
            let other = std::thread::Builder::new().name(String::from("reglab-trial")).spawn_scoped(scope, b);
            a();
            // A trial that could not start, or panicked, leaves its slot empty: the search runs
            // it itself when it needs it.
            if let Ok(h) = other {
                let _ = h.join();
            }
        });
    }
}

/// The searches made so far and those under way.
#[derive(Default)]
struct State {
    done: TuningMemo,
    under_way: Vec<SearchKey>,
}

/// The searches of one run's jobs.
#[derive(Default)]
pub struct SharedSearches {
    state: Mutex<State>,
    published: Condvar,
}

/// A job's claim on the searches it makes itself: released (the waiting jobs woken) when the job
/// publishes what it found, or when it ends without (its search failed: a waiting job then
/// searches and meets the same failure).
pub struct Claim<'a> {
    shared: &'a SharedSearches,
    keys: Vec<SearchKey>,
}

impl SharedSearches {
    fn lock(&self) -> MutexGuard<'_, State> {
        // A thread that panicked while holding the lock left the state whole (every change is
        // one push or one merge).
        self.state.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// For a job timing `specs` on `gpu` under `options`: the searches it can take (waiting for
    /// those another job is making) and its claim on the ones it must make.
    pub fn enter(&self, specs: &[SchemeSpec], gpu: &GpuConfig, options: &TimingOptions) -> (TuningMemo, Claim<'_>) {
        let mut keys: Vec<SearchKey> = Vec::new();
        // A config that does not resolve fails in the simulation, with its message.
        for key in specs.iter().filter_map(|s| search_of(s, gpu, &options.energy)) {
            if !keys.contains(&key) {
                keys.push(key);
            }
        }
        let mut state = self.lock();
        while keys.iter().any(|k| state.done.get(k).is_none() && state.under_way.contains(k)) {
            state = self.published.wait(state).unwrap_or_else(std::sync::PoisonError::into_inner);
        }
        let mine: Vec<SearchKey> = keys.into_iter().filter(|k| state.done.get(k).is_none()).collect();
        state.under_way.extend(mine.iter().copied());
        (state.done.clone(), Claim { shared: self, keys: mine })
    }
}

impl Claim<'_> {
    /// Makes the claimed searches that `specs` ask for into `memo` now, two trials at a time
    /// ([`ThreadPair`]), before the job's simulation is built (which then takes them). A search
    /// that fails is left to the simulation, which meets the failure again and reports it.
    pub fn search_paired(
        &self,
        specs: &[SchemeSpec],
        (module, setup): (&Module, &LaunchSetup),
        gpu: &GpuConfig,
        options: &TimingOptions,
        memo: &mut TuningMemo,
    ) {
        for spec in specs {
            let Some(key) = search_of(spec, gpu, &options.energy) else { continue };
            if !self.keys.contains(&key) || memo.get(&key).is_some() {
                continue;
            }
            if let Ok(r) = spec.resolve(gpu, &options.energy) {
                let _ = tuning_remembered(&r.config, module, Some(setup), &mut |_| {}, memo, Some(&ThreadPair));
            }
        }
    }

    /// Publishes the searches in `memo` (the job's, after its simulation was built) and releases
    /// the claim; later calls add what is new.
    pub fn publish(&mut self, memo: &TuningMemo) {
        let mut state = self.shared.lock();
        state.done.merge(memo);
        self.release(&mut state);
    }

    fn release(&mut self, state: &mut State) {
        if self.keys.is_empty() {
            return;
        }
        state.under_way.retain(|k| !self.keys.contains(k));
        self.keys.clear();
        self.shared.published.notify_all();
    }
}

impl Drop for Claim<'_> {
    fn drop(&mut self) {
        let shared = self.shared;
        let mut state = shared.lock();
        self.release(&mut state);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sim_core::exec::float_tuning::TuningResult;

    fn setup() -> (GpuConfig, TimingOptions) {
        let Some(gpu) = sim_core::gpu::presets::by_name("fermi-gtx480") else { unreachable!("a preset") };
        (gpu, TimingOptions::default())
    }

    fn spec(s: &str) -> SchemeSpec {
        SchemeSpec::parse(s).unwrap_or_default()
    }

    /// The search `s` asks for.
    fn key(s: &str) -> SearchKey {
        let (gpu, options) = setup();
        let r = search_of(&spec(s), &gpu, &options.energy);
        assert!(r.is_some(), "{s}");
        r.unwrap_or(SearchKey { metric: sim_core::exec::float_tuning::QualityMetric::Exact, cap: 0 })
    }

    #[test]
    fn a_second_job_waits_for_the_search_under_way_and_takes_it() {
        let (gpu, options) = setup();
        let shared = SharedSearches::default();
        let first = [spec("compression:writeback_delay=0"), spec("baseline")];
        let (memo, mut claim) = shared.enter(&first, &gpu, &options);
        assert!(memo.is_empty());
        assert_eq!(claim.keys, [key("compression")]);
        // No search, or another search: nothing to wait for.
        let (_, other) = shared.enter(&[spec("rfc-ob"), spec("compression:quality_loss=10")], &gpu, &options);
        assert_eq!(other.keys, [key("compression:quality_loss=10")]);
        std::thread::scope(|scope| {
            let waiter = scope.spawn(|| {
                let (memo, claim) = shared.enter(&[spec("compression:slice_bits=8")], &gpu, &options);
                (memo.get(&key("compression")).map(|r| r.runs), claim.keys.len())
            });
            // The waiter cannot have taken anything yet: the search is under way.
            std::thread::sleep(std::time::Duration::from_millis(50));
            assert!(!waiter.is_finished());
            let mut found = TuningMemo::default();
            found.insert(key("compression"), TuningResult { runs: 25, ..TuningResult::default() });
            claim.publish(&found);
            assert_eq!(waiter.join().ok(), Some((Some(25), 0)));
        });
    }

    #[test]
    fn a_job_whose_search_failed_lets_the_next_one_search() {
        let (gpu, options) = setup();
        let shared = SharedSearches::default();
        let (_, claim) = shared.enter(&[spec("compression")], &gpu, &options);
        std::thread::scope(|scope| {
            let waiter = scope.spawn(|| shared.enter(&[spec("compression")], &gpu, &options).1.keys.len());
            std::thread::sleep(std::time::Duration::from_millis(50));
            // The first job ends without publishing (its simulation failed to build).
            drop(claim);
            assert_eq!(waiter.join().ok(), Some(1), "the waiter claims the search itself");
        });
        // Tuning off, or an invalid config: no search to claim.
        let (_, none) =
            shared.enter(&[spec("compression:float_tuning=false"), spec("compression:banks=0")], &gpu, &options);
        assert!(none.keys.is_empty());
    }
}
