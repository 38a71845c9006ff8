//! `reglab exec` end to end: all 20 ZLUDA unit kernels and Rodinia BFS through the binary with
//! JSON launch files, exact outputs; structured errors with exit code 1; usage errors with 2;
//! `--propose` prints a setup that runs.

use std::path::PathBuf;
use std::process::Command;

use reglab_tests::bfs::{parse_costs, sample_setup};
use reglab_tests::corpus_dir;
use reglab_tests::units::unit_cases;
use serde_json::Value as Json;
use sim_core::exec::{ElemType, Value};

fn temp(name: &str, text: &str) -> PathBuf {
    let path = std::env::temp_dir().join(format!("reglab-exec-{}-{name}", std::process::id()));
    let written = std::fs::write(&path, text);
    assert!(written.is_ok(), "cannot write {}", path.display());
    path
}

/// Runs `reglab exec` and returns (exit code, parsed stdout).
fn exec(args: &[&str]) -> (i32, Json) {
    let out = Command::new(env!("CARGO_BIN_EXE_reglab")).arg("exec").args(args).output();
    assert!(out.is_ok(), "cannot run reglab");
    let Ok(out) = out else { return (-1, Json::Null) };
    let json = serde_json::from_slice(&out.stdout).unwrap_or(Json::Null);
    (out.status.code().unwrap_or(-1), json)
}

fn bits(values: &Json, ty: ElemType) -> Vec<u64> {
    let values: Vec<Value> = serde_json::from_value(values.clone()).unwrap_or_default();
    values.iter().map(|v| v.to_bits(ty).unwrap_or(u64::MAX)).collect()
}

#[test]
fn unit_kernels_through_the_binary() {
    let cases = unit_cases(&corpus_dir());
    assert_eq!(cases.len(), 20);
    for case in &cases {
        let src = std::fs::read_to_string(&case.ptx).unwrap_or_default();
        let module = sim_core::ptx::compile(&src).unwrap_or_default();
        let nparams = module.functions.values().find(|f| f.name == case.kernel).map_or(0, |f| f.params.len());
        let launch = temp(&format!("{}.json", case.name), &case.setup(nparams).to_json());
        let ptx = case.ptx.display().to_string();
        let (code, json) = exec(&[&ptx, "--launch", &launch.display().to_string(), "--json"]);
        assert_eq!(code, 0, "{}: {json}", case.name);
        let last = json["outputs"].as_object().and_then(|o| o.values().next_back()).cloned().unwrap_or(Json::Null);
        assert_eq!(bits(&last, case.output.0), case.expected_bits(), "{}", case.name);
        let _ = std::fs::remove_file(launch);
    }
}

#[test]
fn bfs_through_the_binary() {
    let setup = sample_setup(&corpus_dir());
    assert!(setup.is_some(), "SampleGraph missing");
    let Some(setup) = setup else { return };
    let launch = temp("bfs.json", &setup.to_json());
    let ptx = corpus_dir().join("gpgpu-sim/pr219_bfs.1.sm_20.ptx").display().to_string();
    let (code, json) = exec(&[&ptx, "--launch", &launch.display().to_string(), "--json"]);
    assert_eq!(code, 0, "{json}");
    let got: Vec<i64> = bits(&json["outputs"]["5"], ElemType::S32).iter().map(|&b| b as u32 as i32 as i64).collect();
    let expected = std::fs::read_to_string(corpus_dir().join("gpgpu-sim/pr219_bfs.result_SampleGraph.txt"));
    assert_eq!(got, parse_costs(&expected.unwrap_or_default()));
    assert!(json["warp_instructions"].as_u64().unwrap_or(0) > 0);
    assert!(json["thread_instructions"].as_u64().unwrap_or(0) > 0);
    let _ = std::fs::remove_file(launch);
}

#[test]
fn structured_errors_and_exit_codes() {
    let cases = reglab_tests::exec_case::cases_dir();
    let oob = cases.join("oob_global.ptx").display().to_string();
    let src = std::fs::read_to_string(&oob).unwrap_or_default();
    let launch = temp("oob.json", reglab_tests::exec_case::launch_header(&src).unwrap_or("{}"));
    let (code, json) = exec(&[&oob, "--launch", &launch.display().to_string(), "--json"]);
    assert_eq!(code, 1);
    assert_eq!(json["error"]["kind"], "fault");
    assert_eq!(json["error"]["space"], "global");
    assert_eq!(json["error"]["cta"], serde_json::json!([2, 0, 0]));
    assert_eq!(json["error"]["line"], 22);

    let bad = temp("bad.json", r#"{"kernel": "k", "params": [], "grid": "x"}"#);
    let (code, json) = exec(&[&oob, "--launch", &bad.display().to_string(), "--json"]);
    assert_eq!(code, 1);
    assert_eq!(json["error"]["kind"], "invalid_launch");

    let endless = cases.join("endless_loop.ptx").display().to_string();
    let src = std::fs::read_to_string(&endless).unwrap_or_default();
    let l2 = temp("endless.json", reglab_tests::exec_case::launch_header(&src).unwrap_or("{}"));
    let (code, json) = exec(&[&endless, "--launch", &l2.display().to_string(), "--json", "--budget", "500"]);
    assert_eq!(code, 1);
    assert_eq!(json["error"]["kind"], "budget_exceeded");
    assert_eq!(json["error"]["executed"], 500);

    assert_eq!(exec(&[&oob, "--json"]).0, 2, "missing --launch is a usage error");
    assert_eq!(exec(&["/nonexistent.ptx", "--launch", "x.json"]).0, 2);
    for p in [launch, bad, l2] {
        let _ = std::fs::remove_file(p);
    }
}

#[test]
fn proposed_setups_run() {
    let ptx = corpus_dir().join("zluda/vectorAdd_kernel64.ptx").display().to_string();
    let out = Command::new(env!("CARGO_BIN_EXE_reglab")).args(["exec", &ptx, "--propose"]).output();
    let text = out.map(|o| String::from_utf8_lossy(&o.stdout).into_owned()).unwrap_or_default();
    assert!(sim_core::exec::LaunchSetup::from_json(&text).is_ok(), "{text}");
    let launch = temp("proposed.json", &text);
    let (code, json) = exec(&[&ptx, "--launch", &launch.display().to_string(), "--json"]);
    assert_eq!(code, 0, "{json}");
    let _ = std::fs::remove_file(launch);
}

/// A division by zero runs on (PTX leaves the result to the machine) and is told, with its line:
/// `reglab exec` in text and JSON, `reglab run` under its table (the file test
/// `tests/cases/exec/division_by_zero.ptx` works out the 9 lanes and the outputs).
#[test]
fn division_by_zero_is_told_with_its_line() {
    let cases = reglab_tests::exec_case::cases_dir();
    let ptx = cases.join("division_by_zero.ptx").display().to_string();
    let src = std::fs::read_to_string(&ptx).unwrap_or_default();
    let launch = temp("divzero.json", reglab_tests::exec_case::launch_header(&src).unwrap_or("{}"));
    let launch_arg = launch.display().to_string();
    let (code, json) = exec(&[&ptx, "--launch", &launch_arg, "--json"]);
    assert_eq!(code, 0, "{json}");
    assert_eq!(json["notices"][0]["kind"], "division_by_zero");
    assert_eq!(json["notices"][0]["line"], 24);
    assert_eq!(json["notices"][0]["lanes"], 9);
    let want = "warning: line 24: `div.s32 %r6, -7, %r1` in k: integer division by zero in 9 lane(s) (first: \
                thread [0, 0, 0] of CTA [0, 0, 0]); PTX leaves the result machine-specific";
    for (sub, gpu) in [("exec", None), ("run", Some("fermi-gtx480"))] {
        let mut args = vec![sub, &ptx, "--launch", &launch_arg];
        args.extend(gpu.map(|g| ["--gpu", g]).into_iter().flatten());
        let out = Command::new(env!("CARGO_BIN_EXE_reglab")).args(&args).output();
        assert!(out.is_ok(), "cannot run reglab {sub}");
        let Ok(out) = out else { return };
        let text = String::from_utf8_lossy(&out.stdout);
        assert_eq!(out.status.code(), Some(0), "{sub}: {text}");
        assert!(text.contains(want), "{sub}: {text}");
    }
    let _ = std::fs::remove_file(launch);
}

/// A reader that goes away early (`reglab exec … --json | head -c 100`) ends the run quietly with
/// the shell's broken-pipe status 141, not a panic and a backtrace. saxpy's JSON is about 650 KB,
/// far more than a pipe buffer, so the writes after the reader closes must fail.
#[test]
fn closed_stdout_is_not_a_panic() {
    use std::io::Read;
    use std::process::Stdio;
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..").join("static").join("examples");
    let child = Command::new(env!("CARGO_BIN_EXE_reglab"))
        .arg("exec")
        .arg(root.join("saxpy.ptx"))
        .arg("--launch")
        .arg(root.join("saxpy.launch.json"))
        .arg("--json")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn();
    assert!(child.is_ok(), "cannot run reglab");
    let Ok(mut child) = child else { return };
    let mut first = [0u8; 100];
    let read = child.stdout.as_mut().map(|s| s.read_exact(&mut first));
    assert!(matches!(read, Some(Ok(()))), "no output before closing: {read:?}");
    drop(child.stdout.take());
    let out = child.wait_with_output();
    assert!(out.is_ok(), "reglab did not finish");
    let Ok(out) = out else { return };
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("panicked"), "a closed stdout panicked: {stderr}");
    assert_eq!(out.status.code(), Some(141), "stderr: {stderr}");
}
