//! `--threads`: `reglab run` and `reglab sweep` spread their schemes (points) over threads, each
//! with its own functional run, and print exactly what one simulation of them all prints — the
//! same bytes, in the same order — for a comparison that mixes a precision search
//! (`compression`, started first) with cheaper schemes, for a sweep, and for a launch whose
//! functional run fails (the same error and exit code).

use std::process::Command;

const ROOT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/..");

/// Runs `reglab ARGS`: (exit code, stdout, stderr).
fn reglab(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_reglab")).args(args).current_dir(ROOT).output();
    assert!(out.is_ok(), "cannot run reglab");
    let Ok(out) = out else { return (-1, String::new(), String::new()) };
    let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
    (out.status.code().unwrap_or(-1), text(&out.stdout), text(&out.stderr))
}

/// The command with `--threads N` appended.
fn with_threads(args: &[&str], n: &str) -> (i32, String, String) {
    reglab(&[args, &["--threads", n][..]].concat())
}

const RUN: [&str; 17] = [
    "run",
    "static/examples/imgvf.ptx",
    "--launch",
    "static/examples/imgvf.launch.json",
    "--gpu",
    "fermi-gtx480",
    "--scheme",
    "baseline",
    "--scheme",
    "rfc-ob",
    "--scheme",
    "gilani",
    "--scheme",
    "compression:tuning_runs=4",
    "--scheme",
    "demo",
    "--json",
];

#[test]
fn a_comparison_on_three_threads_prints_what_one_simulation_prints() {
    let (code, one, err) = with_threads(&RUN, "1");
    assert_eq!(code, 0, "{err}");
    let reports: serde_json::Value = serde_json::from_str(&one).unwrap_or_default();
    let schemes: Vec<&str> =
        reports["reports"].as_array().into_iter().flatten().filter_map(|r| r["scheme"].as_str()).collect();
    assert_eq!(schemes, ["baseline", "rfc-ob", "gilani", "compression:tuning_runs=4", "demo"]);
    for n in ["2", "3", "8"] {
        let (code, many, err) = with_threads(&RUN, n);
        assert_eq!(code, 0, "{err}");
        assert!(one == many, "--threads {n} printed other reports than --threads 1");
    }
    // The text table too (and the functional run's warnings, printed once).
    let text: Vec<&str> = RUN.iter().copied().filter(|a| *a != "--json").collect();
    let (_, one_text, _) = with_threads(&text, "1");
    let (_, two_text, _) = with_threads(&text, "2");
    assert!(!one_text.is_empty() && one_text == two_text);
}

#[test]
fn a_sweep_on_two_threads_prints_the_same_points() {
    let sweep = [
        "sweep",
        "static/examples/reduction.ptx",
        "--launch",
        "static/examples/reduction.launch.json",
        "--gpu",
        "fermi-gtx480",
        "--scheme",
        "rfc-ob",
        "--param",
        "rfc_entries=2..16*2",
        "--reference",
        "8",
    ];
    let (code, one, err) = with_threads(&sweep, "1");
    assert_eq!(code, 0, "{err}");
    assert_eq!(one.lines().count(), 4, "{one}");
    let (code, two, err) = with_threads(&sweep, "2");
    assert_eq!(code, 0, "{err}");
    assert_eq!(one, two);
}

/// A budget too small for one functional run: `compression`'s precision search (run while its
/// program is built) fails before the timed run does, with one thread or several.
#[test]
fn a_failing_functional_run_fails_the_same_way_on_any_number_of_threads() {
    let failing: Vec<&str> = RUN.iter().copied().chain(["--budget", "1000"]).collect();
    let (code, one, err_one) = with_threads(&failing, "1");
    assert_eq!(code, 1, "{one}");
    assert!(err_one.contains("budget"), "{err_one}");
    let (code, two, err_two) = with_threads(&failing, "2");
    assert_eq!(code, 1);
    assert_eq!((one, err_one), (two, err_two));
    // Without it, the timed functional run fails, the same for every scheme.
    let plain: Vec<&str> = RUN[..10].iter().copied().chain(["--json", "--budget", "1000"]).collect();
    let (code, one, err_one) = with_threads(&plain, "1");
    assert_eq!(code, 1, "{one}");
    assert!(err_one.contains("budget exceeded"), "{err_one}");
    assert_eq!((one, err_one), (with_threads(&plain, "3").1, with_threads(&plain, "3").2));
}

/// A sweep of `compression`'s write-back delay: every point asks for the same precision search,
/// which one job makes and the others take, on one thread or several (the ones on other threads
/// wait for it, `shared_searches`): the same points and the same tuning line in every report.
#[test]
fn a_sweep_of_one_search_prints_the_same_points_on_any_number_of_threads() {
    let sweep = [
        "sweep",
        "static/examples/saxpy.ptx",
        "--launch",
        "static/examples/saxpy.launch.json",
        "--gpu",
        "fermi-gtx480",
        "--scheme",
        "compression",
        "--param",
        "writeback_delay=0,2,4,8",
        "--json",
    ];
    let (code, one, err) = with_threads(&sweep, "1");
    assert_eq!(code, 0, "{err}");
    // One JSON line per point.
    let runs: Vec<u64> = one
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter_map(|p| p["counters"]["tuning_runs"].as_u64())
        .collect();
    // saxpy at 0 %: the reference run and three trials that needed one, in every point's report.
    assert_eq!(runs, [4, 4, 4, 4], "{}", &one[..one.len().min(400)]);
    for n in ["2", "3"] {
        let (code, many, err) = with_threads(&sweep, n);
        assert_eq!(code, 0, "{err}");
        assert!(one == many, "--threads {n} printed other points than --threads 1");
    }
}
