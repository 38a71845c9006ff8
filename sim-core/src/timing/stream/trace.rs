//! The timing model's input: each CTA's per-warp dynamic instruction streams, as the functional
//! executor records them ([`crate::exec::stream`]), in the compact form the model replays
//! ([`crate::timing::stream::warp_stream`]).
//!
//! ```text
//! CtaStream { launch: 0, shape: { kernel: 0, threads: 64, dynamic_smem: 0 }, warps: [
//!   WarpStream { runs: [{sid 0, len 3, lanes ffffffff}, …], accesses: [{at 2, shared, 0x40 + 4·lane}, …] },
//!   WarpStream { … } ] }
//! ```
//!
//! Replay decodes one [`DynInst`] at a time: the static instruction by `sid` (an index into
//! [`crate::timing::program::Program`]), the lanes that executed it (active in the SIMT stack and guard
//! true) and, for a memory instruction, its access record — the resolved state space and the
//! per-lane byte addresses (one per executed lane). Barriers, branches and exits are ordinary
//! instructions whose static record says what they are. A [`CtaSource`] hands CTAs over one at a
//! time, in the order the executor ran them; the adapter from the executor lives in
//! [`crate::timing::stream::exec_source`].

use alloc::boxed::Box;
use alloc::collections::VecDeque;
use alloc::string::String;
use alloc::vec::Vec;

use serde::{Deserialize, Serialize};

use crate::timing::error::SourceError;
use crate::timing::stream::store::{More, Piece};

pub use crate::timing::stream::warp_stream::{WarpStream, NO_ACCESS};

/// The state space a memory instruction accessed, as resolved from its addresses.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MemSpace {
    /// Global memory: coalesced, through L1, L2 and DRAM.
    Global,
    /// Per-thread local memory: interleaved per lane, then like global.
    Local,
    /// The CTA's shared memory: banked.
    Shared,
    /// Constant memory: a broadcast through the constant cache.
    Const,
    /// Kernel parameters (constant bank).
    Param,
}

impl MemSpace {
    /// Every space, in a fixed order (the index of a space in it is its code in a stream).
    pub const ALL: [MemSpace; 5] =
        [MemSpace::Global, MemSpace::Local, MemSpace::Shared, MemSpace::Const, MemSpace::Param];

    /// Its index in [`MemSpace::ALL`].
    pub fn code(self) -> u32 {
        match self {
            MemSpace::Global => 0,
            MemSpace::Local => 1,
            MemSpace::Shared => 2,
            MemSpace::Const => 3,
            MemSpace::Param => 4,
        }
    }
}

/// The lanes of a warp (bit `l` for lane `l`): 32 on NVIDIA GPUs, 64 on a GCN3 wavefront.
pub type LaneMask = u64;

/// The most lanes a warp has (a GCN3 wavefront's 64).
pub const MAX_LANES: usize = 64;

/// One executed warp-instruction as replay sees it, decoded from its [`WarpStream`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DynInst {
    /// Static instruction id: an index into [`crate::timing::program::Program`].
    pub sid: u32,
    /// Lanes active in the SIMT stack whose guard predicate held (0: the instruction had no
    /// effect); thread-instructions count these, and a memory instruction has one address per
    /// such lane.
    pub executed: LaneMask,
    /// Its memory access in the stream ([`WarpStream::access`]); [`NO_ACCESS`] for none.
    pub access: u32,
    /// The space that access resolved to (`None` without one): what the chip needs to know
    /// before dispatch (whether it may reach the L2) without reading the access.
    pub space: Option<MemSpace>,
}

impl Default for DynInst {
    fn default() -> Self {
        DynInst { sid: 0, executed: 0, access: NO_ACCESS, space: None }
    }
}

/// One memory instruction's per-lane addresses as the stream stores them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LaneAddrs<'a> {
    /// One address per executed lane, in lane order.
    List(&'a [u64]),
    /// Lane `l` of `executed` accesses `base + sx × (l mod w) + sy × (l div w)` (`w` a power of
    /// two, at most 64).
    Affine {
        /// Address of lane 0.
        base: u64,
        /// Stride between lanes of a row.
        sx: u64,
        /// Stride between rows.
        sy: u64,
        /// Lanes per row.
        w: u64,
        /// The lanes that access memory.
        executed: LaneMask,
    },
}

impl LaneAddrs<'_> {
    /// The addresses, one per executed lane in lane order: the list itself, or the affine form
    /// expanded into `buf`.
    pub fn expand<'b>(&self, buf: &'b mut [u64; MAX_LANES]) -> &'b [u64]
    where
        Self: 'b,
    {
        let (base, sx, sy, w, executed) = match *self {
            LaneAddrs::List(list) => return list,
            LaneAddrs::Affine { base, sx, sy, w, executed } => (base, sx, sy, w, executed),
        };
        let (shift, mask) = if w.is_power_of_two() { (w.trailing_zeros(), w - 1) } else { (5, 31) };
        let full = if executed >> 32 == 0 { u64::from(u32::MAX) } else { u64::MAX };
        if executed == full && w.is_power_of_two() && w <= 64 {
            // Row by row, one addition per lane.
            let lanes_of = if full == u64::MAX { MAX_LANES } else { 32 };
            for (row, lanes) in (0u64..).zip(buf.get_mut(..lanes_of).unwrap_or(&mut []).chunks_mut(w as usize)) {
                let mut x = base.wrapping_add(sy.wrapping_mul(row));
                for slot in lanes {
                    *slot = x;
                    x = x.wrapping_add(sx);
                }
            }
            return buf.get(..lanes_of).unwrap_or(&[]);
        }
        let at =
            |lane: u64| base.wrapping_add(sx.wrapping_mul(lane & mask)).wrapping_add(sy.wrapping_mul(lane >> shift));
        let mut m = executed;
        let mut n = 0;
        for x in buf.iter_mut() {
            if m == 0 {
                break;
            }
            *x = at(u64::from(m.trailing_zeros()));
            m &= m - 1;
            n += 1;
        }
        buf.get(..n).unwrap_or(&[])
    }
}

/// What a CTA is an instance of: which kernel, how many threads, how much dynamic shared memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct LaunchShape {
    /// Kernel index in [`crate::timing::program::Program::kernels`].
    pub kernel: u32,
    /// Threads per CTA.
    pub threads: u32,
    /// Dynamic shared memory per CTA in bytes.
    pub dynamic_smem: u32,
}

/// One CTA's streams.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CtaStream {
    /// Launch index in the run (counting repetitions): all CTAs of launch `k` finish before any
    /// CTA of launch `k + 1` starts.
    pub launch: u32,
    /// The kernel and block shape.
    pub shape: LaunchShape,
    /// The warps in index order.
    pub warps: Vec<WarpStream>,
    /// Set when the CTA was handed out before it finished: its warps' streams go on in pieces
    /// ([`crate::timing::stream::store`]).
    #[serde(skip)]
    pub more: Option<More>,
}

impl Default for LaunchShape {
    fn default() -> Self {
        LaunchShape { kernel: 0, threads: 32, dynamic_smem: 0 }
    }
}

impl CtaStream {
    /// Warp-instructions in this CTA.
    pub fn warp_instructions(&self) -> u64 {
        self.warps.iter().map(|w| u64::from(w.len())).sum()
    }

    /// Checks every warp's stream against `program_len` static instructions, so the model can
    /// index without further checks.
    pub fn validate(&self, program_len: usize) -> Result<(), String> {
        for (w, warp) in self.warps.iter().enumerate() {
            warp.validate(program_len).map_err(|e| alloc::format!("launch {} warp {w}: {e}", self.launch))?;
        }
        Ok(())
    }
}

/// Where CTAs come from: the executor (through [`crate::timing::stream::exec_source::ExecSource`]) or a list.
pub trait CtaSource {
    /// The next CTA in execution order, `None` after the last; an error ends the simulation.
    fn next_cta(&mut self) -> Result<Option<CtaStream>, SourceError>;

    /// More of CTA number `cta` (counting from 0 in the order handed out), one handed out with
    /// [`CtaStream::more`] set: runs it on until warp `warp` has more instructions or the CTA
    /// ends, and returns what every warp recorded meanwhile.
    fn more(&mut self, cta: u64, warp: usize) -> Result<Vec<Piece>, SourceError> {
        let _ = (cta, warp);
        Ok(Vec::new())
    }

    /// Whether the next CTA can start without first finishing the CTAs handed out unfinished
    /// (false when it belongs to the next launch).
    fn ready(&self) -> bool {
        true
    }

    /// Quick mode's sample, when the source takes one: `(every, whole)` — it hands out one wave
    /// of consecutive CTAs in every `every` waves of each launch, of `whole` CTAs in the
    /// sequence.
    fn sampling(&self) -> Option<(u64, u64)> {
        None
    }

    /// Lanes per warp of the streams: 32, or 64 for GCN3 wavefronts.
    fn lanes(&self) -> u32 {
        32
    }

    /// CTAs this source will produce in all, when known (progress reporting only).
    fn total_ctas(&self) -> Option<u64> {
        None
    }

    /// What the functional run has to tell its user so far (divisions by zero, …).
    fn notices(&self) -> Vec<crate::exec::Notice> {
        Vec::new()
    }
}

/// A source over CTAs held in memory (tests, replays).
#[derive(Clone, Debug, Default)]
pub struct VecSource {
    ctas: VecDeque<CtaStream>,
    total: u64,
}

impl VecSource {
    /// The CTAs in order.
    pub fn new(ctas: Vec<CtaStream>) -> Self {
        let total = ctas.len() as u64;
        VecSource { ctas: ctas.into(), total }
    }

    /// Boxed, for [`crate::timing::Simulation::new`].
    pub fn boxed(ctas: Vec<CtaStream>) -> Box<dyn CtaSource> {
        Box::new(Self::new(ctas))
    }
}

impl CtaSource for VecSource {
    fn next_cta(&mut self) -> Result<Option<CtaStream>, SourceError> {
        Ok(self.ctas.pop_front())
    }

    fn total_ctas(&self) -> Option<u64> {
        Some(self.total)
    }
}
