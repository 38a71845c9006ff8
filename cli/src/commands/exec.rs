//! `reglab exec FILE.ptx --launch L.json [--json]`: runs a kernel functionally with a launch setup
//! (see `docs/launch-format.md`) and prints the output buffers and instruction counts.
//!
//! ```text
//! $ reglab exec bfs.ptx --launch bfs.launch.json --json
//! {"outputs": {"5": [0, 1, 2, 1, 1, 2]}, "warp_instructions": 396, "thread_instructions": 1126, ...}
//! $ reglab exec oob.ptx --launch l.json --json        # exit code 1
//! {"error": {"kind": "fault", "kernel": "k", "line": 14, "thread": [40, 0, 0], ...}}
//! $ reglab exec kernel.ptx --propose                   # a launch setup to start from
//! ```
//!
//! Exit codes: 0 success; 1 the kernel or setup has errors (compile errors, invalid launch,
//! fault, budget exceeded, unsupported instruction, trap, deadlock); 2 usage errors (unreadable
//! files, missing options).

use std::path::PathBuf;
use std::process::ExitCode;

use sim_core::exec::{ExecError, LaunchSetup, Run, RunOptions, RunResult};

/// Arguments of `reglab exec`.
#[derive(clap::Args)]
pub struct Args {
    /// The PTX file.
    pub file: PathBuf,
    /// The launch setup (JSON).
    #[arg(long, short)]
    pub launch: Option<PathBuf>,
    /// Print JSON (results, or `{"error": …}`).
    #[arg(long)]
    pub json: bool,
    /// Override the warp-instruction budget (default: the launch setup's `budget`, else 20
    /// million, `sim_core::exec::DEFAULT_BUDGET`).
    #[arg(long)]
    pub budget: Option<u64>,
    /// Print a proposed launch setup for the kernel instead of running.
    #[arg(long)]
    pub propose: bool,
    /// The kernel for `--propose` (default: the first kernel).
    #[arg(long)]
    pub kernel: Option<String>,
}

fn read(path: &PathBuf, what: &str) -> Result<String, ExitCode> {
    std::fs::read_to_string(path).map_err(|e| {
        eprintln!("reglab exec: cannot read {what} {}: {e}", path.display());
        ExitCode::from(2)
    })
}

/// Runs the subcommand.
pub fn run(args: &Args) -> ExitCode {
    let src = match read(&args.file, "PTX file") {
        Ok(s) => s,
        Err(code) => return code,
    };
    let name = args.file.display().to_string();
    let module = match sim_core::ptx::compile(&src) {
        Ok(m) => m,
        Err(diags) => {
            super::diagnostics::print(&name, &src, &diags);
            eprintln!("reglab exec: {name} does not compile ({})", super::diagnostics::count(&diags));
            if args.json {
                print_json(&serde_json::json!({ "error": super::diagnostics::compile_error_json(&src, &diags) }));
            }
            return ExitCode::from(1);
        }
    };
    if args.propose {
        return propose(&module, args.kernel.as_deref(), &name);
    }
    let Some(launch) = &args.launch else {
        eprintln!("reglab exec: --launch L.json is required (or --propose to get one)");
        return ExitCode::from(2);
    };
    let text = match read(launch, "launch setup") {
        Ok(s) => s,
        Err(code) => return code,
    };
    let outcome = LaunchSetup::from_json(&text)
        .map_err(ExecError::from)
        .and_then(|setup| Run::new(&module, &setup, RunOptions { budget: args.budget, ..RunOptions::default() }))
        .and_then(|mut run| run.run_to_end());
    match outcome {
        Ok(mut result) => {
            result.locate(&src);
            if args.json {
                print_json(&result);
            } else {
                print_text(&result);
            }
            ExitCode::SUCCESS
        }
        Err(mut e) => {
            e.locate(&src);
            if args.json {
                print_json(&serde_json::json!({ "error": e }));
            } else {
                eprintln!("{name}: {e}");
                if let ExecError::BudgetExceeded { budget, .. } = e {
                    eprintln!("{name}: {}", budget_hint(budget));
                }
            }
            ExitCode::from(1)
        }
    }
}

/// Prints a proposed launch setup for `kernel` (default: the first kernel).
fn propose(module: &sim_core::ir::Module, kernel: Option<&str>, name: &str) -> ExitCode {
    let kernel = match kernel {
        Some(k) => k.to_string(),
        None => match sim_core::exec::plan::kernel_names(module).into_iter().next() {
            Some(k) => k,
            None => {
                eprintln!("reglab exec: {name} has no kernel");
                return ExitCode::from(1);
            }
        },
    };
    let proposal = sim_core::exec::propose(module, &kernel);
    println!("{}", proposal.setup.to_json());
    for note in &proposal.notes {
        match note.param {
            Some(i) => eprintln!("reglab exec: note: params[{i}]: {}", note.text),
            None => eprintln!("reglab exec: note: {}", note.text),
        }
    }
    ExitCode::SUCCESS
}

fn print_json<T: serde::Serialize>(value: &T) {
    match serde_json::to_string(value) {
        Ok(s) => println!("{s}"),
        Err(e) => eprintln!("reglab exec: cannot print JSON: {e}"),
    }
}

fn print_text(r: &RunResult) {
    let mut out = String::new();
    for (i, values) in &r.outputs {
        let shown: Vec<String> = values.iter().take(16).map(|v| v.to_text()).collect();
        let more = if values.len() > 16 { format!(" … ({} values)", values.len()) } else { String::new() };
        out.push_str(&format!("params[{i}]: {}{more}\n", shown.join(" ")));
    }
    for l in &r.launches {
        out.push_str(&format!(
            "launch {} grid {:?} block {:?}: {} warp-instructions, {} thread-instructions\n",
            l.kernel, l.grid, l.block, l.warp_instructions, l.thread_instructions
        ));
    }
    out.push_str(&format!(
        "total: {} warp-instructions, {} thread-instructions, {} round(s)\n",
        r.warp_instructions, r.thread_instructions, r.rounds
    ));
    for w in &r.warnings {
        out.push_str(&format!("warning: {w}\n"));
    }
    for n in &r.notices {
        out.push_str(&format!("warning: {n}\n"));
    }
    print!("{out}");
}

/// How to raise the warp-instruction budget from the command line (`reglab exec` and `reglab
/// run` both take `--budget`).
pub fn budget_hint(budget: u64) -> String {
    format!(
        "if the kernel needs more, raise the budget with --budget N (now {budget} warp-instructions) or \"budget\": N in the launch setup"
    )
}
