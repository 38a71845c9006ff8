//! The Web Worker: receives one `RunRequest` (JSON text; the page's pool, `run_pool.rs`, gives
//! each worker its share of the schemes), runs it with `web_app::run_job` and posts progress
//! messages and the final reports (or a structured failure) back, all as JSON text; or, as the
//! page's job worker, PTX diffs (`web_app::diff_job`) and kernel views (`web_app::kernel_job`). The page
//! terminates the worker to cancel, so the run itself needs no interruption points.

#[cfg(target_arch = "wasm32")]
fn main() {
    use wasm_bindgen::closure::Closure;
    use wasm_bindgen::{JsCast, JsValue};
    use web_app::diff_job::{DiffJob, DIFF_JOB_PREFIX};
    use web_app::kernel_job::{KernelJob, KERNEL_JOB_PREFIX};
    use web_app::run_job::{execute_to_reply, RunFailure, RunRequest, WorkerReply};
    use web_sys::{DedicatedWorkerGlobalScope, MessageEvent};

    console_error_panic_hook::set_once();
    let Ok(scope) = js_sys::global().dyn_into::<DedicatedWorkerGlobalScope>() else { return };
    let post_scope = scope.clone();
    let post = move |reply: &WorkerReply| {
        let text = serde_json::to_string(reply).unwrap_or_default();
        // A failed post means the page is gone: nothing left to tell.
        let _ = post_scope.post_message(&JsValue::from_str(&text));
    };
    let onmessage = Closure::<dyn Fn(MessageEvent)>::new(move |event: MessageEvent| {
        let text = event.data().as_string().unwrap_or_default();
        if text == web_app::worker_client::TEST_TRAP_REQUEST {
            // The browser tests' failing worker (worker_client.rs): trap as a worker out of memory does.
            std::process::abort();
        }
        if text.starts_with(DIFF_JOB_PREFIX) {
            let reply = match serde_json::from_str::<DiffJob>(&text) {
                Ok(job) => WorkerReply::Diff(web_app::diff_job::execute(&job.diff)),
                Err(e) => WorkerReply::Diff(Err(format!("bad request: {e}"))),
            };
            return post(&reply);
        }
        if text.starts_with(KERNEL_JOB_PREFIX) {
            let reply = match serde_json::from_str::<KernelJob>(&text) {
                Ok(job) => WorkerReply::Kernel(web_app::kernel_job::execute(&job.kernel)),
                Err(e) => WorkerReply::Failed(RunFailure::new("worker", format!("bad request: {e}"))),
            };
            return post(&reply);
        }
        let reply = match serde_json::from_str::<RunRequest>(&text) {
            Ok(req) => execute_to_reply(&req, |p| post(&WorkerReply::Progress(p))),
            Err(e) => WorkerReply::Failed(RunFailure::new("worker", format!("bad request: {e}"))),
        };
        post(&reply);
    });
    scope.set_onmessage(Some(onmessage.as_ref().unchecked_ref()));
    onmessage.forget();
    let ready = serde_json::to_string(&WorkerReply::Ready).unwrap_or_default();
    let _ = scope.post_message(&JsValue::from_str(&ready));
}

#[cfg(not(target_arch = "wasm32"))]
fn main() {}
