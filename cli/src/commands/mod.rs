//! One module per `reglab` subcommand.

pub mod analyze;
pub mod bench;
pub mod corpus;
pub mod exec;
pub mod occupancy;
pub mod parse;
pub mod run;

use std::process::ExitCode;

/// Arguments of a subcommand that has not landed yet: accepted, then refused with exit code 2.
#[derive(clap::Args)]
pub struct Pending {
    /// (accepted and ignored until this subcommand is available)
    #[arg(trailing_var_arg = true, allow_hyphen_values = true, hide = true)]
    rest: Vec<String>,
}

/// Says plainly that `name` is not available yet and which issue brings it; exit code 2.
pub fn not_available(name: &str, what: &str) -> ExitCode {
    eprintln!("reglab {name}: not available yet ({what} has not landed in this build)");
    ExitCode::from(2)
}
