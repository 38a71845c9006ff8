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

use super::super::memory::{
    read_le, write_le, AccessFault, AddressLayout, FaultReason, GlobalMemory, LocalMemory, Space,
};
use super::super::program::{Dst, MemRef, Src};
use super::super::warp::{Env, Lanes, Warp, ZERO};
use super::float::{self};
use super::round;
use crate::ir::{AtomOp, Type};

/// The memories an instruction of one warp can reach (besides the warp's local memory).
pub struct MemCtx<'a> {
    /// Address layout.
    pub layout: AddressLayout,
    /// Global memory.
    pub global: &'a mut GlobalMemory,
    /// Constant bank.
    pub consts: &'a [u8],
    /// Kernel parameter bank.
    pub params: &'a [u8],
    /// The CTA's shared memory.
    pub shared: &'a mut [u8],
}

/// Per-lane addresses of the last memory instruction (for the instruction stream).
#[derive(Clone, Debug, Default)]
pub struct Accessed {
    /// Record addresses (only when a stream is being recorded).
    pub enabled: bool,
    /// Space of the accesses.
    pub space: Option<Space>,
    /// Bytes per lane.
    pub bytes: u32,
    /// One address per executing lane, in lane order.
    pub addrs: Vec<u64>,
}

impl Accessed {
    /// Starts recording an instruction's accesses.
    pub fn begin(&mut self, m: &MemRef, bytes: u32, addrs: &Lanes, mask: u32) {
        self.space = m.space;
        self.bytes = bytes;
        self.addrs.clear();
        if self.enabled {
            self.addrs.extend(lanes(mask).map(|l| addrs[l]));
        }
    }
}

fn fault(space: Space, address: u64, size: u32, reason: FaultReason) -> AccessFault {
    AccessFault { space, address, size, reason }
}

/// The lanes set in `mask`, in ascending order.
#[inline]
pub fn lanes(mask: u32) -> impl Iterator<Item = usize> {
    let mut m = mask;
    core::iter::from_fn(move || {
        if m == 0 {
            return None;
        }
        let l = m.trailing_zeros() as usize;
        m &= m - 1;
        Some(l)
    })
}

#[inline]
fn bank(bytes: &[u8], off: u64, size: u32) -> Option<&[u8]> {
    let start = usize::try_from(off).ok()?;
    bytes.get(start..start.checked_add(size as usize)?)
}

#[inline]
fn bank_mut(bytes: &mut [u8], off: u64, size: u32) -> Option<&mut [u8]> {
    let start = usize::try_from(off).ok()?;
    bytes.get_mut(start..start.checked_add(size as usize)?)
}

#[inline]
fn resolve(mem: &MemCtx<'_>, space: Option<Space>, addr: u64, size: u32) -> Result<(Space, u64), AccessFault> {
    let (s, off) = match space {
        Some(s) => (s, addr),
        None => mem.layout.classify(addr),
    };
    if off & u64::from(size.max(1) - 1) != 0 {
        return Err(fault(s, addr, size, FaultReason::Misaligned));
    }
    Ok((s, off))
}

/// Reads `size` bytes (1, 2, 4 or 8) for `lane`.
#[inline]
pub fn load(
    mem: &mut MemCtx<'_>,
    local: &mut LocalMemory,
    space: Option<Space>,
    addr: u64,
    lane: usize,
    size: u32,
) -> Result<u64, AccessFault> {
    let (s, off) = resolve(mem, space, addr, size)?;
    let oob = fault(s, addr, size, FaultReason::OutOfBounds);
    let bytes: &[u8] = match s {
        Space::Global => mem.global.slice_mut(off, size).map_err(|_| oob)?,
        Space::Shared => bank(mem.shared, off, size).ok_or(oob)?,
        Space::Local => local.slice_mut(lane, off, size).ok_or(oob)?,
        Space::Const => bank(mem.consts, off, size).ok_or(oob)?,
        Space::Param => bank(mem.params, off, size).ok_or(oob)?,
    };
    Ok(read_le(bytes))
}

/// Writes the low `size` bytes of `v` for `lane`.
#[allow(clippy::too_many_arguments, reason = "an address, a lane and a value")]
#[inline]
pub fn store(
    mem: &mut MemCtx<'_>,
    local: &mut LocalMemory,
    space: Option<Space>,
    addr: u64,
    lane: usize,
    size: u32,
    v: u64,
) -> Result<(), AccessFault> {
    let (s, off) = resolve(mem, space, addr, size)?;
    let oob = fault(s, addr, size, FaultReason::OutOfBounds);
    let bytes: &mut [u8] = match s {
        Space::Global => mem.global.slice_mut(off, size).map_err(|_| oob)?,
        Space::Shared => bank_mut(mem.shared, off, size).ok_or(oob)?,
        Space::Local => local.slice_mut(lane, off, size).ok_or(oob)?,
        Space::Const | Space::Param => return Err(fault(s, addr, size, FaultReason::ReadOnly)),
    };
    write_le(bytes, v);
    Ok(())
}

/// The address of `m` in `lane`.
pub fn address(w: &Warp, env: &Env, m: &MemRef, lane: usize) -> u64 {
    w.read_lane(m.base, lane, env).wrapping_add(m.offset as u64)
}

/// The address of `m` in every lane.
#[inline]
pub fn addresses(w: &Warp, env: &Env, m: &MemRef) -> Lanes {
    let mut tmp = ZERO;
    let base = w.read(m.base, env, &mut tmp);
    let mut out = ZERO;
    for (o, b) in out.iter_mut().zip(base) {
        *o = b.wrapping_add(m.offset as u64);
    }
    out
}

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

/// One window of bytes holding every lane's access, and the address of its first byte.
fn window<'m>(
    mem: &'m mut MemCtx<'_>,
    space: Option<Space>,
    addrs: &Lanes,
    mask: u32,
    size: u32,
) -> Option<(&'m mut [u8], u64)> {
    let (lo, hi) = lanes(mask).fold((u64::MAX, 0u64), |(lo, hi), l| (lo.min(addrs[l]), hi.max(addrs[l])));
    let hi = hi.checked_add(u64::from(size))?;
    let space = match space {
        Some(s) => s,
        None => {
            let (s, _) = mem.layout.classify(lo);
            if s != mem.layout.classify(hi - 1).0 || s != Space::Global {
                return None;
            }
            s
        }
    };
    match space {
        Space::Shared => (hi <= mem.shared.len() as u64).then_some((&mut *mem.shared, 0)),
        Space::Global => mem.global.window(lo, hi),
        _ => None,
    }
}

/// A scalar load of every lane from one window (the common, in-bounds case), or `None`.
fn fast_load(mem: &mut MemCtx<'_>, space: Option<Space>, addrs: &Lanes, mask: u32, ty: Type) -> Option<Lanes> {
    let size = ty.size_bytes();
    let (bytes, base) = window(mem, space, addrs, mask, size)?;
    let mut v = ZERO;
    let sh = 64 - ty.bits().min(64);
    let signed = ty.is_signed_int();
    for lane in lanes(mask) {
        let off = (addrs[lane] - base) as usize;
        if off % size as usize != 0 {
            return None;
        }
        let raw = read_le(bytes.get(off..off + size as usize)?);
        v[lane] = if signed { (((raw << sh) as i64) >> sh) as u64 } else { raw };
    }
    Some(v)
}

/// A scalar store of every lane into one window, or `false` (nothing written) to take the
/// lane-by-lane path.
fn fast_store(mem: &mut MemCtx<'_>, space: Option<Space>, addrs: &Lanes, mask: u32, size: u32, vals: &Lanes) -> bool {
    let Some((bytes, base)) = window(mem, space, addrs, mask, size) else { return false };
    if lanes(mask).any(|l| (addrs[l] - base) % u64::from(size) != 0) {
        return false;
    }
    for lane in lanes(mask) {
        let off = (addrs[lane] - base) as usize;
        if let Some(b) = bytes.get_mut(off..off + size as usize) {
            write_le(b, vals[lane]);
        }
    }
    true
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
    let signed = ty.is_signed_int();
    let sx = |v: u64| ((v << (64 - bits)) as i64) >> (64 - bits);
    let r = match op {
        AtomOp::And => o & b,
        AtomOp::Or => o | b,
        AtomOp::Xor => o ^ b,
        AtomOp::Exch => b,
        AtomOp::Cas => {
            if o == b {
                c
            } else {
                o
            }
        }
        AtomOp::Inc => {
            if o >= b {
                0
            } else {
                o + 1
            }
        }
        AtomOp::Dec => {
            if o == 0 || o > b {
                b
            } else {
                o - 1
            }
        }
        AtomOp::Add => match ty {
            Type::F32 => {
                let m = super::super::program::FMode { ftz: true, ..super::super::program::FMode::PLAIN };
                float::f32_lane(super::super::program::FloatOp::Add, m, o, b, 0)
            }
            Type::F64 => {
                float::f64_lane(super::super::program::FloatOp::Add, super::super::program::FMode::PLAIN, o, b, 0)
            }
            Type::F16 | Type::F16x2 | Type::Bf16 | Type::Bf16x2 => {
                let (fmt, halves) = match ty {
                    Type::F16 => (round::F16, 1),
                    Type::F16x2 => (round::F16, 2),
                    Type::Bf16 => (round::BF16, 1),
                    _ => (round::BF16, 2),
                };
                let mut r = 0;
                for h in 0..halves {
                    let sh = 16 * h;
                    r |= float::small(
                        super::super::program::FloatOp::Add,
                        super::super::program::FMode::PLAIN,
                        fmt,
                        o >> sh,
                        b >> sh,
                        0,
                    ) << sh;
                }
                r
            }
            _ => o.wrapping_add(b),
        },
        AtomOp::Min | AtomOp::Max => {
            let max = op == AtomOp::Max;
            let pick_b = match ty {
                Type::F32 | Type::F64 => {
                    let (x, y) = if ty == Type::F32 {
                        (f64::from(f32::from_bits(o as u32)), f64::from(f32::from_bits(b as u32)))
                    } else {
                        (f64::from_bits(o), f64::from_bits(b))
                    };
                    if max {
                        y > x
                    } else {
                        y < x
                    }
                }
                _ if signed => {
                    if max {
                        sx(b) > sx(o)
                    } else {
                        sx(b) < sx(o)
                    }
                }
                _ => {
                    if max {
                        b > o
                    } else {
                        b < o
                    }
                }
            };
            if pick_b {
                b
            } else {
                o
            }
        }
    };
    r & mask
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
