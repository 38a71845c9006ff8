//! Static use counts per definition: how many instructions may read each value, and the histogram
//! of values by number of reads (0, 1, 2, more) that the register-file cache studies start from.
//!
//! ```text
//! ld.global.f32 %f1, [%rd1];   // def of %f1: 1 use (single-use load)
//! mul.f32 %f2, %f1, %f1;       // def of %f2: 2 uses
//! add.f32 %f3, %f2, 1.0;
//! st.global.f32 [%rd1], %f2;
//! ```
//!
//! A use is an instruction reading the register (see [`super::def_use`]); a use reached by two
//! definitions (after an if/else) counts for both.

use alloc::vec::Vec;

use super::def_use::{DefId, DefUse};
use crate::ir::{Handle, Inst, Reg};

/// Numbers of definitions by how many uses they have.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ReadsHistogram {
    /// Never read.
    pub zero: usize,
    /// Read by exactly one instruction.
    pub one: usize,
    /// Read by two.
    pub two: usize,
    /// Read by three or more.
    pub more: usize,
}

/// Use counts of every definition of one function.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct UseCounts {
    counts: Vec<u32>,
    histogram: ReadsHistogram,
}

impl UseCounts {
    /// Counts the uses of every definition in `du`.
    pub fn compute(du: &DefUse) -> UseCounts {
        let counts: Vec<u32> = (0..du.defs().len() as DefId).map(|d| du.uses_of(d).len() as u32).collect();
        let mut h = ReadsHistogram::default();
        for &c in &counts {
            match c {
                0 => h.zero += 1,
                1 => h.one += 1,
                2 => h.two += 1,
                _ => h.more += 1,
            }
        }
        UseCounts { counts, histogram: h }
    }

    /// Number of uses of definition `d`.
    pub fn count(&self, d: DefId) -> u32 {
        self.counts.get(d as usize).copied().unwrap_or(0)
    }

    /// The registers `inst` writes with their use counts, in register order.
    pub fn at(&self, du: &DefUse, inst: Handle<Inst>) -> Vec<(Handle<Reg>, u32)> {
        du.defs_at(inst).iter().map(|&d| (du.defs()[d as usize].reg, self.count(d))).collect()
    }

    /// Definitions by number of uses.
    pub fn histogram(&self) -> ReadsHistogram {
        self.histogram
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::cfg::Cfg;
    use crate::analysis::test_util::kernel;

    #[test]
    fn counts_through_a_diamond() {
        let m = kernel(
            ".reg .pred %p<2>; .reg .b32 %r<4>;
             mov.u32 %r1, %tid.x;
             mov.u32 %r2, 0;
             setp.eq.s32 %p1, %r1, 0;
             @%p1 mov.u32 %r2, 1;
             add.s32 %r3, %r2, %r2;
             @%p1 bra DONE;
             add.s32 %r3, %r3, %r1;
             DONE: st.global.u32 [0], %r3;
             ret;",
        );
        let f = &m.functions[Handle::from_index(0)];
        let cfg = Cfg::compute(f);
        let du = DefUse::compute(f, &cfg);
        let uc = UseCounts::compute(&du);
        let insts: Vec<Handle<Inst>> = f.body.as_ref().map(|b| b.insts_in_order().collect()).unwrap_or_default();
        let r = |i: u32| Handle::<Reg>::from_index(i);
        assert_eq!(uc.at(&du, insts[0]), [(r(3), 2)]); // %r1: setp, add
        assert_eq!(uc.at(&du, insts[1]), [(r(4), 1)]); // %r2 = 0 reaches the add (guarded def)
        assert_eq!(uc.at(&du, insts[2]), [(r(1), 2)]); // %p1: the guard of mov and of bra
        assert_eq!(uc.at(&du, insts[3]), [(r(4), 1)]);
        assert_eq!(uc.at(&du, insts[4]), [(r(5), 2)]); // %r3: the second add and the store
        assert_eq!(uc.at(&du, insts[6]), [(r(5), 1)]);
        let h = uc.histogram();
        assert_eq!((h.zero, h.one, h.two, h.more), (0, 3, 3, 0));
        let store_use = du.uses_at(insts[7])[0];
        assert_eq!(du.reaching(store_use).len(), 2);
    }
}
