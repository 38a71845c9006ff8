//! The page's side of the run workers: starts fresh `Worker`s per run (relative URL, so the site
//! works from any sub-path), one per share of the schemes (`run_pool.rs`: up to the machine's
//! cores, at most four), turns their messages into `LabAction`s, merges their reports in the order
//! the user chose, and terminates them all on Cancel.
//!
//! ```text
//! start(req) → terminate the old workers → plan: shares → new Worker("./worker_loader.js") each
//!   onmessage "ready" → postMessage(its share's request JSON)
//!   onmessage {"progress":…} → Lab(RunProgress(id, whole)) + Lab(RunPartial(id, per scheme))
//!   onmessage {"done":…} → its reports in place (RunPartial); the last → Lab(RunFinished)
//!   onmessage {"failed":…} → terminate all → Lab(RunFinished(Err))
//! cancel()   → terminate every worker → Lab(Cancel)
//! onerror (a trap: out of memory, a bug) → terminate all → Lab(RunFinished(Err(worker: plain words)))
//! ```
//!
//! A worker that dies (wasm trap, out of memory, a script that fails to load) is reported with what
//! the user can do ([`crashed_message`]); every worker of the run is terminated and forgotten, so
//! the page stays usable and the next run starts fresh ones. For the browser tests, a script may
//! set `window.reglabTestWorkerFault = "trap"`: the next run's first worker is then asked to trap
//! ([`TEST_TRAP_REQUEST`]) instead of running; the flag is consumed by that run. A script may also
//! set `window.reglabWorkers = N` to use N in place of `navigator.hardwareConcurrency` (the
//! browser tests compare one worker with several).

use std::cell::RefCell;
use std::rc::Rc;

use yew::prelude::*;

use crate::lab::LabAction;
use crate::run_job::RunRequest;
use crate::run_pool::SearchCache;
use crate::state::Action;

/// The worker script Trunk writes next to the page (`data-loader-shim`).
pub const WORKER_URL: &str = "./worker_loader.js";

/// The request text that makes the worker trap on purpose (test hook; see the module doc).
pub const TEST_TRAP_REQUEST: &str = "reglab-test:trap";

/// What the page says when the worker died: plain words, what to try, then the browser's own words.
pub fn crashed_message(browser_said: &str) -> String {
    let said = browser_said.trim();
    let said = if said.is_empty() { "no details" } else { said };
    format!(
        "The simulation stopped unexpectedly: its worker crashed, most often because it ran out of \
         memory. Try a smaller grid, fewer schemes or a lower instruction budget. The page still works, and \
         the next run starts a fresh worker. (The browser said: {said}.)"
    )
}

/// Start and cancel callbacks for the run workers.
#[derive(Clone, PartialEq)]
pub struct RunControls {
    /// Sends a run to new workers (one per share of the schemes).
    pub start: Callback<RunRequest>,
    /// Terminates every worker of the running run.
    pub cancel: Callback<()>,
}

/// The running workers, one slot per share (emptied as each is terminated).
#[cfg(target_arch = "wasm32")]
type Held = Vec<Option<(web_sys::Worker, wasm_bindgen::closure::Closure<dyn Fn(web_sys::MessageEvent)>)>>;
#[cfg(not(target_arch = "wasm32"))]
type Held = Vec<Option<()>>;

/// The run workers' controls; `dispatch` receives the run's actions.
#[hook]
pub fn use_run_worker(dispatch: Callback<Action>) -> RunControls {
    let held: Rc<RefCell<Held>> = use_mut_ref(Vec::new);
    let next_id = use_mut_ref(|| 0u64);
    // `compression`'s precision searches of the last kernel and launch, kept between runs.
    let searches: Rc<RefCell<SearchCache>> = use_mut_ref(SearchCache::default);
    let start = {
        let (held, dispatch) = (held.clone(), dispatch.clone());
        Callback::from(move |req: RunRequest| {
            let req = searches.borrow().attach(req);
            let id = {
                let mut n = next_id.borrow_mut();
                *n += 1;
                *n
            };
            stop(&held);
            dispatch.emit(Action::Lab(LabAction::RunStarted(id)));
            imp::spawn(&held, id, &req, &dispatch, &searches);
        })
    };
    let cancel = {
        let held = held.clone();
        Callback::from(move |()| {
            stop(&held);
            dispatch.emit(Action::Lab(LabAction::Cancel));
        })
    };
    {
        let held = held.clone();
        use_effect_with((), move |_| move || stop(&held));
    }
    RunControls { start, cancel }
}

fn stop(held: &Rc<RefCell<Held>>) {
    let workers = std::mem::take(&mut *held.borrow_mut());
    #[cfg(target_arch = "wasm32")]
    for (worker, _closure) in workers.into_iter().flatten() {
        worker.terminate();
    }
    #[cfg(not(target_arch = "wasm32"))]
    drop(workers);
}

#[cfg(target_arch = "wasm32")]
#[path = "worker_pool_web.rs"]
mod imp;

#[cfg(not(target_arch = "wasm32"))]
mod imp {
    use std::cell::RefCell;
    use std::rc::Rc;

    use yew::Callback;

    use super::Held;
    use crate::lab::LabAction;
    use crate::run_job::RunRequest;
    use crate::run_pool::{run_pooled, SearchCache};
    use crate::state::Action;

    /// Natively (tests) the run happens right away, on this thread, as one worker.
    pub fn spawn(
        _held: &Rc<RefCell<Held>>,
        id: u64,
        req: &RunRequest,
        dispatch: &Callback<Action>,
        searches: &Rc<RefCell<SearchCache>>,
    ) {
        let result = run_pooled(req, 1, |p, partial| {
            dispatch.emit(Action::Lab(LabAction::RunProgress(id, p)));
            dispatch.emit(Action::Lab(LabAction::RunPartial(id, Rc::new(partial.clone()))));
        });
        if let Ok(out) = &result {
            searches.borrow_mut().remember(&req.ptx, &req.launch, &out.searches);
        }
        dispatch.emit(Action::Lab(LabAction::RunFinished(id, result.map(Rc::new))));
    }
}

#[cfg(test)]
mod tests {
    use super::crashed_message;

    #[test]
    fn a_crashed_worker_is_explained_with_what_to_try() {
        let m = crashed_message("Uncaught RuntimeError: unreachable");
        for part in ["stopped unexpectedly", "out of memory", "smaller grid", "fewer schemes", "fresh worker"] {
            assert!(m.contains(part), "{part}: {m}");
        }
        assert!(m.ends_with("(The browser said: Uncaught RuntimeError: unreachable.)"), "{m}");
        assert!(crashed_message("  ").ends_with("(The browser said: no details.)"));
    }
}
