//! The timing model's input: each CTA's per-warp dynamic instruction streams, as the functional
//! executor records them ([`crate::exec::stream`]), in a compact form the model replays.
//!
//! ```text
//! CtaStream { launch: 0, shape: { kernel: 0, threads: 64, dynamic_smem: 0 }, warps: [
//!   WarpStream { insts: [ {sid 0 ld.param …, executed ffffffff}, {sid 3 ld.global, addrs 0..32}, … ] },
//!   WarpStream { … } ] }
//! ```
//!
//! A [`DynInst`] names its static instruction by `sid` (an index into [`super::program::Program`]),
//! carries the lanes that executed it (active in the SIMT stack and guard true), and — for memory instructions — the
//! resolved state space and its per-lane byte addresses (one per executed lane, lane order),
//! stored as four words when they are affine in the lane's position in a 1-D or 2-D block — the
//! common case, which keeps replayed streams small and cache friendly. Barriers, branches and exits are ordinary instructions whose static record says what
//! they are. A [`CtaSource`] hands CTAs over one at a time, in the order the executor ran them;
//! the adapter from the executor lives in [`super::exec_source`].

use alloc::boxed::Box;
use alloc::collections::VecDeque;
use alloc::string::String;
use alloc::vec::Vec;

use serde::{Deserialize, Serialize};

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

/// One executed warp-instruction: 16 bytes, so that replaying a warp's stream touches as few
/// cache lines as possible.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct DynInst {
    /// Static instruction id: an index into [`super::program::Program`].
    pub sid: u32,
    /// Lanes active in the SIMT stack whose guard predicate held (0: the instruction had no
    /// effect); thread-instructions count these, and a memory instruction has one address per
    /// such lane.
    pub executed: u32,
    /// First address of this instruction in [`WarpStream::addresses`].
    pub addr_start: u32,
    /// Bytes accessed per lane (memory instructions).
    pub bytes: u16,
    /// The space accessed (memory instructions).
    pub space: Option<MemSpace>,
    /// How the addresses are stored at `addr_start`.
    pub addr_form: AddrForm,
}

/// How one instruction's per-lane addresses are stored in [`WarpStream::addresses`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum AddrForm {
    /// One address per executed lane, in lane order ([`DynInst::addr_count`] words).
    #[default]
    List,
    /// `[base, sx, sy, w]` (`w` a power of two): lane `l`'s address is
    /// `base + sx × (l mod w) + sy × (l div w)` for every lane in `executed` (with `w = 32` a plain
    /// affine `base + sx × l`) — how a warp of a 1-D or 2-D thread block walks an array.
    Affine,
}

impl AddrForm {
    /// Words the form takes for `count` addresses.
    pub fn words(self, count: u32) -> u64 {
        match self {
            AddrForm::List => u64::from(count),
            AddrForm::Affine => 4,
        }
    }
}

impl DynInst {
    /// Number of per-lane addresses: one per executed lane of a memory instruction, none
    /// otherwise.
    pub fn addr_count(&self) -> u32 {
        if self.space.is_some() {
            self.executed.count_ones()
        } else {
            0
        }
    }
}

/// One memory instruction's per-lane addresses as the stream stores them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LaneAddrs<'a> {
    /// One address per executed lane, in lane order.
    List(&'a [u64]),
    /// Lane `l` of `executed` accesses `base + sx × (l mod w) + sy × (l div w)` (`w` a power of
    /// two, at most 32).
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
        executed: u32,
    },
}

impl LaneAddrs<'_> {
    /// The addresses, one per executed lane in lane order: the list itself, or the affine form
    /// expanded into `buf`.
    pub fn expand<'b>(&self, buf: &'b mut [u64; 32]) -> &'b [u64]
    where
        Self: 'b,
    {
        let (base, sx, sy, w, executed) = match *self {
            LaneAddrs::List(list) => return list,
            LaneAddrs::Affine { base, sx, sy, w, executed } => (base, sx, sy, w, executed),
        };
        let (shift, mask) = if w.is_power_of_two() { (w.trailing_zeros(), w - 1) } else { (5, 31) };
        if executed == u32::MAX && w.is_power_of_two() && w <= 32 {
            // Row by row, one addition per lane.
            for (row, lanes) in (0u64..).zip(buf.chunks_mut(w as usize)) {
                let mut x = base.wrapping_add(sy.wrapping_mul(row));
                for slot in lanes {
                    *slot = x;
                    x = x.wrapping_add(sx);
                }
            }
            return buf;
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

impl WarpStream {
    /// The per-lane addresses of `d` as stored.
    pub fn lane_addrs(&self, d: &DynInst) -> LaneAddrs<'_> {
        let a = d.addr_start as usize;
        if d.addr_form == AddrForm::List {
            return LaneAddrs::List(self.addresses.get(a..a + d.addr_count() as usize).unwrap_or(&[]));
        }
        match self.addresses.get(a..a + 4) {
            Some(&[base, sx, sy, w]) => LaneAddrs::Affine { base, sx, sy, w, executed: d.executed },
            _ => LaneAddrs::List(&[]),
        }
    }
}

/// One warp's dynamic instruction stream in one CTA.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct WarpStream {
    /// Instructions in execution order.
    pub insts: Vec<DynInst>,
    /// Per-lane byte addresses of memory instructions.
    pub addresses: Vec<u64>,
}

/// What a CTA is an instance of: which kernel, how many threads, how much dynamic shared memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct LaunchShape {
    /// Kernel index in [`super::program::Program::kernels`].
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
}

impl Default for LaunchShape {
    fn default() -> Self {
        LaunchShape { kernel: 0, threads: 32, dynamic_smem: 0 }
    }
}

impl CtaStream {
    /// Warp-instructions in this CTA.
    pub fn warp_instructions(&self) -> u64 {
        self.warps.iter().map(|w| w.insts.len() as u64).sum()
    }

    /// Checks every `sid` against `program_len` and every address range against its warp's
    /// addresses, so the model can index without further checks.
    pub fn validate(&self, program_len: usize) -> Result<(), String> {
        for (w, warp) in self.warps.iter().enumerate() {
            for (i, d) in warp.insts.iter().enumerate() {
                let end = u64::from(d.addr_start) + d.addr_form.words(d.addr_count());
                if d.sid as usize >= program_len || end > warp.addresses.len() as u64 {
                    return Err(alloc::format!(
                        "launch {} warp {w} instruction {i}: static id {} or address range {}..{end} out of range",
                        self.launch,
                        d.sid,
                        d.addr_start
                    ));
                }
            }
        }
        Ok(())
    }
}

/// Where CTAs come from: the executor (through [`super::exec_source::ExecSource`]) or a list.
pub trait CtaSource {
    /// The next CTA in execution order, `None` after the last; an error ends the simulation.
    fn next_cta(&mut self) -> Result<Option<CtaStream>, String>;

    /// CTAs this source will produce in all, when known (progress reporting only).
    fn total_ctas(&self) -> Option<u64> {
        None
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

    /// Boxed, for [`super::Simulation::new`].
    pub fn boxed(ctas: Vec<CtaStream>) -> Box<dyn CtaSource> {
        Box::new(Self::new(ctas))
    }
}

impl CtaSource for VecSource {
    fn next_cta(&mut self) -> Result<Option<CtaStream>, String> {
        Ok(self.ctas.pop_front())
    }

    fn total_ctas(&self) -> Option<u64> {
        Some(self.total)
    }
}
