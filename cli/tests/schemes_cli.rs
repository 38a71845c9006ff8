//! `reglab schemes` and scheme specs on `reglab run`: the listing names every scheme with its
//! parameters and notes; `baseline:collector_units=2` beside `baseline` runs both on one
//! functional run, labelled apart and echoing their configs; bad specs are usage errors (exit 2).

use std::process::Command;

use serde_json::Value as Json;

const ROOT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/..");

/// Runs `reglab ARGS` and returns (exit code, parsed stdout, stdout, stderr).
fn reglab(args: &[&str]) -> (i32, Json, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_reglab")).args(args).current_dir(ROOT).output();
    assert!(out.is_ok(), "cannot run reglab");
    let Ok(out) = out else { return (-1, Json::Null, String::new(), String::new()) };
    let json = serde_json::from_slice(&out.stdout).unwrap_or(Json::Null);
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    (out.status.code().unwrap_or(-1), json, text, String::from_utf8_lossy(&out.stderr).into_owned())
}

const REDUCTION: [&str; 5] =
    ["run", "static/examples/reduction.ptx", "--launch", "static/examples/reduction.launch.json", "--gpu"];

#[test]
fn schemes_lists_every_scheme_with_its_parameters() {
    let (code, json, _, err) = reglab(&["schemes", "--json", "--gpu", "volta-v100"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(json["gpu"], "volta-v100");
    let schemes = json["schemes"].as_array().cloned().unwrap_or_default();
    let names: Vec<&str> = schemes.iter().filter_map(|s| s["name"].as_str()).collect();
    // Scheme families append after these three.
    assert_eq!(names.get(..3), Some(&["baseline", "no-bank-conflicts", "2x-registers"][..]));
    assert!(["finereg", "virtual-thread", "reg-dram"].iter().all(|n| names.contains(n)), "{names:?}");
    assert!(["composite", "scalar-unit", "sliced", "gilani"].iter().all(|n| names.contains(n)), "{names:?}");
    // The first three in this order; later schemes append (DeMO's among them).
    assert!(names.contains(&"demo") && names.contains(&"demo-ideal"));
    // The first three in list order (later schemes append theirs).
    let banks = schemes[0]["params"].as_array().and_then(|p| p.iter().find(|p| p["name"] == "banks")).cloned();
    let banks = banks.unwrap_or(Json::Null);
    // volta-v100: 16 banks over 4 sub-cores, so at least 4.
    assert_eq!((banks["type"].as_str(), banks["default"].as_u64()), (Some("int"), Some(16)), "{banks}");
    assert_eq!((banks["min"].as_f64(), banks["max"].as_f64()), (Some(4.0), Some(1024.0)));
    assert_eq!(banks["assumption"], false);
    assert!(banks["doc"].as_str().is_some_and(|d| !d.is_empty()) && banks["unit"] == "banks per SM");
    let multiplier = schemes[2]["params"].as_array().and_then(|p| p.last()).cloned().unwrap_or(Json::Null);
    assert_eq!((multiplier["name"].as_str(), multiplier["default"].as_u64()), (Some("register_multiplier"), Some(2)));
    assert!(schemes.iter().all(|s| s["notes"].as_array().is_some_and(|n| !n.is_empty()) && s["source"].is_string()));

    let (code, _, text, _) = reglab(&["schemes"]);
    assert_eq!(code, 0);
    assert!(text.contains("baseline — Banked register file") && text.contains("register_multiplier"), "{text}");
    assert!(text.contains("assumption (A):"), "{text}");
}

/// fermi-gtx480 has 16 collectors; with 2 the same instructions wait at least as long for one.
#[test]
fn the_same_scheme_twice_runs_side_by_side() {
    let rest = ["fermi-gtx480", "--scheme", "baseline:collector_units=2", "--scheme", "baseline", "--json"];
    let (code, json, _, err) = reglab(&[&REDUCTION[..], &rest[..]].concat());
    assert_eq!(code, 0, "{err}");
    let reports = json["reports"].as_array().cloned().unwrap_or_default();
    assert_eq!(reports.len(), 2);
    assert_eq!(reports[0]["scheme"], "baseline:collector_units=2");
    assert_eq!(reports[1]["scheme"], "baseline");
    assert_eq!(reports[0]["config"]["params"]["collector_units"], 2);
    assert_eq!(reports[1]["config"]["params"]["collector_units"], 16);
    assert_eq!(reports[1]["config"]["params"]["bank_mapping"], "reg_plus_warp", "defaults echoed too");
    assert_eq!(reports[0]["warp_instructions"], reports[1]["warp_instructions"]);
    let oc = |r: &Json| r["stalls"]["operand_collection"].as_u64().unwrap_or(0);
    assert!(oc(&reports[0]) >= oc(&reports[1]) && oc(&reports[0]) > 0, "{} vs {}", oc(&reports[0]), oc(&reports[1]));
}

/// A scheme file holds `{scheme, params}` entries, the form a report's config echo has.
#[test]
fn scheme_files_hold_specs() {
    let dir = std::env::temp_dir().join(format!("reglab-schemes-{}", std::process::id()));
    let _ = std::fs::create_dir_all(&dir);
    let file = dir.join("schemes.json");
    let written = std::fs::write(&file, r#"[{"scheme": "2x-registers", "params": {"register_multiplier": 4}}]"#);
    assert!(written.is_ok());
    let path = file.display().to_string();
    let rest = ["fermi-gtx480", "--scheme-file", &path, "--sms", "2", "--json"];
    let (code, json, _, err) = reglab(&[&REDUCTION[..], &rest[..]].concat());
    assert_eq!(code, 0, "{err}");
    assert_eq!(json["reports"][0]["scheme"], "2x-registers:register_multiplier=4");
    assert_eq!(json["reports"][0]["config"]["params"]["register_multiplier"], 4);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn bad_specs_are_usage_errors() {
    for (spec, message) in [
        ("baseline:collector_units=-1", "collector_units = -1 is out of range 0 ..= 1024"),
        ("baseline:colector_units=2", "unknown parameter 'colector_units'"),
        ("baseline:banks=many", "banks must be an integer, not 'many'"),
        ("baseline:banks", "'banks' is not key=value"),
        ("no-such-scheme", "unknown register-file scheme 'no-such-scheme'"),
    ] {
        let (code, _, _, err) = reglab(&[&REDUCTION[..], &["fermi-gtx480", "--scheme", spec][..]].concat());
        assert_eq!(code, 2, "{spec}: {err}");
        assert!(err.contains(message), "{spec}: {err}");
    }
    let rest = ["fermi-gtx480", "--scheme", "baseline", "--scheme", "baseline"];
    let (code, _, _, err) = reglab(&[&REDUCTION[..], &rest[..]].concat());
    assert_eq!((code, err.trim()), (2, "reglab run: scheme 'baseline' is given twice"));
}
