//! `reglab run --experiment F`: a file saved by the web app ("Save experiment") reproduces the run
//! of the same inputs given as flags, report for report; a bad file is a usage error (exit 2)
//! that says what is wrong.

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

fn write(name: &str, text: &str) -> String {
    let dir = std::path::Path::new(ROOT).join("target").join("tmp").join("experiment_cli");
    let _ = std::fs::create_dir_all(&dir);
    let path = dir.join(name);
    assert!(std::fs::write(&path, text).is_ok());
    path.display().to_string()
}

#[test]
fn an_experiment_file_reproduces_the_run_given_by_flags() {
    // The saxpy example by name (unchanged text, shipped launch), two schemes, edited SM count.
    let file = write(
        "saxpy.reglab.json",
        r#"{"reglab":1,"example":"saxpy","gpu":{"preset":"fermi-gtx480","sm_count":4},
            "schemes":["baseline","baseline:collector_units=2"]}"#,
    );
    let (code, from_file, err) = run(&["--experiment", &file, "--json"]);
    assert_eq!(code, 0, "{err}");
    let (code, from_flags, err) = run(&[
        "static/examples/saxpy.ptx",
        "--launch",
        "static/examples/saxpy.launch.json",
        "--gpu",
        "fermi-gtx480",
        "--sms",
        "4",
        "--scheme",
        "baseline",
        "--scheme",
        "baseline:collector_units=2",
        "--json",
    ]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(from_file["reports"], from_flags["reports"]);
    assert_eq!(from_file["reports"][1]["scheme"], "baseline:collector_units=2");
}

#[test]
fn a_bad_experiment_file_says_why() {
    let newer = write("newer.reglab.json", r#"{"reglab":9,"example":"saxpy","gpu":{"preset":"fermi-gtx480"}}"#);
    let (code, _, err) = run(&["--experiment", &newer]);
    assert_eq!(code, 2);
    assert!(err.contains("newer RegLab (format 9"), "{err}");
    let foreign = write("foreign.reglab.json", r#"{"name":"not ours"}"#);
    let (code, _, err) = run(&["--experiment", &foreign]);
    assert_eq!(code, 2);
    assert!(err.contains("not a RegLab experiment"), "{err}");
    // A kernel text that does not compile: its errors with lines and columns counted from the
    // kernel's first line (the undeclared `%r1` on line 4, column 9), whether the launch is the
    // file's or derived from the kernel.
    let kernel = ".version 7.0\n.target sm_70\n.visible .entry k() {\nmov.u32 %r1, 1;\nret;\n}\n";
    let launch = r#"{"block":[32,1,1],"params":[],"launches":[{"kernel":"k","grid":[1,1,1],"args":[]}]}"#;
    for with_launch in [false, true] {
        let launch = if with_launch { format!(r#","launch":{launch}"#) } else { String::new() };
        let doc = format!(
            r#"{{"reglab":1,"source":{},"gpu":{{"preset":"fermi-gtx480"}}{launch}}}"#,
            serde_json::Value::from(kernel)
        );
        let broken = write("broken.reglab.json", &doc);
        let (code, _, err) = run(&["--experiment", &broken]);
        assert!(code == 1 || code == 2, "{code}: {err}");
        assert!(err.contains("kernel:4:9: error: register '%r1' is not declared"), "{err}");
        assert!(err.contains("does not compile (1 error)"), "{err}");
    }
}
