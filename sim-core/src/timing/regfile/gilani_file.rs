//! The register file of Gilani's schemes (`composite`, `scalar-unit`, `sliced`, `gilani`): the
//! baseline's banks and collectors, plus the composite RF (counted from the fused program), a
//! scalar unit with its scalar RF, and the sliced datapath's half-width accesses, pairs and
//! width mispredictions. Instruction classes come from [`super::gilani_values`].
//!
//! ```text
//! warp 0: add.s32 %r1, %r1, 1   (scalar)  → Route::Scheme(scalar), own collector, scalar RF
//! warp 1: mul.f32 %f2, %f1, %f1 (SIMT)    → paired into warp 0's slot on the SP pipe
//! warp 2: add.s32 %r3, %r2, 7   (16-bit)  ┐ opposite parity, both fit:
//! warp 3: add.s32 %r3, %r2, 9   (16-bit)  ┘ one slot, the second on the upper slice
//! ```
//!
//! Instructions that take a collector of the scheme's own (numbered after the baseline's): a
//! scalar one (operands from the scalar RF) and the second of a 16-bit pair (operands read with
//! the first's); both are collected in the cycle they issue, as a baseline collector with no
//! register to read.

use alloc::string::String;
use alloc::vec;
use alloc::vec::Vec;

use super::baseline::BankedRegisterFile;
use super::gilani::{GilaniConfig, Techniques};
use super::gilani_values::{Class, WarpValues};
use super::{
    CuId, EnergyModel, IssueOutcome, OperandRequest, RegisterFileScheme, SchemeContext, SchemeCounter, SchemeStats,
    StructureStats, WriteRequest,
};
use crate::ir::Module;
use crate::timing::program::Program;
use crate::timing::program_map::SchemeProgram;
use crate::timing::sm::hooks::{HookSet, Route, SchemeUnit};
use crate::timing::stream::values::ValueSummary;
use crate::timing::summary;

/// What the family counts beyond the baseline.
#[derive(Clone, Copy, Debug, Default)]
struct Counts {
    fused_pairs: u64,
    crf_reads: u64,
    crf_writes: u64,
    crf_forwarded_reads: u64,
    scalar_instructions: u64,
    scalar_dual_issues: u64,
    srf_reads: u64,
    srf_writes: u64,
    half_width_instructions: u64,
    paired_issues: u64,
    width_mispredictions: u64,
    /// Sliced reads/writes that went through the banks (counted there as main RF accesses).
    sliced_reads_banked: u64,
    sliced_writes_banked: u64,
    /// Sliced reads of paired instructions (not through the banks).
    sliced_reads_own: u64,
}

/// One SM's register file under a scheme of the family.
#[derive(Clone, Debug)]
pub struct GilaniRegisterFile {
    name: &'static str,
    t: Techniques,
    dual: bool,
    inner: BankedRegisterFile,
    values: WarpValues,
    crf: Vec<(u8, u8)>,
    warp_size: u32,
    schedulers: u32,
    nj: [f64; 3],
    unit: (u32, u32),
    own_base: u32,
    own_free: Vec<CuId>,
    own_next: u32,
    own_ready: Vec<CuId>,
    scalar_writes: Vec<(u32, u32)>,
    sliced_writes: Vec<(u32, u32)>,
    /// Per scheduler: the last instruction it issued (cycle, warp, class).
    last: Vec<Option<(u64, u32, Class)>>,
    /// A warp `pair` let into the slot at a cycle, and whether the pair is a 16-bit one.
    paired_next: Option<(u32, u64, bool)>,
    mispredicted: Option<(u32, u32)>,
    c: Counts,
}

impl GilaniRegisterFile {
    /// The register file of one SM described by `ctx` under `config`.
    pub fn new(ctx: &SchemeContext<'_>, config: &GilaniConfig) -> Self {
        let geo = ctx.geometry;
        let groups = geo.groups.max(1);
        let configured = config.banked.collector_units / groups;
        let per_group = if configured == 0 { (geo.schedulers / groups).max(1) } else { configured };
        let add = ctx.gpu.execution.int.add;
        GilaniRegisterFile {
            name: config.name,
            t: config.techniques,
            dual: config.scalar_dual_issue,
            inner: BankedRegisterFile::new(ctx, &config.banked),
            values: WarpValues::new(geo.max_warps, config.half_width_bits),
            crf: Vec::new(),
            warp_size: geo.warp_size,
            schedulers: geo.schedulers.max(1),
            nj: [config.composite_rf_nj, config.scalar_rf_nj, config.sliced_rf_nj],
            unit: (add.latency.max(1), add.initiation_interval.max(1)),
            own_base: per_group * groups,
            own_free: Vec::new(),
            own_next: 0,
            own_ready: Vec::new(),
            scalar_writes: Vec::new(),
            sliced_writes: Vec::new(),
            last: vec![None; geo.schedulers.max(1) as usize],
            paired_next: None,
            mispredicted: None,
            c: Counts::default(),
        }
    }

    /// Odd or even among its scheduler's warps (slot `w` belongs to scheduler `w % schedulers`):
    /// with one scheduler, the slot's own parity.
    fn parity(&self, w: u32) -> u32 {
        (w / self.schedulers) % 2
    }

    fn classify(&self, req: &OperandRequest<'_>) -> Class {
        self.values.classify(req, self.t.scalar, self.t.sliced)
    }

    fn own_collector(&mut self) -> CuId {
        let cu = self.own_free.pop().unwrap_or_else(|| {
            self.own_next += 1;
            self.own_base + self.own_next - 1
        });
        self.own_ready.push(cu);
        cu
    }

    /// The last issue of `req`'s scheduler at `now` by another warp, if any.
    fn first_of_slot(&self, req: &OperandRequest<'_>, now: u64) -> Option<(u32, Class)> {
        match self.last.get(req.scheduler as usize).copied().flatten() {
            Some((t, w, c)) if t == now && w != req.warp => Some((w, c)),
            _ => None,
        }
    }

    /// Counts an accepted instruction of class `class` (`paired`: it took another's slot).
    fn count(&mut self, req: &OperandRequest<'_>, class: Class, paired: Option<bool>, own: bool) {
        if let Some(&(r, w)) = self.crf.get(req.sid as usize) {
            self.c.crf_reads += u64::from(r);
            self.c.crf_writes += u64::from(w);
            self.c.fused_pairs += u64::from(w > 0);
            self.c.crf_forwarded_reads += u64::from(r.saturating_sub(w));
        }
        match paired {
            Some(true) => self.c.paired_issues += 1,
            Some(false) => self.c.scalar_dual_issues += 1,
            None => {}
        }
        let reads = req.reads.len() as u64;
        match class {
            Class::Scalar => {
                self.c.scalar_instructions += 1;
                self.c.srf_reads += reads;
                if !req.writes.is_empty() {
                    self.scalar_writes.push((req.warp, req.sid));
                }
            }
            Class::Half { fits } => {
                self.c.half_width_instructions += 1;
                if own {
                    self.c.sliced_reads_own += reads;
                } else {
                    self.c.sliced_reads_banked += reads;
                }
                if fits && !req.writes.is_empty() {
                    self.sliced_writes.push((req.warp, req.sid));
                } else if !fits {
                    self.c.width_mispredictions += 1;
                    self.mispredicted = Some((req.warp, req.sid));
                }
            }
            Class::Simt => {}
        }
    }

    fn structure(name: &str, reads: u64, writes: u64, nj_per_access: f64) -> StructureStats {
        StructureStats { name: String::from(name), reads, writes, nj_per_access }
    }

    fn counter(name: &str, value: u64, unit: &str) -> SchemeCounter {
        SchemeCounter { name: String::from(name), value, unit: String::from(unit) }
    }

    fn counters(&self) -> Vec<SchemeCounter> {
        let c = &self.c;
        let mut out = Vec::new();
        if self.t.composite {
            out.push(Self::counter("fused_pairs", c.fused_pairs, "instructions"));
            out.push(Self::counter("crf_forwarded_reads", c.crf_forwarded_reads, "reads"));
        }
        if self.t.scalar {
            out.push(Self::counter("scalar_instructions", c.scalar_instructions, "instructions"));
            out.push(Self::counter("scalar_dual_issues", c.scalar_dual_issues, "issues"));
        }
        if self.t.sliced {
            out.push(Self::counter("half_width_instructions", c.half_width_instructions, "instructions"));
            out.push(Self::counter("paired_issues", c.paired_issues, "issues"));
            out.push(Self::counter("width_mispredictions", c.width_mispredictions, "instructions"));
        }
        let v = self.values.counts;
        out.push(Self::counter(summary::VALUE_INSTRUCTIONS, v.value_instructions, "instructions"));
        out.push(Self::counter(summary::UNIFORM_RESULT_INSTRUCTIONS, v.uniform_result_instructions, "instructions"));
        out.push(Self::counter(summary::INTEGER_VALUES, v.integer_values, "values"));
        out.push(Self::counter(summary::INTEGER_16BIT_VALUES, v.integer_16bit_values, "values"));
        out
    }
}

impl RegisterFileScheme for GilaniRegisterFile {
    fn name(&self) -> &'static str {
        self.name
    }

    fn collector_free(&self, group: u32) -> bool {
        self.inner.collector_free(group)
    }

    fn try_issue(&mut self, req: &OperandRequest<'_>, now: u64) -> IssueOutcome {
        let class = self.classify(req);
        let paired = match self.paired_next.take() {
            Some((w, t, half)) if w == req.warp && t == now => Some(half),
            _ => None,
        };
        let own = class == Class::Scalar || (paired == Some(true) && matches!(class, Class::Half { .. }));
        let cu = if own {
            self.own_collector()
        } else {
            match self.inner.try_issue(req, now) {
                IssueOutcome::Collecting(cu) => cu,
                refused => return refused,
            }
        };
        self.mispredicted = None;
        self.values.commit(req);
        self.count(req, class, paired, own);
        if let Some(l) = self.last.get_mut(req.scheduler as usize) {
            *l = Some((now, req.warp, class));
        }
        IssueOutcome::Collecting(cu)
    }

    fn cycle(&mut self, now: u64, collected: &mut Vec<CuId>) {
        self.inner.cycle(now, collected);
        collected.append(&mut self.own_ready);
    }

    fn release(&mut self, cu: CuId) {
        if cu >= self.own_base {
            self.own_free.push(cu);
        } else {
            self.inner.release(cu);
        }
    }

    fn try_write(&mut self, req: &WriteRequest<'_>, now: u64) -> bool {
        let key = (req.warp, req.sid);
        if let Some(i) = self.scalar_writes.iter().position(|&k| k == key) {
            self.scalar_writes.swap_remove(i);
            self.c.srf_writes += req.units.len() as u64;
            return true;
        }
        if !self.inner.try_write(req, now) {
            return false;
        }
        if let Some(i) = self.sliced_writes.iter().position(|&k| k == key) {
            self.sliced_writes.swap_remove(i);
            self.c.sliced_writes_banked += req.units.len() as u64;
        }
        true
    }

    fn busy(&self) -> bool {
        self.inner.busy() || !self.own_ready.is_empty()
    }

    fn stats(&self) -> SchemeStats {
        let mut s = self.inner.stats();
        let c = &self.c;
        if let Some(m) = s.structures.first_mut() {
            m.reads = m.reads.saturating_sub(c.sliced_reads_banked);
            m.writes = m.writes.saturating_sub(c.sliced_writes_banked);
        }
        let per_warp = |nj: f64| EnergyModel::per_warp_register(nj, self.warp_size);
        let [crf_nj, srf_nj, sliced_nj] = self.nj;
        if self.t.composite {
            s.structures.push(Self::structure("composite_rf", c.crf_reads, c.crf_writes, per_warp(crf_nj)));
        }
        if self.t.scalar {
            s.structures.push(Self::structure("scalar_rf", c.srf_reads, c.srf_writes, srf_nj));
        }
        if self.t.sliced {
            let reads = c.sliced_reads_banked + c.sliced_reads_own;
            s.structures.push(Self::structure("sliced_rf", reads, c.sliced_writes_banked, per_warp(sliced_nj)));
        }
        s.counters = self.counters();
        s
    }

    fn hooks(&self) -> HookSet {
        let mut h = HookSet::VALUES;
        if self.t.scalar || self.t.sliced {
            h = h | HookSet::ROUTE;
        }
        if (self.t.scalar && self.dual) || self.t.sliced {
            h = h | HookSet::PAIRING;
        }
        if self.t.sliced {
            h = h | HookSet::OPERAND_LATENCY;
        }
        h
    }

    fn scheme_units(&self) -> Vec<SchemeUnit> {
        let (latency, interval) = self.unit;
        let mut u = Vec::new();
        if self.t.scalar {
            u.push(SchemeUnit { name: "scalar", pipes: 1, latency, interval });
        }
        if self.t.sliced {
            u.push(SchemeUnit { name: "upper_slice", pipes: 1, latency, interval });
        }
        u
    }

    fn route(&mut self, req: &OperandRequest<'_>, now: u64) -> Route {
        match self.classify(req) {
            Class::Scalar => Route::Scheme(0),
            Class::Half { fits: true } => match self.first_of_slot(req, now) {
                Some((w, Class::Half { fits: true })) if self.parity(w) != self.parity(req.warp) => {
                    Route::Scheme(u8::from(self.t.scalar))
                }
                _ => Route::Own,
            },
            _ => Route::Own,
        }
    }

    fn operand_write_latency(&self, req: &OperandRequest<'_>, _operand: usize) -> u32 {
        u32::from(self.mispredicted == Some((req.warp, req.sid)))
    }

    fn pair(&mut self, first: &OperandRequest<'_>, second: &OperandRequest<'_>) -> bool {
        let Some((_, _, fc)) = self.last.get(first.scheduler as usize).copied().flatten() else { return false };
        let sc = self.classify(second);
        let half = Class::Half { fits: true };
        let sliced = self.t.sliced && fc == half && sc == half && self.parity(first.warp) != self.parity(second.warp);
        let scalar = self.t.scalar && self.dual && ((fc == Class::Scalar) != (sc == Class::Scalar));
        let now = self.last.get(first.scheduler as usize).copied().flatten().map_or(0, |l| l.0);
        if sliced || scalar {
            self.paired_next = Some((second.warp, now, sliced));
        }
        sliced || scalar
    }

    fn on_values(&mut self, warp: u32, values: &[ValueSummary]) {
        self.values.set_next(warp, values);
    }

    fn on_scheme_program(&mut self, program: &SchemeProgram) {
        self.crf = program.crf.clone();
        self.values.set_integer(&program.integer_results);
    }

    fn prepare(&mut self, module: &Module, program: &Program) {
        self.values.set_integer(&super::gilani_int::integer_results(module, program));
    }
}
