//! `reglab occupancy` end to end: the issue's JSON shape, Angerd's IMGVF example, calculator-only
//! mode, GCN3 and usage errors.
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests fail loudly")]

use std::process::{Command, Output};

fn reglab(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_reglab")).arg("occupancy").args(args).output().expect("reglab runs")
}

fn json(args: &[&str]) -> serde_json::Value {
    let out = reglab(args);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap()
}

const IMGVF: [&str; 8] = ["--gpu", "fermi-gtx480", "--threads", "320", "--smem", "14560", "--json", "--regs"];

#[test]
fn imgvf_json_has_the_issue_shape_in_order() {
    let out = reglab(&[&IMGVF[..], &["29"]].concat());
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(
        text.trim(),
        r#"{"blocks_per_sm":3,"warps_per_sm":30,"occupancy":0.625,"limits":{"warps":4,"blocks":8,"registers":3,"shared_memory":3},"binding":["registers","shared_memory"]}"#
    );
    let original = json(&[&IMGVF[..], &["52"]].concat());
    assert_eq!(original["blocks_per_sm"], 1);
    assert_eq!(original["binding"], serde_json::json!(["registers"]));
    let high_quality = json(&[&IMGVF[..], &["24"]].concat());
    assert_eq!(high_quality["blocks_per_sm"], 3);
    assert_eq!(high_quality["binding"], serde_json::json!(["shared_memory"]));
}

#[test]
fn gt200_reports_why_nothing_fits() {
    let v = json(&["--gpu", "gt200-fx5800", "--regs", "52", "--threads", "320", "--smem", "14560", "--json"]);
    assert_eq!(v["blocks_per_sm"], 0);
    assert_eq!(v["occupancy"], 0.0);
    let reason = v["reasons"][0].as_str().unwrap();
    assert!(reason.starts_with("registers: 52 registers × 320 threads"), "{reason}");
}

#[test]
fn calculator_only_mode_and_gcn3() {
    let v = json(&["--cc", "8.6", "--regs", "64", "--threads", "256", "--json"]);
    assert_eq!((v["blocks_per_sm"].as_u64(), v["warps_per_sm"].as_u64()), (Some(4), Some(32)));
    assert_eq!(v["limits"]["shared_memory"], 100, "1 KB reserved per block");
    let v = json(&[
        "--cc",
        "9.0",
        "--regs",
        "32",
        "--threads",
        "128",
        "--dyn-smem",
        "102400",
        "--max-dyn-smem",
        "102400",
        "--json",
    ]);
    assert_eq!(v["blocks_per_sm"], 2);
    let v = json(&["--gpu", "gcn3-cu", "--regs", "84", "--sgprs", "24", "--threads", "64", "--json"]);
    assert_eq!(v["limits"], serde_json::json!({"wave_slots": 40, "vgprs": 12, "sgprs": 66, "lds": null}));
    assert_eq!(v["binding"], serde_json::json!(["vgprs"]));
    let table = String::from_utf8(reglab(&["--gpu", "gcn3-cu", "--regs", "84", "--threads", "64"]).stdout).unwrap();
    assert!(table.contains("vgprs") && table.contains("← binding"), "{table}");
}

#[test]
fn usage_errors_exit_2() {
    for args in [
        &["--regs", "3", "--threads", "32"][..],
        &["--cc", "2.1", "--regs", "3", "--threads", "32"],
        &["--gpu", "pascal", "--regs", "3", "--threads", "32"],
        &["--cc", "7.0", "--gpu", "volta-v100", "--regs", "3", "--threads", "32"],
        &["--cc", "7.0", "--regs", "3", "--threads", "0"],
        &["--cc", "7.0", "--regs", "3", "--threads", "32", "--carveout", "101"],
        &["--cc", "7.0", "--regs", "3", "--threads", "32", "--sgprs", "8"],
    ] {
        let out = reglab(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(!out.stderr.is_empty(), "{args:?}");
    }
}
