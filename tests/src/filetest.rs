//! The file-test convention: `tests/cases/<area>/<name>.ptx` holds the input and a header saying
//! what to run (`// run: cfg dominators`), the sibling `<name>.expected` holds the expected output;
//! `BLESS=1` rewrites the `.expected` files from the actual output.
//!
//! ```text
//! // run: cfg loops
//! .version 7.0
//! ...
//! ```

use std::path::{Path, PathBuf};

/// The directory of the file tests of `area` (`tests/cases/<area>`).
pub fn cases_dir(area: &str) -> PathBuf {
    crate::repo_root().join("tests").join("cases").join(area)
}

/// The words after `// <key>:` in the first such line of `src` (empty if there is none).
pub fn header_words<'a>(src: &'a str, key: &str) -> Vec<&'a str> {
    let prefix = format!("// {key}:");
    src.lines()
        .find_map(|l| l.trim().strip_prefix(prefix.as_str()))
        .map(|rest| rest.split_whitespace().collect())
        .unwrap_or_default()
}

/// Compares `actual` with `<path without .ptx>.expected`, or writes it there when `BLESS=1`.
/// Returns an error message describing the first difference.
pub fn check_expected(path: &Path, actual: &str) -> Result<(), String> {
    let expected_path = path.with_extension("expected");
    if std::env::var_os("BLESS").is_some_and(|v| v == "1") {
        return std::fs::write(&expected_path, actual).map_err(|e| format!("{}: {e}", expected_path.display()));
    }
    let expected = std::fs::read_to_string(&expected_path)
        .map_err(|e| format!("{}: {e} (run with BLESS=1 to create it)", expected_path.display()))?;
    if expected == actual {
        return Ok(());
    }
    let line = expected.lines().zip(actual.lines()).position(|(a, b)| a != b).unwrap_or(0);
    let exp = expected.lines().nth(line).unwrap_or("<end>");
    let act = actual.lines().nth(line).unwrap_or("<end>");
    Err(format!(
        "{} differs at line {}:\n  expected: {exp}\n  actual:   {act}\n(BLESS=1 regenerates after you have checked the new output)\n--- actual ---\n{actual}",
        expected_path.display(),
        line + 1
    ))
}
