//! Register-file banks and their arbiter, as GPGPU-Sim models them (SCHEMES.md §0).
//!
//! ```text
//! bank = (reg + warp) % banks              // one group (no sub-cores)
//! bank = group × per_group + (reg + warp) % per_group   // sub-core model (Volta and later)
//! bank = reg % banks                        // `bank_mapping=reg`: no warp swizzle
//! warp 0 reads r1, r5 with 4 banks: both in bank 1 → one granted this cycle, one the next
//! ```
//!
//! Each cycle: a write claims its bank first (a pending write wins its bank; a bank takes one
//! write per cycle); then every bank that took no write grants its oldest queued read (one read
//! per bank per cycle, first come first served). A collector may receive reads from several banks
//! in one cycle. Every queued read left waiting counts one conflict for that cycle.
//!
//! Single-use attribution (off unless [`Banks::attribute_single_use`]; DeMO's Fig. 2): reads
//! queued with [`Banks::request_marked`] and writes made with [`Banks::try_write_marked`] are
//! marked. A conflict (one of the counts above) *involves* a marked access when a marked request
//! competed for that bank in that cycle: the read granted, a read left waiting, the write that took
//! the bank, or the write refused. `single_use_conflicts` counts those conflicts;
//! `single_use_waits` the cycles marked requests themselves waited (a subset).

use alloc::collections::VecDeque;
use alloc::vec;
use alloc::vec::Vec;

use serde::{Deserialize, Serialize};

use super::operand_collector::CollectorPool;
use super::CuId;

/// Bit of a queued read's entry that marks it (collector ids stay far below it).
const MARK: CuId = 1 << 31;

/// How a register number maps to a bank.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BankMapping {
    /// `(reg + warp slot) % banks` (GPGPU-Sim): warps start their registers in different banks.
    RegPlusWarp,
    /// `reg % banks`: every warp's register `r` in the same bank.
    Reg,
}

impl BankMapping {
    /// The parameter choices, default first.
    pub const CHOICES: &'static [&'static str] = &["reg_plus_warp", "reg"];

    /// The mapping called `name` (one of [`BankMapping::CHOICES`]).
    pub fn from_choice(name: &str) -> Option<BankMapping> {
        match name {
            "reg_plus_warp" => Some(BankMapping::RegPlusWarp),
            "reg" => Some(BankMapping::Reg),
            _ => None,
        }
    }
}

/// The banks of one SM.
#[derive(Clone, Debug)]
pub struct Banks {
    per_group: u32,
    /// The warp slot is added to the register number (GPGPU-Sim's swizzle).
    swizzle: bool,
    queues: Vec<VecDeque<CuId>>,
    written_at: Vec<u64>,
    queued: usize,
    /// Bit `b` set while bank `b` (< 64) has queued reads; banks ≥ 64 are always visited.
    nonempty: u64,
    /// Reads granted.
    pub reads: u64,
    /// Warp-register writes.
    pub writes: u64,
    /// Read-request cycles lost to another read.
    pub read_read: u64,
    /// Read-request cycles lost to a write.
    pub read_write: u64,
    /// Write attempts refused because the bank took another write.
    pub write_write: u64,
    /// Single-use attribution is on ([`Banks::attribute_single_use`]).
    attributing: bool,
    /// Per bank: marked reads queued (empty while attribution is off).
    marked: Vec<u32>,
    /// Per bank: the cycle a marked write last took it (empty while attribution is off).
    marked_write_at: Vec<u64>,
    /// Conflicts (of the three counts above) that involve a marked access.
    pub single_use_conflicts: u64,
    /// Cycles marked requests waited (read-request cycles lost, refused marked writes).
    pub single_use_waits: u64,
}

impl Banks {
    /// `banks` banks in `groups` equal groups, GPGPU-Sim's mapping.
    pub fn new(banks: u32, groups: u32) -> Self {
        Banks::with_mapping(banks, groups, BankMapping::RegPlusWarp)
    }

    /// `banks` banks in `groups` equal groups, registers mapped by `mapping`.
    pub fn with_mapping(banks: u32, groups: u32, mapping: BankMapping) -> Self {
        let groups = groups.max(1);
        let per_group = (banks / groups).max(1);
        let n = (per_group * groups) as usize;
        Banks {
            per_group,
            swizzle: mapping == BankMapping::RegPlusWarp,
            queues: vec![VecDeque::new(); n],
            written_at: vec![u64::MAX; n],
            queued: 0,
            nonempty: 0,
            reads: 0,
            writes: 0,
            read_read: 0,
            read_write: 0,
            write_write: 0,
            attributing: false,
            marked: Vec::new(),
            marked_write_at: Vec::new(),
            single_use_conflicts: 0,
            single_use_waits: 0,
        }
    }

    /// Turns on single-use attribution (see the module documentation).
    pub fn attribute_single_use(&mut self) {
        self.attributing = true;
        self.marked = vec![0; self.queues.len()];
        self.marked_write_at = vec![u64::MAX; self.queues.len()];
    }

    /// The bank of register unit `reg` of warp slot `warp` in `group`.
    pub fn bank(&self, reg: u32, warp: u32, group: u32) -> usize {
        let sum = u64::from(reg) + if self.swizzle { u64::from(warp) } else { 0 };
        let local = if self.per_group.is_power_of_two() {
            sum & u64::from(self.per_group - 1)
        } else {
            sum % u64::from(self.per_group)
        };
        (u64::from(group) * u64::from(self.per_group) + local) as usize
    }

    /// Queues a read of `reg` for collector `cu`.
    pub fn request(&mut self, cu: CuId, reg: u32, warp: u32, group: u32) {
        self.request_marked(cu, reg, warp, group, false);
    }

    /// Queues a read of `reg` for collector `cu`, `marked` for single-use attribution.
    #[inline]
    pub fn request_marked(&mut self, cu: CuId, reg: u32, warp: u32, group: u32, marked: bool) {
        let b = self.bank(reg, warp, group);
        if marked {
            if let Some(m) = self.marked.get_mut(b) {
                *m += 1;
            }
        }
        if let Some(q) = self.queues.get_mut(b) {
            q.push_back(if marked { cu | MARK } else { cu });
            self.queued += 1;
            if b < 64 {
                self.nonempty |= 1 << b;
            }
        }
    }

    /// Writes `units` of `warp` at `now` if none of their banks took a write this cycle.
    pub fn try_write(&mut self, units: &[u32], warp: u32, group: u32, now: u64) -> bool {
        self.try_write_marked(units, warp, group, now, 0)
    }

    /// As [`Banks::try_write`], unit `i` marked for single-use attribution when bit `i` of
    /// `marked` is set.
    #[inline]
    pub fn try_write_marked(&mut self, units: &[u32], warp: u32, group: u32, now: u64, marked: u64) -> bool {
        let taken = units.iter().any(|&u| self.written_at.get(self.bank(u, warp, group)) == Some(&now));
        if taken {
            self.write_write += 1;
            if self.attributing {
                let by_marked =
                    units.iter().any(|&u| self.marked_write_at.get(self.bank(u, warp, group)) == Some(&now));
                self.single_use_waits += u64::from(marked != 0);
                self.single_use_conflicts += u64::from(marked != 0 || by_marked);
            }
            return false;
        }
        for (i, &u) in units.iter().enumerate() {
            let b = self.bank(u, warp, group);
            if let Some(w) = self.written_at.get_mut(b) {
                *w = now;
            }
            if i < 64 && marked & (1 << i) != 0 {
                if let Some(w) = self.marked_write_at.get_mut(b) {
                    *w = now;
                }
            }
        }
        self.writes += units.len() as u64;
        true
    }

    /// Grants one read per bank that took no write at `now`.
    pub fn arbitrate(&mut self, now: u64, cus: &mut CollectorPool) {
        if self.queued == 0 {
            return;
        }
        let mut mask = self.nonempty;
        while mask != 0 {
            let b = mask.trailing_zeros() as usize;
            mask &= mask - 1;
            self.arbitrate_bank(b, now, cus);
        }
        for b in 64..self.queues.len() {
            self.arbitrate_bank(b, now, cus);
        }
    }

    fn arbitrate_bank(&mut self, b: usize, now: u64, cus: &mut CollectorPool) {
        let Some(q) = self.queues.get_mut(b) else { return };
        if q.is_empty() {
            return;
        }
        if self.written_at.get(b) == Some(&now) {
            self.read_write += q.len() as u64;
            if self.attributing {
                let marked = self.marked.get(b).copied().unwrap_or(0);
                let involved = marked > 0 || self.marked_write_at.get(b) == Some(&now);
                self.single_use_conflicts += if involved { q.len() as u64 } else { 0 };
                self.single_use_waits += u64::from(marked);
            }
            return;
        }
        let mut granted_marked = None;
        if let Some(cu) = q.pop_front() {
            self.queued -= 1;
            self.reads += 1;
            cus.granted(cu & !MARK);
            granted_marked = Some(cu & MARK != 0);
        }
        self.read_read += q.len() as u64;
        if q.is_empty() && b < 64 {
            self.nonempty &= !(1 << b);
        }
        if let (true, Some(marked)) = (self.attributing, granted_marked) {
            self.attribute_reads(b, marked);
        }
    }

    /// The single-use counts of a cycle in which bank `b` granted a read (`granted_marked`: a
    /// marked one) and left its queue waiting.
    fn attribute_reads(&mut self, b: usize, granted_marked: bool) {
        let (Some(m), Some(q)) = (self.marked.get_mut(b), self.queues.get(b)) else { return };
        let waiting = q.len() as u64;
        let competed = u64::from(*m);
        if granted_marked {
            *m -= 1;
        }
        if waiting > 0 && competed > 0 {
            self.single_use_conflicts += waiting;
            self.single_use_waits += u64::from(*m);
        }
    }

    /// True while reads are queued.
    pub fn busy(&self) -> bool {
        self.queued > 0
    }
}
