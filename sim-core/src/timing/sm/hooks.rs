//! What a register-file scheme may ask of the SM beyond operand collection: which hooks it uses
//! ([`HookSet`], asked once when the SM is built so that unused hooks cost nothing per
//! instruction), CTA residency events and the actions it answers with, routing of an instruction
//! to another unit (or a unit the scheme adds), and memory requests of its own.
//!
//! ```text
//! scheme.hooks() = RESIDENCY | ROUTE
//! warp 5 sleeps on a load → WarpLongLatencyStall { warp: 5, cta: 1, sid: 17 }
//! every warp of CTA 1 waits → CtaAllStalled { cta: 1 } → scheme: Swap { park: 1, activate: 3,
//!   cost: MoveCost { cycles: 20, rf_reads: 0, rf_writes: 0 } } + a 128-byte global write
//! end of cycle t: CTA 1's warps leave their schedulers; CTA 3's join at t + 1 + 20
//! ```
//!
//! Timing of the actions, applied at the end of the cycle the scheme answered in (after issue):
//! a parked CTA's warps leave their schedulers at once (instructions in flight complete); an
//! activation with a cost of `k` cycles lets the CTA's warps issue from `t + 1 + k`. A scheme
//! memory request answered in cycle `t` is sent in the dispatch stage of `t + 1` through the SM's
//! L1 (reads) to the L2 and DRAM — not through the LD/ST unit, which it does not occupy — and the
//! scheme hears of its completion ([`crate::timing::regfile::RegisterFileScheme::on_memory_done`])
//! at the start of the cycle its data is back (a write: the cycle after it is sent).

use alloc::vec::Vec;

use crate::timing::exec_units::UnitKind;
use crate::timing::stream::trace::MemSpace;

/// The SM hooks a scheme uses, as bits (see the constants).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct HookSet(u8);

impl HookSet {
    /// None: the SM makes no hook call at all.
    pub const NONE: HookSet = HookSet(0);
    /// Residency events ([`ResidencyEvent`] but the active-set ones) and actions.
    pub const RESIDENCY: HookSet = HookSet(1);
    /// The two-level scheduler's active-set changes ([`ResidencyEvent::ActiveSetEnter`], …).
    pub const ACTIVE_SET: HookSet = HookSet(2);
    /// Per-instruction routing ([`crate::timing::regfile::RegisterFileScheme::route`]).
    pub const ROUTE: HookSet = HookSet(4);
    /// Per-operand extra latency
    /// ([`crate::timing::regfile::RegisterFileScheme::operand_read_latency`] and the write one).
    pub const OPERAND_LATENCY: HookSet = HookSet(8);
    /// Pairing of two warps' instructions in one issue slot
    /// ([`crate::timing::regfile::RegisterFileScheme::pair`]).
    pub const PAIRING: HookSet = HookSet(16);
    /// The value summaries of each instruction about to issue
    /// ([`crate::timing::regfile::RegisterFileScheme::on_values`]; the run must record values:
    /// [`crate::timing::regfile::SchemeEntry::needs_values`]).
    pub const VALUES: HookSet = HookSet(32);

    /// Every hook of `self` and of `other`.
    pub const fn with(self, other: HookSet) -> HookSet {
        HookSet(self.0 | other.0)
    }

    /// Every hook of `other` is in `self`.
    pub const fn contains(self, other: HookSet) -> bool {
        self.0 & other.0 == other.0
    }

    /// No hook at all.
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }
}

impl core::ops::BitOr for HookSet {
    type Output = HookSet;
    fn bitor(self, rhs: HookSet) -> HookSet {
        self.with(rhs)
    }
}

/// Something that happened to the SM's resident CTAs and warps. CTAs are named by their slot in
/// the SM (stable while resident), warps by their warp slot.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ResidencyEvent {
    /// A CTA became resident: active unless the SM already had as many active CTAs as the slot
    /// limit allows.
    CtaLaunched {
        /// Its slot.
        cta: u32,
        /// Its number in the run (dispatch order).
        number: u64,
        /// Its warps.
        warps: u32,
        /// Registers it holds (registers per thread × threads).
        registers: u32,
        /// Launched active (else resident but parked).
        active: bool,
    },
    /// A warp went to sleep waiting for a load's (long-latency) result.
    WarpLongLatencyStall {
        /// Warp slot.
        warp: u32,
        /// Its CTA's slot.
        cta: u32,
        /// The static instruction it waits to issue.
        sid: u32,
    },
    /// Every unfinished warp of an active CTA waits on a load's result or at a barrier, at
    /// least one on a load.
    CtaAllStalled {
        /// The CTA's slot.
        cta: u32,
    },
    /// Every warp of a parked CTA has its loads back (none waits on memory): the CTA could run
    /// again. Told once per park (at the park itself when nothing was outstanding).
    ParkedCtaReady {
        /// The CTA's slot.
        cta: u32,
    },
    /// A warp completed its last instruction.
    WarpFinished {
        /// Warp slot.
        warp: u32,
        /// Its CTA's slot.
        cta: u32,
    },
    /// A CTA's last warp finished; its slot is free after this cycle.
    CtaFinished {
        /// Its slot.
        cta: u32,
    },
    /// A warp joined the two-level scheduler's active set.
    ActiveSetEnter {
        /// Warp slot.
        warp: u32,
    },
    /// A warp left the two-level scheduler's active set (it waits on a load or at a barrier).
    ActiveSetLeave {
        /// Warp slot.
        warp: u32,
    },
}

/// What moving a CTA's registers or context costs, as the scheme states it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MoveCost {
    /// Cycles the move takes (an activation is delayed by them).
    pub cycles: u32,
    /// Warp-register reads of the move.
    pub rf_reads: u64,
    /// Warp-register writes of the move.
    pub rf_writes: u64,
}

/// A scheme's answer to a residency event.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ResidencyAction {
    /// The CTA's warps stop issuing (no effect on a parked CTA).
    Park {
        /// CTA slot.
        cta: u32,
        /// Its cost.
        cost: MoveCost,
    },
    /// The CTA's warps issue again after `cost.cycles` (no effect on an active CTA).
    Activate {
        /// CTA slot.
        cta: u32,
        /// Its cost.
        cost: MoveCost,
    },
    /// `park` stops at once; `activate` issues again after `cost.cycles`.
    Swap {
        /// CTA slot parked.
        park: u32,
        /// CTA slot activated.
        activate: u32,
        /// Cost of the whole swap.
        cost: MoveCost,
    },
}

/// A memory request of the scheme's own (context spills, live-vector misses, …).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SchemeMemRequest {
    /// The scheme's name for it (returned on completion).
    pub id: u64,
    /// A write (else a read).
    pub write: bool,
    /// Global or local (other spaces are timed as global).
    pub space: MemSpace,
    /// First byte (local: an offset in the scheme's own local region).
    pub addr: u64,
    /// Bytes, contiguous.
    pub bytes: u32,
}

/// What a hook answers: residency actions and memory requests, applied by the SM at the end of
/// the cycle.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SmActions {
    /// Residency actions, applied in order.
    pub residency: Vec<ResidencyAction>,
    /// Memory requests, sent in order.
    pub memory: Vec<SchemeMemRequest>,
}

/// Where an instruction executes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Route {
    /// Its own unit.
    Own,
    /// Another unit of the SM (with the instruction's own latency and interval).
    Unit(UnitKind),
    /// Unit pool `n` of [`crate::timing::regfile::RegisterFileScheme::scheme_units`].
    Scheme(u8),
}

/// A pool of execution pipes a scheme adds to each SM (a scalar unit, …).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SchemeUnit {
    /// Name (`scalar`, …).
    pub name: &'static str,
    /// Pipes in the pool, per SM.
    pub pipes: u32,
    /// Cycles from dispatch to the result.
    pub latency: u32,
    /// Cycles a pipe is busy per instruction.
    pub interval: u32,
}
