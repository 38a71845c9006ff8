//! The page's side of the run worker: starts a fresh `Worker` per run (relative URL, so the site
//! works from any sub-path), turns its messages into `LabAction`s, and terminates it on Cancel.
//!
//! ```text
//! start(req) → terminate the old worker → new Worker("./worker_loader.js")
//!   onmessage {"type":"ready"} → postMessage(request JSON)
//!   onmessage {"type":"progress"…} → Lab(RunProgress(id, p)); {"type":"done"…} → Lab(RunFinished)
//! cancel()   → worker.terminate() → Lab(Cancel)
//! onerror (a trap: out of memory, a bug) → terminate → Lab(RunFinished(Err(worker: plain words)))
//! ```
//!
//! A worker that dies (wasm trap, out of memory, a script that fails to load) is reported with what
//! the user can do ([`crashed_message`]); it is terminated and forgotten, so the page stays usable
//! and the next run starts a fresh one. For the browser tests, a script may set
//! `window.reglabTestWorkerFault = "trap"`: the next run's worker is then asked to trap
//! ([`TEST_TRAP_REQUEST`]) instead of running; the flag is consumed by that run.

use std::cell::RefCell;
use std::rc::Rc;

use yew::prelude::*;

use crate::lab::LabAction;
use crate::run_job::RunRequest;
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

/// Start and cancel callbacks for the run worker.
#[derive(Clone, PartialEq)]
pub struct RunControls {
    /// Sends a run to a new worker.
    pub start: Callback<RunRequest>,
    /// Terminates the running worker.
    pub cancel: Callback<()>,
}

#[cfg(target_arch = "wasm32")]
type Held = Option<(web_sys::Worker, wasm_bindgen::closure::Closure<dyn Fn(web_sys::MessageEvent)>)>;
#[cfg(not(target_arch = "wasm32"))]
type Held = Option<()>;

/// The run worker's controls; `dispatch` receives the run's actions.
#[hook]
pub fn use_run_worker(dispatch: Callback<Action>) -> RunControls {
    let held: Rc<RefCell<Held>> = use_mut_ref(|| None);
    let next_id = use_mut_ref(|| 0u64);
    let start = {
        let (held, dispatch) = (held.clone(), dispatch.clone());
        Callback::from(move |req: RunRequest| {
            let id = {
                let mut n = next_id.borrow_mut();
                *n += 1;
                *n
            };
            stop(&held);
            dispatch.emit(Action::Lab(LabAction::RunStarted(id)));
            imp::spawn(&held, id, &req, &dispatch);
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
    #[cfg(target_arch = "wasm32")]
    if let Some((worker, _closure)) = held.borrow_mut().take() {
        worker.terminate();
    }
    #[cfg(not(target_arch = "wasm32"))]
    held.borrow_mut().take();
}

#[cfg(target_arch = "wasm32")]
mod imp {
    use std::cell::RefCell;
    use std::rc::Rc;

    use wasm_bindgen::closure::Closure;
    use wasm_bindgen::{JsCast, JsValue};
    use web_sys::{MessageEvent, Worker};
    use yew::Callback;

    use super::{Held, TEST_TRAP_REQUEST, WORKER_URL};
    use crate::lab::LabAction;
    use crate::run_job::{RunFailure, RunRequest, WorkerReply};
    use crate::state::Action;

    pub fn spawn(held: &Rc<RefCell<Held>>, id: u64, req: &RunRequest, dispatch: &Callback<Action>) {
        let fail = |m: String| {
            let f = RunFailure::new("worker", m);
            dispatch.emit(Action::Lab(LabAction::RunFinished(id, Err(f))));
        };
        let worker = match Worker::new(WORKER_URL) {
            Ok(w) => w,
            Err(e) => return fail(format!("cannot start the worker: {e:?}")),
        };
        let d = dispatch.clone();
        let done = held.clone();
        let request = if take_test_fault() {
            TEST_TRAP_REQUEST.to_owned()
        } else {
            serde_json::to_string(req).unwrap_or_default()
        };
        let me = worker.clone();
        let onmessage = Closure::<dyn Fn(MessageEvent)>::new(move |event: MessageEvent| {
            let text = event.data().as_string().unwrap_or_default();
            let action = match serde_json::from_str::<WorkerReply>(&text) {
                Ok(WorkerReply::Ready) => match me.post_message(&JsValue::from_str(&request)) {
                    Ok(()) => return,
                    Err(e) => LabAction::RunFinished(
                        id,
                        Err(RunFailure::new("worker", format!("cannot send the run: {e:?}"))),
                    ),
                },
                Ok(WorkerReply::Progress(p)) => LabAction::RunProgress(id, p),
                Ok(WorkerReply::Done(out)) => LabAction::RunFinished(id, Ok(Rc::new(out))),
                Ok(WorkerReply::Failed(f)) => LabAction::RunFinished(id, Err(f)),
                Err(e) => LabAction::RunFinished(id, Err(RunFailure::new("worker", format!("bad reply: {e}")))),
            };
            let last = !matches!(action, LabAction::RunProgress(..));
            d.emit(Action::Lab(action));
            if last {
                // The run is over: free the worker's memory.
                release(&done);
            }
        });
        worker.set_onmessage(Some(onmessage.as_ref().unchecked_ref()));
        let d = dispatch.clone();
        let dead = held.clone();
        let onerror = Closure::<dyn Fn(web_sys::ErrorEvent)>::new(move |e: web_sys::ErrorEvent| {
            // Handled here: not also an uncaught error of the page.
            e.prevent_default();
            // A trapped worker's wasm is unusable: terminate it so the next run starts afresh.
            release(&dead);
            let f = RunFailure::new("worker", super::crashed_message(&e.message()));
            d.emit(Action::Lab(LabAction::RunFinished(id, Err(f))));
        });
        worker.set_onerror(Some(onerror.as_ref().unchecked_ref()));
        // Small and once per run; it must outlive the worker's last event.
        onerror.forget();
        *held.borrow_mut() = Some((worker, onmessage));
    }

    /// Terminates and forgets the held worker (from inside one of its own events).
    fn release(held: &Rc<RefCell<Held>>) {
        if let Ok(mut h) = held.try_borrow_mut() {
            if let Some((w, c)) = h.take() {
                w.terminate();
                // Dropping the running closure would be unsound for wasm-bindgen: keep it.
                c.forget();
            }
        }
    }

    /// True once if a test script asked for a failing worker (`window.reglabTestWorkerFault`).
    fn take_test_fault() -> bool {
        let Some(window) = web_sys::window() else { return false };
        let key = JsValue::from_str("reglabTestWorkerFault");
        let asked = js_sys::Reflect::get(&window, &key).ok().and_then(|v| v.as_string());
        if asked.is_some() {
            let _ = js_sys::Reflect::delete_property(&window, &key);
        }
        asked.as_deref() == Some("trap")
    }
}

#[cfg(not(target_arch = "wasm32"))]
mod imp {
    use std::cell::RefCell;
    use std::rc::Rc;

    use yew::Callback;

    use super::Held;
    use crate::lab::LabAction;
    use crate::run_job::{execute, RunRequest};
    use crate::state::Action;

    /// Natively (tests) the run happens right away, on this thread.
    pub fn spawn(_held: &Rc<RefCell<Held>>, id: u64, req: &RunRequest, dispatch: &Callback<Action>) {
        let result = execute(req, |p| dispatch.emit(Action::Lab(LabAction::RunProgress(id, p)))).map(Rc::new);
        dispatch.emit(Action::Lab(LabAction::RunFinished(id, result)));
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
