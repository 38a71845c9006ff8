//! File tests of the static analyses: each `tests/cases/analysis/<name>.ptx` names the sections
//! to render in its `// run:` header; the rendering must equal `<name>.expected` (hand-checked;
//! `BLESS=1` regenerates). One test per file; a last test checks that every file is listed.

use reglab_tests::analysis_dump::dump;
use reglab_tests::filetest::{cases_dir, check_expected, header_words};

fn run(name: &str) {
    let path = cases_dir("analysis").join(format!("{name}.ptx"));
    let src = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(!src.is_empty(), "{} is missing or empty", path.display());
    let sections = header_words(&src, "run");
    assert!(!sections.is_empty(), "{}: no '// run:' header", path.display());
    let result = check_expected(&path, &dump(&src, &sections));
    assert!(result.is_ok(), "{}", result.err().unwrap_or_default());
}

macro_rules! cases {
    ($($name:ident),* $(,)?) => {
        $(#[test] fn $name() { run(stringify!($name)); })*
        const LISTED: &[&str] = &[$(stringify!($name)),*];
    };
}

cases!(
    cfg_diamond,
    cfg_calls_and_exits,
    finereg_fig7,
    liveness_call,
    liveness_loop_pairs,
    loops_nested,
    postdom_divergent_loop,
    uniformity_divergence,
    uniformity_sources,
    uses_counts,
);

#[test]
fn every_case_file_is_listed() {
    let mut files: Vec<String> = std::fs::read_dir(cases_dir("analysis"))
        .map(|rd| {
            rd.flatten().filter_map(|e| e.file_name().to_str()?.strip_suffix(".ptx").map(str::to_string)).collect()
        })
        .unwrap_or_default();
    files.sort();
    let missing: Vec<&String> = files.iter().filter(|f| !LISTED.contains(&f.as_str())).collect();
    assert!(missing.is_empty(), "case files not listed in analysis_cases.rs: {missing:?}");
}
