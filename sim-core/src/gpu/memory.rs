//! The memory hierarchy the timing model sees: L1 data cache, L2, DRAM, shared-memory banking and
//! the coalescing granule. Shared-memory *capacity* is an occupancy limit and lives in
//! [`super::limits`].
//!
//! ```text
//! ld.global.f32 %f1, [%rd4];   // 32 lanes × 4 B coalesced into 128-byte requests → L1 → L2 → DRAM
//! ```

use serde::{Deserialize, Serialize};

/// One cache level.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CacheConfig {
    /// Capacity in bytes (for L2: the whole chip).
    pub size_bytes: u64,
    /// Line size in bytes.
    pub line_bytes: u32,
    /// Ways per set; count.
    pub associativity: u32,
    /// Hit latency in core cycles.
    pub hit_latency: u32,
    /// Miss status holding registers (outstanding misses) per cache instance; count. The L2 is
    /// one chip-wide instance here, so its figure is the whole chip's: GPGPU-Sim's per-slice
    /// (per memory sub-partition) entries times the slices.
    pub mshrs: u32,
}

/// Off-chip memory.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct DramConfig {
    /// Latency added by DRAM beyond an L2 miss, in core cycles.
    pub latency: u32,
    /// Peak bandwidth in GB/s.
    pub bandwidth_gb_per_s: f64,
    /// Memory channels (controllers); count.
    pub channels: u32,
}

/// Shared memory (LDS on AMD) access timing.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SharedMemoryTiming {
    /// Banks; lanes hitting different words of one bank serialize. Count.
    pub banks: u32,
    /// Bank width in bytes.
    pub bank_width_bytes: u32,
    /// Access latency without conflicts, in core cycles.
    pub latency: u32,
}

/// Caches, DRAM and shared memory of the GPU.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MemoryConfig {
    /// Per-SM L1 data cache; `None` where global loads bypass L1 in the source config.
    pub l1d: Option<CacheConfig>,
    /// Chip-wide L2 cache; `None` where global accesses are not cached (GT200's L2 holds textures
    /// only).
    pub l2: Option<CacheConfig>,
    /// DRAM.
    pub dram: DramConfig,
    /// Shared memory banking and latency.
    pub shared: SharedMemoryTiming,
    /// Global accesses of one warp are coalesced into aligned segments of this many bytes.
    pub coalescing_bytes: u32,
}
