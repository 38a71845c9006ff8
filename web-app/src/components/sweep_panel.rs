//! The sweep form: which instance, which numeric parameter, the values (a list `2,4,8` or a range
//! `2..512*2`, as `reglab sweep`), the reference value, "Run sweep"; and the one-click studies
//! (Wyse's RFC size sweep). It only builds the [`SweepPlan`]; the run panel runs it.
//!
//! ```text
//! ▸ Sweep a parameter  [baseline ▾] [collector_units ▾] values [2,4,8,16] reference [16] [Run sweep]
//!   One click: [Wyse: RFC size 2..512]
//! ```

use std::rc::Rc;

use sim_core::gpu::GpuConfig;
use sim_core::timing::regfile::params::ParamKind;
use wasm_bindgen::JsCast;
use yew::prelude::*;

use crate::components::draft_input::DraftInput;

use crate::lab_schemes::{schema, spec_of};
use crate::sweep::SweepPlan;

/// Properties of [`SweepPanel`].
#[derive(Properties, Clone, PartialEq)]
pub struct SweepPanelProps {
    /// The scheme instances (spec texts).
    pub schemes: Vec<String>,
    /// The GPU the schemas come from.
    pub gpu: Option<Rc<GpuConfig>>,
    /// Runs a plan.
    pub on_run: Callback<SweepPlan>,
    /// No run can start now (one is running, or the setup is not runnable).
    pub disabled: bool,
}

fn value_of(e: &Event) -> String {
    let t = e.target();
    if let Some(i) = t.as_ref().and_then(|t| t.dyn_ref::<web_sys::HtmlInputElement>()) {
        return i.value();
    }
    t.and_then(|t| t.dyn_into::<web_sys::HtmlSelectElement>().ok()).map(|s| s.value()).unwrap_or_default()
}

/// The sweep form.
#[function_component(SweepPanel)]
pub fn sweep_panel(props: &SweepPanelProps) -> Html {
    let instance = use_state(|| 0usize);
    let param = use_state(String::new);
    let values = use_state(String::new);
    let reference = use_state(String::new);
    let error = use_state(|| None::<String>);
    let index = (*instance).min(props.schemes.len().saturating_sub(1));
    let base = props.schemes.get(index).cloned().unwrap_or_default();
    let spec = spec_of(&base);
    let numeric: Vec<_> = props
        .gpu
        .as_ref()
        .map(|g| schema(&spec.scheme, g))
        .unwrap_or_default()
        .into_iter()
        .filter(|p| matches!(p.kind, ParamKind::Int | ParamKind::Float))
        .collect();
    let chosen = numeric.iter().find(|p| p.name == param.as_str()).or(numeric.first()).map(|p| p.name.to_owned());
    let set = |h: &UseStateHandle<String>| {
        let h = h.clone();
        Callback::from(move |e: Event| h.set(value_of(&e)))
    };
    let pick_instance = {
        let instance = instance.clone();
        Callback::from(move |e: Event| instance.set(value_of(&e).parse().unwrap_or(0)))
    };
    let run = {
        let (on_run, error, base, chosen) = (props.on_run.clone(), error.clone(), base.clone(), chosen.clone());
        let (values, reference) = ((*values).clone(), (*reference).clone());
        Callback::from(move |_: MouseEvent| {
            let plan = SweepPlan::new(&base, chosen.as_deref().unwrap_or(""), &values, &reference);
            match plan {
                Ok(p) => {
                    error.set(None);
                    on_run.emit(p);
                }
                Err(e) => error.set(Some(e)),
            }
        })
    };
    let wyse = props.on_run.reform(|_: MouseEvent| SweepPlan::wyse_rfc_sizes());
    html! {
        <details class="sweep-panel" id="sweep-panel">
            <summary>{ "Sweep a parameter" }</summary>
            <div class="sweep-form">
                <label>{ "Instance " }
                    <select id="sweep-instance" onchange={pick_instance}>
                        { for props.schemes.iter().enumerate().map(|(i, s)| html! {
                            <option value={i.to_string()} selected={i == index}>{ spec_of(s).label() }</option>
                        }) }
                    </select>
                </label>
                <label>{ "Parameter " }
                    <select id="sweep-param" onchange={set(&param)}>
                        { for numeric.iter().map(|p| html! {
                            <option value={p.name} selected={chosen.as_deref() == Some(p.name)}>
                                { format!("{} ({})", p.name, p.range_text()) }
                            </option>
                        }) }
                    </select>
                </label>
                <label>{ "Values " }
                    <DraftInput id="sweep-values" placeholder="2,4,8 or 2..512*2" value={(*values).clone()} onchange={set(&values)} />
                </label>
                <label>{ "Reference value " }
                    <DraftInput id="sweep-reference" placeholder="first" size="6" value={(*reference).clone()} onchange={set(&reference)} />
                </label>
                <button type="button" id="sweep-run" onclick={run} disabled={props.disabled || numeric.is_empty()}>{ "Run sweep" }</button>
            </div>
            <p class="sweep-studies">{ "One click: " }
                <button type="button" id="study-wyse-rfc" onclick={wyse} disabled={props.disabled}
                        title="rfc-ob with 2, 4, …, 512 RFC entries: reads saved and IPC relative to 8 entries (Wyse Fig. 5)">
                    { "Wyse: RFC size 2…512" }
                </button>
            </p>
            if let Some(e) = &*error { <p class="field-error" id="sweep-error" role="alert">{ e.clone() }</p> }
        </details>
    }
}
