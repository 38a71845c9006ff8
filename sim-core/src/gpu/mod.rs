//! GPUs as data: [`GpuConfig`] and the preset of every source paper.
//!
//! A `GpuConfig` is one struct per concern — chip ([`CoreConfig`]), residency limits for the
//! occupancy calculator ([`limits`]), the baseline register file ([`RegisterFileConfig`]), warp
//! schedulers ([`SchedulerConfig`]), execution units and latencies ([`execution`]) and the memory
//! hierarchy ([`memory`]) — with the unit and source of every number on its field. [`presets`]
//! holds the named constructors (`fermi-gtx480`, `gcn3-cu`, …) and a lookup by name; the app lets a
//! user start from a preset and edit any field.
//!
//! ```text
//! let gpu = presets::by_name("fermi-gtx480");   // Angerd's baseline: 15 SMs, 1.4 GHz, 16 banks
//! ```

pub mod check;
pub mod compute_capability;
pub mod config;
pub mod execution;
pub mod limits;
pub mod memory;
pub mod presets;

pub use config::{CoreConfig, GpuConfig, RegisterFileConfig, SchedulerConfig, SchedulingPolicy};
pub use execution::{ArithTiming, ExecutionConfig, ExecutionUnits, OpTiming};
pub use limits::{ComputeCapability, CuLimits, ResidencyLimits, SmLimits};
pub use memory::{CacheConfig, DramConfig, MemoryConfig, SharedMemoryTiming};
