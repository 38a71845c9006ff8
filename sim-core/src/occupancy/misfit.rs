//! Why a kernel gets no block at all ([`Misfit`]) and which inputs the calculator refuses
//! ([`OccupancyError`]). Both are plain values with a one-line message; nothing here panics.
//!
//! ```text
//! registers: 52 registers × 320 threads allocate 16896 registers per block; the SM has 16384
//! ```

use alloc::string::String;
use core::fmt;

use serde::{Deserialize, Serialize};

use crate::gpu::limits::ComputeCapability;

/// One reason a block does not fit on an SM (CU). Several can hold at once.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum Misfit {
    /// More threads per block than the device allows.
    BlockTooLarge {
        /// Threads per block requested.
        threads: u32,
        /// Device maximum.
        max: u32,
    },
    /// The block has more warps than the SM holds.
    WarpsPerSm {
        /// Warps (wavefronts) per block, as allocated.
        warps: u32,
        /// Warps (wave slots) per SM (CU).
        max: u32,
    },
    /// More registers per thread (VGPRs per work-item) than the ISA addresses.
    RegistersPerThread {
        /// Registers per thread requested.
        registers: u32,
        /// Maximum.
        max: u32,
    },
    /// The block's registers exceed the per-block register limit.
    RegistersPerBlock {
        /// Registers per thread.
        registers: u32,
        /// Threads per block.
        threads: u32,
        /// Registers allocated to the block (as the hardware check counts them).
        allocated: u64,
        /// Registers one block may use.
        limit: u64,
    },
    /// The block's registers do not fit in the SM's register file (or its sub-partitions).
    RegistersPerSm {
        /// Registers per thread.
        registers: u32,
        /// Threads per block.
        threads: u32,
        /// Warps of the block.
        warps: u32,
        /// Warps the register file holds at this register count.
        warps_that_fit: u32,
    },
    /// More SGPRs per wavefront than the ISA addresses (GCN3).
    ScalarRegistersPerWave {
        /// SGPRs per wavefront requested.
        registers: u32,
        /// Maximum.
        max: u32,
    },
    /// A wavefront's SGPRs do not fit in a SIMD's scalar register file (GCN3).
    ScalarRegistersPerSimd {
        /// SGPRs allocated per wavefront.
        allocated: u32,
        /// SGPRs per SIMD.
        available: u32,
    },
    /// The block's shared memory (with the reserved part, rounded) exceeds the per-block limit.
    SharedMemoryPerBlock {
        /// Bytes allocated to the block.
        allocated: u64,
        /// Bytes one block may use.
        limit: u64,
    },
    /// Dynamic shared memory above the kernel's opted-in maximum.
    DynamicSharedMemory {
        /// Dynamic bytes requested.
        requested: u64,
        /// The kernel's `MaxDynamicSharedMemorySize`.
        max: u64,
    },
    /// The block's shared memory exceeds what the SM (CU) has.
    SharedMemoryPerSm {
        /// Bytes allocated to the block.
        allocated: u64,
        /// Bytes per SM (CU).
        available: u64,
    },
    /// The block uses more barriers than the SM provides (Hopper).
    Barriers {
        /// Barriers per block.
        barriers: u32,
        /// Barriers per SM.
        available: u32,
    },
}

impl fmt::Display for Misfit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Misfit::BlockTooLarge { threads, max } => {
                write!(f, "warps: {threads} threads per block exceed the maximum of {max}")
            }
            Misfit::WarpsPerSm { warps, max } => {
                write!(f, "warps: a block of {warps} warps exceeds the {max} warps an SM holds")
            }
            Misfit::RegistersPerThread { registers, max } => {
                write!(f, "registers: {registers} registers per thread exceed the maximum of {max}")
            }
            Misfit::RegistersPerBlock { registers, threads, allocated, limit } => write!(
                f,
                "registers: {registers} registers × {threads} threads allocate {allocated} registers per block; \
                 a block may use {limit}"
            ),
            Misfit::RegistersPerSm { registers, threads, warps, warps_that_fit } => write!(
                f,
                "registers: at {registers} registers per thread the register file holds {warps_that_fit} warps, \
                 fewer than the {warps} warps of a {threads}-thread block"
            ),
            Misfit::ScalarRegistersPerWave { registers, max } => {
                write!(f, "sgprs: {registers} SGPRs per wavefront exceed the maximum of {max}")
            }
            Misfit::ScalarRegistersPerSimd { allocated, available } => {
                write!(f, "sgprs: {allocated} SGPRs per wavefront exceed the {available} of a SIMD")
            }
            Misfit::SharedMemoryPerBlock { allocated, limit } => {
                write!(f, "shared_memory: {allocated} bytes per block exceed the per-block limit of {limit} bytes")
            }
            Misfit::DynamicSharedMemory { requested, max } => write!(
                f,
                "shared_memory: {requested} bytes of dynamic shared memory exceed the kernel's maximum of {max} bytes"
            ),
            Misfit::SharedMemoryPerSm { allocated, available } => {
                write!(f, "shared_memory: {allocated} bytes per block exceed the {available} bytes of the SM")
            }
            Misfit::Barriers { barriers, available } => {
                write!(f, "barriers: {barriers} barriers per block exceed the {available} of the SM")
            }
        }
    }
}

/// Inputs the calculator refuses (NVIDIA's header answers `CUDA_OCC_ERROR_INVALID_INPUT` or
/// `CUDA_OCC_ERROR_UNKNOWN_DEVICE` for these).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum OccupancyError {
    /// A block of zero threads.
    ZeroThreads,
    /// A compute capability the calculator does not know.
    UnknownComputeCapability {
        /// The compute capability asked for.
        compute_capability: ComputeCapability,
    },
    /// A carve-out preference above 100 %.
    InvalidCarveout {
        /// The percentage given.
        percent: u8,
    },
    /// A shared-memory size above the largest carve-out step of the architecture.
    CarveoutTooLarge {
        /// Bytes that had to be rounded up to a step.
        bytes: u64,
    },
    /// A device limit that must be positive is zero (an edited configuration).
    InvalidDevice {
        /// The offending field.
        field: String,
    },
}

impl fmt::Display for OccupancyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            OccupancyError::ZeroThreads => write!(f, "a block needs at least one thread"),
            OccupancyError::UnknownComputeCapability { compute_capability } => {
                write!(f, "compute capability {compute_capability} is not supported by the calculator")
            }
            OccupancyError::InvalidCarveout { percent } => {
                write!(f, "carve-out preference {percent} % is not between 0 and 100")
            }
            OccupancyError::CarveoutTooLarge { bytes } => {
                write!(f, "{bytes} bytes of shared memory exceed the largest carve-out of the SM")
            }
            OccupancyError::InvalidDevice { field } => write!(f, "device limit `{field}` must be positive"),
        }
    }
}
