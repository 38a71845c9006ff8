//! A finished sweep's points, one button each under its line charts: a click opens that point's
//! full report (its headline figures, then the whole report as JSON with a download), a second
//! click on the same point closes it.
//!
//! ```text
//! Point reports: [rfc_entries = 2] [rfc_entries = 8] [rfc_entries = 32]
//! ┌ rfc_entries = 8 (rfc-ob:rfc_entries=8): 1234 cycles · IPC 3.21 · … [Download JSON]
//! └ ▸ Full report (JSON)
//! ```

use std::rc::Rc;

use sim_core::timing::Report;
use yew::prelude::*;

use crate::run_job::RunOutput;
use crate::sweep::SweepPlan;

/// Properties of [`SweepPoints`].
#[derive(Properties, Clone, PartialEq)]
pub struct SweepPointsProps {
    /// The sweep.
    pub plan: Rc<SweepPlan>,
    /// Its finished run (one report per point, in value order).
    pub run: Rc<RunOutput>,
}

/// The point buttons and the open point's report.
#[function_component(SweepPoints)]
pub fn sweep_points(props: &SweepPointsProps) -> Html {
    let open = use_state(|| None::<usize>);
    let plan = &props.plan;
    let buttons = plan.values.iter().enumerate().map(|(i, v)| {
        let pressed = *open == Some(i);
        let onclick = {
            let open = open.clone();
            Callback::from(move |_: MouseEvent| open.set(if pressed { None } else { Some(i) }))
        };
        html! {
            <button type="button" class="sweep-point" data-index={i.to_string()} aria-pressed={pressed.to_string()} {onclick}>
                { format!("{} = {v}", plan.param) }
            </button>
        }
    });
    let report = (*open).and_then(|i| Some((i, props.run.reports.get(i)?, plan.values.get(i)?)));
    html! {
        <div class="sweep-points" id="sweep-points">
            <p>{ "Point reports: " }{ for buttons }</p>
            if let Some((i, r, v)) = report { { point_report(i, &format!("{} = {v}", plan.param), r) } }
        </div>
    }
}

fn point_report(i: usize, title: &str, r: &Report) -> Html {
    let json = serde_json::to_string_pretty(r).unwrap_or_default();
    let download = {
        let json = json.clone();
        Callback::from(move |_: MouseEvent| {
            crate::export::download(&format!("reglab-sweep-point-{i}.json"), "application/json", &json)
        })
    };
    let k = r.kernels.first();
    let figures = format!(
        "{} cycles · {} warp-instructions · IPC {:.3} warp-inst/cycle · {} registers/thread · RF energy {:.1} nJ",
        r.cycles,
        r.warp_instructions,
        r.ipc.warp_instructions_per_cycle,
        k.map_or(0, |k| k.registers_per_thread),
        r.register_file.energy_total_nj,
    );
    html! {
        <section class="sweep-point-report" id="sweep-point-report" data-index={i.to_string()} data-scheme={r.scheme.clone()}>
            <h3>{ format!("{title} ({})", r.scheme) }</h3>
            <p class="sweep-point-figures">{ figures }
                <button type="button" class="sweep-point-download" onclick={download}>{ "Download JSON" }</button></p>
            <details open=true><summary>{ "Full report (JSON)" }</summary><pre class="sweep-point-json">{ json }</pre></details>
        </section>
    }
}
