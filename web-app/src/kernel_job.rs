//! The selected kernel's analyses (`model::kernel::kernel_view`: liveness, allocation, ranges,
//! the schemes' facts) as a job for the page's job worker (`job_worker.rs`). In the page's build
//! (feature `page`) the reducer does not compute the view: it records what it wants
//! ([`KernelAsk`], `AppState::kernel_wanted`), [`use_kernel_jobs`] sends it, and the answer comes
//! back as `Action::KernelAnswer`. So the page's wasm does not link the analyses (44 KB of it
//! gzipped) and a large kernel's analyses never hold the page. Every other build (the native and
//! browser tests of the reducer, the CLI) computes the view in the reducer, as the worker does.
//!
//! ```text
//! page → worker   {"kernel":{"seq":7,"revision":12,"ptx":"…","kernel":"k","gpu_sm":80}}   (run_job::Job::Kernel)
//! worker → page   "ready" first, then {"kernel":{"seq":7,"view":KernelView}}
//! ```

use serde::{Deserialize, Serialize};

use crate::model::kernel::{kernel_view, KernelView};
use crate::model::{self, Compiled};

/// What the reducer wants analysed: the kernel `kernel` (or the default one) of the compiled
/// text of `revision`, for target `gpu_sm`. `seq` tells answers to older asks apart.
#[derive(Clone, Debug, PartialEq)]
pub struct KernelAsk {
    /// Increases with every ask.
    pub seq: u64,
    /// The analysis revision the view is for.
    pub revision: u64,
    /// The compiled text.
    pub compiled: Compiled,
    /// The selected kernel.
    pub kernel: Option<String>,
    /// The GPU's `sm_XY` (the register estimate's target).
    pub gpu_sm: Option<u32>,
}

impl KernelAsk {
    /// The message for the worker.
    pub fn request(&self) -> KernelRequest {
        KernelRequest {
            seq: self.seq,
            revision: self.revision,
            ptx: self.compiled.get().source.clone(),
            kernel: self.kernel.clone(),
            gpu_sm: self.gpu_sm,
        }
    }
}

/// What the worker is sent (see [`KernelAsk`]).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct KernelRequest {
    /// See [`KernelAsk::seq`].
    pub seq: u64,
    /// See [`KernelAsk::revision`].
    pub revision: u64,
    /// The PTX text.
    pub ptx: String,
    /// See [`KernelAsk::kernel`].
    pub kernel: Option<String>,
    /// See [`KernelAsk::gpu_sm`].
    pub gpu_sm: Option<u32>,
}

/// The worker's answer.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct KernelAnswer {
    /// The ask's `seq`.
    pub seq: u64,
    /// The view.
    pub view: KernelView,
}

/// The worker's side: the text's analysis, then the kernel's view, exactly as the reducer of
/// the other builds computes them.
pub fn execute(req: &KernelRequest) -> KernelAnswer {
    let analysis = model::analyze(&req.ptx, req.revision);
    KernelAnswer { seq: req.seq, view: kernel_view(&analysis, req.kernel.as_deref(), req.gpu_sm) }
}

/// Sends the reducer's asks to the job worker and its answers back as actions (the page's
/// build); elsewhere the reducer computes the view itself and this does nothing.
#[cfg(all(feature = "page", target_arch = "wasm32"))]
#[yew::hook]
pub fn use_kernel_jobs(state: &crate::state::AppContext) {
    use std::rc::Rc;

    use yew::prelude::*;

    use crate::job_worker::JobWorker;
    use crate::run_job::WorkerReply;
    use crate::state::Action;

    let dispatcher = state.dispatcher();
    let worker = use_memo((), move |_| {
        JobWorker::new(move |reply| match reply {
            Ok(WorkerReply::Kernel(a)) => dispatcher.dispatch(Action::KernelAnswer(a.seq, Rc::new(a.view))),
            Ok(WorkerReply::Failed(f)) => dispatcher.dispatch(Action::KernelFailed(f.message)),
            Ok(_) => dispatcher.dispatch(Action::KernelFailed("the analyses' worker answered something else".into())),
            Err(m) => dispatcher.dispatch(Action::KernelFailed(m)),
        })
    });
    {
        let worker = worker.clone();
        use_effect_with(state.kernel_wanted.clone(), move |ask| {
            if let Some(ask) = ask {
                if let Ok(text) = serde_json::to_string(&crate::run_job::Job::Kernel(ask.request())) {
                    worker.ask(text);
                }
            }
        });
    }
    use_effect_with((), move |_| move || worker.stop());
}

/// See the page's build's version.
#[cfg(not(all(feature = "page", target_arch = "wasm32")))]
#[yew::hook]
pub fn use_kernel_jobs(_state: &crate::state::AppContext) {}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::kernel::KernelStatus;

    #[test]
    fn the_worker_computes_the_view_the_reducer_computes() {
        let src = crate::examples::find("vector_add").map_or(String::new(), |e| e.source.into());
        let req = KernelRequest { seq: 3, revision: 9, ptx: src.clone(), kernel: None, gpu_sm: Some(80) };
        let answer = execute(&req);
        assert_eq!(answer.seq, 3);
        assert_eq!(answer.view.status, KernelStatus::Analysed);
        assert_eq!(answer.view.revision, 9);
        let direct = kernel_view(&model::analyze(&src, 9), None, Some(80));
        assert_eq!(answer.view, direct);
        // The view survives the trip through JSON as the page receives it.
        let reply = crate::run_job::WorkerReply::Kernel(answer.clone());
        let text = serde_json::to_string(&reply).unwrap_or_default();
        assert_eq!(serde_json::from_str::<crate::run_job::WorkerReply>(&text).ok(), Some(reply));
        let job = crate::run_job::Job::Kernel(req);
        let text = serde_json::to_string(&job).unwrap_or_default();
        assert!(text.starts_with("{\"kernel\":"), "{text}");
        assert_eq!(job.answer(), crate::run_job::WorkerReply::Kernel(answer));
    }
}
