//! `reglab analyze`: not available yet (the static analyses).

use std::process::ExitCode;

/// Arguments of `reglab analyze`.
pub type Args = super::Pending;

/// Runs the subcommand.
pub fn run(_args: &Args) -> ExitCode {
    super::not_available("analyze", "the static analyses")
}
