//! `reglab analyze --json` on a small kernel: the documented shape, line numbers and the figures
//! the file tests pin (tests/cases/analysis/cfg_diamond.ptx).

use std::process::Command;

#[test]
fn analyze_json_has_the_documented_shape() {
    let file = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/cases/analysis/cfg_diamond.ptx");
    let out = Command::new(env!("CARGO_BIN_EXE_reglab")).args(["analyze", file, "--json"]).output();
    let Ok(out) = out else { return assert!(out.is_ok(), "reglab did not run") };
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap_or_default();
    let kernel = &json["kernels"][0];
    assert_eq!(kernel["name"], "diamond");
    assert_eq!(kernel["max_live"], 5);
    assert!(kernel["registers_per_thread"].as_u64().is_some_and(|r| r >= 2));
    let insts = kernel["instructions"].as_array().cloned().unwrap_or_default();
    assert_eq!(insts.len(), 11);
    let first = &insts[0];
    assert_eq!(first["line"], 13);
    assert_eq!(first["live"], 2);
    assert_eq!(first["defs"][0]["reg"], "%rd1");
    assert_eq!(first["defs"][0]["bits"], 64);
    assert_eq!(first["defs"][0]["signed"], false);
    assert_eq!(first["single_use_load"], false);
    assert_eq!(first["composite_pair"], false);
    assert_eq!(first["uniform"], true);
    assert_eq!(insts[1]["uniform"], false); // mov.u32 %r1, %tid.x
}

#[test]
fn launch_block_shape_makes_tid_y_uniform() {
    let dir = std::env::temp_dir().join(format!("reglab-analyze-{}", std::process::id()));
    let _ = std::fs::create_dir_all(&dir);
    let ptx = dir.join("k.ptx");
    let launch = dir.join("l.json");
    let _ = std::fs::write(
        &ptx,
        ".version 7.0\n.target sm_80\n.address_size 64\n.visible .entry k()\n{\n.reg .b32 %r<3>;\nmov.u32 %r1, %tid.y;\nadd.s32 %r2, %r1, 1;\nret;\n}\n",
    );
    let _ = std::fs::write(&launch, r#"{"kernel": "k", "grid": [4, 1, 1], "block": [64, 2, 1]}"#);
    let run = |extra: &[&std::path::Path]| {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_reglab"));
        cmd.arg("analyze").arg(&ptx).arg("--json");
        if let Some(l) = extra.first() {
            cmd.arg("--launch").arg(l);
        }
        let out = cmd.output().map(|o| o.stdout).unwrap_or_default();
        serde_json::from_slice::<serde_json::Value>(&out).unwrap_or_default()
    };
    assert_eq!(run(&[])["kernels"][0]["instructions"][1]["uniform"], false);
    assert_eq!(run(&[&launch])["kernels"][0]["instructions"][1]["uniform"], true);
    let _ = std::fs::remove_dir_all(&dir);
}
