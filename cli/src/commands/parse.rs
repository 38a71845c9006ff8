//! `reglab parse FILE.ptx`: parses, lowers and verifies a PTX file and prints the IR text form
//! (which is PTX), or the diagnostics with exit code 1.
//!
//! ```text
//! $ reglab parse kernel.ptx > kernel.ir.ptx
//! $ reglab parse broken.ptx
//! broken.ptx:12:5: error: unknown instruction 'fma2'
//! ```

use std::io::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;

/// Arguments of `reglab parse`.
#[derive(clap::Args)]
pub struct Args {
    /// The PTX file to parse.
    pub file: PathBuf,
    /// Print a summary (functions, instruction and register counts) instead of the IR.
    #[arg(long)]
    pub summary: bool,
}

/// Runs the subcommand.
pub fn run(args: &Args) -> ExitCode {
    let src = match std::fs::read_to_string(&args.file) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("reglab parse: cannot read {}: {e}", args.file.display());
            return ExitCode::from(2);
        }
    };
    let checked = sim_core::ptx::check(&src);
    let name = args.file.display().to_string();
    super::diagnostics::print(&name, &src, &checked.diagnostics);
    let Some(module) = checked.module else {
        eprintln!("{name}: {}", super::diagnostics::count(&checked.diagnostics));
        return ExitCode::from(1);
    };
    let mut stdout = std::io::stdout().lock();
    let text = if args.summary {
        let summary = sim_core::ptx::summary(&module);
        let mut out = String::new();
        for f in &summary.functions {
            let kind = if f.entry { ".entry" } else { ".func" };
            out.push_str(&format!(
                "{kind} {}: {} instructions, {} registers, {} blocks\n",
                f.name, f.instructions, f.registers, f.blocks
            ));
        }
        out
    } else {
        module.to_string()
    };
    if stdout.write_all(text.as_bytes()).is_err() {
        return ExitCode::from(2);
    }
    ExitCode::SUCCESS
}
