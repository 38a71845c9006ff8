//! Shared-memory bank conflicts: lanes that hit different words of the same bank serialize; lanes
//! reading the same word share it (broadcast). The conflict degree is the largest number of
//! distinct words any bank must serve.
//!
//! ```text
//! 32 banks × 4 B: lane i reads word i → degree 1; lane i reads word 32·i → all in bank 0, degree 32
//! ```

use alloc::vec::Vec;

/// The conflict degree (≥ 1) of one warp access; `scratch` is reused between calls.
pub fn conflict_degree(addrs: &[u64], bytes: u32, banks: u32, bank_width: u32, scratch: &mut Vec<u64>) -> u32 {
    let banks = u64::from(banks.max(1));
    let width = u64::from(bank_width.max(1));
    if u64::from(bytes) <= width && banks <= 64 && conflict_free(addrs, banks, width) {
        return 1;
    }
    scratch.clear();
    for &a in addrs {
        let first = a / width;
        let last = (a.saturating_add(u64::from(bytes.max(1)) - 1) / width).min(first + 8);
        scratch.extend(first..=last);
    }
    scratch.sort_unstable();
    scratch.dedup();
    let mut per_bank = [0u32; 64];
    let mut degree = 1;
    for &word in scratch.iter() {
        if let Some(n) = per_bank.get_mut((word % banks % 64) as usize) {
            *n += 1;
            degree = degree.max(*n);
        }
    }
    degree
}

/// Whether every bank serves at most one distinct word (degree 1): one pass that remembers,
/// per bank, the word it serves (a bit mask says which banks have one, so the table needs no
/// clearing between lanes).
fn conflict_free(addrs: &[u64], banks: u64, width: u64) -> bool {
    let pow2 = banks.is_power_of_two() && width.is_power_of_two();
    let (shift, mask) = (width.trailing_zeros(), banks.wrapping_sub(1));
    let mut used = 0u64;
    let mut word_of = [0u64; 64];
    for &a in addrs {
        let (word, bank) = if pow2 {
            (a >> shift, ((a >> shift) & mask) as usize)
        } else {
            (a / width, ((a / width) % banks) as usize)
        };
        let bit = 1u64 << (bank & 63);
        match word_of.get_mut(bank) {
            Some(w) if used & bit == 0 => {
                used |= bit;
                *w = word;
            }
            Some(w) if *w == word => {}
            _ => return false,
        }
    }
    true
}
