//! One worker for the page's short jobs (the selected kernel's analyses, `kernel_job.rs`; the PTX
//! diff, `diff_job.rs`), running its own small wasm (`jobs_main.rs`: no simulator): it stays
//! loaded between jobs, runs one job at a time, and a new job
//! abandons the one still running (its worker is terminated and a fresh one started), so only
//! the latest answer ever arrives. The runs use their own workers (`worker_client.rs`).
//!
//! Each user (the kernel views, the PTX diff panel) has its own, so a job of one kind abandons
//! only a job of its own kind.
//!
//! ```text
//! ask(job) → no worker: start one, keep job → "ready" → post job
//!          → worker idle: post job
//!          → worker busy: terminate it, start another, keep job → "ready" → post job
//! reply    → on_reply(Ok(reply));  crash (onerror) → on_reply(Err(plain words)), next ask starts afresh
//! ```

use std::cell::RefCell;
use std::rc::Rc;

use wasm_bindgen::closure::Closure;
use wasm_bindgen::{JsCast, JsValue};
use web_sys::{ErrorEvent, MessageEvent, Worker};

use crate::run_job::WorkerReply;
use crate::worker_client::crashed_message;

/// The job worker's script Trunk writes next to the page (`data-loader-shim`; `jobs_main.rs`).
pub const JOBS_URL: &str = "./jobs_loader.js";

/// What a job's answer is handed to.
type OnReply = Rc<dyn Fn(Result<WorkerReply, String>)>;

/// A worker and the handlers attached to it.
type Held = (Worker, Closure<dyn Fn(MessageEvent)>, Closure<dyn Fn(ErrorEvent)>);

struct Inner {
    worker: Option<Held>,
    /// Bumped per worker started: events of an abandoned worker are ignored.
    generation: u64,
    ready: bool,
    busy: bool,
    pending: Option<String>,
    on_reply: OnReply,
}

/// The page's job worker (see the module doc). Cloning shares it.
#[derive(Clone)]
pub struct JobWorker(Rc<RefCell<Inner>>);

impl JobWorker {
    /// A job worker whose answers go to `on_reply` (started on the first [`JobWorker::ask`]).
    pub fn new(on_reply: impl Fn(Result<WorkerReply, String>) + 'static) -> Self {
        let on_reply: OnReply = Rc::new(on_reply);
        JobWorker(Rc::new(RefCell::new(Inner {
            worker: None,
            generation: 0,
            ready: false,
            busy: false,
            pending: None,
            on_reply,
        })))
    }

    /// Sends the job `text` (JSON), abandoning a job still running.
    pub fn ask(&self, text: String) {
        let failed = {
            let Ok(mut inner) = self.0.try_borrow_mut() else { return };
            if inner.busy {
                abandon(&mut inner);
            }
            inner.pending = Some(text);
            if inner.worker.is_none() {
                self.start(&mut inner).err()
            } else {
                post_pending(&mut inner);
                None
            }
        };
        if let Some(m) = failed {
            let on_reply = self.0.borrow().on_reply.clone();
            on_reply(Err(m));
        }
    }

    /// Terminates the worker (the page's component went away).
    pub fn stop(&self) {
        if let Ok(mut inner) = self.0.try_borrow_mut() {
            abandon(&mut inner);
            inner.pending = None;
        }
    }

    fn start(&self, inner: &mut Inner) -> Result<(), String> {
        let worker = Worker::new(JOBS_URL).map_err(|e| format!("cannot start the worker: {e:?}"))?;
        inner.generation += 1;
        let generation = inner.generation;
        let me = self.0.clone();
        let onmessage = Closure::<dyn Fn(MessageEvent)>::new(move |event: MessageEvent| {
            let text = event.data().as_string().unwrap_or_default();
            let reply = serde_json::from_str::<WorkerReply>(&text).map_err(|e| format!("bad reply: {e}"));
            let on_reply = {
                let Ok(mut inner) = me.try_borrow_mut() else { return };
                if inner.generation != generation {
                    return;
                }
                if matches!(reply, Ok(WorkerReply::Ready)) {
                    inner.ready = true;
                    return post_pending(&mut inner);
                }
                inner.busy = false;
                inner.on_reply.clone()
            };
            on_reply(reply);
        });
        let me = self.0.clone();
        let onerror = Closure::<dyn Fn(ErrorEvent)>::new(move |e: ErrorEvent| {
            // Handled here: not also an uncaught error of the page.
            e.prevent_default();
            let on_reply = {
                let Ok(mut inner) = me.try_borrow_mut() else { return };
                if inner.generation != generation {
                    return;
                }
                abandon(&mut inner);
                inner.on_reply.clone()
            };
            on_reply(Err(crashed_message(&e.message())));
        });
        worker.set_onmessage(Some(onmessage.as_ref().unchecked_ref()));
        worker.set_onerror(Some(onerror.as_ref().unchecked_ref()));
        inner.worker = Some((worker, onmessage, onerror));
        inner.ready = false;
        inner.busy = false;
        Ok(())
    }
}

/// Posts the kept job if the worker is ready for it.
fn post_pending(inner: &mut Inner) {
    if !inner.ready {
        return;
    }
    let (Some((worker, _, _)), Some(text)) = (&inner.worker, inner.pending.take()) else { return };
    if worker.post_message(&JsValue::from_str(&text)).is_ok() {
        inner.busy = true;
    } else {
        // The job stays kept; the next ask starts a fresh worker for it.
        inner.pending = Some(text);
        abandon(inner);
    }
}

/// Terminates the worker and forgets it; its handlers are leaked, not dropped, as this may run
/// inside one of them (a few hundred bytes per abandoned worker).
fn abandon(inner: &mut Inner) {
    if let Some((worker, onmessage, onerror)) = inner.worker.take() {
        worker.terminate();
        onmessage.forget();
        onerror.forget();
    }
    inner.generation += 1;
    inner.ready = false;
    inner.busy = false;
}
