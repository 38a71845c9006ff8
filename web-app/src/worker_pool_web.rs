//! The browser side of the worker pool (`worker_client.rs` documents the messages): one `Worker`
//! per share of [`crate::run_pool::plan`], their replies merged by one shared [`Pool`].

use std::cell::RefCell;
use std::rc::Rc;

use wasm_bindgen::closure::Closure;
use wasm_bindgen::{JsCast, JsValue};
use web_sys::{MessageEvent, Worker};
use yew::Callback;

use super::{Held, TEST_TRAP_REQUEST, WORKER_URL};
use crate::lab::LabAction;
use crate::run_job::{RunFailure, RunRequest, WorkerReply};
use crate::run_pool::{plan, Pool, SearchCache};
use crate::state::Action;
use sim_core::exec::LaunchSetup;

/// One run's workers and what they share.
struct Run {
    id: u64,
    held: Rc<RefCell<Held>>,
    pool: Rc<RefCell<Pool>>,
    dispatch: Callback<Action>,
    /// Where the run's precision searches are kept for the next run, and its kernel and launch.
    searches: Rc<RefCell<SearchCache>>,
    kernel: (String, LaunchSetup),
}

/// Starts the workers of run `id` for `req`; its precision searches go to `searches`.
pub fn spawn(
    held: &Rc<RefCell<Held>>,
    id: u64,
    req: &RunRequest,
    dispatch: &Callback<Action>,
    searches: &Rc<RefCell<SearchCache>>,
) {
    let (pool, requests) = plan(req, hardware());
    let run = Rc::new(Run {
        id,
        held: held.clone(),
        pool: Rc::new(RefCell::new(pool)),
        dispatch: dispatch.clone(),
        searches: searches.clone(),
        kernel: (req.ptx.clone(), req.launch.clone()),
    });
    let trap = take_test_fault();
    *held.borrow_mut() = requests.iter().map(|_| None).collect();
    for (w, share) in requests.iter().enumerate() {
        let request = if trap && w == 0 {
            TEST_TRAP_REQUEST.to_owned()
        } else {
            serde_json::to_string(share).unwrap_or_default()
        };
        if let Err(m) = spawn_one(&run, w, request) {
            release(&run.held);
            return run.emit(LabAction::RunFinished(id, Err(RunFailure::new("worker", m))));
        }
    }
}

impl Run {
    fn emit(&self, action: LabAction) {
        self.dispatch.emit(Action::Lab(action));
    }

    /// Handles worker `w`'s reply.
    fn reply(&self, w: usize, me: &Worker, request: &str, reply: Result<WorkerReply, String>) {
        let id = self.id;
        let fail = |m: String| LabAction::RunFinished(id, Err(RunFailure::new("worker", m)));
        let action = match reply {
            Ok(WorkerReply::Ready) => match me.post_message(&JsValue::from_str(request)) {
                Ok(()) => return,
                Err(e) => fail(format!("cannot send the run: {e:?}")),
            },
            Ok(WorkerReply::Progress(p)) => {
                let (total, partial) = {
                    let mut pool = self.pool.borrow_mut();
                    let total = pool.progress(w, p);
                    (total, Rc::new(pool.partial().clone()))
                };
                self.emit(LabAction::RunPartial(id, partial));
                return self.emit(LabAction::RunProgress(id, total));
            }
            Ok(WorkerReply::Done(out)) => {
                let (merged, partial) = {
                    let mut pool = self.pool.borrow_mut();
                    let merged = pool.finished(w, out);
                    (merged, Rc::new(pool.partial().clone()))
                };
                self.emit(LabAction::RunPartial(id, partial));
                match merged {
                    Some(all) => {
                        if let Ok(mut kept) = self.searches.try_borrow_mut() {
                            kept.remember(&self.kernel.0, &self.kernel.1, &all.searches);
                        }
                        LabAction::RunFinished(id, Ok(Rc::new(all)))
                    }
                    None => {
                        // This share is done: free its worker's memory; the others go on.
                        return release_one(&self.held, w);
                    }
                }
            }
            Ok(WorkerReply::Failed(f)) => LabAction::RunFinished(id, Err(f)),
            Ok(WorkerReply::Diff(_) | WorkerReply::Kernel(_)) => fail("bad reply: another job's answer".into()),
            Err(e) => fail(format!("bad reply: {e}")),
        };
        self.emit(action);
        // The run is over (finished or failed): free every worker's memory.
        release(&self.held);
    }
}

fn spawn_one(run: &Rc<Run>, w: usize, request: String) -> Result<(), String> {
    let worker = Worker::new(WORKER_URL).map_err(|e| format!("cannot start the worker: {e:?}"))?;
    let (me, r) = (worker.clone(), run.clone());
    let onmessage = Closure::<dyn Fn(MessageEvent)>::new(move |event: MessageEvent| {
        let text = event.data().as_string().unwrap_or_default();
        let reply = serde_json::from_str::<WorkerReply>(&text).map_err(|e| e.to_string());
        r.reply(w, &me, &request, reply);
    });
    worker.set_onmessage(Some(onmessage.as_ref().unchecked_ref()));
    let r = run.clone();
    let onerror = Closure::<dyn Fn(web_sys::ErrorEvent)>::new(move |e: web_sys::ErrorEvent| {
        // Handled here: not also an uncaught error of the page.
        e.prevent_default();
        // A trapped worker's wasm is unusable: terminate them all so the next run starts afresh.
        release(&r.held);
        let f = RunFailure::new("worker", super::crashed_message(&e.message()));
        r.emit(LabAction::RunFinished(r.id, Err(f)));
    });
    worker.set_onerror(Some(onerror.as_ref().unchecked_ref()));
    // Small and once per worker; it must outlive the worker's last event.
    onerror.forget();
    if let Some(slot) = run.held.borrow_mut().get_mut(w) {
        *slot = Some((worker, onmessage));
    }
    Ok(())
}

/// Terminates and forgets every held worker (from inside one of their own events).
fn release(held: &Rc<RefCell<Held>>) {
    let workers = match held.try_borrow_mut() {
        Ok(mut h) => std::mem::take(&mut *h),
        Err(_) => return,
    };
    for (w, c) in workers.into_iter().flatten() {
        w.terminate();
        // Dropping a running closure would be unsound for wasm-bindgen: keep them.
        c.forget();
    }
}

/// Terminates and forgets worker `w` (from inside its own event).
fn release_one(held: &Rc<RefCell<Held>>, w: usize) {
    if let Ok(mut h) = held.try_borrow_mut() {
        if let Some((worker, c)) = h.get_mut(w).and_then(Option::take) {
            worker.terminate();
            c.forget();
        }
    }
}

/// Logical cores for the pool: `window.reglabWorkers` when a test set it, else
/// `navigator.hardwareConcurrency`.
fn hardware() -> f64 {
    let Some(window) = web_sys::window() else { return 1.0 };
    let asked = js_sys::Reflect::get(&window, &JsValue::from_str("reglabWorkers")).ok().and_then(|v| v.as_f64());
    asked.unwrap_or_else(|| window.navigator().hardware_concurrency())
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
