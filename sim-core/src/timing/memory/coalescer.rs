//! Coalescing: the per-lane addresses of one global (or local) warp access become the distinct
//! aligned segments they touch (`coalescing_bytes`, 128 on NVIDIA presets), one transaction each.
//!
//! ```text
//! 32 lanes × 4 B at 0x1000, 0x1004, … → one 128-byte segment (0x1000)
//! 32 lanes × 4 B with a stride of 128 B → 32 segments
//! ```

use alloc::vec::Vec;

/// Writes the distinct segment numbers touched by `addrs` (each `bytes` long) into `out`, sorted.
pub fn segments(addrs: &[u64], bytes: u32, segment_bytes: u32, out: &mut Vec<u64>) {
    out.clear();
    let seg = u64::from(segment_bytes.max(1));
    let len = u64::from(bytes.max(1));
    if seg.is_power_of_two() {
        let shift = seg.trailing_zeros();
        for &a in addrs {
            let (first, last) = (a >> shift, a.saturating_add(len - 1) >> shift);
            if out.last() != Some(&first) {
                out.push(first);
            }
            if last != first {
                out.extend(first + 1..=last.min(first + 8));
            }
        }
    } else {
        for &a in addrs {
            let (first, last) = (a / seg, a.saturating_add(len - 1) / seg);
            out.push(first);
            if last != first {
                out.extend(first + 1..=last.min(first + 8));
            }
        }
    }
    if !out.is_sorted() {
        out.sort_unstable();
    }
    out.dedup();
}
