//! The results of a timing run, schemes side by side: a headline table (IPC, speed-up over the
//! chosen reference, registers, occupancy, energy), then IPC (both units), speed-up, stall
//! breakdown, occupancy over time, register-file traffic, energy by structure, reads per value and
//! producer→consumer distance, each a [`crate::components::chart::Chart`] with a table fallback; downloads of the reports as
//! JSON and CSV; and how long the run took on this computer (the simulator's throughput,
//! `host_timing.rs`), apart from the deterministic figures. Every figure comes from one
//! [`Comparison`] (`sim_core::timing::summary`), as in the CLI table and the CSV; the reference
//! selector (`#reference-select`, the baseline by default) changes it without a new run.

use std::rc::Rc;

use sim_core::timing::summary::{compare, Comparison};
use sim_core::timing::Report;
use wasm_bindgen::JsCast;
use yew::prelude::*;

use crate::components::chart::format::cell;
use crate::components::chart::{charts, table, ChartSpec, Plot, Table};
use crate::host_timing::HostTiming;
use crate::report_charts as rc;
use crate::run_job::RunOutput;

/// Properties of [`RunResults`].
#[derive(Properties, Clone, PartialEq)]
pub struct RunResultsProps {
    /// One report per scheme and the run's host time.
    pub run: Rc<RunOutput>,
    /// The sweep the run was (its points are the reports, in value order): line charts first.
    #[prop_or_default]
    pub sweep: Option<Rc<crate::sweep::SweepPlan>>,
}

/// The run's results.
#[function_component(RunResults)]
pub fn run_results(props: &RunResultsProps) -> Html {
    let reports: &[Report] = &props.run.reports;
    let chosen = use_state(|| None::<String>);
    let cmp =
        use_memo((props.run.clone(), (*chosen).clone()), |(run, chosen)| compare(&run.reports, chosen.as_deref()));
    let json = {
        let r = props.run.clone();
        Callback::from(move |_: MouseEvent| {
            let text = serde_json::to_string_pretty(&r.reports).unwrap_or_default();
            crate::export::download("reglab-report.json", "application/json", &text);
        })
    };
    let csv = {
        let (r, reference) = (props.run.clone(), cmp.reference.clone());
        Callback::from(move |_: MouseEvent| {
            let text = crate::export::reports_csv(&r.reports, Some(&reference));
            crate::export::download("reglab-report.csv", "text/csv", &text)
        })
    };
    let pick = {
        let chosen = chosen.clone();
        Callback::from(move |e: Event| {
            let value = e.target().and_then(|t| t.dyn_into::<web_sys::HtmlSelectElement>().ok()).map(|s| s.value());
            chosen.set(value);
        })
    };
    let specs = use_memo((props.run.clone(), cmp.clone()), |(run, cmp)| result_charts(&run.reports, cmp));
    html! {
        <section class="run-results" id="run-results" aria-labelledby="results-heading">
            <div class="lab-head">
                <h2 id="results-heading">{ "Results" }</h2>
                <span class="results-gpu">{ reports.first().map(|r| format!("{} · {} SMs", r.gpu, r.sms)).unwrap_or_default() }</span>
                <button type="button" id="download-json" onclick={json}>{ "Report JSON" }</button>
                <button type="button" id="download-csv" onclick={csv}>{ "CSV" }</button>
                <label class="reference-pick">{ "Speed-up vs " }
                    <select id="reference-select" onchange={pick} aria-label="Reference run for speed-ups">
                        { for reports.iter().map(|r| html! {
                            <option value={r.scheme.clone()} selected={r.scheme == cmp.reference}>{ r.scheme.clone() }</option>
                        }) }
                    </select>
                </label>
            </div>
            { notices(reports) }
            { quick_estimate(reports) }
            { wavefront_note(reports) }
            { tuning(reports) }
            { crate::components::slice_map::slice_maps(reports) }
            <div class="summary">{ table(&summary(reports, &cmp)) }</div>
            { crate::components::value_shares::value_shares(&cmp) }
            { crate::components::single_use::single_use(&cmp) }
            { host_time(&props.run.host) }
            { sweep_charts(props.sweep.as_deref(), reports) }
            if let Some(plan) = props.sweep.clone().filter(|p| p.values.len() == reports.len()) {
                <crate::components::sweep_points::SweepPoints plan={plan} run={props.run.clone()} />
            }
            { counters(reports) }
            <div class="charts">{ charts(specs.iter().cloned()) }</div>
        </section>
    }
}

/// The comparison's charts, in page order: IPC (both units), speed-up, stalls, occupancy over
/// time, the CTA timeline, register-file traffic, energy, reads per value, distances.
fn result_charts(reports: &[Report], cmp: &Comparison) -> Vec<ChartSpec> {
    let bars = |id, title: &str, note: &str, data| ChartSpec::new(id, title, Plot::Bars(data)).with_note(note);
    let interval = reports.first().map_or(0, |r| r.occupancy_over_time.interval_cycles);
    vec![
        bars("ipc-warp", "IPC (warp-instructions per cycle)", "Warp-instructions issued per core cycle, whole GPU.", rc::ipc_warp(cmp)),
        bars(
            "ipc-thread",
            "IPC (thread-instructions per cycle)",
            "Active-lane instructions per core cycle (GPGPU-Sim's IPC).",
            rc::ipc_thread(cmp),
        ),
        bars(
            "speedup",
            &format!("Speed-up vs {}", cmp.reference),
            "Reference cycles / the scheme's cycles (1 = as fast; choose the reference above).",
            rc::speedup(cmp),
        ),
        bars("stalls", "Stall breakdown", "Every scheduler cycle has one cause; bars add up to 100%.", rc::stalls(cmp)),
        ChartSpec::new("occupancy", "Achieved occupancy over time", Plot::Lines(rc::occupancy(reports)))
            .with_note(format!("Resident warps / (SMs × maximum warps per SM), sampled every {interval} cycles.")),
        crate::components::cta_timeline::cta_timeline(reports),
        bars(
            "regfile",
            "Register-file reads, writes and bank conflicts",
            "Reads and writes in warp-registers; bank conflicts in request cycles lost.",
            rc::register_file(cmp),
        ),
        bars(
            "energy",
            "Register-file energy by structure",
            "Accesses × energy per access of each structure (the scheme's energy parameters), nJ.",
            rc::energy_by_structure(cmp),
        ),
        bars(
            "reads-per-value",
            "Reads per produced value",
            "How often each value written to a register is read before it is overwritten (Wyse §3).",
            rc::reads_per_value(reports),
        ),
        ChartSpec::new("distance-cdf", "Producer→consumer distance", Plot::Lines(rc::distance_cdf(reports))).with_note(
            "Share of reads whose value was produced at most this many instructions of the same warp earlier (CDF, distances up to 64).",
        ),
    ]
}

/// The schemes' own counters (RFC hits, PCRF moves, …), one row per counter, one column per
/// scheme (empty where a scheme does not count it); nothing when no scheme has any.
fn counters(reports: &[Report]) -> Html {
    let mut names: Vec<&str> = Vec::new();
    for c in reports.iter().flat_map(|r| r.register_file.scheme.counters.iter()) {
        if !names.contains(&c.name.as_str()) {
            names.push(&c.name);
        }
    }
    if names.is_empty() {
        return Html::default();
    }
    let mut headers = vec!["Counter".to_owned()];
    headers.extend(reports.iter().map(|r| r.scheme.clone()));
    let rows = names
        .iter()
        .map(|n| {
            let mut row = vec![(*n).to_owned()];
            row.extend(reports.iter().map(|r| {
                r.register_file
                    .scheme
                    .counters
                    .iter()
                    .find(|c| c.name == *n)
                    .map_or(String::new(), |c| c.value.to_string())
            }));
            row
        })
        .collect();
    html! {
        <details class="scheme-counters" id="scheme-counters">
            <summary>{ format!("Scheme counters ({})", names.len()) }</summary>
            { table(&Table { headers, rows }) }
        </details>
    }
}

/// The line charts of a sweep over its parameter (nothing for a plain comparison).
fn sweep_charts(plan: Option<&crate::sweep::SweepPlan>, reports: &[Report]) -> Html {
    let Some(plan) = plan.filter(|p| p.values.len() == reports.len()) else { return Html::default() };
    let specs = plan.charts(reports).into_iter().map(|(id, title, data)| ChartSpec::new(id, title, Plot::Lines(data)));
    html! { <div class="charts sweep-charts" id="sweep-charts">{ charts(specs) }</div> }
}

/// A quick run's sample, one line per scheme (`sim_core::timing::summary::quick_lines`): the
/// cycles, IPC and speed-ups of the results are the whole run's estimates, every other figure
/// is the sample's.
fn quick_estimate(reports: &[Report]) -> Html {
    let lines = sim_core::timing::summary::quick_lines(reports);
    if lines.is_empty() {
        return html! {};
    }
    html! {
        <div class="quick-estimate" id="quick-estimate" role="status">
            <p>{ "Quick estimate: cycles, IPC and speed-ups are estimates of the whole run; register-file traffic,                   energy and stalls are those of the CTAs timed. A sample whose waves disagree by 10% or more is                   timed again with twice the waves (up to 4 times); a spread still large means the estimate is                   not to be trusted: run in full (Run) for exact figures." }</p>
            <ul>{ for lines.into_iter().map(|(s, l)| html! { <li><strong>{ s }</strong>{ ": " }{ l }</li> }) }</ul>
        </div>
    }
}

/// What precision tuning found (`compression` runs): functional runs, quality reached and the
/// format of every lowered float register, one line per run that tuned.
fn tuning(reports: &[Report]) -> Html {
    let summary = sim_core::timing::regfile::compression_report::tuning_summary;
    let lines: Vec<(String, String)> = reports
        .iter()
        .filter_map(|r| summary(&r.register_file.scheme.counters).map(|l| (r.scheme.clone(), l)))
        .collect();
    if lines.is_empty() {
        return html! {};
    }
    html! {
        <ul class="run-tuning" id="run-tuning">
            { for lines.into_iter().map(|(s, l)| html! { <li><strong>{ s }</strong>{ ": " }{ l }</li> }) }
        </ul>
    }
}

/// What the functional run (shared by every scheme) has to tell the user: divisions by zero and
/// other behaviour PTX leaves to the machine, each with its line.
fn notices(reports: &[Report]) -> Html {
    let list = reports.first().map(|r| r.notices.as_slice()).unwrap_or_default();
    if list.is_empty() {
        return html! {};
    }
    html! {
        <ul class="run-notices" id="run-notices" role="status">
            { for list.iter().map(|n| html! { <li>{ format!("Warning: {n}") }</li> }) }
        </ul>
    }
}

/// The run's host time and throughput, with the raw figures in `data-*` attributes (milliseconds,
/// warp-instructions) for scripts and tests.
fn host_time(h: &HostTiming) -> Html {
    html! {
        <p class="run-host-time" id="run-host-time" role="note"
           title="Host time depends on this computer and browser; the simulated figures above do not."
           data-total-ms={h.total_ms.to_string()}
           data-executor-ms={h.executor_ms.to_string()}
           data-timing-model-ms={h.timing_model_ms().to_string()}
           data-timing-warp-instructions={h.timing_warp_instructions.to_string()}
           data-executor-warp-instructions={h.executor_warp_instructions.to_string()}>
            { h.summary() }
        </p>
    }
}

/// On a 64-wide machine (GCN3), what the figures count: wavefronts, workgroups, the CU.
fn wavefront_note(reports: &[Report]) -> Html {
    let Some(r) = reports.first() else { return Html::default() };
    let wide = sim_core::gpu::presets::by_name(&r.gpu).is_some_and(|g| g.warp_size() == 64);
    if !wide {
        return Html::default();
    }
    html! {
        <p class="note" id="wavefront-note">
            { format!(
                "{} runs 64-wide wavefronts: a warp-instruction here is a wavefront-instruction (up to 64 threads), \
                 a CTA a workgroup and an SM the compute unit. Each wavefront is replayed from two of the executor's \
                 32-thread warps, so the kernel's outputs are those of a 32-wide run.",
                r.gpu
            ) }
        </p>
    }
}

/// One row per scheme with the headline numbers (the first five columns are read by the browser
/// tests: scheme, cycles, warp-instructions, the two IPCs).
fn summary(reports: &[Report], cmp: &Comparison) -> Table {
    let headers = [
        "Scheme",
        "Cycles",
        "Warp-instructions",
        "IPC (warp-inst/cycle)",
        "IPC (thread-inst/cycle)",
        "Speed-up",
        "Registers/thread",
        "CTAs/SM",
        "Occupancy",
        "RF energy (nJ)",
        "RF reads",
        "RF writes",
        "Bank conflicts",
        "Outcome",
    ];
    let rows = reports
        .iter()
        .zip(&cmp.rows)
        .map(|(r, s)| {
            let outcome = match r.outcome {
                sim_core::timing::report::Outcome::BudgetExceeded { budget_cycles } => {
                    format!("cycle budget {budget_cycles} reached")
                }
                _ => s.outcome.clone(),
            };
            vec![
                s.scheme.clone(),
                s.cycles.to_string(),
                r.warp_instructions.to_string(),
                cell(s.warp_ipc),
                cell(s.thread_ipc),
                format!("{}×", cell(s.speedup)),
                s.registers_per_thread.to_string(),
                s.ctas_per_sm.to_string(),
                format!("{}%", cell(100.0 * s.occupancy)),
                cell(s.energy_nj),
                s.rf_reads.to_string(),
                s.rf_writes.to_string(),
                s.bank_conflicts.to_string(),
                outcome,
            ]
        })
        .collect();
    Table { headers: headers.iter().map(|h| (*h).to_owned()).collect(), rows }
}
