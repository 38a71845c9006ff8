//! Chart data from timing reports (one report per scheme) and their comparison
//! (`sim_core::timing::summary`, the vocabulary the CLI and the CSV use too): IPC, speed-up over the
//! chosen reference, stall breakdown, register-file traffic, energy by structure, reads per value,
//! producer→consumer distance, occupancy over time. Pure functions, tested natively. A scheme is
//! drawn in the colour of its position in the run (`BarData::category_colours`, the `colour` of
//! a scheme's line), in every chart.

use sim_core::timing::summary::Comparison;
use sim_core::timing::{Report, StallCause};

use crate::components::chart::{BarData, LineData, LineSeries, Series};

fn schemes(cmp: &Comparison) -> Vec<String> {
    cmp.rows.iter().map(|r| r.scheme.clone()).collect()
}

fn bars(cmp: &Comparison, series: Vec<Series>, y_label: &str) -> BarData {
    BarData {
        categories: schemes(cmp),
        series,
        x_label: "Register-file scheme".into(),
        y_label: y_label.into(),
        ..BarData::default()
    }
}

/// One bar per scheme, each in its scheme's colour.
fn per_scheme(cmp: &Comparison, name: &str, values: Vec<f64>, y_label: &str) -> BarData {
    BarData { category_colours: true, ..bars(cmp, vec![Series { name: name.into(), values, colour: 0 }], y_label) }
}

/// Warp-instructions per cycle per scheme.
pub fn ipc_warp(cmp: &Comparison) -> BarData {
    per_scheme(cmp, "IPC", cmp.rows.iter().map(|r| r.warp_ipc).collect(), "warp-instructions / cycle")
}

/// Thread-instructions per cycle per scheme.
pub fn ipc_thread(cmp: &Comparison) -> BarData {
    per_scheme(cmp, "IPC", cmp.rows.iter().map(|r| r.thread_ipc).collect(), "thread-instructions / cycle")
}

/// Speed-up bars over the comparison's reference.
pub fn speedup(cmp: &Comparison) -> BarData {
    let values = cmp.rows.iter().map(|r| r.speedup).collect();
    per_scheme(cmp, "Speed-up", values, &format!("× vs {} (cycles ratio)", cmp.reference))
}

/// Stall breakdown as % of scheduler cycles, stacked; every cause any run lists, by name.
pub fn stalls(cmp: &Comparison) -> BarData {
    let series = cmp
        .stall_causes()
        .into_iter()
        .enumerate()
        .map(|(colour, cause): (usize, StallCause)| Series {
            name: cause.label().into(),
            values: cmp.rows.iter().map(|r| 100.0 * r.stall(cause)).collect(),
            colour,
        })
        .collect();
    BarData { stacked: true, y_max: Some(100.0), ..bars(cmp, series, "% of scheduler cycles") }
}

/// Register-file reads and writes (warp-register accesses) and bank conflicts (cycles lost).
pub fn register_file(cmp: &Comparison) -> BarData {
    let pick = |f: fn(&sim_core::timing::summary::SchemeSummary) -> u64| cmp.rows.iter().map(|r| f(r) as f64).collect();
    let series = vec![
        Series { name: "reads".into(), values: pick(|r| r.rf_reads), colour: 0 },
        Series { name: "writes".into(), values: pick(|r| r.rf_writes), colour: 1 },
        Series { name: "bank conflicts".into(), values: pick(|r| r.bank_conflicts), colour: 2 },
    ];
    bars(cmp, series, "warp-register accesses")
}

/// Register-file energy per scheme, stacked by structure (main RF, RF cache, …), in nJ.
pub fn energy_by_structure(cmp: &Comparison) -> BarData {
    let series = cmp
        .structure_names()
        .into_iter()
        .enumerate()
        .map(|(colour, name)| {
            let values = cmp
                .rows
                .iter()
                .map(|r| r.structures.iter().find(|s| s.name == name).map_or(0.0, |s| s.energy_nj))
                .collect();
            Series { name, values, colour }
        })
        .collect();
    BarData { stacked: true, ..bars(cmp, series, "register-file energy (nJ)") }
}

/// Runs with the same value statistics drawn once: `(names joined, colour, report)` per distinct
/// figure, in the colour of its first scheme.
fn distinct_values(reports: &[Report]) -> Vec<(String, usize, &Report)> {
    let mut groups: Vec<(Vec<&str>, usize, &Report)> = Vec::new();
    for (i, r) in reports.iter().enumerate() {
        match groups.iter_mut().find(|(_, _, g)| g.values == r.values) {
            Some((names, _, _)) => names.push(&r.scheme),
            None => groups.push((vec![r.scheme.as_str()], i, r)),
        }
    }
    if groups.len() == 1 && reports.len() > 1 {
        return groups.into_iter().map(|(_, c, r)| ("every scheme".to_owned(), c, r)).collect();
    }
    groups.into_iter().map(|(names, c, r)| (names.join(", "), c, r)).collect()
}

/// Produced values by number of reads, % of values (one series per distinct figure: the
/// statistics come from the instruction streams, the same for schemes that time the same program).
pub fn reads_per_value(reports: &[Report]) -> BarData {
    let buckets = ["0 reads", "1 read", "2 reads", "> 2 reads"];
    let series = distinct_values(reports)
        .into_iter()
        .map(|(name, colour, r)| {
            let h = &r.values.reads_per_value;
            let total = h.total().max(1) as f64;
            let values = [h.zero, h.one, h.two, h.more_than_two].iter().map(|&n| 100.0 * n as f64 / total).collect();
            Series { name, values, colour }
        })
        .collect();
    BarData {
        categories: buckets.iter().map(|b| (*b).to_owned()).collect(),
        series,
        x_label: "Reads of a produced value".into(),
        y_label: "% of values".into(),
        y_max: Some(100.0),
        ..BarData::default()
    }
}

/// CDF of producer→consumer distance (% of reads at that distance or closer), one line per
/// distinct figure.
pub fn distance_cdf(reports: &[Report]) -> LineData {
    let series = distinct_values(reports)
        .into_iter()
        .map(|(name, colour, r)| LineSeries {
            name,
            colour,
            dashed: false,
            points: r
                .values
                .distance_cdf
                .iter()
                .map(|p| (f64::from(p.distance), 100.0 * p.cumulative_fraction))
                .collect(),
        })
        .collect();
    LineData {
        series,
        x_label: "producer→consumer distance (instructions of the warp)".into(),
        y_label: "% of reads at or below".into(),
        y_max: Some(100.0),
        ..LineData::default()
    }
}

/// Achieved occupancy (%) over cycles, one line per scheme.
pub fn occupancy(reports: &[Report]) -> LineData {
    let series = reports
        .iter()
        .enumerate()
        .map(|(colour, r)| LineSeries {
            name: r.scheme.clone(),
            colour,
            dashed: false,
            points: r
                .occupancy_over_time
                .samples
                .iter()
                .map(|s| (s.cycle as f64, 100.0 * s.achieved_occupancy))
                .collect(),
        })
        .collect();
    LineData {
        series,
        x_label: "core cycle".into(),
        y_label: "achieved occupancy (%)".into(),
        y_max: Some(100.0),
        ..LineData::default()
    }
}
