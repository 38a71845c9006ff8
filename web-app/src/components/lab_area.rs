//! The lab area under the editor: launch editor, run panel, results and the PTX diff of a
//! scheme that transforms code. Reads the `AppState` context itself (so the page layout only
//! places it) and runs the lab's effects and the worker.

use yew::prelude::*;

use crate::components::{LaunchEditor, PtxDiff, RunPanel, RunResults};
use crate::lab::RunStatus;
use crate::lab_hooks::use_lab_effects;
use crate::state::{Action, AppContext, AppState};
use crate::worker_client::use_run_worker;

/// Launch editor, run panel and results.
#[function_component(LabArea)]
pub fn lab_area() -> Html {
    let ctx = use_context::<AppContext>();
    let dispatcher = ctx.as_ref().map(|s| s.dispatcher());
    let dispatch = use_memo(dispatcher, |d| {
        let d = d.clone();
        Callback::from(move |action: Action| {
            if let Some(d) = &d {
                d.dispatch(action);
            }
        })
    });
    let on_lab = use_memo(dispatch.clone(), |d| d.reform(Action::Lab));
    let fallback = use_memo((), |_| AppState::new("", None, crate::state::StorageStatus::Fresh));
    let state: &AppState = ctx.as_deref().unwrap_or(&fallback);
    use_lab_effects(state, (*dispatch).clone());
    let controls = use_run_worker((*dispatch).clone());
    let lab = state.lab.clone();
    let gpu = use_memo(state.settings.gpu.clone(), |g| crate::model::occupancy::gpu_config(g).map(std::rc::Rc::new));
    let embed = &state.share.embed;
    let (launch, run) = (embed.shows("launch", &state.share.panels), embed.shows("run", &state.share.panels));
    let diff = embed.shows("diff", &state.share.panels);
    html! {
        <div class="lab" id="lab">
            <div class="lab-setup">
                if launch { <LaunchEditor lab={lab.clone()} on_action={(*on_lab).clone()} /> }
                if run { <RunPanel lab={lab.clone()} gpu={(*gpu).clone()} registers={state.settings.registers} source={state.source.clone()} on_action={(*on_lab).clone()} controls={controls} auto_run={embed.run} /> }
            </div>
            if let (RunStatus::Done(out), true) = (&lab.run, run) { <RunResults run={out.clone()} sweep={lab.sweep.clone()} /> }
            if let (RunStatus::Running(_), true) = (&lab.run, run) { { crate::components::run_live::sweep_live(lab.sweep.as_deref(), lab.partial.as_deref()) } }
            if diff { <PtxDiff compiled={state.analysis.compiled.clone()} lines={state.analysis.lines} schemes={lab.schemes.clone()} gpu={(*gpu).clone()} /> }
        </div>
    }
}
