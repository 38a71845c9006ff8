//! The occupancy calculator's three charts as data series: occupancy against registers per thread,
//! against block size and against shared memory per block, each varying one input of the kernel
//! and keeping the others, with the kernel's own point marked.
//!
//! ```text
//! registers: x = 1 ..= max registers per thread
//! block size: x = 32, 64, … ..= max threads per block (wavefront multiples on GCN3)
//! shared memory: x = 0, unit, 2 × unit, … ..= per-block limit (static + dynamic bytes, reserved excluded)
//! ```

use alloc::vec::Vec;

use serde::{Deserialize, Serialize};

use super::{compute, OccupancyError, OccupancyInput};
use crate::gpu::limits::ResidencyLimits;

/// One point of a curve.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct CurvePoint {
    /// The varied input: registers per thread, threads per block, or shared-memory bytes per block.
    pub x: u64,
    /// Resident blocks per SM (workgroups per CU) at `x`.
    pub blocks_per_sm: u32,
    /// Resident warps per SM (wavefronts per CU) at `x`.
    pub warps_per_sm: u32,
    /// Occupancy at `x`, between 0 and 1.
    pub occupancy: f64,
}

/// One chart: a series over the varied input plus the kernel's own point.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Curve {
    /// The series, ascending in `x`.
    pub points: Vec<CurvePoint>,
    /// The kernel as launched.
    pub kernel: CurvePoint,
}

/// The calculator's three charts.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct OccupancyCurves {
    /// Occupancy against registers per thread (VGPRs per work-item on GCN3), 1 ..= maximum.
    pub registers: Curve,
    /// Occupancy against threads per block, in warp multiples up to the per-block maximum.
    pub block_size: Curve,
    /// Occupancy against shared memory per block (static + dynamic bytes), in steps of the
    /// allocation unit up to the per-block limit (the opt-in limit when the kernel opts in).
    pub shared_memory: Curve,
}

/// The ranges the three charts sweep.
struct Ranges {
    max_registers: u32,
    warp: u32,
    max_threads: u32,
    smem_step: u64,
    smem_max: u64,
}

fn ranges(limits: &ResidencyLimits, input: &OccupancyInput) -> Ranges {
    match limits {
        ResidencyLimits::Nvidia(sm) => Ranges {
            max_registers: sm.max_registers_per_thread,
            warp: sm.warp_size,
            max_threads: sm.max_threads_per_block,
            smem_step: sm.shared_memory_allocation_unit,
            smem_max: if input.max_dynamic_shared_memory.is_some() {
                sm.shared_memory_per_block_optin
            } else {
                sm.shared_memory_per_block
            },
        },
        ResidencyLimits::Gcn3(cu) => Ranges {
            max_registers: cu.max_vgprs_per_work_item,
            warp: cu.wavefront_size,
            max_threads: cu.max_workgroup_size,
            smem_step: cu.lds_allocation_granularity,
            smem_max: cu.max_lds_per_workgroup,
        },
    }
}

/// The point of `input` at `x`; a refused input counts as 0 blocks.
fn point(limits: &ResidencyLimits, input: &OccupancyInput, x: u64) -> CurvePoint {
    match compute(limits, input) {
        Ok(o) => CurvePoint { x, blocks_per_sm: o.blocks_per_sm, warps_per_sm: o.warps_per_sm, occupancy: o.occupancy },
        Err(_) => CurvePoint { x, blocks_per_sm: 0, warps_per_sm: 0, occupancy: 0.0 },
    }
}

/// The three charts for `input` under `limits`. Fails only if `input` itself is refused.
pub fn curves(limits: &ResidencyLimits, input: &OccupancyInput) -> Result<OccupancyCurves, OccupancyError> {
    let own = compute(limits, input)?;
    let own_point = |x| CurvePoint {
        x,
        blocks_per_sm: own.blocks_per_sm,
        warps_per_sm: own.warps_per_sm,
        occupancy: own.occupancy,
    };
    let r = ranges(limits, input);

    let registers = (1..=r.max_registers)
        .map(|regs| point(limits, &OccupancyInput { registers_per_thread: regs, ..input.clone() }, u64::from(regs)))
        .collect();

    let block_size = (1..=r.max_threads / r.warp.max(1))
        .map(|warps| {
            let threads = warps * r.warp;
            point(limits, &OccupancyInput { threads_per_block: threads, ..input.clone() }, u64::from(threads))
        })
        .collect();

    let opted_in = input.max_dynamic_shared_memory.is_some();
    let steps = r.smem_max / r.smem_step.max(1);
    let shared_memory = (0..=steps)
        .map(|i| {
            let bytes = i * r.smem_step.max(1);
            let varied = if opted_in {
                OccupancyInput {
                    static_shared_memory: 0,
                    dynamic_shared_memory: bytes,
                    max_dynamic_shared_memory: Some(bytes),
                    ..input.clone()
                }
            } else {
                OccupancyInput { static_shared_memory: bytes, dynamic_shared_memory: 0, ..input.clone() }
            };
            point(limits, &varied, bytes)
        })
        .collect();

    Ok(OccupancyCurves {
        registers: Curve { points: registers, kernel: own_point(u64::from(input.registers_per_thread)) },
        block_size: Curve { points: block_size, kernel: own_point(u64::from(input.threads_per_block)) },
        shared_memory: Curve { points: shared_memory, kernel: own_point(input.shared_memory()) },
    })
}
