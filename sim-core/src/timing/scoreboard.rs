//! The scoreboard: per warp, the registers (32-bit units and predicates) with a write in flight.
//! An instruction may issue only when none of its sources (RAW) and none of its destinations (WAW)
//! is pending; destinations are reserved at issue and released at write-back (GPGPU-Sim).
//!
//! ```text
//! ld.global.f32 %f1, [%rd2]   → reserves %f1 (from memory)
//! add.f32 %f2, %f1, %f1       → blocked on %f1: a memory stall, not an ALU RAW stall
//! ```
//!
//! A warp has few writes in flight, so each keeps a short list plus a 64-bit summary (bit
//! `id % 64`) that answers most "is anything pending?" questions without a scan.

use alloc::vec;
use alloc::vec::Vec;

/// Why a register is pending.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pending {
    /// Written by an ALU (or any non-memory) instruction.
    Alu,
    /// Written by a load or atomic.
    Memory,
}

/// The scoreboard of one SM.
#[derive(Clone, Debug)]
pub struct Scoreboard {
    lists: Vec<Vec<(u32, Pending)>>,
    summary: Vec<u64>,
}

impl Scoreboard {
    /// Empty for `warps` warp slots.
    pub fn new(warps: usize) -> Self {
        Scoreboard { lists: vec![Vec::new(); warps], summary: vec![0; warps] }
    }

    /// The pending state blocking an instruction of `warp` reading `reads` and writing `writes`
    /// (`hazards`: bit `id % 64` of each): `Some(Memory)` if any blocking register waits on
    /// memory, else `Some(Alu)`, `None` if free.
    pub fn blocked(&self, warp: usize, reads: &[u32], writes: &[u32], hazards: u64) -> Option<Pending> {
        let summary = self.summary.get(warp).copied().unwrap_or(0);
        if summary & hazards == 0 {
            return None;
        }
        let list = self.lists.get(warp)?;
        let mut found = None;
        for &id in reads.iter().chain(writes) {
            if summary & (1 << (id % 64)) == 0 {
                continue;
            }
            match list.iter().find(|(r, _)| *r == id) {
                Some((_, Pending::Memory)) => return Some(Pending::Memory),
                Some((_, Pending::Alu)) => found = Some(Pending::Alu),
                None => {}
            }
        }
        found
    }

    /// Reserves `writes` of `warp`.
    pub fn reserve(&mut self, warp: usize, writes: &[u32], why: Pending) {
        let (Some(list), Some(sum)) = (self.lists.get_mut(warp), self.summary.get_mut(warp)) else { return };
        for &id in writes {
            list.push((id, why));
            *sum |= 1 << (id % 64);
        }
    }

    /// Releases `writes` of `warp`.
    pub fn release(&mut self, warp: usize, writes: &[u32]) {
        let (Some(list), Some(sum)) = (self.lists.get_mut(warp), self.summary.get_mut(warp)) else { return };
        for w in writes {
            if let Some(i) = list.iter().position(|(r, _)| r == w) {
                list.swap_remove(i);
            }
        }
        *sum = list.iter().fold(0, |s, (r, _)| s | (1 << (r % 64)));
    }

    /// True if any register of `warp` is pending on memory (two-level scheduling, CTA parking).
    pub fn waits_on_memory(&self, warp: usize) -> bool {
        self.lists.get(warp).is_some_and(|l| l.iter().any(|(_, p)| *p == Pending::Memory))
    }

    /// Clears `warp` (its slot is reused).
    pub fn clear(&mut self, warp: usize) {
        if let (Some(list), Some(sum)) = (self.lists.get_mut(warp), self.summary.get_mut(warp)) {
            list.clear();
            *sum = 0;
        }
    }
}
