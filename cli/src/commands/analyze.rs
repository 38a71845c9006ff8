//! `reglab analyze FILE.ptx [--kernel NAME] [--launch L.json] [--json]`: the static analyses of
//! every defined function (or one), line by line.
//!
//! ```text
//! $ reglab analyze vecadd.ptx
//! .entry vecAdd: 8 registers per thread (ours), max live 11 units, 14 instructions
//! $ reglab analyze vecadd.ptx --json
//! {"kernels":[{"name":"vecAdd","entry":true,"registers_per_thread":8,"max_live":11,
//!   "predicates":1,"instructions":[{"line":14,"live":2,"live_in":0,"defs":[{"reg":"%rd1",
//!   "bits":64,"signed":false,"uses":1}],"single_use_load":false,"composite_pair":false,
//!   "uniform":true}, …]}]}
//! ```
//!
//! `live` is the number of 32-bit register units occupied right after the instruction issues
//! (live-out plus its own destinations); `live_in` those live before it (FineReg's vector).
//! `bits`/`signed` are what the integer range analysis says each definition needs (the declared
//! width for floats and predicates); `single_use_load` marks DeMO's single-use loads and
//! `composite_pair` the members of composite-instruction pairs (`SCHEMES.md` §5 rules). `--launch`
//! reads the grid and block shape (`{"kernel": …, "grid": [x,y,z], "block": [x,y,z], …}`) for
//! uniformity and the ranges of `%tid`, `%ntid`, `%ctaid`, `%nctaid`.
//! `--fidelity-table PTXAS.tsv` (with a corpus directory as FILE) prints the register comparison
//! with ptxas as markdown: see `fidelity`.

mod fidelity;

use std::io::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;

use serde::Serialize;
use sim_core::analysis::{
    annotate_schemes, AnalysisOptions, Annotations, CompositeRules, ModuleAnalysis, RangeSeeds, UniformityOptions,
};
use sim_core::diagnostic::{LineIndex, Severity};
use sim_core::ir::Module;

/// Arguments of `reglab analyze`.
#[derive(clap::Args)]
pub struct Args {
    /// The PTX file (a corpus directory with `--fidelity-table`).
    pub file: PathBuf,
    /// Analyse only this function.
    #[arg(long)]
    pub kernel: Option<String>,
    /// Launch setup (JSON with "block": [x, y, z]); used for uniformity.
    #[arg(long)]
    pub launch: Option<PathBuf>,
    /// Print JSON instead of a summary.
    #[arg(long)]
    pub json: bool,
    /// Print the ptxas comparison table (markdown) from this TSV of ptxas results.
    #[arg(long, value_name = "PTXAS_TSV")]
    pub fidelity_table: Option<PathBuf>,
    /// With `--fidelity-table`: a second reference, register counts from the GPU driver's JIT
    /// (TSV: file, kernel, registers), shown beside ptxas's.
    #[arg(long, value_name = "TSV")]
    pub device_regs: Option<PathBuf>,
    /// With `--fidelity-table`: ptxas results (same TSV format) for the whole corpus compiled for
    /// one target, summarised against our estimate for that target (repeatable: one per target).
    #[arg(long, value_name = "PTXAS_TSV")]
    pub per_target: Vec<PathBuf>,
}

#[derive(Serialize)]
struct Output {
    kernels: Vec<KernelOut>,
    /// Warnings of the analyses (registers read before written), rendered as `file:line:col`.
    warnings: Vec<String>,
}

#[derive(Serialize)]
struct KernelOut {
    name: String,
    entry: bool,
    registers_per_thread: u32,
    max_live: u32,
    predicates: u32,
    instructions: Vec<InstOut>,
}

#[derive(Serialize)]
struct InstOut {
    line: u32,
    live: u32,
    live_in: u32,
    defs: Vec<DefOut>,
    single_use_load: bool,
    composite_pair: bool,
    uniform: bool,
}

#[derive(Serialize)]
struct DefOut {
    reg: String,
    bits: u32,
    signed: bool,
    uses: u32,
}

/// The `"grid"` and `"block"` of a launch file, if any.
#[derive(serde::Deserialize)]
struct Launch {
    grid: Option<[u32; 3]>,
    block: Option<[u32; 3]>,
}

/// Runs the subcommand.
pub fn run(args: &Args) -> ExitCode {
    if let Some(tsv) = &args.fidelity_table {
        return fidelity::run(&args.file, tsv, args.device_regs.as_deref(), &args.per_target);
    }
    let src = match std::fs::read_to_string(&args.file) {
        Ok(s) => s,
        Err(e) => return fail(&format!("cannot read {}: {e}", args.file.display())),
    };
    let mut opts = AnalysisOptions::default();
    let mut seeds = RangeSeeds::architectural();
    if let Some(path) = &args.launch {
        match std::fs::read_to_string(path)
            .map_err(|e| e.to_string())
            .and_then(|t| serde_json::from_str::<Launch>(&t).map_err(|e| e.to_string()))
        {
            Ok(l) => {
                opts.uniformity = UniformityOptions { block: l.block };
                (seeds.grid, seeds.block) = (l.grid, l.block);
            }
            Err(e) => return fail(&format!("cannot read launch file {}: {e}", path.display())),
        }
    }
    let name = args.file.display().to_string();
    let module = match sim_core::ptx::compile(&src) {
        Ok(m) => m,
        Err(diags) => {
            super::diagnostics::print(&name, &src, diags.iter().filter(|d| d.severity == Severity::Error));
            eprintln!("reglab analyze: {name} does not compile ({})", super::diagnostics::count(&diags));
            return ExitCode::from(1);
        }
    };
    let out = analyze(&module, &src, &name, &opts, &seeds, args.kernel.as_deref());
    if let Some(k) = &args.kernel {
        if out.kernels.is_empty() {
            return fail(&format!("no defined function named '{k}' in {name}"));
        }
    }
    let text = if args.json {
        serde_json::to_string(&out).unwrap_or_default() + "\n"
    } else {
        let debug = sim_core::analysis::AllocTarget::of_module(&module).debug();
        let mode = if debug { ", debug code: unoptimised" } else { "" };
        out.kernels
            .iter()
            .map(|k| {
                format!(
                    "{} {}: {} registers per thread (ours{mode}), max live {} units, {} predicates, {} instructions\n",
                    if k.entry { ".entry" } else { ".func" },
                    k.name,
                    k.registers_per_thread,
                    k.max_live,
                    k.predicates,
                    k.instructions.len()
                )
            })
            .collect()
    };
    if std::io::stdout().lock().write_all(text.as_bytes()).is_err() {
        return ExitCode::from(2);
    }
    if !args.json {
        let _ = std::io::stderr().lock().write_all(out.warnings.concat().as_bytes());
    }
    ExitCode::SUCCESS
}

fn fail(message: &str) -> ExitCode {
    eprintln!("reglab analyze: {message}");
    ExitCode::from(2)
}

fn analyze(
    module: &Module,
    src: &str,
    file: &str,
    opts: &AnalysisOptions,
    seeds: &RangeSeeds,
    only: Option<&str>,
) -> Output {
    let analysis = ModuleAnalysis::compute(module, opts);
    let index = LineIndex::new(src);
    let warnings = sim_core::analysis::uninitialised::warnings(module, &analysis)
        .iter()
        .map(|d| d.render_text(file, src, &index))
        .collect();
    let mut kernels = Vec::new();
    for (h, func) in module.functions.iter() {
        let (Some(body), Some(a)) = (&func.body, analysis.get(h)) else { continue };
        if only.is_some_and(|k| k != func.name) {
            continue;
        }
        let mut notes = Annotations::compute(func, a);
        annotate_schemes(&mut notes, func, a, seeds, CompositeRules::spec());
        let instructions = notes
            .insts
            .iter()
            .map(|i| InstOut {
                line: index.line_col(src, body.inst_spans.get(i.inst).start).line,
                live: i.live,
                live_in: i.live_in,
                defs: i
                    .defs
                    .iter()
                    .map(|d| DefOut {
                        reg: body.regs.get(d.reg).map(|r| r.name.clone()).unwrap_or_default(),
                        bits: d.width.bits,
                        signed: d.width.signed,
                        uses: d.uses,
                    })
                    .collect(),
                single_use_load: i.single_use_load,
                composite_pair: i.composite_pair,
                uniform: i.uniform,
            })
            .collect();
        kernels.push(KernelOut {
            name: func.name.clone(),
            entry: func.is_entry(),
            registers_per_thread: analysis.registers_per_thread(h),
            max_live: a.liveness.max_pressure(),
            predicates: a.allocation.predicates(),
            instructions,
        });
    }
    Output { kernels, warnings }
}
