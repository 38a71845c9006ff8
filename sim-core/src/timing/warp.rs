//! A warp slot of an SM and a resident CTA: where the warp is in its stream, its instruction
//! buffer, whether it waits at a barrier, and how many of its instructions are still in flight.
//!
//! ```text
//! Warp { cta: 2, index: 1, pc: 17 of 40, at_barrier: false, in_flight: 3, scheduler: 1 }
//! ```
//!
//! A warp has finished when its whole stream has issued and nothing is in flight; a CTA when all
//! its warps have. A barrier releases when every unfinished warp of the CTA waits at one (the
//! executor ran the CTA barrier phase by barrier phase, so the streams agree with this).

use alloc::rc::Rc;
use alloc::vec::Vec;

use super::ibuffer::IBuffer;
use super::trace::{CtaStream, DynInst};

/// One warp slot.
#[derive(Clone, Debug)]
pub struct Warp {
    /// A warp occupies the slot.
    pub live: bool,
    /// Its CTA's slot in the SM.
    pub cta: u32,
    /// Warp index in the CTA.
    pub index: u32,
    /// Unique in the run (local-memory regions).
    pub uid: u64,
    /// Next instruction of the stream to issue.
    pub pc: u32,
    /// Stream length.
    pub len: u32,
    /// Instruction buffer.
    pub ib: IBuffer,
    /// Waiting at a barrier.
    pub at_barrier: bool,
    /// Issued instructions not yet completed.
    pub in_flight: u32,
    /// Its scheduler.
    pub scheduler: u32,
    /// Its scheduler's group (sub-core).
    pub group: u32,
    /// Its instruction at `pc` (valid while `pc < len`).
    pub next: DynInst,
}

impl Warp {
    /// An empty slot.
    pub fn empty() -> Self {
        Warp {
            live: false,
            cta: 0,
            index: 0,
            uid: 0,
            pc: 0,
            len: 0,
            ib: IBuffer::starting_at(0),
            at_barrier: false,
            in_flight: 0,
            scheduler: 0,
            group: 0,
            next: DynInst::default(),
        }
    }

    /// Every instruction issued and completed.
    pub fn done(&self) -> bool {
        self.pc >= self.len && self.in_flight == 0 && !self.at_barrier
    }
}

/// A CTA resident on an SM.
#[derive(Clone, Debug)]
pub struct ResidentCta {
    /// Its streams.
    pub stream: Rc<CtaStream>,
    /// Its warps' slots, by warp index.
    pub slots: Vec<u32>,
    /// Warps not yet finished.
    pub live_warps: u32,
    /// Warps waiting at a barrier.
    pub waiting: u32,
    /// Registers the CTA holds (registers per thread × threads).
    pub registers: u32,
}

impl ResidentCta {
    /// Instruction `pc` of warp `index`.
    pub fn inst(&self, index: u32, pc: u32) -> Option<DynInst> {
        self.stream.warps.get(index as usize)?.insts.get(pc as usize).copied()
    }

    /// The addresses of `d` in warp `index`.
    pub fn addresses(&self, index: u32, d: &DynInst) -> &[u64] {
        let Some(w) = self.stream.warps.get(index as usize) else { return &[] };
        let a = d.addr_start as usize;
        w.addresses.get(a..a + d.addr_count as usize).unwrap_or(&[])
    }
}
