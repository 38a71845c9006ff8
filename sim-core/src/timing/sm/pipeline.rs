//! The back half of the SM pipeline: write-back and dispatch to the execution units.
//!
//! ```text
//! dispatch at t: ALU → result due at t + latency · LD/ST → busy for its transactions (or
//! shared-memory conflict degree), load data due when the memory system returns it
//! write-back at due: scheme.try_write (bank free?) → scoreboard release → branch resolves
//! ```

use alloc::collections::VecDeque;

use crate::timing::exec_units::UnitKind;
use crate::timing::memory::MemAccess;
use crate::timing::program::{Control, MemOp, Program, StaticInst};
use crate::timing::regfile::{RegisterFileScheme, WriteRequest};
use crate::timing::sm::hooks::HookSet;
use crate::timing::sm::writeback::Completion;
use crate::timing::sm::{ChipContext, InFlight, Ready, Sm};
use crate::timing::stream::trace::{LaneAddrs, MemSpace};

impl<R: RegisterFileScheme + ?Sized> Sm<R> {
    /// Writes back the results due at `now`, at most `writeback_width` register writes.
    pub(super) fn writeback(&mut self, now: u64, program: &Program) {
        self.wb.collect_due(now);
        let mut written = 0;
        let mut i = 0;
        while let Some(c) = self.wb.peek(i) {
            let Some(s) = program.insts.get(c.sid as usize) else {
                self.wb.take(i);
                continue;
            };
            let rf_writes = program.bank_writes(c.sid);
            // A direct memory operand's completion is told to the scheme even without a register
            // result (its buffer entry frees).
            if !rf_writes.is_empty() || s.mem == MemOp::Operand {
                let group = self.warps.get(c.warp as usize).map_or(0, |w| w.group);
                let req = WriteRequest {
                    warp: c.warp,
                    group,
                    sid: c.sid,
                    units: rf_writes,
                    from_memory: matches!(s.mem, MemOp::Load | MemOp::Atomic),
                };
                let port = !rf_writes.is_empty();
                if (port && written >= self.writeback_width) || !self.rf.try_write(&req, now) {
                    i += 1;
                    continue;
                }
                written += u32::from(port);
            }
            self.wb.take(i);
            self.complete(c, now, program);
        }
    }

    fn complete(&mut self, c: Completion, now: u64, program: &Program) {
        let w = c.warp as usize;
        if let Some(s) = program.insts.get(c.sid as usize) {
            self.scoreboard.release_for(w, s, program);
            if let Some(warp) = self.warps.get_mut(w) {
                warp.in_flight = warp.in_flight.saturating_sub(1);
                if s.control == Control::Branch {
                    warp.ib.resolved(now);
                }
            }
            let was_memory = matches!(s.mem, MemOp::Load | MemOp::Atomic);
            if was_memory && self.residency_hooks && self.side.parked.contains(w) && !self.scoreboard.waits_on_memory(w)
            {
                let cta = self.warps.get(w).map_or(u32::MAX, |x| x.cta);
                self.check_parked_ready(cta);
            }
            if self.still_dependent(w, now, program) {
                self.rescan(w);
            } else {
                self.wake(w);
            }
        }
        self.finish_if_done(w, now);
    }

    /// A collector of `group` became free: warps refused one may try again (the issue stage
    /// looks at them, in policy order, while the scheme has a free collector).
    fn collector_freed(&mut self, group: u32) {
        if let Some(e) = self.cu_epoch.get_mut(group as usize) {
            *e = e.wrapping_add(1);
        }
        for (s, &g) in self.schedulers.iter_mut().zip(&self.sched_group) {
            if g == group {
                s.sleep_until = 0;
            }
        }
    }

    /// Whether dispatch at `now` (after [`Sm::cycle_front`]) may send a global or local access
    /// to the L2 — the only chip-wide state an SM cycle touches. Walks each LD/ST queue as
    /// [`Sm::dispatch_pool`] would: the first instruction that can start decides (any access
    /// keeps the unit busy for the rest of the cycle).
    pub(in crate::timing) fn may_reach_l2(&self, now: u64, program: &Program) -> bool {
        if !self.hooks.is_empty() && self.side.has_queued() {
            return true;
        }
        if self.ready_len == 0 {
            return false;
        }
        if self.ready.len() > 64 {
            return self.ready.iter().any(|q| self.ldst_front_reaches_l2(q, now, program));
        }
        let mut m = self.ready_pools & self.ldst_pools;
        while m != 0 {
            let q = m.trailing_zeros() as usize;
            m &= m - 1;
            if self.ready.get(q).is_some_and(|q| self.ldst_front_reaches_l2(q, now, program)) {
                return true;
            }
        }
        false
    }

    /// Whether the instruction of `queue` that dispatch would start at `now` is an LD/ST
    /// access to global or local memory.
    fn ldst_front_reaches_l2(&self, queue: &VecDeque<Ready>, now: u64, program: &Program) -> bool {
        for r in queue {
            if r.unit != UnitKind::LdSt || r.at > now || self.units.free_at(UnitKind::LdSt, r.group) > now {
                return false;
            }
            // Dispatch passes over an entry without an instruction; so does this.
            let Some(Some(f)) = self.in_cu.get(r.cu as usize) else { continue };
            let Some(s) = program.insts.get(f.inst.sid as usize) else { continue };
            return matches!(memory_space(s, f.inst.space), MemSpace::Global | MemSpace::Local);
        }
        false
    }

    /// Sends collected instructions to free execution units, oldest first for each unit.
    pub(super) fn dispatch(&mut self, now: u64, cx: &mut ChipContext<'_>) {
        if !self.hooks.is_empty() && self.side.has_queued() {
            self.send_scheme_requests(now, cx);
        }
        if self.ready_len == 0 {
            return;
        }
        if self.ready.len() <= 64 {
            // Only the non-empty pools, in index order (dispatch fills no pool).
            let mut pools = self.ready_pools;
            while pools != 0 {
                let q = pools.trailing_zeros() as usize;
                pools &= pools - 1;
                self.dispatch_pool(q, now, cx);
            }
        } else {
            for q in 0..self.ready.len() {
                self.dispatch_pool(q, now, cx);
            }
        }
    }

    /// Dispatches from the front of pool `q`'s queue while its unit takes instructions.
    fn dispatch_pool(&mut self, q: usize, now: u64, cx: &mut ChipContext<'_>) {
        if q >= self.side.base {
            self.dispatch_scheme_pool(q, now);
            return;
        }
        while let Some(r) = self.ready.get(q).and_then(|x| x.front().copied()) {
            if r.at > now || self.units.free_at(r.unit, r.group) > now || !self.try_dispatch(r.cu, now, cx) {
                break;
            }
            self.retire_ready(q, r.cu, r.group);
        }
    }

    /// The front of ready queue `q` (collector `cu`, group `group`) left for its unit.
    pub(super) fn retire_ready(&mut self, q: usize, cu: u32, group: u32) {
        if let Some(x) = self.ready.get_mut(q) {
            x.pop_front();
            if x.is_empty() && q < 64 {
                self.ready_pools &= !(1 << q);
            }
        }
        self.ready_len -= 1;
        self.rf.release(cu);
        self.collector_freed(group);
        if let Some(slot) = self.in_cu.get_mut(cu as usize) {
            *slot = None;
        }
    }

    /// Cycles added to `f`'s write-back: the scheme's write stages, or with per-operand latency
    /// its slowest result's.
    pub(super) fn extra_write(&self, f: &InFlight) -> u64 {
        if self.hooks.contains(HookSet::OPERAND_LATENCY) {
            u64::from(f.extra_write)
        } else {
            u64::from(self.rf.extra_write_stages())
        }
    }

    fn try_dispatch(&mut self, cu: u32, now: u64, cx: &mut ChipContext<'_>) -> bool {
        let Some(Some(f)) = self.in_cu.get(cu as usize).copied() else { return true };
        let Some(s) = cx.program.insts.get(f.inst.sid as usize) else { return true };
        let Some(warp) = self.warps.get(f.warp as usize) else { return true };
        let (group, cta, index, uid) = (warp.group, warp.cta as usize, warp.index, warp.uid);
        let extra_write = self.extra_write(&f);
        let due = if f.unit == UnitKind::LdSt {
            if self.units.free_at(UnitKind::LdSt, group) > now {
                return false;
            }
            let Some(Some(c)) = self.ctas.get(cta) else { return true };
            let recorded = c.access(index, &f.inst);
            let access = MemAccess {
                space: memory_space(s, f.inst.space),
                op: s.mem,
                addrs: recorded.map_or(LaneAddrs::List(&[]), |a| a.addrs),
                bytes: recorded.map_or(0, |a| u32::from(a.bytes)),
                warp_uid: uid,
            };
            let t = self.mem.access(&access, now, cx.l2, cx.mem_stats);
            self.units.hold_until(UnitKind::LdSt, group, now, now + t.busy);
            match s.mem {
                MemOp::Store => now + 1,
                MemOp::Operand => t.done.max(now + 1) + u64::from(s.timing.latency.max(1)),
                _ => t.done.max(now + 1),
            }
        } else {
            if !self.units.try_start(f.unit, group, now, s.timing) {
                return false;
            }
            now + u64::from(s.timing.latency.max(1))
        };
        self.wb.push(Completion { due: due + extra_write, seq: f.seq, warp: f.warp, sid: f.inst.sid });
        true
    }
}

/// The space the memory model times an LD/ST instruction `s` in: the one its access record
/// resolved, else the one it names, else global; shared for an LD/ST-unit instruction without
/// a memory operation.
fn memory_space(s: &StaticInst, recorded: Option<MemSpace>) -> MemSpace {
    if s.mem == MemOp::None {
        MemSpace::Shared
    } else {
        recorded.or(s.space).unwrap_or(MemSpace::Global)
    }
}
