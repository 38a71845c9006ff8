//! Struct parameters passed by value whose fields hold pointers (`{"struct": [...]}`): each
//! field is a buffer (the field holds its address) or a scalar at a byte offset; the bytes no
//! field covers are zero. Checking a struct rejects a field with neither or both kinds, a field
//! not aligned to its size, overlapping fields and fields past the parameter's end; running one
//! allocates every field's buffer and writes the struct's bytes, with the addresses filled in,
//! into the parameter.
//!
//! ```text
//! .param .align 8 .b8 q[16]                 // struct { int *counts; int n; }
//! {"struct": [{"offset": 0, "buffer": {"type": "s32", "len": 2}},
//!             {"offset": 8, "scalar": {"type": "s32", "value": 64}}]}
//! → q = [address of the 2-int buffer (8 bytes)] [64 (4 bytes)] [0 0 0 0]
//! ```

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use super::error::ExecError;
use super::launch::{buffer_bytes, BufferSpec, FieldSpec};
use super::memory::{write_le, GlobalMemory, RegionKind};
use super::plan::{LaunchError, PoolEntry};
use super::value::ElemType;

/// One checked buffer field of a struct.
#[derive(Clone, Debug, PartialEq)]
pub struct StructBuffer {
    /// Byte offset of the field (its address is written there).
    pub offset: u64,
    /// Number of elements of the buffer.
    pub len: u64,
    /// Bytes of an address (4 or 8).
    pub width: usize,
    /// The buffer.
    pub spec: BufferSpec,
}

/// Checks the fields of struct parameter `i` and lays out its bytes: the scalars written, the
/// buffer fields still zero (filled in by [`allocate`]).
pub(crate) fn struct_entry(i: usize, fields: &[FieldSpec], ptr_ty: ElemType) -> Result<PoolEntry, LaunchError> {
    let at = |k: usize, m: String| LaunchError::new(format!("params[{i}].struct[{k}]: {m}"));
    if fields.is_empty() {
        return Err(LaunchError::new(format!("params[{i}]: a struct needs at least one field")));
    }
    let mut bytes: Vec<u8> = Vec::new();
    let mut buffers = Vec::new();
    let mut spans: Vec<(u64, u64, usize)> = Vec::new();
    for (k, f) in fields.iter().enumerate() {
        let (data, align) = match (&f.buffer, &f.scalar) {
            (Some(b), None) => {
                let len = super::plan::buffer_len(b, &|m| at(k, m))?;
                buffers.push(StructBuffer { offset: f.offset, len, width: ptr_ty.size(), spec: b.clone() });
                (alloc::vec![0; ptr_ty.size()], ptr_ty.size() as u64)
            }
            (None, Some(s)) => (super::plan::scalar_bytes(s, &|m| at(k, m))?, s.ty.size() as u64),
            _ => return Err(at(k, "a field needs exactly one of \"buffer\" and \"scalar\"".into())),
        };
        if f.offset % align != 0 {
            return Err(at(k, format!("offset {} is not a multiple of the field's {align}-byte size", f.offset)));
        }
        let end = f.offset.saturating_add(data.len() as u64);
        if let Some(&(s, e, j)) = spans.iter().find(|&&(s, e, _)| f.offset < e && s < end) {
            return Err(at(k, format!("bytes {}..{end} overlap struct[{j}] (bytes {s}..{e})", f.offset)));
        }
        spans.push((f.offset, end, k));
        let end = usize::try_from(end).map_err(|_| at(k, "offset too large".into()))?;
        if bytes.len() < end {
            bytes.resize(end, 0);
        }
        if let Some(dst) = bytes.get_mut(end - data.len()..end) {
            dst.copy_from_slice(&data);
        }
    }
    Ok(PoolEntry::Struct { bytes, buffers })
}

/// Checks that a struct's fields (ending at byte `end`) fit parameter `what` of `size` bytes.
pub(crate) fn check_fits(what: &str, end: u64, size: u64) -> Result<(), LaunchError> {
    if end > size {
        return Err(LaunchError::new(format!("{what} is {size} bytes, but the struct's fields end at byte {end}")));
    }
    Ok(())
}

/// Allocates every buffer of struct pool entry `i` (each as entry `k` behind it) and then the
/// struct's bytes with their addresses filled in; returns the address of the bytes (the launch
/// copies them into the parameter).
pub(crate) fn allocate(
    global: &mut GlobalMemory,
    i: usize,
    bytes: &[u8],
    buffers: &[StructBuffer],
) -> Result<u64, ExecError> {
    let mut out = bytes.to_vec();
    for (k, b) in buffers.iter().enumerate() {
        let data = buffer_bytes(&b.spec, b.len)
            .map_err(|m| ExecError::InvalidLaunch { message: format!("params[{i}].struct buffer {k}: {m}") })?;
        let addr = global.allocate(data, RegionKind::Pointee(i, k)).wrapping_add(b.spec.offset.unwrap_or(0));
        let at = b.offset as usize;
        if let Some(slot) = out.get_mut(at..at + b.width) {
            write_le(slot, addr);
        }
    }
    Ok(global.allocate(out, RegionKind::Buffer(i)))
}

#[cfg(test)]
mod tests {
    use alloc::string::ToString;

    use crate::exec::launch::LaunchSetup;
    use crate::exec::plan::plan;

    const KERNEL: &str = ".version 7.0\n.target sm_80\n.address_size 64\n\
        .visible .entry k(.param .align 8 .b8 q[16], .param .u64 p)\n{\n\tret;\n}\n";

    /// The launch error for struct fields `fields` (and buffer `p`), or "" if it plans.
    fn error(fields: &str, p: &str) -> alloc::string::String {
        let json = alloc::format!(r#"{{"kernel": "k", "params": [{{"struct": [{fields}]}}, {{"buffer": {p}}}]}}"#);
        let (Ok(module), Ok(setup)) = (crate::ptx::compile(KERNEL), LaunchSetup::from_json(&json)) else {
            return "does not parse".to_string();
        };
        plan(&module, &setup).err().map(|e| e.message).unwrap_or_default()
    }

    const BUF: &str = r#"{"type": "s32", "len": 4}"#;

    #[test]
    fn struct_fields_are_checked() {
        // A 64-bit address at +0 and an s32 at +8 (bytes 8..12 of 16): fine.
        let ok = r#"{"offset": 0, "buffer": {"type": "s32", "len": 4}}, {"offset": 8, "scalar": {"type": "s32", "value": 3}}"#;
        assert_eq!(error(ok, BUF), "");
        // An address needs 8-byte alignment: +4 is refused.
        let e = error(r#"{"offset": 4, "buffer": {"type": "s32", "len": 4}}"#, BUF);
        assert_eq!(e, "params[0].struct[0]: offset 4 is not a multiple of the field's 8-byte size");
        // Neither kind, and both kinds.
        let e = error(r#"{"offset": 0}"#, BUF);
        assert_eq!(e, "params[0].struct[0]: a field needs exactly one of \"buffer\" and \"scalar\"");
        let both = r#"{"offset": 0, "buffer": {"type": "s32", "len": 4}, "scalar": {"type": "u64", "value": 1}}"#;
        assert!(error(both, BUF).contains("exactly one"));
        // An s32 at +12 ends at byte 16: fits; a u64 at +16 ends at 24 > 16.
        assert_eq!(error(r#"{"offset": 12, "scalar": {"type": "s32", "value": 1}}"#, BUF), "");
        let e = error(r#"{"offset": 16, "scalar": {"type": "u64", "value": 1}}"#, BUF);
        assert_eq!(e, "parameter 0 ('q', .b8[]) is 16 bytes, but the struct's fields end at byte 24");
        assert_eq!(error("", BUF), "params[0]: a struct needs at least one field");
    }

    #[test]
    fn struct_and_offset_round_trip_through_json() {
        // What the web app's JSON editor does: text → LaunchSetup → text → LaunchSetup.
        let json = r#"{"kernel": "k", "params": [{"struct": [{"offset": 0, "buffer": {"type": "s32", "len": 4, "offset": 8}}, {"offset": 8, "scalar": {"type": "s32", "value": 3}}]}, {"buffer": {"type": "f32", "len": 2}}]}"#;
        let first = LaunchSetup::from_json(json);
        let again = first.as_ref().map(|s| s.to_json()).map(|t| LaunchSetup::from_json(&t));
        assert!(matches!((&first, &again), (Ok(a), Ok(Ok(b))) if a == b));
        let text = first.map(|s| s.to_json()).unwrap_or_default();
        assert!(text.contains("\"struct\"") && text.contains("\"offset\": 8"), "{text}");
    }

    #[test]
    fn buffer_offsets_are_checked() {
        let ok = r#"{"offset": 0, "scalar": {"type": "u64", "value": 1}}"#;
        // 4 s32 = 16 bytes: offsets 0, 4, …, 16 (one past the end) are fine.
        assert_eq!(error(ok, r#"{"type": "s32", "len": 4, "offset": 16}"#), "");
        assert_eq!(
            error(ok, r#"{"type": "s32", "len": 4, "offset": 6}"#),
            "params[1]: offset 6 is not a multiple of the 4-byte element size of s32"
        );
        assert_eq!(
            error(ok, r#"{"type": "s32", "len": 4, "offset": 20}"#),
            "params[1]: offset 20 is past the end of the buffer (4 elements of s32: 16 bytes)"
        );
    }
}
