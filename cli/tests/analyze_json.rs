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

/// `--per-target`: each TSV (the corpus compiled for one target) becomes a row of the "Every
/// target" table, our estimate for that target against ptxas's counts, refused entries counted.
#[test]
fn fidelity_table_summarises_every_target() {
    let dir = std::env::temp_dir().join(format!("reglab-fidelity-{}", std::process::id()));
    let corpus = dir.join("corpus");
    let _ = std::fs::create_dir_all(corpus.join("sub"));
    let ptx = corpus.join("sub/k.ptx");
    let _ = std::fs::write(
        &ptx,
        ".version 7.0\n.target sm_80\n.address_size 64\n.visible .entry k(.param .u64 p)\n{\n.reg .b32 %r<3>;\n\
         .reg .b64 %rd<3>;\nld.param.u64 %rd1, [p];\nmov.u32 %r1, %tid.x;\nmul.wide.u32 %rd2, %r1, 4;\n\
         add.s64 %rd2, %rd1, %rd2;\nld.global.u32 %r2, [%rd2];\nadd.s32 %r2, %r2, %r1;\nst.global.u32 [%rd2], %r2;\nret;\n}\n",
    );
    // Our estimate for sm_80 (the file's own target), as `reglab analyze --json` gives it.
    let out = Command::new(env!("CARGO_BIN_EXE_reglab")).arg("analyze").arg(&ptx).arg("--json").output();
    let json: serde_json::Value = out.ok().and_then(|o| serde_json::from_slice(&o.stdout).ok()).unwrap_or_default();
    let ours = json["kernels"][0]["registers_per_thread"].as_u64().unwrap_or(0);
    assert!(ours > 0, "no estimate: {json}");
    let write = |name: &str, text: String| {
        let p = dir.join(name);
        let _ = std::fs::write(&p, text);
        p
    };
    let main = write("main.tsv", format!("sub/k.ptx\tk\tsm_80\t{ours}\t\n"));
    // sm_80: ptxas agrees; a second file ptxas refused. sm_90: ptxas far above ours.
    let t80 = write("t80.tsv", format!("sub/k.ptx\tk\tsm_80\t{ours}\t\nsub/other.ptx\t-\tsm_80\t-\tptxas failed: x\n"));
    let t90 = write("t90.tsv", "sub/k.ptx\tk\tsm_90\t200\t\n".to_string());
    let out = Command::new(env!("CARGO_BIN_EXE_reglab"))
        .arg("analyze")
        .arg("--fidelity-table")
        .arg(&main)
        .arg("--per-target")
        .arg(&t80)
        .arg("--per-target")
        .arg(&t90)
        .arg(&corpus)
        .output();
    let Ok(out) = out else { return assert!(out.is_ok(), "reglab did not run") };
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("## Every target"), "{text}");
    assert!(
        text.contains("| sm_80 (ptxas refused 1 entries) | 1.00 | 1.00 | 1.00 | 100% (1 of 1) | 100% (1 of 1) |"),
        "{text}"
    );
    assert!(text.contains("| sm_90 (ptxas refused 0 entries) |"), "{text}");
    assert!(text.contains("| 0% (0 of 1) | 0% (0 of 1) |"), "{text}");
    let _ = std::fs::remove_dir_all(&dir);
}
