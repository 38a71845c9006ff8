//! FineReg's per-PC live-register vectors: a static table by `sid` (the live-in register units
//! of each instruction, [`crate::timing::program::Program::live_in`], which the compiler would
//! store as one 64-bit vector per PC in off-chip memory), and the direct-mapped live-vector cache
//! in front of it (a miss reads the vector through the memory model).
//!
//! ```text
//! 32 entries, sid 40 → index 40 % 32 = 8: tag 8 ≠ 40 → miss (read 8 bytes at LV_BASE + 8 × 40),
//! fill → a later lookup of sid 40 hits; sid 8 evicts it
//! ```

use alloc::vec;
use alloc::vec::Vec;

use crate::timing::program::Program;

/// Where the vectors live in global memory (**A**: a reserved region, 8 bytes per `sid`).
pub const LV_BASE: u64 = 0x7E00_0000_0000;
/// Bytes read on a miss (the 64-bit vector).
pub const LV_BYTES: u32 = 8;

/// Live register units per `sid`.
#[derive(Clone, Debug, Default)]
pub struct LiveTable {
    live: Vec<u16>,
}

impl LiveTable {
    /// The table of `program`.
    pub fn of(program: &Program) -> Self {
        LiveTable { live: program.live_in.clone() }
    }

    /// Registers a warp stalled before `sid` keeps, at most `allocated` (**A**: the analysis
    /// counts virtual units, which may exceed the allocation).
    pub fn live(&self, sid: u32, allocated: u32) -> u32 {
        self.live.get(sid as usize).map_or(allocated, |&n| u32::from(n).min(allocated))
    }
}

/// The direct-mapped live-vector cache.
#[derive(Clone, Debug, Default)]
pub struct LiveVectorCache {
    tags: Vec<Option<u32>>,
    /// Lookups that missed.
    pub misses: u64,
    /// Lookups that hit.
    pub hits: u64,
}

impl LiveVectorCache {
    /// `entries` empty entries.
    pub fn new(entries: u32) -> Self {
        LiveVectorCache { tags: vec![None; entries.max(1) as usize], misses: 0, hits: 0 }
    }

    fn index(&self, sid: u32) -> usize {
        sid as usize % self.tags.len().max(1)
    }

    /// Looks `sid` up: true on a hit (counted either way).
    pub fn lookup(&mut self, sid: u32) -> bool {
        let i = self.index(sid);
        let hit = self.tags.get(i).copied().flatten() == Some(sid);
        if hit {
            self.hits += 1;
        } else {
            self.misses += 1;
        }
        hit
    }

    /// The vector of `sid` arrived: it takes its entry.
    pub fn fill(&mut self, sid: u32) {
        let i = self.index(sid);
        if let Some(t) = self.tags.get_mut(i) {
            *t = Some(sid);
        }
    }

    /// Whether `sid` is cached (no count).
    pub fn holds(&self, sid: u32) -> bool {
        self.tags.get(self.index(sid)).copied().flatten() == Some(sid)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn direct_mapped_by_sid() {
        let mut c = LiveVectorCache::new(32);
        assert!(!c.lookup(40));
        c.fill(40);
        assert!(c.lookup(40));
        c.fill(8); // same index (8)
        assert!(!c.lookup(40));
        assert_eq!((c.hits, c.misses), (1, 2));
    }

    /// The kernel of `tests/cases/timing/finereg_park.ptx`: a warp stalled before sid 5 (waiting
    /// for %rd1 from ld.param) keeps %rd1 and %rd2 (4 units); before sid 7 (waiting for the
    /// loaded %r2) it keeps %r2 and the address %rd3 (3 units).
    #[test]
    fn live_in_per_sid_from_the_decoded_program() {
        let src = ".version 7.0\n.target sm_90\n.address_size 64\n.visible .entry k(.param .u64 buf)\n{\n\
            .reg .u32 %r<6>;\n.reg .u64 %rd<4>;\nld.param.u64 %rd1, [buf];\nmov.u32 %r1, %ctaid.x;\n\
            mov.u32 %r4, %tid.x;\nmad.lo.u32 %r5, %r1, 64, %r4;\nmul.wide.u32 %rd2, %r5, 4;\n\
            add.u64 %rd3, %rd1, %rd2;\nld.global.u32 %r2, [%rd3];\nadd.u32 %r3, %r2, 1;\n\
            st.global.u32 [%rd3], %r3;\nret;\n}\n";
        let module = crate::ptx::compile(src).unwrap_or_default();
        let program = Program::decode(&module, &crate::gpu::presets::hopper_h100());
        let t = LiveTable::of(&program);
        assert_eq!((t.live(5, 255), t.live(7, 255), t.live(9, 255)), (4, 3, 0));
        assert_eq!(t.live(5, 2), 2, "capped at the allocation");
    }

    #[test]
    fn live_counts_are_capped_by_the_allocation() {
        let t = LiveTable { live: vec![3, 9] };
        assert_eq!((t.live(0, 8), t.live(1, 8), t.live(7, 8)), (3, 8, 8));
    }
}
