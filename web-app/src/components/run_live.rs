//! What a run shows while it goes on (`run_pool.rs` feeds it): one progress bar per scheme or
//! sweep point, with how many workers share the run, and, for a sweep, the line charts of the
//! points finished so far, which fill in as the workers finish (`#sweep-live`, with the count of
//! finished points in `data-points-done` for scripts and tests).
//!
//! ```text
//! 2 workers · baseline ▓▓▓▓▓▓░░ 75%  ·  rfc-ob ▓▓▓▓▓▓▓▓ done  · …
//! Sweep so far: 1 of 3 points   [IPC vs rfc_entries] [Relative IPC …] …
//! ```

use yew::prelude::*;

use crate::components::chart::{charts, ChartSpec, LineData, Plot};
use crate::run_pool::PartialRun;
use crate::sweep::SweepPlan;

/// One progress bar per scheme (labels in the order asked), nothing before the first message.
pub fn scheme_progress(labels: &[String], partial: Option<&PartialRun>) -> Html {
    let Some(p) = partial.filter(|p| p.fractions.len() == labels.len()) else { return Html::default() };
    let workers = format!("{} worker{}", p.workers, if p.workers == 1 { "" } else { "s" });
    html! {
        <div class="scheme-progress" id="scheme-progress" data-workers={p.workers.to_string()}>
            <span class="scheme-progress-workers">{ workers }</span>
            <ul>
                { for labels.iter().zip(&p.fractions).enumerate().map(|(i, (label, f))| {
                    let done = p.reports.get(i).is_some_and(Option::is_some);
                    let text = if done { "done".to_owned() } else { format!("{:.0}%", f * 100.0) };
                    html! {
                        <li data-scheme={label.clone()} data-done={done.to_string()}>
                            <span class="scheme-progress-label">{ label.clone() }</span>
                            <progress max="1" value={f.to_string()} aria-label={format!("{label} progress")} />
                            <span class="scheme-progress-text">{ text }</span>
                        </li>
                    }
                }) }
            </ul>
        </div>
    }
}

/// The sweep's line charts over the points finished so far (nothing for a plain comparison).
pub fn sweep_live(plan: Option<&SweepPlan>, partial: Option<&PartialRun>) -> Html {
    let Some(plan) = plan else { return Html::default() };
    let reports: Vec<Option<&sim_core::timing::Report>> = match partial {
        Some(p) if p.reports.len() == plan.values.len() => p.reports.iter().map(|r| r.as_deref()).collect(),
        _ => vec![None; plan.values.len()],
    };
    let done = reports.iter().filter(|r| r.is_some()).count();
    html! {
        <section class="run-results sweep-live" id="sweep-live" aria-live="polite"
                 data-points-done={done.to_string()} data-points={plan.values.len().to_string()}>
            <p class="sweep-live-note">
                { format!("Sweep so far: {done} of {} points of {} finished; the lines fill in as points finish.", plan.values.len(), plan.param) }
            </p>
            if done > 0 {
                <div class="charts">
                    { for plan.charts_so_far(&reports).into_iter().map(|(id, title, data)| live_chart(format!("live-{id}"), title, data)) }
                </div>
            }
        </section>
    }
}

/// One live chart (the only call of the chart API here).
fn live_chart(id: String, title: String, data: LineData) -> Html {
    charts([ChartSpec::new(id, title, Plot::Lines(data))])
}
