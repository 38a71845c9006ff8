//! `reglab run FILE.ptx --launch L.json --gpu PRESET [--scheme S]... [--scheme-file F.json]
//! [--sms N] [--virtual-banks] [--single-use] [--json]`: runs the kernel functionally once and replays its instruction streams
//! through the cycle-level timing model under each register-file scheme, side by side. A scheme
//! is `NAME` or `NAME:key=value,key=value` (`reglab schemes` lists the parameters); the file is a
//! JSON list of `{"scheme": NAME, "params": {key: value}}`, run after the `--scheme` ones. The
//! same scheme twice with different values is two runs, labelled by their values; each report
//! echoes its full config.
//!
//! ```text
//! $ reglab run saxpy.ptx --launch saxpy.launch.json --gpu fermi-gtx480 --scheme baseline --scheme baseline:collector_units=2
//! scheme                      regs  CTAs/SM  cycles  warp IPC  thread IPC  issued% …
//! baseline                      12        8   18304     1.790      57.28    44.7 …
//! baseline:collector_units=2    12        8   19876     …
//! ```
//!
//! Under the table: stall causes without a column, energy per structure, and the kernel's value
//! statistics: reads per value (Wyse) and Gilani's value shares (`values: redundant across the
//! warp …`; every run records the lanes' values unless `--no-values`, ~12% slower). `--json`
//! prints `{file, gpu, reports, summary}`, `summary` being the same comparison
//! ([`sim_core::timing::summary::Comparison`], value shares included).
//!
//! `reglab run --experiment F.reglab.json` takes the kernel, launch, GPU, schemes and "ptxas says
//! N" from an experiment file saved by the web app (`experiment.rs`); `--scheme` values are added
//! after the file's schemes, and other flags override the file.
//!
//! Exit codes: 0 success (also when a run stops at its cycle budget: the report says so); 1 the
//! kernel, setup or simulation has errors; 2 usage errors (unreadable files, unknown preset or
//! scheme, a bad scheme spec or parameter value).

use std::path::PathBuf;
use std::process::ExitCode;

use sim_core::exec::{ExecError, LaunchSetup};
use sim_core::gpu::{presets, GpuConfig};
use sim_core::timing::regfile::config::resolve_all;
use sim_core::timing::report::{Outcome, Report};
use sim_core::timing::summary::{compare, SchemeSummary};
use sim_core::timing::{EnergyModel, SchemeSpec, StallCause, TimingError, TimingOptions};

/// Arguments of `reglab run`.
#[derive(clap::Args)]
pub struct Args {
    /// The PTX file (not with `--experiment`).
    #[arg(required_unless_present = "experiment", conflicts_with = "experiment")]
    pub file: Option<PathBuf>,
    /// The launch setup (JSON, as for `reglab exec`).
    #[arg(long, short, required_unless_present = "experiment")]
    pub launch: Option<PathBuf>,
    /// GPU preset (one of those `reglab occupancy --help` lists under `--gpu`).
    #[arg(long, required_unless_present = "experiment")]
    pub gpu: Option<String>,
    /// An experiment file saved by the web app (`.reglab.json`): kernel, launch, GPU, schemes.
    #[arg(long, value_name = "F.reglab.json")]
    pub experiment: Option<PathBuf>,
    /// Register-file scheme, `NAME` or `NAME:key=value,key=value`; repeat for a side-by-side
    /// comparison (default: baseline).
    #[arg(long = "scheme", value_name = "NAME[:k=v,...]")]
    pub schemes: Vec<String>,
    /// A JSON list of schemes, `[{"scheme": "baseline", "params": {"collector_units": 2}}]`.
    #[arg(long, value_name = "F.json")]
    pub scheme_file: Option<PathBuf>,
    /// How the timing runs are set up (shared with `reglab sweep`).
    #[command(flatten)]
    pub sim: SimFlags,
    /// The run the speed-ups are relative to, by label (default: `baseline` if run, else the
    /// first).
    #[arg(long, value_name = "LABEL")]
    pub reference: Option<String>,
    /// Print the reports as JSON.
    #[arg(long)]
    pub json: bool,
}

/// The simulation options `reglab run` and `reglab sweep` share.
#[derive(clap::Args)]
pub struct SimFlags {
    /// Simulate this many SMs instead of the preset's count.
    #[arg(long)]
    pub sms: Option<u32>,
    /// Registers per thread to use instead of the scheme's estimate ("ptxas says N").
    #[arg(long)]
    pub registers: Option<u32>,
    /// Cycle budget per scheme (per point of a sweep).
    #[arg(long)]
    pub max_cycles: Option<u64>,
    /// Warp-instruction budget of the functional run (default: the launch setup's `budget`,
    /// else 20 million, `sim_core::exec::DEFAULT_BUDGET`).
    #[arg(long)]
    pub budget: Option<u64>,
    /// A study: register-file banks see the PTX virtual registers instead of the registers the
    /// allocator assigns (the default, as real banks hold allocated registers).
    #[arg(long)]
    pub virtual_banks: bool,
    /// DeMO's baseline measurements: the baseline counts the register-file accesses of
    /// single-use memory values and the bank conflicts they are involved in (paper Fig. 1, 2).
    #[arg(long)]
    pub single_use: bool,
    /// Do not record the lanes' values (faster): no value shares (Gilani's statistics) unless a
    /// scheme models values.
    #[arg(long)]
    pub no_values: bool,
    /// Quick mode: time a sample of about `--quick-waves` waves of CTAs (each SMs × CTAs per
    /// SM; one wave in every k) and report an estimate: the sample's figures, the extrapolated
    /// cycles and the waves' spread. A scheme whose sample spreads 10% or more is timed again
    /// with twice the waves (at most twice). A grid under two samples' worth runs in full.
    #[arg(long)]
    pub quick: bool,
    /// Waves of CTAs quick mode times.
    #[arg(long, value_name = "N", default_value_t = 3, value_parser = clap::value_parser!(u32).range(1..=1000))]
    pub quick_waves: u32,
    /// Threads the schemes (the points of a sweep) are spread over, each with its own functional
    /// run; with at least two per scheme, each executor also runs on a thread of its own, ahead
    /// of its timing model; default: the machine's cores. The reports do not depend on it.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=256))]
    pub threads: Option<u32>,
}

impl SimFlags {
    /// Applies the budget to `setup` and gives the timing options (`registers` when the flags
    /// name none: an experiment file's "ptxas says N").
    pub fn apply(&self, setup: &mut LaunchSetup, registers: Option<u32>) -> TimingOptions {
        if self.budget.is_some() {
            setup.budget = self.budget;
        }
        let mut options = TimingOptions {
            sms: self.sms,
            registers_per_thread: self.registers.or(registers),
            virtual_register_banks: self.virtual_banks,
            single_use_attribution: self.single_use,
            values: !self.no_values,
            quick_waves: self.quick.then_some(self.quick_waves),
            ..TimingOptions::default()
        };
        if let Some(c) = self.max_cycles {
            options.max_cycles = c;
        }
        options
    }

    /// Threads to spread the schemes over (`--threads`, else the machine's cores).
    pub fn threads(&self) -> usize {
        self.threads.map_or_else(super::run_threads::default_threads, |t| t as usize)
    }
}

fn usage(msg: String) -> ExitCode {
    eprintln!("reglab run: {msg}");
    ExitCode::from(2)
}

/// What the run reads besides its flags: from the files given, or from an experiment file.
struct Inputs {
    src: String,
    setup: LaunchSetup,
    gpu: GpuConfig,
    schemes: Vec<SchemeSpec>,
    registers: Option<u32>,
    name: String,
}

/// The PTX source, the launch setup and the GPU (and an experiment's schemes), or a usage error.
fn inputs(args: &Args) -> Result<Inputs, ExitCode> {
    let mut from = match &args.experiment {
        Some(path) => {
            let e = super::experiment::read(path).map_err(usage)?;
            let name = path.display().to_string();
            Inputs { src: e.source, setup: e.launch, gpu: e.gpu, schemes: e.schemes, registers: e.registers, name }
        }
        None => from_files(args)?,
    };
    if let (Some(_), Some(launch)) = (&args.experiment, &args.launch) {
        from.setup = read_launch(launch)?;
    }
    if let (Some(_), Some(preset)) = (&args.experiment, &args.gpu) {
        from.gpu = gpu_preset(preset)?;
    }
    Ok(from)
}

fn from_files(args: &Args) -> Result<Inputs, ExitCode> {
    let (Some(file), Some(launch), Some(preset)) = (&args.file, &args.launch, &args.gpu) else {
        return Err(usage("give FILE.ptx, --launch and --gpu, or --experiment".to_owned()));
    };
    let src =
        std::fs::read_to_string(file).map_err(|e| usage(format!("cannot read PTX file {}: {e}", file.display())))?;
    let (setup, gpu) = (read_launch(launch)?, gpu_preset(preset)?);
    Ok(Inputs { src, setup, gpu, schemes: Vec::new(), registers: None, name: file.display().to_string() })
}

fn read_launch(path: &std::path::Path) -> Result<LaunchSetup, ExitCode> {
    std::fs::read_to_string(path)
        .map_err(|e| e.to_string())
        .and_then(|t| serde_json::from_str(&t).map_err(|e| e.to_string()))
        .map_err(|e| usage(format!("cannot read launch setup {}: {e}", path.display())))
}

fn gpu_preset(name: &str) -> Result<GpuConfig, ExitCode> {
    presets::by_name(name).ok_or_else(|| {
        let names: Vec<&str> = presets::names().collect();
        usage(format!("unknown GPU preset '{name}' (known: {})", names.join(", ")))
    })
}

/// The schemes asked for (`--scheme` values, then the file's entries; baseline if none), checked
/// against their schemas on `gpu`, or a usage error.
fn schemes(args: &Args, gpu: &GpuConfig, mut specs: Vec<SchemeSpec>) -> Result<Vec<SchemeSpec>, ExitCode> {
    for text in &args.schemes {
        specs.push(SchemeSpec::parse(text).map_err(|e| usage(e.to_string()))?);
    }
    if let Some(path) = &args.scheme_file {
        let listed: Vec<SchemeSpec> = std::fs::read_to_string(path)
            .map_err(|e| e.to_string())
            .and_then(|t| serde_json::from_str(&t).map_err(|e| e.to_string()))
            .map_err(|e| usage(format!("cannot read scheme file {}: {e}", path.display())))?;
        specs.extend(listed);
    }
    if specs.is_empty() {
        specs.push(SchemeSpec::named("baseline"));
    }
    let energy = EnergyModel::default();
    resolve_all(&specs, gpu, &energy).map_err(|e| usage(e.to_string()))?;
    Ok(specs)
}

/// Runs the subcommand.
pub fn run(args: &Args) -> ExitCode {
    let Inputs { src, mut setup, gpu, schemes: listed, registers, name } = match inputs(args) {
        Ok(x) => x,
        Err(code) => return code,
    };
    let schemes = match schemes(args, &gpu, listed) {
        Ok(s) => s,
        Err(code) => return code,
    };
    let module = match sim_core::ptx::compile(&src) {
        Ok(m) => m,
        Err(diags) => {
            // An experiment's kernel text is inside its JSON: lines count from the kernel's start.
            let label = if args.experiment.is_some() { "kernel" } else { name.as_str() };
            super::diagnostics::print(label, &src, &diags);
            eprintln!("reglab run: {name} does not compile ({})", super::diagnostics::count(&diags));
            if args.json {
                let error = super::diagnostics::compile_error_json(&src, &diags);
                let message = error["message"].clone();
                println!("{}", serde_json::json!({ "error": error, "message": message }));
            }
            return ExitCode::from(1);
        }
    };
    let options = args.sim.apply(&mut setup, registers);
    drop(module);
    match super::run_threads::simulate(&src, &setup, &gpu, &schemes, &options, args.sim.threads()) {
        Ok(mut reports) => {
            reports.iter_mut().for_each(|r| r.locate(&src));
            if args.json {
                let summary = compare(&reports, args.reference.as_deref());
                let doc = serde_json::json!({ "file": name, "gpu": gpu.name, "reports": reports, "summary": summary });
                println!("{}", serde_json::to_string_pretty(&doc).unwrap_or_default());
            } else {
                print_table(&reports, args.reference.as_deref());
                // The functional run is shared by every scheme: its notices once.
                for n in reports.first().map(|r| r.notices.as_slice()).unwrap_or_default() {
                    println!("warning: {n}");
                }
            }
            ExitCode::SUCCESS
        }
        Err(e @ (TimingError::UnknownScheme(_) | TimingError::SchemeConfig(_))) => usage(e.to_string()),
        Err(mut e) => {
            e.locate(&src);
            if args.json {
                let detail = serde_json::to_value(&e).unwrap_or(serde_json::Value::Null);
                println!("{}", serde_json::json!({ "error": detail, "message": e.to_string() }));
            }
            eprintln!("reglab run: {e}");
            if let Some(ExecError::BudgetExceeded { budget, .. }) = e.exec_error() {
                eprintln!("reglab run: {}", super::exec::budget_hint(*budget));
            }
            ExitCode::from(1)
        }
    }
}

fn pct(n: u64, total: u64) -> f64 {
    if total == 0 {
        0.0
    } else {
        100.0 * n as f64 / total as f64
    }
}

/// The stall causes with their own table column; the others are listed under the table.
const STALL_COLUMNS: [(StallCause, &str); 8] = [
    (StallCause::Issued, "issue%"),
    (StallCause::Scoreboard, "sb%"),
    (StallCause::OperandCollection, "oc%"),
    (StallCause::Structural, "str%"),
    (StallCause::Memory, "mem%"),
    (StallCause::Barrier, "bar%"),
    (StallCause::NoEligibleWarp, "noel%"),
    (StallCause::Idle, "idle%"),
];

fn print_table(reports: &[Report], reference: Option<&str>) {
    let cmp = compare(reports, reference);
    let w = reports.iter().map(|r| r.scheme.chars().count()).max().unwrap_or(0).max(18);
    print!(
        "{:<w$} {:>5} {:>7} {:>10} {:>9} {:>10} {:>8}",
        "scheme", "regs", "CTAs/SM", "cycles", "warp IPC", "thread IPC", "speed-up"
    );
    for (_, head) in STALL_COLUMNS {
        print!(" {head:>6}");
    }
    println!(" {:>10} {:>10} {:>9} {:>10}", "RF reads", "RF writes", "conflicts", "RF nJ");
    for (r, row) in reports.iter().zip(&cmp.rows) {
        print_row(r, row, w);
    }
    println!("speed-up: reference cycles / cycles, reference {}", cmp.reference);
    for row in &cmp.rows {
        let others: Vec<String> = row
            .stalls
            .iter()
            .filter(|s| s.cycles > 0 && !STALL_COLUMNS.iter().any(|(c, _)| c.name() == s.cause))
            .map(|s| format!("{} {:.1}%", s.label, 100.0 * s.fraction))
            .collect();
        if !others.is_empty() {
            println!("stalls {}: {}", row.scheme, others.join(", "));
        }
        let parts: Vec<String> = row
            .structures
            .iter()
            .map(|s| format!("{} {} reads, {} writes, {:.1} nJ", s.name, s.reads, s.writes, s.energy_nj))
            .collect();
        println!("energy {}: {}", row.scheme, parts.join("; "));
        if let Some(u) = &row.single_use {
            println!(
                "single-use memory values {}: {} RF accesses ({:.1}% of all; paper ~26%), involved in {} bank conflicts ({:.1}% of all; paper > 25%), waited {} request cycles",
                row.scheme,
                u.accesses,
                100.0 * u.access_share,
                u.bank_conflicts,
                100.0 * u.conflict_share,
                u.waits
            );
        }
    }
    for r in reports {
        let params: Vec<String> = r.config.params.iter().map(|(k, v)| format!("{k}={v}")).collect();
        println!("config {}: {}", r.scheme, params.join(" "));
    }
    for r in reports {
        let tuning = sim_core::timing::regfile::compression_report::tuning_summary(&r.register_file.scheme.counters);
        if let Some(line) = tuning {
            println!("{}: {line}", r.scheme);
        }
    }
    if let Some(r) = reports.first() {
        let v = &r.values.reads_per_value;
        let n = v.total();
        let within3 = r.values.distance_cdf.get(2).map_or(0.0, |p| p.cumulative_fraction * 100.0);
        println!(
            "values: {n} produced; read 0× {:.1}%, 1× {:.1}%, 2× {:.1}%, >2× {:.1}%; {:.1}% of reads within 3 instructions",
            pct(v.zero, n),
            pct(v.one, n),
            pct(v.two, n),
            pct(v.more_than_two, n),
            within3
        );
    }
    for (scheme, line) in sim_core::timing::summary::quick_lines(reports) {
        println!("quick estimate {scheme}: {line}");
    }
    // Gilani's shares describe the kernel: every run of one invocation has the same.
    if let Some(v) = cmp.rows.iter().find_map(|r| r.value_shares) {
        println!(
            "values: redundant across the warp {:.1}% of {} instructions; integer values fitting 16 bits {:.1}% of {} (Gilani Fig. 1: 10–50%, 80–90%)",
            100.0 * v.redundant,
            v.redundant_of,
            100.0 * v.integer_16bit,
            v.integer_values
        );
    }
}

fn print_row(r: &Report, row: &SchemeSummary, w: usize) {
    print!(
        "{:<w$} {:>5} {:>7} {:>10} {:>9.3} {:>10.2} {:>7.3}×",
        row.scheme, row.registers_per_thread, row.ctas_per_sm, row.cycles, row.warp_ipc, row.thread_ipc, row.speedup
    );
    for (cause, _) in STALL_COLUMNS {
        print!(" {:>6.1}", 100.0 * row.stall(cause));
    }
    println!(" {:>10} {:>10} {:>9} {:>10.1}", row.rf_reads, row.rf_writes, row.bank_conflicts, row.energy_nj);
    if let Outcome::BudgetExceeded { budget_cycles } = r.outcome {
        let kernels: Vec<&str> = r.kernels.iter().map(|k| k.kernel.as_str()).collect();
        println!(
            "  ({}: stopped at its cycle budget of {budget_cycles} cycles in kernel {} after {} CTAs; \
             raise it with --max-cycles N)",
            r.scheme,
            kernels.join(", "),
            r.ctas
        );
    }
}
