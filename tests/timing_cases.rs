//! File tests of the timing model: each `tests/cases/timing/<name>.ptx` is a micro-kernel whose
//! cycle counts are worked out by hand in its comments; the figures of every scheme in its
//! `// timing:` header must equal `<name>.expected` (`BLESS=1` regenerates — check by hand). One
//! test per file; a last test checks that every file is listed.

use reglab_tests::filetest::{cases_dir, check_expected};
use reglab_tests::timing_case::run_case;

fn run(name: &str) {
    let path = cases_dir("timing").join(format!("{name}.ptx"));
    let src = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(!src.is_empty(), "{} is missing or empty", path.display());
    let result = check_expected(&path, &run_case(&src));
    assert!(result.is_ok(), "{}", result.err().unwrap_or_default());
}

macro_rules! cases {
    ($($name:ident),* $(,)?) => {
        $(#[test] fn $name() { run(stringify!($name)); })*
        const LISTED: &[&str] = &[$(stringify!($name)),*];
    };
}

cases!(alu_chain, independent_warps, bank_conflict, double_registers);

#[test]
fn every_case_file_is_listed() {
    let mut files: Vec<String> = std::fs::read_dir(cases_dir("timing"))
        .map(|rd| {
            rd.flatten().filter_map(|e| e.file_name().to_str()?.strip_suffix(".ptx").map(str::to_string)).collect()
        })
        .unwrap_or_default();
    files.sort();
    let missing: Vec<&String> = files.iter().filter(|f| !LISTED.contains(&f.as_str())).collect();
    assert!(missing.is_empty(), "case files not listed in timing_cases.rs: {missing:?}");
}
