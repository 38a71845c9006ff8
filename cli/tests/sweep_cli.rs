//! `reglab sweep`: one scheme parameter over a list of values, one JSON line per point in the
//! order given, IPC relative to the reference point, reads saved for a scheme with an RFC; bad
//! parameters and references are usage errors (exit 2).

use std::process::Command;

use serde_json::Value as Json;

const ROOT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/..");

/// Runs `reglab ARGS`: (exit code, stdout lines parsed as JSON, stderr).
fn reglab(args: &[&str]) -> (i32, Vec<Json>, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_reglab")).args(args).current_dir(ROOT).output();
    assert!(out.is_ok(), "cannot run reglab");
    let Ok(out) = out else { return (-1, Vec::new(), String::new()) };
    let lines =
        String::from_utf8_lossy(&out.stdout).lines().map(|l| serde_json::from_str(l).unwrap_or(Json::Null)).collect();
    (out.status.code().unwrap_or(-1), lines, String::from_utf8_lossy(&out.stderr).into_owned())
}

const SWEEP: [&str; 8] = [
    "sweep",
    "static/examples/reduction.ptx",
    "--launch",
    "static/examples/reduction.launch.json",
    "--gpu",
    "fermi-gtx480",
    "--scheme",
    "rfc-ob",
];

/// Reduction on fermi-gtx480: the RFC serves more of the OB's reads as it grows (a larger LRU
/// cache holds a superset of the smaller one's recent values here), the reference point has
/// relative IPC 1 and the total OB reads do not depend on the size.
#[test]
fn rfc_size_sweep_prints_one_line_per_point() {
    let rest = ["--param", "rfc_entries", "--values", "2,8,512", "--reference", "8"];
    let (code, points, err) = reglab(&[&SWEEP[..], &rest[..]].concat());
    assert_eq!(code, 0, "{err}");
    assert_eq!(points.len(), 3);
    let values: Vec<i64> = points.iter().filter_map(|p| p["value"].as_i64()).collect();
    assert_eq!(values, [2, 8, 512]);
    assert_eq!(points[0]["scheme"], "rfc-ob:rfc_entries=2");
    assert_eq!(points[1]["relative_ipc"].as_f64(), Some(1.0));
    let saved: Vec<f64> = points.iter().filter_map(|p| p["reads_saved"].as_f64()).collect();
    assert_eq!(saved.len(), 3);
    assert!(saved.windows(2).all(|w| w[0] <= w[1]), "{saved:?}");
    let ob_reads: Vec<u64> = points.iter().filter_map(|p| p["counters"]["ob_reads"].as_u64()).collect();
    assert!(ob_reads.len() == 3 && ob_reads.iter().all(|&n| n == ob_reads[0] && n > 0), "{ob_reads:?}");
    assert!(points.iter().all(|p| p["cycles"].as_u64().is_some_and(|c| c > 0) && p["structures"]["rfc"].is_object()));
}

/// A scheme without RFC counters: `reads_saved` is null; any parameter can be swept.
#[test]
fn any_scheme_and_parameter_and_usage_errors() {
    let base = ["sweep", "static/examples/reduction.ptx", "--launch", "static/examples/reduction.launch.json"];
    let rest = ["--gpu", "fermi-gtx480", "--scheme", "baseline", "--param", "collector_units", "--values", "2,16"];
    let (code, points, err) = reglab(&[&base[..], &rest[..]].concat());
    assert_eq!(code, 0, "{err}");
    assert_eq!(points.len(), 2);
    assert!(points.iter().all(|p| p["reads_saved"].is_null()));
    assert_eq!(points[0]["relative_ipc"].as_f64(), Some(1.0));

    let bad = ["--param", "no_such", "--values", "1"];
    let (code, _, err) = reglab(&[&SWEEP[..], &bad[..]].concat());
    assert_eq!(code, 2);
    assert!(err.contains("no_such"), "{err}");
    let bad_ref = ["--param", "rfc_entries", "--values", "2,4", "--reference", "8"];
    let (code, _, err) = reglab(&[&SWEEP[..], &bad_ref[..]].concat());
    assert_eq!(code, 2);
    assert!(err.contains("--reference 8"), "{err}");
}
