//! `reglab parse` and `reglab corpus` end to end: IR text on success, rendered diagnostics and exit
//! code 1 on errors, and the corpus JSON lines with their summary.
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests fail loudly")]

use std::path::PathBuf;
use std::process::{Command, Output};

fn reglab(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_reglab")).args(args).output().expect("reglab runs")
}

const GOOD: &str = ".version 7.0\n.target sm_80\n.address_size 64\n.visible .entry k(.param .u64 p)\n{\n\
    .reg .b32 %r<2>;\n\tmov.u32 %r1, %tid.x;\n\tret;\n}\n";
const BAD: &str = ".version 7.0\n.target sm_80\n.visible .entry k()\n{\n\t.reg .b32 %r<2>;\n\taddd.s32 %r1, %r1, 1;\n\
    \tmov.u32 %r1 %r0;\n\tret;\n}\n";

/// A fresh directory with `files` written into it.
fn dir_with(name: &str, files: &[(&str, &str)]) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("reglab-cli-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("sub")).unwrap();
    for (file, text) in files {
        std::fs::write(dir.join(file), text).unwrap();
    }
    dir
}

#[test]
fn parse_prints_the_ir_or_the_diagnostics() {
    let dir = dir_with("parse", &[("good.ptx", GOOD), ("bad.ptx", BAD)]);
    let good = reglab(&["parse", dir.join("good.ptx").to_str().unwrap()]);
    assert!(good.status.success());
    let text = String::from_utf8(good.stdout).unwrap();
    assert!(text.contains(".visible .entry k(") && text.contains("mov.u32 %r1, %tid.x;"), "{text}");

    let bad = reglab(&["parse", dir.join("bad.ptx").to_str().unwrap()]);
    assert_eq!(bad.status.code(), Some(1));
    let err = String::from_utf8(bad.stderr).unwrap();
    assert!(err.contains("bad.ptx:6:2: error: unknown instruction 'addd'"), "{err}");
    assert!(err.contains("hint: did you mean 'add'?"), "{err}");
    assert!(err.contains("bad.ptx:7:14: error: expected ';' (or ',') after an operand"), "{err}");
    assert!(err.contains("2 errors"), "{err}");
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn corpus_prints_one_json_line_per_file_then_a_summary() {
    let dir = dir_with("corpus", &[("sub/b_good.ptx", GOOD), ("a_bad.ptx", BAD), ("notes.txt", "x")]);
    let out = reglab(&["corpus", dir.to_str().unwrap(), "--json"]);
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<serde_json::Value> = text.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(lines.len(), 3, "{text}");
    assert!(lines[0]["file"].as_str().unwrap().ends_with("a_bad.ptx"));
    assert_eq!(lines[0]["ok"], false);
    assert_eq!(lines[0]["errors"][0]["line"], 6);
    assert_eq!(lines[0]["errors"][0]["column"], 2);
    assert!(lines[0]["errors"][0]["message"].as_str().unwrap().contains("addd"));
    assert_eq!(lines[1]["ok"], true);
    assert_eq!(lines[1]["kernels"], serde_json::json!(["k"]));
    assert_eq!(lines[1]["instructions"], 2);
    assert_eq!(lines[1]["errors"], serde_json::json!([]));
    assert_eq!(lines[2], serde_json::json!({"summary": {"files": 2, "ok": 1, "failed": 1, "instructions": 2}}));
    assert!(text.lines().next().unwrap().starts_with("{\"file\": "), "keys in the documented order");
    let _ = std::fs::remove_dir_all(dir);
}
