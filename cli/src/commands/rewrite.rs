//! `reglab rewrite FILE.ptx --scheme NAME[:k=v,...]`: prints the kernel as a scheme's program pass
//! rewrites it (DeMO's direct memory operands, …), in the IR text form `reglab parse` prints. Works
//! for every registered scheme that transforms code; a scheme that does not is a usage error.
//!
//! ```text
//! $ reglab rewrite fig4.ptx --scheme demo:spaces=all
//!   mul.ftz.f32 %f3, %c[%rd1+4], %f1;      // a direct memory operand: %g %s %l %c %p [address]
//! ```

use std::io::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;

use sim_core::diff::rewrite::transformed;
use sim_core::gpu::presets;
use sim_core::timing::{EnergyModel, SchemeSpec};

/// Arguments of `reglab rewrite`.
#[derive(clap::Args)]
pub struct Args {
    /// The PTX file to rewrite.
    pub file: PathBuf,
    /// The scheme whose program pass rewrites it, `NAME` or `NAME:key=value,...`.
    #[arg(long)]
    pub scheme: String,
    /// GPU preset the scheme's parameters default from.
    #[arg(long, default_value = "turing-rtx2060")]
    pub gpu: String,
}

fn fail(code: u8, msg: String) -> ExitCode {
    eprintln!("reglab rewrite: {msg}");
    ExitCode::from(code)
}

/// Runs the subcommand.
pub fn run(args: &Args) -> ExitCode {
    let src = match std::fs::read_to_string(&args.file) {
        Ok(s) => s,
        Err(e) => return fail(2, format!("cannot read {}: {e}", args.file.display())),
    };
    let Some(gpu) = presets::by_name(&args.gpu) else { return fail(2, format!("unknown GPU preset '{}'", args.gpu)) };
    let resolved = SchemeSpec::parse(&args.scheme).and_then(|s| s.resolve(&gpu, &EnergyModel::default()));
    let resolved = match resolved {
        Ok(r) => r,
        Err(e) => return fail(2, e.to_string()),
    };
    let refuse = || {
        let why = format!("scheme {} does not transform code (it is timed on the original kernel)", resolved.label);
        fail(2, why)
    };
    if sim_core::timing::regfile::registry::transform_of(&resolved).is_none() {
        return refuse();
    }
    let module = match sim_core::ptx::compile(&src) {
        Ok(m) => m,
        Err(diags) => {
            let name = args.file.display().to_string();
            super::diagnostics::print(&name, &src, &diags);
            return fail(1, format!("{name} does not compile ({})", super::diagnostics::count(&diags)));
        }
    };
    let text = match transformed(&module, &resolved) {
        Ok(Some((m, _))) => m.to_string(),
        Ok(None) => return refuse(),
        Err(e) => return fail(1, e),
    };
    if std::io::stdout().lock().write_all(text.as_bytes()).is_err() {
        return ExitCode::from(2);
    }
    ExitCode::SUCCESS
}
