//! The occupancy panel: inputs (GPU, launch, registers), the calculator's answer — blocks and
//! warps per SM, occupancy, the limit from every resource with the binding one(s) marked, why 0
//! blocks fit when none does — and the three curves with the kernel's point.
//!
//! ```text
//! Blocks per SM 1 │ Warps per SM 10 of 48 │ Occupancy 20.8 %      Binding limit: registers
//! Warps 4 · Block slots 8 · Registers 1 (binding) · Shared memory 3
//! ```

use std::rc::Rc;

use sim_core::occupancy::{Occupancy, Resource};
use yew::prelude::*;

use super::chart::format::{grouped, percent};
use super::occupancy_charts::OccupancyCharts;
use super::occupancy_inputs::{gpu_inputs, launch_inputs, InputCallbacks};
use crate::model::kernel::{KernelStatus, KernelView};
use crate::model::occupancy::{GpuSettings, LaunchSettings, OccupancyView, PresetChoice, Source};

/// What the occupancy panel shows and reports.
#[derive(Properties, PartialEq)]
pub struct OccupancyPanelProps {
    /// The calculator's answer and curves.
    pub view: Rc<OccupancyView>,
    /// The selected kernel's analyses (for the register estimate).
    pub kernel: Rc<KernelView>,
    /// The GPU settings.
    pub gpu: GpuSettings,
    /// The launch settings.
    pub launch: LaunchSettings,
    /// The presets to offer.
    pub presets: Rc<Vec<PresetChoice>>,
    /// True while the kernel's analyses belong to an older version of the text.
    #[prop_or_default]
    pub stale: bool,
    /// Where changes go.
    pub callbacks: InputCallbacks,
}

/// The name of a resource as the panel shows it.
pub fn resource_name(r: Resource) -> &'static str {
    match r {
        Resource::Warps => "Warps",
        Resource::Blocks => "Block slots",
        Resource::Registers => "Registers",
        Resource::SharedMemory => "Shared memory",
        Resource::Barriers => "Barriers",
        Resource::WaveSlots => "Wave slots",
        Resource::Vgprs => "VGPRs",
        Resource::Sgprs => "SGPRs",
        Resource::Lds => "LDS",
    }
}

/// The panel component.
#[function_component(OccupancyPanel)]
pub fn occupancy_panel(props: &OccupancyPanelProps) -> Html {
    let view = &props.view;
    let kernel = props.kernel.kernel.clone().unwrap_or_else(|| "no kernel".to_owned());
    let gpu_name = view.gpu.as_ref().map(|g| format!("{} ({})", g.name, g.family)).unwrap_or_default();
    let result = match &view.result {
        Ok(o) => result(view, o),
        Err(e) => {
            html! { <p class="occ-error" role="alert" id="occ-error">{ format!("The calculator refused this input: {e}.") }</p> }
        }
    };
    html! {
        <section class={classes!("occupancy", "panel", props.stale.then_some("stale"))} id="occupancy" aria-labelledby="occupancy-title">
            <h2 id="occupancy-title">
                { "Occupancy" }
                <span class="panel-meta"><code class="kernel-ref">{ kernel }</code>{ format!(" on {gpu_name}") }</span>
            </h2>
            <div class="occ-layout">
                <form class="occ-inputs" onsubmit={Callback::from(|e: SubmitEvent| e.prevent_default())}>
                    { gpu_inputs(view, &props.gpu, &props.presets, &props.callbacks) }
                    { launch_inputs(view, &props.launch, estimate(view, &props.kernel), &props.callbacks) }
                </form>
                <div class="occ-result" aria-live="polite">{ result }</div>
            </div>
            <OccupancyCharts view={props.view.clone()} />
        </section>
    }
}

/// The hint under the register field: the estimate, or why there is none.
fn estimate(view: &OccupancyView, kernel: &KernelView) -> Html {
    let text = match (kernel.registers, &kernel.status) {
        (Some(r), _) => format!(
            "estimate {} (allocation for sm_{}; peak live {}){}",
            r.allocated,
            r.target_sm,
            r.max_live,
            if view.registers.source == Source::User { " — overridden" } else { "" }
        ),
        (None, KernelStatus::Skipped { .. }) => "no estimate: kernel too large to analyse while typing".to_owned(),
        (None, KernelStatus::Failed(_)) => "no estimate: the analyses stopped".to_owned(),
        (None, _) => "no estimate until the module compiles".to_owned(),
    };
    let assumed = (view.registers.source == Source::Assumed).then(|| format!("; assuming {}", view.registers.value));
    html! { <span id="register-source">{ text }{ assumed.unwrap_or_default() }</span> }
}

fn result(view: &OccupancyView, o: &Occupancy) -> Html {
    let gcn3 = view.gpu.as_ref().is_some_and(|g| g.gcn3);
    let (blocks, warps, per) =
        if gcn3 { ("Workgroups per CU", "Wavefronts per CU", "CU") } else { ("Blocks per SM", "Warps per SM", "SM") };
    let binding: Vec<&str> = o.binding.iter().map(|&r| resource_name(r)).collect();
    let binding_text = match binding.len() {
        0 => String::new(),
        1 => format!("Binding limit: {}", binding.join("")),
        _ => format!("Binding limits: {}", binding.join(" and ")),
    };
    html! {
        <>
            <dl class="occ-stats">
                <div><dt>{ blocks }</dt><dd id="occ-blocks">{ o.blocks_per_sm }</dd></div>
                <div><dt>{ warps }</dt><dd><span id="occ-warps">{ o.warps_per_sm }</span><span class="of">{ format!(" of {}", o.max_warps_per_sm) }</span></dd></div>
                <div><dt>{ "Occupancy" }</dt><dd id="occ-percent">{ percent(o.occupancy) }</dd></div>
            </dl>
            if o.blocks_per_sm == 0 {
                <div class="occ-misfit" role="alert" id="occ-misfit">
                    <strong>{ format!("No block fits: this kernel cannot run on this {per} with this launch.") }</strong>
                    <ul>{ for o.misfits.iter().map(|m| html! { <li>{ m.to_string() }</li> }) }</ul>
                </div>
            }
            <p class="occ-binding" id="occ-binding">{ binding_text }</p>
            { limits_table(o, gcn3) }
            { allocation(view, o, per) }
        </>
    }
}

fn limits_table(o: &Occupancy, gcn3: bool) -> Html {
    let caption = if gcn3 { "Max workgroups per CU by resource" } else { "Max blocks per SM by resource" };
    html! {
        <table class="kernels occ-limits" id="occ-limits">
            <caption>{ caption }</caption>
            <thead><tr><th scope="col">{ "Resource" }</th><th scope="col" class="num">{ "Limit" }</th><th scope="col">{ "" }</th></tr></thead>
            <tbody>
                { for o.limits.iter().map(|l| {
                    let binding = o.binding.contains(&l.resource);
                    html! {
                        <tr class={classes!("limit", binding.then_some("binding"))} data-resource={l.resource.name()}>
                            <th scope="row">{ resource_name(l.resource) }</th>
                            <td class="num">{ l.blocks.map_or_else(|| "—".to_owned(), |b| b.to_string()) }</td>
                            <td>{ if binding { "binding" } else if l.blocks.is_none() { "not used" } else { "" } }</td>
                        </tr>
                    }
                }) }
            </tbody>
        </table>
    }
}

fn allocation(view: &OccupancyView, o: &Occupancy, per: &str) -> Html {
    let regs = if view.gpu.as_ref().is_some_and(|g| g.gcn3) { "VGPRs" } else { "registers" };
    let chip = view.gpu.as_ref().map(|g| {
        let units = g.sm_count.0;
        let (blocks, warps) = if g.gcn3 { ("workgroups", "wavefronts") } else { ("blocks", "warps") };
        format!(
            "On {units} {per}{}: {} resident {blocks}, {} {warps}.",
            if units == 1 { "" } else { "s" },
            o.blocks_per_sm.saturating_mul(units),
            o.warps_per_sm.saturating_mul(units)
        )
    });
    html! {
        <p class="note occ-alloc">
            { format!(
                "Per block: {} {regs} allocated, {} B shared memory allocated (of {} B per {per}). ",
                grouped(o.registers_per_block),
                grouped(o.shared_memory_per_block),
                grouped(o.shared_memory_per_sm),
            ) }
            { chip.unwrap_or_default() }
        </p>
    }
}
