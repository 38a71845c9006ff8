//! File tests of the register-file schemes' analyses and passes: each listed
//! `tests/cases/analysis/<name>.ptx` names its sections in a `// run:` header; the rendering of
//! every function must equal `<name>.expected` (hand-checked; `BLESS=1` regenerates).

use std::fmt::Write as _;
use std::path::Path;

use reglab_tests::scheme_dump::section;

fn render(src: &str, sections: &[&str]) -> String {
    let module = match sim_core::ptx::compile(src) {
        Ok(m) => m,
        Err(diags) => return diags.iter().map(|d| format!("error: {}\n", d.message)).collect(),
    };
    let mut out = String::new();
    for func in module.functions.values().filter(|f| f.body.is_some()) {
        let _ = writeln!(out, "== {} {}", if func.is_entry() { ".entry" } else { ".func" }, func.name);
        for &s in sections {
            let _ = writeln!(out, "-- {s}");
            if !section(&mut out, &module, func, s) {
                let _ = writeln!(out, "unknown section '{s}'");
            }
        }
    }
    out
}

fn header(src: &str) -> Vec<&str> {
    src.lines()
        .find_map(|l| l.trim().strip_prefix("// run:"))
        .map(|r| r.split_whitespace().collect())
        .unwrap_or_default()
}

fn run(name: &str) {
    let path = reglab_tests::repo_root().join("tests/cases/analysis").join(format!("{name}.ptx"));
    let src = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(!src.is_empty(), "{} is missing or empty", path.display());
    let actual = render(&src, &header(&src));
    let expected_path = path.with_extension("expected");
    if std::env::var_os("BLESS").is_some_and(|v| v == "1") {
        assert!(std::fs::write(&expected_path, &actual).is_ok(), "cannot write {}", expected_path.display());
        return;
    }
    let expected = std::fs::read_to_string(Path::new(&expected_path)).unwrap_or_default();
    assert_eq!(expected, actual, "{} differs (BLESS=1 regenerates)", expected_path.display());
}

macro_rules! cases {
    ($($name:ident),* $(,)?) => { $(#[test] fn $name() { run(stringify!($name)); })* };
}

cases!(demo_fig4, gilani_fig4_dct);
