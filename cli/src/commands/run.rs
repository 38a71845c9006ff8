//! `reglab run`: not available yet (the cycle-level timing model).

use std::process::ExitCode;

/// Arguments of `reglab run`.
pub type Args = super::Pending;

/// Runs the subcommand.
pub fn run(_args: &Args) -> ExitCode {
    super::not_available("run", "the cycle-level timing model")
}
