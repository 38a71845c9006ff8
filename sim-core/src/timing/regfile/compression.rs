//! Static data compression (Angerd, Sintorn, Stenström, "A GPU Register File using Static Data
//! Compression"; `SCHEMES.md` §2): the scheme's parameters, model notes and typed config. The
//! compile-time part (widths, slices, indirection table) is [`super::compression_program`], the
//! register file with its table lookups [`super::compression_file`], precision tuning
//! `exec::float_tuning`.
//!
//! ```text
//! reglab run K.ptx --launch L.json --gpu fermi-gtx480 --scheme compression
//! reglab run … --scheme compression:writeback_delay=8,slice_bits=8,float_tuning=false
//! ```

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use serde::Serialize;

use super::baseline::BankedConfig;
use super::compression_program::{assign_16, assign_32, assign_4, assign_8};
use super::config::SchemeConfigError;
use super::params::{ConfigReader, ModelNote, ParamSpec, SchemeConfig};
use super::EnergyModel;
use crate::gpu::GpuConfig;
use crate::timing::program_regs::AssignRegisters;

/// Slice sizes the allocator supports (bits; 32 = whole registers, no packing).
const SLICE_BITS: &[u32] = &[4, 8, 16, 32];

/// Output-quality metrics of precision tuning.
pub const QUALITY_METRICS: &[&str] = &["max_relative", "exact"];

/// The compression scheme's configuration.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CompressionConfig {
    /// The main register file's banks, collectors, mapping and energy (the baseline's).
    pub banked: BankedConfig,
    /// Bits per slice (4: eight slices per 32-bit register; Angerd et al.).
    pub slice_bits: u32,
    /// Banks of each indirection table (16; Angerd et al.: banked like the register file).
    pub table_banks: u32,
    /// Cycles a result waits between its destination-table lookup and its masked write (3;
    /// Angerd et al., sensitivity 0/2/4/8).
    pub writeback_delay: u32,
    /// Narrow-float conversions per cycle per SM (6; Angerd et al.).
    pub conversions_per_cycle: u32,
    /// Cycles of one conversion (1; Angerd et al.).
    pub conversion_cycles: u32,
    /// Entries of each indirection table (256; Angerd et al.), for the storage figure.
    pub table_entries: u32,
    /// Bits per table entry (32; Angerd et al.), for the storage figure.
    pub table_entry_bits: u32,
    /// Energy of one 32-bit table access in nJ (**A**: the RF cache's, 0.1 × main RF).
    pub table_nj: f64,
    /// Precision tuning of float registers on or off.
    pub float_tuning: bool,
    /// Output quality loss allowed by precision tuning, percent (0 = "perfect", 10 = "high").
    pub quality_loss: f64,
    /// Quality metric: max relative deviation over the output buffers, or exact match.
    pub quality_metric: String,
    /// Cap on functional runs of the precision-tuning search.
    pub tuning_runs: u32,
}

/// The schema: the baseline's banks and collectors plus the compression parameters.
pub fn params(gpu: &GpuConfig, energy: &EnergyModel) -> Vec<ParamSpec> {
    let mut p = BankedConfig::params(gpu, energy);
    let src = "Angerd, Sintorn, Stenström (SCHEMES.md §2)";
    p.extend([
        ParamSpec::int("slice_bits", 4, 4, 32, "bits").doc("Bits per register slice: 4, 8, 16 or 32 (32 = whole registers, no packing); a value of w bits takes ceil(w / slice_bits) slices", src),
        ParamSpec::int("table_banks", 16, 1, 1024, "banks per table").doc("Banks of the source and destination indirection tables; one lookup per bank per cycle", src),
        ParamSpec::int("writeback_delay", 3, 0, 64, "cycles").doc("Write-back delay: destination-table lookup, truncation or conversion, masked write (sensitivity 0/2/4/8)", src),
        ParamSpec::int("conversions_per_cycle", 6, 1, 64, "per SM per cycle").doc("Narrow-float to FP32 conversions per cycle", src),
        ParamSpec::int("conversion_cycles", 1, 0, 16, "cycles").doc("Cycles of one narrow-float conversion (on read and on write-back)", src),
        ParamSpec::int("table_entries", 256, 1, 65536, "entries").doc("Entries of each indirection table (storage figure only)", src),
        ParamSpec::int("table_entry_bits", 32, 1, 256, "bits").doc("Bits per indirection-table entry (storage figure only)", src),
        ParamSpec::float("table_nj", energy.rfc_nj, 0.0, 1.0, "nJ per 32-bit access").doc("Energy of one indirection-table lookup per thread (a warp lookup costs warp size times this)", "RegLab (the RF cache's figure)").assumed(),
        ParamSpec::flag("float_tuning", true).doc("Tune float registers to reduced formats (32/28/24/20/16/12/8 bits) by the greedy search; off: floats stay 32-bit", "Angerd et al. TACO'17 (SCHEMES.md §B)"),
        ParamSpec::float("quality_loss", 0.0, 0.0, 100.0, "%").doc("Output quality loss precision tuning may give up: max relative deviation of the output buffers (0 = perfect, 10 = high)", "SCHEMES.md §B"),
        ParamSpec::choice("quality_metric", "max_relative", QUALITY_METRICS).doc("max_relative: max relative deviation within quality_loss; exact: outputs bit-identical", "SCHEMES.md §B"),
        ParamSpec::int("tuning_runs", 64, 1, 100_000, "functional runs").doc("Cap on the functional runs of the precision-tuning search (past it the search makes only the trials it proves without a run, keeping what it verified)", "RegLab").assumed(),
    ]);
    p
}

impl CompressionConfig {
    /// The typed config from the resolved `config`.
    pub fn from_config(config: &SchemeConfig) -> Result<CompressionConfig, SchemeConfigError> {
        let name = "compression";
        let r = ConfigReader::new(name, config);
        let slice_bits = r.u32("slice_bits")?;
        if !SLICE_BITS.contains(&slice_bits) {
            return Err(SchemeConfigError::WrongType {
                scheme: String::from(name),
                param: String::from("slice_bits"),
                expected: String::from("one of 4, 8, 16, 32"),
                got: format!("{slice_bits}"),
            });
        }
        Ok(CompressionConfig {
            banked: BankedConfig::from_config(name, config)?,
            slice_bits,
            table_banks: r.u32("table_banks")?,
            writeback_delay: r.u32("writeback_delay")?,
            conversions_per_cycle: r.u32("conversions_per_cycle")?,
            conversion_cycles: r.u32("conversion_cycles")?,
            table_entries: r.u32("table_entries")?,
            table_entry_bits: r.u32("table_entry_bits")?,
            table_nj: r.f64("table_nj")?,
            float_tuning: r.bool("float_tuning")?,
            quality_loss: r.f64("quality_loss")?,
            quality_metric: String::from(r.choice("quality_metric")?),
            tuning_runs: r.u32("tuning_runs")?,
        })
    }

    /// Bits of the two indirection tables of one SM (2 × entries × entry bits).
    pub fn table_bits(&self) -> u64 {
        2 * u64::from(self.table_entries) * u64::from(self.table_entry_bits)
    }
}

/// The register assignment for the config's slice size.
pub fn assign_for(config: &SchemeConfig) -> Option<AssignRegisters> {
    let bits = ConfigReader::new("compression", config).u32("slice_bits").unwrap_or(4);
    Some(match bits {
        8 => assign_8,
        16 => assign_16,
        32 => assign_32,
        _ => assign_4,
    })
}

/// What the scheme models and assumes.
pub const NOTES: &[ModelNote] = &[
    ModelNote::modelled("Integer widths from the range analysis on e-SSA (SCHEMES.md §A), seeded with the launch's grid and CTA when every launch of the setup has the same shape (else architectural limits); kernel parameters and loaded values are full width."),
    ModelNote::modelled("Slice allocation: a value of w bits takes ceil(w / slice_bits) slices; linear scan over live intervals (layout order; a value live around a loop covers the loop) with best fit into one register, else a split over two (low part in the register with the longest free run), else a new register. Registers per thread: the registers opened, R1 (stack pointer) excepted, as the allocator reports them."),
    ModelNote::modelled("Every operand read looks up the source indirection table first (one lookup per 32-bit source unit; table_banks banks, bank = (unit + warp) mod table_banks, one lookup per bank per cycle); the lookup stage adds one cycle plus its bank waits. A split operand costs two bank reads; two values packed in one register read by one instruction cost one."),
    ModelNote::modelled("Narrow-float conversion: conversion_cycles per batch of conversions_per_cycle on read, and conversion_cycles on write-back of a narrow float; extraction and sign extension are free."),
    ModelNote::modelled("Write-back: destination-table lookup, truncation/conversion and masked write: writeback_delay cycles before the result is visible."),
    ModelNote::modelled("Storage: two indirection tables of table_entries × table_entry_bits bits per SM (counter table_bits, summed over SMs)."),
    ModelNote::assumption("The lookup stage sits in series with operand collection: its delay is added after the bank reads (a lookup does not delay the bank request)."),
    ModelNote::assumption("Conversions of different instructions do not contend (the per-cycle limit applies within one instruction)."),
    ModelNote::assumption("Functions with calls keep the allocator's registers (values passed to calls and returned are not compressed); a compressed allocation needing no fewer registers than the allocator's is not used (registers never rise)."),
    ModelNote::assumption("The slices are packed in PTX order, and the registers ptxas's issue order adds to the uncompressed kernel (loops unrolled, loads issued early: the register estimate's schedule) are added to the compressed one as well: registers after = slices in PTX order + (estimate − estimate in PTX order)."),
    ModelNote::assumption("Allocation values are the allocator's webs (no copy coalescing); rematerialised values occupy a register only from the allocator's load point; scratch registers of multi-instruction SASS sequences take whole registers at their instruction."),
    ModelNote::assumption("Precision tuning: all float registers start at 32 bits and are visited in descending dynamic write count; each is lowered one format at a time (28, 24, 20, 16, 12, 8 bits) while the outputs stay within quality_loss (max relative deviation over the output buffers; exact: bit-identical); the whole combination is verified at the end and the last lowering backed off if needed. Rounding to nearest even on every write of the register; overflow to ±Inf; below the smallest normal to signed zero; NaN kept; arithmetic in FP32. Only .f32 registers are tuned (f64 and f16 stay)."),
    ModelNote::assumption("The timing run replays the full-precision functional run (its instruction stream and the outputs the report shows); tuned formats change which values are narrow, not the stream. At 0 % loss the tuned outputs equal the full-precision ones; at a looser threshold a branch on a rounded float could in principle take another path, which the replay does not show."),
    ModelNote::not_modelled("Precision tuning and launch-aware ranges only where the simulation has the launch (reglab run, the web app, Simulation::from_launch, from_module_source_launch_progress); the search is bounded by tuning_runs. In the app its progress shows as \"precision tuning: run k of N\" and Cancel stops it (the page terminates the worker). A search is made once per kernel and launch: schemes, sweep points, the CLI's threads and the page's later runs of the same kernel text and launch setup that ask for the same one (quality_metric, quality_loss, tuning_runs) take its result; natively, with a thread to spare, it runs two trials at a time. Either way the result is the one-at-a-time search's."),
    ModelNote::modelled("The slice allocation is in the report's slice_map (per function: every value's bits, float or integer, pieces as [physical register, slice mask], live interval in half positions of the layout order, and the instructions' source lines); the app draws it as the slice map."),
    ModelNote::modelled("The tuning result is in the report's scheme counters, once per run (not summed over SMs): tuning_runs (functional runs, reference included), tuning_proved (trials accepted without a run: every value the register was written in the last accepted run is stored unchanged by the trial's format, so the trial would repeat that run exactly), tuning_capped (1: tuning_runs left out a trial that needed a run), tuning_candidates (f32 registers written), tuning_lowered, tuning_deviation_ppm (the accepted combination's max relative output deviation, rounded up), and float_bits:FUNCTION:REG (bits of the format chosen) per lowered register."),
    ModelNote::not_modelled("Per-warp differences: the allocation is static, every warp uses the same table; the range analysis assumes no overflow beyond the declared type."),
];
