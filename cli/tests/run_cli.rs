//! `reglab run` end to end: a bundled example through two schemes gives one report each (same
//! functional run, so the same instruction counts; only the baseline has bank conflicts), and a
//! GPU the model cannot simulate is a structured error (exit 1, JSON on stdout), never a crash.

use std::process::Command;

use serde_json::Value as Json;

const ROOT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/..");

/// Runs `reglab run` and returns (exit code, parsed stdout, stderr).
fn run(args: &[&str]) -> (i32, Json, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_reglab")).arg("run").args(args).current_dir(ROOT).output();
    assert!(out.is_ok(), "cannot run reglab");
    let Ok(out) = out else { return (-1, Json::Null, String::new()) };
    let json = serde_json::from_slice(&out.stdout).unwrap_or(Json::Null);
    (out.status.code().unwrap_or(-1), json, String::from_utf8_lossy(&out.stderr).into_owned())
}

#[test]
fn schemes_share_one_functional_run() {
    let (code, json, err) = run(&[
        "static/examples/imgvf.ptx",
        "--launch",
        "static/examples/imgvf.launch.json",
        "--gpu",
        "fermi-gtx480",
        "--scheme",
        "baseline",
        "--scheme",
        "no-bank-conflicts",
        "--json",
    ]);
    assert_eq!(code, 0, "{err}");
    let reports = json["reports"].as_array().cloned().unwrap_or_default();
    assert_eq!(reports.len(), 2);
    assert_eq!(reports[0]["scheme"], "baseline");
    assert_eq!(reports[1]["scheme"], "no-bank-conflicts");
    assert!(reports[0]["warp_instructions"].as_u64().unwrap_or(0) > 0);
    assert_eq!(reports[0]["warp_instructions"], reports[1]["warp_instructions"]);
    // The variant removes every bank conflict the baseline has (cycles may still differ either
    // way by a little: scheduling order changes with the timing).
    assert!(reports[0]["register_file"]["bank_conflicts"].as_u64().unwrap_or(0) > 0, "{}", reports[0]);
    assert_eq!(reports[1]["register_file"]["bank_conflicts"], 0);
}

#[test]
fn an_unsupported_gpu_is_a_structured_error() {
    let (code, json, err) = run(&[
        "static/examples/imgvf.ptx",
        "--launch",
        "static/examples/imgvf.launch.json",
        "--gpu",
        "gcn3-cu",
        "--json",
    ]);
    assert_eq!(code, 1, "stderr: {err}");
    assert!(!err.contains("panicked"), "{err}");
    assert_eq!(json["error"]["error"], "unsupported_gpu", "{json}");
    assert!(json["message"].as_str().unwrap_or("").contains("64-wide"), "{json}");
}
