//! How every subcommand shows what is wrong with a PTX text: each diagnostic with its file, line
//! and column, the source line with a caret under the span, and its hint; with `--json`, the same
//! diagnostics as objects.
//!
//! ```text
//! k.ptx:34:16: error: register '%f1' is not declared
//!    34 |     ld.param.f32     %f1, [k_param_1];
//!       |                      ^^^
//!       = hint: declare it with .reg …
//! ```

use std::io::Write as _;

use serde_json::{json, Value};
use sim_core::diagnostic::{Diagnostic, LineIndex, Severity};

/// `diags`, found in source `src`, as text under the file name `name`.
pub fn render<'a>(name: &str, src: &str, diags: impl IntoIterator<Item = &'a Diagnostic>) -> String {
    let index = LineIndex::new(src);
    diags.into_iter().map(|d| d.render_text(name, src, &index)).collect()
}

/// Writes `diags`, found in source `src`, to stderr under the file name `name`.
pub fn print<'a>(name: &str, src: &str, diags: impl IntoIterator<Item = &'a Diagnostic>) {
    let _ = std::io::stderr().lock().write_all(render(name, src, diags).as_bytes());
}

/// The error a subcommand's `--json` output gives for a text that does not compile: its
/// diagnostics, each with severity, line, column, message and hint, and the first one's message.
pub fn compile_error_json(src: &str, diags: &[Diagnostic]) -> Value {
    let index = LineIndex::new(src);
    let listed: Vec<Value> = diags
        .iter()
        .map(|d| {
            let at = d.location(src, &index);
            json!({
                "severity": d.severity.as_str(),
                "line": at.line,
                "column": at.column,
                "message": d.message,
                "hint": d.hint,
            })
        })
        .collect();
    let message = diags.first().map(|d| d.message.clone()).unwrap_or_default();
    json!({ "kind": "compile_error", "message": message, "diagnostics": listed })
}

/// How many of `diags` are errors: `n errors` or `1 error`.
pub fn count(diags: &[Diagnostic]) -> String {
    let n = diags.iter().filter(|d| d.severity == Severity::Error).count();
    format!("{n} error{}", if n == 1 { "" } else { "s" })
}
