//! The dynamic instruction stream the timing model consumes: CTA by CTA, each warp's executed
//! instructions in order, with the active mask, the lanes whose guard held, the per-lane memory
//! addresses of memory instructions and, on request, summaries of the values written
//! ([`super::value_summary`]: uniform or not, significant bits). Barriers are
//! records of their own, so a timing model can interleave the warps of a CTA correctly. Streams
//! are produced lazily ([`crate::exec::Run::next_cta`]): memory is bounded by one CTA.
//!
//! ```text
//! CtaTrace { cta: [3,0,0], warps: [
//!   WarpTrace { records: [ {pc 0 ld.param …}, …, {pc 9 bar.sync: kind Barrier, aux 0}, … ] }, … ] }
//! ```

use alloc::string::String;
use alloc::vec::Vec;

use serde::{Deserialize, Serialize};

use super::memory::Space;
use super::value_summary::ValueSummary;
use crate::ir::{Function, Handle, Inst};

/// What the stream records.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TraceOptions {
    /// Record the instruction stream.
    pub enabled: bool,
    /// Also record, for each register an instruction writes, a [`ValueSummary`] per 32-bit unit
    /// (set when a scheme models values; costs nothing when off).
    pub values: bool,
    /// With `values`: also the first executed lane's bits of each summarised unit
    /// ([`WarpTrace::firsts`]), so that the summaries of two warps can be joined exactly (64-wide
    /// wavefronts, [`super::wavefront`]).
    #[serde(default)]
    pub first_values: bool,
}

/// The class of a stream record.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RecordKind {
    /// Arithmetic, logic, conversion, moves.
    Alu,
    /// A load (`ld`, `ldu`, `ldmatrix`, `cp.async` source).
    Load,
    /// A store.
    Store,
    /// An atomic or reduction.
    Atomic,
    /// A CTA barrier (`aux` is the barrier number).
    Barrier,
    /// A branch.
    Branch,
    /// A call.
    Call,
    /// A return from a function.
    Return,
    /// Thread exit (`exit`, or `ret` from the kernel).
    Exit,
    /// A warp-wide operation (`vote`, `shfl`, `mma`, …).
    Warp,
    /// No functional effect (`membar`, `fence`, `prefetch`, …).
    Nop,
}

/// One executed warp-instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TraceRecord {
    /// Index into [`CtaTrace::functions`].
    pub func: u16,
    /// Access size per lane in bytes (memory records).
    pub bytes: u16,
    /// The IR instruction.
    pub inst: Handle<Inst>,
    /// Program counter in the function's decoded code.
    pub pc: u32,
    /// Lanes active in the SIMT stack.
    pub active: u32,
    /// Active lanes whose guard predicate held.
    pub executed: u32,
    /// The class.
    pub kind: RecordKind,
    /// The space accessed (memory records; `None` for generic addresses, which the addresses show).
    pub space: Option<Space>,
    /// Barrier number for barriers; otherwise 0.
    pub aux: u32,
    /// First address in [`WarpTrace::addresses`] (one per executed lane, in lane order).
    pub addr_start: u32,
    /// Number of addresses.
    pub addr_count: u32,
    /// First summary in [`WarpTrace::values`] of the registers written (one per unit, in
    /// destination order), `u32::MAX` if none.
    pub value_start: u32,
    /// Summaries from `value_start` (0 if none).
    pub value_units: u8,
}

/// One warp's stream in one CTA.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct WarpTrace {
    /// Warp index in the CTA.
    pub warp: u32,
    /// Records in execution order.
    pub records: Vec<TraceRecord>,
    /// Addresses of memory records.
    pub addresses: Vec<u64>,
    /// Summaries of the values records wrote (when requested).
    pub values: Vec<ValueSummary>,
    /// Per summary in `values`: the unit's bits in the first executed lane (when
    /// [`TraceOptions::first_values`]).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub firsts: Vec<u32>,
}

/// One CTA's streams.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CtaTrace {
    /// Index of the launch in the run (counting repetitions).
    pub launch: u32,
    /// The kernel.
    pub kernel: String,
    /// `%ctaid`.
    pub cta: [u32; 3],
    /// IR functions by the `func` index of records (0 is the kernel).
    pub functions: Vec<Handle<Function>>,
    /// The warps in index order.
    pub warps: Vec<WarpTrace>,
}

impl CtaTrace {
    /// Warp-instructions in this CTA.
    pub fn warp_instructions(&self) -> usize {
        self.warps.iter().map(|w| w.records.len()).sum()
    }
}
