//! Debug information kept in the IR: `.file` entries, `.loc` locations and DWARF `.section`
//! blocks (as data, so emitting a module writes them again).
//!
//! ```text
//! .file 1 "kernel.cu"
//! .loc 1 12 5                       // DebugLoc { file: 1, line: 12, column: 5 }
//! .section .debug_info { .b32 197 .b64 $L__func_begin0 }
//! ```

use alloc::string::String;
use alloc::vec::Vec;

use serde::{Deserialize, Serialize};

use super::types::Type;

/// A `.file` entry.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileEntry {
    /// The file name as written (without quotes, escapes kept).
    pub name: String,
    /// Optional timestamp and size (`.file 1 "a.cu", 1595524614, 5649`).
    pub stamp: Option<(u64, u64)>,
}

/// A `.loc file line column` debug location.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct DebugLoc {
    /// File number (see `Module::files`).
    pub file: u32,
    /// Line.
    pub line: u32,
    /// Column.
    pub column: u32,
}

/// A DWARF debug section, kept as data so it is emitted again.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Section {
    /// Section name (`.debug_info`).
    pub name: String,
    /// Data lines in order.
    pub lines: Vec<SectionLine>,
}

/// One `.b8 1, 2, 3` / `.b32 label` line of a debug section.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SectionLine {
    /// Element type (`.b8`, `.b16`, `.b32`, `.b64`).
    pub ty: Type,
    /// Values.
    pub values: Vec<SectionValue>,
}

/// A value in a debug section.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum SectionValue {
    /// A number.
    Int(u64),
    /// A label or section name, plus an offset.
    Symbol {
        /// The name as written.
        name: String,
        /// Offset.
        offset: i64,
    },
}
