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
    /// Space of the accesses.
    pub space: Option<Space>,
    /// Bytes per lane.
    pub bytes: u32,
    /// One address per executing lane, in lane order.
    pub addrs: Vec<u64>,
}

fn fault(space: Space, address: u64, size: u32, reason: FaultReason) -> AccessFault {
    AccessFault { space, address, size, reason }
}

/// The bytes at `addr` in `space` (generic if `None`) for `lane`.
fn slot<'m>(
    mem: &'m mut MemCtx<'_>,
    local: &'m mut LocalMemory,
    space: Option<Space>,
    addr: u64,
    lane: usize,
    size: u32,
    write: bool,
) -> Result<&'m mut [u8], AccessFault> {
    let (space, off) = match space {
        Some(s) => (s, addr),
        None => mem.layout.classify(addr),
    };
    if off % u64::from(size.max(1)) != 0 {
        return Err(fault(space, addr, size, FaultReason::Misaligned));
    }
    let oob = fault(space, addr, size, FaultReason::OutOfBounds);
    let range = |len: usize| -> Result<core::ops::Range<usize>, AccessFault> {
        let start = usize::try_from(off).map_err(|_| oob)?;
        let end = start.checked_add(size as usize).ok_or(oob)?;
        if end > len {
            return Err(oob);
        }
        Ok(start..end)
    };
    match space {
        Space::Global => mem.global.slice_mut(off, size).map_err(|f| AccessFault { address: addr, ..f }),
        Space::Shared => {
            let r = range(mem.shared.len())?;
            mem.shared.get_mut(r).ok_or(oob)
        }
        Space::Local => local.slice_mut(lane, off, size).ok_or(oob),
        Space::Const | Space::Param if write => Err(fault(space, addr, size, FaultReason::ReadOnly)),
        Space::Const | Space::Param => Err(fault(space, addr, size, FaultReason::OutOfBounds)),
    }
}

/// Reads `size` bytes (at most 8) for `lane`.
pub fn load(
    mem: &mut MemCtx<'_>,
    local: &mut LocalMemory,
    space: Option<Space>,
    addr: u64,
    lane: usize,
    size: u32,
) -> Result<u64, AccessFault> {
    let (s, off) = match space {
        Some(s) => (s, addr),
        None => mem.layout.classify(addr),
    };
    if matches!(s, Space::Const | Space::Param) {
        let bank = if s == Space::Const { mem.consts } else { mem.params };
        let oob = fault(s, addr, size, FaultReason::OutOfBounds);
        let start = usize::try_from(off).map_err(|_| oob)?;
        if start % size.max(1) as usize != 0 {
            return Err(fault(s, addr, size, FaultReason::Misaligned));
        }
        return bank.get(start..start.checked_add(size as usize).ok_or(oob)?).map(read_le).ok_or(oob);
    }
    slot(mem, local, space, addr, lane, size, false).map(|b| read_le(b))
}

/// Writes the low `size` bytes of `v` for `lane`.
#[allow(clippy::too_many_arguments, reason = "an address, a lane and a value")]
pub fn store(
    mem: &mut MemCtx<'_>,
    local: &mut LocalMemory,
    space: Option<Space>,
    addr: u64,
    lane: usize,
    size: u32,
    v: u64,
) -> Result<(), AccessFault> {
    slot(mem, local, space, addr, lane, size, true).map(|b| write_le(b, v))
}

/// The address of `m` in `lane`.
pub fn address(w: &Warp, env: &Env, m: &MemRef, lane: usize) -> u64 {
    w.read_lane(m.base, lane, env).wrapping_add(m.offset as u64)
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
    let n = d.len().max(1);
    let mut vals: Vec<Lanes> = alloc::vec![ZERO; n];
    begin(acc, m, size * n as u32);
    for lane in 0..32 {
        if (mask >> lane) & 1 == 0 {
            continue;
        }
        let base = address(w, env, m, lane);
        acc.addrs.push(base);
        check_vector_alignment(mem, m, base, size * n as u32).map_err(|f| (lane, f))?;
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

fn begin(acc: &mut Accessed, m: &MemRef, bytes: u32) {
    acc.space = m.space;
    acc.bytes = bytes;
    acc.addrs.clear();
}

fn check_vector_alignment(mem: &MemCtx<'_>, m: &MemRef, addr: u64, total: u32) -> Result<(), AccessFault> {
    let space = m.space.unwrap_or_else(|| mem.layout.classify(addr).0);
    if total.is_power_of_two() && addr % u64::from(total) != 0 {
        return Err(fault(space, addr, total, FaultReason::Misaligned));
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
    begin(acc, m, size * s.len() as u32);
    for lane in 0..32 {
        if (mask >> lane) & 1 == 0 {
            continue;
        }
        let base = address(w, env, m, lane);
        acc.addrs.push(base);
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
    begin(acc, m, size);
    for (lane, slot) in out.iter_mut().enumerate() {
        if (mask >> lane) & 1 == 0 {
            continue;
        }
        let a = address(w, env, m, lane);
        acc.addrs.push(a);
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
    begin(acc, src, size);
    for lane in 0..32 {
        if (mask >> lane) & 1 == 0 {
            continue;
        }
        let (da, sa) = (address(w, env, dst, lane), address(w, env, src, lane));
        acc.addrs.push(sa);
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
