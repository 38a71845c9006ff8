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
    assert_eq!(points[1]["speedup"].as_f64(), Some(1.0));
    // Speed-up = reference cycles / the point's cycles (to the last bit JSON parsing keeps).
    let (c8, c2) = (points[1]["cycles"].as_f64().unwrap_or(0.0), points[0]["cycles"].as_f64().unwrap_or(1.0));
    assert!(points[0]["speedup"].as_f64().is_some_and(|s| (s - c8 / c2).abs() < 1e-12), "{}", points[0]["speedup"]);
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

/// Runs `reglab ARGS` with `input` on standard input: (exit code, stdout, stderr).
fn reglab_text(args: &[&str], input: &str) -> (i32, String, String) {
    use std::io::Write as _;
    use std::process::Stdio;
    let child = Command::new(env!("CARGO_BIN_EXE_reglab"))
        .args(args)
        .current_dir(ROOT)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn();
    let Ok(mut child) = child else { return (-1, String::new(), String::new()) };
    if let Some(mut stdin) = child.stdin.take() {
        assert!(stdin.write_all(input.as_bytes()).is_ok());
    }
    let Ok(out) = child.wait_with_output() else { return (-1, String::new(), String::new()) };
    let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
    (out.status.code().unwrap_or(-1), text(&out.stdout), text(&out.stderr))
}

/// `rfc_entries=2..16*2` is the four points 2, 4, 8, 16. Shard 0/2 prints points 0 and 2, shard
/// 1/2 points 1 and 3 (the reference, 8 = point 2, is timed in shard 1 too, so its relative IPCs
/// are the same); the shards' lines together are exactly the unsharded lines, and `reglab merge
/// --json` of the shards, in any order, reproduces the unsharded output byte for byte.
#[test]
fn shards_together_equal_the_whole_sweep_and_merge_joins_them() {
    let rest = ["--param", "rfc_entries=2..16*2", "--reference", "8"];
    let sweep = [&SWEEP[..], &rest[..]].concat();
    let (code, whole, err) = reglab_text(&sweep, "");
    assert_eq!(code, 0, "{err}");
    let lines: Vec<&str> = whole.lines().collect();
    assert_eq!(lines.len(), 4);
    let shard = |k: &str| reglab_text(&[&sweep[..], &["--shard", k][..]].concat(), "");
    let ((c0, s0, e0), (c1, s1, e1)) = (shard("0/2"), shard("1/2"));
    assert_eq!((c0, c1), (0, 0), "{e0}{e1}");
    let (l0, l1): (Vec<&str>, Vec<&str>) = (s0.lines().collect(), s1.lines().collect());
    assert_eq!(l0, [lines[0], lines[2]]);
    assert_eq!(l1, [lines[1], lines[3]]);
    let point: Json = serde_json::from_str(lines[3]).unwrap_or(Json::Null);
    assert_eq!(
        (point["index"].as_u64(), point["points"].as_u64(), point["value"].as_i64()),
        (Some(3), Some(4), Some(16))
    );
    assert_eq!(point["report"]["scheme"], "rfc-ob:rfc_entries=16");
    assert_eq!(point["report"]["cycles"], point["cycles"]);

    let (code, merged, err) = reglab_text(&["merge", "--json"], &format!("{s1}{s0}"));
    assert_eq!(code, 0, "{err}");
    assert_eq!(merged, whole);
    let (code, csv, _) = reglab_text(&["merge", "--csv"], &format!("{s1}{s0}"));
    assert_eq!(code, 0);
    let rows: Vec<&str> = csv.lines().collect();
    assert_eq!(rows.len(), 5);
    assert!(rows[0].starts_with("index,scheme,rfc_entries,cycles,"), "{}", rows[0]);
    assert!(rows[3].starts_with("2,rfc-ob:rfc_entries=8,8,"), "{}", rows[3]);
    // A missing shard is named, with exit code 1.
    let (code, _, err) = reglab_text(&["merge"], &s0);
    assert_eq!(code, 1);
    assert!(err.contains("2 of 4 points missing: 1, 3"), "{err}");
}

/// Bad shards and ranges are usage errors naming the flag.
#[test]
fn bad_shards_and_ranges_are_usage_errors() {
    let (code, _, err) = reglab_text(&[&SWEEP[..], &["--param", "rfc_entries=2,4", "--shard", "2/2"][..]].concat(), "");
    assert_eq!(code, 2);
    assert!(err.contains("--shard 2/2"), "{err}");
    let (code, _, err) = reglab_text(&[&SWEEP[..], &["--param", "rfc_entries=8..2*2"][..]].concat(), "");
    assert_eq!(code, 2);
    assert!(err.contains("end is below the start"), "{err}");
}
