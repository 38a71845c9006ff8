//! The PTX diff panel's job, done by the page's job worker (`job_worker.rs`): the page sends the text, the GPU and one scheme
//! spec; the worker compiles the text, resolves the scheme and rewrites the module
//! ([`sim_core::diff::rewrite::rewrite_diff`]); the page shows what comes back. So the page's wasm
//! links neither the schemes' program passes nor the diff (27 KB of it gzipped), and a large
//! kernel's rewrite never holds the page.
//!
//! ```text
//! page → worker   {"diff":{"ptx":"…","gpu":GpuConfig,"scheme":"demo:spaces=all"}}   (run_job::Job::Diff)
//! worker → page   "ready" first (as for runs), then {"diff":{"Ok":RewriteDiff|null}} or {"diff":{"Err":"…"}}
//! ```
//!
//! Natively (the tests) [`use_rewrite_diff`] computes the diff right away on the same thread.

use std::rc::Rc;

use serde::{Deserialize, Serialize};
use sim_core::diff::rewrite::RewriteDiff;
use sim_core::gpu::GpuConfig;
use sim_core::timing::{EnergyModel, SchemeSpec};
use yew::prelude::*;

/// What the worker is asked: one scheme's rewrite of one module.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DiffRequest {
    /// The PTX text.
    pub ptx: String,
    /// The GPU the scheme's defaults come from.
    pub gpu: GpuConfig,
    /// The scheme spec (`NAME` or `NAME:k=v,…`).
    pub scheme: String,
}

/// The diff, `Ok(None)` when the scheme does not transform code, or why there is none.
pub type DiffResult = Result<Option<RewriteDiff>, String>;

/// The worker's side: compile, resolve, rewrite.
pub fn execute(req: &DiffRequest) -> DiffResult {
    let module = sim_core::ptx::compile(&req.ptx).map_err(|d| {
        let first = d.first().map(|d| d.message.clone()).unwrap_or_default();
        format!("The kernel does not compile: {first}")
    })?;
    let scheme = SchemeSpec::parse(&req.scheme)
        .and_then(|s| s.resolve(&req.gpu, &EnergyModel::default()))
        .map_err(|e| e.to_string())?;
    sim_core::diff::rewrite::rewrite_diff(&module, &scheme)
}

/// The diff for `request` (`None`: none asked, or the worker is still computing it). A new
/// request abandons the one still computing, so only the latest answer arrives.
#[hook]
pub fn use_rewrite_diff(request: Rc<Option<DiffRequest>>) -> Option<Rc<DiffResult>> {
    imp::use_rewrite_diff(request)
}

#[cfg(not(target_arch = "wasm32"))]
mod imp {
    use super::*;

    #[hook]
    pub fn use_rewrite_diff(request: Rc<Option<DiffRequest>>) -> Option<Rc<DiffResult>> {
        let result = use_memo(request, |r| r.as_ref().as_ref().map(|r| Rc::new(execute(r))));
        (*result).clone()
    }
}

#[cfg(target_arch = "wasm32")]
mod imp {
    use super::*;
    use crate::job_worker::JobWorker;
    use crate::run_job::{Job, WorkerReply};

    #[hook]
    pub fn use_rewrite_diff(request: Rc<Option<DiffRequest>>) -> Option<Rc<DiffResult>> {
        let result = use_state(|| None::<Rc<DiffResult>>);
        let worker = {
            let result = result.clone();
            use_memo((), move |_| {
                JobWorker::new(move |reply| {
                    let answer = match reply {
                        Ok(WorkerReply::Diff(d)) => d,
                        Ok(WorkerReply::Failed(f)) => Err(f.message),
                        Ok(_) => Err("the diff's worker answered something else".into()),
                        Err(m) => Err(m),
                    };
                    result.set(Some(Rc::new(answer)));
                })
            })
        };
        {
            let (result, worker) = (result.clone(), worker.clone());
            use_effect_with(request, move |request| {
                result.set(None);
                if let Some(req) = request.as_ref() {
                    match serde_json::to_string(&Job::Diff(Box::new(req.clone()))) {
                        Ok(text) => worker.ask(text),
                        Err(e) => result.set(Some(Rc::new(Err(e.to_string())))),
                    }
                }
            });
        }
        {
            let worker = worker.clone();
            use_effect_with((), move |_| move || worker.stop());
        }
        (*result).clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vector_add() -> String {
        crate::examples::find("vector_add").map_or(String::new(), |e| e.source.into())
    }

    fn fermi() -> GpuConfig {
        sim_core::gpu::presets::by_name("fermi-gtx480").unwrap_or_else(|| unreachable!())
    }

    #[test]
    fn demo_on_vector_add_drops_one_load_and_names_its_consumer() {
        let req = DiffRequest { ptx: vector_add(), gpu: fermi(), scheme: "demo".into() };
        let diff = execute(&req);
        let Ok(Some(d)) = &diff else { unreachable!("{diff:?}") };
        // vector_add: two single-use loads, one memory operand per consumer: one load folds,
        // its consumer changes (2 rows differ, as the browser test of the panel checks too).
        assert_eq!(d.diff.edits(), 2);
        let reasons: Vec<&str> = d.diff.rows.iter().filter_map(|r| r.reason.as_deref()).collect();
        assert!(reasons.iter().any(|r| r.starts_with("single-use load dropped")), "{reasons:?}");
        // The message survives the trip through JSON as the page receives it.
        let text = serde_json::to_string(&crate::run_job::WorkerReply::Diff(diff.clone())).unwrap_or_default();
        let back = serde_json::from_str::<crate::run_job::WorkerReply>(&text).ok();
        assert_eq!(back, Some(crate::run_job::WorkerReply::Diff(diff)));
    }

    #[test]
    fn a_job_travels_tagged_and_bad_input_is_an_error() {
        let req = DiffRequest { ptx: "not ptx".into(), gpu: fermi(), scheme: "baseline".into() };
        let job = crate::run_job::Job::Diff(Box::new(req.clone()));
        let text = serde_json::to_string(&job).unwrap_or_default();
        assert!(text.starts_with("{\"diff\":"), "{text}");
        assert_eq!(serde_json::from_str::<crate::run_job::Job>(&text).ok(), Some(job.clone()));
        let answer = job.answer();
        assert!(
            matches!(&answer, crate::run_job::WorkerReply::Diff(Err(m)) if m.starts_with("The kernel does not compile"))
        );
        assert!(matches!(execute(&req), Err(m) if m.starts_with("The kernel does not compile")));
        let unknown = DiffRequest { ptx: vector_add(), gpu: fermi(), scheme: "no-such-scheme".into() };
        assert!(execute(&unknown).is_err());
        let plain = DiffRequest { ptx: vector_add(), gpu: fermi(), scheme: "baseline".into() };
        assert_eq!(execute(&plain), Ok(None));
    }
}
