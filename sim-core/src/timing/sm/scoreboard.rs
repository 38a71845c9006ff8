//! The scoreboard: per warp, the registers (32-bit units and predicates) with a write in flight.
//! An instruction may issue only when none of its sources (RAW) and none of its destinations (WAW)
//! is pending; destinations are reserved at issue and released at write-back (GPGPU-Sim).
//!
//! ```text
//! ld.global.f32 %f1, [%rd2]   → reserves %f1 (from memory)
//! add.f32 %f2, %f1, %f1       → blocked on %f1: a memory stall, not an ALU RAW stall
//! ```
//!
//! A register has at most one write in flight (WAW blocks issue), so each warp keeps two bit
//! sets over register ids — pending, and pending on memory — in one flat array, plus a 64-bit
//! summary (bit `id % 64`) that answers most "is anything pending?" questions with one AND. An
//! instruction whose registers lie in two consecutive words (almost all) is checked, reserved and
//! released through its precomputed masks ([`crate::timing::program::RegisterWords`]), the others through
//! their id lists.

use alloc::vec;
use alloc::vec::Vec;

use crate::timing::program::{Program, StaticInst};

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
    /// 64-bit words per warp in `pending` and `memory` (grows with the largest id reserved).
    words: usize,
    /// Per warp, `words` words: bit `id` set while register `id` has a write in flight.
    pending: Vec<u64>,
    /// Per warp, `words` words: bit `id` set while that write is a load's (or atomic's).
    memory: Vec<u64>,
    /// Per warp: the OR of its `pending` words (bit `id % 64`).
    summary: Vec<u64>,
}

impl Scoreboard {
    /// Empty for `warps` warp slots.
    pub fn new(warps: usize) -> Self {
        Scoreboard { words: 1, pending: vec![0; warps], memory: vec![0; warps], summary: vec![0; warps] }
    }

    /// The pending state blocking an instruction of `warp` reading `reads` and writing `writes`
    /// (`hazards`: bit `id % 64` of each): `Some(Memory)` if any blocking register waits on
    /// memory, else `Some(Alu)`, `None` if free.
    pub fn blocked(&self, warp: usize, reads: &[u32], writes: &[u32], hazards: u64) -> Option<Pending> {
        let summary = self.summary.get(warp).copied().unwrap_or(0);
        if summary & hazards == 0 {
            return None;
        }
        let base = warp * self.words;
        let mut found = None;
        for &id in reads.iter().chain(writes) {
            if summary & (1 << (id % 64)) == 0 {
                continue;
            }
            let (i, bit) = (id as usize / 64, id % 64);
            if i >= self.words || self.pending.get(base + i).is_none_or(|p| p >> bit & 1 == 0) {
                continue;
            }
            if self.memory.get(base + i).is_some_and(|m| m >> bit & 1 == 1) {
                return Some(Pending::Memory);
            }
            found = Some(Pending::Alu);
        }
        found
    }

    /// What blocks instruction `s` of `warp` ([`Scoreboard::blocked`]), through its word masks
    /// when they fit, else its id lists.
    #[inline]
    pub fn blocked_by(&self, warp: usize, s: &StaticInst, program: &Program) -> Option<Pending> {
        let r = &s.words;
        if r.fits {
            self.blocked_words(warp, r.base, r.all, s.hazards)
        } else {
            self.blocked(warp, program.reads_of(s), program.writes_of(s), s.hazards)
        }
    }

    /// Reserves the registers instruction `s` of `warp` writes ([`Scoreboard::reserve`]).
    #[inline]
    pub fn reserve_for(&mut self, warp: usize, s: &StaticInst, program: &Program, why: Pending) {
        if s.words.fits {
            self.reserve_words(warp, s.words.base, s.words.writes, why);
        } else {
            self.reserve(warp, program.writes_of(s), why);
        }
    }

    /// Releases the registers instruction `s` of `warp` writes ([`Scoreboard::release`]).
    #[inline]
    pub fn release_for(&mut self, warp: usize, s: &StaticInst, program: &Program) {
        if s.words.fits {
            self.release_words(warp, s.words.base, s.words.writes);
        } else {
            self.release(warp, program.writes_of(s));
        }
    }

    /// [`Scoreboard::blocked`] for registers given as masks over words `base` and `base + 1`
    /// (`all`: read or written).
    #[inline]
    pub fn blocked_words(&self, warp: usize, base: u32, all: [u64; 2], hazards: u64) -> Option<Pending> {
        let summary = self.summary.get(warp).copied().unwrap_or(0);
        if summary & hazards == 0 {
            return None;
        }
        let at = warp * self.words;
        let mut found = None;
        for (k, m) in all.into_iter().enumerate() {
            let i = base as usize + k;
            if m == 0 || i >= self.words {
                continue;
            }
            let p = self.pending.get(at + i).map_or(0, |p| p & m);
            if p == 0 {
                continue;
            }
            if self.memory.get(at + i).is_some_and(|x| x & p != 0) {
                return Some(Pending::Memory);
            }
            found = Some(Pending::Alu);
        }
        found
    }

    /// [`Scoreboard::reserve`] for registers given as masks over words `base` and `base + 1`.
    #[inline]
    pub fn reserve_words(&mut self, warp: usize, base: u32, writes: [u64; 2], why: Pending) {
        let need = base as usize + if writes[1] != 0 { 2 } else { 1 };
        if need > self.words {
            self.widen(need);
        }
        let at = warp * self.words + base as usize;
        for (k, m) in writes.into_iter().enumerate() {
            if m == 0 {
                continue;
            }
            if let Some(p) = self.pending.get_mut(at + k) {
                *p |= m;
            }
            if let Some(x) = self.memory.get_mut(at + k) {
                if why == Pending::Memory {
                    *x |= m;
                } else {
                    *x &= !m;
                }
            }
            if let Some(s) = self.summary.get_mut(warp) {
                *s |= m;
            }
        }
    }

    /// [`Scoreboard::release`] for registers given as masks over words `base` and `base + 1`.
    #[inline]
    pub fn release_words(&mut self, warp: usize, base: u32, writes: [u64; 2]) {
        let at = warp * self.words;
        for (k, m) in writes.into_iter().enumerate() {
            let i = base as usize + k;
            if m == 0 || i >= self.words {
                continue;
            }
            if let Some(p) = self.pending.get_mut(at + i) {
                *p &= !m;
            }
            if let Some(x) = self.memory.get_mut(at + i) {
                *x &= !m;
            }
        }
        let all = self.pending.get(at..at + self.words).map_or(0, |ws| ws.iter().fold(0, |s, w| s | w));
        if let Some(s) = self.summary.get_mut(warp) {
            *s = all;
        }
    }

    /// Reserves `writes` of `warp`.
    pub fn reserve(&mut self, warp: usize, writes: &[u32], why: Pending) {
        for &id in writes {
            let i = id as usize / 64;
            if i >= self.words {
                self.widen(i + 1);
            }
            let at = warp * self.words + i;
            let bit = 1u64 << (id % 64);
            if let Some(p) = self.pending.get_mut(at) {
                *p |= bit;
            }
            if let Some(m) = self.memory.get_mut(at) {
                if why == Pending::Memory {
                    *m |= bit;
                } else {
                    *m &= !bit;
                }
            }
            if let Some(s) = self.summary.get_mut(warp) {
                *s |= bit;
            }
        }
    }

    /// Releases `writes` of `warp`.
    pub fn release(&mut self, warp: usize, writes: &[u32]) {
        let base = warp * self.words;
        for &id in writes {
            let at = base + id as usize / 64;
            if id as usize / 64 >= self.words {
                continue;
            }
            let bit = !(1u64 << (id % 64));
            if let Some(p) = self.pending.get_mut(at) {
                *p &= bit;
            }
            if let Some(m) = self.memory.get_mut(at) {
                *m &= bit;
            }
        }
        let all = self.pending.get(base..base + self.words).map_or(0, |ws| ws.iter().fold(0, |s, w| s | w));
        if let Some(s) = self.summary.get_mut(warp) {
            *s = all;
        }
    }

    /// True if any register of `warp` is pending on memory (two-level scheduling, CTA parking).
    pub fn waits_on_memory(&self, warp: usize) -> bool {
        let base = warp * self.words;
        self.memory.get(base..base + self.words).is_some_and(|ws| ws.iter().any(|&w| w != 0))
    }

    /// Clears `warp` (its slot is reused).
    pub fn clear(&mut self, warp: usize) {
        let base = warp * self.words;
        for v in [&mut self.pending, &mut self.memory] {
            if let Some(ws) = v.get_mut(base..base + self.words) {
                ws.fill(0);
            }
        }
        if let Some(s) = self.summary.get_mut(warp) {
            *s = 0;
        }
    }

    /// Re-lays the bit sets out with `words` words per warp.
    fn widen(&mut self, words: usize) {
        let warps = self.summary.len();
        for v in [&mut self.pending, &mut self.memory] {
            let mut wide = vec![0u64; warps * words];
            for (w, chunk) in v.chunks(self.words).enumerate() {
                if let Some(dst) = wide.get_mut(w * words..w * words + chunk.len()) {
                    dst.copy_from_slice(chunk);
                }
            }
            *v = wide;
        }
        self.words = words;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn memory_wins_over_alu_and_release_clears() {
        let mut sb = Scoreboard::new(4);
        let hz = |ids: &[u32]| ids.iter().fold(0u64, |m, &i| m | 1 << (i % 64));
        sb.reserve(1, &[3], Pending::Alu);
        sb.reserve(1, &[70], Pending::Memory);
        assert_eq!(sb.blocked(1, &[3], &[], hz(&[3])), Some(Pending::Alu));
        assert_eq!(sb.blocked(1, &[3, 70], &[], hz(&[3, 70])), Some(Pending::Memory));
        // Same id % 64 as a pending register, but not pending itself.
        assert_eq!(sb.blocked(1, &[6], &[], hz(&[6])), None);
        assert_eq!(sb.blocked(0, &[3], &[], hz(&[3])), None);
        assert!(sb.waits_on_memory(1) && !sb.waits_on_memory(0));
        sb.release(1, &[70]);
        assert!(!sb.waits_on_memory(1));
        assert_eq!(sb.blocked(1, &[], &[3], hz(&[3])), Some(Pending::Alu));
        sb.release(1, &[3]);
        assert_eq!(sb.blocked(1, &[3, 70], &[], u64::MAX), None);
    }

    #[test]
    fn word_masks_agree_with_id_lists() {
        use crate::timing::program::RegisterWords;
        let hz = |ids: &[u32]| ids.iter().fold(0u64, |m, &i| m | 1 << (i % 64));
        // Registers 60..70 span words 0 and 1; 130 is a third word.
        let (reads, writes): (&[u32], &[u32]) = (&[61, 66], &[69]);
        let w = RegisterWords::of(&[reads], &[writes]);
        assert!(w.fits && w.base == 0);
        assert_eq!(w.all, [1 << 61, (1 << 2) | (1 << 5)]);
        assert_eq!(w.writes, [0, 1 << 5]);
        assert!(!RegisterWords::of(&[&[1]], &[&[130]]).fits);
        assert_eq!(RegisterWords::of(&[&[130]], &[&[200]]).base, 2);
        let (mut by_ids, mut by_words) = (Scoreboard::new(2), Scoreboard::new(2));
        by_ids.reserve(1, writes, Pending::Memory);
        by_words.reserve_words(1, w.base, w.writes, Pending::Memory);
        let probe = RegisterWords::of(&[&[69]], &[]);
        for sb in [&by_ids, &by_words] {
            assert_eq!(sb.blocked(1, reads, writes, hz(&[61, 66, 69])), Some(Pending::Memory));
            assert_eq!(sb.blocked_words(1, w.base, w.all, hz(&[61, 66, 69])), Some(Pending::Memory));
            assert_eq!(sb.blocked_words(1, probe.base, probe.all, hz(&[69])), Some(Pending::Memory));
            assert_eq!(sb.blocked_words(0, w.base, w.all, u64::MAX), None);
            // 5 = 69 % 64: the summary bit is shared, the word is not.
            assert_eq!(sb.blocked_words(1, 0, [1 << 5, 0], u64::MAX), None);
        }
        by_words.reserve_words(1, 0, [1 << 3, 0], Pending::Alu);
        assert_eq!(by_words.blocked(1, &[3], &[], hz(&[3])), Some(Pending::Alu));
        by_words.release_words(1, w.base, w.writes);
        assert_eq!(by_words.blocked_words(1, w.base, w.all, u64::MAX), None);
        assert!(!by_words.waits_on_memory(1));
        by_words.release_words(1, 0, [1 << 3, 0]);
        assert_eq!(by_words.blocked(1, &[3], &[], u64::MAX), None);
    }

    #[test]
    fn widening_keeps_other_warps() {
        let mut sb = Scoreboard::new(3);
        sb.reserve(2, &[5], Pending::Memory);
        sb.reserve(0, &[200], Pending::Alu);
        assert_eq!(sb.blocked(2, &[5], &[], 1 << 5), Some(Pending::Memory));
        assert_eq!(sb.blocked(0, &[200], &[], 1 << (200 % 64)), Some(Pending::Alu));
        sb.clear(2);
        assert_eq!(sb.blocked(2, &[5], &[], 1 << 5), None);
        assert_eq!(sb.blocked(0, &[200], &[], u64::MAX), Some(Pending::Alu));
    }
}
