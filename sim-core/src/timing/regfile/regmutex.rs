//! RegMutex (Khorasani et al., ISCA'18; the FineReg paper's comparator, SCHEMES.md §4): the SM's
//! register file is split into the base register sets of the resident warps and a shared
//! register pool (SRP, `srp_fraction` of the file). A warp owns |BRS| registers per thread — the
//! kernel's allocation less the extension its pass found ([`super::regmutex_program`]) — so
//! occupancy follows from |BRS| in the smaller BRS region; around a region where more registers
//! are live the warp issues `regmutex.acquire E`, which takes E warp-registers from the SRP or,
//! with too few free, stalls the warp (charged to `acquire_wait`); `regmutex.release E` gives
//! them back.
//!
//! ```text
//! 256 KB file (65536 registers), srp_fraction 0.28: SRP = 18350 registers = 573 warp-registers;
//! BRS region 47186 registers; kernel of 32 registers, extension 12 → |BRS| 20 per thread:
//! warps resident = 47186 / (20 × 32) = 73 (capped by the slots) instead of 64;
//! at most 573 / 12 = 47 warps in their extended regions at once
//! ```

use alloc::string::String;
use alloc::vec;
use alloc::vec::Vec;

use super::baseline::{BankedConfig, BankedRegisterFile};
use super::config::SchemeConfigError;
use super::params::{ConfigReader, ModelNote, ParamSpec, SchemeConfig};
use super::regmutex_program::PoolOp;
use super::{
    CuId, EnergyModel, IssueOutcome, OperandRequest, RegisterFileScheme, SchemeContext, SchemeCounter, SchemeStats,
    WriteRequest,
};
use crate::gpu::{GpuConfig, ResidencyLimits};
use crate::timing::program::KernelInfo;
use crate::timing::program_map::SchemeProgram;
use crate::timing::report::StallCause;
use crate::timing::sm::hooks::{HookSet, ResidencyEvent, SmActions};

/// The schema: the baseline's plus the SRP's share of the register file.
pub fn params(gpu: &GpuConfig, energy: &EnergyModel) -> Vec<ParamSpec> {
    let mut p = BankedConfig::params(gpu, energy);
    p.push(ParamSpec::float("srp_fraction", 0.28, 0.0, 0.9, "fraction of the register file").doc(
        "Share of the SM's register file that is the shared register pool (the rest holds the warps' base sets)",
        "Oh et al., FineReg §VI-D (best split: 28.1% SRP on average); SCHEMES.md §4",
    ));
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
    ModelNote::not_modelled("The FineReg paper's VT+RegMutex (Virtual Thread's lifted CTA slots): here the preset's CTA and warp slots still bind; register renaming hardware and its energy; spills."),
];

/// RegMutex on one SM.
#[derive(Clone, Debug)]
pub struct RegMutex {
    inner: BankedRegisterFile,
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
}

impl RegMutex {
    /// The register file of one SM configured by `config`.
    pub fn new(ctx: &SchemeContext<'_>, config: &SchemeConfig) -> Result<Self, SchemeConfigError> {
        let name = "regmutex";
        let srp_fraction = ConfigReader::new(name, config).f64("srp_fraction")?;
        let inner = BankedRegisterFile::new(ctx, &BankedConfig::from_config(name, config)?);
        let registers = match &ctx.gpu.limits {
            ResidencyLimits::Nvidia(sm) => u64::from(sm.registers_per_sm),
            ResidencyLimits::Gcn3(cu) => u64::from(cu.vgprs_per_simd) * u64::from(cu.simds_per_cu),
        };
        let warp = u64::from(ctx.geometry.warp_size.max(1));
        let capacity = u32::try_from((registers as f64 * srp_fraction) as u64 / warp).unwrap_or(u32::MAX);
        Ok(RegMutex {
            inner,
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

    fn on_residency(&mut self, event: &ResidencyEvent, _now: u64, _out: &mut SmActions) {
        if let ResidencyEvent::WarpFinished { warp, .. } = *event {
            self.give_back(warp);
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
        s.counters = vec![
            RegMutex::counter("acquires", self.acquires, "acquires that took pool registers"),
            RegMutex::counter("releases", self.releases, "releases that gave them back"),
            RegMutex::counter("srp_stalls", self.stall_attempts, "refused acquire attempts (warp-cycles)"),
            RegMutex::counter("srp_peak_warp_registers", u64::from(self.peak), "warp registers (sum of per-SM peaks)"),
            RegMutex::counter("srp_warp_registers", u64::from(self.capacity), "warp registers (per SM, summed over the SMs)"),
        ];
        s
    }
}
