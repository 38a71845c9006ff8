//! The register-file seam: one trait, [`RegisterFileScheme`], through which the SM model sees a
//! register file — how many registers a kernel gets (occupancy), how an issued instruction's
//! source operands are collected (banks, collectors, caches, buffers, extra stages), what a
//! write-back costs, whether a stalled CTA may be parked, and what each access costs in energy.
//! The SM model knows nothing else about the register file.
//!
//! ```text
//! issue ──try_issue──▶ scheme (collector allocated, reads queued)
//! every cycle: try_write (results claim banks) → cycle (arbiter grants reads; collected CUs out)
//! SM dispatches a collected instruction to its unit ──release──▶ scheme frees the collector
//! ```
//!
//! One instance models one SM; [`registry`] builds them by name. Schemes of this issue:
//! [`baseline`] (banked RF + operand collectors, GPGPU-Sim's mapping and arbitration),
//! [`no_bank_conflicts`] and [`double_registers`] (Wyse's two limit studies). Later schemes
//! (RF cache + operand buffer, DeMO's memory-operand buffer, FineReg's ACRF/PCRF, RegMutex,
//! compression tables, composite/scalar/sliced) implement the same trait: a scheme-specific issue
//! stall is [`IssueOutcome::Stall`], extra pipeline stages are [`RegisterFileScheme::extra_read_stages`]
//! and [`RegisterFileScheme::extra_write_stages`]; CTA residency, routing, pairing and memory
//! requests are the SM hooks at the end of the trait ([`crate::timing::sm::hooks`]); energy per
//! structure is [`SchemeStats::structures`], a scheme's own figures (RFC hits, PCRF moves, …) are
//! [`SchemeStats::counters`].
//!
//! Every scheme states its parameters ([`params::ParamSpec`]: kind, default, unit, range, doc,
//! source, assumption) and model notes in its registry entry; a [`config::SchemeSpec`]
//! (`NAME:key=value,…`) is resolved against them into the full config the scheme is built from
//! and the report echoes.

/// The base hooks of [`RegisterFileScheme`] delegated to `self.inner`, for a scheme that collects
/// operands, writes back and drains like the register file it wraps (`2x-registers`, `finereg`,
/// `virtual-thread`, `reg-dram`). Callers have `OperandRequest`, `IssueOutcome`, `CuId`,
/// `WriteRequest` and `Vec` in scope; defined before the `mod` lines so every scheme module sees it.
macro_rules! delegate_operands {
    () => {
        fn collector_free(&self, group: u32) -> bool {
            self.inner.collector_free(group)
        }
        fn try_issue(&mut self, req: &OperandRequest<'_>, now: u64) -> IssueOutcome {
            self.inner.try_issue(req, now)
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
    };
}

pub mod bank;
pub mod baseline;
pub mod composite_rf;
pub mod compression;
pub mod compression_file;
pub mod compression_program;
pub mod compression_report;
pub mod compression_slices;
pub mod config;
pub mod cta_pool;
pub mod demo;
pub mod demo_marks;
pub mod demo_program;
pub mod double_registers;
pub mod energy;
pub mod finereg;
pub mod finereg_pcrf;
pub mod gilani;
pub mod gilani_file;
pub mod gilani_int;
pub mod gilani_values;
pub mod last_use;
pub mod live_vectors;
pub mod no_bank_conflicts;
pub mod operand_buffer;
pub mod operand_collector;
pub mod params;
pub mod registry;
pub mod regmutex;
pub mod regmutex_program;
#[cfg(test)]
mod regmutex_tests;
pub mod rf_cache;
pub mod rfc_ob;
pub mod rfc_ob_config;
#[cfg(test)]
mod rfc_ob_tests;
#[cfg(test)]
mod tests;
pub mod virtual_thread;

use alloc::boxed::Box;
use alloc::string::String;
use alloc::vec::Vec;
use core::any::Any;

use serde::{Deserialize, Serialize};

use super::exec_units::UnitKind;
use super::program::{KernelInfo, MemOp, Program};
use super::program_map::SchemeProgram;
use super::report::StallCause;
use super::sm::hooks::{HookSet, ResidencyEvent, Route, SchemeUnit, SmActions};
use super::stream::values::ValueSummary;
use crate::gpu::{GpuConfig, ResidencyLimits, SchedulingPolicy};
use crate::ir::Module;

pub use config::{describe, IntoSchemeSpec, ResolvedScheme, SchemeConfigError, SchemeDescription, SchemeSpec};
pub use energy::EnergyModel;
pub use params::{ModelNote, NoteKind, ParamKind, ParamSpec, ParamValue, SchemeConfig};
pub use registry::{by_name, SchemeEntry, SCHEMES};

/// An operand collector unit (or whatever holds an issued instruction while its operands are
/// read), numbered per SM.
pub type CuId = u32;

/// The shape of one SM as a scheme sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SmGeometry {
    /// Warp schedulers in the SM.
    pub schedulers: u32,
    /// Scheduler groups (sub-cores): each owns `banks / groups` banks and `CUs / groups` CUs.
    pub groups: u32,
    /// Threads per warp.
    pub warp_size: u32,
    /// Warp slots in the SM.
    pub max_warps: u32,
}

/// Everything a scheme is built from.
#[derive(Clone, Copy, Debug)]
pub struct SchemeContext<'a> {
    /// The GPU.
    pub gpu: &'a GpuConfig,
    /// The SM's shape.
    pub geometry: SmGeometry,
    /// The base energy model (the defaults of the schemes' energy parameters; a scheme reads its
    /// figures from its config).
    pub energy: &'a EnergyModel,
}

/// One issued instruction asking for its source operands.
#[derive(Clone, Copy, Debug)]
pub struct OperandRequest<'a> {
    /// Warp slot in the SM (GPGPU-Sim's hardware warp id: the bank mapping uses it).
    pub warp: u32,
    /// Issuing scheduler.
    pub scheduler: u32,
    /// Its group (sub-core).
    pub group: u32,
    /// Static instruction id (for schemes with compile-time tables).
    pub sid: u32,
    /// Distinct 32-bit register units read.
    pub reads: &'a [u32],
    /// 32-bit register units written.
    pub writes: &'a [u32],
    /// Execution unit.
    pub unit: UnitKind,
    /// Memory behaviour.
    pub mem: MemOp,
}

/// What one CTA of a launch needs, for a scheme that admits CTAs beyond the slot limit.
#[derive(Clone, Copy, Debug)]
pub struct CtaFootprint<'a> {
    /// CTAs per SM the occupancy calculator allows under the scheme (the active limit).
    pub slots_limit: u32,
    /// Threads per CTA.
    pub threads: u32,
    /// Warps per CTA.
    pub warps: u32,
    /// Registers per thread the scheme allocates.
    pub registers_per_thread: u32,
    /// Shared memory per CTA in bytes (static plus dynamic).
    pub shared_bytes: u64,
    /// The kernel's first `sid` and one past its last (its range in `program`).
    pub sids: (u32, u32),
    /// The timed program.
    pub program: &'a Program,
}

/// What the scheme did with an issue request.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IssueOutcome {
    /// Accepted into this collector; it will be reported by [`RegisterFileScheme::cycle`] once its
    /// operands are in.
    Collecting(CuId),
    /// No collector free: an operand-collection stall.
    NoCollector,
    /// A scheme-specific stall (acquire wait, buffer full, …).
    Stall,
}

/// A result to write back.
#[derive(Clone, Copy, Debug)]
pub struct WriteRequest<'a> {
    /// Warp slot.
    pub warp: u32,
    /// Group (sub-core) of the warp.
    pub group: u32,
    /// Static instruction id.
    pub sid: u32,
    /// 32-bit register units written.
    pub units: &'a [u32],
    /// The value comes from memory (a load) rather than an ALU.
    pub from_memory: bool,
}

/// Accesses of one register-file structure.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct StructureStats {
    /// Structure name (`main_rf`, `rfc`, …).
    pub name: String,
    /// Warp-register reads (one 32-bit register for all lanes of a warp).
    pub reads: u64,
    /// Warp-register writes.
    pub writes: u64,
    /// Energy of one warp-register access in nJ.
    pub nj_per_access: f64,
}

impl StructureStats {
    /// Energy of all its accesses in nJ (the report's `energy_nj` entry for it).
    pub fn energy_nj(&self) -> f64 {
        (self.reads + self.writes) as f64 * self.nj_per_access
    }
}

/// A figure only some schemes count (RFC hits, PCRF moves, acquire stalls, …).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct SchemeCounter {
    /// Counter name (`rfc_hits`, …), unique within a scheme.
    pub name: String,
    /// Its value summed over the SMs.
    pub value: u64,
    /// Its unit (`reads`, `cycles`, `warp registers`, …).
    pub unit: String,
}

/// What a scheme counted.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct SchemeStats {
    /// Accesses by structure, in a fixed order.
    pub structures: Vec<StructureStats>,
    /// Read requests that waited a cycle because their bank served another read (one per request
    /// per cycle).
    pub bank_conflicts_read_read: u64,
    /// Read requests that waited a cycle because a write took their bank.
    pub bank_conflicts_read_write: u64,
    /// Results that waited a cycle because their bank already took a write.
    pub bank_conflicts_write_write: u64,
    /// Issue attempts refused for lack of a free collector. After a refusal the SM does not ask
    /// again in that cycle for that group, and warps once refused wait until the scheme reports
    /// a free collector, so this counts group-cycles with a refusal.
    pub collector_full: u64,
    /// The scheme's own counters, in a fixed order (absent from the JSON when it has none).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub counters: Vec<SchemeCounter>,
}

impl SchemeStats {
    /// Adds `other` (another SM's counts) to `self`.
    pub fn add(&mut self, other: &SchemeStats) {
        for s in &other.structures {
            match self.structures.iter_mut().find(|t| t.name == s.name) {
                Some(t) => {
                    t.reads += s.reads;
                    t.writes += s.writes;
                }
                None => self.structures.push(s.clone()),
            }
        }
        self.bank_conflicts_read_read += other.bank_conflicts_read_read;
        self.bank_conflicts_read_write += other.bank_conflicts_read_write;
        self.bank_conflicts_write_write += other.bank_conflicts_write_write;
        self.collector_full += other.collector_full;
        for c in &other.counters {
            match self.counters.iter_mut().find(|t| t.name == c.name) {
                Some(t) => t.value += c.value,
                None => self.counters.push(c.clone()),
            }
        }
    }
}

/// The concrete type behind a scheme trait object, so that the chip can build its SMs on the
/// scheme's own type (static calls in the inner loop, see [`crate::timing::chip`]). Every
/// `'static` type has it; a scheme implements nothing for it.
pub trait SchemeAny: Any {
    /// `self` as [`Any`].
    fn as_any(&self) -> &dyn Any;
    /// `self` as a boxed [`Any`], to downcast.
    fn into_any(self: Box<Self>) -> Box<dyn Any>;
}

impl<T: Any> SchemeAny for T {
    fn as_any(&self) -> &dyn Any {
        self
    }
    fn into_any(self: Box<Self>) -> Box<dyn Any> {
        self
    }
}

/// A register-file scheme modelling one SM. See the module documentation for the call order.
pub trait RegisterFileScheme: SchemeAny {
    /// Registry name (`baseline`, `no-bank-conflicts`, …).
    fn name(&self) -> &'static str;

    /// Registers per thread this scheme allocates for `kernel`: by default the user's override
    /// ("ptxas says N"), else the register-allocation estimate, else the maximum live 32-bit
    /// registers (at least 1).
    fn registers_per_thread(&self, kernel: &KernelInfo, user_override: Option<u32>) -> u32 {
        let estimate =
            if kernel.allocated_registers > 0 { kernel.allocated_registers } else { kernel.max_live_registers };
        user_override.unwrap_or(estimate).max(1)
    }

    /// The residency limits the occupancy calculator applies under this scheme (default: the
    /// GPU's own).
    fn residency_limits(&self, gpu: &GpuConfig) -> ResidencyLimits {
        gpu.limits.clone()
    }

    /// Cycles between the last operand read and dispatch to the execution unit (0 by default).
    fn extra_read_stages(&self) -> u32 {
        0
    }

    /// Cycles added to every write-back before the result is visible (0 by default).
    fn extra_write_stages(&self) -> u32 {
        0
    }

    /// Whether a collector of `group` is free now, so that an issue refused for lack of one
    /// ([`IssueOutcome::NoCollector`]) could succeed. Warps refused a collector are not asked
    /// again while this is false. `true` (the default) when the scheme cannot tell: they are then
    /// asked whenever a collector is released.
    fn collector_free(&self, _group: u32) -> bool {
        true
    }

    /// An instruction issues at cycle `now`: accept it into a collector, or refuse.
    fn try_issue(&mut self, req: &OperandRequest<'_>, now: u64) -> IssueOutcome;

    /// The issue of `warp`'s instruction `sid` on `scheduler`, refused with
    /// [`IssueOutcome::Stall`] last time, is about to be tried again at `now` with nothing of the
    /// warp's changed since (every check before the scheme's passes as it did). A scheme that can
    /// tell it would refuse it again, whatever its operands, records that refusal exactly as
    /// [`Self::try_issue`] would and returns the stall's cause; `None` (the default) asks for the
    /// full request. Only a speed-up: the SM then skips building the request.
    fn refuse_again(&mut self, _warp: u32, _scheduler: u32, _sid: u32, _now: u64) -> Option<StallCause> {
        None
    }

    /// One cycle of operand collection at `now` (after this cycle's writes): pushes the collectors
    /// whose operands are now all read onto `collected`.
    fn cycle(&mut self, now: u64, collected: &mut Vec<CuId>);

    /// The instruction in `cu` left for its execution unit: the collector is free again.
    fn release(&mut self, cu: CuId);

    /// Writes a result at `now`; `false` if it cannot be written this cycle (retry next cycle).
    fn try_write(&mut self, req: &WriteRequest<'_>, now: u64) -> bool;

    /// True while reads are queued: the SM must simulate the next cycle rather than skip it.
    fn busy(&self) -> bool;

    /// Counts so far.
    fn stats(&self) -> SchemeStats;

    // ---- SM hooks (residency, issue routing, memory) ----
    // Plain methods with no-op defaults. The SM asks `hooks` once, when it is built, and makes
    // no other hook call for a hook the answer leaves out.

    /// The hooks this scheme uses (none by default).
    fn hooks(&self) -> HookSet {
        HookSet::NONE
    }

    /// Resident CTAs per SM this scheme admits when the occupancy calculator allows
    /// `slots_limit` (at least `slots_limit`, which stays the number of active CTAs a launch
    /// may start as). Default: `slots_limit`.
    fn max_resident_ctas(&self, slots_limit: u32) -> u32 {
        slots_limit
    }

    /// Resident CTAs per SM this scheme admits for a kernel of footprint `cta` (asked once per
    /// launch shape, on the chip's own instance). Default: [`RegisterFileScheme::max_resident_ctas`]
    /// of the slot limit.
    fn max_resident_ctas_for(&self, cta: &CtaFootprint<'_>) -> u32 {
        self.max_resident_ctas(cta.slots_limit)
    }

    /// The timed program, shown once before the SM's first cycle when the scheme uses any hook
    /// (static per-instruction tables: live registers by `sid`, …). Default: ignored.
    fn bind_program(&mut self, _program: &Program) {}

    /// Warp slots per SM this scheme needs when the GPU has `warp_slots` (resident warps of
    /// parked CTAs hold one each). Default: `warp_slots`.
    fn max_resident_warps(&self, warp_slots: u32) -> u32 {
        warp_slots
    }

    /// A residency event at `now` ([`HookSet::RESIDENCY`], [`HookSet::ACTIVE_SET`]): the scheme
    /// may answer with actions and memory requests in `out`.
    fn on_residency(&mut self, _event: &ResidencyEvent, _now: u64, _out: &mut SmActions) {}

    /// Memory request `id` completed at `now` (its data is back).
    fn on_memory_done(&mut self, _id: u64, _now: u64, _out: &mut SmActions) {}

    /// Unit pools this scheme adds to each SM ([`Route::Scheme`] names them by index).
    fn scheme_units(&self) -> Vec<SchemeUnit> {
        Vec::new()
    }

    /// Where the instruction of `req` executes ([`HookSet::ROUTE`]; asked before the unit is
    /// checked, every time the instruction tries to issue). Default: its own unit.
    fn route(&mut self, _req: &OperandRequest<'_>, _now: u64) -> Route {
        Route::Own
    }

    /// Extra cycles between reading source operand `operand` (an index into `req.reads`) and
    /// dispatch ([`HookSet::OPERAND_LATENCY`]); the instruction waits for its slowest operand.
    /// Default: [`RegisterFileScheme::extra_read_stages`].
    fn operand_read_latency(&self, _req: &OperandRequest<'_>, _operand: usize) -> u32 {
        self.extra_read_stages()
    }

    /// Extra cycles before result `operand` (an index into `req.writes`) is written back
    /// ([`HookSet::OPERAND_LATENCY`]); the result waits for the slowest.
    /// Default: [`RegisterFileScheme::extra_write_stages`].
    fn operand_write_latency(&self, _req: &OperandRequest<'_>, _operand: usize) -> u32 {
        self.extra_write_stages()
    }

    /// Whether `second`, a ready instruction of another warp of the same scheduler, may issue in
    /// the slot `first` issued in this cycle ([`HookSet::PAIRING`]). Asked for the scheduler's
    /// other warps in slot order until one is paired (at most one pair per scheduler cycle).
    fn pair(&mut self, _first: &OperandRequest<'_>, _second: &OperandRequest<'_>) -> bool {
        false
    }

    /// The value summaries of warp `warp`'s instruction about to try to issue
    /// ([`HookSet::VALUES`]): one per register unit it writes, as the functional run found them
    /// (empty when it wrote none, or its guard held in no lane). Told before
    /// [`RegisterFileScheme::route`] and [`RegisterFileScheme::try_issue`] of every attempt; for a
    /// scheme's own program, the summaries of the original instruction at the stream position
    /// the issued one stands at.
    fn on_values(&mut self, _warp: u32, _values: &[ValueSummary]) {}

    /// The scheme's own program (a transforming scheme's), told once per SM before any issue.
    fn on_scheme_program(&mut self, _program: &SchemeProgram) {}

    /// The cause an [`IssueOutcome::Stall`] is charged to (asked only after one).
    fn issue_stall_cause(&self) -> StallCause {
        StallCause::SchemeSpecific
    }

    /// The warp-scheduling policy of the SM given the preset's `preset` (asked once, when the SM
    /// is built; a scheme that brings its own scheduler, such as Gebhart's two-level one,
    /// replaces it). Default: `preset`.
    fn scheduler_policy(&self, preset: SchedulingPolicy) -> SchedulingPolicy {
        preset
    }

    /// Compile-time tables: called once before the run with the module and the program the run
    /// decodes (runs built without a module, [`crate::timing::Simulation::new`], and schemes
    /// that time their own program are not called). Default: nothing.
    fn prepare(&mut self, _module: &Module, _program: &Program) {}

    /// Single-use attribution (DeMO's Fig. 2, asked for by
    /// [`crate::timing::TimingOptions::single_use_attribution`]): `marks` names the operand
    /// positions, by `sid` of the program this run times, that are accesses of single-use memory
    /// values. Default: ignored (the baseline counts them).
    fn attribute_single_use(&mut self, _marks: &alloc::rc::Rc<demo_marks::SingleUseMarks>) {}
}
