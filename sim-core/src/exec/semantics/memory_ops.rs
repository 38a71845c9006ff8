//! Memory instructions: `ld`/`ldu` and `st` (scalar and vector, every space, generic addressing),
//! `atom`/`red` (applied lane by lane in ascending lane order, which is the defined order of
//! atomics within a warp), and `cp.async` (performed at once: the copy is complete before the
//! next instruction, which satisfies every `wait_group`). Cache operators, eviction hints and
//! memory-order qualifiers change nothing functionally.
//!
//! ```text
//! ld.global.v4.f32 {%f1, %f2, %f3, %f4}, [%rd1];   // 16-byte aligned, four elements
//! atom.global.inc.u32 %r1, [%rd1], 101;             // old >= 101 ? 0 : old + 1
//! cp.async.ca.shared.global [to], [from], 16, 12;   // 12 bytes copied, 4 zero-filled
//! ```

use alloc::vec::Vec;

use super::super::memory::{AccessFault, FaultReason};
use super::super::program::{Dst, FMode, FloatOp, MemRef, Src};
use super::super::warp::{Env, Lanes, Warp, ZERO};
pub use super::access::{address, addresses, lanes, load, store, Accessed, MemCtx};
use super::access::{fast_load, fast_store, fault};
use super::float::{self};
use super::round;
use crate::ir::{AtomOp, Type};

fn extend(ty: Type, v: u64) -> u64 {
    let bits = ty.bits();
    if ty.is_signed_int() && bits < 64 {
        let sh = 64 - bits;
        (((v << sh) as i64) >> sh) as u64
    } else {
        v
    }
}

fn check_vector_alignment(mem: &MemCtx<'_>, m: &MemRef, addr: u64, total: u32) -> Result<(), AccessFault> {
    let space = m.space.unwrap_or_else(|| mem.layout.classify(addr).0);
    if total.is_power_of_two() && addr % u64::from(total) != 0 {
        return Err(fault(space, addr, total, FaultReason::Misaligned));
    }
    Ok(())
}

/// `ld`: one element per destination.
#[allow(clippy::too_many_arguments, reason = "the operands of one PTX instruction")]
pub fn exec_ld(
    w: &mut Warp,
    env: &Env,
    mem: &mut MemCtx<'_>,
    ty: Type,
    d: &[Dst],
    m: &MemRef,
    mask: u32,
    acc: &mut Accessed,
) -> Result<(), (usize, AccessFault)> {
    let size = ty.size_bytes();
    let addrs = addresses(w, env, m);
    acc.begin(m, size * d.len().max(1) as u32, &addrs, mask);
    if let [dst] = d {
        if let Some(v) = fast_load(mem, m.space, &addrs, mask, ty) {
            w.write(*dst, &v, mask);
            return Ok(());
        }
        let mut v = ZERO;
        for lane in lanes(mask) {
            v[lane] = extend(ty, load(mem, &mut w.local, m.space, addrs[lane], lane, size).map_err(|f| (lane, f))?);
        }
        w.write(*dst, &v, mask);
        return Ok(());
    }
    let mut vals: Vec<Lanes> = alloc::vec![ZERO; d.len()];
    for lane in lanes(mask) {
        let base = addrs[lane];
        check_vector_alignment(mem, m, base, size * d.len() as u32).map_err(|f| (lane, f))?;
        for (i, v) in vals.iter_mut().enumerate() {
            let a = base.wrapping_add(u64::from(size) * i as u64);
            v[lane] = extend(ty, load(mem, &mut w.local, m.space, a, lane, size).map_err(|f| (lane, f))?);
        }
    }
    for (dst, v) in d.iter().zip(&vals) {
        w.write(*dst, v, mask);
    }
    Ok(())
}

/// `st`: one element per source.
#[allow(clippy::too_many_arguments, reason = "the operands of one PTX instruction")]
pub fn exec_st(
    w: &mut Warp,
    env: &Env,
    mem: &mut MemCtx<'_>,
    ty: Type,
    s: &[Src],
    m: &MemRef,
    mask: u32,
    acc: &mut Accessed,
) -> Result<(), (usize, AccessFault)> {
    let size = ty.size_bytes();
    let addrs = addresses(w, env, m);
    acc.begin(m, size * s.len() as u32, &addrs, mask);
    if let [src] = s {
        let mut tmp = ZERO;
        let vals = *w.read(*src, env, &mut tmp);
        if fast_store(mem, m.space, &addrs, mask, size, &vals) {
            return Ok(());
        }
        for lane in lanes(mask) {
            store(mem, &mut w.local, m.space, addrs[lane], lane, size, vals[lane]).map_err(|f| (lane, f))?;
        }
        return Ok(());
    }
    for lane in lanes(mask) {
        let base = addrs[lane];
        check_vector_alignment(mem, m, base, size * s.len() as u32).map_err(|f| (lane, f))?;
        for (i, src) in s.iter().enumerate() {
            let v = w.read_lane(*src, lane, env);
            let a = base.wrapping_add(u64::from(size) * i as u64);
            store(mem, &mut w.local, m.space, a, lane, size, v).map_err(|f| (lane, f))?;
        }
    }
    Ok(())
}

/// The new memory value of an atomic `op` on `old` with operands `b` (and `c` for `cas`).
pub fn atomic(op: AtomOp, ty: Type, old: u64, b: u64, c: u64) -> u64 {
    let bits = ty.bits();
    let mask = if bits >= 64 { u64::MAX } else { (1 << bits) - 1 };
    let (o, b, c) = (old & mask, b & mask, c & mask);
    let r = match op {
        AtomOp::And => o & b,
        AtomOp::Or => o | b,
        AtomOp::Xor => o ^ b,
        AtomOp::Exch => b,
        AtomOp::Cas if o == b => c,
        AtomOp::Cas => o,
        AtomOp::Inc if o >= b => 0,
        AtomOp::Inc => o + 1,
        AtomOp::Dec if o == 0 || o > b => b,
        AtomOp::Dec => o - 1,
        AtomOp::Add => atomic_add(ty, o, b),
        AtomOp::Min | AtomOp::Max if takes(op == AtomOp::Max, ty, o, b) => b,
        AtomOp::Min | AtomOp::Max => o,
    };
    r & mask
}

/// Atomic addition: integers wrap; `f32` rounds to nearest and flushes subnormals (as PTX
/// defines `atom.add.f32`); `f64`, `f16`, `bf16` (and their pairs) round to nearest.
fn atomic_add(ty: Type, o: u64, b: u64) -> u64 {
    let plain = FMode::PLAIN;
    let halves = |fmt, n: u32| {
        (0..n).fold(0u64, |r, h| {
            r | (float::small(FloatOp::Add, plain, fmt, o >> (16 * h), b >> (16 * h), 0) << (16 * h))
        })
    };
    match ty {
        Type::F32 => float::f32_lane(FloatOp::Add, FMode { ftz: true, ..plain }, o, b, 0),
        Type::F64 => float::f64_lane(FloatOp::Add, plain, o, b, 0),
        Type::F16 => halves(round::F16, 1),
        Type::F16x2 => halves(round::F16, 2),
        Type::Bf16 => halves(round::BF16, 1),
        Type::Bf16x2 => halves(round::BF16, 2),
        _ => o.wrapping_add(b),
    }
}

/// True if `atom.min`/`atom.max` replaces the old value `o` by `b`.
fn takes(max: bool, ty: Type, o: u64, b: u64) -> bool {
    let bits = ty.bits().clamp(1, 64);
    let sx = |v: u64| ((v << (64 - bits)) as i64) >> (64 - bits);
    let order = match ty {
        Type::F32 => f32::from_bits(b as u32).partial_cmp(&f32::from_bits(o as u32)),
        Type::F64 => f64::from_bits(b).partial_cmp(&f64::from_bits(o)),
        _ if ty.is_signed_int() => Some(sx(b).cmp(&sx(o))),
        _ => Some(b.cmp(&o)),
    };
    match order {
        Some(core::cmp::Ordering::Greater) => max,
        Some(core::cmp::Ordering::Less) => !max,
        _ => false,
    }
}

/// `atom` / `red` (with `d` = [`Dst::Sink`]): lane by lane in ascending lane order.
#[allow(clippy::too_many_arguments, reason = "the operands of one PTX instruction")]
pub fn exec_atom(
    w: &mut Warp,
    env: &Env,
    mem: &mut MemCtx<'_>,
    op: AtomOp,
    ty: Type,
    d: Dst,
    m: &MemRef,
    b: Src,
    c: Src,
    mask: u32,
    acc: &mut Accessed,
) -> Result<(), (usize, AccessFault)> {
    let size = ty.size_bytes();
    let mut out = ZERO;
    let addrs = addresses(w, env, m);
    acc.begin(m, size, &addrs, mask);
    for (lane, slot) in out.iter_mut().enumerate() {
        if (mask >> lane) & 1 == 0 {
            continue;
        }
        let a = addrs[lane];
        let (bv, cv) = (w.read_lane(b, lane, env), w.read_lane(c, lane, env));
        let old = load(mem, &mut w.local, m.space, a, lane, size).map_err(|f| (lane, f))?;
        store(mem, &mut w.local, m.space, a, lane, size, atomic(op, ty, old, bv, cv)).map_err(|f| (lane, f))?;
        *slot = extend(ty, old);
    }
    w.write(d, &out, mask);
    Ok(())
}

/// `cp.async`: copies `size` bytes, of which the first `src_size` come from the source and the
/// rest are zeros.
#[allow(clippy::too_many_arguments, reason = "the operands of one PTX instruction")]
pub fn exec_cp_async(
    w: &mut Warp,
    env: &Env,
    mem: &mut MemCtx<'_>,
    dst: &MemRef,
    src: &MemRef,
    size: u32,
    src_size: Option<Src>,
    mask: u32,
    acc: &mut Accessed,
) -> Result<(), (usize, AccessFault)> {
    let (dsts, srcs) = (addresses(w, env, dst), addresses(w, env, src));
    acc.begin(src, size, &srcs, mask);
    for lane in lanes(mask) {
        let (da, sa) = (dsts[lane], srcs[lane]);
        let n = src_size.map_or(u64::from(size), |s| w.read_lane(s, lane, env).min(u64::from(size))) as u32;
        for i in 0..size {
            let v = if i < n {
                load(mem, &mut w.local, src.space, sa.wrapping_add(u64::from(i)), lane, 1).map_err(|f| (lane, f))?
            } else {
                0
            };
            store(mem, &mut w.local, dst.space, da.wrapping_add(u64::from(i)), lane, 1, v).map_err(|f| (lane, f))?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn atomics() {
        assert_eq!(atomic(AtomOp::Inc, Type::U32, 100, 101, 0), 101);
        assert_eq!(atomic(AtomOp::Inc, Type::U32, 101, 101, 0), 0);
        assert_eq!(atomic(AtomOp::Dec, Type::U32, 0, 5, 0), 5);
        assert_eq!(atomic(AtomOp::Cas, Type::B32, 91, 91, 100), 100);
        assert_eq!(atomic(AtomOp::Min, Type::S32, 5, 0xFFFF_FFFF, 0), 0xFFFF_FFFF);
        assert_eq!(atomic(AtomOp::Max, Type::U32, 5, 0xFFFF_FFFF, 0), 0xFFFF_FFFF);
        let r = atomic(AtomOp::Add, Type::F32, u64::from(1.5f32.to_bits()), u64::from(2.0f32.to_bits()), 0);
        assert_eq!(r, u64::from(3.5f32.to_bits()));
    }
}
