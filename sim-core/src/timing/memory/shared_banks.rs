//! Shared-memory bank conflicts: lanes that hit different words of the same bank serialize; lanes
//! reading the same word share it (broadcast). The conflict degree is the largest number of
//! distinct words any bank must serve.
//!
//! ```text
//! 32 banks × 4 B: lane i reads word i → degree 1; lane i reads word 32·i → all in bank 0, degree 32
//! ```

use alloc::vec::Vec;

/// The conflict degree (≥ 1) of one warp access; `scratch` is reused between calls.
pub fn conflict_degree(addrs: &[u64], bytes: u32, banks: u32, bank_width: u32, scratch: &mut Vec<(u32, u64)>) -> u32 {
    let banks = u64::from(banks.max(1));
    let width = u64::from(bank_width.max(1));
    scratch.clear();
    for &a in addrs {
        let first = a / width;
        let last = (a.saturating_add(u64::from(bytes.max(1)) - 1) / width).min(first + 8);
        for word in first..=last {
            scratch.push(((word % banks) as u32, word));
        }
    }
    scratch.sort_unstable();
    scratch.dedup();
    let mut degree = 1;
    let mut run = 0;
    let mut prev = None;
    for &(bank, _) in scratch.iter() {
        run = if prev == Some(bank) { run + 1 } else { 1 };
        prev = Some(bank);
        degree = degree.max(run);
    }
    degree
}
