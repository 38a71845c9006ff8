//! Is an edited GPU simulable? The app and the CLI let a user change any field of a preset; the
//! timing model sizes its structures (SMs, warp slots, banks, collectors, caches, unit pools)
//! from them, so a count of 0 or 4 billion would divide by zero or allocate without bound. This
//! check names the first field outside the range the model accepts, with the range — a clear
//! error instead of a crash or a hang.
//!
//! ```text
//! register_file.collector_units = 4294967295 is outside 0 ..= 4096 (operand collector units per SM)
//! ```

use alloc::format;
use alloc::string::String;
use alloc::vec;
use alloc::vec::Vec;

use super::GpuConfig;

/// A field of a [`GpuConfig`] outside what the timing model accepts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GpuFieldError {
    /// The field's path (`register_file.banks`).
    pub field: &'static str,
    /// Its value.
    pub value: u64,
    /// The smallest accepted value.
    pub min: u64,
    /// The largest accepted value.
    pub max: u64,
    /// What it counts.
    pub what: &'static str,
}

impl core::fmt::Display for GpuFieldError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "{} = {} is outside {} ..= {} ({})", self.field, self.value, self.min, self.max, self.what)
    }
}

/// `(field, value, min, max, what)` for every count the timing model sizes something by.
fn bounds(gpu: &GpuConfig) -> Vec<(&'static str, u64, u64, u64, &'static str)> {
    let rf = &gpu.register_file;
    let units = &gpu.execution.units;
    let mem = &gpu.memory;
    let mut b = vec![
        ("core.sm_count", u64::from(gpu.core.sm_count), 1, 4096, "SMs on the chip"),
        ("core.sub_cores", u64::from(gpu.core.sub_cores), 1, 16, "sub-cores per SM"),
        ("limits.max_warps", u64::from(gpu.limits.max_warps()), 1, 4096, "warp slots per SM"),
        ("limits.warp_size", u64::from(gpu.warp_size()), 1, 64, "threads per warp"),
        ("register_file.banks", u64::from(rf.banks), 1, 4096, "register-file banks per SM"),
        ("register_file.collector_units", u64::from(rf.collector_units), 0, 4096, "operand collector units per SM"),
        ("register_file.writeback_width", u64::from(rf.writeback_width), 1, 64, "results written back per cycle"),
        ("scheduler.schedulers_per_sm", u64::from(gpu.scheduler.schedulers_per_sm), 1, 64, "warp schedulers per SM"),
        ("scheduler.issue_width", u64::from(gpu.scheduler.issue_width), 1, 16, "instructions per scheduler cycle"),
        ("execution.simd_width", u64::from(gpu.execution.simd_width), 1, 1024, "lanes per pipeline"),
        ("execution.units.sp", u64::from(units.sp), 0, 1024, "SP pipelines per SM"),
        ("execution.units.int", u64::from(units.int), 0, 1024, "INT pipelines per SM"),
        ("execution.units.dp", u64::from(units.dp), 0, 1024, "DP pipelines per SM"),
        ("execution.units.sfu", u64::from(units.sfu), 0, 1024, "SFU pipelines per SM"),
        ("execution.units.tensor", u64::from(units.tensor), 0, 1024, "tensor pipelines per SM"),
        ("execution.units.ldst", u64::from(units.ldst), 1, 1024, "LD/ST units per SM"),
        ("memory.dram.channels", u64::from(mem.dram.channels), 1, 1024, "DRAM channels"),
        ("memory.shared.banks", u64::from(mem.shared.banks), 1, 1024, "shared-memory banks"),
        ("memory.shared.bank_width_bytes", u64::from(mem.shared.bank_width_bytes), 1, 1024, "bytes per bank"),
        ("memory.coalescing_bytes", u64::from(mem.coalescing_bytes), 4, 4096, "bytes per coalesced segment"),
    ];
    for (name, cache) in [("memory.l1d", &mem.l1d), ("memory.l2", &mem.l2)] {
        let Some(c) = cache else { continue };
        let field = |f: &'static str| -> &'static str {
            match (name, f) {
                ("memory.l1d", "size") => "memory.l1d.size_bytes",
                ("memory.l1d", "line") => "memory.l1d.line_bytes",
                ("memory.l1d", "ways") => "memory.l1d.associativity",
                ("memory.l1d", _) => "memory.l1d.mshrs",
                (_, "size") => "memory.l2.size_bytes",
                (_, "line") => "memory.l2.line_bytes",
                (_, "ways") => "memory.l2.associativity",
                _ => "memory.l2.mshrs",
            }
        };
        b.push((field("size"), c.size_bytes, 1, 1 << 30, "cache capacity in bytes"));
        b.push((field("line"), u64::from(c.line_bytes), 4, 4096, "cache line in bytes"));
        b.push((field("ways"), u64::from(c.associativity), 1, 1024, "ways"));
        b.push((field("mshrs"), u64::from(c.mshrs), 1, 1 << 16, "outstanding misses"));
    }
    b
}

/// The first field of `gpu` outside what the timing model accepts, if any. Also refused: a line
/// or segment size that is not a power of two, and a cache smaller than one set of lines.
pub fn check_for_timing(gpu: &GpuConfig) -> Result<(), GpuFieldError> {
    for (field, value, min, max, what) in bounds(gpu) {
        if value < min || value > max {
            return Err(GpuFieldError { field, value, min, max, what });
        }
    }
    let pow2 = |field, value: u32, what| {
        if value.is_power_of_two() {
            Ok(())
        } else {
            Err(GpuFieldError { field, value: u64::from(value), min: 4, max: 4096, what })
        }
    };
    pow2("memory.coalescing_bytes", gpu.memory.coalescing_bytes, "a power of two: bytes per coalesced segment")?;
    for (field, cache) in [("memory.l1d.line_bytes", &gpu.memory.l1d), ("memory.l2.line_bytes", &gpu.memory.l2)] {
        if let Some(c) = cache {
            pow2(field, c.line_bytes, "a power of two: cache line in bytes")?;
            let set = u64::from(c.line_bytes) * u64::from(c.associativity);
            if c.size_bytes < set {
                let what = "cache capacity in bytes: at least one set (line × ways)";
                let size_field =
                    if field.starts_with("memory.l1d") { "memory.l1d.size_bytes" } else { "memory.l2.size_bytes" };
                return Err(GpuFieldError { field: size_field, value: c.size_bytes, min: set, max: 1 << 30, what });
            }
        }
    }
    Ok(())
}

/// [`check_for_timing`] as a message naming the GPU.
pub fn check_message(gpu: &GpuConfig) -> Result<(), String> {
    check_for_timing(gpu).map_err(|e| format!("{}: {e}", gpu.name))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gpu::presets;

    #[test]
    fn every_preset_is_simulable() {
        for name in presets::names() {
            let gpu = presets::by_name(name);
            assert!(gpu.is_some());
            if let Some(gpu) = gpu {
                assert_eq!(check_for_timing(&gpu), Ok(()), "{name}");
            }
        }
    }

    #[test]
    fn absurd_counts_name_the_field_and_the_range() {
        let Some(mut gpu) = presets::by_name("fermi-gtx480") else { return };
        gpu.register_file.collector_units = u32::MAX;
        let e = check_message(&gpu);
        assert_eq!(
            e,
            Err("fermi-gtx480: register_file.collector_units = 4294967295 is outside 0 ..= 4096 (operand collector units per SM)".into())
        );
        gpu.register_file.collector_units = 16;
        gpu.core.sm_count = 0;
        assert!(check_message(&gpu).is_err_and(|m| m.contains("core.sm_count = 0")));
        gpu.core.sm_count = 15;
        if let Some(l1) = gpu.memory.l1d.as_mut() {
            l1.line_bytes = 100;
        }
        assert!(check_message(&gpu).is_err_and(|m| m.contains("memory.l1d.line_bytes = 100")));
    }
}
