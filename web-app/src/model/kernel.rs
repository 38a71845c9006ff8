//! The selected kernel through `sim-core`'s static analyses: per source line, the live 32-bit
//! registers, the values defined with their bitwidths, and markers (uniform values, single-use
//! loads, composite pairs); per kernel, the register estimate and the static shared memory the
//! occupancy panel starts from. Only the selected kernel is analysed, and only up to
//! [`ANALYSIS_INSTRUCTION_LIMIT`] instructions, so typing stays responsive.
//!
//! ```text
//! 52 │ add.s32 %r5, %r3, 1;   → LineFacts { live: 14, defs: [%r5: 32 bits, signed], uniform: false, … }
//! ```
//!
//! The schemes' analyses (range bitwidths, DeMO single-use loads, composite pairs) plug in through
//! [`scheme_facts`]: ranges are seeded from the architectural limits and the kernel's
//! `.reqntid`/`.maxntid` (no grid is known here), composite pairs follow `SCHEMES.md` §5.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use sim_core::analysis::{
    annotate_schemes, AllocTarget, AnalysisOptions, Annotations, CompositeRules, KernelAnalysis, ModuleAnalysis,
    RangeSeeds, UniformityOptions,
};
use sim_core::ir::{Function, Handle, Module};
use sim_core::occupancy::kernel_inputs::{self, BlockSizeSource, SharedMemoryUse};

use super::{Analysis, Compiled};

/// Kernels with more instructions than this are not analysed (the page says so).
pub const ANALYSIS_INSTRUCTION_LIMIT: usize = 25_000;
/// Callees' registers are included (by analysing every function of the module) only for modules
/// of at most this many instructions.
pub const MODULE_ANALYSIS_LIMIT: usize = 20_000;
/// While typing, kernels up to this many instructions (in modules up to [`SYNC_MODULE_INSTRUCTIONS`])
/// are analysed on every edit; larger ones after a pause.
pub const SYNC_KERNEL_INSTRUCTIONS: usize = 600;
/// See [`SYNC_KERNEL_INSTRUCTIONS`].
pub const SYNC_MODULE_INSTRUCTIONS: usize = 4_000;

/// What the analyses say about the selected kernel.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct KernelView {
    /// The analysis revision this view was computed from.
    pub revision: u64,
    /// The kernel shown (`None` when there is none).
    pub kernel: Option<String>,
    /// The `.entry` kernels of the module, in source order (for the kernel picker).
    pub entries: Vec<String>,
    /// Whether the analyses ran.
    pub status: KernelStatus,
    /// Facts per 1-based source line that holds instructions.
    pub lines: BTreeMap<u32, LineFacts>,
    /// The most 32-bit registers live at once.
    pub max_live: u32,
    /// The first line where `max_live` is reached.
    pub max_live_line: Option<u32>,
    /// The register estimate (`None` unless analysed).
    pub registers: Option<RegisterEstimate>,
    /// Static shared memory of the kernel and what it calls.
    pub shared: SharedMemoryUse,
    /// Block size from `.reqntid` / `.maxntid`.
    pub block_hint: Option<(u32, BlockSizeSource)>,
    /// Which of the schemes' facts are real (the rest show neutral values).
    pub facts: SchemeFacts,
}

/// Whether the selected kernel was analysed.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum KernelStatus {
    /// The analyses ran.
    Analysed,
    /// The module does not compile (yet).
    #[default]
    NotCompiled,
    /// The module defines no kernel or function.
    NoKernel,
    /// The kernel is too large to analyse while typing.
    Skipped {
        /// Its instructions.
        instructions: usize,
    },
    /// The analyses' worker stopped (the page's build), in plain words; the facts shown are the
    /// last ones it gave.
    Failed(String),
}

/// The register estimate of a kernel.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RegisterEstimate {
    /// Registers per thread from the allocation estimate (what ptxas would report), callees included.
    pub allocated: u32,
    /// The most 32-bit registers live at once (SCHEMES.md §0's baseline count).
    pub max_live: u32,
    /// Predicate registers live at once (a separate file, not counted above).
    pub predicates: u32,
    /// The `sm_XY` the estimate is for.
    pub target_sm: u32,
    /// The module is debug code (`.target …, debug`), estimated as ptxas's unoptimised code.
    #[serde(default)]
    pub debug: bool,
    /// `None` if the kernel calls no function; else whether the callees' registers are included
    /// (not for modules over [`MODULE_ANALYSIS_LIMIT`] instructions).
    pub callees_included: Option<bool>,
}

/// Which facts come from the schemes' analyses rather than neutral defaults.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SchemeFacts {
    /// Bitwidths from range analysis (else the declared widths).
    pub bitwidths: bool,
    /// DeMO single-use loads.
    pub single_use_loads: bool,
    /// Composite-instruction pairs.
    pub composite_pairs: bool,
}

/// What the analyses say about the instructions of one source line.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct LineFacts {
    /// The most 32-bit registers occupied right after one of its instructions issues.
    pub live: u32,
    /// 32-bit registers live before its first instruction.
    pub live_in: u32,
    /// Instructions on the line.
    pub instructions: u32,
    /// The values its instructions define.
    pub defs: Vec<DefFact>,
    /// It defines values and every instruction on it is uniform across the warp.
    pub uniform: bool,
    /// One of its instructions is a single-use load (DeMO).
    pub single_use_load: bool,
    /// One of its instructions belongs to a composite pair (Gilani).
    pub composite_pair: bool,
}

/// A value an instruction defines.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct DefFact {
    /// The register name (`%r5`).
    pub register: String,
    /// Bits the value needs (declared width until range analysis says more).
    pub bits: u32,
    /// Whether it is signed.
    pub signed: bool,
    /// The register's declared width.
    pub declared_bits: u32,
    /// Whether the declared type is signed.
    pub declared_signed: bool,
    /// Static uses of this definition.
    pub uses: u32,
}

/// The view of a text (of `revision`) that does not compile.
pub fn not_compiled(revision: u64) -> KernelView {
    KernelView { revision, status: KernelStatus::NotCompiled, ..KernelView::default() }
}

/// The kernel the page shows: `selected` if the module has it, else the first `.entry`, else the
/// first `.func`.
pub fn choose_kernel<'a>(analysis: &'a Analysis, selected: Option<&str>) -> Option<&'a str> {
    let kernels = &analysis.kernels;
    let entry = || kernels.iter().find(|k| k.kind == super::KernelKind::Entry);
    selected
        .and_then(|name| kernels.iter().find(|k| k.name == name))
        .or_else(entry)
        .or_else(|| kernels.first())
        .map(|k| k.name.as_str())
}

/// Whether the kernel `selected` would pick can be analysed on every keystroke (see
/// [`SYNC_KERNEL_INSTRUCTIONS`]).
pub fn cheap_to_analyse(analysis: &Analysis, selected: Option<&str>) -> bool {
    let kernel = choose_kernel(analysis, selected).and_then(|name| analysis.kernels.iter().find(|k| k.name == name));
    kernel.is_none_or(|k| k.instructions <= SYNC_KERNEL_INSTRUCTIONS)
        && analysis.instructions() <= SYNC_MODULE_INSTRUCTIONS
}

/// The `sm_XY` a register estimate should be for: `gpu_sm` (the GPU preset's compute capability)
/// if given, else the module's `.target`.
fn alloc_target(module: &Module, gpu_sm: Option<u32>) -> AllocTarget {
    match gpu_sm {
        Some(sm) if sm >= 50 => AllocTarget::sm(sm).compiling(module),
        Some(_) => AllocTarget::sm(52).compiling(module),
        None => AllocTarget::of_module(module),
    }
}

/// Analyses the selected kernel of `analysis` (see [`choose_kernel`]) with a register estimate
/// for `gpu_sm`.
pub fn kernel_view(analysis: &Analysis, selected: Option<&str>, gpu_sm: Option<u32>) -> KernelView {
    let revision = analysis.revision;
    let Some(compiled) = &analysis.compiled else {
        return not_compiled(revision);
    };
    let entries: Vec<String> =
        analysis.kernels.iter().filter(|k| k.kind == super::KernelKind::Entry).map(|k| k.name.clone()).collect();
    let Some(name) = choose_kernel(analysis, selected) else {
        return KernelView { revision, status: KernelStatus::NoKernel, entries, ..KernelView::default() };
    };
    let module = &compiled.get().module;
    let Some((handle, function)) = module.functions.iter().find(|(_, f)| f.name == name && f.body.is_some()) else {
        return KernelView { revision, status: KernelStatus::NoKernel, entries, ..KernelView::default() };
    };
    let base = KernelView {
        revision,
        kernel: Some(name.to_owned()),
        entries,
        shared: kernel_inputs::static_shared_memory(module, handle),
        block_hint: kernel_inputs::block_size_hint(function),
        ..KernelView::default()
    };
    let instructions = function.instruction_count();
    if instructions > ANALYSIS_INSTRUCTION_LIMIT {
        return KernelView { status: KernelStatus::Skipped { instructions }, ..base };
    }
    analysed(base, compiled, (handle, function), gpu_sm)
}

/// `base` with the analyses of `function` (handle and body) filled in.
fn analysed(
    base: KernelView,
    compiled: &Compiled,
    (handle, function): (Handle<Function>, &Function),
    gpu_sm: Option<u32>,
) -> KernelView {
    let module = &compiled.get().module;
    let target = alloc_target(module, gpu_sm);
    let block = function.perf.reqntid.as_ref().map(|d| [0, 1, 2].map(|i| d.get(i).copied().unwrap_or(1)));
    let options = AnalysisOptions { uniformity: UniformityOptions { block }, target: Some(target) };
    let analysis = KernelAnalysis::compute(function, &options);
    let calls = !analysis.cfg.call_sites().is_empty();
    let whole_module =
        calls && module.functions.values().map(Function::instruction_count).sum::<usize>() <= MODULE_ANALYSIS_LIMIT;
    let allocated = if whole_module {
        ModuleAnalysis::compute(module, &options).registers_per_thread(handle)
    } else {
        analysis.allocation.registers()
    };
    let mut notes = Annotations::compute(function, &analysis);
    let facts = scheme_facts(&mut notes, function, &analysis);
    let lines = line_facts(compiled, function, &notes);
    let max_live = analysis.liveness.max_pressure();
    let max_live_line = lines.iter().find(|(_, f)| f.live == max_live).map(|(&l, _)| l);
    let registers = RegisterEstimate {
        allocated,
        max_live,
        predicates: analysis.allocation.predicates(),
        target_sm: target.sm,
        debug: target.debug(),
        callees_included: calls.then_some(whole_module),
    };
    KernelView {
        status: KernelStatus::Analysed,
        lines,
        max_live,
        max_live_line,
        registers: Some(registers),
        facts,
        ..base
    }
}

/// Fills in what the register-file schemes' analyses know (range bitwidths, single-use loads,
/// composite pairs) and says which facts are real. This is the one place they plug in.
fn scheme_facts(notes: &mut Annotations, kernel: &Function, analysis: &KernelAnalysis) -> SchemeFacts {
    annotate_schemes(notes, kernel, analysis, &RangeSeeds::architectural(), CompositeRules::spec());
    SchemeFacts { bitwidths: true, single_use_loads: true, composite_pairs: true }
}

/// Groups the per-instruction annotations by source line.
fn line_facts(compiled: &Compiled, function: &Function, notes: &Annotations) -> BTreeMap<u32, LineFacts> {
    let mut lines: BTreeMap<u32, LineFacts> = BTreeMap::new();
    let Some(body) = &function.body else { return lines };
    for info in &notes.insts {
        let line = compiled.line_of(body.inst_spans.get(info.inst).start);
        let facts = lines.entry(line).or_insert_with(|| LineFacts {
            live_in: info.live_in,
            uniform: true,
            ..LineFacts::default()
        });
        facts.live = facts.live.max(info.live);
        facts.instructions += 1;
        facts.uniform &= info.uniform;
        facts.single_use_load |= info.single_use_load;
        facts.composite_pair |= info.composite_pair;
        facts.defs.extend(info.defs.iter().filter_map(|d| {
            let reg = body.regs.get(d.reg)?;
            let declared = sim_core::analysis::declared_width(reg);
            Some(DefFact {
                register: reg.name.clone(),
                bits: d.width.bits,
                signed: d.width.signed,
                declared_bits: declared.bits,
                declared_signed: declared.signed,
                uses: d.uses,
            })
        }));
    }
    // A uniform *value*: lines that define nothing (branches, stores) carry no marker.
    lines.values_mut().for_each(|f| f.uniform &= !f.defs.is_empty());
    lines
}
