//! A minimal GPU preset picker for the run panel (the preset list comes from `sim-core`).

use web_sys::HtmlSelectElement;
use yew::prelude::*;

/// Properties of [`GpuSelect`].
#[derive(Properties, Clone, PartialEq)]
pub struct GpuSelectProps {
    /// The chosen preset name.
    pub value: AttrValue,
    /// Receives the new preset name.
    pub on_change: Callback<String>,
}

/// `<select>` of the GPU presets.
#[function_component(GpuSelect)]
pub fn gpu_select(props: &GpuSelectProps) -> Html {
    let onchange = props.on_change.reform(|e: Event| e.target_unchecked_into::<HtmlSelectElement>().value());
    html! {
        <label class="gpu-select">{ "GPU " }
            <select id="run-gpu" onchange={onchange}>
                { for sim_core::gpu::presets::names().map(|n| html! { <option value={n} selected={props.value == n}>{ n }</option> }) }
            </select>
        </label>
    }
}
