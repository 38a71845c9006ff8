//! The per-SM L1 data cache for global and local loads: hits return after the hit latency, a hit
//! on a line being filled waits for the fill (MSHR merge), a miss takes an MSHR (waiting for one
//! when all are busy) and goes to L2. Stores write through to L2 without allocating in L1.
//! Without an L1 in the preset (GT200) loads go straight to L2.
//!
//! ```text
//! load line 0x40 at t=100: miss → MSHR, L2 at 100 + 35 … data back at 100 + 35 + 120 (L2 hit)
//! ```

use super::cache::{Lookup, TagArray};
use super::l2::L2;
use crate::gpu::GpuConfig;

/// One SM's L1.
#[derive(Clone, Debug)]
pub struct L1 {
    tags: Option<TagArray>,
    latency: u64,
    /// Accesses that hit (including hits on lines being filled).
    pub hits: u64,
    /// Accesses that missed.
    pub misses: u64,
    /// Cycles misses waited for a free MSHR, summed.
    pub mshr_wait_cycles: u64,
}

impl L1 {
    /// The L1 of one SM of `gpu`.
    pub fn new(gpu: &GpuConfig) -> Self {
        L1 {
            tags: gpu.memory.l1d.as_ref().map(TagArray::new),
            latency: gpu.memory.l1d.map_or(0, |c| u64::from(c.hit_latency)),
            hits: 0,
            misses: 0,
            mshr_wait_cycles: 0,
        }
    }

    /// Hit latency in cycles (0 without an L1).
    pub fn latency(&self) -> u64 {
        self.latency
    }

    /// A load of the segment at byte address `addr` sent at `at`; returns the cycle the data is
    /// back.
    pub fn load(&mut self, addr: u64, at: u64, l2: &mut L2) -> u64 {
        let Some(tags) = self.tags.as_mut() else {
            return l2.access(addr, at, false);
        };
        let line = tags.line_of(addr);
        match tags.access(line, false) {
            Lookup::Hit { ready } => {
                self.hits += 1;
                (at + self.latency).max(ready)
            }
            Lookup::Miss => {
                self.misses += 1;
                let start = tags.mshr_free_at(at);
                self.mshr_wait_cycles += start - at;
                let done = l2.access(addr, start + self.latency, false);
                tags.mshr_allocate(start, done);
                tags.fill(line, done, false);
                done
            }
        }
    }
}
