//! The occupancy calculator: how many blocks (CTAs) of a kernel an SM keeps resident, and which
//! resource stops it from keeping more.
//!
//! For NVIDIA GPUs [`compute`] follows NVIDIA's `cuda_occupancy.h` rule for rule
//! ([`nvidia`]): a limit from warps, from the block slots, from registers (per-warp allocation
//! units, register-file sub-partitions, Fermi's 128-register cases, per-block allocation on cc 1.x)
//! and from shared memory (allocation unit, driver-reserved bytes per block, the carve-out the
//! driver picks). For AMD GCN3 ([`gcn3`]) it gives the workgroups per CU allowed by wave slots,
//! VGPRs, SGPRs and LDS, as in Wyse's Table 2. Every limit is reported, and all that equal the
//! minimum are named as binding. A kernel that cannot run at all gets 0 blocks and the reasons.
//!
//! ```text
//! IMGVF on fermi-gtx480, 320 threads, 14,560 B shared: 52 regs → 1 block (20.8 %);
//! 29 regs → 3 blocks (62.5 %, registers and shared memory bind)
//! ```
//!
//! [`crate::gpu::compute_capability`] gives the limits of a bare compute capability (calculator-only mode),
//! [`curves`] the calculator's three charts, and [`kernel_inputs`] what a kernel's IR says about
//! its launch (static shared memory, block size from `.reqntid`/`.maxntid`).

pub mod curves;
pub mod gcn3;
pub mod kernel_inputs;
mod misfit;
pub mod nvidia;
mod shared_memory;

#[cfg(test)]
mod tests_gcn3;
#[cfg(test)]
mod tests_nvidia;

use alloc::vec::Vec;

use serde::{Deserialize, Serialize};

use crate::gpu::limits::ResidencyLimits;

pub use misfit::{Misfit, OccupancyError};

/// The L1/shared-memory split a kernel asks for (`cudaFuncSetCacheConfig`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CachePreference {
    /// No preference (the default): the driver may use the largest shared-memory size.
    #[default]
    None,
    /// Prefer shared memory.
    Shared,
    /// Prefer L1 cache.
    L1,
    /// Equal L1 and shared memory.
    Equal,
}

/// What the calculator needs to know about a kernel and its launch.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct OccupancyInput {
    /// Threads per block (work-items per workgroup on GCN3).
    pub threads_per_block: u32,
    /// Registers per thread as allocated (ptxas "Used N registers"); VGPRs per work-item on GCN3.
    pub registers_per_thread: u32,
    /// GCN3 only: SGPRs per wavefront. Ignored on NVIDIA GPUs.
    pub scalar_registers_per_wave: u32,
    /// Static shared memory per block in bytes (LDS per workgroup on GCN3).
    pub static_shared_memory: u64,
    /// Dynamic shared memory per block in bytes (the launch's third `<<<>>>` argument).
    pub dynamic_shared_memory: u64,
    /// The kernel's `cudaFuncAttributeMaxDynamicSharedMemorySize` when it opts in to more than the
    /// default per-block limit (bytes); `None` for the default limit.
    pub max_dynamic_shared_memory: Option<u64>,
    /// Block barriers the kernel uses (`__syncthreads` counts as one); only Hopper limits by them.
    pub block_barriers: u32,
    /// The kernel's cache preference.
    pub cache_preference: CachePreference,
    /// Shared-memory carve-out in percent of the maximum (`cudaFuncAttributePreferredSharedMemory
    /// Carveout`, Volta and later); `None` for the driver's default. Takes precedence over
    /// `cache_preference`.
    pub carveout_percent: Option<u8>,
}

impl OccupancyInput {
    /// A launch of `threads_per_block` threads using `registers_per_thread` registers, no shared
    /// memory, one barrier, default cache configuration.
    pub fn new(threads_per_block: u32, registers_per_thread: u32) -> Self {
        OccupancyInput {
            threads_per_block,
            registers_per_thread,
            scalar_registers_per_wave: 0,
            static_shared_memory: 0,
            dynamic_shared_memory: 0,
            max_dynamic_shared_memory: None,
            block_barriers: 1,
            cache_preference: CachePreference::None,
            carveout_percent: None,
        }
    }

    /// The same launch with `bytes` of static shared memory per block.
    pub fn with_static_shared_memory(mut self, bytes: u64) -> Self {
        self.static_shared_memory = bytes;
        self
    }

    /// The same launch with `bytes` of dynamic shared memory per block.
    pub fn with_dynamic_shared_memory(mut self, bytes: u64) -> Self {
        self.dynamic_shared_memory = bytes;
        self
    }

    /// The same launch with `sgprs` scalar registers per wavefront (GCN3).
    pub fn with_scalar_registers(mut self, sgprs: u32) -> Self {
        self.scalar_registers_per_wave = sgprs;
        self
    }

    /// Static plus dynamic shared memory per block in bytes.
    pub fn shared_memory(&self) -> u64 {
        self.static_shared_memory.saturating_add(self.dynamic_shared_memory)
    }
}

/// A resource that limits how many blocks an SM (CU) holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Resource {
    /// NVIDIA: resident warps per SM.
    Warps,
    /// NVIDIA: resident blocks per SM.
    Blocks,
    /// NVIDIA: the register file.
    Registers,
    /// NVIDIA: shared memory.
    SharedMemory,
    /// NVIDIA Hopper: block barriers.
    Barriers,
    /// GCN3: wavefront slots.
    WaveSlots,
    /// GCN3: vector registers.
    Vgprs,
    /// GCN3: scalar registers.
    Sgprs,
    /// GCN3: local data share.
    Lds,
}

impl Resource {
    /// The name used in JSON and tables (`"shared_memory"`, `"vgprs"`, …).
    pub fn name(self) -> &'static str {
        match self {
            Resource::Warps => "warps",
            Resource::Blocks => "blocks",
            Resource::Registers => "registers",
            Resource::SharedMemory => "shared_memory",
            Resource::Barriers => "barriers",
            Resource::WaveSlots => "wave_slots",
            Resource::Vgprs => "vgprs",
            Resource::Sgprs => "sgprs",
            Resource::Lds => "lds",
        }
    }
}

/// How many blocks one resource alone allows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ResourceLimit {
    /// The resource.
    pub resource: Resource,
    /// Blocks per SM it allows; `None` when the kernel does not use it (no limit).
    pub blocks: Option<u32>,
}

/// The calculator's answer for one kernel on one SM (CU).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Occupancy {
    /// Resident blocks per SM (workgroups per CU); 0 when the kernel cannot run.
    pub blocks_per_sm: u32,
    /// Resident warps per SM (wavefronts per CU): blocks × warps per block.
    pub warps_per_sm: u32,
    /// Warps (wavefronts) per block: ceil(threads / warp size).
    pub warps_per_block: u32,
    /// Maximum resident warps per SM (wave slots per CU).
    pub max_warps_per_sm: u32,
    /// `warps_per_sm / max_warps_per_sm`, between 0 and 1.
    pub occupancy: f64,
    /// The limit from every resource, in a fixed order.
    pub limits: Vec<ResourceLimit>,
    /// Every resource whose limit equals `blocks_per_sm` (several can bind).
    pub binding: Vec<Resource>,
    /// Registers allocated to one block (after rounding); VGPRs per workgroup on GCN3.
    pub registers_per_block: u64,
    /// Shared memory allocated to one block in bytes, including the reserved part (LDS on GCN3).
    pub shared_memory_per_block: u64,
    /// Shared memory per SM the calculation assumed (the carve-out), in bytes; LDS per CU on GCN3.
    pub shared_memory_per_sm: u64,
    /// Why the kernel cannot run (empty unless `blocks_per_sm` is 0).
    pub misfits: Vec<Misfit>,
}

impl Occupancy {
    /// The limit one resource imposes, if the result has it.
    pub fn limit(&self, resource: Resource) -> Option<ResourceLimit> {
        self.limits.iter().copied().find(|l| l.resource == resource)
    }
}

/// The occupancy of `input` under `limits` (an NVIDIA SM or a GCN3 CU).
pub fn compute(limits: &ResidencyLimits, input: &OccupancyInput) -> Result<Occupancy, OccupancyError> {
    match limits {
        ResidencyLimits::Nvidia(sm) => nvidia::compute(sm, input),
        ResidencyLimits::Gcn3(cu) => gcn3::compute(cu, input),
    }
}

/// Assembles a result: the minimum over `limits`, the binding resources and the occupancy.
fn finish(limits: Vec<ResourceLimit>, warps_per_block: u32, max_warps: u32, partial: Partial) -> Occupancy {
    let blocks = limits.iter().filter_map(|l| l.blocks).min().unwrap_or(0);
    let binding = limits.iter().filter(|l| l.blocks == Some(blocks)).map(|l| l.resource).collect();
    let warps = blocks.saturating_mul(warps_per_block);
    let occupancy = if max_warps == 0 { 0.0 } else { f64::from(warps) / f64::from(max_warps) };
    Occupancy {
        blocks_per_sm: blocks,
        warps_per_sm: warps,
        warps_per_block,
        max_warps_per_sm: max_warps,
        occupancy,
        limits,
        binding,
        registers_per_block: partial.registers_per_block,
        shared_memory_per_block: partial.shared_memory_per_block,
        shared_memory_per_sm: partial.shared_memory_per_sm,
        misfits: if blocks == 0 { partial.misfits } else { Vec::new() },
    }
}

/// The allocation figures a rule set computes alongside its limits.
struct Partial {
    registers_per_block: u64,
    shared_memory_per_block: u64,
    shared_memory_per_sm: u64,
    misfits: Vec<Misfit>,
}
