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

use alloc::collections::VecDeque;
use alloc::vec;
use alloc::vec::Vec;

use serde::{Deserialize, Serialize};

use super::operand_collector::CollectorPool;
use super::CuId;

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
        }
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
        let b = self.bank(reg, warp, group);
        if let Some(q) = self.queues.get_mut(b) {
            q.push_back(cu);
            self.queued += 1;
            if b < 64 {
                self.nonempty |= 1 << b;
            }
        }
    }

    /// Writes `units` of `warp` at `now` if none of their banks took a write this cycle.
    pub fn try_write(&mut self, units: &[u32], warp: u32, group: u32, now: u64) -> bool {
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
            return;
        }
        if let Some(cu) = q.pop_front() {
            self.queued -= 1;
            self.reads += 1;
            cus.granted(cu);
        }
        self.read_read += q.len() as u64;
        if q.is_empty() && b < 64 {
            self.nonempty &= !(1 << b);
        }
    }

    /// True while reads are queued.
    pub fn busy(&self) -> bool {
        self.queued > 0
    }
}
