//! The run panel: the GPU (the occupancy panel's, shown here, not chosen here), register-file
//! schemes to compare (checkboxes, the spec text, and the scheme panel's instance cards with their
//! parameter forms), the sweep form, Run and Cancel, the progress bar, and the run's error or
//! cancellation. View code only; the run itself is in the worker.

use std::rc::Rc;

use yew::prelude::*;

use crate::components::draft_input::DraftInput;

use sim_core::gpu::GpuConfig;

use crate::components::scheme_panel::SchemePanel;
use crate::components::sweep_panel::SweepPanel;
use crate::lab::{scheme_name, LabAction, LabState, RunStatus};
use crate::lab_schemes::spec_of;
use crate::run_job::{RunProgress, RunRequest};
use crate::sweep::SweepPlan;
use crate::worker_client::RunControls;
use sim_core::timing::SchemeSpec;
use wasm_bindgen::JsCast;

/// Properties of [`RunPanel`].
#[derive(Properties, Clone, PartialEq)]
pub struct RunPanelProps {
    /// The lab state.
    pub lab: Rc<LabState>,
    /// The PTX text to run.
    pub source: AttrValue,
    /// The GPU of the occupancy panel, with its edits (`None`: unknown preset).
    pub gpu: Option<Rc<GpuConfig>>,
    /// Registers per thread the user says ptxas allocates (`None`: the schemes' estimate).
    #[prop_or_default]
    pub registers: Option<u32>,
    /// Receives setting changes.
    pub on_action: Callback<LabAction>,
    /// Starts and cancels runs.
    pub controls: RunControls,
    /// Run once as soon as the setup is ready (an embed with `run=1`).
    #[prop_or_default]
    pub auto_run: bool,
}

/// The run panel.
#[function_component(RunPanel)]
pub fn run_panel(props: &RunPanelProps) -> Html {
    let lab = &props.lab;
    let on = &props.on_action;
    let running = lab.running();
    let started = use_started(lab.run_id, running);
    let duplicates = crate::lab_schemes::duplicate_error(&lab.schemes);
    let setup_blocked = lab.invalid.is_some() || props.gpu.is_none();
    let blocked = lab.schemes.is_empty() || setup_blocked || lab.scheme_error.is_some() || duplicates.is_some();
    let start_specs = {
        let (lab, source, start, gpu, registers, on) = (
            lab.clone(),
            props.source.clone(),
            props.controls.start.clone(),
            props.gpu.clone(),
            props.registers,
            on.clone(),
        );
        Callback::from(move |(schemes, sweep, quick): (Vec<SchemeSpec>, Option<SweepPlan>, bool)| {
            if let Some(gpu) = &gpu {
                // Gilani's value shares for every run (a sweep's points skip them: speed).
                let record_values = sweep.is_none();
                on.emit(LabAction::SetSweep(sweep.map(Rc::new)));
                start.emit(RunRequest {
                    ptx: source.to_string(),
                    launch: (*lab.setup).clone(),
                    gpu: (**gpu).clone(),
                    schemes,
                    registers_per_thread: registers,
                    record_values,
                    quick,
                    searches: Default::default(),
                });
            }
        })
    };
    let start_run = {
        let (schemes, start) = (lab.schemes.clone(), start_specs.clone());
        Callback::from(move |quick: bool| start.emit((schemes.iter().map(|s| spec_of(s)).collect(), None, quick)))
    };
    let run_sweep = {
        let (start, on) = (start_specs.clone(), on.clone());
        Callback::from(move |plan: SweepPlan| match plan.specs() {
            Ok(specs) => start.emit((specs, Some(plan), false)),
            Err(e) => on.emit(LabAction::SchemeError(e)),
        })
    };
    let run = start_run.reform(|_: MouseEvent| false);
    let quick = start_run.reform(|_: MouseEvent| true);
    let ready = props.auto_run && !blocked && !lab.kernels.is_empty() && lab.run == RunStatus::Idle;
    use_auto_run(ready, start_run.reform(|()| false));
    let gpu_text = props
        .gpu
        .as_ref()
        .map_or_else(|| "unknown GPU".to_owned(), |g| format!("{} · {} SMs", g.name, g.core.sm_count));
    let cancel = props.controls.cancel.reform(|_: MouseEvent| ());
    let schemes = sim_core::timing::regfile::registry::SCHEMES.iter().map(|s| {
        let name = s.name;
        let onchange = on.reform(move |_: Event| LabAction::ToggleScheme(name.into()));
        html! {
            <label class="scheme" title={s.description}>
                <input type="checkbox" value={name} checked={lab.schemes.iter().any(|x| scheme_name(x) == name)} onchange={onchange} />
                { name }
            </label>
        }
    });
    html! {
        <section class="run-panel" aria-labelledby="run-heading">
            <div class="lab-head"><h2 id="run-heading">{ "Timing run" }</h2></div>
            <div class="run-controls">
                <p class="run-gpu" id="run-gpu">{ "GPU: " }<strong>{ gpu_text }</strong>
                    <a href="#gpu-preset" class="run-gpu-link">{ " (change it in the occupancy panel)" }</a></p>
                <fieldset class="schemes" id="run-schemes"><legend>{ "Register-file schemes" }</legend>{ for schemes }</fieldset>
                <button type="button" id="run-button" class="primary" onclick={run} disabled={running || blocked}
                        title={if blocked { "Fix the launch setup and choose a scheme first" } else { "Run the timing model in a Web Worker" }}>{ "Run" }</button>
                <button type="button" id="quick-button" onclick={quick} disabled={running || blocked}
                        title="Time a sample of about 3 waves of CTAs (SMs × CTAs per SM each; one wave in every k) and estimate the whole run: seconds instead of minutes on a large grid. A sample whose waves disagree by 10% or more is timed again with twice the waves (up to 12); a grid under two samples' worth of waves runs in full">{ "Quick estimate" }</button>
                if running { <button type="button" id="cancel-button" onclick={cancel}>{ "Cancel" }</button> }
            </div>
            { scheme_specs(lab, on) }
            <SchemePanel lab={lab.clone()} gpu={props.gpu.clone()} on_action={on.clone()} />
            if let Some(e) = duplicates { <p class="field-error" id="scheme-duplicate-error" role="alert">{ e }</p> }
            <SweepPanel schemes={lab.schemes.clone()} gpu={props.gpu.clone()} on_run={run_sweep} disabled={running || setup_blocked} />
            if lab.schemes.is_empty() { <p class="field-error">{ "Choose at least one scheme." }</p> }
            { status(&lab.run, &running_text(lab, props.gpu.as_deref()), time_left(started, &lab.run)) }
            if running { { crate::components::run_live::scheme_progress(&running_labels(lab), lab.partial.as_deref()) } }
        </section>
    }
}

/// Starts one run (`start`) the first time `ready` holds (an embed with `run=1`).
#[hook]
fn use_auto_run(ready: bool, start: Callback<()>) {
    let fired = use_mut_ref(|| false);
    use_effect_with(ready, move |&ready| {
        if ready && !std::mem::replace(&mut *fired.borrow_mut(), true) {
            start.emit(());
        }
    });
}

/// The schemes as editable specs (`NAME` or `NAME:key=value,…`, space between) and their error.
fn scheme_specs(lab: &LabState, on: &Callback<LabAction>) -> Html {
    let onchange = on.reform(|e: Event| {
        let value = e.target().and_then(|t| t.dyn_into::<web_sys::HtmlInputElement>().ok()).map(|i| i.value());
        LabAction::SetSchemes(value.unwrap_or_default().split_whitespace().map(str::to_owned).collect())
    });
    html! {
        <>
            <label class="scheme-specs">{ "Schemes with parameters (NAME or NAME:key=value,…; space between):" }
                <DraftInput id="scheme-specs" value={lab.schemes.join(" ")} {onchange} />
            </label>
            if let Some(e) = &lab.scheme_error { <p class="field-error" id="scheme-error" role="alert">{ e.clone() }</p> }
        </>
    }
}

/// When the current run started (host ms), kept per run id.
#[hook]
fn use_started(run_id: u64, running: bool) -> Option<f64> {
    let at = use_mut_ref(|| (u64::MAX, None::<f64>));
    if running && at.borrow().0 != run_id {
        *at.borrow_mut() = (run_id, Some(crate::host_timing::now_ms()));
    }
    if running {
        at.borrow().1
    } else {
        None
    }
}

/// Seconds left, from the time since the start and the fraction done (after 5 % of the work).
fn time_left(started: Option<f64>, run: &RunStatus) -> Option<f64> {
    let (RunStatus::Running(p), Some(t0)) = (run, started) else { return None };
    let elapsed = (crate::host_timing::now_ms() - t0) / 1000.0;
    (p.fraction >= 0.05 && p.fraction < 1.0).then(|| elapsed * (1.0 - p.fraction) / p.fraction)
}

/// The labels of the schemes (or sweep points) of the running run, in the order asked.
fn running_labels(lab: &LabState) -> Vec<String> {
    match &lab.sweep {
        Some(plan) => plan.labels(),
        None => lab.schemes.iter().map(|s| spec_of(s).label()).collect(),
    }
}

/// What is being simulated: the kernel, the GPU and the schemes (or the sweep).
fn running_text(lab: &LabState, gpu: Option<&GpuConfig>) -> String {
    let what = match &lab.sweep {
        Some(plan) => format!("a sweep of {} over {} values of {}", plan.base, plan.values.len(), plan.param),
        None => format!("{} scheme{}", lab.schemes.len(), if lab.schemes.len() == 1 { "" } else { "s" }),
    };
    let kernel = lab.kernel().unwrap_or("the kernel");
    format!("Simulating {kernel} on {} under {what}", gpu.map_or("the GPU", |g| g.name.as_str()))
}

fn status(run: &RunStatus, what: &str, left: Option<f64>) -> Html {
    match run {
        RunStatus::Idle | RunStatus::Done(_) => Html::default(),
        RunStatus::Running(RunProgress { tuning: Some(t), .. }) => html! {
            <div class="run-progress" id="run-status" aria-live="polite">
                <progress id="run-progress" max={t.of.max(1).to_string()} value={t.run.to_string()} aria-label="Precision tuning progress" />
                <span class="run-tuning-progress" id="run-tuning-progress" data-run={t.run.to_string()} data-of={t.of.to_string()}>
                    { format!("{what}: precision tuning: run {} of {}", t.run, t.of) }
                </span>
            </div>
        },
        RunStatus::Running(p) => html! {
            <div class="run-progress" id="run-status" aria-live="polite">
                <progress id="run-progress" max="1" value={p.fraction.to_string()} aria-label="Run progress" />
                <span>{ format!("{what}: {:.0}% · {} warp-instructions · {} cycles", p.fraction * 100.0, p.warp_instructions, p.cycles) }
                    if let Some(s) = left { <span id="run-time-left">{ format!(" · about {} s left", s.ceil()) }</span> }
                </span>
            </div>
        },
        RunStatus::Cancelled => {
            html! { <p class="run-cancelled" id="run-status" role="status">{ "Run cancelled." }</p> }
        }
        RunStatus::Failed(f) => html! {
            <div class="run-error" id="run-error" role="alert">
                <strong>{ f.title() }</strong>
                <p>{ f.message.clone() }</p>
                <p class="run-error-kind">{ format!("({})", f.kind) }</p>
            </div>
        },
    }
}
