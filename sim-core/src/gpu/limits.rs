//! Residency limits of one SM (NVIDIA) or one compute unit (AMD GCN3): the numbers the occupancy
//! calculator divides by.
//!
//! For NVIDIA GPUs, [`SmLimits`] mirrors what NVIDIA's calculator (`cuda_occupancy.h`) reads: the
//! device properties of `cudaOccDeviceProp` plus the per-architecture rules the header hard-codes
//! (register allocation unit, register sub-partitions, shared-memory allocation unit and carve-out
//! steps). [`crate::gpu::compute_capability`] fills one in for every supported compute
//! capability; presets start from there. For GCN3, [`CuLimits`] holds the dispatch resources of
//! Wyse's compute unit (wave slots, VGPRs, SGPRs, LDS).
//!
//! ```text
//! fermi-gtx480 (cc 2.0): 48 warps, 8 CTAs, 32768 registers (per warp in units of 64), 48 KB smem
//! ```

use alloc::vec::Vec;

use serde::{Deserialize, Serialize};

/// An NVIDIA compute capability `major.minor`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct ComputeCapability {
    /// Major version (1 = Tesla, 2 = Fermi, 3 = Kepler, 5 = Maxwell, 6 = Pascal, 7 = Volta/Turing,
    /// 8 = Ampere/Ada, 9 = Hopper).
    pub major: u8,
    /// Minor version.
    pub minor: u8,
}

impl ComputeCapability {
    /// `major.minor`.
    pub const fn new(major: u8, minor: u8) -> Self {
        ComputeCapability { major, minor }
    }
}

impl core::fmt::Display for ComputeCapability {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "{}.{}", self.major, self.minor)
    }
}

/// How the SM rounds a kernel's register demand.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RegisterAllocation {
    /// Compute capability 1.x: registers are allocated to a whole CTA,
    /// `roundup(regs × warp size × warps (rounded to the warp allocation granularity), unit)`.
    /// Source: CUDA 7.0 `cuda_occupancy.h` (`cudaOccRegAllocationGranularity`, case 1).
    PerBlock {
        /// Allocation unit in registers (512 on cc 1.2/1.3, 256 on 1.0/1.1).
        unit: u32,
    },
    /// Compute capability ≥ 3.0: registers are allocated per warp,
    /// `roundup(regs × warp size, unit)`. Source: `cuda_occupancy.h` (CUDA 12.6).
    PerWarp {
        /// Allocation unit in registers per warp (256 from cc 3.0 on).
        unit: u32,
    },
    /// Fermi (cc 2.x): per warp in units of 64 registers, except that 21, 22, 29, 30, 37, 38, 45 and
    /// 46 registers per thread are allocated in units of 128. Source: CUDA 7.0 `cuda_occupancy.h`
    /// (`cudaOccRegAllocationGranularity`, case 2).
    FermiPerWarp,
}

/// How shared memory and L1 share the SM's on-chip storage (the carve-out), and which size the
/// calculator assumes for a given cache preference.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SharedMemoryCarveout {
    /// Dedicated shared memory (cc 1.x, 5.x, 6.x): always `shared_memory_per_sm`.
    Dedicated,
    /// Fermi (cc 2.x): 48 KB shared / 16 KB L1, or 16 KB / 48 KB when the kernel prefers L1.
    /// Source: CUDA 7.0 `cuda_occupancy.h` (`cudaOccSMemPerMultiprocessor`, case 2).
    Fermi,
    /// Kepler (cc 3.x): L1 takes 16, 32 or 48 KB (prefer shared, equal, prefer L1) of
    /// `shared_memory_per_sm` + 16 KB. Source: `cuda_occupancy.h` (`cudaOccSMemPreference`).
    Kepler,
    /// Volta and later (cc ≥ 7.0): a unified L1/shared array; the shared-memory size is one of
    /// `steps_bytes`, chosen from the carve-out preference and raised when a block needs more.
    /// Source: `cuda_occupancy.h` (`cudaOccAlignUpShmemSizeVoltaPlus`).
    Unified {
        /// The supported shared-memory sizes in bytes, ascending (e.g. 0, 8, 16, 32, 64, 96 KB on
        /// Volta).
        steps_bytes: Vec<u64>,
    },
}

/// Everything the NVIDIA occupancy calculation needs to know about one SM (cc 1.3 to 9.0).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SmLimits {
    /// Compute capability; selects nothing by itself (every rule is a field below) but is shown
    /// with results. Source: NVIDIA CUDA C Programming Guide, "Compute Capabilities".
    pub compute_capability: ComputeCapability,
    /// Threads per warp (32 on every NVIDIA GPU). Source: `cudaDeviceProp::warpSize`.
    pub warp_size: u32,
    /// Maximum threads per block. Source: `cudaDeviceProp::maxThreadsPerBlock` (512 on cc 1.x,
    /// 1024 from cc 2.0 on).
    pub max_threads_per_block: u32,
    /// Maximum resident threads per SM (= max warps × warp size). Source:
    /// `cudaDeviceProp::maxThreadsPerMultiProcessor`, Programming Guide table.
    pub max_threads_per_sm: u32,
    /// Maximum resident blocks (CTAs) per SM. Source: `cudaOccMaxBlocksPerMultiprocessor`.
    pub max_blocks_per_sm: u32,
    /// 32-bit registers per SM. Source: `cudaDeviceProp::regsPerMultiprocessor`.
    pub registers_per_sm: u32,
    /// 32-bit registers one block may use. Source: `cudaDeviceProp::regsPerBlock`.
    pub registers_per_block: u32,
    /// Maximum registers per thread; more and the kernel cannot launch. Source:
    /// `cudaOccRegAllocationMaxPerThread` (255 on cc 3.x–6.x, 256 on cc ≥ 7.0); 124 on cc 1.3 and 63
    /// on cc 2.0 are the ISA limits (GPUS.md), which the CUDA 7.0 header did not check.
    pub max_registers_per_thread: u32,
    /// Register allocation rule (unit and scope).
    pub register_allocation: RegisterAllocation,
    /// Warps of a block are allocated in multiples of this (2 on cc 1.x, 1 afterwards). Source:
    /// CUDA 7.0 `cudaOccWarpAllocationGranularity`.
    pub warp_allocation_granularity: u32,
    /// Register-file sub-partitions per SM: each holds `registers_per_sm / n` registers and whole
    /// warps. Source: `cudaOccSubPartitionsPerMultiprocessor` (1 on cc 1.x, 2 on 2.x and 6.0, 4
    /// elsewhere).
    pub register_sub_partitions: u32,
    /// GP100 (cc 6.0) only: a kernel must also fit with this many sub-partitions (GP10x's 4), for
    /// forward compatibility within Pascal; `None` elsewhere. Source: `cuda_occupancy.h`
    /// (`cudaOccMaxActiveBlocksPerMultiprocessor`).
    pub also_fit_sub_partitions: Option<u32>,
    /// Largest shared-memory size per SM in bytes (the maximum carve-out). Source:
    /// `cudaDeviceProp::sharedMemPerMultiprocessor`.
    pub shared_memory_per_sm: u64,
    /// Shared memory one block may use without opting in, in bytes (48 KB from cc 2.0 on). Source:
    /// `cudaDeviceProp::sharedMemPerBlock`.
    pub shared_memory_per_block: u64,
    /// Shared memory one block may use after `cudaFuncSetAttribute(…MaxDynamicSharedMemorySize…)`,
    /// in bytes (equal to `shared_memory_per_block` before cc 7.0). Source:
    /// `cudaDeviceProp::sharedMemPerBlockOptin`.
    pub shared_memory_per_block_optin: u64,
    /// Shared memory the driver reserves per block, in bytes (1 KB from cc 8.0 on). Source:
    /// `cudaDeviceProp::reservedSharedMemPerBlock`.
    pub reserved_shared_memory_per_block: u64,
    /// Shared memory is allocated to a block in multiples of this many bytes. Source:
    /// `cudaOccSMemAllocationGranularity` (512 on 1.x, 128 on 2.x, 256 on 3.x–7.x, 128 on ≥ 8.0).
    pub shared_memory_allocation_unit: u64,
    /// How the shared-memory size per SM is chosen.
    pub carveout: SharedMemoryCarveout,
    /// Hopper (cc ≥ 9.0): named barriers per block slot (`max_blocks_per_sm × n` barriers in all);
    /// `None` where the calculator ignores barriers. Source: `cudaOccMaxBlocksPerSMBlockBarrierLimit`.
    pub barriers_per_block_slot: Option<u32>,
}

impl SmLimits {
    /// Maximum resident warps per SM.
    pub fn max_warps_per_sm(&self) -> u32 {
        self.max_threads_per_sm.checked_div(self.warp_size).unwrap_or(0)
    }
}

/// Dispatch resources of one AMD GCN3 compute unit, as modelled by Wyse (gem5 APU model).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CuLimits {
    /// Work-items per wavefront. Source: Wyse §2.3.2 (64-wide SIMD VALU), GCN3 ISA.
    pub wavefront_size: u32,
    /// SIMD vector ALUs per CU, each with its own VRF, SRF and wave slots. Source: Wyse §2.3 (two
    /// SIMD VALUs, two SALUs).
    pub simds_per_cu: u32,
    /// Wavefront slots per SIMD. Source: Wyse §2.3.1 and §3.2.1 (forty per CU, twenty per SIMD).
    pub wave_slots_per_simd: u32,
    /// Vector registers (64 lanes × 32 bit each) per SIMD. Source: Wyse §2.3.3.1 (512 per VRF).
    pub vgprs_per_simd: u32,
    /// VGPRs are allocated to a wavefront in multiples of this. Source: gem5 `VectorRegisterFile`
    /// `min_alloc` = 4 (GPUS.md **A**).
    pub vgpr_allocation_granularity: u32,
    /// Maximum VGPRs per work-item. Source: AMD GCN3 ISA (256 addressable VGPRs).
    pub max_vgprs_per_work_item: u32,
    /// Scalar registers per SIMD (each SALU's private SRF). Source: Wyse §2.3.4 (800 SGPRs).
    pub sgprs_per_simd: u32,
    /// SGPRs are allocated to a wavefront in multiples of this. **A**: 8. GPUS.md assumed 16, but
    /// Wyse's Table 2 has FFT (one-wave workgroups) at 66 workgroups per CU by SGPRs, i.e. 33 waves
    /// per 800-SGPR file, only reachable with 24 allocated SGPRs; 16-register groups cannot produce it.
    pub sgpr_allocation_granularity: u32,
    /// Maximum SGPRs per wavefront. Source: AMD GCN3 ISA (102 addressable SGPRs).
    pub max_sgprs_per_wave: u32,
    /// Local data share per CU in bytes. Source: Wyse §2.3.5 (64 KB LDS).
    pub lds_per_cu: u64,
    /// LDS is allocated to a workgroup in multiples of this many bytes. **A**: 512 (GCN3's
    /// `LDS_SIZE` field counts 128-dword blocks).
    pub lds_allocation_granularity: u64,
    /// Maximum LDS per workgroup in bytes. Source: AMD GCN3 ISA (64 KB).
    pub max_lds_per_workgroup: u64,
    /// Maximum work-items per workgroup. Source: HCC/ROCm limit of 1024 work-items (16 wavefronts),
    /// consistent with Wyse's Table 2 (16-wave workgroups give 2 per CU by wave slots).
    pub max_workgroup_size: u32,
}

impl CuLimits {
    /// Wavefront slots of the whole CU.
    pub fn wave_slots_per_cu(&self) -> u32 {
        self.wave_slots_per_simd.saturating_mul(self.simds_per_cu)
    }
}

/// The residency rules of a GPU: NVIDIA SM limits or AMD GCN3 CU limits.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ResidencyLimits {
    /// An NVIDIA SM (blocks, warps, registers, shared memory).
    Nvidia(SmLimits),
    /// An AMD GCN3 compute unit (workgroups, wavefronts, VGPRs, SGPRs, LDS).
    Gcn3(CuLimits),
}

impl ResidencyLimits {
    /// Threads per warp (wavefront).
    pub fn warp_size(&self) -> u32 {
        match self {
            ResidencyLimits::Nvidia(sm) => sm.warp_size,
            ResidencyLimits::Gcn3(cu) => cu.wavefront_size,
        }
    }

    /// Maximum resident warps (wavefronts) per SM (CU).
    pub fn max_warps(&self) -> u32 {
        match self {
            ResidencyLimits::Nvidia(sm) => sm.max_warps_per_sm(),
            ResidencyLimits::Gcn3(cu) => cu.wave_slots_per_cu(),
        }
    }
}
