//! Wyse's "2× registers per SM" limit study (SCHEMES.md §1): the register file holds twice as many
//! registers (banks twice as deep), so more CTAs fit where registers limit occupancy. Timing and
//! energy per access are the baseline's (**A**: a deeper bank is not assumed to cost more per
//! access); only the occupancy calculator's register capacity changes.
//!
//! ```text
//! fermi-gtx480, 256 threads × 40 registers: baseline 3 CTAs/SM (registers bind) → 6 CTAs/SM here
//! 2x-registers:register_multiplier=4 → four times the registers (12 CTAs/SM where only registers bind)
//! ```
//!
//! Parameters: the baseline's ([`BankedConfig`]) plus `register_multiplier` (default 2).

use alloc::vec::Vec;

use super::baseline::{BankedConfig, BankedRegisterFile};
use super::config::SchemeConfigError;
use super::params::{ConfigReader, ModelNote, ParamSpec, SchemeConfig};
use super::{
    CuId, EnergyModel, IssueOutcome, OperandRequest, RegisterFileScheme, SchemeContext, SchemeStats, WriteRequest,
};
use crate::gpu::{GpuConfig, ResidencyLimits};

/// The schema: the baseline's plus the register multiplier.
pub fn params(gpu: &GpuConfig, energy: &EnergyModel) -> Vec<ParamSpec> {
    let mut p = BankedConfig::params(gpu, energy);
    p.push(ParamSpec::int("register_multiplier", 2, 1, 16, "× registers per SM").doc(
        "Register capacity per SM as a multiple of the preset's (the occupancy calculator's register limit)",
        "Wyse, limit studies (SCHEMES.md §1)",
    ));
    p
}

/// What the study models.
pub const NOTES: &[ModelNote] = &[
    ModelNote::modelled("The occupancy calculator's register capacity per SM (NVIDIA) or VGPRs per SIMD (GCN) is multiplied by register_multiplier; everything else is the baseline's."),
    ModelNote::assumption("A deeper bank costs the same per access (energy per access is the baseline's main_rf_nj) and takes no extra cycle."),
    ModelNote::not_modelled("Warp-slot and CTA-slot limits stay the preset's: more registers help only where registers bind."),
];

/// The baseline register file with `multiplier` times the capacity.
#[derive(Clone, Debug)]
pub struct DoubleRegisterFile {
    inner: BankedRegisterFile,
    multiplier: u32,
}

impl DoubleRegisterFile {
    /// The register file of one SM configured by `config`.
    pub fn new(ctx: &SchemeContext<'_>, config: &SchemeConfig) -> Result<Self, SchemeConfigError> {
        let name = "2x-registers";
        let multiplier = ConfigReader::new(name, config).u32("register_multiplier")?;
        let inner = BankedRegisterFile::new(ctx, &BankedConfig::from_config(name, config)?);
        Ok(DoubleRegisterFile { inner, multiplier })
    }
}

impl RegisterFileScheme for DoubleRegisterFile {
    fn name(&self) -> &'static str {
        "2x-registers"
    }

    fn residency_limits(&self, gpu: &GpuConfig) -> ResidencyLimits {
        match gpu.limits.clone() {
            ResidencyLimits::Nvidia(mut sm) => {
                sm.registers_per_sm = sm.registers_per_sm.saturating_mul(self.multiplier);
                ResidencyLimits::Nvidia(sm)
            }
            ResidencyLimits::Gcn3(mut cu) => {
                cu.vgprs_per_simd = cu.vgprs_per_simd.saturating_mul(self.multiplier);
                ResidencyLimits::Gcn3(cu)
            }
        }
    }

    delegate_operands!();

    fn stats(&self) -> SchemeStats {
        self.inner.stats()
    }
}
