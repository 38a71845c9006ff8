//! `reglab rewrite FILE --scheme NAME`: the paper's Fig. 4 comes out as DeMO's rewrite (the mul
//! reads `%c[%rd1+4]`), the output parses again with `reglab parse` and prints the same text (the
//! memory-operand syntax is RegLab's), the default `demo` folds global loads only, and a scheme
//! that does not transform code is a usage error (exit 2). RegMutex brackets its region with
//! `regmutex.acquire`/`regmutex.release` (RegLab's pseudo-instruction syntax, `docs/schemes.md` §4),
//! and that output parses again too.

use std::process::Command;

const ROOT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/..");

/// Runs `reglab ARGS` and returns (exit code, stdout, stderr).
fn reglab(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_reglab")).args(args).current_dir(ROOT).output();
    assert!(out.is_ok(), "cannot run reglab");
    let Ok(out) = out else { return (-1, String::new(), String::new()) };
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    (out.status.code().unwrap_or(-1), text, String::from_utf8_lossy(&out.stderr).into_owned())
}

#[test]
fn fig4_rewrites_and_parses_again() {
    let fig4 = "tests/cases/analysis/demo_fig4.ptx";
    let (code, text, err) = reglab(&["rewrite", fig4, "--scheme", "demo:spaces=all"]);
    assert_eq!(code, 0, "{err}");
    assert!(text.contains("mul.ftz.f32 %f3, %c[%rd1+4], %f1;"), "{text}");
    assert!(!text.contains("[%rd1+4];"), "the load of %f2 is gone: {text}");
    let path = std::env::temp_dir().join(format!("reglab_rewrite_fig4_{}.ptx", std::process::id()));
    assert!(std::fs::write(&path, &text).is_ok());
    let (code, again, err) = reglab(&["parse", path.to_str().unwrap_or_default()]);
    let _ = std::fs::remove_file(&path);
    assert_eq!(code, 0, "{err}");
    assert_eq!(again, text);
    // The default spaces (global) leave Fig. 4's constant loads alone.
    let (code, plain, _) = reglab(&["rewrite", fig4, "--scheme", "demo"]);
    assert_eq!(code, 0);
    assert!(plain.contains("ld.const.f32 %f2, [%rd1+4];") && !plain.contains("%c["), "{plain}");
}

#[test]
fn a_scheme_without_a_transform_is_a_usage_error() {
    let (code, _, err) = reglab(&["rewrite", "tests/cases/analysis/demo_fig4.ptx", "--scheme", "baseline"]);
    assert_eq!(code, 2);
    assert!(err.contains("does not transform code"), "{err}");
}

/// The file test's kernel comes out with `regmutex.acquire 2;` before its region and
/// `regmutex.release 2;` after it.
#[test]
fn the_region_is_bracketed_and_the_output_parses_again() {
    let k = "tests/cases/timing/regmutex_acquire_wait.ptx";
    let (code, text, err) = reglab(&["rewrite", k, "--scheme", "regmutex"]);
    assert_eq!(code, 0, "{err}");
    // |BRS| 1, E 2 (the file test's comments): acquire before `add %f2`, release before `add %f6`.
    let lines: Vec<&str> = text.lines().map(str::trim).collect();
    let at = |s: &str| lines.iter().position(|l| *l == s);
    assert_eq!(at("regmutex.acquire 2;").map(|i| i + 1), at("add.f32 %f2, %f1, 0f3F800000;"), "{text}");
    assert_eq!(at("regmutex.release 2;").map(|i| i + 1), at("add.f32 %f6, %f5, 0f3F800000;"), "{text}");
    let path = std::env::temp_dir().join(format!("reglab_rewrite_regmutex_{}.ptx", std::process::id()));
    assert!(std::fs::write(&path, &text).is_ok());
    let (code, again, err) = reglab(&["parse", path.to_str().unwrap_or_default()]);
    let _ = std::fs::remove_file(&path);
    assert_eq!(code, 0, "{err}");
    assert_eq!(again, text);
}
