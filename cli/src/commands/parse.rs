//! `reglab parse`: not available yet (the PTX front end).

use std::process::ExitCode;

/// Arguments of `reglab parse`.
pub type Args = super::Pending;

/// Runs the subcommand.
pub fn run(_args: &Args) -> ExitCode {
    super::not_available("parse", "the PTX front end")
}
