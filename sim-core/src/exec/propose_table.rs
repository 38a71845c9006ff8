//! The proposal for a `T**` parameter: a pointer table (`ParamSpec::Pointers`) with one entry per
//! address-width slot the kernel reads from the table, each entry a buffer sized like any other
//! buffer from what the kernel reaches through the addresses it loads from the table.
//!
//! ```text
//! mul.wide.s32 %rd2, %ctaid.x, 8; add.u64 %rd4, %rd3, %rd2;   // table[ctaid.x], grid 64
//! ldu.global.u64 %rd5, [%rd4];  ld.f32 %f1, [%rd5+%rd16];     // %rd16 < 4096 bytes
//! → {"pointers": [64 × {"type": "f32", "len": 1024, "init": "random:…"}]}
//! ```

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use super::launch::{Init, ParamSpec};
use super::propose_buffer::buffer_for;
use super::propose_extent::Reach;
use crate::ir::Module;

/// A table whose slots the analysis cannot bound gets this many entries.
pub const UNKNOWN_ENTRIES: u64 = 32;

/// Most entries a proposed table gets.
pub const MAX_ENTRIES: u64 = 4096;

/// The table of parameter `i` from the reach into the table (`table`) and through its entries
/// (`pointee`), and a note when a size is a guess.
pub(crate) fn table_for(module: &Module, i: u32, table: &Reach, pointee: &Reach) -> (ParamSpec, Option<String>) {
    let ptr_bytes = u64::from(super::plan::address_bits(module) / 8);
    let mut notes = Vec::new();
    let entries = match &table.unbounded {
        Some(why) => {
            notes.push(format!("table size unknown: {why}; proposed {UNKNOWN_ENTRIES} entries"));
            UNKNOWN_ENTRIES
        }
        None if table.bytes.div_ceil(ptr_bytes) > MAX_ENTRIES => {
            notes.push(format!("table capped at {MAX_ENTRIES} entries: the kernel reaches {} bytes", table.bytes));
            MAX_ENTRIES
        }
        None => table.bytes.div_ceil(ptr_bytes).max(1),
    };
    let (spec, note) = buffer_for(i, pointee, super::propose::UNKNOWN_ELEMENTS * 4);
    notes.extend(note.map(|n| format!("each entry: {n}")));
    let list = (0..entries)
        .map(|k| {
            let mut b = spec.clone();
            if let Some(Init::Random(seed)) = b.init {
                b.init = Some(Init::Random(seed * 1000 + k));
            }
            b
        })
        .collect();
    let note = if notes.is_empty() { None } else { Some(notes.join("; ")) };
    (ParamSpec::Pointers(list), note)
}
