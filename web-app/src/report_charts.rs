//! Chart data from timing reports (one report per scheme): IPC, speed-up, stall breakdown,
//! register-file traffic, reads per value, occupancy over time. Pure functions, tested natively.

use sim_core::timing::{Report, StallCause};

use crate::components::charts::{BarData, LineData, LineSeries, Series};

fn schemes(reports: &[Report]) -> Vec<String> {
    reports.iter().map(|r| r.scheme.clone()).collect()
}

fn bars(reports: &[Report], series: Vec<Series>, y_label: &str) -> BarData {
    BarData {
        categories: schemes(reports),
        series,
        x_label: "Register-file scheme".into(),
        y_label: y_label.into(),
        stacked: false,
        y_max: None,
    }
}

/// Warp-instructions per cycle per scheme.
pub fn ipc_warp(reports: &[Report]) -> BarData {
    let values = reports.iter().map(|r| r.ipc.warp_instructions_per_cycle).collect();
    bars(reports, vec![Series { name: "IPC".into(), values }], "warp-instructions / cycle")
}

/// Thread-instructions per cycle per scheme.
pub fn ipc_thread(reports: &[Report]) -> BarData {
    let values = reports.iter().map(|r| r.ipc.thread_instructions_per_cycle).collect();
    bars(reports, vec![Series { name: "IPC".into(), values }], "thread-instructions / cycle")
}

/// The report to compare against: `baseline` if present, else the first.
pub fn reference(reports: &[Report]) -> Option<&Report> {
    reports.iter().find(|r| r.scheme == "baseline").or(reports.first())
}

/// Speed-up of each scheme over the reference (its cycles / the scheme's cycles).
pub fn speedups(reports: &[Report]) -> Vec<f64> {
    let base = reference(reports).map_or(0, |r| r.cycles) as f64;
    reports.iter().map(|r| if r.cycles > 0 { base / r.cycles as f64 } else { 0.0 }).collect()
}

/// Speed-up bars.
pub fn speedup(reports: &[Report]) -> BarData {
    let base = reference(reports).map_or("baseline".into(), |r| r.scheme.clone());
    bars(
        reports,
        vec![Series { name: "Speed-up".into(), values: speedups(reports) }],
        &format!("× vs {base} (cycles ratio)"),
    )
}

/// Stall breakdown as % of scheduler cycles, stacked.
pub fn stalls(reports: &[Report]) -> BarData {
    let series = StallCause::ALL
        .iter()
        .map(|&cause| Series {
            name: cause.label().into(),
            values: reports
                .iter()
                .map(|r| {
                    let total = r.stalls.total();
                    if total == 0 {
                        0.0
                    } else {
                        100.0 * r.stalls.get(cause) as f64 / total as f64
                    }
                })
                .collect(),
        })
        .collect();
    BarData { stacked: true, y_max: Some(100.0), ..bars(reports, series, "% of scheduler cycles") }
}

/// Register-file reads and writes (warp-register accesses) and bank conflicts (cycles lost).
pub fn register_file(reports: &[Report]) -> BarData {
    let pick = |f: fn(&Report) -> u64| reports.iter().map(|r| f(r) as f64).collect();
    let series = vec![
        Series { name: "reads".into(), values: pick(|r| r.register_file.reads) },
        Series { name: "writes".into(), values: pick(|r| r.register_file.writes) },
        Series { name: "bank conflicts".into(), values: pick(|r| r.register_file.bank_conflicts) },
    ];
    bars(reports, series, "warp-register accesses")
}

/// Produced values by number of reads, % of values.
pub fn reads_per_value(reports: &[Report]) -> BarData {
    let buckets = ["0 reads", "1 read", "2 reads", "> 2 reads"];
    let series = reports
        .iter()
        .map(|r| {
            let h = &r.values.reads_per_value;
            let total = h.total().max(1) as f64;
            let values = [h.zero, h.one, h.two, h.more_than_two].iter().map(|&n| 100.0 * n as f64 / total).collect();
            Series { name: r.scheme.clone(), values }
        })
        .collect();
    BarData {
        categories: buckets.iter().map(|b| (*b).to_owned()).collect(),
        series,
        x_label: "Reads of a produced value".into(),
        y_label: "% of values".into(),
        stacked: false,
        y_max: Some(100.0),
    }
}

/// Achieved occupancy (%) over cycles, one line per scheme.
pub fn occupancy(reports: &[Report]) -> LineData {
    let series = reports
        .iter()
        .map(|r| LineSeries {
            name: r.scheme.clone(),
            points: r
                .occupancy_over_time
                .samples
                .iter()
                .map(|s| (s.cycle as f64, 100.0 * s.achieved_occupancy))
                .collect(),
        })
        .collect();
    LineData { series, x_label: "core cycle".into(), y_label: "achieved occupancy (%)".into(), y_max: Some(100.0) }
}
