//! The job worker: the page's kernel views (`web_app::kernel_job`) and PTX diffs
//! (`web_app::diff_job`), one JSON job at a time (`web_app::job_worker` is the page's side). It
//! carries the front end, the analyses and the schemes' program passes but no simulator, so the
//! page can load it at once for the annotated listing without loading the run worker.

#[cfg(target_arch = "wasm32")]
fn main() {
    use web_app::run_job::{Job, RunFailure, WorkerReply};

    web_app::worker_scope::serve(|text, post| {
        let reply = match serde_json::from_str::<Job>(text) {
            Ok(job) => job.answer(),
            Err(e) => WorkerReply::Failed(RunFailure::new("worker", format!("bad request: {e}"))),
        };
        post(&reply);
    });
}

#[cfg(not(target_arch = "wasm32"))]
fn main() {}
