//! The issue stage's scheme hooks ([`crate::timing::sm::hooks::HookSet`]): routing an
//! instruction to another unit or a scheme pool, per-operand extra latency, and pairing a second
//! warp's instruction into the slot of the first. Called only for schemes that asked for them.
//!
//! ```text
//! warp 0 issues add (sid 4) → pairing: warps 4, 8, … offered the slot → scheme.pair(add, add)
//! ```

use crate::timing::exec_units::UnitKind;
use crate::timing::program::{Program, StaticInst};
use crate::timing::regfile::{OperandRequest, RegisterFileScheme};
use crate::timing::sm::hooks::Route;
use crate::timing::sm::{Sm, NO_POOL};
use crate::timing::stream::trace::DynInst;

impl<R: RegisterFileScheme + ?Sized> Sm<R> {
    /// The operand request of warp `w`'s instruction `inst` (static `s`): the registers the banks
    /// see, as [`crate::timing::regfile::RegisterFileScheme::try_issue`] is asked with.
    pub(super) fn request<'p>(
        &self,
        w: usize,
        inst: &DynInst,
        s: &StaticInst,
        program: &'p Program,
    ) -> OperandRequest<'p> {
        let (group, scheduler) = self.warps.get(w).map_or((0, 0), |x| (x.group, x.scheduler));
        OperandRequest {
            warp: w as u32,
            scheduler,
            group,
            sid: inst.sid,
            reads: program.bank_reads(inst.sid),
            writes: program.bank_writes(inst.sid),
            unit: s.unit,
            mem: s.mem,
        }
    }

    /// Routing hook: the unit (or scheme pool) warp `w`'s instruction executes on.
    pub(super) fn route(
        &mut self,
        w: usize,
        inst: &DynInst,
        s: &StaticInst,
        now: u64,
        program: &Program,
    ) -> (UnitKind, u8) {
        let req = self.request(w, inst, s, program);
        match self.rf.route(&req, now) {
            Route::Own => (s.unit, NO_POOL),
            Route::Unit(u) => (u, NO_POOL),
            Route::Scheme(p) if usize::from(p) < self.side.pools() => (s.unit, p),
            Route::Scheme(_) => (s.unit, NO_POOL),
        }
    }

    /// Per-operand latency hook: the extra cycles before dispatch (slowest source) and before
    /// write-back (slowest result) of warp `w`'s instruction.
    pub(super) fn operand_latencies(&self, w: usize, inst: &DynInst, s: &StaticInst, program: &Program) -> (u16, u16) {
        let req = self.request(w, inst, s, program);
        let read = (0..req.reads.len()).map(|i| self.rf.operand_read_latency(&req, i)).max().unwrap_or(0);
        let write = (0..req.writes.len()).map(|i| self.rf.operand_write_latency(&req, i)).max().unwrap_or(0);
        (read.min(u32::from(u16::MAX)) as u16, write.min(u32::from(u16::MAX)) as u16)
    }

    /// Pairing hook: whether warp `w`'s instruction may take the slot of the one issued first.
    pub(super) fn pairs(&mut self, w: usize, inst: &DynInst, s: &StaticInst, program: &Program) -> bool {
        let Some((fw, fsid)) = self.pair_first else { return true };
        let Some(fs) = program.insts.get(fsid as usize) else { return false };
        let fd = DynInst { sid: fsid, ..DynInst::default() };
        let first = self.request(fw as usize, &fd, fs, program);
        let second = self.request(w, inst, s, program);
        self.rf.pair(&first, &second)
    }

    /// Pairing hook: after warp `w` issued on scheduler `s`, the scheduler's other warps (slot
    /// order, awake ones) are offered the same slot until one pairs. A warp that cannot go is
    /// left as it was (the next cycle's look decides its sleep).
    pub(super) fn try_pair(&mut self, s: usize, w: u32, now: u64, program: &Program) {
        let words = self.deep.word_count();
        for wi in 0..words {
            let mut m = self.sched_slots.get(s).map_or(0, |x| x.word(wi)) & !self.deep.word(wi);
            while m != 0 {
                let c = (wi * 64) as u32 + m.trailing_zeros();
                m &= m - 1;
                if c == w || self.sleep.get(c as usize).is_some_and(|z| z.wake > now) {
                    continue;
                }
                self.pair_first = Some((w, self.pair_sid));
                let issued = self.issue_one(c as usize, now, program, None).is_ok();
                self.pair_first = None;
                if issued {
                    if let Some(x) = self.sleep.get_mut(c as usize) {
                        x.wake = 0;
                        x.unit = None;
                        x.refused = false;
                    }
                    self.sleep_if_dependent(c as usize, s, now, program);
                    return;
                }
            }
        }
    }

    /// Values hook: tells the scheme the value summaries of warp `w`'s next instruction (at its
    /// stream position: the warp's `pc`, or for a scheme's own program where its replay stands).
    /// Told once per position: an issue tried again tells the scheme what it was already told
    /// (only this hook sets a warp's summaries there).
    pub(super) fn feed_values(&mut self, w: usize) {
        let Some(warp) = self.warps.get(w) else { return };
        let pos = match &self.xlate {
            Some((_, tr)) => tr.get(w).map_or(warp.pc, |t| t.stream_pos()),
            None => warp.pc,
        };
        if warp.fed == pos {
            return;
        }
        let Some(Some(c)) = self.ctas.get(warp.cta as usize) else { return };
        let Some(stream) = c.warp_stream(warp.index) else { return };
        self.rf.on_values(w as u32, stream.values_at(pos));
        if let Some(warp) = self.warps.get_mut(w) {
            warp.fed = pos;
        }
    }
}
