//! The memory side of the model: what one warp memory instruction costs the LD/ST unit (cycles it
//! is busy) and when its data is back. Simple and documented rather than exact:
//!
//! - global and local: per-lane addresses [`coalescer`]-ed into aligned segments (128 bytes on
//!   NVIDIA presets), one transaction per cycle through the [`l1`] (loads) to the chip-wide [`l2`]
//!   and [`dram`]; stores write through to L2; atomics are performed at L2. Local addresses are
//!   per-thread offsets, so each warp's local memory gets its own region (same offset in all lanes
//!   → one transaction, as interleaved local memory behaves).
//! - shared: [`shared_banks`] conflict degree `d`: busy `d` cycles, data back after the shared
//!   latency + `d − 1`.
//! - const and param: the constant cache, assumed to hit: one cycle per distinct address, data back
//!   after the L1 hit latency (the shared-memory latency on GPUs without L1).
//!
//! ```text
//! ld.global.f32 (32 lanes, consecutive) at t: LD/ST busy 1 cycle, data at t + L1 miss path
//! ld.shared.f32 with a 4-way conflict at t: LD/ST busy 4 cycles, data at t + latency + 3
//! ```
//!
//! Transactions are timed when the LD/ST unit sends them (in cycle order within an SM, SM by SM
//! within a cycle), so L2 and DRAM see requests in a deterministic order.

pub mod cache;
pub mod coalescer;
pub mod dram;
pub mod l1;
pub mod l2;
pub mod pattern_cache;
pub mod shared_banks;

use alloc::vec::Vec;

use serde::{Deserialize, Serialize};

use super::program::MemOp;
use crate::gpu::GpuConfig;
use crate::timing::stream::trace::{LaneAddrs, MemSpace, MAX_LANES};
use l1::L1;
use l2::L2;
use pattern_cache::{PatternCache, PatternCost, PatternKey, MAX_SEGMENTS};

/// Memory counts of a run.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct MemoryStats {
    /// Global and local load warp-instructions.
    pub global_loads: u64,
    /// Global and local store warp-instructions.
    pub global_stores: u64,
    /// Atomic and reduction warp-instructions.
    pub atomics: u64,
    /// Shared-memory warp-instructions.
    pub shared_accesses: u64,
    /// Constant and parameter warp-instructions.
    pub const_accesses: u64,
    /// Global/local transactions (coalesced segments) sent.
    pub transactions: u64,
    /// Extra cycles shared-memory accesses took because of bank conflicts (degree − 1, summed).
    pub shared_bank_conflict_cycles: u64,
    /// L1 hits (including hits on lines being filled).
    pub l1_hits: u64,
    /// L1 misses.
    pub l1_misses: u64,
    /// Cycles L1 misses waited for a free MSHR, summed.
    pub l1_mshr_wait_cycles: u64,
    /// L2 hits.
    pub l2_hits: u64,
    /// L2 misses.
    pub l2_misses: u64,
    /// DRAM line reads.
    pub dram_reads: u64,
    /// DRAM line writes (dirty evictions from L2).
    pub dram_writes: u64,
    /// Bytes moved to and from DRAM.
    pub dram_bytes: u64,
    /// Read requests a register-file scheme sent (context moves, live-vector misses, …; not
    /// counted in the kernel's figures above, but their L1/L2/DRAM traffic is). Listed only when
    /// non-zero, as are the three below.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub scheme_reads: u64,
    /// Write requests a scheme sent.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub scheme_writes: u64,
    /// Bytes of the scheme's requests.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub scheme_bytes: u64,
    /// Transactions (segments) of the scheme's requests.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub scheme_transactions: u64,
}

/// Serde: leave a zero scheme count out.
fn is_zero(n: &u64) -> bool {
    *n == 0
}

/// A warp memory instruction.
#[derive(Clone, Copy, Debug)]
pub struct MemAccess<'a> {
    /// Space accessed.
    pub space: MemSpace,
    /// Load, store or atomic.
    pub op: MemOp,
    /// Per-lane byte addresses.
    pub addrs: LaneAddrs<'a>,
    /// Bytes per lane.
    pub bytes: u32,
    /// A number unique to the warp in the run (local memory regions).
    pub warp_uid: u64,
}

/// Its cost.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MemTiming {
    /// Cycles the LD/ST unit is busy.
    pub busy: u64,
    /// Cycle the data is back (loads, atomics); the send cycle for stores.
    pub done: u64,
}

/// One SM's memory pipeline state: its L1 and scratch space.
#[derive(Clone, Debug)]
pub struct SmMemory {
    /// The L1 data cache.
    pub l1: L1,
    segment_bytes: u32,
    shared: crate::gpu::SharedMemoryTiming,
    const_latency: u64,
    segments: Vec<u64>,
    words: Vec<u64>,
    patterns: PatternCache,
}

impl SmMemory {
    /// The memory pipeline of one SM of `gpu`.
    pub fn new(gpu: &GpuConfig) -> Self {
        let l1 = L1::new(gpu);
        let const_latency = if l1.latency() > 0 { l1.latency() } else { u64::from(gpu.memory.shared.latency) };
        SmMemory {
            l1,
            segment_bytes: gpu.memory.coalescing_bytes,
            shared: gpu.memory.shared,
            const_latency,
            segments: Vec::new(),
            words: Vec::new(),
            patterns: PatternCache::default(),
        }
    }

    /// The coalescing segment in bytes.
    pub fn segment_bytes(&self) -> u32 {
        self.segment_bytes
    }

    /// Times `a` sent at `now`, updating caches, DRAM and `stats`.
    pub fn access(&mut self, a: &MemAccess<'_>, now: u64, l2: &mut L2, stats: &mut MemoryStats) -> MemTiming {
        match a.space {
            MemSpace::Shared => {
                stats.shared_accesses += 1;
                let d = u64::from(self.shared_degree(a));
                stats.shared_bank_conflict_cycles += d - 1;
                MemTiming { busy: d, done: now + u64::from(self.shared.latency) + d - 1 }
            }
            MemSpace::Const | MemSpace::Param => {
                stats.const_accesses += 1;
                let mut buf = [0u64; MAX_LANES];
                let addrs = a.addrs.expand(&mut buf);
                let n = match addrs.split_first() {
                    Some((first, rest)) if rest.iter().any(|x| x != first) => {
                        self.segments.clear();
                        self.segments.extend_from_slice(addrs);
                        self.segments.sort_unstable();
                        self.segments.dedup();
                        self.segments.len() as u64
                    }
                    _ => 1,
                };
                MemTiming { busy: n, done: now + self.const_latency + n - 1 }
            }
            MemSpace::Global | MemSpace::Local => self.global(a, now, l2, stats),
        }
    }

    fn global(&mut self, a: &MemAccess<'_>, now: u64, l2: &mut L2, stats: &mut MemoryStats) -> MemTiming {
        match a.op {
            MemOp::Store => stats.global_stores += 1,
            MemOp::Atomic => stats.atomics += 1,
            _ => stats.global_loads += 1,
        }
        let local = a.space == MemSpace::Local;
        let base = if local { (1u64 << 63) | (a.warp_uid << 32) } else { 0 };
        let mut segs = core::mem::take(&mut self.segments);
        if local {
            let mut buf = [0u64; MAX_LANES];
            let offsets: Vec<u64> = a.addrs.expand(&mut buf).iter().map(|&x| base | (x & 0xFFFF_FFFF)).collect();
            coalescer::segments(&offsets, a.bytes, self.segment_bytes, &mut segs);
        } else {
            self.global_segments(a, &mut segs);
        }
        let seg = u64::from(self.segment_bytes.max(1));
        let mut done = now;
        for (i, &s) in segs.iter().enumerate() {
            let at = now + i as u64;
            let addr = s * seg;
            let back = match a.op {
                MemOp::Store => {
                    l2.store(addr, at + self.l1.latency());
                    at
                }
                MemOp::Atomic => l2.access(addr, at + self.l1.latency(), true),
                _ => self.l1.load(addr, at, l2),
            };
            done = done.max(back);
        }
        stats.transactions += segs.len() as u64;
        let busy = segs.len().max(1) as u64;
        self.segments = segs;
        MemTiming { busy, done }
    }

    /// The shared-memory conflict degree of `a` (remembered for affine patterns).
    fn shared_degree(&mut self, a: &MemAccess<'_>) -> u32 {
        let s = self.shared;
        let period = u64::from(s.banks.max(1)) * u64::from(s.bank_width_bytes.max(1));
        let key = match a.addrs {
            LaneAddrs::Affine { base, sx, sy, w, executed } if period.is_power_of_two() => {
                Some(PatternKey { offset: base & (period - 1), sx, sy, w, executed, bytes: a.bytes, kind: 0 })
            }
            _ => None,
        };
        if let Some(cost) = key.as_ref().and_then(|k| self.patterns.get(k)) {
            return cost.degree;
        }
        let mut buf = [0u64; MAX_LANES];
        let addrs = a.addrs.expand(&mut buf);
        let d = shared_banks::conflict_degree(addrs, a.bytes, s.banks, s.bank_width_bytes, &mut self.words);
        if let Some(k) = key {
            self.patterns.put(k, PatternCost { degree: d, ..PatternCost::default() });
        }
        d
    }

    /// The global segments of `a` into `out`, ascending (remembered, relative to the first
    /// address's segment, for affine patterns).
    fn global_segments(&mut self, a: &MemAccess<'_>, out: &mut Vec<u64>) {
        let seg = u64::from(self.segment_bytes.max(1));
        let key = match a.addrs {
            LaneAddrs::Affine { base, sx, sy, w, executed } if seg.is_power_of_two() => Some((
                base >> seg.trailing_zeros(),
                PatternKey { offset: base & (seg - 1), sx, sy, w, executed, bytes: a.bytes, kind: 1 },
            )),
            _ => None,
        };
        if let Some((first, k)) = key {
            if let Some(cost) = self.patterns.get(&k) {
                out.clear();
                out.extend(cost.relative_segments().iter().map(|&r| first.wrapping_add(i64::from(r) as u64)));
                return;
            }
        }
        let mut buf = [0u64; MAX_LANES];
        let addrs = a.addrs.expand(&mut buf);
        coalescer::segments(addrs, a.bytes, self.segment_bytes, out);
        let Some((first, k)) = key else { return };
        if out.len() > MAX_SEGMENTS {
            return;
        }
        let mut cost = PatternCost { len: out.len() as u8, ..PatternCost::default() };
        for (slot, &s) in cost.segments.iter_mut().zip(out.iter()) {
            match i32::try_from(s.wrapping_sub(first) as i64) {
                Ok(r) => *slot = r,
                Err(_) => return,
            }
        }
        // Remembered only when relative order is absolute order (no wrap-around).
        if cost.relative_segments().is_sorted() {
            self.patterns.put(k, cost);
        }
    }
}
