//! File tests of the executor: each `tests/cases/exec/<name>.ptx` runs with the launch setup in
//! its `// launch:` header; the outputs and instruction counts, or the structured error (fault,
//! budget, deadlock, unsupported, trap), must equal `<name>.expected` (checked by hand; `BLESS=1`
//! regenerates). One test per file; a last test checks that every file is listed.

use reglab_tests::exec_case::run_case;
use reglab_tests::filetest::{cases_dir, check_expected};

fn run(name: &str) {
    let path = cases_dir("exec").join(format!("{name}.ptx"));
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

cases!(
    atomics_order,
    barrier_deadlock,
    divergence,
    endless_loop,
    extern_call,
    generic_addressing,
    ids_3d,
    local_memory,
    misaligned,
    oob_global,
    oob_shared,
    recursion,
    rounding,
    shared_reduction,
    texture_unsupported,
    trap,
    warp_ops,
);

#[test]
fn every_case_file_is_listed() {
    let mut files: Vec<String> = std::fs::read_dir(cases_dir("exec"))
        .map(|rd| {
            rd.flatten().filter_map(|e| e.file_name().to_str()?.strip_suffix(".ptx").map(str::to_string)).collect()
        })
        .unwrap_or_default();
    files.sort();
    let missing: Vec<&String> = files.iter().filter(|f| !LISTED.contains(&f.as_str())).collect();
    assert!(missing.is_empty(), "case files not listed in exec_cases.rs: {missing:?}");
}
