//! The SIMT reconvergence stack (the post-dominator scheme of GPGPU-Sim and Fung et al.): each
//! entry is a program counter, the reconvergence PC at which the entry is popped, and the lanes
//! that run it. A divergent branch turns the top entry into the reconvergence entry and pushes
//! one entry per path; the reconvergence PC is the branch block's immediate post-dominator from
//! [`crate::analysis::PostDominators`].
//!
//! ```text
//!     @%p1 bra THEN;      // lanes 0-15 taken: top.pc = JOIN; push {ELSE-path, JOIN, 16-31},
//!     ...                 //                               push {THEN, JOIN, 0-15}
//! THEN: ...
//! JOIN: ...               // each path pops on reaching JOIN; the warp continues with 0-31
//! ```

use alloc::vec::Vec;
use core::ops::{BitAnd, Not};

/// A set of lanes: `u32` for a 32-thread warp, `u64` for a 64-wide wavefront replayed from its
/// two halves ([`super::wavefront`]).
pub trait LaneSet: Copy + PartialEq + Default + BitAnd<Output = Self> + Not<Output = Self> {}

impl LaneSet for u32 {}
impl LaneSet for u64 {}

/// One reconvergence-stack entry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Entry<M = u32> {
    /// Next instruction.
    pub pc: u32,
    /// The entry is popped when `pc` reaches this (`u32::MAX`: never; only at function end).
    pub rpc: u32,
    /// Lanes that run this entry.
    pub mask: M,
}

/// Splits the top entry: lanes of `groups` (disjoint masks with their next PCs, all within the
/// top's lanes) run one after another and meet again at `reconv`. With one non-empty group the
/// top entry simply moves on.
pub fn diverge<M: LaneSet>(stack: &mut Vec<Entry<M>>, groups: &[(u32, M)], reconv: u32) {
    let live = |g: &&(u32, M)| g.1 != M::default();
    let mut paths = groups.iter().filter(live);
    let (Some(&(first, _)), more) = (paths.next(), paths.next().is_some()) else { return };
    let Some(top) = stack.last_mut() else { return };
    if !more {
        top.pc = first;
        return;
    }
    if top.rpc == reconv {
        // The top entry would pop at `reconv` anyway: the paths replace it.
        stack.pop();
    } else {
        top.pc = reconv;
    }
    // The first group runs first: push it last.
    for &(pc, mask) in groups.iter().rev().filter(live) {
        stack.push(Entry { pc, rpc: reconv, mask });
    }
}

/// A two-way branch: `taken` lanes go to `target`, the rest of `active` to `fallthrough`.
pub fn branch<M: LaneSet>(stack: &mut Vec<Entry<M>>, active: M, taken: M, target: u32, fallthrough: u32, reconv: u32) {
    diverge(stack, &[(target, taken & active), (fallthrough, active & !taken)], reconv);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn diverge_and_reconverge() {
        let mut s = alloc::vec![Entry { pc: 0, rpc: u32::MAX, mask: 0xFu32 }];
        branch(&mut s, 0xF, 0x3, 10, 1, 20);
        assert_eq!(
            s,
            alloc::vec![
                Entry { pc: 20, rpc: u32::MAX, mask: 0xF },
                Entry { pc: 1, rpc: 20, mask: 0xC },
                Entry { pc: 10, rpc: 20, mask: 0x3 },
            ]
        );
        // A nested divergence with the same reconvergence point replaces the top entry.
        branch(&mut s, 0x3, 0x1, 12, 11, 20);
        assert_eq!(s.len(), 4);
        assert_eq!(s[3], Entry { pc: 12, rpc: 20, mask: 0x1 });
        // Uniform branches only move the top entry.
        branch(&mut s, 0x1, 0x1, 30, 13, 20);
        assert_eq!(s[3].pc, 30);
    }
}
