//! Calculator-only mode: the SM limits of a compute capability, without a GPU preset.
//!
//! The per-architecture rules (allocation units, sub-partitions, block limits, carve-out steps)
//! are those of NVIDIA's `cuda_occupancy.h` (CUDA 12.6 for cc ≥ 3.0, CUDA 7.0 for cc 1.3 and 2.0,
//! which the current header no longer covers). The device properties (threads and registers per SM,
//! shared memory per SM and per block) are what a device of that compute capability reports
//! (CUDA C Programming Guide, "Technical Specifications per Compute Capability"; GPUS.md), with
//! the default shared-memory configuration: the largest carve-out and no cache preference.
//!
//! ```text
//! reglab occupancy --cc 8.6 --regs 64 --threads 256   // 48 warps, 16 blocks, 100 KB, 1 KB reserved
//! ```

use alloc::vec::Vec;

use serde::{Deserialize, Serialize};

use crate::gpu::limits::{ComputeCapability, RegisterAllocation, SharedMemoryCarveout, SmLimits};

const KIB: u64 = 1024;

/// A compute capability the calculator knows (`sm_XY` in NVIDIA's naming).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SmVersion {
    /// cc 1.3 (GT200: Quadro FX 5800, GTX 280).
    Sm13,
    /// cc 2.0 (Fermi GF100: GTX 480).
    Sm20,
    /// cc 3.0 (Kepler GK104).
    Sm30,
    /// cc 3.2 (Kepler, Tegra K1).
    Sm32,
    /// cc 3.5 (Kepler GK110).
    Sm35,
    /// cc 3.7 (Kepler GK210: K80).
    Sm37,
    /// cc 5.0 (Maxwell GM107).
    Sm50,
    /// cc 5.2 (Maxwell GM204: GTX 980).
    Sm52,
    /// cc 5.3 (Maxwell, Tegra X1).
    Sm53,
    /// cc 6.0 (Pascal GP100).
    Sm60,
    /// cc 6.1 (Pascal GP10x).
    Sm61,
    /// cc 6.2 (Pascal, Tegra X2).
    Sm62,
    /// cc 7.0 (Volta GV100: V100).
    Sm70,
    /// cc 7.2 (Volta, Xavier).
    Sm72,
    /// cc 7.5 (Turing TU10x: RTX 2060).
    Sm75,
    /// cc 8.0 (Ampere GA100: A100).
    Sm80,
    /// cc 8.6 (Ampere GA10x).
    Sm86,
    /// cc 8.7 (Ampere, Orin).
    Sm87,
    /// cc 8.9 (Ada AD10x).
    Sm89,
    /// cc 9.0 (Hopper GH100: H100).
    Sm90,
}

impl SmVersion {
    /// Every known compute capability, ascending.
    pub const ALL: [SmVersion; 20] = [
        SmVersion::Sm13,
        SmVersion::Sm20,
        SmVersion::Sm30,
        SmVersion::Sm32,
        SmVersion::Sm35,
        SmVersion::Sm37,
        SmVersion::Sm50,
        SmVersion::Sm52,
        SmVersion::Sm53,
        SmVersion::Sm60,
        SmVersion::Sm61,
        SmVersion::Sm62,
        SmVersion::Sm70,
        SmVersion::Sm72,
        SmVersion::Sm75,
        SmVersion::Sm80,
        SmVersion::Sm86,
        SmVersion::Sm87,
        SmVersion::Sm89,
        SmVersion::Sm90,
    ];

    /// `major.minor`.
    pub const fn compute_capability(self) -> ComputeCapability {
        let (major, minor) = match self {
            SmVersion::Sm13 => (1, 3),
            SmVersion::Sm20 => (2, 0),
            SmVersion::Sm30 => (3, 0),
            SmVersion::Sm32 => (3, 2),
            SmVersion::Sm35 => (3, 5),
            SmVersion::Sm37 => (3, 7),
            SmVersion::Sm50 => (5, 0),
            SmVersion::Sm52 => (5, 2),
            SmVersion::Sm53 => (5, 3),
            SmVersion::Sm60 => (6, 0),
            SmVersion::Sm61 => (6, 1),
            SmVersion::Sm62 => (6, 2),
            SmVersion::Sm70 => (7, 0),
            SmVersion::Sm72 => (7, 2),
            SmVersion::Sm75 => (7, 5),
            SmVersion::Sm80 => (8, 0),
            SmVersion::Sm86 => (8, 6),
            SmVersion::Sm87 => (8, 7),
            SmVersion::Sm89 => (8, 9),
            SmVersion::Sm90 => (9, 0),
        };
        ComputeCapability::new(major, minor)
    }

    /// The known version of `cc`, if any.
    pub fn from_compute_capability(cc: ComputeCapability) -> Option<SmVersion> {
        SmVersion::ALL.iter().copied().find(|v| v.compute_capability() == cc)
    }

    /// Parses `"X.Y"`.
    pub fn parse(text: &str) -> Option<SmVersion> {
        let (major, minor) = text.trim().split_once('.')?;
        SmVersion::from_compute_capability(ComputeCapability::new(major.parse().ok()?, minor.parse().ok()?))
    }

    /// The SM limits of this compute capability with its default shared-memory configuration.
    pub fn limits(self) -> SmLimits {
        sm_limits(self)
    }
}

/// Device properties that differ between devices of one architecture.
struct Device {
    threads_per_sm: u32,
    registers_per_sm: u32,
    registers_per_block: u32,
    smem_per_sm: u64,
    smem_per_block_optin: u64,
}

/// The device properties of a real device of this compute capability (Programming Guide table;
/// registers per block 32 K on 5.2/5.3/6.2 as GPUS.md and NVIDIA's occupancy spreadsheet give it).
fn device(version: SmVersion) -> Device {
    let d = |threads_per_sm, registers_per_sm, registers_per_block, smem_kib: u64, optin_kib: u64| Device {
        threads_per_sm,
        registers_per_sm,
        registers_per_block,
        smem_per_sm: smem_kib * KIB,
        smem_per_block_optin: optin_kib * KIB,
    };
    let k64 = 65536;
    let k32 = 32768;
    match version {
        SmVersion::Sm13 => d(1024, 16384, 16384, 16, 16),
        SmVersion::Sm20 => d(1536, k32, k32, 48, 48),
        SmVersion::Sm30 | SmVersion::Sm32 | SmVersion::Sm35 => d(2048, k64, k64, 48, 48),
        SmVersion::Sm37 => d(2048, 131072, k64, 112, 48),
        SmVersion::Sm50 | SmVersion::Sm60 => d(2048, k64, k64, 64, 48),
        SmVersion::Sm52 => d(2048, k64, k32, 96, 48),
        SmVersion::Sm53 | SmVersion::Sm62 => d(2048, k64, k32, 64, 48),
        SmVersion::Sm61 => d(2048, k64, k64, 96, 48),
        SmVersion::Sm70 | SmVersion::Sm72 => d(2048, k64, k64, 96, 96),
        SmVersion::Sm75 => d(1024, k64, k64, 64, 64),
        SmVersion::Sm80 => d(2048, k64, k64, 164, 163),
        SmVersion::Sm87 => d(1536, k64, k64, 164, 163),
        SmVersion::Sm86 | SmVersion::Sm89 => d(1536, k64, k64, 100, 99),
        SmVersion::Sm90 => d(2048, k64, k64, 228, 227),
    }
}

/// Shared-memory carve-out steps in KB (`cudaOccAlignUpShmemSizeVoltaPlus`).
fn unified_steps(cc: ComputeCapability) -> Vec<u64> {
    let kib: &[u64] = match (cc.major, cc.minor) {
        (7, 5) => &[32, 64],
        (7, _) => &[0, 8, 16, 32, 64, 96],
        (8, 0) | (8, 7) => &[0, 8, 16, 32, 64, 100, 132, 164],
        (8, _) => &[0, 8, 16, 32, 64, 100],
        _ => &[0, 8, 16, 32, 64, 100, 132, 164, 196, 228],
    };
    kib.iter().map(|k| k * KIB).collect()
}

/// Resident blocks per SM (`cudaOccMaxBlocksPerMultiprocessor`; 8 on cc 1.x/2.x from CUDA 7.0).
fn max_blocks(cc: ComputeCapability) -> u32 {
    match (cc.major, cc.minor) {
        (1, _) | (2, _) => 8,
        (3, _) | (7, 5) => 16,
        (8, 0) => 32,
        (8, 9) => 24,
        (8, _) => 16,
        _ => 32,
    }
}

/// The SM limits of `version` (see [`SmVersion::limits`]).
fn sm_limits(version: SmVersion) -> SmLimits {
    let cc = version.compute_capability();
    let dev = device(version);
    let major = cc.major;
    let register_allocation = match major {
        1 => RegisterAllocation::PerBlock { unit: 512 },
        2 => RegisterAllocation::FermiPerWarp,
        _ => RegisterAllocation::PerWarp { unit: 256 },
    };
    let carveout = match major {
        1 | 5 | 6 => SharedMemoryCarveout::Dedicated,
        2 => SharedMemoryCarveout::Fermi,
        3 => SharedMemoryCarveout::Kepler,
        _ => SharedMemoryCarveout::Unified { steps_bytes: unified_steps(cc) },
    };
    SmLimits {
        compute_capability: cc,
        warp_size: 32,
        max_threads_per_block: if major == 1 { 512 } else { 1024 },
        max_threads_per_sm: dev.threads_per_sm,
        max_blocks_per_sm: max_blocks(cc),
        registers_per_sm: dev.registers_per_sm,
        registers_per_block: dev.registers_per_block,
        max_registers_per_thread: match major {
            1 => 124,
            2 => 63,
            3..=6 => 255,
            _ => 256,
        },
        register_allocation,
        warp_allocation_granularity: if major == 1 { 2 } else { 1 },
        register_sub_partitions: match (major, cc.minor) {
            (1, _) => 1,
            (2, _) | (6, 0) => 2,
            _ => 4,
        },
        also_fit_sub_partitions: (cc == ComputeCapability::new(6, 0)).then_some(4),
        shared_memory_per_sm: dev.smem_per_sm,
        shared_memory_per_block: if major == 1 { 16 * KIB } else { 48 * KIB },
        shared_memory_per_block_optin: dev.smem_per_block_optin,
        reserved_shared_memory_per_block: if major >= 8 { KIB } else { 0 },
        shared_memory_allocation_unit: match major {
            1 => 512,
            2 | 8 | 9 => 128,
            _ => 256,
        },
        carveout,
        barriers_per_block_slot: (major >= 9).then_some(2),
    }
}
