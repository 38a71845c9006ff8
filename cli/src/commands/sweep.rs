//! `reglab sweep FILE.ptx --launch L.json --gpu PRESET --scheme NAME[:k=v,...] --param P
//! --values a,b,c [--reference V] [--sms N] [--registers N] [--max-cycles N] [--budget N]
//! [--virtual-banks]`: one scheme's parameter swept over a list of values, every point timed on
//! the same functional run; one JSON line per point, in the order of the values (any scheme, any
//! parameter `reglab schemes` lists).
//!
//! ```text
//! $ reglab sweep k.ptx --launch k.json --gpu fermi-gtx480 --scheme rfc-ob --param rfc_entries --values 2,8,512 --reference 8
//! {"scheme":"rfc-ob:rfc_entries=2","param":"rfc_entries","value":2,"cycles":…,"ipc":…,"relative_ipc":0.97,"reads_saved":0.21,…}
//! ```
//!
//! Per point: cycles, warp IPC, IPC relative to the reference point (default: the first value),
//! register-file reads, writes, conflicts and energy, the scheme's structures and counters, and
//! `reads_saved` = `rfc_hits / (rfc_hits + rfc_misses)` when the scheme counts both (Wyse Fig. 5).
//! Exit codes as `reglab run`'s: 1 the kernel or the simulation fails, 2 usage errors.

use std::path::PathBuf;
use std::process::ExitCode;

use serde_json::{json, Map, Value};
use sim_core::exec::LaunchSetup;
use sim_core::gpu::presets;
use sim_core::timing::regfile::config::resolve_all;
use sim_core::timing::report::Report;
use sim_core::timing::{EnergyModel, SchemeSpec, Simulation, TimingError};

/// Arguments of `reglab sweep`.
#[derive(clap::Args)]
pub struct Args {
    /// The PTX file.
    pub file: PathBuf,
    /// The launch setup (JSON, as for `reglab exec`).
    #[arg(long, short)]
    pub launch: PathBuf,
    /// GPU preset.
    #[arg(long)]
    pub gpu: String,
    /// The scheme, `NAME` or `NAME:key=value,...` (the other parameters of every point).
    #[arg(long)]
    pub scheme: String,
    /// The parameter swept.
    #[arg(long)]
    pub param: String,
    /// Its values, comma separated (`2,4,8,16`).
    #[arg(long, value_delimiter = ',', required = true)]
    pub values: Vec<String>,
    /// The value whose IPC the others are relative to (default: the first).
    #[arg(long)]
    pub reference: Option<String>,
    /// How the timing runs are set up (as for `reglab run`).
    #[command(flatten)]
    pub sim: super::run::SimFlags,
}

fn usage(msg: String) -> ExitCode {
    eprintln!("reglab sweep: {msg}");
    ExitCode::from(2)
}

/// The spec of one point: the base scheme with `param=value` added.
fn point_spec(base: &str, param: &str, value: &str) -> String {
    let sep = if base.contains(':') { ',' } else { ':' };
    format!("{base}{sep}{param}={value}")
}

/// The specs of every point, checked against the scheme's schema, or a usage error.
fn specs(args: &Args, gpu: &sim_core::gpu::GpuConfig) -> Result<Vec<SchemeSpec>, ExitCode> {
    if args.values.is_empty() {
        return Err(usage(String::from("--values needs at least one value")));
    }
    let mut specs = Vec::new();
    for v in &args.values {
        let text = point_spec(&args.scheme, &args.param, v.trim());
        specs.push(SchemeSpec::parse(&text).map_err(|e| usage(e.to_string()))?);
    }
    resolve_all(&specs, gpu, &EnergyModel::default()).map_err(|e| usage(e.to_string()))?;
    Ok(specs)
}

/// The JSON line of one point.
fn point(r: &Report, param: &str, value: &str, reference_ipc: f64) -> Value {
    let ipc = r.ipc.warp_instructions_per_cycle;
    let rf = &r.register_file;
    let counters: Map<String, Value> = rf.scheme.counters.iter().map(|c| (c.name.clone(), json!(c.value))).collect();
    let structures: Map<String, Value> = rf
        .scheme
        .structures
        .iter()
        .map(|s| (s.name.clone(), json!({ "reads": s.reads, "writes": s.writes })))
        .collect();
    let counter = |n: &str| rf.scheme.counters.iter().find(|c| c.name == n).map(|c| c.value);
    let reads_saved = match (counter("rfc_hits"), counter("rfc_misses")) {
        (Some(h), Some(m)) if h + m > 0 => json!(h as f64 / (h + m) as f64),
        _ => Value::Null,
    };
    let relative = if reference_ipc > 0.0 { json!(ipc / reference_ipc) } else { Value::Null };
    json!({
        "scheme": r.scheme,
        "param": param,
        "value": sim_core::timing::regfile::ParamValue::parse_text(value),
        "outcome": r.outcome,
        "cycles": r.cycles,
        "ipc": ipc,
        "relative_ipc": relative,
        "reads_saved": reads_saved,
        "rf_reads": rf.reads,
        "rf_writes": rf.writes,
        "bank_conflicts": rf.bank_conflicts,
        "energy_nj": rf.energy_total_nj,
        "structures": structures,
        "counters": counters,
    })
}

/// Runs the subcommand.
pub fn run(args: &Args) -> ExitCode {
    let Ok(src) = std::fs::read_to_string(&args.file) else {
        return usage(format!("cannot read PTX file {}", args.file.display()));
    };
    let setup: Result<LaunchSetup, String> = std::fs::read_to_string(&args.launch)
        .map_err(|e| e.to_string())
        .and_then(|t| serde_json::from_str(&t).map_err(|e| e.to_string()));
    let mut setup = match setup {
        Ok(s) => s,
        Err(e) => return usage(format!("cannot read launch setup {}: {e}", args.launch.display())),
    };
    let Some(gpu) = presets::by_name(&args.gpu) else {
        return usage(format!("unknown GPU preset '{}'", args.gpu));
    };
    let at = match args.reference.as_deref().map(str::trim) {
        None => 0,
        Some(v) => match args.values.iter().position(|x| x.trim() == v) {
            Some(i) => i,
            None => return usage(format!("--reference {v} is not one of --values")),
        },
    };
    let specs = match specs(args, &gpu) {
        Ok(s) => s,
        Err(code) => return code,
    };
    let module = match sim_core::ptx::compile(&src) {
        Ok(m) => m,
        Err(d) => {
            eprintln!(
                "reglab sweep: {} does not compile: {}",
                args.file.display(),
                d.first().map(|d| d.message.as_str()).unwrap_or("")
            );
            return ExitCode::from(1);
        }
    };
    let options = args.sim.apply(&mut setup, None);
    let reports = match Simulation::from_launch(&module, &setup, &gpu, &specs, options).and_then(|mut s| s.run_to_end())
    {
        Ok(r) => r,
        Err(e @ (TimingError::UnknownScheme(_) | TimingError::SchemeConfig(_))) => return usage(e.to_string()),
        Err(e) => {
            eprintln!("reglab sweep: {e}");
            return ExitCode::from(1);
        }
    };
    let reference_ipc = reports.get(at).map_or(0.0, |r| r.ipc.warp_instructions_per_cycle);
    for (r, v) in reports.iter().zip(&args.values) {
        println!("{}", point(r, &args.param, v.trim(), reference_ipc));
    }
    ExitCode::SUCCESS
}
