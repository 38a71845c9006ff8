//! GCN3 workgroup dispatch limits (Wyse, "Understanding GPGPU Vector Register File Usage", §7.1
//! and Table 2): the workgroups per CU each resource allows on its own — wavefront slots, VGPRs,
//! SGPRs and LDS — and which one limits dispatch.
//!
//! A workgroup of `n` work-items has `ceil(n / 64)` wavefronts. Each wavefront lives on one SIMD
//! and takes a wave slot, `roundup(vgprs, 4)` of that SIMD's 512 VGPRs and `roundup(sgprs, 8)` of
//! its 800 SGPRs; the LDS is shared by the CU. Per resource, a SIMD holds
//! `floor(capacity / per-wave need)` wavefronts, and the CU `simds ×` that; a workgroup needs all
//! of its wavefronts.
//!
//! ```text
//! SpMV: 128 work-items (2 waves), 24 VGPRs, 8 SGPRs → WF 20, VGPR 21, SGPR 100 → 20 WGs (WF binds)
//! ```

use alloc::vec;
use alloc::vec::Vec;

use super::shared_memory::round_up;
use super::{finish, Misfit, Occupancy, OccupancyError, OccupancyInput, Partial, Resource, ResourceLimit};
use crate::gpu::limits::CuLimits;

/// The dispatch limits of `input` on a compute unit with limits `cu`.
pub fn compute(cu: &CuLimits, input: &OccupancyInput) -> Result<Occupancy, OccupancyError> {
    if cu.wavefront_size == 0 || cu.simds_per_cu == 0 {
        let field = if cu.wavefront_size == 0 { "wavefront_size" } else { "simds_per_cu" };
        return Err(OccupancyError::InvalidDevice { field: field.into() });
    }
    if input.threads_per_block == 0 {
        return Err(OccupancyError::ZeroThreads);
    }
    let mut misfits = Vec::new();
    let waves = input.threads_per_block.div_ceil(cu.wavefront_size);

    let wave_slots = if input.threads_per_block > cu.max_workgroup_size {
        misfits.push(Misfit::BlockTooLarge { threads: input.threads_per_block, max: cu.max_workgroup_size });
        0
    } else {
        let blocks = cu.wave_slots_per_cu() / waves;
        if blocks == 0 {
            misfits.push(Misfit::WarpsPerSm { warps: waves, max: cu.wave_slots_per_cu() });
        }
        blocks
    };

    let vgpr = input.registers_per_thread;
    let vgprs = if vgpr > cu.max_vgprs_per_work_item {
        misfits.push(Misfit::RegistersPerThread { registers: vgpr, max: cu.max_vgprs_per_work_item });
        Some(0)
    } else {
        let per_wave = round_up(u64::from(vgpr), u64::from(cu.vgpr_allocation_granularity));
        let limit = per_simd_limit(cu, cu.vgprs_per_simd, per_wave, waves);
        if limit == Some(0) {
            let warps_that_fit = waves_per_cu(cu, cu.vgprs_per_simd, per_wave);
            let threads = input.threads_per_block;
            misfits.push(Misfit::RegistersPerSm { registers: vgpr, threads, warps: waves, warps_that_fit });
        }
        limit
    };

    let sgpr = input.scalar_registers_per_wave;
    let sgprs = if sgpr > cu.max_sgprs_per_wave {
        misfits.push(Misfit::ScalarRegistersPerWave { registers: sgpr, max: cu.max_sgprs_per_wave });
        Some(0)
    } else {
        let per_wave = round_up(u64::from(sgpr), u64::from(cu.sgpr_allocation_granularity));
        let limit = per_simd_limit(cu, cu.sgprs_per_simd, per_wave, waves);
        if limit == Some(0) {
            let allocated = u32::try_from(per_wave).unwrap_or(u32::MAX);
            misfits.push(Misfit::ScalarRegistersPerSimd { allocated, available: cu.sgprs_per_simd });
        }
        limit
    };

    let lds_bytes = input.shared_memory();
    let lds_allocated = round_up(lds_bytes, cu.lds_allocation_granularity);
    let lds = if lds_bytes > cu.max_lds_per_workgroup {
        misfits.push(Misfit::SharedMemoryPerBlock { allocated: lds_allocated, limit: cu.max_lds_per_workgroup });
        Some(0)
    } else {
        let limit = cu.lds_per_cu.checked_div(lds_allocated).map(|n| u32::try_from(n).unwrap_or(u32::MAX));
        if limit == Some(0) {
            misfits.push(Misfit::SharedMemoryPerSm { allocated: lds_allocated, available: cu.lds_per_cu });
        }
        limit
    };

    let limits = vec![
        ResourceLimit { resource: Resource::WaveSlots, blocks: Some(wave_slots) },
        ResourceLimit { resource: Resource::Vgprs, blocks: vgprs },
        ResourceLimit { resource: Resource::Sgprs, blocks: sgprs },
        ResourceLimit { resource: Resource::Lds, blocks: lds },
    ];
    let vgprs_per_wave = round_up(u64::from(vgpr), u64::from(cu.vgpr_allocation_granularity));
    let partial = Partial {
        registers_per_block: vgprs_per_wave.saturating_mul(u64::from(waves)),
        shared_memory_per_block: lds_allocated,
        shared_memory_per_sm: cu.lds_per_cu,
        misfits,
    };
    Ok(finish(limits, waves, cu.wave_slots_per_cu(), partial))
}

/// Wavefronts per CU when each takes `per_wave` of a SIMD's `capacity` registers.
fn waves_per_cu(cu: &CuLimits, capacity: u32, per_wave: u64) -> u32 {
    let per_simd = u64::from(capacity).checked_div(per_wave).unwrap_or(u64::MAX);
    u32::try_from(per_simd.saturating_mul(u64::from(cu.simds_per_cu))).unwrap_or(u32::MAX)
}

/// Workgroups of `waves` wavefronts per CU for a per-SIMD register file; `None` if unused.
fn per_simd_limit(cu: &CuLimits, capacity: u32, per_wave: u64, waves: u32) -> Option<u32> {
    (per_wave != 0).then(|| waves_per_cu(cu, capacity, per_wave) / waves.max(1))
}
