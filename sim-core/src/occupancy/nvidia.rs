//! NVIDIA's occupancy rules, as `cuda_occupancy.h` computes them (`cudaOccMaxActiveBlocksPerMultiprocessor`,
//! CUDA 12.6 for cc ≥ 3.0; the CUDA 7.0 header's rules for cc 1.3 and 2.0). Partitioned global
//! caching is taken as off, the header's default.
//!
//! 1. Warps: `max warps per SM / warps per block` (0 when the block exceeds the per-block maximum).
//! 2. Blocks: the SM's block slots.
//! 3. Registers: per warp, `roundup(regs × 32, unit)`; each sub-partition holds
//!    `registers per SM / sub-partitions` registers in whole warps; a block must also pass the
//!    hardware check `regs per warp × roundup(warps, sub-partitions) ≤ registers per block`.
//!    cc 1.x allocates per block instead: `roundup(regs × 32 × warps, 512)`.
//! 4. Shared memory: `roundup(static + dynamic + reserved per block, unit)` against the per-block
//!    limit (opt-in or default); the SM's carve-out follows the cache preference, and on Volta and
//!    later grows to the next step when one block would not fit.
//! 5. Hopper: barriers, `blocks per SM × 2 / barriers per block`.
//!
//! ```text
//! cc 2.0, 29 regs, 320 threads: 928 → 1024 registers per warp (a 128-unit case); 16 warps per
//! sub-partition × 2 = 32 warps → 3 blocks of 10 warps
//! ```

use alloc::string::ToString;
use alloc::vec;
use alloc::vec::Vec;

use super::shared_memory::{self, round_up};
use super::{finish, Misfit, Occupancy, OccupancyError, OccupancyInput, Partial, Resource, ResourceLimit};
use crate::gpu::limits::{RegisterAllocation, SmLimits};

/// Fermi's register counts allocated in 128-register units (CUDA 7.0 `cuda_occupancy.h`).
pub const FERMI_WIDE_UNIT_REGISTERS: [u32; 8] = [21, 22, 29, 30, 37, 38, 45, 46];

/// The occupancy of `input` on an SM with limits `sm`.
pub fn compute(sm: &SmLimits, input: &OccupancyInput) -> Result<Occupancy, OccupancyError> {
    check_device(sm)?;
    if input.threads_per_block == 0 {
        return Err(OccupancyError::ZeroThreads);
    }
    let mut misfits = Vec::new();
    let warps = input.threads_per_block.div_ceil(sm.warp_size);
    let warps_allocated = round_up(u64::from(warps), u64::from(sm.warp_allocation_granularity.max(1)));
    let warps_allocated = u32::try_from(warps_allocated).unwrap_or(u32::MAX);

    let registers = register_limit(sm, input, warps_allocated, sm.register_sub_partitions, &mut misfits);
    let mut register_blocks = registers.blocks;
    if let (Some(parts), true) = (sm.also_fit_sub_partitions, register_blocks != Some(0)) {
        let mut ignored = Vec::new();
        if register_limit(sm, input, warps_allocated, parts, &mut ignored).blocks == Some(0) {
            misfits.append(&mut ignored);
            register_blocks = Some(0);
        }
    }

    let warp_blocks = warp_limit(sm, input.threads_per_block, warps_allocated, &mut misfits);
    let smem = shared_memory::limit(sm, input, &mut misfits)?;

    let mut limits = vec![
        ResourceLimit { resource: Resource::Warps, blocks: Some(warp_blocks) },
        ResourceLimit { resource: Resource::Blocks, blocks: Some(sm.max_blocks_per_sm) },
        ResourceLimit { resource: Resource::Registers, blocks: register_blocks },
        ResourceLimit { resource: Resource::SharedMemory, blocks: smem.blocks },
    ];
    if let (Some(per_slot), barriers @ 1..) = (sm.barriers_per_block_slot, input.block_barriers) {
        let available = sm.max_blocks_per_sm.saturating_mul(per_slot);
        let blocks = available / barriers;
        if blocks == 0 {
            misfits.push(Misfit::Barriers { barriers, available });
        }
        limits.push(ResourceLimit { resource: Resource::Barriers, blocks: Some(blocks) });
    }
    let partial = Partial {
        registers_per_block: registers.allocated_per_block,
        shared_memory_per_block: smem.allocated,
        shared_memory_per_sm: smem.per_sm,
        misfits,
    };
    Ok(finish(limits, warps, sm.max_warps_per_sm(), partial))
}

/// Refuses a configuration whose divisors are zero (`cudaOccDevicePropCheck`).
fn check_device(sm: &SmLimits) -> Result<(), OccupancyError> {
    let fields = [
        ("warp_size", u64::from(sm.warp_size)),
        ("max_threads_per_block", u64::from(sm.max_threads_per_block)),
        ("max_threads_per_sm", u64::from(sm.max_threads_per_sm)),
        ("registers_per_sm", u64::from(sm.registers_per_sm)),
        ("registers_per_block", u64::from(sm.registers_per_block)),
        ("register_sub_partitions", u64::from(sm.register_sub_partitions)),
        ("shared_memory_per_sm", sm.shared_memory_per_sm),
        ("shared_memory_per_block", sm.shared_memory_per_block),
    ];
    match fields.iter().find(|(_, value)| *value == 0) {
        Some((field, _)) => Err(OccupancyError::InvalidDevice { field: field.to_string() }),
        None => Ok(()),
    }
}

/// Blocks the warp slots allow (`cudaOccMaxBlocksPerSMWarpsLimit`).
fn warp_limit(sm: &SmLimits, threads: u32, warps_allocated: u32, misfits: &mut Vec<Misfit>) -> u32 {
    if threads > sm.max_threads_per_block {
        misfits.push(Misfit::BlockTooLarge { threads, max: sm.max_threads_per_block });
        return 0;
    }
    let blocks = sm.max_warps_per_sm() / warps_allocated.max(1);
    if blocks == 0 {
        misfits.push(Misfit::WarpsPerSm { warps: warps_allocated, max: sm.max_warps_per_sm() });
    }
    blocks
}

/// Outcome of the register rule.
struct RegisterLimit {
    blocks: Option<u32>,
    allocated_per_block: u64,
}

/// Registers allocated to one warp at `registers` per thread (per-warp rules only).
pub fn registers_per_warp(sm: &SmLimits, registers: u32) -> u64 {
    let unit = match sm.register_allocation {
        RegisterAllocation::PerWarp { unit } => unit,
        RegisterAllocation::FermiPerWarp if FERMI_WIDE_UNIT_REGISTERS.contains(&registers) => 128,
        RegisterAllocation::FermiPerWarp => 64,
        RegisterAllocation::PerBlock { .. } => 1,
    };
    round_up(u64::from(registers) * u64::from(sm.warp_size), u64::from(unit))
}

/// Blocks the register file allows (`cudaOccMaxBlocksPerSMRegsLimit`) with `sub_partitions`.
fn register_limit(
    sm: &SmLimits,
    input: &OccupancyInput,
    warps: u32,
    sub_partitions: u32,
    misfits: &mut Vec<Misfit>,
) -> RegisterLimit {
    let registers = input.registers_per_thread;
    let threads = input.threads_per_block;
    let too_many = registers > sm.max_registers_per_thread;
    if too_many {
        misfits.push(Misfit::RegistersPerThread { registers, max: sm.max_registers_per_thread });
    }
    if let RegisterAllocation::PerBlock { unit } = sm.register_allocation {
        let raw = u64::from(registers).saturating_mul(u64::from(sm.warp_size)).saturating_mul(u64::from(warps));
        let allocated = round_up(raw, u64::from(unit));
        let blocks = match u64::from(sm.registers_per_sm).checked_div(allocated) {
            _ if too_many => Some(0),
            None => None,
            Some(n) => Some(u32::try_from(n).unwrap_or(u32::MAX)),
        };
        if blocks == Some(0) && !too_many {
            let limit = u64::from(sm.registers_per_sm);
            misfits.push(Misfit::RegistersPerBlock { registers, threads, allocated, limit });
        }
        return RegisterLimit { blocks, allocated_per_block: allocated };
    }

    let per_warp = registers_per_warp(sm, registers);
    let per_block = per_warp.saturating_mul(u64::from(warps));
    let assumed = per_warp.saturating_mul(round_up(u64::from(warps), u64::from(sub_partitions.max(1))));
    let limit = u64::from(sm.registers_per_block);
    if limit < assumed || limit < per_block {
        misfits.push(Misfit::RegistersPerBlock { registers, threads, allocated: assumed.max(per_block), limit });
        return RegisterLimit { blocks: Some(0), allocated_per_block: per_block };
    }
    if too_many {
        return RegisterLimit { blocks: Some(0), allocated_per_block: per_block };
    }
    if per_warp == 0 {
        return RegisterLimit { blocks: None, allocated_per_block: 0 };
    }
    let per_sub_partition = u64::from(sm.registers_per_sm / sub_partitions.max(1));
    let warps_that_fit = (per_sub_partition / per_warp).saturating_mul(u64::from(sub_partitions));
    let blocks = u32::try_from(warps_that_fit / u64::from(warps.max(1))).unwrap_or(u32::MAX);
    if blocks == 0 {
        let warps_that_fit = u32::try_from(warps_that_fit).unwrap_or(u32::MAX);
        misfits.push(Misfit::RegistersPerSm { registers, threads, warps, warps_that_fit });
    }
    RegisterLimit { blocks: Some(blocks), allocated_per_block: per_block }
}
