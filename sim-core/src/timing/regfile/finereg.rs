//! FineReg (Oh et al., SCHEMES.md §4): the register file split into an active-CTA part (ACRF,
//! full allocations; it sets the occupancy calculator's register capacity, so it bounds the
//! active CTAs) and a pending-CTA part (PCRF, live registers only). When every warp of an
//! active CTA stalls on a long-latency result, its live registers (per-PC live vectors of its
//! warps, looked up in the live-vector cache; a miss reads memory first) move to the PCRF if they
//! fit, and a ready pending CTA (else a CTA that never ran) takes its ACRF space; if the PCRF is
//! full, the stalled CTA swaps with a ready pending one when the PCRF space after the swap
//! suffices, else it stays (a `pcrf_full_stalls`).
//!
//! ```text
//! CTA 0 all stalled, 2 warps live at sid 5 (3 live regs each) → 6 warp-registers; PCRF free
//! → Swap { park: 0, activate: 2 (never ran), cost: 4 + 6 = 10 cycles, 6 reads, 6 writes }
//! CTA 1 finishes → CTA 0 (ready, 6 in the PCRF) comes back: Activate { 0, 4 + 6 cycles }
//! ```
//!
//! CTAs beyond the active ones wait in the SM parked (launched but never run, holding no
//! registers) up to [`FineReg::max_resident_ctas_for`]'s bound.

use alloc::collections::{BTreeMap, BTreeSet};
use alloc::string::String;
use alloc::vec::Vec;

use super::baseline::{BankedConfig, BankedRegisterFile};
use super::config::SchemeConfigError;
use super::cta_pool::CtaPool;
use super::finereg_pcrf::FineRegConfig;
use super::live_vectors::{LiveTable, LiveVectorCache, LV_BASE, LV_BYTES};
use super::params::{ModelNote, SchemeConfig};
use super::{
    CtaFootprint, CuId, EnergyModel, IssueOutcome, OperandRequest, RegisterFileScheme, SchemeContext, SchemeCounter,
    SchemeStats, StructureStats, WriteRequest,
};
use crate::gpu::{GpuConfig, ResidencyLimits};
use crate::timing::program::{MemOp, Program};
use crate::timing::sm::hooks::{HookSet, MoveCost, ResidencyAction, ResidencyEvent, SchemeMemRequest, SmActions};
use crate::timing::stream::trace::MemSpace;

pub use super::finereg_pcrf::params;

/// What is modelled.
pub const NOTES: &[ModelNote] = &[
    ModelNote::modelled("ACRF/PCRF split: the occupancy calculator sees acrf_kb of registers (active CTAs, full allocation); pending CTAs keep only their live registers in the PCRF (pcrf_kb)."),
    ModelNote::modelled("When every warp of an active CTA waits on a load (or at a barrier, one at least on a load): move its live registers to the PCRF if they fit and activate a ready pending CTA (restoring its live registers), else a CTA that never ran; if they do not fit, swap with a ready pending CTA when the PCRF space after the swap suffices, else count a pcrf_full_stall."),
    ModelNote::modelled("Move cost: pcrf_latency cycles, then one warp-register per cycle (pipelined) or pcrf_latency per warp-register; each warp-register moved is an ACRF read and a PCRF write (or the reverse)."),
    ModelNote::assumption("In a swap the stalled CTA's registers go out while the pending CTA's come back (the paper's \"meanwhile\"): the longer chain sets the cycles; the incoming CTA issues after them."),
    ModelNote::modelled("Live-vector cache (direct-mapped by sid, live_vector_cache_entries): a miss reads 8 bytes through L1/L2/DRAM and the switch decision waits for it."),
    ModelNote::modelled("storage_bytes: status monitor (2 × 2 bits × max CTAs) + vector cache (12 B × entries) + PCRF pointer table (max CTAs × (pointer + 6) bits) + PCRF tags (entries × (pointer + 6 + 5) bits) + 2.4 KB switching logic."),
    ModelNote::assumption("A warp's live registers are the live-in units of the instruction it last stalled before (liveness of virtual units, capped at the allocation); a warp the scheme never saw stall (at a barrier) keeps its full allocation."),
    ModelNote::assumption("Ready pending CTAs are restored before CTAs that never ran; the oldest parked first. A CTA that finishes frees ACRF space for a ready pending CTA (or a never-run one)."),
    ModelNote::assumption("The switch decision is committed when the CTA stalls; after a live-vector miss it is taken when the vector is back, even if the CTA woke meanwhile."),
    ModelNote::assumption("Live vectors live at a reserved global address (8 bytes per sid); the PCRF costs main_rf_nj per access."),
    ModelNote::assumption("The number of CTAs waiting in the SM (parked, never run, holding no registers) is bounded by the slot limit plus the PCRF's capacity at the kernel's mean live registers at its global/local loads; the SM's resident-CTA count includes them — pcrf_peak_ctas counts the CTAs actually holding PCRF space."),
    ModelNote::not_modelled("GCN presets: the ACRF split is not applied to the VGPR limit."),
];

/// The FineReg register file of one SM.
#[derive(Clone, Debug)]
pub struct FineReg {
    inner: BankedRegisterFile,
    cfg: FineRegConfig,
    warp_size: u32,
    shared_per_sm: u64,
    nj: f64,
    pool: CtaPool,
    live: LiveTable,
    lv: LiveVectorCache,
    /// Per CTA in the PCRF: its warp-registers there.
    pcrf: BTreeMap<u32, u64>,
    pcrf_used: u64,
    /// Live-vector reads in flight (by sid) and the CTAs whose decision waits for them.
    lv_reads: BTreeSet<u32>,
    waiting: BTreeMap<u32, Vec<u32>>,
    counts: Counts,
}

/// FineReg's own counts.
#[derive(Clone, Copy, Debug, Default)]
struct Counts {
    switches: u64,
    pcrf_full_stalls: u64,
    full_swaps: u64,
    acrf_reads: u64,
    acrf_writes: u64,
    pcrf_reads: u64,
    pcrf_writes: u64,
    pcrf_peak: u64,
    pcrf_peak_ctas: u64,
}

impl FineReg {
    /// The register file of one SM configured by `config`.
    pub fn new(ctx: &SchemeContext<'_>, config: &SchemeConfig) -> Result<Self, SchemeConfigError> {
        let banked = BankedConfig::from_config("finereg", config)?;
        let cfg = FineRegConfig::from_config(config)?;
        let shared_per_sm = match &ctx.gpu.limits {
            ResidencyLimits::Nvidia(sm) => sm.shared_memory_per_sm,
            ResidencyLimits::Gcn3(cu) => cu.lds_per_cu,
        };
        Ok(FineReg {
            inner: BankedRegisterFile::new(ctx, &banked),
            nj: EnergyModel::per_warp_register(banked.main_rf_nj, ctx.geometry.warp_size),
            cfg,
            warp_size: ctx.geometry.warp_size,
            shared_per_sm,
            pool: CtaPool::default(),
            live: LiveTable::default(),
            lv: LiveVectorCache::new(cfg.live_vector_cache_entries),
            pcrf: BTreeMap::new(),
            pcrf_used: 0,
            lv_reads: BTreeSet::new(),
            waiting: BTreeMap::new(),
            counts: Counts::default(),
        })
    }

    /// Warp-registers CTA `cta` keeps live (see the notes).
    fn live_registers(&self, cta: u32) -> u64 {
        let Some(c) = self.pool.ctas.get(&cta) else { return 0 };
        let rpt = c.registers_per_thread(self.warp_size);
        let known: u64 = c.stall_sid.values().map(|&sid| u64::from(self.live.live(sid, rpt))).sum();
        let unknown = c.live_warps.saturating_sub(c.stall_sid.len() as u32);
        known + u64::from(unknown) * u64::from(rpt)
    }

    /// Every warp of active CTA `cta` is stalled.
    fn stalled(&mut self, cta: u32, out: &mut SmActions) {
        if !self.pool.ctas.get(&cta).is_some_and(|c| c.active) || self.waiting.contains_key(&cta) {
            return;
        }
        let sids: BTreeSet<u32> =
            self.pool.ctas.get(&cta).map(|c| c.stall_sid.values().copied().collect()).unwrap_or_default();
        let mut missing = Vec::new();
        for sid in sids {
            if !self.lv.lookup(sid) {
                missing.push(sid);
                if self.lv_reads.insert(sid) {
                    let addr = LV_BASE + u64::from(LV_BYTES) * u64::from(sid);
                    out.memory.push(SchemeMemRequest {
                        id: u64::from(sid),
                        write: false,
                        space: MemSpace::Global,
                        addr,
                        bytes: LV_BYTES,
                    });
                }
            }
        }
        if missing.is_empty() {
            self.decide(cta, out);
        } else {
            self.waiting.insert(cta, missing);
        }
    }

    /// Moves stalled CTA `a` out if the PCRF lets it (see the module docs).
    fn decide(&mut self, a: u32, out: &mut SmActions) {
        if !self.pool.ctas.get(&a).is_some_and(|c| c.active) {
            return;
        }
        let need = self.live_registers(a);
        let free = self.cfg.pcrf_entries().saturating_sub(self.pcrf_used);
        let pending = self.pool.oldest_ready(|k, _| self.pcrf.contains_key(&k));
        let fresh = self.pool.oldest_ready(|_, c| !c.ran);
        let pick = if free >= need {
            pending.or(fresh)
        } else {
            pending.filter(|b| free + self.pcrf.get(b).copied().unwrap_or(0) >= need)
        };
        match pick {
            Some(b) => {
                self.counts.full_swaps += u64::from(free < need);
                self.swap(a, need, b, out);
            }
            None if free < need && pending.or(fresh).is_some() => self.counts.pcrf_full_stalls += 1,
            None => {}
        }
    }

    /// `a` (with `need` live warp-registers) goes to the PCRF, `b` comes back from it (or starts).
    fn swap(&mut self, a: u32, need: u64, b: u32, out: &mut SmActions) {
        let back = self.pcrf.remove(&b).unwrap_or(0);
        self.pcrf_used = self.pcrf_used - back + need;
        self.pcrf.insert(a, need);
        let c = &mut self.counts;
        c.pcrf_peak = c.pcrf_peak.max(self.pcrf_used);
        c.pcrf_peak_ctas = c.pcrf_peak_ctas.max(self.pcrf.len() as u64);
        c.acrf_reads += need;
        c.pcrf_writes += need;
        c.pcrf_reads += back;
        c.acrf_writes += back;
        c.switches += 1;
        let n = need + back;
        // The two chains move at once ("meanwhile", the paper's §IV-E): the longer one sets the time.
        let cost = MoveCost { cycles: self.cfg.move_cycles(need.max(back)), rf_reads: n, rf_writes: n };
        self.pool.park(a);
        self.pool.activate(b);
        out.residency.push(ResidencyAction::Swap { park: a, activate: b, cost });
    }

    /// An active CTA finished: its ACRF space takes a ready pending CTA (else a never-run one),
    /// or stays free for the next CTA that becomes ready.
    fn refill(&mut self, out: &mut SmActions) {
        let pending = self.pool.oldest_ready(|k, _| self.pcrf.contains_key(&k));
        match pending.or_else(|| self.pool.oldest_ready(|_, c| !c.ran)) {
            Some(b) => self.restore(b, out),
            None => self.pool.free_slots += 1,
        }
    }

    /// Pending (or never-run) CTA `b` takes free ACRF space.
    fn restore(&mut self, b: u32, out: &mut SmActions) {
        let back = self.pcrf.remove(&b).unwrap_or(0);
        self.pcrf_used -= back;
        self.counts.pcrf_reads += back;
        self.counts.acrf_writes += back;
        self.counts.switches += 1;
        self.pool.activate(b);
        let cost = MoveCost { cycles: self.cfg.move_cycles(back), rf_reads: back, rf_writes: back };
        out.residency.push(ResidencyAction::Activate { cta: b, cost });
    }

    fn counter(name: &str, value: u64, unit: &str) -> SchemeCounter {
        SchemeCounter { name: String::from(name), value, unit: String::from(unit) }
    }
}

impl RegisterFileScheme for FineReg {
    fn name(&self) -> &'static str {
        "finereg"
    }

    delegate_operands!();

    fn residency_limits(&self, gpu: &GpuConfig) -> ResidencyLimits {
        match gpu.limits.clone() {
            ResidencyLimits::Nvidia(mut sm) => {
                sm.registers_per_sm = self.cfg.acrf_kb.saturating_mul(1024 / 4);
                ResidencyLimits::Nvidia(sm)
            }
            other => other,
        }
    }

    fn hooks(&self) -> HookSet {
        HookSet::RESIDENCY
    }

    fn max_resident_ctas_for(&self, fp: &CtaFootprint<'_>) -> u32 {
        let warps = fp.warps.max(1);
        let rpt = fp.registers_per_thread;
        let (lo, hi) = fp.sids;
        let loads: Vec<u32> = (lo..hi)
            .filter(|&s| {
                fp.program.insts.get(s as usize).is_some_and(|i| {
                    i.mem == MemOp::Load && matches!(i.space, Some(MemSpace::Global | MemSpace::Local))
                })
            })
            .map(|s| fp.program.live_in.get(s as usize).map_or(rpt, |&n| u32::from(n).min(rpt)))
            .collect();
        let mean = if loads.is_empty() { rpt } else { loads.iter().sum::<u32>().div_ceil(loads.len() as u32) };
        let per_cta = u64::from(warps) * u64::from(mean.max(1));
        let pcrf_ctas = u32::try_from(self.cfg.pcrf_entries() / per_cta).unwrap_or(u32::MAX);
        let smem = self.shared_per_sm.checked_div(fp.shared_bytes).unwrap_or(u64::MAX);
        let smem = u32::try_from(smem).unwrap_or(u32::MAX);
        fp.slots_limit
            .saturating_add(pcrf_ctas)
            .min(self.cfg.max_resident_ctas)
            .min(self.cfg.max_resident_warps / warps)
            .min(smem)
    }

    fn max_resident_warps(&self, warp_slots: u32) -> u32 {
        self.cfg.max_resident_warps.max(warp_slots)
    }

    fn bind_program(&mut self, program: &Program) {
        self.live = LiveTable::of(program);
    }

    fn on_residency(&mut self, event: &ResidencyEvent, _now: u64, out: &mut SmActions) {
        self.pool.follow(event);
        match *event {
            ResidencyEvent::CtaAllStalled { cta } => self.stalled(cta, out),
            ResidencyEvent::ParkedCtaReady { cta }
                if self.pool.free_slots > 0 && self.pool.ctas.get(&cta).is_some_and(|c| !c.active) =>
            {
                self.pool.free_slots -= 1;
                self.restore(cta, out);
            }
            ResidencyEvent::CtaFinished { cta } => {
                self.waiting.remove(&cta);
                if let Some(n) = self.pcrf.remove(&cta) {
                    self.pcrf_used -= n;
                }
                self.refill(out);
            }
            _ => {}
        }
    }

    fn on_memory_done(&mut self, id: u64, _now: u64, out: &mut SmActions) {
        let sid = id as u32;
        self.lv.fill(sid);
        self.lv_reads.remove(&sid);
        let done: Vec<u32> =
            self.waiting.iter().filter(|(_, s)| s.iter().all(|&x| self.lv.holds(x))).map(|(&c, _)| c).collect();
        for cta in done {
            self.waiting.remove(&cta);
            self.decide(cta, out);
        }
    }

    fn stats(&self) -> SchemeStats {
        let mut s = self.inner.stats();
        let c = &self.counts;
        for st in s.structures.iter_mut().filter(|x| x.name == "main_rf") {
            st.name = String::from("acrf");
            st.reads += c.acrf_reads;
            st.writes += c.acrf_writes;
        }
        s.structures.push(StructureStats {
            name: String::from("pcrf"),
            reads: c.pcrf_reads,
            writes: c.pcrf_writes,
            nj_per_access: self.nj,
        });
        s.counters = alloc::vec![
            Self::counter("cta_switches", c.switches, "switches"),
            Self::counter("pcrf_full_stalls", c.pcrf_full_stalls, "stalled CTAs left active"),
            Self::counter("pcrf_full_swaps", c.full_swaps, "swaps with a pending CTA for lack of PCRF space"),
            Self::counter("live_vector_misses", self.lv.misses, "lookups"),
            Self::counter("live_vector_hits", self.lv.hits, "lookups"),
            Self::counter("pcrf_peak_warp_registers", c.pcrf_peak, "warp registers (sum of per-SM peaks)"),
            Self::counter("pcrf_peak_ctas", c.pcrf_peak_ctas, "CTAs (sum of per-SM peaks)"),
            Self::counter("storage_bytes", self.cfg.storage_bytes(), "bytes (per SM, summed over the SMs)"),
        ];
        s
    }
}
