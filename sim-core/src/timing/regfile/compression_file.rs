//! The register file of static data compression (Angerd et al.; `SCHEMES.md` §2): the
//! baseline's banks and operand collectors over *physical* registers (a value's slices, from
//! [`super::compression_program`]), plus the source and destination indirection tables and the
//! narrow-float converters.
//!
//! ```text
//! issue add.f32 %f3, %f1, %f2 (warp 0; %f1 split over R4, R5; %f2 in R6 slices 0–3, narrow)
//!   table lookups: units 1, 2 → table banks 1, 2: both granted now → lookup stage 1 cycle
//!   bank reads: R4, R5, R6 (three reads for two operands)
//!   conversion: one narrow float → 1 cycle      → dispatch 2 cycles after the last bank read
//! write-back: destination lookup + masked write → writeback_delay (3) cycles later
//! ```

use alloc::string::String;
use alloc::vec;
use alloc::vec::Vec;

use super::bank::Banks;
use super::compression::CompressionConfig;
use super::compression_program::NARROW_FLOAT;
use super::operand_collector::CollectorPool;
use super::{
    CuId, EnergyModel, IssueOutcome, OperandRequest, RegisterFileScheme, SchemeContext, SchemeCounter, SchemeStats,
    StructureStats, WriteRequest,
};
use crate::timing::program::Program;
use crate::timing::program_map::SchemeProgram;
use crate::timing::sm::hooks::HookSet;

/// Per static instruction: what the tables and converters do for it.
#[derive(Clone, Debug, Default)]
struct InstCost {
    /// 32-bit source units (one source-table lookup each).
    sources: Vec<u32>,
    /// Destination-table lookups (32-bit units written).
    dest_lookups: u32,
    /// Narrow-float source reads (conversions).
    conv_reads: u32,
    /// Narrow-float results (a conversion at write-back).
    conv_writes: u32,
    /// Bank reads beyond one per source unit (split operands).
    split_reads: u32,
}

/// One SM's compressed register file.
#[derive(Clone, Debug)]
pub struct CompressedRegisterFile {
    banks: Banks,
    cus: CollectorPool,
    config: CompressionConfig,
    rf_nj: f64,
    table_nj: f64,
    costs: Vec<InstCost>,
    /// Per table bank: the first cycle it is free.
    table_free: Vec<u64>,
    /// Extra read cycles of the instruction accepted last (asked right after its issue).
    last_read_extra: u32,
    scratch: Vec<u32>,
    collector_full: u64,
    lookups: u64,
    table_waits: u64,
    conversions: u64,
    split_reads: u64,
}

impl CompressedRegisterFile {
    /// The register file of one SM configured by `config`.
    pub fn new(ctx: &SchemeContext<'_>, config: CompressionConfig) -> Self {
        let b = &config.banked;
        CompressedRegisterFile {
            banks: Banks::with_mapping(b.banks, ctx.geometry.groups, b.bank_mapping),
            cus: CollectorPool::with_units(b.collector_units, &ctx.geometry),
            rf_nj: EnergyModel::per_warp_register(b.main_rf_nj, ctx.geometry.warp_size),
            table_nj: EnergyModel::per_warp_register(config.table_nj, ctx.geometry.warp_size),
            table_free: vec![0; config.table_banks.max(1) as usize],
            config,
            costs: Vec::new(),
            last_read_extra: 0,
            scratch: Vec::new(),
            collector_full: 0,
            lookups: 0,
            table_waits: 0,
            conversions: 0,
            split_reads: 0,
        }
    }

    /// The per-instruction costs of `program` (its bank registers carry the narrow-float tag).
    fn bind(&mut self, program: &Program) {
        self.costs = program
            .insts
            .iter()
            .enumerate()
            .map(|(sid, s)| {
                let reads = program.bank_reads(sid as u32);
                let writes = program.bank_writes(sid as u32);
                let units = program.reads_of(s).get(..usize::from(s.rf_reads)).unwrap_or(&[]);
                InstCost {
                    sources: units.to_vec(),
                    dest_lookups: u32::from(s.rf_writes),
                    conv_reads: reads.iter().filter(|&&r| is_narrow(r)).count() as u32,
                    conv_writes: writes.iter().filter(|&&r| is_narrow(r)).count() as u32,
                    split_reads: (reads.len() as u32).saturating_sub(u32::from(s.rf_reads)),
                }
            })
            .collect();
    }

    /// Source-table lookups of an instruction issued at `now`: the cycles from `now` until its
    /// last lookup is done (the lookup stage, one cycle, plus waits for busy table banks).
    fn lookup(&mut self, sid: u32, warp: u32, now: u64) -> u32 {
        let n = self.table_free.len() as u64;
        let Some(cost) = self.costs.get(sid as usize) else { return 1 };
        let mut last = now;
        for &u in &cost.sources {
            let b = ((u64::from(u) + u64::from(warp)) % n) as usize;
            if let Some(free) = self.table_free.get_mut(b) {
                let at = (*free).max(now);
                *free = at + 1;
                self.table_waits += at - now;
                last = last.max(at);
            }
        }
        self.lookups += cost.sources.len() as u64;
        self.split_reads += u64::from(cost.split_reads);
        let conv = cost.conv_reads;
        self.conversions += u64::from(conv);
        let batches = conv.div_ceil(self.config.conversions_per_cycle.max(1));
        let stage = if cost.sources.is_empty() { 0 } else { (last - now) as u32 + 1 };
        stage + batches * self.config.conversion_cycles
    }
}

fn is_narrow(r: u32) -> bool {
    r & NARROW_FLOAT != 0 && r < crate::timing::program_regs::UNALLOCATED
}

/// The bank register of a (possibly tagged) id.
fn untagged(r: u32) -> u32 {
    if is_narrow(r) {
        r & !NARROW_FLOAT
    } else {
        r
    }
}

impl RegisterFileScheme for CompressedRegisterFile {
    fn name(&self) -> &'static str {
        "compression"
    }

    fn hooks(&self) -> HookSet {
        HookSet::OPERAND_LATENCY
    }

    fn on_scheme_program(&mut self, program: &SchemeProgram) {
        self.bind(&program.program);
    }

    fn bind_program(&mut self, program: &Program) {
        self.bind(program);
    }

    fn collector_free(&self, group: u32) -> bool {
        self.cus.has_free(group)
    }

    fn try_issue(&mut self, req: &OperandRequest<'_>, now: u64) -> IssueOutcome {
        self.scratch.clear();
        for &r in req.reads {
            let r = untagged(r);
            if !self.scratch.contains(&r) {
                self.scratch.push(r);
            }
        }
        let Some(cu) = self.cus.try_allocate(req.group, self.scratch.len() as u32) else {
            self.collector_full += 1;
            return IssueOutcome::NoCollector;
        };
        for &r in &self.scratch {
            self.banks.request(cu, r, req.warp, req.group);
        }
        self.last_read_extra = self.lookup(req.sid, req.warp, now);
        IssueOutcome::Collecting(cu)
    }

    fn operand_read_latency(&self, _req: &OperandRequest<'_>, _operand: usize) -> u32 {
        self.last_read_extra
    }

    fn operand_write_latency(&self, req: &OperandRequest<'_>, _operand: usize) -> u32 {
        let conv = self.costs.get(req.sid as usize).is_some_and(|c| c.conv_writes > 0);
        self.config.writeback_delay + if conv { self.config.conversion_cycles } else { 0 }
    }

    fn cycle(&mut self, now: u64, collected: &mut Vec<CuId>) {
        self.banks.arbitrate(now, &mut self.cus);
        self.cus.drain_done(collected);
    }

    fn release(&mut self, cu: CuId) {
        self.cus.release(cu);
    }

    fn try_write(&mut self, req: &WriteRequest<'_>, now: u64) -> bool {
        self.scratch.clear();
        for &r in req.units {
            let r = untagged(r);
            if !self.scratch.contains(&r) {
                self.scratch.push(r);
            }
        }
        let done = self.banks.try_write(&self.scratch, req.warp, req.group, now);
        if done {
            let cost = self.costs.get(req.sid as usize);
            self.lookups += u64::from(cost.map_or(0, |c| c.dest_lookups));
            self.conversions += u64::from(cost.map_or(0, |c| c.conv_writes.min(1)));
        }
        done
    }

    fn busy(&self) -> bool {
        self.banks.busy() || self.cus.pending()
    }

    fn stats(&self) -> SchemeStats {
        let counter = |name: &str, value: u64, unit: &str| SchemeCounter {
            name: String::from(name),
            value,
            unit: String::from(unit),
        };
        SchemeStats {
            structures: vec![
                StructureStats {
                    name: String::from("main_rf"),
                    reads: self.banks.reads,
                    writes: self.banks.writes,
                    nj_per_access: self.rf_nj,
                },
                StructureStats {
                    name: String::from("indirection_table"),
                    reads: self.lookups,
                    writes: 0,
                    nj_per_access: self.table_nj,
                },
            ],
            bank_conflicts_read_read: self.banks.read_read,
            bank_conflicts_read_write: self.banks.read_write,
            bank_conflicts_write_write: self.banks.write_write,
            collector_full: self.collector_full,
            counters: vec![
                counter("table_lookups", self.lookups, "warp lookups"),
                counter("table_bank_waits", self.table_waits, "cycles"),
                counter("split_reads", self.split_reads, "bank reads"),
                counter("conversions", self.conversions, "warp conversions"),
                counter("table_bits", self.config.table_bits(), "bits (two tables per SM, summed over SMs)"),
            ],
        }
    }
}
