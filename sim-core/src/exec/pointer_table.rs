//! Pointer tables: a launch parameter `{"pointers": [buffer, buffer, …]}` for a `T**` kernel
//! parameter. Each entry is allocated as its own buffer, then the table itself, holding their
//! addresses as address-width little-endian integers; the parameter receives the table's address.
//! Texture objects (`{"texture": …}`) are allocated here too (`exec::texture`). After the run, the
//! entries of a table that is an output are reported by table and entry.
//!
//! ```text
//! .entry k(.param .u64 imgs)          // float **imgs
//! ld.param.u64 %rd1, [imgs]; mul.wide.u32 %rd2, %ctaid.x, 8; add.u64 %rd3, %rd1, %rd2;
//! ld.global.u64 %rd4, [%rd3];         // imgs[ctaid.x]: the address of entry ctaid.x
//! ld.global.f32 %f1, [%rd4];          // imgs[ctaid.x][0]
//! {"pointers": [{"type": "f32", "len": 64, "init": "random:1"}, {"type": "f32", "len": 64}]}
//! ```

use alloc::collections::BTreeMap;
use alloc::format;
use alloc::vec::Vec;

use super::error::ExecError;
use super::launch::buffer_bytes;
use super::memory::{read_le, write_le, GlobalMemory, RegionKind};
use super::plan::{Plan, PoolEntry};
use super::value::Value;

/// Allocates pool entry `i` in `global`: a buffer (and, for a pointer table, every buffer it
/// points to, before the table) and returns its address; `None` for a scalar.
pub fn allocate(global: &mut GlobalMemory, i: usize, entry: &PoolEntry) -> Result<Option<u64>, ExecError> {
    if let PoolEntry::Struct { bytes, buffers } = entry {
        return super::launch_struct::allocate(global, i, bytes, buffers).map(Some);
    }
    let PoolEntry::Buffer { ty, len, spec, pointees, texture } = entry else { return Ok(None) };
    let invalid = |m: alloc::string::String| ExecError::InvalidLaunch { message: m };
    if let Some(t) = texture {
        let at = format!("params[{i}]");
        return super::texture::allocate(global, t, RegionKind::Buffer(i), &at).map(Some).map_err(invalid);
    }
    let mut bytes = buffer_bytes(spec, *len).map_err(|m| invalid(format!("params[{i}]: {m}")))?;
    let width = ty.size();
    for (k, (plen, pspec)) in pointees.iter().enumerate() {
        let data = buffer_bytes(pspec, *plen).map_err(|m| invalid(format!("params[{i}].pointers[{k}]: {m}")))?;
        let addr = global.allocate(data, RegionKind::Pointee(i, k));
        if let Some(slot) = bytes.get_mut(k * width..(k + 1) * width) {
            write_le(slot, addr.wrapping_add(pspec.offset.unwrap_or(0)));
        }
    }
    Ok(Some(global.allocate(bytes, RegionKind::Buffer(i))))
}

/// The contents of every buffer behind each output pointer table, by pool index then entry.
pub fn outputs(plan: &Plan, global: &GlobalMemory) -> BTreeMap<usize, Vec<Vec<Value>>> {
    let mut out: BTreeMap<usize, Vec<Vec<Value>>> = BTreeMap::new();
    for r in global.regions() {
        let RegionKind::Pointee(i, k) = r.kind else { continue };
        let Some(PoolEntry::Buffer { pointees, .. }) = plan.pool.get(i) else { continue };
        let Some((_, spec)) = pointees.get(k) else { continue };
        if !plan.outputs.contains(&i) {
            continue;
        }
        let bytes = r.data.get(..r.len as usize).unwrap_or(&[]);
        let values = bytes.chunks_exact(spec.ty.size()).map(|c| Value::from_bits(read_le(c), spec.ty)).collect();
        out.entry(i).or_default().push(values);
    }
    out
}
