//! `reglab occupancy`: not available yet (the occupancy calculator).

use std::process::ExitCode;

/// Arguments of `reglab occupancy`.
pub type Args = super::Pending;

/// Runs the subcommand.
pub fn run(_args: &Args) -> ExitCode {
    super::not_available("occupancy", "the occupancy calculator")
}
