//! The `rfc-ob` scheme: a banked main register file read through an operand buffer per
//! scheduler ([`super::operand_buffer`]), with a register-file cache per scheduler
//! ([`super::rf_cache`]) holding ALU results (Wyse §2.3.3 and §5; Gebhart et al. ISCA'11).
//! Parameters and model notes: [`super::rfc_ob_config`].
//!
//! ```text
//! issue    → OB entry: sources held by the RFC marked "forward", the others queue bank reads
//! cycle    → write-backs of evicted entries take banks · reads granted oldest first
//!          → OB head with all operands: RFC entries allocated (else it waits), sources forwarded
//! write    → ALU result into its pinned RFC entry · load result into the main RF
//! ```
//!
//! Reads saved (Wyse Fig. 5) = `rfc_hits / (rfc_hits + rfc_misses)`: source operands the OB
//! needed that the RFC served.

use alloc::collections::VecDeque;
use alloc::string::String;
use alloc::vec;
use alloc::vec::Vec;

use super::config::SchemeConfigError;
use super::last_use::LastUse;
use super::operand_buffer::{OperandBuffers, Source};
use super::rf_cache::{Evicted, RegKey, RfCache};
use super::rfc_ob_config::RfcObConfig;
use super::{
    CuId, EnergyModel, IssueOutcome, OperandRequest, RegisterFileScheme, SchemeContext, SchemeCounter, SchemeStats,
    SmGeometry, StructureStats, WriteRequest,
};
use crate::gpu::SchedulingPolicy;
use crate::ir::Module;
use crate::timing::exec_units::UnitKind;
use crate::timing::program::{MemOp, Program};
use crate::timing::report::StallCause;
use crate::timing::sm::hooks::{HookSet, ResidencyEvent, SmActions};

/// Counts of the scheme's own.
#[derive(Clone, Copy, Debug, Default)]
struct Counts {
    hits: u64,
    misses: u64,
    evictions: u64,
    writebacks: u64,
    alloc_stalls: u64,
    ob_full: u64,
    dead_drops: u64,
    flushed: u64,
    rfc_reads: u64,
    rfc_writes: u64,
}

/// The RFC + OB register file of one SM.
#[derive(Clone, Debug)]
pub struct RfcObRegisterFile {
    config: RfcObConfig,
    geo: SmGeometry,
    ob: OperandBuffers,
    rfc: Vec<RfCache>,
    /// Evicted dirty entries waiting for a bank write: (warp, unit).
    writebacks: VecDeque<RegKey>,
    last_use: LastUse,
    /// Per scheduler: its OB head waits for RFC entries.
    head_blocked: Vec<bool>,
    stall_cause: StallCause,
    counts: Counts,
    main_nj: f64,
    rfc_nj: f64,
    evicted: Vec<Evicted>,
    /// Issue order of OB entries.
    seq: u64,
    /// The dispatching head's destination keys and sources (kept for their buffers).
    head_keys: Vec<RegKey>,
    head_sources: Vec<(u32, Source)>,
}

impl RfcObRegisterFile {
    /// The register file of one SM configured by `config`.
    pub fn new(ctx: &SchemeContext<'_>, config: &super::SchemeConfig) -> Result<Self, SchemeConfigError> {
        let c = RfcObConfig::from_config(config)?;
        let geo = ctx.geometry;
        let scheds = geo.schedulers.max(1);
        Ok(RfcObRegisterFile {
            ob: OperandBuffers::new(c.ob_entries, scheds, c.banks, geo.groups, c.bank_mapping, !c.bank_conflicts),
            rfc: (0..scheds).map(|_| RfCache::new(c.rfc_entries)).collect(),
            writebacks: VecDeque::new(),
            last_use: LastUse::default(),
            head_blocked: vec![false; scheds as usize],
            stall_cause: StallCause::SchemeBufferFull,
            counts: Counts::default(),
            main_nj: EnergyModel::per_warp_register(c.main_rf_nj, geo.warp_size),
            rfc_nj: EnergyModel::per_warp_register(c.rfc_nj, geo.warp_size),
            evicted: Vec::new(),
            seq: 0,
            head_keys: Vec::new(),
            head_sources: Vec::new(),
            geo,
            config: c,
        })
    }

    fn sched_of(&self, warp: u32) -> u32 {
        warp % self.geo.schedulers.max(1)
    }

    fn group_of(&self, warp: u32) -> u32 {
        let groups = self.geo.groups.max(1);
        let per_group = (self.geo.schedulers / groups).max(1);
        (self.sched_of(warp) / per_group).min(groups - 1)
    }

    /// Entries that left scheduler `s`'s RFC: forwarded to waiting OB entries, dirty ones queued
    /// for write-back (`write_back` false: dropped, the values are dead).
    fn retire_evicted(&mut self, s: u32, write_back: bool) {
        let evicted = core::mem::take(&mut self.evicted);
        for e in &evicted {
            let served = self.ob.forward(s, e.key.0, e.key.1);
            self.counts.hits += served;
            self.counts.rfc_reads += u64::from(served > 0);
            if e.dirty && write_back {
                self.writebacks.push_back(e.key);
            }
        }
        self.evicted = evicted;
        self.evicted.clear();
    }

    /// Evicted dirty entries take free banks at `now`, oldest first (after this cycle's results).
    fn drain_writebacks(&mut self, now: u64) {
        // Each queued write-back once, in order; those refused go back in the same order.
        for _ in 0..self.writebacks.len() {
            let Some((warp, unit)) = self.writebacks.pop_front() else { break };
            let group = self.group_of(warp);
            if self.ob.try_write(&[unit], warp, group, now) {
                self.counts.writebacks += 1;
                self.counts.rfc_reads += 1;
            } else {
                self.writebacks.push_back((warp, unit));
            }
        }
    }

    /// Dispatches the head of scheduler `s`'s OB if its operands are in and it gets its RFC
    /// entries: `Some(cu)` when it left.
    fn dispatch_head(&mut self, s: u32) -> Option<CuId> {
        let cu = *self.ob.fifo.get(s as usize)?.front()?;
        let e = self.ob.slots.get(cu as usize)?.as_ref()?;
        if e.waiting() {
            return None;
        }
        let (warp, sid) = (e.warp, e.sid);
        let (mut keys, mut sources) = (core::mem::take(&mut self.head_keys), core::mem::take(&mut self.head_sources));
        keys.clear();
        keys.extend(e.writes.iter().map(|&u| (warp, u)));
        sources.clear();
        sources.extend_from_slice(&e.sources);
        let out = self.dispatch_with(s, (warp, sid, e.alu), &keys, &sources);
        (self.head_keys, self.head_sources) = (keys, sources);
        out
    }

    /// [`Self::dispatch_head`] for the head entry of `warp`'s instruction `sid` (`alu`), whose
    /// destination keys and sources are `keys` and `sources`.
    fn dispatch_with(
        &mut self,
        s: u32,
        (warp, sid, alu): (u32, u32, bool),
        keys: &[RegKey],
        sources: &[(u32, Source)],
    ) -> Option<CuId> {
        let cu = *self.ob.fifo.get(s as usize)?.front()?;
        let cap = self.rfc.get(s as usize).map_or(0, RfCache::capacity);
        let allocate = alu && !keys.is_empty() && keys.len() <= cap;
        let rfc = self.rfc.get_mut(s as usize)?;
        if allocate && !rfc.can_allocate(keys) {
            self.counts.alloc_stalls += 1;
            if let Some(b) = self.head_blocked.get_mut(s as usize) {
                *b = true;
            }
            return None;
        }
        // It leaves the OB now: an eviction below must not forward to it.
        self.ob.fifo.get_mut(s as usize)?.pop_front();
        let rfc = self.rfc.get_mut(s as usize)?;
        for (k, &(unit, src)) in sources.iter().enumerate() {
            if src == Source::Rfc {
                rfc.touch((warp, unit));
                self.counts.hits += 1;
                self.counts.rfc_reads += 1;
            }
            if self.config.last_use_bit && self.last_use.is_last(sid, k) && rfc.remove((warp, unit)).is_some() {
                self.counts.dead_drops += 1;
            }
        }
        if allocate {
            rfc.allocate(keys, &mut self.evicted);
            self.counts.evictions += self.evicted.len() as u64;
            self.retire_evicted(s, true);
        }
        if let Some(b) = self.head_blocked.get_mut(s as usize) {
            *b = false;
        }
        Some(cu)
    }

    /// Scheduler `s`'s OB is full: an issue attempt refused, charged to the head's wait for RFC
    /// entries if it waits, else to the full buffer.
    fn refuse_full(&mut self, s: u32) {
        self.counts.ob_full += 1;
        let blocked = self.head_blocked.get(s as usize).copied().unwrap_or(false);
        self.stall_cause = if blocked { StallCause::SchemeSpecific } else { StallCause::SchemeBufferFull };
    }

    fn flush_warp(&mut self, warp: u32, write_back: bool) {
        let s = self.sched_of(warp);
        if let Some(rfc) = self.rfc.get_mut(s as usize) {
            rfc.remove_warp(warp, &mut self.evicted);
        }
        if write_back {
            self.counts.flushed += self.evicted.len() as u64;
        }
        self.retire_evicted(s, write_back);
    }
}

impl RegisterFileScheme for RfcObRegisterFile {
    fn name(&self) -> &'static str {
        "rfc-ob"
    }

    fn try_issue(&mut self, req: &OperandRequest<'_>, _now: u64) -> IssueOutcome {
        let s = req.scheduler;
        self.seq += 1;
        let Some(cu) = self.ob.free_slot(s) else {
            self.refuse_full(s);
            return IssueOutcome::Stall;
        };
        let rfc = self.rfc.get(s as usize);
        let mut entry = self.ob.spare_entry();
        for &r in req.reads {
            if rfc.is_some_and(|c| c.holds((req.warp, r))) {
                entry.sources.push((r, Source::Rfc));
            } else {
                self.counts.misses += 1;
                entry.sources.push((r, Source::Bank(self.ob.bank(r, req.warp, req.group))));
            }
        }
        entry.writes.extend_from_slice(req.writes);
        let alu = req.unit != UnitKind::LdSt && req.mem == MemOp::None;
        (entry.seq, entry.warp, entry.sid, entry.alu) = (self.seq, req.warp, req.sid, alu);
        self.ob.push(s, cu, entry);
        IssueOutcome::Collecting(cu)
    }

    fn cycle(&mut self, now: u64, collected: &mut Vec<CuId>) {
        self.drain_writebacks(now);
        self.ob.arbitrate(now);
        for s in 0..self.geo.schedulers.max(1) {
            while let Some(cu) = self.dispatch_head(s) {
                collected.push(cu);
            }
        }
    }

    fn release(&mut self, cu: CuId) {
        self.ob.release(cu);
    }

    fn try_write(&mut self, req: &WriteRequest<'_>, now: u64) -> bool {
        let s = self.sched_of(req.warp);
        let into_rfc = !req.from_memory
            && !req.units.is_empty()
            && self
                .rfc
                .get(s as usize)
                .is_some_and(|c| req.units.iter().all(|&u| c.pinned((req.warp, u)) || c.holds((req.warp, u))));
        if into_rfc {
            if let Some(c) = self.rfc.get_mut(s as usize) {
                for &u in req.units {
                    c.fill((req.warp, u));
                }
            }
            self.counts.rfc_writes += req.units.len() as u64;
            return true;
        }
        if !self.ob.try_write(req.units, req.warp, req.group, now) {
            return false;
        }
        if let Some(c) = self.rfc.get_mut(s as usize) {
            for &u in req.units {
                // The main register file now has the newer value: a stale copy goes (an entry
                // pinned for another result of this register too: that result will go to the
                // main register file).
                c.discard((req.warp, u));
            }
        }
        true
    }

    fn busy(&self) -> bool {
        self.ob.busy() || !self.writebacks.is_empty()
    }

    fn stats(&self) -> SchemeStats {
        let c = &self.counts;
        let counter = |name: &str, value: u64, unit: &str| SchemeCounter {
            name: String::from(name),
            value,
            unit: String::from(unit),
        };
        let mut counters = vec![
            counter("rfc_hits", c.hits, "source operands"),
            counter("rfc_misses", c.misses, "source operands"),
            counter("rfc_evictions", c.evictions, "entries"),
            counter("rfc_writebacks", c.writebacks, "warp registers"),
            counter("ob_reads", c.hits + c.misses, "source operands"),
            counter("rfc_alloc_stalls", c.alloc_stalls, "scheduler cycles"),
            counter("ob_full", c.ob_full, "issue attempts"),
        ];
        if self.config.last_use_bit {
            counters.push(counter("rfc_dead_drops", c.dead_drops, "entries"));
        }
        if self.config.two_level {
            counters.push(counter("rfc_flushed", c.flushed, "entries"));
        }
        SchemeStats {
            structures: vec![
                StructureStats {
                    name: String::from("main_rf"),
                    reads: self.ob.reads,
                    writes: self.ob.writes,
                    nj_per_access: self.main_nj,
                },
                StructureStats {
                    name: String::from("rfc"),
                    reads: c.rfc_reads,
                    writes: c.rfc_writes,
                    nj_per_access: self.rfc_nj,
                },
            ],
            bank_conflicts_read_read: self.ob.read_read,
            bank_conflicts_read_write: self.ob.read_write,
            bank_conflicts_write_write: self.ob.write_write,
            collector_full: 0,
            counters,
        }
    }

    fn hooks(&self) -> HookSet {
        if self.config.two_level {
            HookSet::RESIDENCY | HookSet::ACTIVE_SET
        } else {
            HookSet::RESIDENCY
        }
    }

    fn on_residency(&mut self, event: &ResidencyEvent, _now: u64, _out: &mut SmActions) {
        match *event {
            ResidencyEvent::WarpFinished { warp, .. } => self.flush_warp(warp, false),
            ResidencyEvent::ActiveSetLeave { warp } if self.config.two_level => self.flush_warp(warp, true),
            _ => {}
        }
    }

    fn issue_stall_cause(&self) -> StallCause {
        self.stall_cause
    }

    /// A full OB refuses every instruction of its scheduler (`try_issue`'s first check, with
    /// the same count and cause).
    fn refuse_again(&mut self, _warp: u32, scheduler: u32, _sid: u32, _now: u64) -> Option<StallCause> {
        if self.ob.free_slot(scheduler).is_some() {
            return None;
        }
        self.seq += 1;
        self.refuse_full(scheduler);
        Some(self.stall_cause)
    }

    fn scheduler_policy(&self, preset: SchedulingPolicy) -> SchedulingPolicy {
        if self.config.two_level {
            SchedulingPolicy::TwoLevel { active_warps: self.config.active_warps }
        } else {
            preset
        }
    }

    fn prepare(&mut self, module: &Module, program: &Program) {
        if self.config.last_use_bit {
            self.last_use = LastUse::compute(module, program);
        }
    }
}
