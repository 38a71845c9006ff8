//! The chip-wide L2 in front of DRAM: write-back, write-allocate without fetching (stores and
//! atomics mark lines dirty; a dirty eviction costs a DRAM write), hit latency from the preset,
//! misses limited by its MSHRs. Without an L2 in the preset (GT200) requests go to DRAM directly.
//!
//! ```text
//! read(line, t): hit → t + hit latency; miss → DRAM read at t + hit latency, line filled then
//! ```

use super::cache::{Lookup, TagArray};
use super::dram::Dram;
use crate::gpu::GpuConfig;

/// L2 plus DRAM.
#[derive(Clone, Debug)]
pub struct L2 {
    tags: Option<TagArray>,
    latency: u64,
    /// The DRAM behind it.
    pub dram: Dram,
    /// Accesses that hit (including hits on lines being filled).
    pub hits: u64,
    /// Accesses that missed.
    pub misses: u64,
}

impl L2 {
    /// The L2 and DRAM of `gpu`.
    pub fn new(gpu: &GpuConfig) -> Self {
        let line = gpu.memory.l2.map_or(gpu.memory.coalescing_bytes, |c| c.line_bytes);
        L2 {
            tags: gpu.memory.l2.as_ref().map(TagArray::new),
            latency: gpu.memory.l2.map_or(0, |c| u64::from(c.hit_latency)),
            dram: Dram::new(gpu, line),
            hits: 0,
            misses: 0,
        }
    }

    /// A read (or atomic, `write` true) of byte address `addr` arriving at `at`; returns the cycle
    /// the data is back at the requester.
    pub fn access(&mut self, addr: u64, at: u64, write: bool) -> u64 {
        let Some(tags) = self.tags.as_mut() else {
            return self.dram.read(addr / 128, at);
        };
        let line = tags.line_of(addr);
        match tags.access(line, write) {
            Lookup::Hit { ready } => {
                self.hits += 1;
                (at + self.latency).max(ready)
            }
            Lookup::Miss => {
                self.misses += 1;
                let start = tags.mshr_free_at(at + self.latency);
                let done = self.dram.read(line, start);
                tags.mshr_allocate(start, done);
                if let Some(victim) = tags.fill(line, done, write) {
                    self.dram.write(victim, start);
                }
                done
            }
        }
    }

    /// A store of the line holding `addr` arriving at `at`: allocated dirty without a fetch.
    pub fn store(&mut self, addr: u64, at: u64) {
        let Some(tags) = self.tags.as_mut() else {
            self.dram.write(addr / 128, at);
            return;
        };
        let line = tags.line_of(addr);
        match tags.access(line, true) {
            Lookup::Hit { .. } => self.hits += 1,
            Lookup::Miss => {
                self.misses += 1;
                if let Some(victim) = tags.fill(line, at, true) {
                    self.dram.write(victim, at);
                }
            }
        }
    }
}
