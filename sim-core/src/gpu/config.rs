//! [`GpuConfig`]: one GPU as data, split into one struct per concern. Every field says its unit and
//! where its value comes from; the presets in [`super::presets`] fill them in from the source
//! papers' tables and from GPGPU-Sim/Accel-Sim configuration files.
//!
//! ```text
//! GpuConfig ── core (SMs, clock) ── limits (occupancy) ── register_file (banks, collectors)
//!           └─ scheduler (count, policy) ── execution (units, latencies) ── memory (L1, L2, DRAM)
//! ```

use alloc::string::String;

use serde::{Deserialize, Serialize};

use super::execution::ExecutionConfig;
use super::limits::ResidencyLimits;
use super::memory::MemoryConfig;

/// A whole GPU: what the occupancy calculator and the timing model read. Nothing about a particular
/// GPU is hard-coded elsewhere.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GpuConfig {
    /// Preset name (`fermi-gtx480`, …) or a user's name for an edited copy.
    pub name: String,
    /// Which paper's baseline this is and where its numbers come from (one line).
    pub description: String,
    /// SM count and clock.
    pub core: CoreConfig,
    /// Residency limits used by the occupancy calculator (NVIDIA SM or GCN3 CU).
    pub limits: ResidencyLimits,
    /// The baseline banked register file and its operand collectors (SCHEMES.md §0).
    pub register_file: RegisterFileConfig,
    /// Warp schedulers.
    pub scheduler: SchedulerConfig,
    /// Execution units, latencies and initiation intervals per opcode class.
    pub execution: ExecutionConfig,
    /// Caches, DRAM and shared-memory banking.
    pub memory: MemoryConfig,
}

impl GpuConfig {
    /// Threads per warp (wavefront): the residency limits' value, the single source of truth.
    pub fn warp_size(&self) -> u32 {
        self.limits.warp_size()
    }
}

/// Chip-level counts and clocks.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CoreConfig {
    /// Streaming multiprocessors (compute units on AMD) on the chip; count.
    pub sm_count: u32,
    /// Core (shader) clock in MHz; the timing model counts cycles of this clock.
    pub core_clock_mhz: f64,
    /// Processing blocks (sub-cores) per SM, each with its own scheduler, register-file slice and
    /// execution units (Volta and later: 4); 1 when the SM is not partitioned this way.
    pub sub_cores: u32,
}

/// Baseline register file of one SM (SCHEMES.md §0): banks, their geometry and operand collectors.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RegisterFileConfig {
    /// Register-file banks per SM; with sub-cores each owns `banks / sub_cores`. Count.
    pub banks: u32,
    /// Width of one bank entry in bits (one warp register: 32 lanes × 32 bits = 1024 on NVIDIA
    /// since Fermi).
    pub bank_width_bits: u32,
    /// Entries per bank; `banks × entries × width` is the register file's capacity.
    pub entries_per_bank: u32,
    /// Reads one bank serves per cycle; count.
    pub read_ports_per_bank: u32,
    /// Writes one bank accepts per cycle; count.
    pub write_ports_per_bank: u32,
    /// Operand collector units per SM (0 where the baseline has none); with sub-cores each owns
    /// `collector_units / sub_cores`. Count.
    pub collector_units: u32,
    /// Results the write-back bus delivers to the register file per cycle; count.
    pub writeback_width: u32,
}

impl RegisterFileConfig {
    /// Capacity in bytes (`banks × entries × width / 8`).
    pub fn capacity_bytes(&self) -> u64 {
        u64::from(self.banks) * u64::from(self.entries_per_bank) * u64::from(self.bank_width_bits) / 8
    }
}

/// Which ready warp a scheduler issues from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SchedulingPolicy {
    /// Loose round robin: the next ready warp after the last one issued.
    Lrr,
    /// Greedy then oldest: keep issuing the same warp until it stalls, then the oldest ready one.
    Gto,
    /// Two-level: only an active set of warps is considered; a warp waiting on a long-latency
    /// result leaves the set (Gebhart et al.).
    TwoLevel {
        /// Warps in the active set per scheduler; count.
        active_warps: u32,
    },
    /// Oldest ready wavefront first (GCN3 in Wyse's gem5 model).
    OldestFirst,
}

/// Warp schedulers of one SM.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SchedulerConfig {
    /// Warp schedulers per SM; count.
    pub schedulers_per_sm: u32,
    /// Selection policy.
    pub policy: SchedulingPolicy,
    /// Instructions one scheduler issues per cycle from one warp; count.
    pub issue_width: u32,
    /// Whether a scheduler may issue a second instruction to a different kind of unit in the same
    /// cycle (GT200: FMA + SFU; GPGPU-Sim `gpgpu_dual_issue_diff_exec_units`).
    pub dual_issue: bool,
}
