//! Execution units and pipeline timing per opcode class, the way GPGPU-Sim configures them
//! (`-ptx_opcode_latency_int ADD,MAX,MUL,MAD,DIV`, `-ptx_opcode_initiation_*`, unit counts).
//!
//! ```text
//! fermi-gtx480: add.s32 → 4 cycles, div.s32 → 145 cycles; fma.rn.f32 → 5 cycles, 1 per cycle
//! ```

use serde::{Deserialize, Serialize};

/// Timing of one opcode class on its unit.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct OpTiming {
    /// Cycles from issue until a dependent instruction may read the result (RAW latency).
    pub latency: u32,
    /// Cycles before the same unit accepts another warp instruction (initiation interval).
    pub initiation_interval: u32,
}

impl OpTiming {
    /// `latency` cycles, a new warp instruction every `initiation_interval` cycles.
    pub const fn new(latency: u32, initiation_interval: u32) -> Self {
        OpTiming { latency, initiation_interval }
    }
}

/// GPGPU-Sim's five arithmetic classes for one data type.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ArithTiming {
    /// add, sub, logic, compare, conversion between equal widths.
    pub add: OpTiming,
    /// min, max (GPGPU-Sim's "MAX" class).
    pub max: OpTiming,
    /// mul.
    pub mul: OpTiming,
    /// mad, fma.
    pub mad: OpTiming,
    /// div, rem (and sqrt for floats).
    pub div: OpTiming,
}

impl ArithTiming {
    /// From GPGPU-Sim's comma lists: latencies `[add, max, mul, mad, div]` and initiation intervals
    /// in the same order.
    pub const fn from_lists(latency: [u32; 5], initiation: [u32; 5]) -> Self {
        ArithTiming {
            add: OpTiming::new(latency[0], initiation[0]),
            max: OpTiming::new(latency[1], initiation[1]),
            mul: OpTiming::new(latency[2], initiation[2]),
            mad: OpTiming::new(latency[3], initiation[3]),
            div: OpTiming::new(latency[4], initiation[4]),
        }
    }
}

/// Execution units of one SM; counts of pipelines a scheduler can dispatch to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ExecutionUnits {
    /// Single-precision (SP/FMA) pipelines per SM; count (GPGPU-Sim `gpgpu_num_sp_units`).
    pub sp: u32,
    /// Integer pipelines per SM, 0 when integer work runs on the SP pipelines; count.
    pub int: u32,
    /// Double-precision pipelines per SM, 0 when doubles run on the SP pipelines; count.
    pub dp: u32,
    /// Special-function units per SM; count.
    pub sfu: u32,
    /// Tensor-core units per SM (0 before Volta); count.
    pub tensor: u32,
    /// Load/store (memory) pipelines per SM; count.
    pub ldst: u32,
}

/// Execution units, lane width and the timing of every opcode class.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ExecutionConfig {
    /// Lanes of one SP pipeline: a warp instruction occupies it `warp size / lanes` cycles (8 on
    /// GT200, 16 on Fermi, 32 from Maxwell on, 64 on GCN3's VALU); count.
    pub simd_width: u32,
    /// Units per SM.
    pub units: ExecutionUnits,
    /// 32-bit integer classes.
    pub int: ArithTiming,
    /// 32-bit floating-point classes.
    pub fp32: ArithTiming,
    /// 64-bit floating-point classes.
    pub fp64: ArithTiming,
    /// Transcendentals on the SFU (sin, cos, ex2, lg2, rcp, rsqrt).
    pub sfu: OpTiming,
    /// Tensor-core MMA; `None` before Volta.
    pub tensor: Option<OpTiming>,
}
