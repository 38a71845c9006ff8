//! The baseline every paper compares against: a banked register file with operand collector
//! units, GPGPU-Sim's bank mapping `(reg + warp) % banks` and arbitration (SCHEMES.md §0), the
//! sub-core split on Volta and later. Registers per thread: the kernel's maximum live 32-bit
//! registers, or the user's override ("ptxas says N").
//!
//! ```text
//! fermi-gtx480: 16 banks, 16 CUs shared by 2 schedulers; volta-v100: 4 × (4 banks, 2 CUs)
//! baseline:collector_units=2,bank_mapping=reg   → [`BankedConfig`] { banks: 16, collector_units: 2, … }
//! ```
//!
//! Parameters ([`BankedConfig::params`]): banks, collector units and the energy per access
//! default from the GPU preset and Gilani's Table 4; the bank mapping and the arbitration are
//! GPGPU-Sim's unless set.

use alloc::format;
use alloc::rc::Rc;
use alloc::string::String;
use alloc::vec;
use alloc::vec::Vec;

use serde::Serialize;

use super::bank::{BankMapping, Banks};
use super::config::SchemeConfigError;
use super::demo_marks::SingleUseMarks;
use super::operand_collector::CollectorPool;
use super::params::{ConfigReader, ModelNote, ParamSpec, SchemeConfig};
use super::{
    CuId, EnergyModel, IssueOutcome, OperandRequest, RegisterFileScheme, SchemeContext, SchemeCounter, SchemeStats,
    StructureStats, WriteRequest,
};
use crate::gpu::GpuConfig;

/// The only arbitration modelled (the parameter's single choice).
const ARBITRATION: &[&str] = &["write_first_oldest_read"];

/// The configuration of a banked register file with operand collectors.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct BankedConfig {
    /// Register-file banks per SM (with sub-cores each owns `banks / sub_cores`); count, from
    /// the preset (SCHEMES.md §0).
    pub banks: u32,
    /// Operand collector units per SM (with sub-cores each owns `units / sub_cores`; fewer than
    /// one per sub-core means one per scheduler); count, from the preset (SCHEMES.md §0).
    pub collector_units: u32,
    /// Register → bank mapping (GPGPU-Sim's `(reg + warp) % banks` by default).
    pub bank_mapping: BankMapping,
    /// Energy of one 32-bit main register-file access in nJ (Gilani Table 4).
    pub main_rf_nj: f64,
}

/// The collector-units parameter (also the conflict-free scheme's).
pub fn collector_units_param(gpu: &GpuConfig) -> ParamSpec {
    ParamSpec::int("collector_units", i64::from(gpu.register_file.collector_units), 0, 1024, "per SM").doc(
        "Operand collector units per SM, split over the sub-cores; fewer than one per sub-core (0 included): one per scheduler, an in-order operand-read stage",
        "GPU preset (SCHEMES.md §0)",
    )
}

/// The main register file's energy parameter (every scheme with a main register file).
pub fn main_rf_param(energy: &EnergyModel) -> ParamSpec {
    ParamSpec::float("main_rf_nj", energy.main_rf_nj, 0.0, 1.0, "nJ per 32-bit access").doc(
        "Energy of one 32-bit main register-file access (a warp-register access costs warp size times this)",
        "Gilani et al. Table 4 (SCHEMES.md §5)",
    )
}

impl BankedConfig {
    /// The schema: defaults from `gpu` and `energy`.
    pub fn params(gpu: &GpuConfig, energy: &EnergyModel) -> Vec<ParamSpec> {
        vec![
            ParamSpec::int("banks", i64::from(gpu.register_file.banks), i64::from(gpu.core.sub_cores.max(1)), 1024, "banks per SM")
                .doc("Register-file banks per SM, split evenly over the sub-cores; one read and one write per bank per cycle", "GPU preset (SCHEMES.md §0)"),
            collector_units_param(gpu),
            ParamSpec::choice("bank_mapping", "reg_plus_warp", BankMapping::CHOICES).doc(
                "Register to bank: reg_plus_warp = (register + warp slot) % banks; reg = register % banks (no warp swizzle)",
                "GPGPU-Sim (SCHEMES.md §0)",
            ),
            ParamSpec::choice("arbitration", ARBITRATION[0], ARBITRATION).doc(
                "Per bank and cycle a pending write wins the bank, else the oldest queued read is granted (the only policy modelled)",
                "GPGPU-Sim (SCHEMES.md §0)",
            ),
            main_rf_param(energy),
        ]
    }

    /// The typed config of `scheme` from its resolved `config`.
    pub fn from_config(scheme: &str, config: &SchemeConfig) -> Result<BankedConfig, SchemeConfigError> {
        let r = ConfigReader::new(scheme, config);
        let mapping = r.choice("bank_mapping")?;
        let bank_mapping = BankMapping::from_choice(mapping).ok_or_else(|| SchemeConfigError::WrongType {
            scheme: String::from(scheme),
            param: String::from("bank_mapping"),
            expected: format!("one of {}", BankMapping::CHOICES.join(", ")),
            got: String::from(mapping),
        })?;
        Ok(BankedConfig {
            banks: r.u32("banks")?,
            collector_units: r.u32("collector_units")?,
            bank_mapping,
            main_rf_nj: r.f64("main_rf_nj")?,
        })
    }
}

/// What the baseline models.
pub const NOTES: &[ModelNote] = &[
    ModelNote::modelled("Banks serve one warp-register read and one write per cycle; a pending write wins its bank; the oldest queued read is granted; duplicate sources are read once."),
    ModelNote::modelled("Operand collector units hold an issued instruction until all its sources are read; with sub-cores each scheduler group owns its share of banks and collectors."),
    ModelNote::modelled("Registers per thread: the allocator's estimate, or the user's \"ptxas says N\" override."),
    ModelNote::not_modelled("Several read or write ports per bank (the presets' port counts are not used), and Accel-Sim's port throughput."),
    ModelNote::assumption("A warp-register access costs warp size × the 32-bit energy figure whatever the active mask (a bank entry is read whole)."),
    ModelNote::modelled("Asked for (TimingOptions::single_use_attribution, `reglab run --single-use`): the accesses of single-use memory values (DeMO's Algorithm 1, every load space; the load's write and its consumer's one read) are counted (single_use_reads, single_use_writes), and a bank conflict is counted in single_use_bank_conflicts when a marked access competed for that bank in that cycle: the read granted, a read left waiting, the write that took the bank or the write refused (single_use_waits: the cycles the marked requests themselves waited)."),
];

/// Banks plus collectors of one SM; also the body of [`super::double_registers`].
#[derive(Clone, Debug)]
pub struct BankedRegisterFile {
    banks: Banks,
    cus: CollectorPool,
    nj_per_access: f64,
    collector_full: u64,
    /// Single-use attribution: marked operand positions by `sid`, and the marked accesses made.
    single_use: Option<(Rc<SingleUseMarks>, u64, u64)>,
}

impl BankedRegisterFile {
    /// The baseline register file of one SM configured by `config`.
    pub fn new(ctx: &SchemeContext<'_>, config: &BankedConfig) -> Self {
        BankedRegisterFile {
            banks: Banks::with_mapping(config.banks, ctx.geometry.groups, config.bank_mapping),
            cus: CollectorPool::with_units(config.collector_units, &ctx.geometry),
            nj_per_access: EnergyModel::per_warp_register(config.main_rf_nj, ctx.geometry.warp_size),
            collector_full: 0,
            single_use: None,
        }
    }

    fn try_issue_marked(&mut self, req: &OperandRequest<'_>, cu: CuId) {
        let Some((marks, reads, _)) = &mut self.single_use else { return };
        let mask = marks.reads(req.sid);
        for (i, &r) in req.reads.iter().enumerate() {
            let marked = i < 64 && mask & (1 << i) != 0;
            *reads += u64::from(marked);
            self.banks.request_marked(cu, r, req.warp, req.group, marked);
        }
    }

    fn stats_single_use(&self, s: &mut SchemeStats) {
        let Some((_, reads, writes)) = &self.single_use else { return };
        let mut counter = |name: &str, value: u64, unit: &str| {
            s.counters.push(SchemeCounter { name: String::from(name), value, unit: String::from(unit) });
        };
        counter("single_use_reads", *reads, "warp-register reads");
        counter("single_use_writes", *writes, "warp-register writes");
        counter("single_use_bank_conflicts", self.banks.single_use_conflicts, "conflicts");
        counter("single_use_waits", self.banks.single_use_waits, "request cycles");
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
        if self.single_use.is_some() {
            self.try_issue_marked(req, cu);
            return IssueOutcome::Collecting(cu);
        }
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
        let Some((marks, _, writes)) = &mut self.single_use else {
            return self.banks.try_write(req.units, req.warp, req.group, now);
        };
        let mask = marks.writes(req.sid);
        let done = self.banks.try_write_marked(req.units, req.warp, req.group, now, mask);
        if done {
            *writes += u64::from(mask.count_ones());
        }
        done
    }

    fn busy(&self) -> bool {
        self.banks.busy() || self.cus.pending()
    }

    fn attribute_single_use(&mut self, marks: &Rc<SingleUseMarks>) {
        self.banks.attribute_single_use();
        self.single_use = Some((Rc::clone(marks), 0, 0));
    }

    fn stats(&self) -> SchemeStats {
        let mut s = SchemeStats {
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
            counters: Vec::new(),
        };
        self.stats_single_use(&mut s);
        s
    }
}
