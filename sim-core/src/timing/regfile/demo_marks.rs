//! Which register-file accesses of the original kernel belong to single-use memory values
//! (DeMO's Algorithm 1, every load space it allows): per static instruction, the operand
//! positions of its bank reads and bank writes that are such an access — the load's write of its
//! value and the consumer's one read of it. The baseline marks them in its banks when asked
//! ([`crate::timing::TimingOptions::single_use_attribution`]) to count the paper's Fig. 2: the
//! bank conflicts those accesses are involved in.
//!
//! ```text
//! sid 4  ld.global.f32 %f1, [%rd1]     reads [R2, R3] → 0b00 · writes [R5] → 0b1
//! sid 5  add.f32 %f2, %f1, %f3         reads [R5, R6] → 0b01 · writes [R7] → 0b0
//! ```
//!
//! The positions come from decoding the module twice: with the allocator's registers (the
//! program the run times) and with `demo-ideal`'s assignment ([`super::demo_program::ideal_assign`]),
//! which moves exactly those values to buffer ids and leaves every other operand where it was.

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use super::demo_program::{ideal_assign, is_mob};
use crate::gpu::GpuConfig;
use crate::ir::Module;
use crate::timing::program::Program;

/// Marked operand positions by `sid` (bit `i`: the `i`-th bank read or write; positions from 64
/// on are never marked).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SingleUseMarks {
    /// Per `sid`: (read positions, write positions).
    per_sid: Vec<(u64, u64)>,
}

/// Bit `i` set where `ids[i]` is a buffer id.
fn mask(ids: &[u32]) -> u64 {
    ids.iter().take(64).enumerate().filter(|&(_, &u)| is_mob(u)).fold(0, |m, (i, _)| m | 1 << i)
}

impl SingleUseMarks {
    /// The marks of `program` (`module` decoded for `gpu`, banks on physical registers when
    /// `physical`); an error if the two decodings disagree on the shape of an instruction.
    pub fn compute(module: &Module, program: &Program, gpu: &GpuConfig, physical: bool) -> Result<Self, String> {
        let ideal = Program::decode_assigned(module, gpu, physical, Some(ideal_assign))?;
        if ideal.insts.len() != program.insts.len() {
            return Err(format!("{} instructions decoded, {} timed", ideal.insts.len(), program.insts.len()));
        }
        let mut per_sid = Vec::with_capacity(program.insts.len());
        for sid in 0..program.insts.len() as u32 {
            let (r, w) = (ideal.bank_reads(sid), ideal.bank_writes(sid));
            if r.len() != program.bank_reads(sid).len() || w.len() != program.bank_writes(sid).len() {
                return Err(format!("instruction {sid}: its operands differ between the two decodings"));
            }
            per_sid.push((mask(r), mask(w)));
        }
        Ok(SingleUseMarks { per_sid })
    }

    /// Marks given directly (tests).
    pub fn from_masks(per_sid: Vec<(u64, u64)>) -> Self {
        SingleUseMarks { per_sid }
    }

    /// The marked read positions of `sid`.
    pub fn reads(&self, sid: u32) -> u64 {
        self.per_sid.get(sid as usize).map_or(0, |m| m.0)
    }

    /// The marked write positions of `sid`.
    pub fn writes(&self, sid: u32) -> u64 {
        self.per_sid.get(sid as usize).map_or(0, |m| m.1)
    }

    /// Marked operand positions over all instructions (reads, writes).
    pub fn totals(&self) -> (u32, u32) {
        self.per_sid.iter().fold((0, 0), |(r, w), m| (r + m.0.count_ones(), w + m.1.count_ones()))
    }
}

#[cfg(test)]
mod tests {
    use super::super::bank::Banks;
    use super::super::operand_collector::CollectorPool;
    use super::super::SmGeometry;

    /// 4 banks, one group, bank = (reg + warp) % 4; 8 collectors.
    fn setup() -> (Banks, CollectorPool) {
        let geo = SmGeometry { schedulers: 1, groups: 1, warp_size: 32, max_warps: 8 };
        let mut banks = Banks::new(4, 1);
        banks.attribute_single_use();
        (banks, CollectorPool::with_units(8, &geo))
    }

    /// Each case by hand (one port per bank: a write takes it, else one read):
    /// - bank 1, cycle 0: CU 0 (warp 0, r1, marked) and CU 1 (warp 4, r1 → (1 + 4) % 4 = 1). CU 0
    ///   is granted, CU 1 waits: read-read 1, involving a marked access (the granted one) → 1;
    ///   the marked request did not wait → waits 0. Cycle 1: CU 1 alone, no conflict.
    /// - bank 0, cycle 2: CU 2, CU 3 (r0 of warps 0 and 4), neither marked: read-read 1, not
    ///   involved. Cycle 3: CU 3 alone.
    /// - bank 3, cycle 4: a marked write of warp 0's r3 takes it; CU 4's unmarked read of r3
    ///   waits: read-write 1, involved (the write) → 2. A second write to bank 3 (warp 4's r3,
    ///   unmarked) is refused: write-write 1, involved (the marked write took the bank) → 3.
    /// - bank 2, cycle 6: CU 5 (warp 0, r2, unmarked, queued first) and CU 6 (warp 4, r2,
    ///   marked): CU 5 granted, the marked CU 6 waits → involved 4, waits 1.
    #[test]
    fn conflicts_involving_marked_accesses_by_hand() {
        let (mut banks, mut cus) = setup();
        for _ in 0..7 {
            let _ = cus.try_allocate(0, 1);
        }
        banks.request_marked(0, 1, 0, 0, true);
        banks.request_marked(1, 1, 4, 0, false);
        banks.arbitrate(0, &mut cus);
        banks.arbitrate(1, &mut cus);
        assert_eq!((banks.read_read, banks.single_use_conflicts, banks.single_use_waits), (1, 1, 0));
        banks.request(2, 0, 0, 0);
        banks.request(3, 0, 4, 0);
        banks.arbitrate(2, &mut cus);
        banks.arbitrate(3, &mut cus);
        assert_eq!((banks.read_read, banks.single_use_conflicts), (2, 1), "no marked access: not involved");
        banks.request(4, 3, 0, 0);
        assert!(banks.try_write_marked(&[3], 0, 0, 4, 0b1));
        assert!(!banks.try_write(&[3], 4, 0, 4));
        banks.arbitrate(4, &mut cus);
        banks.arbitrate(5, &mut cus);
        assert_eq!((banks.read_write, banks.write_write), (1, 1));
        assert_eq!((banks.single_use_conflicts, banks.single_use_waits), (3, 0));
        banks.request(5, 2, 0, 0);
        banks.request_marked(6, 2, 4, 0, true);
        banks.arbitrate(6, &mut cus);
        banks.arbitrate(7, &mut cus);
        assert_eq!((banks.read_read, banks.single_use_conflicts, banks.single_use_waits), (3, 4, 1));
        assert_eq!(banks.reads, 7, "every read granted, the mark stripped from the collector id");
        assert!(!banks.busy());
    }

    /// Off by default: marked requests count nothing (and are served as any other).
    #[test]
    fn attribution_is_off_unless_asked() {
        let geo = SmGeometry { schedulers: 1, groups: 1, warp_size: 32, max_warps: 8 };
        let (mut banks, mut cus) = (Banks::new(4, 1), CollectorPool::with_units(8, &geo));
        let _ = (cus.try_allocate(0, 1), cus.try_allocate(0, 1));
        banks.request_marked(0, 1, 0, 0, true);
        banks.request_marked(1, 1, 4, 0, true);
        banks.arbitrate(0, &mut cus);
        banks.arbitrate(1, &mut cus);
        assert_eq!((banks.read_read, banks.reads, banks.single_use_conflicts), (1, 2, 0));
    }
}
