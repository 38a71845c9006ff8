//! The baseline every paper compares against: a banked register file with operand collector
//! units, GPGPU-Sim's bank mapping `(reg + warp) % banks` and arbitration (SCHEMES.md §0), the
//! sub-core split on Volta and later. Registers per thread: the kernel's maximum live 32-bit
//! registers, or the user's override ("ptxas says N").
//!
//! ```text
//! fermi-gtx480: 16 banks, 16 CUs shared by 2 schedulers; volta-v100: 4 × (4 banks, 2 CUs)
//! ```

use alloc::string::String;
use alloc::vec;
use alloc::vec::Vec;

use super::bank::Banks;
use super::operand_collector::CollectorPool;
use super::{
    CuId, EnergyModel, IssueOutcome, OperandRequest, RegisterFileScheme, SchemeContext, SchemeStats, StructureStats,
    WriteRequest,
};

/// Banks plus collectors of one SM; also the body of [`super::double_registers`].
#[derive(Clone, Debug)]
pub struct BankedRegisterFile {
    banks: Banks,
    cus: CollectorPool,
    nj_per_access: f64,
    collector_full: u64,
}

impl BankedRegisterFile {
    /// The baseline register file of one SM.
    pub fn new(ctx: &SchemeContext<'_>) -> Self {
        BankedRegisterFile {
            banks: Banks::new(ctx.gpu.register_file.banks, ctx.geometry.groups),
            cus: CollectorPool::new(ctx.gpu, &ctx.geometry),
            nj_per_access: EnergyModel::per_warp_register(ctx.energy.main_rf_nj, ctx.geometry.warp_size),
            collector_full: 0,
        }
    }
}

impl RegisterFileScheme for BankedRegisterFile {
    fn name(&self) -> &'static str {
        "baseline"
    }

    fn collector_free(&self, group: u32) -> bool {
        self.cus.has_free(group)
    }

    fn try_issue(&mut self, req: &OperandRequest<'_>, _now: u64) -> IssueOutcome {
        let Some(cu) = self.cus.try_allocate(req.group, req.reads.len() as u32) else {
            self.collector_full += 1;
            return IssueOutcome::NoCollector;
        };
        for &r in req.reads {
            self.banks.request(cu, r, req.warp, req.group);
        }
        IssueOutcome::Collecting(cu)
    }

    fn cycle(&mut self, now: u64, collected: &mut Vec<CuId>) {
        self.banks.arbitrate(now, &mut self.cus);
        self.cus.drain_done(collected);
    }

    fn release(&mut self, cu: CuId) {
        self.cus.release(cu);
    }

    fn try_write(&mut self, req: &WriteRequest<'_>, now: u64) -> bool {
        self.banks.try_write(req.units, req.warp, req.group, now)
    }

    fn busy(&self) -> bool {
        self.banks.busy() || self.cus.pending()
    }

    fn stats(&self) -> SchemeStats {
        SchemeStats {
            structures: vec![StructureStats {
                name: String::from("main_rf"),
                reads: self.banks.reads,
                writes: self.banks.writes,
                nj_per_access: self.nj_per_access,
            }],
            bank_conflicts_read_read: self.banks.read_read,
            bank_conflicts_read_write: self.banks.read_write,
            bank_conflicts_write_write: self.banks.write_write,
            collector_full: self.collector_full,
        }
    }
}
