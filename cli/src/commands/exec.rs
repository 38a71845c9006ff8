//! `reglab exec`: not available yet (the functional executor).

use std::process::ExitCode;

/// Arguments of `reglab exec`.
pub type Args = super::Pending;

/// Runs the subcommand.
pub fn run(_args: &Args) -> ExitCode {
    super::not_available("exec", "the functional executor")
}
