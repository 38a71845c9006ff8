//! Running a launch-proposal file test: `tests/cases/propose/<name>.ptx` starts with
//! `// run: propose`; the proposal for every entry kernel (the setup and its notes, as pretty
//! JSON) must equal `<name>.expected` (run by the shared file-test harness, `tests/file_tests.rs`).

/// The pretty JSON proposals for every entry kernel of `src`.
pub fn run_case(src: &str) -> String {
    let mut text = match sim_core::ptx::compile(src) {
        Err(d) => serde_json::to_string_pretty(&serde_json::json!({
            "compile_error": d.iter().map(|d| d.message.clone()).collect::<Vec<_>>()
        })),
        Ok(module) => {
            let proposals: Vec<_> = sim_core::exec::plan::kernel_names(&module)
                .iter()
                .map(|k| sim_core::exec::propose(&module, k))
                .collect();
            serde_json::to_string_pretty(&proposals)
        }
    }
    .unwrap_or_default();
    text.push('\n');
    text
}
