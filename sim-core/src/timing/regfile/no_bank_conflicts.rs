//! Wyse's bank-conflict-free limit study (SCHEMES.md §1): every register is its own bank, so all
//! of an instruction's operands are read in the cycle after issue and writes never take a bank
//! away from a read. Collectors, registers per thread and everything else are the baseline's.
//!
//! ```text
//! add.f32 %f3, %f1, %f2  (both in one bank on the baseline: 2 read cycles) → 1 read cycle here
//! ```
//!
//! Parameters: `collector_units` and `main_rf_nj`, as the baseline's.

use alloc::string::String;
use alloc::vec;
use alloc::vec::Vec;

use super::baseline::{collector_units_param, main_rf_param};
use super::config::SchemeConfigError;
use super::operand_collector::CollectorPool;
use super::params::{ConfigReader, ModelNote, ParamSpec, SchemeConfig};
use super::{
    CuId, EnergyModel, IssueOutcome, OperandRequest, RegisterFileScheme, SchemeContext, SchemeStats, StructureStats,
    WriteRequest,
};
use crate::gpu::GpuConfig;

/// The schema: collectors and energy, defaults from `gpu` and `energy`.
pub fn params(gpu: &GpuConfig, energy: &EnergyModel) -> Vec<ParamSpec> {
    vec![collector_units_param(gpu), main_rf_param(energy)]
}

/// What the study models.
pub const NOTES: &[ModelNote] = &[
    ModelNote::modelled("Every source operand is read in the cycle after issue and writes never delay reads or other writes; collectors are the baseline's."),
    ModelNote::assumption("Energy per access equals the baseline's main register file (no cost for the extra banks)."),
];

/// A register file without bank conflicts.
#[derive(Clone, Debug)]
pub struct ConflictFreeRegisterFile {
    cus: CollectorPool,
    /// Collectors with reads outstanding: all are granted at the next cycle.
    waiting: Vec<(CuId, u32)>,
    reads: u64,
    writes: u64,
    nj_per_access: f64,
    collector_full: u64,
}

impl ConflictFreeRegisterFile {
    /// The register file of one SM configured by `config`.
    pub fn new(ctx: &SchemeContext<'_>, config: &SchemeConfig) -> Result<Self, SchemeConfigError> {
        let r = ConfigReader::new("no-bank-conflicts", config);
        let main_rf_nj = r.f64("main_rf_nj")?;
        Ok(ConflictFreeRegisterFile {
            cus: CollectorPool::with_units(r.u32("collector_units")?, &ctx.geometry),
            waiting: Vec::new(),
            reads: 0,
            writes: 0,
            nj_per_access: EnergyModel::per_warp_register(main_rf_nj, ctx.geometry.warp_size),
            collector_full: 0,
        })
    }
}

impl RegisterFileScheme for ConflictFreeRegisterFile {
    fn name(&self) -> &'static str {
        "no-bank-conflicts"
    }

    fn collector_free(&self, group: u32) -> bool {
        self.cus.has_free(group)
    }

    fn try_issue(&mut self, req: &OperandRequest<'_>, _now: u64) -> IssueOutcome {
        let n = req.reads.len() as u32;
        let Some(cu) = self.cus.try_allocate(req.group, n) else {
            self.collector_full += 1;
            return IssueOutcome::NoCollector;
        };
        if n > 0 {
            self.waiting.push((cu, n));
        }
        IssueOutcome::Collecting(cu)
    }

    fn cycle(&mut self, _now: u64, collected: &mut Vec<CuId>) {
        for (cu, n) in self.waiting.drain(..) {
            self.reads += u64::from(n);
            for _ in 0..n {
                self.cus.granted(cu);
            }
        }
        self.cus.drain_done(collected);
    }

    fn release(&mut self, cu: CuId) {
        self.cus.release(cu);
    }

    fn try_write(&mut self, req: &WriteRequest<'_>, _now: u64) -> bool {
        self.writes += req.units.len() as u64;
        true
    }

    fn busy(&self) -> bool {
        !self.waiting.is_empty() || self.cus.pending()
    }

    fn stats(&self) -> SchemeStats {
        SchemeStats {
            structures: vec![StructureStats {
                name: String::from("main_rf"),
                reads: self.reads,
                writes: self.writes,
                nj_per_access: self.nj_per_access,
            }],
            collector_full: self.collector_full,
            ..SchemeStats::default()
        }
    }
}
