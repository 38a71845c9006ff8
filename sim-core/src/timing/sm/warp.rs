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

use crate::timing::sm::ibuffer::IBuffer;
use crate::timing::sm::refill::Pieces;
use crate::timing::stream::trace::{CtaStream, DynInst};
use crate::timing::stream::warp_stream::{Cursor, StreamAccess, WarpStream};

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
    /// Where `next` was decoded in its stream.
    pub cursor: Cursor,
    /// The stream position whose value summaries the scheme was told last (values hook;
    /// `u32::MAX`: none yet).
    pub fed: u32,
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
            cursor: Cursor::default(),
            fed: u32::MAX,
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
    /// Its warps may issue (not parked by the scheme).
    pub active: bool,
    /// Parked, with an activation pending.
    pub activating: bool,
    /// Warps asleep on a load's result (counted only for schemes with residency hooks).
    pub mem_waiting: u32,
    /// When the CTA arrived unfinished: each warp's own window of its stream, refilled piece by
    /// piece ([`crate::timing::sm`]'s `refill`); `None`: the streams are `stream`'s.
    pub pieces: Option<Pieces>,
}

impl ResidentCta {
    /// The memory access of `d`, an instruction of warp `index`, if it has one.
    pub fn access(&self, index: u32, d: &DynInst) -> Option<StreamAccess<'_>> {
        self.warp_stream(index)?.access(d)
    }

    /// Warp `index`'s stream (its window, when the CTA comes in pieces).
    #[inline]
    pub fn warp_stream(&self, index: u32) -> Option<&WarpStream> {
        match &self.pieces {
            None => self.stream.warps.get(index as usize),
            Some(p) => p.windows.get(index as usize),
        }
    }
}

/// A set of warp slots (bit per slot).
#[derive(Clone, Debug, Default)]
pub struct WarpSet {
    words: Vec<u64>,
}

impl WarpSet {
    /// Empty, for `slots` warp slots.
    pub fn new(slots: usize) -> Self {
        WarpSet { words: alloc::vec![0; slots.div_ceil(64)] }
    }

    /// Slot `w` is in the set.
    pub fn contains(&self, w: usize) -> bool {
        self.words.get(w / 64).is_some_and(|x| x & (1 << (w % 64)) != 0)
    }

    /// Adds `w`.
    pub fn insert(&mut self, w: usize) {
        if let Some(x) = self.words.get_mut(w / 64) {
            *x |= 1 << (w % 64);
        }
    }

    /// Removes `w`; true if it was there.
    pub fn remove(&mut self, w: usize) -> bool {
        let Some(x) = self.words.get_mut(w / 64) else { return false };
        let bit = 1 << (w % 64);
        let had = *x & bit != 0;
        *x &= !bit;
        had
    }

    /// Some slot is in both `self` and `other`.
    pub fn intersects(&self, other: &WarpSet) -> bool {
        self.words.iter().zip(&other.words).any(|(a, b)| a & b != 0)
    }

    /// Number of slots in `self` but not in `other`.
    pub fn count_without(&self, other: &WarpSet) -> u32 {
        self.words.iter().zip(&other.words).map(|(a, b)| (a & !b).count_ones()).sum()
    }

    /// The 64 slots from `64 × i` on, as a bit mask.
    pub fn word(&self, i: usize) -> u64 {
        self.words.get(i).copied().unwrap_or(0)
    }

    /// Number of 64-slot words.
    pub fn word_count(&self) -> usize {
        self.words.len()
    }
}
