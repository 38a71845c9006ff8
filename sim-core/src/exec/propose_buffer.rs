//! The buffers of a proposal: each pointer parameter's buffer (or pointer table) from what the
//! kernel's accesses reach, with its initial contents, and a note where the size is a guess; a
//! buffer the range analysis cannot bound gets a share of a fixed budget.
//!
//! ```text
//! ld.global.f32 %f1, [%rd4];   // %rd4 = a + tid·4, block 256 → a: 256 f32, random
//! ld.global.f32 %f2, [%rd9];   // %rd9 advanced in a loop: no bound → 4 MiB, with a note
//! ```

use alloc::collections::BTreeSet;
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use super::launch::{BufferSpec, Init, LaunchSetup, ParamSpec};
use super::propose::{
    ProposalNote, MAX_PROPOSED_BYTES, PROPOSED_ELEMENTS, ROUND_ELEMENTS, UNKNOWN_ELEMENTS, UNKNOWN_SCALED_BYTES,
    UNKNOWN_TOTAL_BYTES,
};
use super::propose_extent::{Base, Reach, Reaches, LOADED};
use super::value::{ElemType, Value};
use crate::ir::{Function, Module};

/// Fills in the buffer (or pointer table) of every pointer parameter of `setup` and their notes;
/// returns the parameters stored through (the outputs).
pub(crate) fn pointer_specs(
    module: &Module,
    func: &Function,
    pointers: &BTreeSet<u32>,
    reach: &Reaches,
    setup: &mut LaunchSetup,
    notes: &mut Vec<ProposalNote>,
) -> Vec<usize> {
    let mut outputs = Vec::new();
    let scalars = func.params.iter().enumerate().any(|(i, p)| {
        !pointers.contains(&(i as u32)) && p.ty.is_integer() && p.dims.is_empty() && p.ty.size_bytes() >= 4
    });
    let unknown_bytes = unknown_share(pointers, reach, scalars);
    for &i in pointers {
        let r = reach.get(&Base::Param(i)).cloned().unwrap_or_default();
        let (spec, note) = match reach.get(&Base::Pointee(i)) {
            Some(pointee) => {
                outputs.extend(pointee.stored.then_some(i as usize));
                super::propose_table::table_for(module, i, &r, pointee)
            }
            None => {
                outputs.extend(r.stored.then_some(i as usize));
                let (spec, note) = buffer_for(i, &r, unknown_bytes);
                (ParamSpec::Buffer(spec), note)
            }
        };
        if let Some(slot) = setup.params.get_mut(i as usize) {
            *slot = spec;
        }
        notes.extend(note.into_iter().map(|text| ProposalNote { param: Some(i as usize), text }));
    }
    super::propose_struct::struct_specs(reach, unknown_bytes, setup, notes);
    // In parameter order (the struct fields' notes come last); stable within a parameter.
    crate::sorting::sort_by_key(notes, |n| n.param);
    outputs
}

/// Bytes for each buffer the analysis cannot bound: [`UNKNOWN_SCALED_BYTES`] in a kernel with
/// integer scalars; else [`MAX_PROPOSED_BYTES`], or an equal share of what
/// [`UNKNOWN_TOTAL_BYTES`] leaves beside the bounded buffers (pointer parameters' and struct
/// fields').
fn unknown_share(pointers: &BTreeSet<u32>, reach: &Reaches, scalars: bool) -> u64 {
    let (mut known, mut unknown) = (0u64, 0u64);
    let fields = reach.iter().filter(|(b, _)| matches!(b, Base::Field { .. })).map(|(_, r)| r);
    for r in pointers.iter().filter_map(|&i| reach.get(&Base::Param(i))).chain(fields) {
        match &r.unbounded {
            Some(why) if !why.starts_with(LOADED) => unknown += 1,
            Some(_) => known += 2 * PROPOSED_ELEMENTS * 8,
            None => known += r.bytes.min(MAX_PROPOSED_BYTES),
        }
    }
    let share = UNKNOWN_TOTAL_BYTES.saturating_sub(known) / unknown.max(1);
    let most = if scalars { UNKNOWN_SCALED_BYTES } else { MAX_PROPOSED_BYTES };
    share.clamp(UNKNOWN_ELEMENTS * 4, most)
}

/// The buffer of pointer parameter `i` from what the kernel's accesses reach, and a note when
/// the size is a guess (`unknown_bytes`: the size of one whose index has no bound).
pub(crate) fn buffer_for(i: u32, r: &Reach, unknown_bytes: u64) -> (BufferSpec, Option<String>) {
    let ty = r.ty.and_then(ElemType::from_ptx).unwrap_or(ElemType::F32);
    let elem = ty.size() as u64;
    let needed = r.bytes.div_ceil(elem).div_ceil(ROUND_ELEMENTS) * ROUND_ELEMENTS;
    let cap = MAX_PROPOSED_BYTES / elem;
    let (len, note) = match &r.unbounded {
        Some(why) => {
            // A guess: an index loaded from another buffer stays small (that buffer is
            // zero-filled); one the analysis cannot bound gets room for a block or a few rows
            // past the problem size.
            // An output stays at most UNKNOWN_SCALED_BYTES: its contents are reported.
            let unknown_bytes = if r.stored { unknown_bytes.min(UNKNOWN_SCALED_BYTES) } else { unknown_bytes };
            let guess = if why.starts_with(LOADED) {
                2 * PROPOSED_ELEMENTS
            } else {
                (unknown_bytes / elem / ROUND_ELEMENTS * ROUND_ELEMENTS).max(ROUND_ELEMENTS)
            };
            let len = needed.max(guess).min(cap);
            (len, Some(format!("size unknown: {why}; proposed {len} elements")))
        }
        None if needed > cap => (
            cap,
            Some(format!(
                "size capped at {cap} elements ({MAX_PROPOSED_BYTES} bytes): the kernel's indices reach {} bytes",
                r.bytes
            )),
        ),
        None if needed == 0 => (PROPOSED_ELEMENTS, None),
        None => (needed, None),
    };
    // Room below the parameter's address for the lowest offset the kernel reaches, in whole
    // rounding units (which keeps vector accesses aligned).
    let unit = elem * ROUND_ELEMENTS;
    let below = u64::try_from(-r.lowest).unwrap_or(0).div_ceil(unit) * unit;
    let below = if below > MAX_PROPOSED_BYTES / 2 { 0 } else { below };
    let len = if below > 0 { (len + below / elem).min(cap) } else { len };
    let note = below_note(note, r, below);
    let init = if r.compared && !r.stored && !ty.is_float() {
        // Sizes and counts read from memory (`m_array[blockIdx.x]`): 1 keeps every loop short
        // and every index it bounds in range.
        Init::Const(Value::UInt(1))
    } else if r.stored || r.feeds_addresses {
        Init::Zeros
    } else {
        Init::Random(u64::from(i) + 1)
    };
    let filled = match init {
        Init::Const(_) => Some("filled with 1: the kernel compares its contents (sizes or counts?)"),
        Init::Zeros if r.feeds_addresses => Some("zero-filled: the kernel indexes memory by its contents"),
        _ => None,
    };
    let note = match (note, filled) {
        (Some(n), Some(f)) => Some(format!("{n}; {f}")),
        (None, Some(f)) => Some(f.into()),
        (n, None) => n,
    };
    let offset = (below > 0).then_some(below);
    (BufferSpec { ty, len: Some(len), init: Some(init), data: None, offset }, note)
}

/// `note` joined with what the kernel reaches below the buffer's start, and the `offset` given
/// for it (`below` bytes; 0: none).
fn below_note(note: Option<String>, r: &Reach, below: u64) -> Option<String> {
    let what = match (&r.below, below) {
        (Some(b), _) => Some(b.clone()),
        (None, 0) => None,
        (None, _) => Some(format!("indexed up to {} bytes below its start", -r.lowest)),
    };
    let joined = match (note, what) {
        (Some(n), Some(w)) => Some(format!("{n}; {w}")),
        (None, Some(w)) if r.below.is_some() => Some(format!("indexed below its start: {w}")),
        (n, w) => n.or(w),
    };
    let shifted = |t: String| format!("{t}; the parameter points {below} bytes into the buffer (\"offset\")");
    if below > 0 {
        joined.map(shifted)
    } else {
        joined
    }
}
