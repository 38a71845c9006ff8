//! `reglab corpus DIR [--json]`: parses, lowers and verifies every `.ptx` file below DIR and reports
//! one line per file (sorted by path), then a summary line. Exit code 0 if every file compiled.
//!
//! ```text
//! $ reglab corpus ../shared/corpus/ptx --json | tail -1
//! {"summary": {"files": 85, "ok": 85, "failed": 0, "instructions": 76068}}
//! ```

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use serde_json::json;
use sim_core::diagnostic::{LineIndex, Severity};

/// Arguments of `reglab corpus`.
#[derive(clap::Args)]
pub struct Args {
    /// Directory searched recursively for `.ptx` files.
    pub dir: PathBuf,
    /// One JSON object per line: `{"file", "ok", "kernels", "instructions", "errors"}`, then
    /// `{"summary": {...}}`.
    #[arg(long)]
    pub json: bool,
}

/// The outcome for one file.
struct FileReport {
    file: String,
    ok: bool,
    kernels: Vec<String>,
    instructions: usize,
    /// (line, column, message)
    errors: Vec<(u32, u32, String)>,
}

/// Runs the subcommand.
pub fn run(args: &Args) -> ExitCode {
    if !args.dir.is_dir() {
        eprintln!("reglab corpus: {} is not a directory", args.dir.display());
        return ExitCode::from(2);
    }
    let mut files = Vec::new();
    collect(&args.dir, &mut files);
    files.sort();
    let (mut ok, mut instructions) = (0usize, 0usize);
    for path in &files {
        let report = compile_file(path);
        ok += usize::from(report.ok);
        instructions += report.instructions;
        if args.json {
            println!("{}", json_line(&report));
        } else {
            let status = if report.ok { "ok    " } else { "FAILED" };
            println!(
                "{status} {} ({} kernels, {} instructions)",
                report.file,
                report.kernels.len(),
                report.instructions
            );
            for (line, column, message) in report.errors.iter().take(5) {
                println!("       {}:{line}:{column}: {message}", report.file);
            }
        }
    }
    let failed = files.len() - ok;
    if args.json {
        let files = files.len();
        println!(
            "{{\"summary\": {{\"files\": {files}, \"ok\": {ok}, \"failed\": {failed}, \"instructions\": {instructions}}}}}"
        );
    } else {
        println!("{} files: {ok} ok, {failed} failed, {instructions} instructions", files.len());
    }
    if failed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}

/// `{"file": …, "ok": …, "kernels": […], "instructions": N, "errors": [{"line", "column", "message"}]}`
/// with the keys in this order.
fn json_line(r: &FileReport) -> String {
    let errors: Vec<String> = r
        .errors
        .iter()
        .map(|(line, column, message)| {
            format!("{{\"line\": {line}, \"column\": {column}, \"message\": {}}}", json!(message))
        })
        .collect();
    format!(
        "{{\"file\": {}, \"ok\": {}, \"kernels\": {}, \"instructions\": {}, \"errors\": [{}]}}",
        json!(r.file),
        r.ok,
        json!(r.kernels),
        r.instructions,
        errors.join(", ")
    )
}

fn compile_file(path: &Path) -> FileReport {
    let file = path.display().to_string();
    let src = match std::fs::read(path) {
        Ok(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
        Err(e) => {
            return FileReport {
                file,
                ok: false,
                kernels: vec![],
                instructions: 0,
                errors: vec![(0, 0, e.to_string())],
            }
        }
    };
    let checked = sim_core::ptx::check(&src);
    let index = LineIndex::new(&src);
    let errors = checked
        .diagnostics
        .iter()
        .filter(|d| d.severity == Severity::Error)
        .map(|d| {
            let at = d.location(&src, &index);
            (at.line, at.column, d.message.clone())
        })
        .collect();
    match checked.module {
        Some(module) => {
            let summary = sim_core::ptx::summary(&module);
            let kernels = summary.kernel_names().into_iter().map(String::from).collect();
            FileReport { file, ok: true, kernels, instructions: summary.instructions(), errors }
        }
        None => FileReport { file, ok: false, kernels: vec![], instructions: 0, errors },
    }
}

fn collect(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            collect(&path, out);
        } else if path.extension().is_some_and(|e| e == "ptx") {
            out.push(path);
        }
    }
}
