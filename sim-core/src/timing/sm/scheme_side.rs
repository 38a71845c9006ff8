//! The SM's side of the scheme hooks that need state of their own: unit pools a scheme adds
//! (a scalar unit: pipes with a latency and an interval), the scheme's memory requests (queued,
//! sent in the dispatch stage through the SM's L1 to the L2, completions reported back), pending
//! CTA activations, and the warps of parked CTAs.
//!
//! ```text
//! cycle t (end): scheme asks for a 128-byte global read → queued
//! cycle t + 1 (dispatch): sent through L1/L2 → data back at d → on_memory_done(id) at d
//! ```
//!
//! A request's bytes are sent as one lane per coalescing segment (each lane `min(bytes,
//! segment)` long from `addr`, then every segment after), so an unaligned request touches one
//! more segment, as a warp access would. Local requests use a region of their own (the warp id
//! `SCHEME_UID` in the local-memory address scheme).

use alloc::vec;
use alloc::vec::Vec;

use crate::timing::memory::{MemAccess, MemoryStats};
use crate::timing::program::MemOp;
use crate::timing::regfile::RegisterFileScheme;
use crate::timing::sm::hooks::{SchemeMemRequest, SchemeUnit};
use crate::timing::sm::warp::WarpSet;
use crate::timing::sm::writeback::Completion;
use crate::timing::sm::{ChipContext, Sm};
use crate::timing::stream::trace::{LaneAddrs, MemSpace};

/// The warp id of the scheme's own local-memory region.
const SCHEME_UID: u64 = 0x7FFF_FFFF;

/// Scheme-side state of one SM.
#[derive(Clone, Debug, Default)]
pub(super) struct SchemeSide {
    units: Vec<SchemeUnit>,
    /// Per pool, per pipe: the first cycle it is free.
    free: Vec<Vec<u64>>,
    /// The ready queue of pool 0 (the SM's own pools come first).
    pub base: usize,
    /// Memory requests to send in the next dispatch stage.
    queued: Vec<SchemeMemRequest>,
    /// Requests in flight: (cycle done, id).
    in_flight: Vec<(u64, u64)>,
    /// Activations: (cycle, CTA slot, CTA number).
    activations: Vec<(u64, u32, u64)>,
    /// Warps of parked CTAs.
    pub parked: WarpSet,
    /// Warps asleep on a load's result (residency hooks only).
    pub mem_deep: WarpSet,
    scratch: Vec<u64>,
}

impl SchemeSide {
    /// For `units` on an SM with `max_warps` warp slots whose own pools are `0..base`.
    pub fn new(units: Vec<SchemeUnit>, max_warps: u32, base: usize) -> Self {
        let free = units.iter().map(|u| vec![0; u.pipes.max(1) as usize]).collect();
        SchemeSide {
            units,
            free,
            base,
            parked: WarpSet::new(max_warps as usize),
            mem_deep: WarpSet::new(max_warps as usize),
            ..SchemeSide::default()
        }
    }

    /// Scheme unit pools.
    pub fn pools(&self) -> usize {
        self.units.len()
    }

    /// The first cycle a pipe of pool `p` is free.
    pub fn free_at(&self, p: u8) -> u64 {
        self.free.get(usize::from(p)).and_then(|x| x.iter().min().copied()).unwrap_or(u64::MAX)
    }

    /// Starts an instruction on pool `p` at `now`: the cycle its result is due, if a pipe is free.
    fn try_start(&mut self, p: u8, now: u64) -> Option<u64> {
        let u = *self.units.get(usize::from(p))?;
        let pipe = self.free.get_mut(usize::from(p))?.iter_mut().find(|f| **f <= now)?;
        *pipe = now + u64::from(u.interval.max(1));
        Some(now + u64::from(u.latency.max(1)))
    }

    /// Queues a memory request.
    pub fn queue(&mut self, r: SchemeMemRequest) {
        self.queued.push(r);
    }

    /// Requests wait to be sent.
    pub fn has_queued(&self) -> bool {
        !self.queued.is_empty()
    }

    /// An activation of CTA `cta` (number `number`) at cycle `at`.
    pub fn activate_at(&mut self, at: u64, cta: u32, number: u64) {
        self.activations.push((at, cta, number));
    }

    /// Cancels the pending activations of CTA slot `cta`.
    pub fn cancel_activation(&mut self, cta: u32) {
        self.activations.retain(|a| a.1 != cta);
    }

    /// An activation due by `now`, if any.
    pub fn take_activation(&mut self, now: u64) -> Option<(u32, u64)> {
        let i = self.activations.iter().position(|a| a.0 <= now)?;
        let (_, cta, number) = self.activations.remove(i);
        Some((cta, number))
    }

    /// A request completed by `now`, if any (oldest first).
    pub fn take_done(&mut self, now: u64) -> Option<u64> {
        let i = self.in_flight.iter().position(|r| r.0 <= now)?;
        Some(self.in_flight.remove(i).1)
    }

    /// The next cycle after `now` something here needs the SM: a queued request, an activation,
    /// a completion (`u64::MAX`: none).
    pub fn next_event(&self, now: u64) -> u64 {
        if self.has_queued() {
            return now + 1;
        }
        let a = self.activations.iter().map(|a| a.0).min().unwrap_or(u64::MAX);
        let d = self.in_flight.iter().map(|r| r.0).min().unwrap_or(u64::MAX);
        a.min(d).max(now + 1)
    }
}

impl<R: RegisterFileScheme + ?Sized> Sm<R> {
    /// Sends the scheme's queued memory requests at `now` (dispatch stage).
    pub(super) fn send_scheme_requests(&mut self, now: u64, cx: &mut ChipContext<'_>) {
        let queued = core::mem::take(&mut self.side.queued);
        let seg = u64::from(self.mem.segment_bytes().max(1));
        for r in &queued {
            let mut lanes = core::mem::take(&mut self.side.scratch);
            lanes.clear();
            let end = r.addr.saturating_add(u64::from(r.bytes.max(1)));
            let mut a = r.addr;
            while a < end {
                lanes.push(a);
                a = (a / seg + 1) * seg;
            }
            let access = MemAccess {
                space: if r.space == MemSpace::Local { MemSpace::Local } else { MemSpace::Global },
                op: if r.write { MemOp::Store } else { MemOp::Load },
                addrs: LaneAddrs::List(&lanes),
                bytes: r.bytes.clamp(1, seg as u32),
                warp_uid: SCHEME_UID,
            };
            let mut scratch = MemoryStats::default();
            let t = self.mem.access(&access, now, cx.l2, &mut scratch);
            let s = &mut *cx.mem_stats;
            if r.write {
                s.scheme_writes += 1;
            } else {
                s.scheme_reads += 1;
            }
            s.scheme_bytes += u64::from(r.bytes);
            s.scheme_transactions += scratch.transactions;
            let done = if r.write { now + 1 } else { t.done.max(now + 1) };
            self.side.in_flight.push((done, r.id));
            self.side.scratch = lanes;
        }
        let mut queued = queued;
        queued.clear();
        if self.side.queued.is_empty() {
            self.side.queued = queued;
        }
    }

    /// Dispatches from the front of scheme pool queue `q` while a pipe of the pool is free.
    pub(super) fn dispatch_scheme_pool(&mut self, q: usize, now: u64) {
        let p = q.saturating_sub(self.side.base) as u8;
        while let Some(r) = self.ready.get(q).and_then(|x| x.front().copied()) {
            if r.at > now || self.side.free_at(p) > now {
                break;
            }
            let Some(due) = self.side.try_start(p, now) else { break };
            if let Some(Some(f)) = self.in_cu.get(r.cu as usize).copied() {
                let due = due + self.extra_write(&f);
                self.wb.push(Completion { due, seq: f.seq, warp: f.warp, sid: f.inst.sid });
            }
            self.retire_ready(q, r.cu, r.group);
        }
    }
}
