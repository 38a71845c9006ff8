//! RegMutex (Khorasani et al., ISCA'18; the FineReg paper's comparator, SCHEMES.md §4): the SM's
//! register file is split into the base register sets of the resident warps and a shared
//! register pool (SRP, `srp_fraction` of the file). A warp owns |BRS| registers per thread — the
//! kernel's allocation less the extension its pass found ([`super::regmutex_program`]) — so
//! occupancy follows from |BRS| in the smaller BRS region; around a region where more registers
//! are live the warp issues `regmutex.acquire E`, which takes E warp-registers from the SRP or,
//! with too few free, stalls the warp (charged to `acquire_wait`); `regmutex.release E` gives
//! them back. With `virtual_thread` (the default, the paper's "VT+RegMutex") Virtual Thread's
//! residency and CTA swaps run on top ([`VirtualThread`], seeing only the BRS region); a parked
//! CTA keeps its pool registers, and is not parked when that would leave the active warps less
//! than one extension.
//!
//! ```text
//! 256 KB file (65536 registers), srp_fraction 0.28: SRP = 18350 registers = 573 warp-registers;
//! BRS region 47186 registers; kernel of 32 registers, extension 12 → |BRS| 20 per thread:
//! warps resident = 47186 / (20 × 32) = 73 (capped by the slots) instead of 64;
//! at most 573 / 12 = 47 warps in their extended regions at once
//! ```

use alloc::collections::BTreeSet;
use alloc::string::String;
use alloc::vec;
use alloc::vec::Vec;

use super::baseline::BankedConfig;
use super::config::SchemeConfigError;
use super::params::{ConfigReader, ModelNote, ParamSpec, SchemeConfig};
use super::regmutex_program::PoolOp;
use super::virtual_thread::VirtualThread;
use super::{
    CtaFootprint, CuId, EnergyModel, IssueOutcome, OperandRequest, RegisterFileScheme, SchemeContext, SchemeCounter,
    SchemeStats, WriteRequest,
};
use crate::gpu::{GpuConfig, ResidencyLimits};
use crate::timing::program::KernelInfo;
use crate::timing::program_map::SchemeProgram;
use crate::timing::report::StallCause;
use crate::timing::sm::hooks::{HookSet, ResidencyAction, ResidencyEvent, SmActions};

/// The schema: the baseline's plus the SRP's share of the register file, VT+RegMutex on/off and
/// Virtual Thread's swap cost.
pub fn params(gpu: &GpuConfig, energy: &EnergyModel) -> Vec<ParamSpec> {
    let mut p = BankedConfig::params(gpu, energy);
    p.push(ParamSpec::float("srp_fraction", 0.28, 0.0, 0.9, "fraction of the register file").doc(
        "Share of the SM's register file that is the shared register pool (the rest holds the warps' base sets)",
        "Oh et al., FineReg §VI-D (best split: 28.1% SRP on average); SCHEMES.md §4",
    ));
    p.push(ParamSpec::flag("virtual_thread", true).doc(
        "VT+RegMutex, the paper's comparator: CTAs resident beyond the CTA/warp slots while the BRS region lasts, a fully stalled active CTA swapped for a ready one (Virtual Thread's policy); false: plain RegMutex",
        "Oh et al., FineReg §VI-A (\"We merged Virtual Thread into RegMutex\")",
    ));
    p.push(
        ParamSpec::int("swap_cycles", 20, 0, 100_000, "cycles")
            .doc(
                "Cycles to save one CTA's control state and restore another's (virtual_thread)",
                "Virtual Thread; SCHEMES.md §4",
            )
            .assumed(),
    );
    p
}

/// What RegMutex models.
pub const NOTES: &[ModelNote] = &[
    ModelNote::modelled("Compiler pass (analysis; the input kernel is untouched): per instruction the peak live 32-bit units (live-in, or live-out with its definitions); |BRS| in live units is their lower median; acquire/release (regmutex.acquire/release E, E = max peak − |BRS|) around the instructions whose peak exceeds it. The transformed kernel is the one timed; the executor runs the original."),
    ModelNote::assumption("|BRS| = the lower median of the per-instruction peaks (the paper's compiler heuristic is not in the seed); registers per thread under RegMutex = the allocation less E (at least 1): the allocator's overhead stays in the base set."),
    ModelNote::modelled("Occupancy: the occupancy calculator with |BRS| registers per thread and (1 − srp_fraction) of the register file (NVIDIA registers per SM, GCN VGPRs per SIMD)."),
    ModelNote::modelled("An acquire takes E warp-registers from the SM's pool of srp_fraction × registers per SM / warp size; with too few free the warp stalls (acquire_wait) and retries every cycle. A release gives them back when it issues; a finished warp's are freed. Acquire while holding and release while free do nothing."),
    ModelNote::assumption("Acquire and release issue through the operand collector as integer-unit instructions with an add's timing and no register operand; the pool is freed at the release's issue."),
    ModelNote::assumption("Regions are split at barriers (a warp waiting at bar.sync holds no pool registers, so the pool cannot deadlock a CTA); the extension's values are kept across at no cost. A pool smaller than one warp's extension is raised to one extension."),
    ModelNote::modelled("virtual_thread (true, the paper's VT+RegMutex): Virtual Thread's residency (CTA and warp slots lifted, registers of the BRS region and shared memory bind, at most 512 warps) and its swap of a fully stalled active CTA for a ready parked one (swap_cycles)."),
    ModelNote::assumption("VT+RegMutex: a switched-out CTA keeps its warps' pool registers (the paper: the SRP is not released on a long-latency stall); a fully stalled CTA is kept active instead when parking it would leave the active warps less than one extension of the pool (counter srp_kept_active), so the pool never deadlocks."),
    ModelNote::not_modelled("Register renaming hardware and its energy; spills; Khorasani et al.'s own choice of |BRS|."),
];

/// RegMutex on one SM.
#[derive(Clone, Debug)]
pub struct RegMutex {
    inner: VirtualThread,
    /// VT+RegMutex (else the slots bind and the inner file only collects operands).
    vt: bool,
    /// CTA slot of each warp slot, as the last long-latency stall named it (`u32::MAX`: none).
    cta_of: Vec<u32>,
    srp_fraction: f64,
    /// The pool in warp-registers (at least the largest extension once the program is known).
    capacity: u32,
    free: u32,
    /// Warp-registers each warp slot holds.
    held: Vec<u32>,
    /// Pool operation by `sid` of the scheme's program.
    ops: Vec<PoolOp>,
    /// Per function (raw handle): the extension its acquires take.
    extension: Vec<(u32, u32)>,
    acquires: u64,
    releases: u64,
    stall_attempts: u64,
    peak: u32,
    /// Fully stalled CTAs kept active because parking them would leave no room in the pool.
    kept_active: u64,
    /// CTA slots Virtual Thread has parked.
    parked: BTreeSet<u32>,
    /// The largest extension of the program (warp-registers).
    largest: u32,
}

impl RegMutex {
    /// The register file of one SM configured by `config`.
    pub fn new(ctx: &SchemeContext<'_>, config: &SchemeConfig) -> Result<Self, SchemeConfigError> {
        let name = "regmutex";
        let r = ConfigReader::new(name, config);
        let (srp_fraction, vt) = (r.f64("srp_fraction")?, r.bool("virtual_thread")?);
        // Virtual Thread admits CTAs while the BRS region lasts: it sees the scaled file.
        let mut gpu = ctx.gpu.clone();
        gpu.limits = scaled(gpu.limits.clone(), 1.0 - srp_fraction);
        let inner = VirtualThread::new(&SchemeContext { gpu: &gpu, ..*ctx }, config, false)?;
        let registers = match &ctx.gpu.limits {
            ResidencyLimits::Nvidia(sm) => u64::from(sm.registers_per_sm),
            ResidencyLimits::Gcn3(cu) => u64::from(cu.vgprs_per_simd) * u64::from(cu.simds_per_cu),
        };
        let warp = u64::from(ctx.geometry.warp_size.max(1));
        let capacity = u32::try_from((registers as f64 * srp_fraction) as u64 / warp).unwrap_or(u32::MAX);
        Ok(RegMutex {
            inner,
            vt,
            cta_of: vec![u32::MAX; ctx.geometry.max_warps as usize],
            srp_fraction,
            capacity,
            free: capacity,
            held: vec![0; ctx.geometry.max_warps as usize],
            ops: Vec::new(),
            extension: Vec::new(),
            acquires: 0,
            releases: 0,
            stall_attempts: 0,
            peak: 0,
            kept_active: 0,
            parked: BTreeSet::new(),
            largest: 0,
        })
    }

    fn op(&self, sid: u32) -> PoolOp {
        self.ops.get(sid as usize).copied().unwrap_or_default()
    }

    fn give_back(&mut self, warp: u32) {
        if let Some(h) = self.held.get_mut(warp as usize) {
            self.free = self.free.saturating_add(*h).min(self.capacity);
            *h = 0;
        }
    }

    /// Pool warp-registers held by warps whose CTA satisfies `which`.
    fn held_by(&self, which: impl Fn(u32) -> bool) -> u32 {
        self.cta_of.iter().zip(&self.held).filter(|(&c, _)| c != u32::MAX && which(c)).map(|(_, &h)| h).sum()
    }

    /// Keeps the parked set up to date with Virtual Thread's actions from `out.residency[from..]`.
    fn follow(&mut self, out: &SmActions, from: usize) {
        for a in out.residency.iter().skip(from) {
            match *a {
                ResidencyAction::Park { cta, .. } => {
                    self.parked.insert(cta);
                }
                ResidencyAction::Activate { cta, .. } => {
                    self.parked.remove(&cta);
                }
                ResidencyAction::Swap { park, activate, .. } => {
                    self.parked.insert(park);
                    self.parked.remove(&activate);
                }
            }
        }
    }

    fn counter(name: &str, value: u64, unit: &str) -> SchemeCounter {
        SchemeCounter { name: String::from(name), value, unit: String::from(unit) }
    }
}

/// `limits` with `keep` of their register capacity.
fn scaled(limits: ResidencyLimits, keep: f64) -> ResidencyLimits {
    let part = |n: u32| (f64::from(n) * keep) as u32;
    match limits {
        ResidencyLimits::Nvidia(mut sm) => {
            sm.registers_per_sm = part(sm.registers_per_sm);
            ResidencyLimits::Nvidia(sm)
        }
        ResidencyLimits::Gcn3(mut cu) => {
            cu.vgprs_per_simd = part(cu.vgprs_per_simd);
            ResidencyLimits::Gcn3(cu)
        }
    }
}

impl RegisterFileScheme for RegMutex {
    fn name(&self) -> &'static str {
        "regmutex"
    }

    fn registers_per_thread(&self, kernel: &KernelInfo, user_override: Option<u32>) -> u32 {
        let estimate =
            if kernel.allocated_registers > 0 { kernel.allocated_registers } else { kernel.max_live_registers };
        let full = user_override.unwrap_or(estimate).max(1);
        let e = self.extension.iter().find(|(f, _)| *f == kernel.function.raw()).map_or(0, |x| x.1);
        full.saturating_sub(e).max(1)
    }

    fn residency_limits(&self, gpu: &GpuConfig) -> ResidencyLimits {
        scaled(gpu.limits.clone(), 1.0 - self.srp_fraction)
    }

    fn hooks(&self) -> HookSet {
        HookSet::RESIDENCY
    }

    fn on_scheme_program(&mut self, program: &SchemeProgram) {
        self.ops = program.pool.clone();
        let p = &program.program;
        let mut ext: Vec<(u32, u32)> = Vec::new();
        for (&f, &base) in &p.func_base {
            let end = p.func_base.values().copied().filter(|&b| b > base).min().unwrap_or(p.insts.len() as u32);
            let e = (base..end)
                .filter_map(|s| match self.op(s) {
                    PoolOp::Acquire(n) => Some(n),
                    _ => None,
                })
                .max()
                .unwrap_or(0);
            ext.push((f, e));
        }
        let largest = ext.iter().map(|x| x.1).max().unwrap_or(0);
        self.extension = ext;
        self.capacity = self.capacity.max(largest);
        self.largest = largest;
        self.free = self.capacity;
    }

    fn collector_free(&self, group: u32) -> bool {
        self.inner.collector_free(group)
    }

    fn try_issue(&mut self, req: &OperandRequest<'_>, now: u64) -> IssueOutcome {
        let holding = self.held.get(req.warp as usize).copied().unwrap_or(0);
        let take = match self.op(req.sid) {
            PoolOp::Acquire(n) if holding == 0 && n > 0 => n,
            PoolOp::Release(_) if holding > 0 => {
                let out = self.inner.try_issue(req, now);
                if matches!(out, IssueOutcome::Collecting(_)) {
                    self.give_back(req.warp);
                    self.releases += 1;
                }
                return out;
            }
            _ => return self.inner.try_issue(req, now),
        };
        if self.free < take {
            self.stall_attempts += 1;
            return IssueOutcome::Stall;
        }
        let out = self.inner.try_issue(req, now);
        if matches!(out, IssueOutcome::Collecting(_)) {
            self.free -= take;
            if let Some(h) = self.held.get_mut(req.warp as usize) {
                *h = take;
            }
            self.acquires += 1;
            self.peak = self.peak.max(self.capacity - self.free);
        }
        out
    }

    fn issue_stall_cause(&self) -> StallCause {
        StallCause::AcquireWait
    }

    /// An acquire of a warp that holds nothing waits while the pool has fewer registers free than
    /// it takes (`try_issue`'s refusal, counted the same).
    fn refuse_again(&mut self, warp: u32, _scheduler: u32, sid: u32, _now: u64) -> Option<StallCause> {
        let holding = self.held.get(warp as usize).copied().unwrap_or(0);
        match self.op(sid) {
            PoolOp::Acquire(n) if holding == 0 && n > 0 && self.free < n => {
                self.stall_attempts += 1;
                Some(StallCause::AcquireWait)
            }
            _ => None,
        }
    }

    fn max_resident_ctas_for(&self, cta: &CtaFootprint<'_>) -> u32 {
        if self.vt {
            self.inner.max_resident_ctas_for(cta)
        } else {
            cta.slots_limit
        }
    }

    fn max_resident_warps(&self, warp_slots: u32) -> u32 {
        if self.vt {
            self.inner.max_resident_warps(warp_slots)
        } else {
            warp_slots
        }
    }

    fn on_residency(&mut self, event: &ResidencyEvent, now: u64, out: &mut SmActions) {
        match *event {
            ResidencyEvent::WarpFinished { warp, .. } => {
                self.give_back(warp);
                if let Some(c) = self.cta_of.get_mut(warp as usize) {
                    *c = u32::MAX;
                }
            }
            ResidencyEvent::WarpLongLatencyStall { warp, cta, .. } => {
                if let Some(c) = self.cta_of.get_mut(warp as usize) {
                    *c = cta;
                }
            }
            ResidencyEvent::CtaAllStalled { cta } if self.vt => {
                // Parking it would leave its pool registers with a parked CTA: only while the
                // active warps keep room for one extension (else no active warp could ever
                // acquire, and nothing would wake the parked ones).
                let parked = self.held_by(|c| self.parked.contains(&c));
                let own = self.held_by(|c| c == cta);
                if own > 0 && parked + own + self.largest > self.capacity {
                    self.kept_active += 1;
                    return;
                }
            }
            _ => {}
        }
        if self.vt {
            let from = out.residency.len();
            self.inner.on_residency(event, now, out);
            self.follow(out, from);
        }
    }

    fn on_memory_done(&mut self, id: u64, now: u64, out: &mut SmActions) {
        if self.vt {
            let from = out.residency.len();
            self.inner.on_memory_done(id, now, out);
            self.follow(out, from);
        }
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
        let mut s = self.inner.stats();
        s.counters.extend([
            RegMutex::counter("acquires", self.acquires, "acquires that took pool registers"),
            RegMutex::counter("releases", self.releases, "releases that gave them back"),
            RegMutex::counter("srp_stalls", self.stall_attempts, "refused acquire attempts (warp-cycles)"),
            RegMutex::counter("srp_peak_warp_registers", u64::from(self.peak), "warp registers (sum of per-SM peaks)"),
            RegMutex::counter(
                "srp_warp_registers",
                u64::from(self.capacity),
                "warp registers (per SM, summed over the SMs)",
            ),
            RegMutex::counter("srp_kept_active", self.kept_active, "stalled CTAs not switched out (pool room)"),
        ]);
        s
    }
}
