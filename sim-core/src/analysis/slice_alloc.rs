//! Slice allocation of Angerd, Sintorn and Stenström ("A GPU Register File using Static Data
//! Compression", `SCHEMES.md` §2): a 32-bit thread register is 8 slices of 4 bits; a value of `w`
//! bits takes `ceil(w / 4)` slices. A linear scan over live intervals places each value, in order
//! of its interval's start, by best fit into one physical register with enough free slices, else
//! split over two registers, else in a newly opened register. Registers per thread are the
//! registers opened (the peak in use: a register once opened is never closed).
//!
//! ```text
//! a: 12 bits [0, 9]  → 3 slices → R0 slices 0–2 (new register)
//! b: 16 bits [1, 5]  → 4 slices → R0 slices 3–6 (best fit: R0 has 5 free)
//! c:  8 bits [2, 8]  → 2 slices → R0 has 1 free → R1 slices 0–1 (new)
//! d: 24 bits [6, 9]  → 6 slices → b died at 5: R0 has 5 free (3–7), R1 6 free (2–7) → R1 2–7
//! ```
//!
//! Slices taken in one register form one contiguous run (extraction is a shift and a mask); a
//! split value's low part is the first register's run, its high part the second's.

use alloc::vec;
use alloc::vec::Vec;

/// One value to place: its live interval (inclusive positions, any monotone numbering of
/// program points) and the slices it needs (1 ..= 2 × slices per register).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LiveValue {
    /// First point where the value is live (its definition).
    pub start: u32,
    /// Last point where it is live (its last use); `end ≥ start`.
    pub end: u32,
    /// Slices it needs.
    pub slices: u32,
}

/// One physical register of a value and the slices of it the value holds (bit `i`: slice `i`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Piece {
    /// Physical register number.
    pub reg: u32,
    /// Slice mask.
    pub mask: u8,
}

/// Where every value went.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SliceAllocation {
    /// Per value (in input order): one piece, or two for a split value (low part first).
    pub pieces: Vec<Vec<Piece>>,
    /// Registers opened (registers per thread), reserved ones included below the highest used.
    pub registers: u32,
    /// Values placed in one register that already held another value.
    pub fits: u32,
    /// Values split over two registers.
    pub splits: u32,
}

/// The allocator's state: per open register, the value holding each slice.
struct Scan {
    per_reg: u32,
    /// Per open register: its number and, per slice, the end of the value in it (`None`: free).
    regs: Vec<(u32, Vec<Option<u32>>)>,
    reserved: Vec<u32>,
    next: u32,
}

impl Scan {
    /// Frees the slices of values that ended before `at`.
    fn expire(&mut self, at: u32) {
        for (_, slots) in &mut self.regs {
            for s in slots.iter_mut() {
                if s.is_some_and(|end| end < at) {
                    *s = None;
                }
            }
        }
    }

    /// The longest free run of register `i`: (length, first slice); lowest first slice on ties.
    fn longest_run(&self, i: usize) -> (u32, u32) {
        let Some((_, slots)) = self.regs.get(i) else { return (0, 0) };
        let (mut best, mut run, mut start) = ((0, 0), 0u32, 0u32);
        for (k, s) in slots.iter().enumerate() {
            if s.is_none() {
                if run == 0 {
                    start = k as u32;
                }
                run += 1;
                if run > best.0 {
                    best = (run, start);
                }
            } else {
                run = 0;
            }
        }
        best
    }

    /// The lowest free run of at least `n` slices in register `i`.
    fn run_of(&self, i: usize, n: u32) -> Option<u32> {
        let (_, slots) = self.regs.get(i)?;
        (0..=self.per_reg.checked_sub(n)?)
            .find(|&f| (f..f + n).all(|k| slots.get(k as usize).is_some_and(Option::is_none)))
    }

    fn free(&self, i: usize) -> u32 {
        self.regs.get(i).map_or(0, |(_, s)| s.iter().filter(|x| x.is_none()).count() as u32)
    }

    /// Best fit: the open register with the fewest free slices that has a run of `n` (lowest
    /// register on ties).
    fn best_fit(&self, n: u32, skip: Option<usize>) -> Option<(usize, u32)> {
        (0..self.regs.len())
            .filter(|&i| Some(i) != skip)
            .filter_map(|i| self.run_of(i, n).map(|f| (self.free(i), i, f)))
            .min_by_key(|&(free, i, _)| (free, i))
            .map(|(_, i, f)| (i, f))
    }

    /// Marks slices `first .. first + n` of register `i` as held until `end`.
    fn take(&mut self, i: usize, first: u32, n: u32, end: u32) -> Piece {
        let Some((reg, slots)) = self.regs.get_mut(i) else { return Piece { reg: 0, mask: 0 } };
        let mut mask = 0u8;
        for k in first..first + n {
            if let Some(s) = slots.get_mut(k as usize) {
                *s = Some(end);
                mask |= 1 << k;
            }
        }
        Piece { reg: *reg, mask }
    }

    /// Opens the next free register number (skipping reserved ones); its index in `regs`.
    fn open(&mut self) -> usize {
        while self.reserved.contains(&self.next) {
            self.next += 1;
        }
        self.regs.push((self.next, vec![None; self.per_reg as usize]));
        self.next += 1;
        self.regs.len() - 1
    }
}

/// Places `values` in registers of `32 / slice_bits` slices (`slice_bits` 4: eight), never in
/// the `reserved` register numbers.
pub fn allocate(values: &[LiveValue], slice_bits: u32, reserved: &[u32]) -> SliceAllocation {
    let per_reg = (32 / slice_bits.clamp(1, 32)).clamp(1, 8);
    let mut order: Vec<usize> = (0..values.len()).collect();
    crate::sorting::sort_by_key(&mut order, |&i| values.get(i).map(|v| (v.start, i)));
    let mut scan = Scan { per_reg, regs: Vec::new(), reserved: reserved.to_vec(), next: 0 };
    let mut out = SliceAllocation { pieces: vec![Vec::new(); values.len()], ..SliceAllocation::default() };
    for i in order {
        let Some(v) = values.get(i) else { continue };
        scan.expire(v.start);
        let need = v.slices.clamp(1, 2 * per_reg);
        let end = v.end.max(v.start);
        let pieces = place(&mut scan, need, end, &mut out);
        if let Some(slot) = out.pieces.get_mut(i) {
            *slot = pieces;
        }
    }
    out.registers = scan.regs.iter().map(|(r, _)| r + 1).max().unwrap_or(0);
    out
}

/// Places one value of `need` slices: fit, split, else new register(s).
fn place(scan: &mut Scan, need: u32, end: u32, out: &mut SliceAllocation) -> Vec<Piece> {
    if need <= scan.per_reg {
        if let Some((i, f)) = scan.best_fit(need, None) {
            if scan.free(i) < scan.per_reg {
                out.fits += 1;
            }
            return vec![scan.take(i, f, need, end)];
        }
    }
    // Split: the low part takes the longest free run of some register (the longest overall,
    // lowest register on ties); the high part best-fits the rest elsewhere.
    let low = (0..scan.regs.len())
        .map(|i| (scan.longest_run(i), i))
        .filter(|&((len, _), _)| len > 0 && len < need)
        .max_by_key(|&((len, _), i)| (len, core::cmp::Reverse(i)));
    if let Some(((len, first), i)) = low {
        if let Some((j, f)) = scan.best_fit(need - len, Some(i)) {
            out.splits += 1;
            let a = scan.take(i, first, len, end);
            return vec![a, scan.take(j, f, need - len, end)];
        }
    }
    let i = scan.open();
    if need <= scan.per_reg {
        return vec![scan.take(i, 0, need, end)];
    }
    let a = scan.take(i, 0, scan.per_reg, end);
    let rest = need - scan.per_reg;
    let j = match scan.best_fit(rest, Some(i)) {
        Some((j, f)) => return vec![a, scan.take(j, f, rest, end)],
        None => scan.open(),
    };
    vec![a, scan.take(j, 0, rest, end)]
}

#[cfg(test)]
mod tests {
    use super::{allocate, LiveValue, Piece};
    use alloc::vec;

    fn v(start: u32, end: u32, slices: u32) -> LiveValue {
        LiveValue { start, end, slices }
    }

    /// The module example: fit, new register, best fit after a value dies.
    #[test]
    fn fit_new_register_and_best_fit() {
        let a = allocate(&[v(0, 9, 3), v(1, 5, 4), v(2, 8, 2), v(6, 9, 6)], 4, &[]);
        // a: R0 slices 0–2 (0x07); b: R0 3–6 (0x78), a fit; c: R0 has only slice 7 free, no
        // other register, and a split needs a second register: new R1 0–1 (0x03); d at 6: b
        // died at 5, R0 free 3–7 (5 slices, run 5), R1 free 2–7 (6 slices): only R1 fits 6.
        let p = |reg, mask| vec![Piece { reg, mask }];
        assert_eq!(a.pieces, vec![p(0, 0x07), p(0, 0x78), p(1, 0x03), p(1, 0xfc)]);
        assert_eq!((a.registers, a.fits, a.splits), (2, 2, 0));
    }

    /// A value that fits nowhere whole is split over the two registers with free runs.
    #[test]
    fn split_over_two_registers() {
        // x: 5 slices in R0 (0–4), y: 5 slices — R0 has 3 free: new R1 (0–4); z: 6 slices —
        // R0 has 3 free (5–7), R1 3 free (5–7): split, low 3 in R0 (0xe0), high 3 in R1 (0xe0).
        let a = allocate(&[v(0, 9, 5), v(1, 9, 5), v(2, 9, 6)], 4, &[]);
        assert_eq!(a.pieces[2], vec![Piece { reg: 0, mask: 0xe0 }, Piece { reg: 1, mask: 0xe0 }], "{:?}", a.pieces);
        assert_eq!((a.registers, a.fits, a.splits), (2, 0, 1));
    }

    /// Full-width values each open a register; the reserved number (R1) is skipped, and a
    /// register freed at a value's last use is reused by a value defined after it.
    #[test]
    fn new_registers_skip_the_reserved_one_and_reuse_dead_slices() {
        // p [0,2] → R0, q [1,4] → R2 (R1 reserved), r [3,5]: p ended at 2 → R0 again; a 64-bit
        // value s (16 slices) [6,7]: R0 and R2 are free again → R0 whole + R2 whole (a split).
        let a = allocate(&[v(0, 2, 8), v(1, 4, 8), v(3, 5, 8), v(6, 7, 16)], 4, &[1]);
        let w = |reg| Piece { reg, mask: 0xff };
        assert_eq!(a.pieces, vec![vec![w(0)], vec![w(2)], vec![w(0)], vec![w(0), w(2)]]);
        assert_eq!(a.registers, 3);
    }

    /// With 8-bit slices a register has four; a 9-bit value needs two of them.
    #[test]
    fn eight_bit_slices() {
        let a = allocate(&[v(0, 3, 2), v(0, 3, 2), v(0, 3, 1)], 8, &[]);
        // 2 + 2 slices fill R0 (0x03, 0x0c); the third opens R1.
        assert_eq!(a.pieces[1], vec![Piece { reg: 0, mask: 0x0c }]);
        assert_eq!(a.pieces[2], vec![Piece { reg: 1, mask: 0x01 }]);
    }
}
