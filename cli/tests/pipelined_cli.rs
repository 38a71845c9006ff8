//! The pipelined executor (`cli/src/commands/pipelined_source.rs`): with threads to spare
//! (`--threads 2` for one scheme) the functional run goes on its own thread, ahead of the timing
//! model, and `reglab run` prints exactly what it prints on one thread — the same bytes — for
//! every bundled example (one with two launches), a launch whose CTAs are too long to be handed
//! out whole (they come in pieces, which stops the run-ahead), a kernel whose notices grow CTA
//! by CTA, quick mode's sample, and a launch that runs out of budget part way.

use std::path::{Path, PathBuf};
use std::process::Command;

const ROOT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/..");

/// Runs `reglab ARGS --gpu fermi-gtx480`: (exit code, stdout, stderr).
fn reglab(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_reglab"))
        .args(args)
        .args(["--gpu", "fermi-gtx480"])
        .current_dir(ROOT)
        .output();
    assert!(out.is_ok(), "cannot run reglab");
    let Ok(out) = out else { return (-1, String::new(), String::new()) };
    let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
    (out.status.code().unwrap_or(-1), text(&out.stdout), text(&out.stderr))
}

/// `reglab ARGS --threads 1` and `--threads 2` print the same; the first's output.
fn same_on_one_and_two_threads(args: &[&str]) -> (i32, String, String) {
    let one = reglab(&[args, &["--threads", "1"][..]].concat());
    let two = reglab(&[args, &["--threads", "2"][..]].concat());
    assert!(one == two, "`{}` printed otherwise with the executor on its own thread", args.join(" "));
    one
}

/// A scratch file under the target directory.
fn scratch(name: &str, text: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("pipelined_cli");
    let made = std::fs::create_dir_all(&dir).and_then(|()| std::fs::write(dir.join(name), text));
    assert!(made.is_ok(), "cannot write {name}");
    dir.join(name)
}

/// A launch of `tests/cases/exec/division_by_zero.ptx` (4 threads per CTA, divisor 0) over
/// `ctas` CTAs, written to a scratch file: its path.
fn division_by_zero_launch(ctas: u32) -> String {
    let json = format!(
        r#"{{"kernel": "k", "grid": [{ctas}], "block": [4],
            "params": [{{"buffer": {{"type": "u32", "len": 8, "init": "zeros"}}}}, {{"scalar": {{"type": "s32", "value": 0}}}}]}}"#
    );
    scratch(&format!("division_by_zero_{ctas}.launch.json"), &json).to_string_lossy().into_owned()
}

#[test]
fn every_example_prints_the_same_with_the_executor_on_its_own_thread() {
    let examples = ["vector_add", "matmul_tiled", "reduction", "hotspot", "imgvf", "histogram", "saxpy"];
    for name in examples {
        let ptx = format!("static/examples/{name}.ptx");
        let launch = format!("static/examples/{name}.launch.json");
        let (code, out, err) = same_on_one_and_two_threads(&["run", &ptx, "--launch", &launch, "--json"]);
        assert_eq!(code, 0, "{name}: {err}");
        let doc: serde_json::Value = serde_json::from_str(&out).unwrap_or_default();
        assert!(doc["reports"][0]["cycles"].as_u64().unwrap_or(0) > 0, "{name}: no cycles in {out}");
    }
    // Two schemes on four threads: two jobs, each pipelined.
    let args = ["run", "static/examples/reduction.ptx", "--launch", "static/examples/reduction.launch.json"];
    let both = [&args[..], &["--scheme", "baseline", "--scheme", "rfc-ob", "--json"]].concat();
    let one = reglab(&[&both[..], &["--threads", "1"]].concat());
    let four = reglab(&[&both[..], &["--threads", "4"]].concat());
    assert_eq!(one.0, 0, "{}", one.2);
    assert!(one == four);
    // Quick mode: the source samples CTAs; the sample is the same.
    let (code, _, err) = same_on_one_and_two_threads(&[&args[..], &["--quick", "--json"]].concat());
    assert_eq!(code, 0, "{err}");
}

/// saxpy with one CTA of 256 threads over 2^20 elements: each thread loops 4096 times, so the
/// CTA runs well past the 65 536 warp-instructions a CTA is first run for and is handed out in
/// pieces (`CtaSource::more`), with the run-ahead stopped until it ends.
#[test]
fn a_cta_handed_out_in_pieces_prints_the_same() {
    let launch = scratch(
        "saxpy_long.launch.json",
        r#"{"kernel": "_Z5saxpyifPKfPf", "grid": [2], "block": [256],
            "params": [{"scalar": {"type": "s32", "value": 1048576}}, {"scalar": {"type": "f32", "value": 2.5}},
                       {"buffer": {"type": "f32", "len": 1048576, "init": "random:1"}},
                       {"buffer": {"type": "f32", "len": 1048576, "init": "random:2"}}],
            "outputs": [3]}"#,
    );
    let launch = launch.to_string_lossy().into_owned();
    let (code, out, err) =
        same_on_one_and_two_threads(&["run", "static/examples/saxpy.ptx", "--launch", &launch, "--json"]);
    assert_eq!(code, 0, "{err}");
    let doc: serde_json::Value = serde_json::from_str(&out).unwrap_or_default();
    // 2 CTAs × 8 warps × 2048 iterations of the loop at least.
    assert!(doc["reports"][0]["warp_instructions"].as_u64().unwrap_or(0) > 2 * 8 * 2048 * 4, "{out}");
}

/// `tests/cases/exec/division_by_zero.ptx` over 64 CTAs: the notice's lane count grows with
/// every CTA; the report gives the count of the whole run, not of the CTAs run ahead or behind.
#[test]
fn notices_are_those_of_the_ctas_the_timing_model_took() {
    let launch = division_by_zero_launch(64);
    let args = ["run", "tests/cases/exec/division_by_zero.ptx", "--launch", &launch, "--json"];
    let (code, out, err) = same_on_one_and_two_threads(&args);
    assert_eq!(code, 0, "{err}");
    // 9 lanes per CTA (the file's own count) × 64 CTAs, over the three sites.
    let doc: serde_json::Value = serde_json::from_str(&out).unwrap_or_default();
    let notices = doc["reports"][0]["notices"].as_array().cloned().unwrap_or_default();
    let lanes: u64 = notices.iter().filter_map(|n| n["lanes"].as_u64()).sum();
    assert_eq!(lanes, 9 * 64, "{notices:?}");
}

/// A budget that runs out part way through the launch: the same error, at the same point.
#[test]
fn a_budget_that_runs_out_part_way_fails_the_same_way() {
    let args = [
        "run",
        "static/examples/matmul_tiled.ptx",
        "--launch",
        "static/examples/matmul_tiled.launch.json",
        "--budget",
        "20000",
    ];
    let (code, out, err) = same_on_one_and_two_threads(&args);
    assert_eq!(code, 1, "{out}");
    assert!(err.contains("budget"), "{err}");
}

/// A cycle budget that stops the timing model part way: CTAs the executor ran ahead are never
/// taken, and nothing of them (notices, counts) shows in the report.
#[test]
fn a_run_stopped_at_its_cycle_budget_prints_the_same() {
    let launch = division_by_zero_launch(4096);
    let args = ["run", "tests/cases/exec/division_by_zero.ptx", "--launch", &launch, "--max-cycles", "3000", "--json"];
    let (code, out, err) = same_on_one_and_two_threads(&args);
    assert_eq!(code, 0, "{err}");
    let doc: serde_json::Value = serde_json::from_str(&out).unwrap_or_default();
    let ctas = doc["reports"][0]["ctas"].as_u64().unwrap_or(u64::MAX);
    assert!(ctas < 4096, "the budget did not stop the run: {ctas} CTAs");
}

/// `compression` alone with a thread to spare: its precision search runs two trials at a time
/// (`shared_searches::ThreadPair`), and the report — search counters and chosen formats
/// included — is the one-thread report, byte for byte: on saxpy and on the IMGVF example, whose
/// search makes more runs than the cap allows (`tuning_runs=12`), so the paired search must
/// stop where the one-at-a-time search does.
#[test]
fn a_precision_search_two_trials_at_a_time_reports_the_same() {
    for (name, scheme) in [("saxpy", "compression"), ("imgvf", "compression:tuning_runs=12")] {
        let ptx = format!("static/examples/{name}.ptx");
        let launch = format!("static/examples/{name}.launch.json");
        let (code, out, err) =
            same_on_one_and_two_threads(&["run", &ptx, "--launch", &launch, "--scheme", scheme, "--json"]);
        assert_eq!(code, 0, "{name}: {err}");
        let doc: serde_json::Value = serde_json::from_str(&out).unwrap_or_default();
        let counters = doc["reports"][0]["register_file"]["scheme"]["counters"].as_array().cloned().unwrap_or_default();
        let runs = counters.iter().find(|c| c["name"] == "tuning_runs").and_then(|c| c["value"].as_u64());
        assert!(runs.is_some_and(|r| r > 1), "{name}: {runs:?}");
    }
}
