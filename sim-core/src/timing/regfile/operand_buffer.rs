//! The operand buffer (OB; Wyse §2.3.3.2, Gebhart et al.): per scheduler a FIFO of `N`
//! instructions. It may read source operands for any entry in any cycle — oldest entry first,
//! then greedily for younger entries with operands in banks still free — and instructions leave
//! in order. Plus the main register file's bank ports it reads through: one read and one write
//! per bank per cycle, a write wins its bank.
//!
//! ```text
//! OB of scheduler 0: [A: r1 (bank 1), r5 (bank 1)] [B: r2 (bank 2)]   (A oldest)
//! cycle: A gets bank 1 (r1), B gets bank 2 (r2) · A's r5 waits (read-read conflict)
//!        B has all operands but leaves after A (in order)
//! ```
//!
//! With `conflict_free` every queued read is granted the cycle after it is queued (Wyse's
//! "each VGPR its own bank" limit, combined with the RFC and OB).

use alloc::collections::VecDeque;
use alloc::vec;
use alloc::vec::Vec;

use super::bank::BankMapping;
use super::CuId;

/// Where a source operand of an OB entry comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Source {
    /// A main register-file read queued in this bank.
    Bank(usize),
    /// Held by the RFC when the instruction entered: forwarded at dispatch (or at eviction).
    Rfc,
    /// In the OB.
    Done,
}

/// One occupied OB entry.
#[derive(Clone, Debug, Default)]
pub struct ObEntry {
    /// Issue order across the SM (smaller = older).
    pub seq: u64,
    /// Warp slot.
    pub warp: u32,
    /// Static instruction id.
    pub sid: u32,
    /// Source register units and where each comes from.
    pub sources: Vec<(u32, Source)>,
    /// Destination register units.
    pub writes: Vec<u32>,
    /// An ALU instruction (allocates RFC entries at dispatch).
    pub alu: bool,
}

impl ObEntry {
    /// Bank reads still outstanding.
    pub fn waiting(&self) -> bool {
        self.sources.iter().any(|s| matches!(s.1, Source::Bank(_)))
    }
}

/// The OBs of one SM and the main register file's bank ports.
#[derive(Clone, Debug)]
pub struct OperandBuffers {
    per_sched: u32,
    /// By collector id: the entry (`None`: free).
    pub slots: Vec<Option<ObEntry>>,
    /// Per scheduler: entries not yet dispatched, oldest first.
    pub fifo: Vec<VecDeque<CuId>>,
    per_group_banks: u32,
    swizzle: bool,
    written_at: Vec<u64>,
    read_at: Vec<u64>,
    conflict_free: bool,
    /// Queued bank reads.
    pub queued: usize,
    /// Main register-file reads granted.
    pub reads: u64,
    /// Main register-file writes.
    pub writes: u64,
    /// Read-request cycles lost to another read.
    pub read_read: u64,
    /// Read-request cycles lost to a write.
    pub read_write: u64,
    /// Write attempts refused because the bank took another write.
    pub write_write: u64,
    /// Released entries, kept for their buffers ([`OperandBuffers::spare_entry`]).
    spare: Vec<ObEntry>,
    /// Entries with bank reads outstanding, as `(seq, slot)` in ascending order: the
    /// arbitration order, kept as entries arrive instead of sorted every cycle (an entry leaves
    /// it at the first arbitration after its last bank read was granted or forwarded).
    waiting: Vec<(u64, usize)>,
}

impl OperandBuffers {
    /// `entries` per scheduler for `schedulers` schedulers, over `banks` banks in `groups` groups.
    pub fn new(
        entries: u32,
        schedulers: u32,
        banks: u32,
        groups: u32,
        mapping: BankMapping,
        conflict_free: bool,
    ) -> Self {
        let groups = groups.max(1);
        let per_group_banks = (banks / groups).max(1);
        let n = (per_group_banks * groups) as usize;
        let per_sched = entries.max(1);
        OperandBuffers {
            per_sched,
            slots: vec![None; (per_sched * schedulers.max(1)) as usize],
            fifo: vec![VecDeque::new(); schedulers.max(1) as usize],
            per_group_banks,
            swizzle: mapping == BankMapping::RegPlusWarp,
            written_at: vec![u64::MAX; n],
            read_at: vec![u64::MAX; n],
            conflict_free,
            queued: 0,
            reads: 0,
            writes: 0,
            read_read: 0,
            read_write: 0,
            write_write: 0,
            spare: Vec::new(),
            waiting: Vec::new(),
        }
    }

    /// An empty entry to fill (a released one when there is one: its buffers are reused).
    pub fn spare_entry(&mut self) -> ObEntry {
        let mut e = self.spare.pop().unwrap_or_default();
        e.sources.clear();
        e.writes.clear();
        e
    }

    /// The bank of register unit `reg` of warp slot `warp` in `group` (the baseline's mapping).
    pub fn bank(&self, reg: u32, warp: u32, group: u32) -> usize {
        let sum = u64::from(reg) + if self.swizzle { u64::from(warp) } else { 0 };
        (u64::from(group) * u64::from(self.per_group_banks) + sum % u64::from(self.per_group_banks)) as usize
    }

    /// A free entry of scheduler `s`, if any.
    pub fn free_slot(&self, s: u32) -> Option<CuId> {
        let start = s * self.per_sched;
        (start..start + self.per_sched).find(|&i| self.slots.get(i as usize).is_some_and(Option::is_none))
    }

    /// Puts `entry` in slot `cu` at the back of scheduler `s`'s FIFO.
    pub fn push(&mut self, s: u32, cu: CuId, entry: ObEntry) {
        let banked = entry.sources.iter().filter(|x| matches!(x.1, Source::Bank(_))).count();
        self.queued += banked;
        if banked > 0 {
            let key = (entry.seq, cu as usize);
            let at = self.waiting.partition_point(|&k| k < key);
            self.waiting.insert(at, key);
        }
        if let Some(slot) = self.slots.get_mut(cu as usize) {
            *slot = Some(entry);
        }
        if let Some(f) = self.fifo.get_mut(s as usize) {
            f.push_back(cu);
        }
    }

    /// Writes `units` of `warp` at `now` if none of their banks took a write this cycle (the
    /// conflict-free limit always can).
    pub fn try_write(&mut self, units: &[u32], warp: u32, group: u32, now: u64) -> bool {
        if !self.conflict_free {
            let taken = units.iter().any(|&u| self.written_at.get(self.bank(u, warp, group)) == Some(&now));
            if taken {
                self.write_write += 1;
                return false;
            }
            for &u in units {
                let b = self.bank(u, warp, group);
                if let Some(w) = self.written_at.get_mut(b) {
                    *w = now;
                }
            }
        }
        self.writes += units.len() as u64;
        true
    }

    /// Grants queued reads at `now`: entries oldest first, each bank one read if it took no
    /// write this cycle (every read with `conflict_free`).
    pub fn arbitrate(&mut self, now: u64) {
        if self.queued == 0 {
            return;
        }
        let mut order = core::mem::take(&mut self.waiting);
        for &(seq, i) in &order {
            let Some(Some(e)) = self.slots.get_mut(i) else { continue };
            if e.seq != seq {
                continue;
            }
            for src in e.sources.iter_mut() {
                let Source::Bank(b) = src.1 else { continue };
                if !self.conflict_free {
                    if self.written_at.get(b) == Some(&now) {
                        self.read_write += 1;
                        continue;
                    }
                    if self.read_at.get(b) == Some(&now) {
                        self.read_read += 1;
                        continue;
                    }
                    if let Some(r) = self.read_at.get_mut(b) {
                        *r = now;
                    }
                }
                src.1 = Source::Done;
                self.queued -= 1;
                self.reads += 1;
            }
        }
        let slots = &self.slots;
        order.retain(|&(seq, i)| matches!(slots.get(i), Some(Some(e)) if e.seq == seq && e.waiting()));
        self.waiting = order;
    }

    /// Marks source `key` of every waiting entry of scheduler `s` as delivered (a value
    /// forwarded from the RFC on eviction): how many operands it served.
    pub fn forward(&mut self, s: u32, warp: u32, reg: u32) -> u64 {
        let mut served = 0;
        let Some(f) = self.fifo.get(s as usize) else { return 0 };
        for &cu in f.iter() {
            let Some(Some(e)) = self.slots.get_mut(cu as usize) else { continue };
            if e.warp != warp {
                continue;
            }
            for src in e.sources.iter_mut().filter(|x| x.0 == reg) {
                match src.1 {
                    Source::Bank(_) => self.queued -= 1,
                    Source::Rfc => {}
                    Source::Done => continue,
                }
                src.1 = Source::Done;
                served += 1;
            }
        }
        served
    }

    /// Frees slot `cu`.
    pub fn release(&mut self, cu: CuId) {
        if let Some(e) = self.slots.get_mut(cu as usize).and_then(Option::take) {
            self.spare.push(e);
        }
    }

    /// Whether scheduler `s` has undispatched entries or reads are queued.
    pub fn busy(&self) -> bool {
        self.queued > 0 || self.fifo.iter().any(|f| !f.is_empty())
    }
}
