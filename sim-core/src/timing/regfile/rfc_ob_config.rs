//! The parameters and model notes of the `rfc-ob` scheme (register-file cache + operand buffer;
//! Wyse §2.3.3, Gebhart et al. ISCA'11; SCHEMES.md §1).
//!
//! ```text
//! rfc-ob                                  → 8 RFC entries, 4 OB entries per scheduler, banked RF
//! rfc-ob:rfc_entries=512,bank_conflicts=false → Wyse's conflict-free limit with RFC + OB
//! rfc-ob:last_use_bit=true,two_level=true,active_warps=8 → Gebhart's options
//! ```

use alloc::format;
use alloc::string::String;
use alloc::vec;
use alloc::vec::Vec;

use serde::Serialize;

use super::bank::BankMapping;
use super::baseline::main_rf_param;
use super::config::SchemeConfigError;
use super::params::{ConfigReader, ModelNote, ParamSpec, SchemeConfig};
use super::EnergyModel;
use crate::gpu::GpuConfig;

/// The configuration of an RFC + OB register file.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RfcObConfig {
    /// Main register-file banks per SM (split over the sub-cores); count, from the preset.
    pub banks: u32,
    /// Register → bank mapping (GPGPU-Sim's `(reg + warp) % banks` by default).
    pub bank_mapping: BankMapping,
    /// Operand-buffer entries (instructions) per scheduler; count (Wyse: 4 per SIMD).
    pub ob_entries: u32,
    /// Register-file-cache entries (warp registers) per scheduler; count (Wyse: 8 per SIMD).
    pub rfc_entries: u32,
    /// Bank conflicts modelled (false: every register its own bank, Wyse's limit study).
    pub bank_conflicts: bool,
    /// Gebhart's compiler last-use bit drops dead entries without a write-back.
    pub last_use_bit: bool,
    /// Gebhart's two-level scheduler: a warp leaving the active set has its entries flushed.
    pub two_level: bool,
    /// Active-set size per scheduler with `two_level`; count (Gebhart: 8).
    pub active_warps: u32,
    /// Energy of one 32-bit main register-file access in nJ (Gilani Table 4).
    pub main_rf_nj: f64,
    /// Energy of one 32-bit RFC access in nJ (SCHEMES.md §5 **A**: 0.1 × main RF).
    pub rfc_nj: f64,
}

/// The schema: defaults from `gpu` and `energy`.
pub fn params(gpu: &GpuConfig, energy: &EnergyModel) -> Vec<ParamSpec> {
    vec![
        ParamSpec::int("banks", i64::from(gpu.register_file.banks), i64::from(gpu.core.sub_cores.max(1)), 1024, "banks per SM")
            .doc("Main register-file banks per SM, split evenly over the sub-cores; one read and one write per bank per cycle", "GPU preset (SCHEMES.md §0)"),
        ParamSpec::choice("bank_mapping", "reg_plus_warp", BankMapping::CHOICES).doc(
            "Register to bank: reg_plus_warp = (register + warp slot) % banks; reg = register % banks",
            "GPGPU-Sim (SCHEMES.md §0)",
        ),
        ParamSpec::int("ob_entries", 4, 1, 64, "instructions per scheduler").doc(
            "Operand-buffer FIFO depth: instructions whose operands are being read (oldest first, then greedy for free banks); they leave in order",
            "Wyse §2.3.3.2 (4 per SIMD)",
        ),
        ParamSpec::int("rfc_entries", 8, 1, 4096, "warp registers per scheduler").doc(
            "Register-file-cache entries, fully associative, strict LRU; allocated when an ALU instruction dispatches",
            "Wyse §2.3.3.3, §5 (8 per SIMD; sweep 2 … 512)",
        ),
        ParamSpec::flag("bank_conflicts", true).doc(
            "Bank conflicts modelled; false = every register its own bank (Wyse's conflict-free limit, with RFC and OB)",
            "Wyse §6",
        ),
        ParamSpec::flag("last_use_bit", false).doc(
            "Compiler last-use bit per source operand (from liveness): a dead value's RFC entry is dropped without write-back",
            "Gebhart et al. ISCA'11",
        ),
        ParamSpec::flag("two_level", false).doc(
            "Two-level scheduler (replaces the preset's policy): a warp waiting on a load leaves the active set and its RFC entries are flushed",
            "Gebhart et al. ISCA'11",
        ),
        ParamSpec::int("active_warps", 8, 1, 64, "warps per scheduler")
            .doc("Active-set size of the two-level scheduler (used with two_level)", "Gebhart et al. ISCA'11 (8)"),
        main_rf_param(energy),
        ParamSpec::float("rfc_nj", energy.rfc_nj, 0.0, 1.0, "nJ per 32-bit access")
            .doc("Energy of one 32-bit RFC access (a warp-register access costs warp size times this)", "SCHEMES.md §5: 0.1 × main RF")
            .assumed(),
    ]
}

impl RfcObConfig {
    /// The typed config from the resolved `config`.
    pub fn from_config(config: &SchemeConfig) -> Result<RfcObConfig, SchemeConfigError> {
        let r = ConfigReader::new("rfc-ob", config);
        let mapping = r.choice("bank_mapping")?;
        let bank_mapping = BankMapping::from_choice(mapping).ok_or_else(|| SchemeConfigError::WrongType {
            scheme: String::from("rfc-ob"),
            param: String::from("bank_mapping"),
            expected: format!("one of {}", BankMapping::CHOICES.join(", ")),
            got: String::from(mapping),
        })?;
        Ok(RfcObConfig {
            banks: r.u32("banks")?,
            bank_mapping,
            ob_entries: r.u32("ob_entries")?,
            rfc_entries: r.u32("rfc_entries")?,
            bank_conflicts: r.bool("bank_conflicts")?,
            last_use_bit: r.bool("last_use_bit")?,
            two_level: r.bool("two_level")?,
            active_warps: r.u32("active_warps")?,
            main_rf_nj: r.f64("main_rf_nj")?,
            rfc_nj: r.f64("rfc_nj")?,
        })
    }
}

/// What the scheme models, what it leaves out, and RegLab's assumptions (**A**).
pub const NOTES: &[ModelNote] = &[
    ModelNote::modelled("Operand buffer per scheduler: a FIFO of ob_entries instructions; bank reads are granted oldest entry first, then greedily to younger entries (one read per bank per cycle, a write wins its bank); instructions leave in order. Issue stalls while the OB is full."),
    ModelNote::modelled("RFC per scheduler: rfc_entries warp registers, fully associative, strict LRU (hits, writes and allocations make an entry most recently used). A source held by the RFC when its instruction enters the OB costs no bank read: it is forwarded at dispatch, or to every waiting OB entry that needs it when the entry is evicted first."),
    ModelNote::modelled("ALU results are written into the RFC (no bank write); a dirty entry is written back to the main register file (one bank write) only when evicted. Load and atomic results go to the main register file and drop a stale RFC copy."),
    ModelNote::modelled("Gebhart's options: last_use_bit drops an entry without write-back when a source marked as its value's last use (static liveness) is forwarded; two_level replaces the preset's scheduler with a two-level one of active_warps and flushes (writes back if dirty) a warp's entries when it leaves the active set — waiting on a load, or at a barrier (the SM's two-level scheduler moves barrier waiters out too, else a full set of them would block their CTA)."),
    ModelNote::assumption("Allocation at dispatch (Wyse §4): an ALU instruction whose operands are all in allocates one entry per destination register when it leaves the OB, pinned until its result is written; the OB head waits while none can be allocated (counted in rfc_alloc_stalls) and issue stalls once the OB is full (charged to the scheme-specific stall cause)."),
    ModelNote::assumption("Memory instructions share the OB FIFO and may be forwarded RFC sources, but allocate no entry; an ALU instruction with more destination registers than rfc_entries writes the main register file."),
    ModelNote::assumption("Write-back port priority: results and loads written back this cycle take their banks first, then evicted dirty entries (queued, oldest first, one per free bank per cycle), then operand reads."),
    ModelNote::assumption("A finished warp's entries are discarded without write-back (its registers are dead). When a warp leaves the two-level active set, entries pinned for its results in flight are freed too: those results are written to the main register file."),
    ModelNote::assumption("An RFC access costs rfc_nj per 32-bit register (0.1 × main RF); a write-back reads the RFC once and writes the main register file once."),
    ModelNote::modelled("On Wyse's compute unit (gcn3-cu) a scheduler is a SIMD VALU: one OB and one RFC per SIMD, entries 64 lanes wide (a warp register is a VGPR), each 64-wide wavefront replayed from a pair of the executor's 32-thread warps (exec::wavefront); kernels that use warp-level operations are refused there."),
    ModelNote::not_modelled("Forwarding from the ALU pipeline to the OB (the scoreboard makes a dependent wait for the write-back), RFC port limits, and a read racing a still-queued write-back of the same register."),
];
