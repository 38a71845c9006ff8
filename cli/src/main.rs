//! `reglab`: the native command line of RegLab. The same `sim-core` the web app runs, for scripts,
//! batch sweeps and benchmarks. Every subcommand lives in its own module under `commands/`.
//!
//! Exit codes: 0 success, 1 the input has errors (diagnostics printed), 2 usage errors or a
//! feature that is not available yet.

use std::process::ExitCode;

use clap::{Parser, Subcommand};

mod commands;

/// RegLab: a GPU register-file laboratory (command line).
#[derive(Parser)]
#[command(name = "reglab", version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Parse a PTX file and print the IR text form (or the diagnostics, exit code 1).
    Parse(commands::parse::Args),
    /// Parse every .ptx file below a directory and report one JSON line per file.
    Corpus(commands::corpus::Args),
    /// Static analyses of a kernel: liveness, registers, ranges, single-use loads, composite pairs.
    Analyze(commands::analyze::Args),
    /// Occupancy of a kernel configuration on a GPU preset or compute capability.
    Occupancy(commands::occupancy::Args),
    /// Execute a kernel functionally with a launch setup and print its outputs.
    Exec(commands::exec::Args),
    /// Simulate a kernel cycle by cycle under one or more register-file schemes.
    Run(commands::run::Args),
    /// Print a kernel as a scheme's program pass rewrites it (DeMO's direct memory operands, …).
    Rewrite(commands::rewrite::Args),
    /// List the register-file schemes with their parameters and model notes.
    Schemes(commands::schemes::Args),
    /// Measure simulator throughput (simulated warp-instructions per host second).
    Bench(commands::bench::Args),
    /// Sweep one scheme parameter over a list or range of values; one JSON line per point.
    Sweep(commands::sweep::Args),
    /// Join the JSON lines of `reglab sweep` shards into one table (aligned, CSV or JSON lines).
    Merge(commands::merge::Args),
}

/// Exit status of a process that stops because its reader went away (128 + SIGPIPE), as a shell
/// reports it for any Unix tool in `reglab … | head`.
const BROKEN_PIPE_EXIT: i32 = 141;

/// Rust ignores SIGPIPE, so a closed stdout (`reglab exec … --json | head`) makes `println!` panic
/// with a backtrace. Such a reader is not an error of ours: stop quietly, as other tools do.
/// Every other panic keeps the default report.
fn quiet_on_broken_pipe() {
    let default = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let message = info
            .payload()
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| info.payload().downcast_ref::<&str>().copied())
            .unwrap_or("");
        if message.contains("failed printing to stdout") && message.contains("Broken pipe") {
            std::process::exit(BROKEN_PIPE_EXIT);
        }
        default(info);
    }));
}

fn main() -> ExitCode {
    quiet_on_broken_pipe();
    let cli = Cli::parse();
    match cli.command {
        Command::Parse(args) => commands::parse::run(&args),
        Command::Corpus(args) => commands::corpus::run(&args),
        Command::Analyze(args) => commands::analyze::run(&args),
        Command::Occupancy(args) => commands::occupancy::run(&args),
        Command::Exec(args) => commands::exec::run(&args),
        Command::Run(args) => commands::run::run(&args),
        Command::Rewrite(args) => commands::rewrite::run(&args),
        Command::Schemes(args) => commands::schemes::run(&args),
        Command::Bench(args) => commands::bench::run(&args),
        Command::Sweep(args) => commands::sweep::run(&args),
        Command::Merge(args) => commands::merge::run(&args),
    }
}
