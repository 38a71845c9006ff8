//! `reglab bench`: not available yet (the simulator benchmark).

use std::process::ExitCode;

/// Arguments of `reglab bench`.
pub type Args = super::Pending;

/// Runs the subcommand.
pub fn run(_args: &Args) -> ExitCode {
    super::not_available("bench", "the simulator benchmark")
}
