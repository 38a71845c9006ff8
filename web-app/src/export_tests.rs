//! The CSV and the energy chart of a real run: vector add on turing-rtx2060 under `rfc-ob` (listed
//! first) and `baseline`.

use sim_core::exec::LaunchSetup;
use sim_core::timing::summary::compare;
use sim_core::timing::{Report, SchemeSpec};

use super::reports_csv;
use crate::run_job::{execute, RunRequest};

fn reports() -> Vec<Report> {
    reports_with(false)
}

fn reports_with(record_values: bool) -> Vec<Report> {
    let ex = crate::examples::find("vector_add");
    let launch = crate::examples::launch_for("vector_add").and_then(|t| LaunchSetup::from_json(t).ok());
    let (Some(ex), Some(launch), Some(gpu)) = (ex, launch, sim_core::gpu::presets::by_name("turing-rtx2060")) else {
        return Vec::new();
    };
    let req = RunRequest {
        ptx: ex.source.into(),
        launch,
        gpu,
        schemes: vec![SchemeSpec::named("rfc-ob"), SchemeSpec::named("baseline")],
        registers_per_thread: None,
        record_values,
        quick: false,
        searches: Default::default(),
    };
    execute(&req, |_| {}).map(|o| o.reports).unwrap_or_default()
}

/// The speed-up is over the baseline although it is second; structural stalls have their own
/// column; each structure has reads, writes and energy (the baseline has no RFC: zeros).
#[test]
fn csv_speedups_are_over_the_baseline_and_stalls_are_named() {
    let reports = reports();
    assert_eq!(reports.len(), 2);
    let csv = reports_csv(&reports, None);
    let lines: Vec<Vec<&str>> = csv.lines().map(|l| l.split(',').collect()).collect();
    let col = |name: &str| lines[0].iter().position(|h| *h == name);
    let (Some(reference), Some(speedup), Some(structural), Some(rfc)) =
        (col("reference"), col("speedup_vs_reference"), col("stall_structural"), col("rfc_energy_nj"))
    else {
        unreachable!("missing columns in {}", csv.lines().next().unwrap_or_default())
    };
    assert!(col("stall_other").is_none() && col("main_rf_reads").is_some());
    // Values not recorded: no share columns; the baseline counted DeMO's single-use figures.
    assert!(col("redundant_across_warp_share").is_none());
    let Some(single) = col("single_use_access_share") else { unreachable!("no single-use columns in {csv}") };
    assert_eq!(lines[1][single], "");
    let expected_single =
        sim_core::timing::summary::single_use_share(&reports[1]).map(|u| format!("{:.6}", u.access_share));
    assert_eq!(Some(lines[2][single].to_owned()), expected_single);
    assert_eq!((lines[1][0], lines[2][0]), ("rfc-ob", "baseline"));
    assert_eq!((lines[1][reference], lines[2][reference]), ("baseline", "baseline"));
    assert_eq!(lines[2][speedup], "1.000000");
    let expected = reports[1].cycles as f64 / reports[0].cycles as f64;
    assert_eq!(lines[1][speedup], format!("{expected:.6}"));
    assert_eq!(lines[2][structural], reports[1].stalls.get(sim_core::timing::StallCause::Structural).to_string());
    assert_eq!(lines[2][rfc], "0.000000");
    // Choosing rfc-ob as the reference inverts the ratio.
    let chosen = reports_csv(&reports, Some("rfc-ob"));
    let row: Vec<&str> = chosen.lines().nth(2).map(|l| l.split(',').collect()).unwrap_or_default();
    assert_eq!(row[speedup], format!("{:.6}", 1.0 / expected));
}

/// With the lanes' values recorded (every run the page starts), both rows carry the kernel's
/// value shares, the same in each, as the comparison computes them.
#[test]
fn csv_has_the_value_shares_of_every_run() {
    let reports = reports_with(true);
    assert_eq!(reports.len(), 2);
    let csv = reports_csv(&reports, None);
    let lines: Vec<Vec<&str>> = csv.lines().map(|l| l.split(',').collect()).collect();
    let col = |name: &str| lines[0].iter().position(|h| *h == name);
    let (Some(share), Some(of)) = (col("redundant_across_warp_share"), col("value_instructions")) else {
        unreachable!("no share columns in {csv}")
    };
    let shares = compare(&reports, None).rows[1].value_shares;
    let Some(v) = shares else { unreachable!("the baseline has no value shares") };
    assert!(v.redundant_of > 0);
    for line in &lines[1..] {
        assert_eq!(
            (line[share], line[of]),
            (format!("{:.6}", v.redundant).as_str(), v.redundant_of.to_string().as_str())
        );
    }
}

/// The energy chart stacks the structures: the baseline's bar is its main RF alone, rfc-ob's the
/// sum of main RF and RFC (and whatever else it reports), equal to its report's total.
#[test]
fn energy_by_structure_stacks_to_the_total() {
    let reports = reports();
    let cmp = compare(&reports, None);
    let data = crate::report_charts::energy_by_structure(&cmp);
    assert!(data.stacked);
    assert_eq!(data.series.first().map(|s| s.name.as_str()), Some("main_rf"));
    assert!(data.series.iter().any(|s| s.name == "rfc"));
    for (c, r) in reports.iter().enumerate() {
        let stack: f64 = data.series.iter().map(|s| s.values[c]).sum();
        assert!((stack - r.register_file.energy_total_nj).abs() < 1e-6, "{} {stack}", r.scheme);
    }
    // One distance CDF for both (same program), labelled as such.
    let cdf = crate::report_charts::distance_cdf(&reports);
    assert_eq!(cdf.series.len(), 1);
    assert_eq!(cdf.series[0].name, "every scheme");
}
