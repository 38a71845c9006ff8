//! The results of a timing run, schemes side by side: a summary table, IPC (both units),
//! speed-up, stall breakdown, occupancy over time, register-file traffic and reads per value, each
//! a [`Chart`] with a table fallback; downloads of the reports as JSON and CSV; and how long the
//! run took on this computer (the simulator's throughput, `host_timing.rs`), apart from the
//! deterministic figures.

use std::rc::Rc;

use sim_core::timing::Report;
use yew::prelude::*;

use crate::components::charts::bars::table_num;
use crate::components::charts::{bar_chart, line_chart, table, BarData, Chart, Table};
use crate::host_timing::HostTiming;
use crate::report_charts as rc;
use crate::run_job::RunOutput;

/// Properties of [`RunResults`].
#[derive(Properties, Clone, PartialEq)]
pub struct RunResultsProps {
    /// One report per scheme and the run's host time.
    pub run: Rc<RunOutput>,
}

/// The run's results.
#[function_component(RunResults)]
pub fn run_results(props: &RunResultsProps) -> Html {
    let reports: &[Report] = &props.run.reports;
    let json = {
        let r = props.run.clone();
        Callback::from(move |_: MouseEvent| {
            let text = serde_json::to_string_pretty(&r.reports).unwrap_or_default();
            crate::export::download("reglab-report.json", "application/json", &text);
        })
    };
    let csv = {
        let r = props.run.clone();
        Callback::from(move |_: MouseEvent| {
            crate::export::download("reglab-report.csv", "text/csv", &crate::export::reports_csv(&r.reports))
        })
    };
    let bar = |id: &'static str, title: &'static str, note: Option<&'static str>, data: BarData| {
        html! { <Chart id={id} title={title} note={note.map(AttrValue::from)} body={bar_chart(&data)} table={data.table()} frame={data.frame()} /> }
    };
    let occ = rc::occupancy(reports);
    html! {
        <section class="run-results" id="run-results" aria-labelledby="results-heading">
            <div class="lab-head">
                <h2 id="results-heading">{ "Results" }</h2>
                <span class="results-gpu">{ reports.first().map(|r| format!("{} · {} SMs", r.gpu, r.sms)).unwrap_or_default() }</span>
                <button type="button" id="download-json" onclick={json}>{ "Report JSON" }</button>
                <button type="button" id="download-csv" onclick={csv}>{ "CSV" }</button>
            </div>
            { notices(reports) }
            { tuning(reports) }
            <div class="summary">{ table(&summary(reports)) }</div>
            { host_time(&props.run.host) }
            <div class="charts">
                { bar("ipc-warp", "IPC (warp-instructions per cycle)", Some("Warp-instructions issued per core cycle, whole GPU."), rc::ipc_warp(reports)) }
                { bar("ipc-thread", "IPC (thread-instructions per cycle)", Some("Active-lane instructions per core cycle (GPGPU-Sim's IPC)."), rc::ipc_thread(reports)) }
                { bar("speedup", "Speed-up vs baseline", None, rc::speedup(reports)) }
                { bar("stalls", "Stall breakdown", Some("Every scheduler cycle has one cause; bars add up to 100%."), rc::stalls(reports)) }
                <Chart id="occupancy" title="Achieved occupancy over time" body={line_chart(&occ)} table={occ.table()} frame={occ.frame()}
                       note={AttrValue::from(format!("Resident warps / (SMs × maximum warps per SM), sampled every {} cycles.", reports.first().map_or(0, |r| r.occupancy_over_time.interval_cycles)))} />
                { crate::components::cta_timeline::cta_timeline(reports) }
                { bar("regfile", "Register-file reads, writes and bank conflicts", Some("Reads and writes in warp-registers; bank conflicts in request cycles lost."), rc::register_file(reports)) }
                { bar("reads-per-value", "Reads per produced value", None, rc::reads_per_value(reports)) }
            </div>
        </section>
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

/// One row per scheme with the headline numbers.
fn summary(reports: &[Report]) -> Table {
    let speedups = rc::speedups(reports);
    let headers = [
        "Scheme",
        "Cycles",
        "Warp-instructions",
        "IPC (warp-inst/cycle)",
        "IPC (thread-inst/cycle)",
        "Speed-up",
        "RF reads",
        "RF writes",
        "Bank conflicts",
        "Outcome",
    ];
    let rows = reports
        .iter()
        .zip(speedups)
        .map(|(r, s)| {
            let outcome = match r.outcome {
                sim_core::timing::report::Outcome::Finished => "finished".to_owned(),
                sim_core::timing::report::Outcome::BudgetExceeded { budget_cycles } => {
                    format!("cycle budget {budget_cycles} reached")
                }
                sim_core::timing::report::Outcome::Running => "running".to_owned(),
            };
            vec![
                r.scheme.clone(),
                r.cycles.to_string(),
                r.warp_instructions.to_string(),
                table_num(r.ipc.warp_instructions_per_cycle),
                table_num(r.ipc.thread_instructions_per_cycle),
                format!("{}×", table_num(s)),
                r.register_file.reads.to_string(),
                r.register_file.writes.to_string(),
                r.register_file.bank_conflicts.to_string(),
                outcome,
            ]
        })
        .collect();
    Table { headers: headers.iter().map(|h| (*h).to_owned()).collect(), rows }
}
