//! The GPU of every source paper, as named constructors, and a lookup by name.
//!
//! | preset | used by | cc |
//! |---|---|---|
//! | `gt200-fx5800` | Gilani et al. (composite/scalar/sliced) | 1.3 |
//! | `fermi-gtx480` | Angerd et al. (static compression) | 2.0 |
//! | `maxwell-gtx980` | FineReg (Oh et al.) | 5.2 |
//! | `turing-rtx2060` | DeMO (Mohammadpur-Fard et al.) | 7.5 |
//! | `volta-v100` | Angerd et al. §7 | 7.0 |
//! | `hopper-h100` | today's reference | 9.0 |
//! | `gcn3-cu` | Wyse (vector register file usage) | GCN3 |
//!
//! Every number carries its source beside it: the paper's configuration table, the GPGPU-Sim /
//! Accel-Sim configuration file the paper's simulator used (`gpgpu-sim_distribution`,
//! `configs/tested-cfgs/…`), NVIDIA's documentation, or an explicit assumption marked **A**.
//! Occupancy limits come from [`crate::gpu::compute_capability`] (NVIDIA's calculator).
//!
//! ```text
//! presets::by_name("turing-rtx2060")  // 30 SMs, 4 sub-cores, 8 banks, 8 collectors, LRR
//! ```

mod gcn3;
mod tesla_fermi;
mod turing_maxwell;
mod volta_hopper;

use super::config::GpuConfig;
use super::execution::{ArithTiming, OpTiming};

pub use gcn3::gcn3_cu;
pub use tesla_fermi::{fermi_gtx480, gt200_fx5800};
pub use turing_maxwell::{maxwell_gtx980, turing_rtx2060};
pub use volta_hopper::{hopper_h100, volta_v100};

/// A preset's constructor.
pub type Constructor = fn() -> GpuConfig;

/// Every preset: its name and its constructor, in the order of the table above.
pub const PRESETS: [(&str, Constructor); 7] = [
    ("gt200-fx5800", gt200_fx5800),
    ("fermi-gtx480", fermi_gtx480),
    ("maxwell-gtx980", maxwell_gtx980),
    ("turing-rtx2060", turing_rtx2060),
    ("volta-v100", volta_v100),
    ("hopper-h100", hopper_h100),
    ("gcn3-cu", gcn3_cu),
];

/// The preset called `name`, if there is one.
pub fn by_name(name: &str) -> Option<GpuConfig> {
    PRESETS.iter().find(|(n, _)| *n == name).map(|(_, make)| make())
}

/// The preset names, in table order.
pub fn names() -> impl Iterator<Item = &'static str> {
    PRESETS.iter().map(|(n, _)| *n)
}

/// GPGPU-Sim's `-ptx_opcode_latency_X` and `-ptx_opcode_initiation_X` lists (ADD, MAX, MUL, MAD,
/// DIV) for one data type.
const fn gpgpusim(latency: [u32; 5], initiation: [u32; 5]) -> ArithTiming {
    ArithTiming::from_lists(latency, initiation)
}

/// One opcode class: latency and initiation interval in cycles.
const fn op(latency: u32, initiation_interval: u32) -> OpTiming {
    OpTiming::new(latency, initiation_interval)
}

const KIB: u64 = 1024;
const MIB: u64 = 1024 * 1024;
