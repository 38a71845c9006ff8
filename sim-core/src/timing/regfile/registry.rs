//! Every register-file scheme by name: the CLI's `--scheme` values, `reglab schemes` and the app's
//! scheme list read this table. Adding a scheme is its module plus one entry here (and the UI's
//! list): its parameter schema, its model notes and its constructor; a scheme with program passes
//! adds an arm to [`transform_of`] and [`transforms_code`] or to [`assign_of`].
//!
//! ```text
//! by_name("no-bank-conflicts") → SchemeEntry { params: no_bank_conflicts::params, notes: …, … }
//! entry.make(&ctx, &resolved_config) → Box<dyn RegisterFileScheme> (one per SM)
//! ```
//!
//! The constructors are not in the table but in [`SchemeEntry::make`], and the program passes
//! in [`transform_of`] and [`assign_of`]: the page lists and configures schemes but never
//! simulates or transforms (its PTX diff comes from a worker), and a table of constructors or
//! passes would link every scheme's run-time model and compile-time passes into it (20 KB and
//! 27 KB of its gzipped wasm).

use alloc::boxed::Box;
use alloc::vec::Vec;

use super::baseline::{self, BankedConfig, BankedRegisterFile};
use super::composite_rf;
use super::compression::{self, CompressionConfig};
use super::compression_file::CompressedRegisterFile;
use super::compression_program;
use super::config::{ResolvedScheme, SchemeConfigError};
use super::demo::{self, DemoRegisterFile, IdealRegisterFile};
use super::demo_program;
use super::double_registers::{self, DoubleRegisterFile};
use super::finereg::{self, FineReg};
use super::gilani::{self, GilaniConfig, Techniques};
use super::gilani_file::GilaniRegisterFile;
use super::no_bank_conflicts::{self, ConflictFreeRegisterFile};
use super::params::{ModelNote, ParamSpec, SchemeConfig};
use super::regmutex::{self, RegMutex};
use super::regmutex_program;
use super::rfc_ob::RfcObRegisterFile;
use super::rfc_ob_config;
use super::virtual_thread::{self, VirtualThread};
use super::{EnergyModel, RegisterFileScheme, SchemeContext};
use crate::gpu::GpuConfig;
use crate::timing::program_map::ProgramTransform;
use crate::timing::program_regs::{AssignInputs, AssignRegisters};

/// One scheme: its name, a one-line description, its parameters, notes and constructor.
#[derive(Clone, Copy, Debug)]
pub struct SchemeEntry {
    /// Name used on the command line and in reports.
    pub name: &'static str,
    /// One line for lists.
    pub description: &'static str,
    /// Which paper and section it models.
    pub source: &'static str,
    /// Its parameter schema; defaults may come from the GPU preset and the base energy model.
    pub params: fn(&GpuConfig, &EnergyModel) -> Vec<ParamSpec>,
    /// What is modelled, what is not, the assumptions and their values.
    pub notes: &'static [ModelNote],
    /// The scheme reads the executor's value summaries (uniform values, significant bits:
    /// [`crate::timing::WarpStream::values_at`]); runs whose schemes all say no record none.
    pub needs_values: bool,
}

/// The schemes, in the order the app lists them.
pub const SCHEMES: &[SchemeEntry] = &[
    SchemeEntry {
        name: "baseline",
        description: "Banked register file with operand collector units (GPGPU-Sim)",
        source: "SCHEMES.md §0; GPGPU-Sim operand collector",
        params: BankedConfig::params,
        notes: baseline::NOTES,
        needs_values: false,
    },
    SchemeEntry {
        name: "no-bank-conflicts",
        description: "Limit study: every register its own bank",
        source: "Wyse, limit studies (SCHEMES.md §1)",
        params: no_bank_conflicts::params,
        notes: no_bank_conflicts::NOTES,
        needs_values: false,
    },
    SchemeEntry {
        name: "2x-registers",
        description: "Limit study: twice the registers per SM (occupancy)",
        source: "Wyse, limit studies (SCHEMES.md §1)",
        params: double_registers::params,
        notes: double_registers::NOTES,
        needs_values: false,
    },
    SchemeEntry {
        name: "rfc-ob",
        description: "Register-file cache + operand buffer (Gebhart's last-use bit and two-level scheduler as options)",
        source: "Wyse §2.3.3, §5, §6; Gebhart et al. ISCA'11 (SCHEMES.md §1)",
        params: rfc_ob_config::params,
        notes: rfc_ob_config::NOTES,
        needs_values: false,
    },
    SchemeEntry {
        name: "demo",
        description: "DeMO: single-use loads become direct memory operands (memory-operand buffer)",
        source: "Mohammadpur-Fard et al., DeMO (SCHEMES.md §3)",
        params: demo::params,
        notes: demo::NOTES,
        needs_values: false,
    },
    SchemeEntry {
        name: "demo-ideal",
        description: "DeMO's Ideal limit: single-use memory values bypass the register file",
        source: "Mohammadpur-Fard et al., DeMO Fig. 3 (SCHEMES.md §3)",
        params: BankedConfig::params,
        notes: demo::IDEAL_NOTES,
        needs_values: false,
    },
    SchemeEntry {
        name: "finereg",
        description: "FineReg: active/pending CTA register split (ACRF + PCRF of live registers)",
        source: "Oh et al., FineReg (SCHEMES.md §4)",
        params: finereg::params,
        notes: finereg::NOTES,
        needs_values: false,
    },
    SchemeEntry {
        name: "virtual-thread",
        description: "Virtual Thread: CTAs resident until registers/shared memory are full, swapped on stalls",
        source: "Oh et al. comparator (SCHEMES.md §4)",
        params: virtual_thread::params,
        notes: virtual_thread::NOTES,
        needs_values: false,
    },
    SchemeEntry {
        name: "reg-dram",
        description: "Reg+DRAM (Zorua-like): Virtual Thread plus CTAs whose register context lives off-chip",
        source: "Oh et al. comparator (SCHEMES.md §4)",
        params: virtual_thread::params_dram,
        notes: virtual_thread::NOTES_DRAM,
        needs_values: false,
    },
    SchemeEntry {
        name: "composite",
        description: "Composite instructions: dependent pairs fused, intermediate in a composite RF (Gilani)",
        source: "Gilani, Kim, Schulte HPCA'13 §3 (SCHEMES.md §5)",
        params: gilani::composite_schema,
        notes: gilani::COMPOSITE_NOTES,
        needs_values: true,
    },
    SchemeEntry {
        name: "scalar-unit",
        description: "Scalar unit and scalar RF for instructions on warp-uniform values (Gilani)",
        source: "Gilani, Kim, Schulte HPCA'13 §4 (SCHEMES.md §5)",
        params: gilani::scalar_schema,
        notes: gilani::SCALAR_NOTES,
        needs_values: true,
    },
    SchemeEntry {
        name: "sliced",
        description: "Sliced datapath: 16-bit instructions of two warps paired (Gilani)",
        source: "Gilani, Kim, Schulte HPCA'13 §5 (SCHEMES.md §5)",
        params: gilani::sliced_schema,
        notes: gilani::SLICED_NOTES,
        needs_values: true,
    },
    SchemeEntry {
        name: "gilani",
        description: "Composite instructions, scalar unit and sliced datapath together (Gilani)",
        source: "Gilani, Kim, Schulte HPCA'13 (SCHEMES.md §5)",
        params: gilani::gilani_schema,
        notes: gilani::GILANI_NOTES,
        needs_values: true,
    },
    SchemeEntry {
        name: "regmutex",
        description: "RegMutex: base register set per warp + shared register pool, compiler-inserted acquire/release",
        source: "Khorasani et al. ISCA'18, as Oh et al. compare it (SCHEMES.md §4)",
        params: regmutex::params,
        notes: regmutex::NOTES,
        needs_values: false,
    },
    SchemeEntry {
        name: "compression",
        description:
            "Static data compression: narrow integers and reduced-precision floats packed in 4-bit register slices",
        source: "Angerd, Sintorn, Stenström (SCHEMES.md §2, §A, §B)",
        params: compression::params,
        notes: compression::NOTES,
        needs_values: false,
    },
];

impl SchemeEntry {
    /// Builds the register file of one SM for this scheme (the simulator's side of the entry).
    pub fn make(
        &self,
        c: &SchemeContext<'_>,
        cfg: &SchemeConfig,
    ) -> Result<Box<dyn RegisterFileScheme>, SchemeConfigError> {
        match self.name {
            "baseline" => Ok(Box::new(BankedRegisterFile::new(c, &BankedConfig::from_config("baseline", cfg)?))),
            "no-bank-conflicts" => Ok(Box::new(ConflictFreeRegisterFile::new(c, cfg)?)),
            "2x-registers" => Ok(Box::new(DoubleRegisterFile::new(c, cfg)?)),
            "rfc-ob" => Ok(Box::new(RfcObRegisterFile::new(c, cfg)?)),
            "demo" => Ok(Box::new(DemoRegisterFile::new(c, cfg)?)),
            "demo-ideal" => Ok(Box::new(IdealRegisterFile::new(c, cfg)?)),
            "finereg" => Ok(Box::new(FineReg::new(c, cfg)?)),
            "virtual-thread" => Ok(Box::new(VirtualThread::new(c, cfg, false)?)),
            "reg-dram" => Ok(Box::new(VirtualThread::new(c, cfg, true)?)),
            "composite" => gilani_file("composite", Techniques::COMPOSITE, c, cfg),
            "scalar-unit" => gilani_file("scalar-unit", Techniques::SCALAR, c, cfg),
            "sliced" => gilani_file("sliced", Techniques::SLICED, c, cfg),
            "gilani" => gilani_file("gilani", Techniques::ALL, c, cfg),
            "regmutex" => Ok(Box::new(RegMutex::new(c, cfg)?)),
            "compression" => Ok(Box::new(CompressedRegisterFile::new(c, CompressionConfig::from_config(cfg)?))),
            other => Err(SchemeConfigError::UnknownScheme { scheme: other.into() }),
        }
    }
}

/// A register file of Gilani's family.
fn gilani_file(
    name: &'static str,
    t: Techniques,
    c: &SchemeContext<'_>,
    cfg: &SchemeConfig,
) -> Result<Box<dyn RegisterFileScheme>, SchemeConfigError> {
    Ok(Box::new(GilaniRegisterFile::new(c, &GilaniConfig::from_config(name, t, cfg)?)))
}

/// What resolved scheme `r`'s register assignment pass is told besides the module: the launch
/// facts of `setup` (when the simulation has one) and, for `compression`, the float formats its
/// precision tuning chose.
pub fn assign_inputs(
    r: &ResolvedScheme,
    module: &crate::ir::Module,
    setup: Option<&crate::exec::LaunchSetup>,
) -> Result<AssignInputs, alloc::string::String> {
    assign_inputs_reported(r, module, setup).map(|(inputs, _)| inputs)
}

/// As [`assign_inputs`], with the counters the run's report gets from what was found (for
/// `compression`: precision tuning's result, [`super::compression_report::tuning_counters`];
/// empty for the others).
pub fn assign_inputs_reported(
    r: &ResolvedScheme,
    module: &crate::ir::Module,
    setup: Option<&crate::exec::LaunchSetup>,
) -> Result<(AssignInputs, Vec<super::SchemeCounter>), alloc::string::String> {
    let mut memo = super::compression_report::TuningMemo::default();
    assign_inputs_remembered(r, module, setup, &mut |_| {}, &mut memo)
}

/// As [`assign_inputs_reported`], telling `progress` where precision tuning stands
/// (`compression`) after every functional run of its search, with the searches already made on
/// this module and setup in `memo` (taken from it, a new one added:
/// [`super::compression_report::TuningMemo`]).
pub fn assign_inputs_remembered(
    r: &ResolvedScheme,
    module: &crate::ir::Module,
    setup: Option<&crate::exec::LaunchSetup>,
    progress: &mut dyn FnMut(crate::exec::float_tuning::TuningStep),
    memo: &mut super::compression_report::TuningMemo,
) -> Result<(AssignInputs, Vec<super::SchemeCounter>), alloc::string::String> {
    let seeds = setup.and_then(compression_program::launch_seeds);
    let mut inputs = AssignInputs { seeds, ..AssignInputs::default() };
    let mut counters = Vec::new();
    if r.entry.name == "compression" {
        if let Some(t) = compression_program::tuning_remembered(&r.config, module, setup, progress, memo, None)? {
            counters = super::compression_report::tuning_counters(module, &t);
            inputs.float_bits = t.formats;
        }
    }
    Ok((inputs, counters))
}

/// At most how many functional runs of the launch resolved scheme `r` needs before it is timed
/// (`compression` with precision tuning: its search's cap, `tuning_runs`, plus the run that is
/// timed; the others: 1). Callers that spread schemes over threads start the long ones first.
pub fn functional_runs(r: &ResolvedScheme) -> u64 {
    if r.entry.name != "compression" {
        return 1;
    }
    match CompressionConfig::from_config(&r.config) {
        Ok(c) if c.float_tuning => u64::from(c.tuning_runs).saturating_add(1),
        _ => 1,
    }
}

/// The slice map resolved scheme `r`'s report carries (`compression`:
/// [`super::compression_slices::for_run`]; `None` for the others), computed from the same
/// `inputs` its register assignment pass is told.
pub fn slice_map(
    r: &ResolvedScheme,
    module: &crate::ir::Module,
    gpu: &crate::gpu::GpuConfig,
    inputs: &AssignInputs,
) -> Option<super::compression_slices::SliceMap> {
    (r.entry.name == "compression").then(|| super::compression_slices::for_run(&r.config, module, gpu, inputs))?
}

/// The fusion pass of `composite` and `gilani`: the one their `pair_rule` names.
fn composite_pass(cfg: &SchemeConfig) -> Option<ProgramTransform> {
    let rule = cfg.get("pair_rule").and_then(|v| match v {
        super::ParamValue::Text(t) => Some(t.as_str()),
        _ => None,
    });
    Some(composite_rf::transform_for_rule(rule.unwrap_or("paper")))
}

/// The program pass of resolved scheme `r` (`None`: it times the original program). A match on
/// the name, as [`SchemeEntry::make`] is, so that code which only lists and configures schemes
/// (the page) does not link the passes.
pub fn transform_of(r: &ResolvedScheme) -> Option<ProgramTransform> {
    match r.entry.name {
        "demo" => demo_program::transform_for(&r.config),
        "composite" | "gilani" => composite_pass(&r.config),
        "regmutex" => Some(regmutex_program::transform),
        _ => None,
    }
}

/// Whether resolved scheme `r` times a program of its own (`transform_of(r).is_some()`, without
/// linking the passes: the page asks this to offer its PTX diff, which a worker computes).
pub fn transforms_code(r: &ResolvedScheme) -> bool {
    match r.entry.name {
        "demo" => demo_program::transforms(&r.config),
        "composite" | "gilani" | "regmutex" => true,
        _ => false,
    }
}

/// The register assignment of resolved scheme `r` (a packing scheme places values in slices of
/// one or two physical registers, starting from the allocator's; `None`: the allocator's).
pub fn assign_of(r: &ResolvedScheme) -> Option<AssignRegisters> {
    match r.entry.name {
        "demo" => demo_program::assign_for(&r.config),
        "demo-ideal" => Some(demo_program::ideal_assign),
        "compression" => compression::assign_for(&r.config),
        _ => None,
    }
}

/// The scheme called `name`.
pub fn by_name(name: &str) -> Option<&'static SchemeEntry> {
    SCHEMES.iter().find(|s| s.name == name)
}

/// The scheme names in list order.
pub fn names() -> impl Iterator<Item = &'static str> {
    SCHEMES.iter().map(|s| s.name)
}
