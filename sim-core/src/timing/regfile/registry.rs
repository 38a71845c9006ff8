//! Every register-file scheme by name: the CLI's `--scheme` values, `reglab schemes` and the app's
//! scheme list read this table. Adding a scheme is its module plus one entry here (and the UI's
//! list): its parameter schema, its model notes and its constructor.
//!
//! ```text
//! by_name("no-bank-conflicts") → SchemeEntry { params: no_bank_conflicts::params, make: …, … }
//! (entry.make)(&ctx, &resolved_config) → Box<dyn RegisterFileScheme> (one per SM)
//! ```

use alloc::boxed::Box;
use alloc::vec::Vec;

use super::baseline::{self, BankedConfig, BankedRegisterFile};
use super::config::SchemeConfigError;
use super::double_registers::{self, DoubleRegisterFile};
use super::no_bank_conflicts::{self, ConflictFreeRegisterFile};
use super::params::{ModelNote, ParamSpec, SchemeConfig};
use super::rfc_ob::RfcObRegisterFile;
use super::rfc_ob_config;
use super::{EnergyModel, RegisterFileScheme, SchemeContext};
use crate::gpu::GpuConfig;
use crate::timing::program_map::ProgramTransform;
use crate::timing::program_regs::AssignRegisters;

/// Builds the register file of one SM from a config resolved against the scheme's schema.
pub type MakeScheme = fn(&SchemeContext<'_>, &SchemeConfig) -> Result<Box<dyn RegisterFileScheme>, SchemeConfigError>;

/// One scheme: its name, a one-line description, its parameters, notes and constructor.
#[derive(Clone, Copy, Debug)]
pub struct SchemeEntry {
    /// Name used on the command line and in reports.
    pub name: &'static str,
    /// One line for lists.
    pub description: &'static str,
    /// Which paper and section it models.
    pub source: &'static str,
    /// Its parameter schema; defaults may come from the GPU preset and the base energy model.
    pub params: fn(&GpuConfig, &EnergyModel) -> Vec<ParamSpec>,
    /// What is modelled, what is not, the assumptions and their values.
    pub notes: &'static [ModelNote],
    /// Builds the register file of one SM.
    pub make: MakeScheme,
    /// The scheme's IR → IR pass, if it times its own program (`None`: the original).
    pub transform: Option<ProgramTransform>,
    /// The scheme's own register assignment (a packing scheme places values in slices of one or
    /// two physical registers, starting from the allocator's); `None`: the allocator's.
    pub assign: Option<AssignRegisters>,
    /// The scheme reads the executor's value summaries (uniform values, significant bits:
    /// [`crate::timing::WarpStream::values_at`]); runs whose schemes all say no record none.
    pub needs_values: bool,
}

/// The schemes, in the order the app lists them.
pub const SCHEMES: &[SchemeEntry] = &[
    SchemeEntry {
        name: "baseline",
        description: "Banked register file with operand collector units (GPGPU-Sim)",
        source: "SCHEMES.md §0; GPGPU-Sim operand collector",
        params: BankedConfig::params,
        notes: baseline::NOTES,
        make: |c, cfg| Ok(Box::new(BankedRegisterFile::new(c, &BankedConfig::from_config("baseline", cfg)?))),
        transform: None,
        needs_values: false,
        assign: None,
    },
    SchemeEntry {
        name: "no-bank-conflicts",
        description: "Limit study: every register its own bank",
        source: "Wyse, limit studies (SCHEMES.md §1)",
        params: no_bank_conflicts::params,
        notes: no_bank_conflicts::NOTES,
        make: |c, cfg| Ok(Box::new(ConflictFreeRegisterFile::new(c, cfg)?)),
        transform: None,
        needs_values: false,
        assign: None,
    },
    SchemeEntry {
        name: "2x-registers",
        description: "Limit study: twice the registers per SM (occupancy)",
        source: "Wyse, limit studies (SCHEMES.md §1)",
        params: double_registers::params,
        notes: double_registers::NOTES,
        make: |c, cfg| Ok(Box::new(DoubleRegisterFile::new(c, cfg)?)),
        transform: None,
        needs_values: false,
        assign: None,
    },
    SchemeEntry {
        name: "rfc-ob",
        description: "Register-file cache + operand buffer (Gebhart's last-use bit and two-level scheduler as options)",
        source: "Wyse §2.3.3, §5, §6; Gebhart et al. ISCA'11 (SCHEMES.md §1)",
        params: rfc_ob_config::params,
        notes: rfc_ob_config::NOTES,
        make: |c, cfg| Ok(Box::new(RfcObRegisterFile::new(c, cfg)?)),
        transform: None,
        needs_values: false,
        assign: None,
    },
];

/// The scheme called `name`.
pub fn by_name(name: &str) -> Option<&'static SchemeEntry> {
    SCHEMES.iter().find(|s| s.name == name)
}

/// The scheme names in list order.
pub fn names() -> impl Iterator<Item = &'static str> {
    SCHEMES.iter().map(|s| s.name)
}
