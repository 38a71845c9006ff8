//! The occupancy panel's inputs: GPU preset picker (the page's only one: timing runs use it too) and
//! a few editable fields (SMs, registers per SM, max warps per SM), the launch shape as the launch
//! setup has it (threads per block = block x·y·z, dynamic shared memory; edited there, shown here)
//! and the register count ("ptxas says N registers", defaulting to the analyses' estimate). Empty fields mean "the
//! default", shown as the placeholder; every field is a labelled native control.
//!
//! ```text
//! GPU [fermi-gtx480 (cc 2.0) ▾]  SMs [15]  Registers per SM [32768]  Max warps per SM [48]
//! Threads per block 320 (launch setup)  ptxas says N registers [52]  Dynamic shared memory 14,560 B
//! ```

use web_sys::{HtmlInputElement, HtmlSelectElement};
use yew::prelude::*;

use super::chart::format::grouped;
use crate::model::occupancy::{GpuSettings, LaunchSettings, OccupancyView, PresetChoice, Source};
use crate::settings::{GpuField, LaunchField};

/// Callbacks of the inputs.
#[derive(Clone, PartialEq)]
pub struct InputCallbacks {
    /// A preset was picked.
    pub on_gpu: Callback<String>,
    /// A GPU field changed (`None`: back to the preset).
    pub on_gpu_field: Callback<(GpuField, Option<u32>)>,
    /// A launch field changed (`None`: back to the default).
    pub on_launch: Callback<(LaunchField, Option<u64>)>,
}

/// A labelled number field: `value` (`None`: empty, `placeholder` shows the default).
fn number_field(
    id: &'static str,
    label: String,
    value: Option<u64>,
    placeholder: String,
    hint: Html,
    on: Callback<Option<u64>>,
) -> Html {
    let oninput = Callback::from(move |e: InputEvent| {
        let input: HtmlInputElement = e.target_unchecked_into();
        let text = input.value();
        let text = text.trim();
        if text.is_empty() {
            on.emit(None);
        } else if let Ok(n) = text.parse::<u64>() {
            on.emit(Some(n));
        }
    });
    let hint_id = format!("{id}-hint");
    html! {
        <div class="field">
            <label for={id}>{ label }</label>
            <input id={id} type="number" inputmode="numeric" min="0" step="1"
                value={value.map(|v| v.to_string()).unwrap_or_default()}
                placeholder={placeholder} aria-describedby={hint_id.clone()} oninput={oninput} />
            <span class="field-hint" id={hint_id}>{ hint }</span>
        </div>
    }
}

/// The GPU part: preset picker and editable fields.
pub fn gpu_inputs(view: &OccupancyView, gpu: &GpuSettings, presets: &[PresetChoice], cb: &InputCallbacks) -> Html {
    let on_gpu = cb.on_gpu.clone();
    let onchange = Callback::from(move |e: Event| {
        let select: HtmlSelectElement = e.target_unchecked_into();
        on_gpu.emit(select.value());
    });
    let summary = view.gpu.as_ref();
    let gcn3 = summary.is_some_and(|g| g.gcn3);
    let field = |id, label: &str, which: GpuField, value: Option<u32>, preset: Option<u32>| {
        let on = cb.on_gpu_field.reform(move |v: Option<u64>| (which, v.map(|v| u32::try_from(v).unwrap_or(u32::MAX))));
        let hint = preset.map(|p| html! { { format!("preset: {p}") } }).unwrap_or_default();
        number_field(
            id,
            label.to_owned(),
            value.map(u64::from),
            preset.map(|p| p.to_string()).unwrap_or_default(),
            hint,
            on,
        )
    };
    let description = presets.iter().find(|p| p.name == gpu.preset).map(|p| p.description.clone()).unwrap_or_default();
    html! {
        <fieldset class="occ-fieldset">
            <legend>{ "GPU" }</legend>
            <div class="field wide">
                <label for="gpu-preset">{ "Preset" }</label>
                <select id="gpu-preset" onchange={onchange} aria-describedby="gpu-description">
                    { for presets.iter().map(|p| html! {
                        <option value={p.name} selected={p.name == gpu.preset} title={p.description.clone()}>
                            { format!("{} ({})", p.name, p.family) }
                        </option>
                    }) }
                </select>
                <span class="field-hint" id="gpu-description">{ description }</span>
            </div>
            { field("gpu-sms", if gcn3 { "Compute units" } else { "SMs" }, GpuField::SmCount, gpu.sm_count, summary.map(|g| g.sm_count.1)) }
            { field("gpu-registers", if gcn3 { "VGPRs per SIMD" } else { "Registers per SM" }, GpuField::Registers, gpu.registers, summary.map(|g| g.registers.1)) }
            { field("gpu-warps", if gcn3 { "Wave slots per SIMD" } else { "Max warps per SM" }, GpuField::Warps, gpu.warps, summary.map(|g| g.warps.1)) }
        </fieldset>
    }
}

/// `from .reqntid`, `estimate`, …: where a default comes from.
fn source_text(source: Source) -> &'static str {
    match source {
        Source::User => "yours",
        Source::Launch => "from the launch setup",
        Source::Reqntid => "from .reqntid",
        Source::Maxntid => "from .maxntid",
        Source::Estimate => "the analyses' estimate",
        Source::Assumed => "assumed",
    }
}

/// The launch part: threads, registers (override), shared memory, SGPRs on GCN3.
pub fn launch_inputs(view: &OccupancyView, launch: &LaunchSettings, estimate: Html, cb: &InputCallbacks) -> Html {
    let gcn3 = view.gpu.as_ref().is_some_and(|g| g.gcn3);
    let field = |which: LaunchField| cb.on_launch.reform(move |v: Option<u64>| (which, v));
    let threads_hint = match &view.launch_note {
        Some(why) if launch.threads.is_none() => {
            format!("{} ({}): {why}", view.threads.value, source_text(view.threads.source))
        }
        _ => "block x·y·z of the launch setup; edit it there".to_owned(),
    };
    let smem_hint = match &view.launch_note {
        Some(_) if launch.dynamic_shared.is_none() => "0 assumed: the launch setup is not used".to_owned(),
        _ => "the launch setup's".to_owned(),
    };
    let total = view.static_shared.saturating_add(view.dynamic_shared);
    html! {
        <fieldset class="occ-fieldset">
            <legend>{ "Launch and kernel" }</legend>
            <div class="field">
                <span class="label">{ if gcn3 { "Work-items per workgroup" } else { "Threads per block" } }</span>
                <output id="threads" class="value" aria-describedby="threads-hint">{ view.threads.value }</output>
                <span class="field-hint" id="threads-hint"><a href="#block-0">{ threads_hint }</a></span>
            </div>
            { number_field("ptxas-registers", if gcn3 { "VGPRs per work-item".into() } else { "ptxas says N registers".into() }, launch.registers.map(u64::from),
                view.registers.value.to_string(), estimate, field(LaunchField::Registers)) }
            <div class="field">
                <span class="label">{ "Static shared memory" }</span>
                <output id="static-smem" class="value">{ format!("{} B", grouped(view.static_shared)) }</output>
                <span class="field-hint">{ "the kernel's .shared variables" }</span>
            </div>
            <div class="field">
                <span class="label">{ "Dynamic shared memory" }</span>
                <output id="occ-dynamic-smem" class="value">{ format!("{} B", grouped(view.dynamic_shared)) }</output>
                <span class="field-hint" id="occ-dynamic-smem-hint"><a href="#dynamic-smem">{ smem_hint }</a></span>
            </div>
            <div class="field">
                <span class="label">{ "Total shared memory" }</span>
                <output id="occ-total-smem" class="value">{ format!("{} B per block", grouped(total)) }</output>
            </div>
            if let Some(sgprs) = view.sgprs {
                { number_field("sgprs", "SGPRs per wavefront".into(), launch.sgprs.map(u64::from),
                    sgprs.value.to_string(), html! { { if launch.sgprs.is_some() { "yours" } else { "assumed: the analyses do not estimate SGPRs" } } }, field(LaunchField::Sgprs)) }
            }
        </fieldset>
    }
}
