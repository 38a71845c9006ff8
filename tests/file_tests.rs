//! File tests: every `tests/cases/<area>/<name>.ptx` is one test. Its first line says what to run
//! (`// run: compile`); the expectation is the sibling `<name>.expected`. `BLESS=1` rewrites the
//! expectations from the current output. A custom harness (one line per file, like libtest):
//! `cargo test -p reglab-tests --test file_tests [-- FILTER]`.
//!
//! `compile`: the diagnostics (errors and warnings, rendered as the CLI renders them), then, if it
//! compiled, the IR text form; it also checks that the emitted PTX compiles back to the same IR.
//! `exec`: runs the kernel with the launch setup of the `// launch:` line and prints the outputs
//! and counts or the structured error (`reglab_tests::exec_case`, the cases under
//! `tests/cases/exec/`).
//! `propose`: the launch RegLab proposes for every entry kernel, with its notes
//! (`reglab_tests::propose_case`, the cases under `tests/cases/propose/`).
//! `timing`: simulates the kernel with that launch setup under the GPU, SM count and register-file
//! schemes of its `// timing:` line and prints each scheme's key figures
//! (`reglab_tests::timing_case`, the micro-kernels with hand-worked cycle counts under
//! `tests/cases/timing/`).
//! Any other header names static-analysis sections (`// run: cfg liveness regalloc`), rendered by
//! `reglab_tests::analysis_dump` and, for the register-file schemes' analyses and passes
//! (`ranges`, `single_use_loads`, `demo`, `composite`, `fuse`, …), `reglab_tests::scheme_dump`
//! (the cases under `tests/cases/analysis/`).

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use reglab_tests::repo_root;
use sim_core::diagnostic::LineIndex;

fn cases() -> Vec<PathBuf> {
    let root = repo_root().join("tests").join("cases");
    let mut out = Vec::new();
    let Ok(areas) = std::fs::read_dir(&root) else { return out };
    for area in areas.flatten() {
        let Ok(files) = std::fs::read_dir(area.path()) else { continue };
        out.extend(files.flatten().map(|f| f.path()).filter(|p| p.extension().is_some_and(|e| e == "ptx")));
    }
    out.sort();
    out
}

/// What running a case produces (compared with `.expected`).
fn run_case(path: &Path, src: &str) -> Result<String, String> {
    let header = src.lines().next().unwrap_or("");
    let mode = header.strip_prefix("// run:").map(str::trim).unwrap_or("");
    if mode == "exec" {
        return Ok(reglab_tests::exec_case::run_case(src));
    }
    if mode == "timing" {
        return Ok(reglab_tests::timing_case::run_case(src));
    }
    if mode == "propose" {
        return Ok(reglab_tests::propose_case::run_case(src));
    }
    if mode != "compile" {
        let sections: Vec<&str> = mode.split_whitespace().collect();
        let known = |s: &&str| {
            reglab_tests::analysis_dump::SECTIONS.contains(s) || reglab_tests::scheme_dump::SECTIONS.contains(s)
        };
        if sections.is_empty() || !sections.iter().all(known) {
            return Err(format!(
                "first line must be `// run: compile`, `exec`, `timing` or `// run: <sections>` from {:?}, found {header:?}",
                reglab_tests::analysis_dump::SECTIONS
            ));
        }
        return Ok(reglab_tests::analysis_dump::dump(src, &sections));
    }
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let checked = sim_core::ptx::check(src);
    let index = LineIndex::new(src);
    let mut out: String = checked.diagnostics.iter().map(|d| d.render_text(&name, src, &index)).collect();
    if let Some(module) = &checked.module {
        if !out.is_empty() {
            out.push_str("--- IR ---\n");
        }
        out.push_str(&module.to_string());
        let emitted = sim_core::ptx::emit(module);
        match sim_core::ptx::compile(&emitted) {
            Ok(again) if again == *module && again.to_string() == module.to_string() => {}
            Ok(_) => return Err("the emitted PTX compiles to a different IR".into()),
            Err(d) => return Err(format!("the emitted PTX does not compile: {:?}", d.first().map(|d| &d.message))),
        }
    }
    Ok(out)
}

#[allow(clippy::print_stdout, reason = "a test harness reports on stdout, as libtest does")]
fn main() -> ExitCode {
    let filter: Vec<String> = std::env::args().skip(1).filter(|a| !a.starts_with('-')).collect();
    let bless = std::env::var_os("BLESS").is_some_and(|v| v != "0");
    let root = repo_root().join("tests").join("cases");
    let (mut passed, mut failed) = (0, Vec::new());
    for path in cases() {
        let rel = path.strip_prefix(&root).unwrap_or(&path).with_extension("").display().to_string();
        if !filter.is_empty() && !filter.iter().any(|f| rel.contains(f.as_str())) {
            continue;
        }
        let expected_path = path.with_extension("expected");
        let outcome = std::fs::read_to_string(&path).map_err(|e| e.to_string()).and_then(|src| run_case(&path, &src));
        let verdict = match outcome {
            Err(e) => Err(e),
            Ok(actual) if bless => std::fs::write(&expected_path, actual).map_err(|e| e.to_string()),
            Ok(actual) => match std::fs::read_to_string(&expected_path) {
                Ok(expected) if expected == actual => Ok(()),
                Ok(expected) => Err(first_difference(&expected, &actual)),
                Err(_) => Err(format!("{} is missing (run with BLESS=1)", expected_path.display())),
            },
        };
        match verdict {
            Ok(()) => {
                println!("test {rel} ... ok");
                passed += 1;
            }
            Err(e) => {
                println!("test {rel} ... FAILED\n    {e}");
                failed.push(rel);
            }
        }
    }
    println!("\nfile tests: {passed} passed; {} failed", failed.len());
    if failed.is_empty() {
        ExitCode::SUCCESS
    } else {
        println!("failed: {}\n(run with BLESS=1 to accept the new output)", failed.join(", "));
        ExitCode::FAILURE
    }
}

fn first_difference(expected: &str, actual: &str) -> String {
    let line = expected.lines().zip(actual.lines()).position(|(a, b)| a != b);
    match line {
        Some(i) => format!(
            "output differs at line {}:\n    expected: {}\n    actual:   {}",
            i + 1,
            expected.lines().nth(i).unwrap_or(""),
            actual.lines().nth(i).unwrap_or("")
        ),
        None => format!("output differs in length ({} vs {} lines)", expected.lines().count(), actual.lines().count()),
    }
}
