//! Wyse's "2× registers per SM" limit study (SCHEMES.md §1): the register file holds twice as many
//! registers (banks twice as deep), so more CTAs fit where registers limit occupancy. Timing and
//! energy per access are the baseline's (**A**: a deeper bank is not assumed to cost more per
//! access); only the occupancy calculator's register capacity changes.
//!
//! ```text
//! fermi-gtx480, 256 threads × 40 registers: baseline 3 CTAs/SM (registers bind) → 6 CTAs/SM here
//! ```

use alloc::vec::Vec;

use super::baseline::BankedRegisterFile;
use super::{CuId, IssueOutcome, OperandRequest, RegisterFileScheme, SchemeContext, SchemeStats, WriteRequest};
use crate::gpu::{GpuConfig, ResidencyLimits};

/// The baseline register file with twice the capacity.
#[derive(Clone, Debug)]
pub struct DoubleRegisterFile {
    inner: BankedRegisterFile,
}

impl DoubleRegisterFile {
    /// The register file of one SM.
    pub fn new(ctx: &SchemeContext<'_>) -> Self {
        DoubleRegisterFile { inner: BankedRegisterFile::new(ctx) }
    }
}

impl RegisterFileScheme for DoubleRegisterFile {
    fn name(&self) -> &'static str {
        "2x-registers"
    }

    fn residency_limits(&self, gpu: &GpuConfig) -> ResidencyLimits {
        match gpu.limits.clone() {
            ResidencyLimits::Nvidia(mut sm) => {
                sm.registers_per_sm = sm.registers_per_sm.saturating_mul(2);
                ResidencyLimits::Nvidia(sm)
            }
            ResidencyLimits::Gcn3(mut cu) => {
                cu.vgprs_per_simd = cu.vgprs_per_simd.saturating_mul(2);
                ResidencyLimits::Gcn3(cu)
            }
        }
    }

    fn collector_free(&self, group: u32) -> bool {
        self.inner.collector_free(group)
    }

    fn try_issue(&mut self, req: &OperandRequest<'_>, now: u64) -> IssueOutcome {
        self.inner.try_issue(req, now)
    }

    fn cycle(&mut self, now: u64, collected: &mut Vec<CuId>) {
        self.inner.cycle(now, collected);
    }

    fn release(&mut self, cu: CuId) {
        self.inner.release(cu);
    }

    fn try_write(&mut self, req: &WriteRequest<'_>, now: u64) -> bool {
        self.inner.try_write(req, now)
    }

    fn busy(&self) -> bool {
        self.inner.busy()
    }

    fn stats(&self) -> SchemeStats {
        self.inner.stats()
    }
}
