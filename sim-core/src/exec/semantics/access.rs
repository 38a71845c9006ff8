//! Memory access for one warp: the memories an instruction can reach ([`MemCtx`]), checked loads
//! and stores of one lane in any space (generic addresses resolved through their windows), and
//! the fast path of a whole warp's scalar access inside one allocation.
//!
//! ```text
//! ld.shared.f32 %f1, [%r6];   // one window (the CTA's shared memory): 32 checked reads
//! ld.f32 %f1, [%rd4];          // generic: each lane's window, or one buffer for all lanes
//! ```

use alloc::vec::Vec;

use super::super::memory::{
    read_le, write_le, AccessFault, AddressLayout, FaultReason, GlobalMemory, LocalMemory, Space,
};
use super::super::program::MemRef;
use super::super::warp::{Env, Lanes, Warp, ZERO};
use crate::ir::Type;

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
            if mask == u32::MAX {
                self.addrs.extend_from_slice(addrs);
            } else {
                self.addrs.extend(lanes(mask).map(|l| addrs[l]));
            }
        }
    }
}

pub(super) fn fault(space: Space, address: u64, size: u32, reason: FaultReason) -> AccessFault {
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

/// The lowest and highest address of the lanes in `mask` (`(u64::MAX, 0)` for none). A full
/// warp is scanned in four independent chains, not one lane after another.
#[inline]
fn span(addrs: &Lanes, mask: u32) -> (u64, u64) {
    if mask != u32::MAX {
        return lanes(mask).fold((u64::MAX, 0u64), |(lo, hi), l| (lo.min(addrs[l]), hi.max(addrs[l])));
    }
    let (mut lo, mut hi) = ([u64::MAX; 4], [0u64; 4]);
    for chunk in addrs.chunks_exact(4) {
        for ((l, h), &a) in lo.iter_mut().zip(hi.iter_mut()).zip(chunk) {
            *l = (*l).min(a);
            *h = (*h).max(a);
        }
    }
    (lo[0].min(lo[1]).min(lo[2].min(lo[3])), hi[0].max(hi[1]).max(hi[2].max(hi[3])))
}

/// One window of bytes holding every lane's access, and the address of its first byte.
fn window<'m>(
    mem: &'m mut MemCtx<'_>,
    space: Option<Space>,
    addrs: &Lanes,
    mask: u32,
    size: u32,
) -> Option<(&'m mut [u8], u64)> {
    let (lo, hi) = span(addrs, mask);
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
pub(super) fn fast_load(
    mem: &mut MemCtx<'_>,
    space: Option<Space>,
    addrs: &Lanes,
    mask: u32,
    ty: Type,
) -> Option<Lanes> {
    let size = ty.size_bytes();
    let (bytes, base) = window(mem, space, addrs, mask, size)?;
    let mut v = match size {
        4 => gather::<4>(bytes, base, addrs, mask)?,
        8 => gather::<8>(bytes, base, addrs, mask)?,
        2 => gather::<2>(bytes, base, addrs, mask)?,
        1 => gather::<1>(bytes, base, addrs, mask)?,
        _ => return None,
    };
    if ty.is_signed_int() {
        let sh = 64 - ty.bits().min(64);
        for lane in lanes(mask) {
            v[lane] = (((v[lane] << sh) as i64) >> sh) as u64;
        }
    }
    Some(v)
}

/// Every lane's `N`-byte little-endian value from `bytes` (which starts at address `base`),
/// zero-extended; `None` if a lane's address is not a multiple of `N` or falls outside.
#[inline]
fn gather<const N: usize>(bytes: &[u8], base: u64, addrs: &Lanes, mask: u32) -> Option<Lanes> {
    let mut v = ZERO;
    let mut one = |lane: usize| -> Option<()> {
        let off = addrs[lane].wrapping_sub(base) as usize;
        if off % N != 0 {
            return None;
        }
        let raw: [u8; N] = bytes.get(off..off.checked_add(N)?)?.try_into().ok()?;
        let mut wide = [0u8; 8];
        if let Some(w) = wide.get_mut(..N) {
            w.copy_from_slice(&raw);
        }
        v[lane] = u64::from_le_bytes(wide);
        Some(())
    };
    if mask == u32::MAX {
        for lane in 0..32 {
            one(lane)?;
        }
    } else {
        for lane in lanes(mask) {
            one(lane)?;
        }
    }
    Some(v)
}

/// A scalar store of every lane into one window, or `false` (nothing written) to take the
/// lane-by-lane path.
pub(super) fn fast_store(
    mem: &mut MemCtx<'_>,
    space: Option<Space>,
    addrs: &Lanes,
    mask: u32,
    size: u32,
    vals: &Lanes,
) -> bool {
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
