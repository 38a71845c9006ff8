//! The run worker: receives one `RunRequest` (JSON text; the page's pool, `run_pool.rs`, gives
//! each worker its share of the schemes), runs it with `web_app::run_job` and posts progress
//! messages and the final reports (or a structured failure) back, all as JSON text
//! (`web_app::worker_scope`). The page terminates the worker to cancel, so the run itself needs
//! no interruption points. Kernel views and PTX diffs have their own, smaller worker
//! (`jobs_main.rs`).

#[cfg(target_arch = "wasm32")]
fn main() {
    use web_app::run_job::{execute_to_reply, RunFailure, RunRequest, WorkerReply};

    web_app::worker_scope::serve(|text, post| {
        if text == web_app::worker_client::TEST_TRAP_REQUEST {
            // The browser tests' failing worker (worker_client.rs): trap as a worker out of memory does.
            std::process::abort();
        }
        let reply = match serde_json::from_str::<RunRequest>(text) {
            Ok(req) => execute_to_reply(&req, |p| post(&WorkerReply::Progress(p))),
            Err(e) => WorkerReply::Failed(RunFailure::new("worker", format!("bad request: {e}"))),
        };
        post(&reply);
    });
}

#[cfg(not(target_arch = "wasm32"))]
fn main() {}
