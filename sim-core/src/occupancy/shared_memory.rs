//! The shared-memory limit of NVIDIA's calculator: the carve-out the driver picks for the kernel's
//! preference, the per-block allocation (rounded to the allocation unit, with the driver's reserved
//! bytes) and the per-block limit with or without the opt-in.
//!
//! ```text
//! cc 8.6, 40,000 B static: 40,000 + 1,024 reserved → 41,088 B per block; 100 KB carve-out → 2 blocks
//! ```

use alloc::vec::Vec;

use super::{CachePreference, Misfit, OccupancyError, OccupancyInput};
use crate::gpu::limits::{SharedMemoryCarveout, SmLimits};

/// L1 sizes Kepler trades against shared memory (`cudaOccSMemPreference`): 16 KB to 48 KB.
const KEPLER_MIN_L1: u64 = 16 * 1024;
const KEPLER_MAX_L1: u64 = 48 * 1024;

/// Outcome of the shared-memory rule.
pub(super) struct SharedMemoryLimit {
    /// Blocks per SM shared memory allows; `None` when the block uses none.
    pub blocks: Option<u32>,
    /// Bytes allocated per block (rounded, reserved part included).
    pub allocated: u64,
    /// Shared memory per SM the calculation used, in bytes.
    pub per_sm: u64,
}

/// Rounds `bytes` up to the next carve-out step of a unified L1/shared array.
fn align_to_step(bytes: u64, steps: &[u64]) -> Result<u64, OccupancyError> {
    steps.iter().copied().find(|&step| step >= bytes).ok_or(OccupancyError::CarveoutTooLarge { bytes })
}

/// Shared memory per SM the driver configures for the kernel's preference
/// (`cudaOccSMemPerMultiprocessor`).
pub(super) fn preferred_per_sm(sm: &SmLimits, input: &OccupancyInput) -> Result<u64, OccupancyError> {
    let high = sm.shared_memory_per_sm;
    match &sm.carveout {
        SharedMemoryCarveout::Dedicated => Ok(high),
        SharedMemoryCarveout::Fermi | SharedMemoryCarveout::Kepler => {
            let low = high.saturating_add(KEPLER_MIN_L1).saturating_sub(KEPLER_MAX_L1);
            Ok(match (input.cache_preference, &sm.carveout) {
                (CachePreference::L1, _) => low,
                (CachePreference::Equal, SharedMemoryCarveout::Kepler) => high.saturating_add(low) / 2,
                _ => high,
            })
        }
        SharedMemoryCarveout::Unified { steps_bytes } => {
            let percent = match input.carveout_percent {
                Some(p) if p > 100 => return Err(OccupancyError::InvalidCarveout { percent: p }),
                Some(p) => Some(p),
                None => match input.cache_preference {
                    CachePreference::L1 => Some(0),
                    CachePreference::Shared => Some(100),
                    CachePreference::Equal => Some(50),
                    CachePreference::None => None,
                },
            };
            let bytes = match percent {
                None => high,
                Some(p) => u64::from(p).saturating_mul(high) / 100,
            };
            align_to_step(bytes, steps_bytes)
        }
    }
}

/// The shared-memory limit (`cudaOccMaxBlocksPerSMSmemLimit`), recording misfits.
pub(super) fn limit(
    sm: &SmLimits,
    input: &OccupancyInput,
    misfits: &mut Vec<Misfit>,
) -> Result<SharedMemoryLimit, OccupancyError> {
    let preference = preferred_per_sm(sm, input)?;
    let reserved = sm.reserved_shared_memory_per_block;
    let static_bytes = input.static_shared_memory.saturating_add(reserved);
    let total = static_bytes.saturating_add(input.dynamic_shared_memory);
    let allocated = round_up(total, sm.shared_memory_allocation_unit);

    let opted_in_usage = static_bytes.saturating_add(input.max_dynamic_shared_memory.unwrap_or(0));
    let per_block_limit = match input.max_dynamic_shared_memory {
        Some(_) if opted_in_usage > sm.shared_memory_per_block => sm.shared_memory_per_block_optin,
        _ => sm.shared_memory_per_block,
    }
    .saturating_add(reserved);

    let mut fits = true;
    if let Some(max) = input.max_dynamic_shared_memory {
        if input.dynamic_shared_memory > max {
            misfits.push(Misfit::DynamicSharedMemory { requested: input.dynamic_shared_memory, max });
            fits = false;
        }
    }
    if allocated > per_block_limit {
        misfits.push(Misfit::SharedMemoryPerBlock { allocated, limit: per_block_limit });
        fits = false;
    }
    if !fits {
        return Ok(SharedMemoryLimit { blocks: Some(0), allocated, per_sm: preference });
    }

    let per_sm = if preference >= allocated {
        preference
    } else {
        match &sm.carveout {
            SharedMemoryCarveout::Unified { steps_bytes } => align_to_step(allocated, steps_bytes)?,
            _ => sm.shared_memory_per_sm,
        }
    };
    let blocks = per_sm.checked_div(allocated).map(|n| u32::try_from(n).unwrap_or(u32::MAX));
    if blocks == Some(0) {
        misfits.push(Misfit::SharedMemoryPerSm { allocated, available: per_sm });
    }
    Ok(SharedMemoryLimit { blocks, allocated, per_sm })
}

/// `x` rounded up to a multiple of `unit` (`unit` 0 leaves `x` unchanged).
pub(super) fn round_up(x: u64, unit: u64) -> u64 {
    match x.checked_rem(unit) {
        Some(r) if r != 0 => x.saturating_add(unit - r),
        _ => x,
    }
}
