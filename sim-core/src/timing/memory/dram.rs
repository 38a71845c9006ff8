//! DRAM: `channels` independent channels, each a first-come first-served server with the
//! preset's bandwidth divided evenly, plus a fixed latency. A 128-byte line on a channel occupies
//! it `line bytes / channel bytes per cycle` cycles, kept in 1/1024-cycle fixed point so that
//! results are exact integers on every host.
//!
//! ```text
//! fermi-gtx480: 177.4 GB/s at 1400 MHz = 126.7 B/cycle over 6 channels = 21.1 B/cycle each;
//! a 128-byte line takes 6.06 cycles of its channel, then 100 cycles of latency
//! ```

use alloc::vec;
use alloc::vec::Vec;

use crate::gpu::GpuConfig;

const FRAC: u64 = 1024;

/// The DRAM of the chip.
#[derive(Clone, Debug)]
pub struct Dram {
    latency: u64,
    service: u64,
    free_at: Vec<u64>,
    line_bytes: u64,
    /// Line reads.
    pub reads: u64,
    /// Line writes (dirty evictions).
    pub writes: u64,
}

impl Dram {
    /// The DRAM of `gpu` moving lines of `line_bytes`.
    pub fn new(gpu: &GpuConfig, line_bytes: u32) -> Self {
        let d = &gpu.memory.dram;
        let channels = d.channels.max(1);
        let bytes_per_cycle = d.bandwidth_gb_per_s * 1000.0 / gpu.core.core_clock_mhz.max(1.0);
        let per_channel = (bytes_per_cycle / f64::from(channels)).max(1e-3);
        let service = (f64::from(line_bytes) * FRAC as f64 / per_channel) as u64;
        Dram {
            latency: u64::from(d.latency),
            service: service.max(1),
            free_at: vec![0; channels as usize],
            line_bytes: u64::from(line_bytes.max(1)),
            reads: 0,
            writes: 0,
        }
    }

    fn channel(&self, line: u64) -> usize {
        (line % self.free_at.len().max(1) as u64) as usize
    }

    /// Occupies the channel of `line` from cycle `at` on; returns the cycle the transfer ends.
    fn transfer(&mut self, line: u64, at: u64) -> u64 {
        let c = self.channel(line);
        let Some(free) = self.free_at.get_mut(c) else { return at };
        let start = (*free).max(at * FRAC);
        *free = start + self.service;
        free.div_ceil(FRAC)
    }

    /// Reads `line` requested at `at`; returns the cycle its data is back.
    pub fn read(&mut self, line: u64, at: u64) -> u64 {
        self.reads += 1;
        self.transfer(line, at) + self.latency
    }

    /// Writes `line` back at `at` (occupies bandwidth; nobody waits for it).
    pub fn write(&mut self, line: u64, at: u64) {
        self.writes += 1;
        self.transfer(line, at);
    }

    /// Bytes moved.
    pub fn bytes(&self) -> u64 {
        (self.reads + self.writes) * self.line_bytes
    }
}
