//! The job worker: the page's kernel views (`web_app::kernel_job`) and PTX diffs
//! (`web_app::diff_job`), one JSON job at a time (`web_app::job_worker` is the page's side). It
//! carries the front end, the analyses and the schemes' program passes but no simulator, so the
//! page can load it at once for the annotated listing without loading the run worker.

#[cfg(target_arch = "wasm32")]
fn main() {
    use web_app::diff_job::{DiffJob, DIFF_JOB_PREFIX};
    use web_app::kernel_job::{KernelJob, KERNEL_JOB_PREFIX};
    use web_app::run_job::{RunFailure, WorkerReply};

    web_app::worker_scope::serve(|text, post| {
        let reply = if text.starts_with(DIFF_JOB_PREFIX) {
            match serde_json::from_str::<DiffJob>(text) {
                Ok(job) => WorkerReply::Diff(web_app::diff_job::execute(&job.diff)),
                Err(e) => WorkerReply::Diff(Err(format!("bad request: {e}"))),
            }
        } else if text.starts_with(KERNEL_JOB_PREFIX) {
            match serde_json::from_str::<KernelJob>(text) {
                Ok(job) => WorkerReply::Kernel(web_app::kernel_job::execute(&job.kernel)),
                Err(e) => WorkerReply::Failed(RunFailure::new("worker", format!("bad request: {e}"))),
            }
        } else {
            WorkerReply::Failed(RunFailure::new("worker", "bad request: not a job the job worker knows"))
        };
        post(&reply);
    });
}

#[cfg(not(target_arch = "wasm32"))]
fn main() {}
