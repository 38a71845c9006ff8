//! Every register-file scheme by name: the CLI's `--scheme` values and the app's scheme list
//! read this table. Adding a scheme is its module plus one line here (and the UI's list).
//!
//! ```text
//! by_name("no-bank-conflicts") → SchemeEntry { make: ConflictFreeRegisterFile::new, … }
//! ```

use alloc::boxed::Box;

use super::baseline::BankedRegisterFile;
use super::double_registers::DoubleRegisterFile;
use super::no_bank_conflicts::ConflictFreeRegisterFile;
use super::{RegisterFileScheme, SchemeContext};
use crate::timing::program_map::ProgramTransform;

/// One scheme: its name, a one-line description and its constructor (one instance per SM).
#[derive(Clone, Copy, Debug)]
pub struct SchemeEntry {
    /// Name used on the command line and in reports.
    pub name: &'static str,
    /// One line for lists.
    pub description: &'static str,
    /// Which paper and section it models.
    pub source: &'static str,
    /// Builds the register file of one SM.
    pub make: fn(&SchemeContext<'_>) -> Box<dyn RegisterFileScheme>,
    /// The scheme's IR → IR pass, if it times its own program (`None`: the original).
    pub transform: Option<ProgramTransform>,
}

/// The schemes, in the order the app lists them.
pub const SCHEMES: &[SchemeEntry] = &[
    SchemeEntry {
        name: "baseline",
        description: "Banked register file with operand collector units (GPGPU-Sim)",
        source: "SCHEMES.md §0; GPGPU-Sim operand collector",
        make: |c| Box::new(BankedRegisterFile::new(c)),
        transform: None,
    },
    SchemeEntry {
        name: "no-bank-conflicts",
        description: "Limit study: every register its own bank",
        source: "Wyse, limit studies (SCHEMES.md §1)",
        make: |c| Box::new(ConflictFreeRegisterFile::new(c)),
        transform: None,
    },
    SchemeEntry {
        name: "2x-registers",
        description: "Limit study: twice the registers per SM (occupancy)",
        source: "Wyse, limit studies (SCHEMES.md §1)",
        make: |c| Box::new(DoubleRegisterFile::new(c)),
        transform: None,
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
