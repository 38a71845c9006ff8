//! Running an executor file test: `tests/cases/exec/<name>.ptx` starts with `// run: exec` and
//! carries its launch setup in a `// launch: {…}` header line; the result (outputs and counts) or
//! the structured error, as pretty JSON with source lines filled in, must equal `<name>.expected`
//! (run by the shared file-test harness, `tests/file_tests.rs`).

use sim_core::exec::{LaunchSetup, Run, RunOptions};

/// `tests/cases/exec`.
pub fn cases_dir() -> std::path::PathBuf {
    crate::repo_root().join("tests").join("cases").join("exec")
}

/// The JSON after `// launch:` (the rest of that line).
pub fn launch_header(src: &str) -> Option<&str> {
    src.lines().find_map(|l| l.trim().strip_prefix("// launch:")).map(str::trim)
}

/// The pretty JSON outcome of running `src` with its header's launch setup.
pub fn run_case(src: &str) -> String {
    let mut text = match sim_core::ptx::compile(src) {
        Err(d) => serde_json::to_string_pretty(&serde_json::json!({
            "compile_error": d.iter().map(|d| d.message.clone()).collect::<Vec<_>>()
        })),
        Ok(module) => {
            let result = LaunchSetup::from_json(launch_header(src).unwrap_or("{}"))
                .map_err(sim_core::exec::ExecError::from)
                .and_then(|setup| Run::new(&module, &setup, RunOptions::default()))
                .and_then(|mut run| run.run_to_end());
            match result {
                // Serialized directly (not through serde_json::Value) so f32 values print as f32.
                Ok(mut r) => {
                    r.locate(src);
                    serde_json::to_string_pretty(&r)
                }
                Err(mut e) => {
                    e.locate(src);
                    serde_json::to_string_pretty(&serde_json::json!({ "error": e }))
                }
            }
        }
    }
    .unwrap_or_default();
    text.push('\n');
    text
}
