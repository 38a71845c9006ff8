//! `reglab corpus`: not available yet (the PTX front end).

use std::process::ExitCode;

/// Arguments of `reglab corpus`.
pub type Args = super::Pending;

/// Runs the subcommand.
pub fn run(_args: &Args) -> ExitCode {
    super::not_available("corpus", "the PTX front end")
}
