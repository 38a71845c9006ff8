//! DeMO: direct memory operands for single-use loads (Mohammadpur-Fard et al., "Exploiting Direct
//! Memory Operands in GPU Instructions"; SCHEMES.md §3). The scheme's program
//! ([`super::demo_program`]) drops every single-use load and gives its consumer a memory operand;
//! the consumer issues where it stood, its register sources (the address included) are read
//! from the banks, its memory request goes through the LD/ST unit like the load's (coalescing,
//! L1, L2, DRAM), and the returned value waits in a memory-operand buffer (MOB) of the issuing
//! scheduler, never in the register file: no bank write, no bank read. The consumer executes
//! (its ALU latency) when the data is back and writes its result as usual.
//!
//! ```text
//! ld.global.f32 %f1, [%rd1]; add.f32 %f2, %f1, %f3   → add.f32 %f2, %g[%rd1], %f3
//! issue t: MOB entry taken (full → issue stall, `scheme_buffer_full`); reads %rd1, %f3
//! LD/ST: data back at d → result written at d + add latency → MOB entry free
//! ```
//!
//! `demo-ideal` (the paper's Fig. 3 Ideal) keeps the original program and timing, with every
//! single-use memory value (all spaces) placed in no register: its write and its one read cost no
//! bank access and no cycle.

use alloc::string::String;
use alloc::vec;
use alloc::vec::Vec;

use super::baseline::{BankedConfig, BankedRegisterFile};
use super::config::SchemeConfigError;
use super::demo_program::{is_mob, ISSUE_CHOICES, SPACE_CHOICES};
use super::params::{ConfigReader, ModelNote, ParamSpec, SchemeConfig};
use super::{
    CuId, EnergyModel, IssueOutcome, OperandRequest, RegisterFileScheme, SchemeContext, SchemeCounter, SchemeStats,
    StructureStats, WriteRequest,
};
use crate::gpu::GpuConfig;
use crate::timing::program::MemOp;
use crate::timing::report::StallCause;

/// The schema: the baseline's plus the buffer, the qualifying load spaces and the buffer's energy.
pub fn params(gpu: &GpuConfig, energy: &EnergyModel) -> Vec<ParamSpec> {
    let mut p = BankedConfig::params(gpu, energy);
    p.push(
        ParamSpec::int("mob_entries", 16, 1, 1024, "entries per scheduler")
            .doc(
                "Memory-operand buffer entries per scheduler: one per folded value (issue=consumer: from the consumer's issue to its write-back; issue=load: from the direct load's issue to the consumer's); full → issue stall (scheme_buffer_full)",
                "SCHEMES.md §3 (the paper gives no size)",
            )
            .assumed(),
    );
    p.push(ParamSpec::choice("spaces", SPACE_CHOICES[0], SPACE_CHOICES).doc(
        "Loads that may become memory operands: global = ld.global only; all = ld.global/.shared/.local/.const/.param",
        "SCHEMES.md §3; the paper adds a direct form of every load",
    ));
    p.push(ParamSpec::choice("issue", ISSUE_CHOICES[0], ISSUE_CHOICES).doc(
        "consumer = the load is dropped and the consumer sends its request from its own place (the brief's model); load = the paper's SASS (Fig. 4, 2''/3''): a direct load issues in the load's place into the buffer, the consumer reads the buffer",
        "SCHEMES.md §3; Mohammadpur-Fard et al. Fig. 4 and §III-B",
    ));
    p.push(
        ParamSpec::float("mob_nj", energy.rfc_nj, 0.0, 1.0, "nJ per 32-bit access")
            .doc("Energy of one 32-bit memory-operand buffer access (one write when the data returns, one read when the consumer executes)", "A: like a register-file cache entry, 0.1 × main RF (SCHEMES.md §5)")
            .assumed(),
    );
    p
}

/// What `demo` models.
pub const NOTES: &[ModelNote] = &[
    ModelNote::modelled("Algorithm 1 and 2 (analysis/single_use_loads.rs, analysis/demo_rewrite.rs): a load whose value is read exactly once is removed and its consumer reads a direct memory operand (text form %g[..], %s[..], %c[..], %l[..], %p[..])."),
    ModelNote::assumption("Detection: scalar 32-bit loads without .volatile or other memory-model semantics; the consumer in the same basic block, an arithmetic instruction holding at most one memory operand; no store, atomic, fence, barrier or call between; address register and guard unchanged in between."),
    ModelNote::assumption("Load spaces: spaces = global by default (the brief's choice); all adds .shared/.local/.const/.param, as the paper adds a direct form of every load."),
    ModelNote::modelled("Timing: the consumer issues where it stood and waits for the LD/ST unit like a load; its register sources (the address included) are read from the banks; its request is coalesced and timed through L1/L2/DRAM like the load's."),
    ModelNote::assumption("The loaded value goes into a memory-operand buffer of the issuing scheduler (mob_entries, default 16): one entry per consumer from issue until its result is written back; full → issue stall charged to scheme_buffer_full."),
    ModelNote::assumption("The consumer executes its ALU latency after the data is back, without occupying an ALU pipe (it is in the LD/ST unit's shadow)."),
    ModelNote::modelled("With issue=consumer the request leaves only when the consumer issues, after its other register sources are in: a consumer that also reads another loaded value no longer overlaps the two loads (Fig. 4: 60 → 98 cycles on hopper-h100; docs/fidelity/demo.md)."),
    ModelNote::assumption("issue=load (the paper's SASS): the program is the original; a folded load issues in its place as a direct load whose data goes into the buffer (entry taken at its issue, full → issue stall) and its consumer reads it there (entry freed at the consumer's issue); a load is folded only once the warp's previous folded value in the block has been consumed (one in flight per warp, so the in-order issue cannot deadlock on a full buffer); registers per thread stay the original's."),
    ModelNote::modelled("No bank write of the loaded value and no bank read of it; MOB accesses (one write, one read per direct operand) cost mob_nj."),
    ModelNote::modelled("Registers per thread and occupancy: the allocator on the rewritten kernel."),
    ModelNote::not_modelled("The new instruction encoding and the decoder; the paper's RBA bank-conflict measures."),
];

/// What `demo-ideal` models.
pub const IDEAL_NOTES: &[ModelNote] = &[
    ModelNote::modelled("The paper's Fig. 3 Ideal: the original kernel and timing, with every single-use memory value (all spaces Algorithm 1 allows) bypassing the register file: no bank write for the load, no bank read for its consumer, no extra latency."),
    ModelNote::assumption("Registers per thread stay the original kernel's (the limit measures register-file traffic and contention only)."),
    ModelNote::modelled("Counters single_use_reads and single_use_writes: the accesses the single-use memory values make under the baseline (the same run without the bypass has exactly these more); their share of the baseline's RF accesses is (reads + writes) / (main_rf + reads + writes). The bank conflicts those accesses are involved in (the paper's Fig. 2) are counted per access on the baseline run (TimingOptions::single_use_attribution, `reglab run --single-use`: regfile/demo_marks.rs); the conflicts this bypass removes, the baseline's minus this run's, are a different quantity."),
];

/// The baseline register file plus a memory-operand buffer per scheduler.
#[derive(Clone, Debug)]
pub struct DemoRegisterFile {
    inner: BankedRegisterFile,
    /// Per scheduler: the entries held, as (warp slot, sid of the consumer) with `issue=consumer`
    /// or (warp slot, buffer id of the value) with `issue=load`.
    mob: Vec<Vec<(u32, u32)>>,
    held: usize,
    entries: usize,
    /// `issue=load`: direct loads fill the buffer, consumers read it.
    split: bool,
    mob_nj: f64,
    direct: u64,
    mob_reads: u64,
    mob_writes: u64,
    full: u64,
}

impl DemoRegisterFile {
    /// The register file of one SM configured by `config`.
    pub fn new(ctx: &SchemeContext<'_>, config: &SchemeConfig) -> Result<Self, SchemeConfigError> {
        let r = ConfigReader::new("demo", config);
        let entries = r.u32("mob_entries")? as usize;
        let mob_nj = EnergyModel::per_warp_register(r.f64("mob_nj")?, ctx.geometry.warp_size);
        let inner = BankedRegisterFile::new(ctx, &BankedConfig::from_config("demo", config)?);
        let split = r.choice("issue")? == "load";
        let mob = vec![Vec::new(); ctx.geometry.schedulers.max(1) as usize];
        Ok(DemoRegisterFile {
            inner,
            mob,
            held: 0,
            entries,
            split,
            mob_nj,
            direct: 0,
            mob_reads: 0,
            mob_writes: 0,
            full: 0,
        })
    }

    /// `issue=load`: a direct load (it writes a buffer id) takes entries, a consumer (it reads
    /// one) frees them; the banks see neither.
    fn issue_split(&mut self, req: &OperandRequest<'_>, now: u64) -> IssueOutcome {
        let (tr, tw) = (req.reads.iter().any(|&u| is_mob(u)), req.writes.iter().any(|&u| is_mob(u)));
        if !tr && !tw {
            return self.inner.try_issue(req, now);
        }
        let s = req.scheduler as usize;
        let need = req.writes.iter().filter(|&&u| is_mob(u)).count();
        if tw && self.mob.get(s).map_or(0, Vec::len) + need > self.entries {
            self.full += 1;
            return IssueOutcome::Stall;
        }
        let reads: Vec<u32> = req.reads.iter().copied().filter(|&u| !is_mob(u)).collect();
        let writes: Vec<u32> = req.writes.iter().copied().filter(|&u| !is_mob(u)).collect();
        let out = self.inner.try_issue(&OperandRequest { reads: &reads, writes: &writes, ..*req }, now);
        let (IssueOutcome::Collecting(_), Some(q)) = (out, self.mob.get_mut(s)) else { return out };
        for &u in req.reads.iter().filter(|&&u| is_mob(u)) {
            if let Some(i) = q.iter().position(|&e| e == (req.warp, u)) {
                q.swap_remove(i);
                self.held -= 1;
                self.mob_reads += 1;
            }
        }
        for &u in req.writes.iter().filter(|&&u| is_mob(u)) {
            q.push((req.warp, u));
            self.held += 1;
            self.direct += 1;
        }
        out
    }

    fn counter(name: &str, value: u64, unit: &str) -> SchemeCounter {
        SchemeCounter { name: String::from(name), value, unit: String::from(unit) }
    }
}

impl RegisterFileScheme for DemoRegisterFile {
    fn name(&self) -> &'static str {
        "demo"
    }

    fn collector_free(&self, group: u32) -> bool {
        self.inner.collector_free(group)
    }

    fn try_issue(&mut self, req: &OperandRequest<'_>, now: u64) -> IssueOutcome {
        if self.split {
            return self.issue_split(req, now);
        }
        if req.mem != MemOp::Operand {
            return self.inner.try_issue(req, now);
        }
        let Some(q) = self.mob.get(req.scheduler as usize) else { return self.inner.try_issue(req, now) };
        if q.len() >= self.entries {
            self.full += 1;
            return IssueOutcome::Stall;
        }
        let out = self.inner.try_issue(req, now);
        if let (IssueOutcome::Collecting(_), Some(q)) = (out, self.mob.get_mut(req.scheduler as usize)) {
            q.push((req.warp, req.sid));
            self.held += 1;
            self.direct += 1;
            self.mob_reads += 1;
            self.mob_writes += 1;
        }
        out
    }

    fn cycle(&mut self, now: u64, collected: &mut Vec<CuId>) {
        self.inner.cycle(now, collected);
    }

    fn release(&mut self, cu: CuId) {
        self.inner.release(cu);
    }

    fn try_write(&mut self, req: &WriteRequest<'_>, now: u64) -> bool {
        if self.split && req.units.iter().any(|&u| is_mob(u)) {
            let units: Vec<u32> = req.units.iter().copied().filter(|&u| !is_mob(u)).collect();
            if !units.is_empty() && !self.inner.try_write(&WriteRequest { units: &units, ..*req }, now) {
                return false;
            }
            self.mob_writes += 1;
            return true;
        }
        if !self.inner.try_write(req, now) {
            return false;
        }
        if self.held > 0 && !self.split {
            for q in &mut self.mob {
                if let Some(i) = q.iter().position(|&e| e == (req.warp, req.sid)) {
                    q.swap_remove(i);
                    self.held -= 1;
                    break;
                }
            }
        }
        true
    }

    fn busy(&self) -> bool {
        self.inner.busy()
    }

    fn issue_stall_cause(&self) -> StallCause {
        StallCause::SchemeBufferFull
    }

    fn stats(&self) -> SchemeStats {
        let mut s = self.inner.stats();
        s.structures.push(StructureStats {
            name: String::from("mob"),
            reads: self.mob_reads,
            writes: self.mob_writes,
            nj_per_access: self.mob_nj,
        });
        s.counters.push(DemoRegisterFile::counter("direct_operands", self.direct, "warp instructions"));
        s.counters.push(DemoRegisterFile::counter("mob_full_stalls", self.full, "issue attempts"));
        s
    }
}

/// `demo-ideal`: the baseline banks; the single-use values sit under buffer ids
/// ([`super::demo_program::ideal_assign`]): their accesses are counted
/// (`single_use_reads`, `single_use_writes`: exactly the baseline's accesses of single-use memory
/// values) and never reach the banks.
#[derive(Clone, Debug)]
pub struct IdealRegisterFile {
    inner: BankedRegisterFile,
    reads: u64,
    writes: u64,
}

impl IdealRegisterFile {
    /// The register file of one SM configured by `config`.
    pub fn new(ctx: &SchemeContext<'_>, config: &SchemeConfig) -> Result<Self, SchemeConfigError> {
        let inner = BankedRegisterFile::new(ctx, &BankedConfig::from_config("demo-ideal", config)?);
        Ok(IdealRegisterFile { inner, reads: 0, writes: 0 })
    }
}

impl RegisterFileScheme for IdealRegisterFile {
    fn name(&self) -> &'static str {
        "demo-ideal"
    }

    fn collector_free(&self, group: u32) -> bool {
        self.inner.collector_free(group)
    }

    fn try_issue(&mut self, req: &OperandRequest<'_>, now: u64) -> IssueOutcome {
        let bypassed = req.reads.iter().filter(|&&u| is_mob(u)).count() as u64;
        if bypassed == 0 {
            return self.inner.try_issue(req, now);
        }
        let reads: Vec<u32> = req.reads.iter().copied().filter(|&u| !is_mob(u)).collect();
        let out = self.inner.try_issue(&OperandRequest { reads: &reads, ..*req }, now);
        if let IssueOutcome::Collecting(_) = out {
            self.reads += bypassed;
        }
        out
    }

    fn cycle(&mut self, now: u64, collected: &mut Vec<CuId>) {
        self.inner.cycle(now, collected);
    }

    fn release(&mut self, cu: CuId) {
        self.inner.release(cu);
    }

    fn try_write(&mut self, req: &WriteRequest<'_>, now: u64) -> bool {
        let bypassed = req.units.iter().filter(|&&u| is_mob(u)).count() as u64;
        if bypassed == 0 {
            return self.inner.try_write(req, now);
        }
        let units: Vec<u32> = req.units.iter().copied().filter(|&u| !is_mob(u)).collect();
        if !units.is_empty() && !self.inner.try_write(&WriteRequest { units: &units, ..*req }, now) {
            return false;
        }
        self.writes += bypassed;
        true
    }

    fn busy(&self) -> bool {
        self.inner.busy()
    }

    fn stats(&self) -> SchemeStats {
        let mut s = self.inner.stats();
        s.counters.push(DemoRegisterFile::counter("single_use_reads", self.reads, "warp-register reads"));
        s.counters.push(DemoRegisterFile::counter("single_use_writes", self.writes, "warp-register writes"));
        s
    }
}
