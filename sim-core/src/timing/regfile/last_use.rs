//! Gebhart et al.'s compiler "last use" bit: per static instruction, which of its source
//! register units hold a value no later instruction reads ([`crate::analysis::liveness`]: read
//! here, not live after). A static table keyed by `sid` over the bank reads of the program the
//! run decodes; the IR is not changed.
//!
//! ```text
//! add.f32 %f2, %f1, 1.0;   // %f1 not live after → bit 0 set: its RFC entry is dropped, no write-back
//! add.f32 %f3, %f2, %f2;   // one distinct source, dead after → bit 0
//! ```
//!
//! Bit `k` of `bits[sid]` stands for `program.bank_reads(sid)[k]` (k < 64). An instruction whose
//! bank reads do not line up one to one with its virtual source units (a scheme's own packing)
//! gets no bits.

use alloc::vec;
use alloc::vec::Vec;

use crate::analysis::cfg::Cfg;
use crate::analysis::liveness::Liveness;
use crate::ir::{Handle, Module, Reg};
use crate::timing::program::Program;

/// Per `sid`: the last-use bits of its bank reads.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LastUse {
    bits: Vec<u64>,
}

impl LastUse {
    /// The table for `program`, decoded from `module`.
    pub fn compute(module: &Module, program: &Program) -> LastUse {
        let mut bits = vec![0u64; program.insts.len()];
        for (h, f) in module.functions.iter() {
            let Some(body) = &f.body else { continue };
            let live = Liveness::compute(f, &Cfg::compute(f));
            let map = live.unit_map();
            for (ih, inst) in body.insts.iter() {
                let Some(sid) = program.sid(h, ih) else { continue };
                let mut regs: Vec<Handle<Reg>> = Vec::new();
                inst.for_each_use(|r| {
                    if map.pred_index(r).is_none() && !regs.contains(&r) {
                        regs.push(r);
                    }
                });
                let units: Vec<usize> = regs.iter().flat_map(|&r| map.units_of(r)).collect();
                if units.len() != program.bank_reads(sid).len() {
                    continue;
                }
                let out = live.live_out(ih);
                let mask = units
                    .iter()
                    .take(64)
                    .enumerate()
                    .filter(|(_, &u)| !out.contains(u))
                    .fold(0u64, |m, (k, _)| m | 1 << k);
                if let Some(b) = bits.get_mut(sid as usize) {
                    *b = mask;
                }
            }
        }
        LastUse { bits }
    }

    /// Whether source `k` (an index into the bank reads) of `sid` is its value's last use.
    pub fn is_last(&self, sid: u32, k: usize) -> bool {
        k < 64 && self.bits.get(sid as usize).is_some_and(|b| b >> k & 1 == 1)
    }

    /// No instruction has a bit (no table computed).
    pub fn is_empty(&self) -> bool {
        self.bits.iter().all(|&b| b == 0)
    }
}
