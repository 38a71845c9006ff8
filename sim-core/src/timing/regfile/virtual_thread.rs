//! FineReg's comparators (SCHEMES.md §4): Virtual Thread admits CTAs until registers or shared
//! memory are full, ignoring the CTA/warp slot limits; only as many as the slots allow are active,
//! and a fully stalled active CTA swaps with a ready inactive one, saving only its control state
//! (`swap_cycles`). Reg+DRAM (Zorua-like) adds `offchip_ctas` CTAs whose whole register context
//! lives in memory: bringing one in moves a stalled CTA's context out (a write) and its own in
//! (a read, when it ran before) through the L1/L2/DRAM.
//!
//! ```text
//! VT: CTA 0 all stalled, CTA 2 ready inactive → Swap { park: 0, activate: 2, 20 cycles }
//! Reg+DRAM, only off-chip CTA 3 ready (ran before) → park 0; write 0's context (R × 4 bytes),
//!   read 3's; when the read is back → Activate { 3, 20 cycles }
//! ```

use alloc::collections::{BTreeMap, BTreeSet};
use alloc::string::String;
use alloc::vec::Vec;

use super::baseline::{BankedConfig, BankedRegisterFile};
use super::config::SchemeConfigError;
use super::cta_pool::CtaPool;
use super::params::{ConfigReader, ModelNote, ParamSpec, SchemeConfig};
use super::{
    CtaFootprint, CuId, EnergyModel, IssueOutcome, OperandRequest, RegisterFileScheme, SchemeContext, SchemeCounter,
    SchemeStats, WriteRequest,
};
use crate::gpu::{GpuConfig, ResidencyLimits};
use crate::occupancy::{self, OccupancyInput};
use crate::timing::sm::hooks::{HookSet, MoveCost, ResidencyAction, ResidencyEvent, SchemeMemRequest, SmActions};
use crate::timing::stream::trace::MemSpace;

/// Resident warps per SM at most (**A**: FineReg's 512, for all three designs).
const MAX_WARPS: u32 = 512;
/// Bytes per context request (32 segments of 128 bytes).
const CHUNK: u32 = 4096;
/// Each CTA slot's context region in the scheme's local memory.
const REGION: u64 = 1 << 24;
/// Request ids of writes (their completion is not waited for).
const WRITE: u64 = 1 << 63;

/// Virtual Thread's schema: the baseline's plus `swap_cycles`.
pub fn params(gpu: &GpuConfig, energy: &EnergyModel) -> Vec<ParamSpec> {
    let mut p = BankedConfig::params(gpu, energy);
    p.push(
        ParamSpec::int("swap_cycles", 20, 0, 100_000, "cycles")
            .doc(
                "Cycles to save one CTA's control state and restore another's",
                "Virtual Thread (Oh et al. [45]); SCHEMES.md §4",
            )
            .assumed(),
    );
    p
}

/// Reg+DRAM's schema: Virtual Thread's plus `offchip_ctas`.
pub fn params_dram(gpu: &GpuConfig, energy: &EnergyModel) -> Vec<ParamSpec> {
    let mut p = params(gpu, energy);
    p.push(
        ParamSpec::int("offchip_ctas", 8, 0, 1024, "CTAs")
            .doc(
                "CTAs per SM beyond Virtual Thread's whose register context lives in memory",
                "Zorua-like (Oh et al.); SCHEMES.md §4",
            )
            .assumed(),
    );
    p
}

/// What Virtual Thread models.
pub const NOTES: &[ModelNote] = &[
    ModelNote::modelled("Resident CTAs: the occupancy calculator's count with the CTA and thread (warp) slot limits lifted (registers and shared memory bind), at most 512 warps; active CTAs: the preset's slot limit."),
    ModelNote::modelled("A fully stalled active CTA swaps with the ready inactive CTA parked first (never-run CTAs after parked ones); a finished CTA's slot takes the next ready inactive CTA."),
    ModelNote::assumption("A swap saves and restores control state only: swap_cycles (20) before the incoming CTA issues; starting a never-run CTA in a finished CTA's slot costs nothing."),
    ModelNote::not_modelled("GCN presets: the slot limits are not lifted."),
];

/// What Reg+DRAM models.
pub const NOTES_DRAM: &[ModelNote] = &[
    ModelNote::modelled("Virtual Thread, plus offchip_ctas CTAs per SM whose whole register context lives in memory; on-chip contexts: the register file's capacity in CTAs (registers per SM / registers per CTA)."),
    ModelNote::modelled("Bringing in an off-chip CTA: the stalled CTA's context (registers × 4 bytes) is written out and the incoming one's read in (if it ran before) through L1/L2/DRAM in 4 KB requests (scheme_bytes); it issues swap_cycles after its last read is back. Each warp-register moved is a main_rf read or write."),
    ModelNote::assumption("On-chip CTAs (ready and parked) are preferred to off-chip ones; context writes are posted (the incoming CTA does not wait for them); contexts live in a region of local memory of the scheme's own."),
    ModelNote::assumption("offchip_ctas default 8; off-chip CTAs keep their shared memory on chip (the resident bound stays within shared memory)."),
];

/// Virtual Thread or Reg+DRAM on one SM.
#[derive(Clone, Debug)]
pub struct VirtualThread {
    inner: BankedRegisterFile,
    name: &'static str,
    swap_cycles: u32,
    offchip_ctas: u32,
    limits: ResidencyLimits,
    registers_per_sm: u64,
    warp_size: u32,
    pool: CtaPool,
    /// CTAs whose context is off-chip (Reg+DRAM).
    offchip: BTreeSet<u32>,
    /// CTAs being read in: outstanding reads.
    incoming: BTreeMap<u32, u32>,
    counts: Counts,
}

/// Counts of one SM.
#[derive(Clone, Copy, Debug, Default)]
struct Counts {
    switches: u64,
    context_moves: u64,
    bytes_out: u64,
    bytes_in: u64,
    rf_reads: u64,
    rf_writes: u64,
}

impl VirtualThread {
    /// Virtual Thread (`offchip` false) or Reg+DRAM configured by `config`.
    pub fn new(ctx: &SchemeContext<'_>, config: &SchemeConfig, offchip: bool) -> Result<Self, SchemeConfigError> {
        let name = if offchip { "reg-dram" } else { "virtual-thread" };
        let r = ConfigReader::new(name, config);
        let registers_per_sm = match &ctx.gpu.limits {
            ResidencyLimits::Nvidia(sm) => u64::from(sm.registers_per_sm),
            ResidencyLimits::Gcn3(cu) => u64::from(cu.vgprs_per_simd) * u64::from(cu.simds_per_cu),
        };
        Ok(VirtualThread {
            inner: BankedRegisterFile::new(ctx, &BankedConfig::from_config(name, config)?),
            name,
            swap_cycles: r.u32("swap_cycles")?,
            offchip_ctas: if offchip { r.u32("offchip_ctas")? } else { 0 },
            limits: ctx.gpu.limits.clone(),
            registers_per_sm,
            warp_size: ctx.geometry.warp_size,
            pool: CtaPool::default(),
            offchip: BTreeSet::new(),
            incoming: BTreeMap::new(),
            counts: Counts::default(),
        })
    }

    /// On-chip contexts this SM holds for CTAs of `registers` registers.
    fn onchip_capacity(&self, registers: u32) -> usize {
        (self.registers_per_sm / u64::from(registers.max(1))) as usize
    }

    fn cost(&self) -> MoveCost {
        MoveCost { cycles: self.swap_cycles, rf_reads: 0, rf_writes: 0 }
    }

    /// Stalled active CTA `a` gives its slot to a ready inactive CTA, if any.
    fn stalled(&mut self, a: u32, out: &mut SmActions) {
        if !self.pool.ctas.get(&a).is_some_and(|c| c.active) {
            return;
        }
        let onchip = self.pool.oldest_ready(|k, _| !self.offchip.contains(&k));
        if let Some(b) = onchip {
            self.counts.switches += 1;
            self.pool.park(a);
            self.pool.activate(b);
            out.residency.push(ResidencyAction::Swap { park: a, activate: b, cost: self.cost() });
            return;
        }
        let Some(b) = self.pool.oldest_ready(|k, _| self.offchip.contains(&k)) else { return };
        self.pool.park(a);
        out.residency.push(ResidencyAction::Park { cta: a, cost: MoveCost::default() });
        self.move_context(a, true, out);
        self.offchip.insert(a);
        self.bring_in(b, out);
    }

    /// Off-chip CTA `b` takes on-chip space: read its context if it ran, then activate it.
    fn bring_in(&mut self, b: u32, out: &mut SmActions) {
        self.offchip.remove(&b);
        let ran = self.pool.ctas.get(&b).is_some_and(|c| c.ran);
        self.pool.activate(b);
        if ran {
            let n = self.move_context(b, false, out);
            self.incoming.insert(b, n);
        } else {
            self.counts.switches += 1;
            out.residency.push(ResidencyAction::Activate { cta: b, cost: self.cost() });
        }
    }

    /// Writes (`out_of_chip`) or reads CTA `cta`'s context in 4 KB requests: how many.
    fn move_context(&mut self, cta: u32, out_of_chip: bool, out: &mut SmActions) -> u32 {
        let bytes = self.pool.ctas.get(&cta).map_or(0, |c| u64::from(c.registers) * 4);
        let warp_regs = bytes / (4 * u64::from(self.warp_size.max(1)));
        let c = &mut self.counts;
        c.context_moves += 1;
        if out_of_chip {
            c.bytes_out += bytes;
            c.rf_reads += warp_regs;
        } else {
            c.bytes_in += bytes;
            c.rf_writes += warp_regs;
        }
        let mut n = 0;
        let mut off = 0u64;
        while off < bytes {
            let len = (bytes - off).min(u64::from(CHUNK)) as u32;
            let id = (u64::from(cta) << 32) | u64::from(n) | if out_of_chip { WRITE } else { 0 };
            let addr = u64::from(cta) * REGION + off;
            out.memory.push(SchemeMemRequest { id, write: out_of_chip, space: MemSpace::Local, addr, bytes: len });
            off += u64::from(len);
            n += 1;
        }
        n
    }

    /// A CTA finished: its slot (and on-chip space) takes a ready inactive CTA, or stays free
    /// for the next CTA that becomes ready.
    fn refill(&mut self, out: &mut SmActions) {
        let onchip = self.pool.oldest_ready(|k, _| !self.offchip.contains(&k));
        match onchip.or_else(|| self.pool.oldest_ready(|k, _| self.offchip.contains(&k))) {
            Some(b) => self.resume(b, out),
            None => self.pool.free_slots += 1,
        }
    }

    /// Inactive CTA `b` takes a free slot.
    fn resume(&mut self, b: u32, out: &mut SmActions) {
        if self.offchip.contains(&b) {
            self.bring_in(b, out);
            return;
        }
        let ran = self.pool.ctas.get(&b).is_some_and(|c| c.ran);
        self.counts.switches += 1;
        self.pool.activate(b);
        let cost = if ran { self.cost() } else { MoveCost::default() };
        out.residency.push(ResidencyAction::Activate { cta: b, cost });
    }
}

impl RegisterFileScheme for VirtualThread {
    fn name(&self) -> &'static str {
        self.name
    }

    delegate_operands!();

    fn hooks(&self) -> HookSet {
        HookSet::RESIDENCY
    }

    fn max_resident_ctas_for(&self, fp: &CtaFootprint<'_>) -> u32 {
        let ResidencyLimits::Nvidia(mut sm) = self.limits.clone() else { return fp.slots_limit };
        sm.max_blocks_per_sm = 4096;
        sm.max_threads_per_sm = 1 << 20;
        let input = OccupancyInput::new(fp.threads, fp.registers_per_thread).with_static_shared_memory(fp.shared_bytes);
        let vt = occupancy::compute(&ResidencyLimits::Nvidia(sm.clone()), &input)
            .map_or(fp.slots_limit, |o| o.blocks_per_sm);
        let warps = MAX_WARPS / fp.warps.max(1);
        let smem = sm.shared_memory_per_sm.checked_div(fp.shared_bytes).unwrap_or(u64::MAX);
        let smem = u32::try_from(smem).unwrap_or(u32::MAX);
        vt.saturating_add(self.offchip_ctas).min(warps).min(smem)
    }

    fn max_resident_warps(&self, warp_slots: u32) -> u32 {
        MAX_WARPS.max(warp_slots)
    }

    fn on_residency(&mut self, event: &ResidencyEvent, _now: u64, out: &mut SmActions) {
        self.pool.follow(event);
        match *event {
            ResidencyEvent::CtaLaunched { cta, registers, active: false, .. } if self.offchip_ctas > 0 => {
                let onchip = self.pool.ctas.len().saturating_sub(self.offchip.len());
                if onchip > self.onchip_capacity(registers) {
                    self.offchip.insert(cta);
                }
            }
            ResidencyEvent::CtaAllStalled { cta } => self.stalled(cta, out),
            ResidencyEvent::ParkedCtaReady { cta }
                if self.pool.free_slots > 0 && self.pool.ctas.get(&cta).is_some_and(|c| !c.active) =>
            {
                self.pool.free_slots -= 1;
                self.resume(cta, out);
            }
            ResidencyEvent::CtaFinished { cta } => {
                self.offchip.remove(&cta);
                self.incoming.remove(&cta);
                self.refill(out);
            }
            _ => {}
        }
    }

    fn on_memory_done(&mut self, id: u64, _now: u64, out: &mut SmActions) {
        if id & WRITE != 0 {
            return;
        }
        let cta = (id >> 32) as u32;
        let Some(n) = self.incoming.get_mut(&cta) else { return };
        *n = n.saturating_sub(1);
        if *n == 0 {
            self.incoming.remove(&cta);
            self.counts.switches += 1;
            out.residency.push(ResidencyAction::Activate { cta, cost: self.cost() });
        }
    }

    fn stats(&self) -> SchemeStats {
        let mut s = self.inner.stats();
        let c = &self.counts;
        for st in s.structures.iter_mut().filter(|x| x.name == "main_rf") {
            st.reads += c.rf_reads;
            st.writes += c.rf_writes;
        }
        let counter = |name: &str, value: u64, unit: &str| SchemeCounter {
            name: String::from(name),
            value,
            unit: String::from(unit),
        };
        s.counters = alloc::vec![counter("cta_switches", c.switches, "switches")];
        if self.offchip_ctas > 0 {
            s.counters.push(counter("context_moves", c.context_moves, "contexts"));
            s.counters.push(counter("context_bytes_out", c.bytes_out, "bytes"));
            s.counters.push(counter("context_bytes_in", c.bytes_in, "bytes"));
        }
        s
    }
}
