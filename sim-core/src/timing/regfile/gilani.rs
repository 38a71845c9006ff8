//! Gilani, Kim and Schulte, "Power-efficient computing for compute-intensive GPGPU applications"
//! (HPCA 2013; SCHEMES.md §5): composite instructions, a scalar unit and a sliced datapath, as
//! four schemes — `composite`, `scalar-unit`, `sliced` and `gilani` (all three). This module holds
//! their parameters, model notes and config; the register file is [`super::gilani_file`], the
//! per-warp value state [`super::gilani_values`], the composite pass [`super::composite_rf`].
//!
//! ```text
//! gilani:pair_rule=single_use,scalar_dual_issue=false
//!   → GilaniConfig { composite: true, scalar: true, sliced: true, pair_rule: "single_use", … }
//! ```
//!
//! Every scheme of the family carries the baseline's parameters (banks, collectors, main RF
//! energy) and the energy figure of each structure it adds (Gilani Table 4 defaults from the
//! base [`EnergyModel`]).

use alloc::string::String;
use alloc::vec::Vec;

use super::baseline::BankedConfig;
use super::composite_rf::PAIR_RULES;
use super::config::SchemeConfigError;
use super::params::{ConfigReader, ModelNote, ParamSpec, SchemeConfig};
use super::EnergyModel;
use crate::gpu::GpuConfig;

/// Which of the three techniques a scheme of the family uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Techniques {
    /// Composite instructions (compile time, CRF).
    pub composite: bool,
    /// Scalar unit (run time, scalar RF).
    pub scalar: bool,
    /// Sliced datapath (run time, half-width RF slices).
    pub sliced: bool,
}

impl Techniques {
    /// `composite`.
    pub const COMPOSITE: Techniques = Techniques { composite: true, scalar: false, sliced: false };
    /// `scalar-unit`.
    pub const SCALAR: Techniques = Techniques { composite: false, scalar: true, sliced: false };
    /// `sliced`.
    pub const SLICED: Techniques = Techniques { composite: false, scalar: false, sliced: true };
    /// `gilani`: all three.
    pub const ALL: Techniques = Techniques { composite: true, scalar: true, sliced: true };
}

/// The resolved config of a scheme of the family.
#[derive(Clone, Debug, PartialEq)]
pub struct GilaniConfig {
    /// Registry name.
    pub name: &'static str,
    /// The techniques it uses.
    pub techniques: Techniques,
    /// Banks, collectors and main RF energy (the baseline's parameters).
    pub banked: BankedConfig,
    /// Composite pair rule (`paper` = Gilani Fig. 4, `single_use` = SCHEMES.md §5).
    pub pair_rule: String,
    /// Energy of one 32-bit composite register-file access in nJ (Gilani Table 4).
    pub composite_rf_nj: f64,
    /// Energy of one 32-bit scalar register-file access in nJ (Gilani Table 4).
    pub scalar_rf_nj: f64,
    /// A scalar instruction may issue in the slot of a SIMT instruction of another warp.
    pub scalar_dual_issue: bool,
    /// Energy of one 32-bit access of the sliced (half-width) main register file in nJ (Gilani
    /// Table 4: half the main RF's).
    pub sliced_rf_nj: f64,
    /// Bits of a half-width value (16: the upper 16 bits are sign extension).
    pub half_width_bits: u32,
}

fn composite_params(energy: &EnergyModel, out: &mut Vec<ParamSpec>) {
    out.push(ParamSpec::choice("pair_rule", "paper", PAIR_RULES).doc(
        "Composite pairs: paper = later uses of the intermediate in the block read it from the CRF (Gilani Fig. 4); single_use = the first result has exactly one use (SCHEMES.md §5)",
        "Gilani et al. §3, Fig. 4; SCHEMES.md §5",
    ));
    out.push(ParamSpec::float("composite_rf_nj", energy.composite_rf_nj, 0.0, 1.0, "nJ per 32-bit access").doc(
        "Energy of one 32-bit composite register-file access (one entry per warp: a warp-register access costs warp size times this)",
        "Gilani et al. Table 4",
    ));
}

fn scalar_params(energy: &EnergyModel, out: &mut Vec<ParamSpec>) {
    out.push(ParamSpec::float("scalar_rf_nj", energy.scalar_rf_nj, 0.0, 1.0, "nJ per 32-bit access").doc(
        "Energy of one scalar register-file access (one 32-bit value per warp register)",
        "Gilani et al. Table 4",
    ));
    out.push(ParamSpec::flag("scalar_dual_issue", true).doc(
        "A scalar instruction may issue in the same slot as a SIMT instruction of another warp of the scheduler",
        "Gilani et al. §4",
    ));
}

fn sliced_params(energy: &EnergyModel, out: &mut Vec<ParamSpec>) {
    out.push(ParamSpec::float("sliced_rf_nj", energy.sliced_rf_nj, 0.0, 1.0, "nJ per 32-bit access").doc(
        "Energy of one 32-bit access of the sliced main register file when only the low half is read or written",
        "Gilani et al. Table 4",
    ));
    out.push(ParamSpec::int("half_width_bits", 16, 1, 31, "bits").doc(
        "A value is half-width when it fits this many bits as a two's-complement number (the upper bits are sign extension)",
        "Gilani et al. §5",
    ));
}

/// The schema of a scheme using `t`: the baseline's, then each technique's.
pub fn params_of(t: Techniques, gpu: &GpuConfig, energy: &EnergyModel) -> Vec<ParamSpec> {
    let mut p = BankedConfig::params(gpu, energy);
    if t.composite {
        composite_params(energy, &mut p);
    }
    if t.scalar {
        scalar_params(energy, &mut p);
    }
    if t.sliced {
        sliced_params(energy, &mut p);
    }
    p
}

/// `composite`'s schema.
pub fn composite_schema(gpu: &GpuConfig, energy: &EnergyModel) -> Vec<ParamSpec> {
    params_of(Techniques::COMPOSITE, gpu, energy)
}

/// `scalar-unit`'s schema.
pub fn scalar_schema(gpu: &GpuConfig, energy: &EnergyModel) -> Vec<ParamSpec> {
    params_of(Techniques::SCALAR, gpu, energy)
}

/// `sliced`'s schema.
pub fn sliced_schema(gpu: &GpuConfig, energy: &EnergyModel) -> Vec<ParamSpec> {
    params_of(Techniques::SLICED, gpu, energy)
}

/// `gilani`'s schema.
pub fn gilani_schema(gpu: &GpuConfig, energy: &EnergyModel) -> Vec<ParamSpec> {
    params_of(Techniques::ALL, gpu, energy)
}

impl GilaniConfig {
    /// The typed config of `name` (using `t`) from its resolved `config`; a technique's
    /// parameters are read only when it is used (the others keep Table 4's defaults).
    pub fn from_config(name: &'static str, t: Techniques, config: &SchemeConfig) -> Result<Self, SchemeConfigError> {
        let r = ConfigReader::new(name, config);
        let e = EnergyModel::default();
        Ok(GilaniConfig {
            name,
            techniques: t,
            banked: BankedConfig::from_config(name, config)?,
            pair_rule: String::from(if t.composite { r.choice("pair_rule")? } else { "paper" }),
            composite_rf_nj: if t.composite { r.f64("composite_rf_nj")? } else { e.composite_rf_nj },
            scalar_rf_nj: if t.scalar { r.f64("scalar_rf_nj")? } else { e.scalar_rf_nj },
            scalar_dual_issue: if t.scalar { r.bool("scalar_dual_issue")? } else { false },
            sliced_rf_nj: if t.sliced { r.f64("sliced_rf_nj")? } else { e.sliced_rf_nj },
            half_width_bits: if t.sliced { r.u32("half_width_bits")? } else { 16 },
        })
    }
}

/// Notes shared by the family: value statistics and energy.
const COMMON: [ModelNote; 4] = [
    ModelNote::modelled("The paper's statistics (Gilani Fig. 1): redundant share = instructions whose result is the same in every executed lane (uniform_result_instructions) of those that wrote a register (value_instructions), every instruction type; 16-bit share = integer register values (32-bit units) that fit 16 bits signed (integer_16bit_values) of the integer values written (integer_values), whatever half_width_bits is. The family's counters of those names count what the scheme issued (a fused pair once); the report figures (value shares) come from the original kernel's streams and appear in every run that records the lanes' values, whatever its scheme (value_stats.rs)."),
    ModelNote::modelled("Energy by structure: main_rf and each added structure's accesses × its Table 4 figure (warp size × the 32-bit figure per warp register; the scalar RF one 32-bit value)."),
    ModelNote::assumption("The executor runs the original kernel: outputs are unchanged; value summaries are those of the original instruction at the issued one's stream position (for a fused pair placed at its first half: the intermediate's)."),
    ModelNote::assumption("Integer values: written by an instruction whose type is .s/.u (4–64 bits); a .b-typed (or untyped) instruction counts by the value moved as the kernel declares it: not integer when a register it writes or reads is declared float (mov.b32 %r, %f; mov.b32 %f, %r), integer otherwise; float-typed instructions and predicates are not counted. A fused composite counts by the fused instruction's type."),
];

const COMPOSITE: [ModelNote; 3] = [
    ModelNote::modelled("Composite pairs (Table 1 classes, same block, same guard, ≤ 3 register sources, ≤ 1 memory access, greedy top-down) fused at compile time; a fused pair takes one issue slot and one unit slot with the consumer's latency; the intermediate is written to and read from the CRF (fused_pairs, composite_rf), so the main RF sees one write and one read fewer."),
    ModelNote::modelled("pair_rule=paper: other uses of the intermediate in the block read the CRF (crf_forwarded_reads); single_use: SCHEMES.md §5's exactly-one-use rule."),
    ModelNote::not_modelled("The enhanced FMA unit's longer latency for a composite (the consumer's latency is used)."),
];

const SCALAR: [ModelNote; 4] = [
    ModelNote::modelled("A register is scalar after a write in which every executed lane wrote the same value; an ALU instruction whose register sources are all scalar and whose result is uniform (immediates and uniform special registers qualify) issues to the scalar unit: scalar_instructions."),
    ModelNote::modelled("With scalar_dual_issue a scalar instruction and a SIMT instruction of two warps of one scheduler issue in the same slot (scalar_dual_issues)."),
    ModelNote::assumption("Scalar unit: one pipe per SM with the preset's integer add latency and interval (the paper does not issue scalar instructions in the SIMT pipeline's spare cycles, §7); its operands come from the scalar RF without bank arbitration, and its result is written there (not to the banks)."),
    ModelNote::assumption("Registers are marked scalar (and half-width) at issue, from the functional run's summaries (the comparison stage before write-back); SIMT instructions read and write the main RF even for scalar registers."),
];

const SLICED: [ModelNote; 5] = [
    ModelNote::modelled("A register is half-width after a write whose values all fit half_width_bits (sign extension above); an ALU instruction whose register sources are all half-width is issued as 16-bit: its reads (and, when the result fits, its write) use the sliced RF (half_width_instructions). Any instruction type qualifies: the paper decides by the bits (the ZOD unit checks the 16 MSBs, §5.2) and restricts only composites to integers; a float's bits rarely fit (+0, tiny denormals)."),
    ModelNote::modelled("Two 16-bit instructions whose results fit, of warps of opposite parity of one scheduler, issue in one slot: the second runs on the other half of the datapath (paired_issues)."),
    ModelNote::modelled("A 16-bit guess whose result needs more bits costs one cycle before write-back and a full-width write (width_mispredictions)."),
    ModelNote::assumption("The paired instruction's operands are read with the first's (no bank arbitration of their own, the paper's swapped LSB/MSB placement for odd warps); the other half of the datapath is a pipe with the preset's integer add latency and interval. Parity is a warp's position among its scheduler's warps (slot / schedulers), so presets with several schedulers pair too; the paper splits GT200's one scheduler into odd and even halves."),
    ModelNote::not_modelled("The paper's cap of two instructions per cycle: a pair may come on top of the preset's own dual issue of one warp."),
];

/// Notes of `composite`.
pub const COMPOSITE_NOTES: &[ModelNote] =
    &[COMPOSITE[0], COMPOSITE[1], COMPOSITE[2], COMMON[0], COMMON[1], COMMON[2], COMMON[3]];
/// Notes of `scalar-unit`.
pub const SCALAR_NOTES: &[ModelNote] =
    &[SCALAR[0], SCALAR[1], SCALAR[2], SCALAR[3], COMMON[0], COMMON[1], COMMON[2], COMMON[3]];
/// Notes of `sliced`.
pub const SLICED_NOTES: &[ModelNote] =
    &[SLICED[0], SLICED[1], SLICED[2], SLICED[3], SLICED[4], COMMON[0], COMMON[1], COMMON[2], COMMON[3]];
/// Notes of `gilani`.
pub const GILANI_NOTES: &[ModelNote] = &[
    COMPOSITE[0],
    COMPOSITE[1],
    COMPOSITE[2],
    SCALAR[0],
    SCALAR[1],
    SCALAR[2],
    SCALAR[3],
    SLICED[0],
    SLICED[1],
    SLICED[2],
    SLICED[3],
    SLICED[4],
    COMMON[0],
    COMMON[1],
    COMMON[2],
    COMMON[3],
    ModelNote::assumption("All three together: a scalar-eligible instruction goes to the scalar unit before the sliced datapath is considered."),
];
