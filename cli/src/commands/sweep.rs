//! `reglab sweep FILE.ptx --launch L.json --gpu PRESET --scheme NAME[:k=v,...] --param KEY=V1,V2,…
//! [--reference V] [--shard I/N] [--sms N] [--registers N] [--max-cycles N] [--budget N]
//! [--virtual-banks]`: one scheme's parameter swept over a list of values (or a range,
//! `KEY=2..512*2`; `sim_core::timing::sweep_values`), every point timed on the same functional run; one JSON line
//! per point, in the order of the values (any scheme, any parameter `reglab schemes` lists). The
//! older form `--param KEY --values V1,V2,…` still works.
//!
//! ```text
//! $ reglab sweep k.ptx --launch k.json --gpu fermi-gtx480 --scheme rfc-ob --param rfc_entries=2,8,512 --reference 8
//! {"index":0,"points":3,"scheme":"rfc-ob:rfc_entries=2","param":"rfc_entries","value":2,"cycles":…,"relative_ipc":0.97,"reads_saved":0.21,…,"report":{…}}
//! ```
//!
//! Per point: its index and the number of points, cycles, warp IPC, IPC relative to the
//! reference point (default: the first value), the speed-up over it (its cycles / the point's, as
//! `sim_core::timing::summary` computes it for `reglab run` and the page), register-file reads, writes, conflicts and energy,
//! the scheme's structures and counters, `reads_saved` = `rfc_hits / (rfc_hits + rfc_misses)`
//! when the scheme counts both (Wyse Fig. 5), and the point's full report. `--shard I/N` prints
//! only the points whose index mod N is I (the reference point is timed too when it is in another
//! shard, so every shard's lines equal the unsharded sweep's); `reglab merge` joins the shards.
//! Exit codes as `reglab run`'s: 1 the kernel or the simulation fails, 2 usage errors.

use std::path::PathBuf;
use std::process::ExitCode;

use serde_json::{json, Map, Value};
use sim_core::exec::LaunchSetup;
use sim_core::gpu::presets;
use sim_core::timing::regfile::config::resolve_all;
use sim_core::timing::report::Report;
use sim_core::timing::{EnergyModel, SchemeSpec, TimingError};

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
    /// The parameter swept with its values, `KEY=2,4,8` or a range `KEY=2..512*2` (geometric),
    /// `KEY=1..8+1` (arithmetic); or only `KEY`, with `--values`.
    #[arg(long)]
    pub param: String,
    /// The values of a `--param KEY` given without `=`, comma separated (`2,4,8,16`).
    #[arg(long)]
    pub values: Option<String>,
    /// Run only the points whose index mod N is I (`I/N`, 0-based): one shard of a sweep split
    /// over a Slurm job array or GNU parallel; `reglab merge` joins the shards' lines.
    #[arg(long, value_name = "I/N")]
    pub shard: Option<String>,
    /// Accepted for symmetry with `reglab run`: the lines are always JSON.
    #[arg(long)]
    pub json: bool,
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

/// What the flags ask for: the parameter, its values, the reference index and the shard.
struct Plan {
    param: String,
    values: Vec<String>,
    reference: usize,
    shard: Option<(usize, usize)>,
}

fn plan(args: &Args) -> Result<Plan, String> {
    let (param, values) = match (sim_core::timing::sweep_values::split_param(&args.param), &args.values) {
        (Some(_), Some(_)) => return Err(format!("--param {} already has values: drop --values", args.param)),
        (Some(split), None) => split?,
        (None, Some(v)) => (args.param.trim().to_owned(), sim_core::timing::sweep_values::values_of(v)?),
        (None, None) => return Err(format!("--param {}: give its values, --param {}=V1,V2,…", args.param, args.param)),
    };
    if values.is_empty() {
        return Err(String::from("the sweep needs at least one value"));
    }
    let reference = match args.reference.as_deref().map(str::trim) {
        None => 0,
        Some(v) => {
            values.iter().position(|x| x == v).ok_or_else(|| format!("--reference {v} is not one of the values"))?
        }
    };
    let shard = args.shard.as_deref().map(sim_core::timing::sweep_values::parse_shard).transpose()?;
    Ok(Plan { param, values, reference, shard })
}

/// The specs of the points at `indices`, checked against the scheme's schema, or a usage error.
fn specs(
    args: &Args,
    plan: &Plan,
    indices: &[usize],
    gpu: &sim_core::gpu::GpuConfig,
) -> Result<Vec<SchemeSpec>, String> {
    let mut specs = Vec::new();
    for v in indices.iter().filter_map(|&i| plan.values.get(i)) {
        let text = point_spec(&args.scheme, &plan.param, v);
        specs.push(SchemeSpec::parse(&text).map_err(|e| e.to_string())?);
    }
    resolve_all(&specs, gpu, &EnergyModel::default()).map_err(|e| e.to_string())?;
    Ok(specs)
}

/// The JSON line of one point.
fn point(r: &Report, at: (usize, usize), param: &str, value: &str, reference: Option<&Report>) -> Value {
    let reference_ipc = reference.map_or(0.0, |r| r.ipc.warp_instructions_per_cycle);
    let speedup = sim_core::timing::summary::speedup(reference.map_or(0, |r| r.cycles), r.cycles);
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
        "index": at.0,
        "points": at.1,
        "scheme": r.scheme,
        "param": param,
        "value": sim_core::timing::regfile::ParamValue::parse_text(value),
        "outcome": r.outcome,
        "cycles": r.cycles,
        "ipc": ipc,
        "relative_ipc": relative,
        "speedup": speedup,
        "reads_saved": reads_saved,
        "rf_reads": rf.reads,
        "rf_writes": rf.writes,
        "bank_conflicts": rf.bank_conflicts,
        "energy_nj": rf.energy_total_nj,
        "structures": structures,
        "counters": counters,
        "report": r,
    })
}

/// The PTX source, the launch setup and the GPU, or a usage error.
fn inputs(args: &Args) -> Result<(String, LaunchSetup, sim_core::gpu::GpuConfig), String> {
    let src = std::fs::read_to_string(&args.file)
        .map_err(|e| format!("cannot read PTX file {}: {e}", args.file.display()))?;
    let setup: LaunchSetup = std::fs::read_to_string(&args.launch)
        .map_err(|e| e.to_string())
        .and_then(|t| serde_json::from_str(&t).map_err(|e| e.to_string()))
        .map_err(|e| format!("cannot read launch setup {}: {e}", args.launch.display()))?;
    let gpu = presets::by_name(&args.gpu).ok_or_else(|| format!("unknown GPU preset '{}'", args.gpu))?;
    Ok((src, setup, gpu))
}

/// Runs the subcommand.
pub fn run(args: &Args) -> ExitCode {
    let (src, mut setup, gpu) = match inputs(args) {
        Ok(x) => x,
        Err(e) => return usage(e),
    };
    let plan = match plan(args) {
        Ok(p) => p,
        Err(e) => return usage(e),
    };
    let shown = sim_core::timing::sweep_values::shard_indices(plan.values.len(), plan.shard);
    // The reference point is timed even when another shard prints it.
    let mut timed = shown.clone();
    if !timed.contains(&plan.reference) {
        timed.push(plan.reference);
    }
    let specs = match specs(args, &plan, &timed, &gpu) {
        Ok(s) => s,
        Err(e) => return usage(e),
    };
    let module = match sim_core::ptx::compile(&src) {
        Ok(m) => m,
        Err(diags) => {
            let name = args.file.display().to_string();
            super::diagnostics::print(&name, &src, &diags);
            eprintln!("reglab sweep: {name} does not compile ({})", super::diagnostics::count(&diags));
            return ExitCode::from(1);
        }
    };
    let options = args.sim.apply(&mut setup, None);
    drop(module);
    let reports = match super::run_threads::simulate(&src, &setup, &gpu, &specs, &options, args.sim.threads()) {
        Ok(r) => r,
        Err(e @ (TimingError::UnknownScheme(_) | TimingError::SchemeConfig(_))) => return usage(e.to_string()),
        Err(mut e) => {
            e.locate(&src);
            eprintln!("reglab sweep: {e}");
            return ExitCode::from(1);
        }
    };
    let reference = timed.iter().position(|&i| i == plan.reference).and_then(|k| reports.get(k));
    for (r, &i) in reports.iter().zip(&shown) {
        let value = plan.values.get(i).map_or("", String::as_str);
        println!("{}", point(r, (i, plan.values.len()), &plan.param, value, reference));
    }
    ExitCode::SUCCESS
}
