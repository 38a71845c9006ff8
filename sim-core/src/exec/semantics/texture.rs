//! Texture fetches: `tex.1d`/`tex.2d` (texture references and objects, integer or float
//! coordinates) and `tld4.{r,g,b,a}.2d`, following the CUDA C Programming Guide's "Texture
//! Fetching" appendix. The handle leads to a descriptor (`exec::texture`); coordinates are
//! scaled by the size when normalized; the address mode maps every texel index into the texture
//! (clamp to the edge, wrap around, or a zero border); point filtering reads texel ⌊x⌋, linear
//! filtering mixes texels i = ⌊x − 0.5⌋ and i + 1 with the weight α = frac(x − 0.5) held in 9-bit
//! fixed point with 8 fraction bits (rounded to the nearest 1/256), bilinearly in 2D:
//!
//! ```text
//! tex(x, y) = (1−α)(1−β)T[i, j] + α(1−β)T[i+1, j] + (1−α)βT[i, j+1] + αβT[i+1, j+1]
//! tld4.r(x, y) = (T[i, j+1].r, T[i+1, j+1].r, T[i+1, j].r, T[i, j].r)
//! ```
//!
//! Integer coordinates (`tex.1d.v4.f32.s32`, what `tex1Dfetch` compiles to) read texel (x, y)
//! with the address mode and no filtering. Channels a texture lacks read 0, alpha 1. Integer
//! channels read into a float destination are normalized (`u8` 255 → 1.0) when 8 or 16 bits
//! wide; integer destinations get the integer. Each fetch reads its texels from global memory,
//! and the instruction stream records it as a global load of the first texel of each lane (the
//! timing model sends it through the L1/texture cache path).

use super::super::memory::{AccessFault, FaultReason, Space};
use super::super::program::{Dst, Src};
use super::super::texture::{AddressMode, Descriptor, Filter, DESCRIPTOR_BYTES};
use super::super::value::ElemType;
use super::super::warp::{Env, Warp, ZERO};
use super::access::{lanes, load, Accessed, MemCtx};
use crate::ir::Type;
use alloc::boxed::Box;

/// Why a fetch through handle 0 cannot run.
pub const UNBOUND: &str = "the texture is not bound: bind a texture reference in the setup's \"textures\" (by name), pass a texture object as a {\"texture\": …} parameter";

/// A decoded `tex` or `tld4`.
#[derive(Clone, Debug, PartialEq)]
pub struct TexOp {
    /// 1 or 2 coordinates.
    pub dims: usize,
    /// `tld4`: the component gathered (0 r, 1 g, 2 b, 3 a).
    pub gather: Option<usize>,
    /// Destination type (`f32`, `s32` or `u32`).
    pub dty: Type,
    /// Coordinate type (`f32` or `s32`).
    pub cty: Type,
    /// Destinations (up to four).
    pub d: Box<[Dst]>,
    /// The handle, or where to read it (a `.texref` variable, a parameter).
    pub handle: Src,
    /// The space `handle` is an address in, if the handle is read from memory.
    pub handle_space: Option<Space>,
    /// Coordinates.
    pub coords: Box<[Src]>,
}

/// Coordinates of one lane.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Coords {
    /// Texel coordinates (no filtering).
    Int([i64; 2]),
    /// Float coordinates (normalized or not, per the descriptor).
    Float([f64; 2]),
}

/// Reads `size` bytes of global memory at an address.
pub type Reader<'r> = dyn FnMut(u64, u32) -> Result<u64, AccessFault> + 'r;

/// The texel index `i` of a side of `n` texels under `mode`; `None`: the border.
pub fn address(i: i64, n: u32, mode: AddressMode) -> Option<i64> {
    let n = i64::from(n.max(1));
    match mode {
        AddressMode::Clamp => Some(i.clamp(0, n - 1)),
        AddressMode::Wrap => Some(i.rem_euclid(n)),
        AddressMode::Border => (0..n).contains(&i).then_some(i),
    }
}

/// A linear-filtering weight as the hardware holds it: 8 fraction bits, rounded to nearest.
pub fn weight(frac: f64) -> f64 {
    libm::floor(frac * 256.0 + 0.5) / 256.0
}

fn channel(d: &Descriptor, bits: u64, float_dest: bool) -> f64 {
    let ty = d.ty;
    if ty.is_float() {
        return ty.float_value(bits);
    }
    let size = ty.size() as u32 * 8;
    let v = if ty.is_signed() { ((bits << (64 - size)) as i64 >> (64 - size)) as f64 } else { bits as f64 };
    if float_dest && size <= 16 {
        let max = if ty.is_signed() { ((1u64 << (size - 1)) - 1) as f64 } else { ((1u64 << size) - 1) as f64 };
        return (v / max).max(-1.0);
    }
    v
}

/// The address of texel (i, j).
pub fn texel_address(d: &Descriptor, i: i64, j: i64) -> u64 {
    let index = (j as u64 * u64::from(d.width) + i as u64) * u64::from(d.channels);
    d.data.wrapping_add(index * d.ty.size() as u64)
}

/// Texel (i, j) after the address mode: four channels (missing ones 0, alpha 1).
fn texel(d: &Descriptor, i: i64, j: i64, float_dest: bool, read: &mut Reader<'_>) -> Result<[f64; 4], AccessFault> {
    let (Some(i), Some(j)) = (address(i, d.width, d.address), address(j, d.height, d.address)) else {
        return Ok([0.0; 4]);
    };
    let mut out = [0.0, 0.0, 0.0, 1.0];
    let base = texel_address(d, i, j);
    let size = d.ty.size() as u32;
    for (c, o) in out.iter_mut().enumerate().take(d.channels as usize) {
        *o = channel(d, read(base + u64::from(size) * c as u64, size)?, float_dest);
    }
    Ok(out)
}

fn scaled(d: &Descriptor, c: [f64; 2]) -> [f64; 2] {
    let side = [f64::from(d.width), f64::from(d.height)];
    let mut out = c;
    if d.normalized {
        for (o, n) in out.iter_mut().zip(side) {
            if d.address == AddressMode::Wrap {
                *o -= libm::floor(*o);
            }
            *o *= n;
        }
    }
    out
}

/// `tex`: the four components at `coords` of a `dims`-dimensional fetch.
pub fn fetch(
    d: &Descriptor,
    dims: usize,
    coords: Coords,
    float_dest: bool,
    read: &mut Reader<'_>,
) -> Result<[f64; 4], AccessFault> {
    let c = match coords {
        Coords::Int([x, y]) => return texel(d, x, if dims > 1 { y } else { 0 }, float_dest, read),
        Coords::Float(c) => scaled(d, c),
    };
    let y = if dims > 1 { c[1] } else { 0.0 };
    if d.filter == Filter::Point || !float_dest {
        return texel(d, libm::floor(c[0]) as i64, libm::floor(y) as i64, float_dest, read);
    }
    let (xb, yb) = (c[0] - 0.5, y - 0.5);
    let (i, j) = (libm::floor(xb), libm::floor(yb));
    let a = weight(xb - i);
    let (i, j) = (i as i64, j as i64);
    let t00 = texel(d, i, if dims > 1 { j } else { 0 }, true, read)?;
    let t10 = texel(d, i + 1, if dims > 1 { j } else { 0 }, true, read)?;
    let mut out = [0.0; 4];
    if dims == 1 {
        for (k, o) in out.iter_mut().enumerate() {
            *o = (1.0 - a) * t00[k] + a * t10[k];
        }
        return Ok(out);
    }
    let b = weight(yb - j as f64);
    let t01 = texel(d, i, j + 1, true, read)?;
    let t11 = texel(d, i + 1, j + 1, true, read)?;
    for (k, o) in out.iter_mut().enumerate() {
        *o = (1.0 - a) * (1.0 - b) * t00[k] + a * (1.0 - b) * t10[k] + (1.0 - a) * b * t01[k] + a * b * t11[k];
    }
    Ok(out)
}

/// `tld4`: component `comp` of the 2 × 2 texels linear filtering at (x, y) would mix, in the
/// order (i, j+1), (i+1, j+1), (i+1, j), (i, j).
pub fn gather(
    d: &Descriptor,
    comp: usize,
    coords: [f64; 2],
    float_dest: bool,
    read: &mut Reader<'_>,
) -> Result<[f64; 4], AccessFault> {
    let c = scaled(d, coords);
    let (i, j) = (libm::floor(c[0] - 0.5) as i64, libm::floor(c[1] - 0.5) as i64);
    let mut out = [0.0; 4];
    for (o, (di, dj)) in out.iter_mut().zip([(0, 1), (1, 1), (1, 0), (0, 0)]) {
        *o = texel(d, i + di, j + dj, float_dest, read)?[comp.min(3)];
    }
    Ok(out)
}

fn out_bits(v: f64, dty: Type) -> u64 {
    match dty {
        Type::F32 => ElemType::F32.float_bits(v),
        Type::S32 => u64::from(libm::floor(v) as i64 as i32 as u32),
        _ => u64::from(libm::floor(v).max(0.0) as u64 as u32),
    }
}

fn lane_coords(op: &TexOp, w: &Warp, env: &Env, lane: usize) -> Coords {
    let c = |k: usize| op.coords.get(k.min(op.dims - 1)).map_or(0, |s| w.read_lane(*s, lane, env));
    if op.cty == Type::F32 {
        let f = |k: usize| if k < op.dims { f64::from(f32::from_bits(c(k) as u32)) } else { 0.0 };
        Coords::Float([f(0), f(1)])
    } else {
        let i = |k: usize| if k < op.dims { i64::from(c(k) as u32 as i32) } else { 0 };
        Coords::Int([i(0), i(1)])
    }
}

/// The descriptor at `handle` (a fault at the handle if there is none: an unbound texture).
fn descriptor(mem: &mut MemCtx<'_>, handle: u64) -> Result<Descriptor, AccessFault> {
    let size = DESCRIPTOR_BYTES as u32;
    let unbound = AccessFault { space: Space::Global, address: handle, size, reason: FaultReason::OutOfBounds };
    let bytes = mem.global.slice_mut(handle, size).map_err(|_| unbound)?;
    Descriptor::decode(bytes).ok_or(unbound)
}

/// Executes `op` in the lanes of `mask`.
pub fn exec(
    w: &mut Warp,
    env: &Env,
    mem: &mut MemCtx<'_>,
    op: &TexOp,
    mask: u32,
    acc: &mut Accessed,
) -> Result<(), (usize, AccessFault)> {
    let mut vals = [ZERO; 4];
    let mut cached: Option<(u64, Descriptor)> = None;
    acc.space = Some(Space::Global);
    acc.addrs.clear();
    let float_dest = op.dty == Type::F32;
    for lane in lanes(mask) {
        let src = w.read_lane(op.handle, lane, env);
        let handle = match op.handle_space {
            Some(space) => load(mem, &mut w.local, Some(space), src, lane, 8).map_err(|f| (lane, f))?,
            None => src,
        };
        let d = match cached {
            Some((h, d)) if h == handle => d,
            _ => descriptor(mem, handle).map_err(|f| (lane, f))?,
        };
        cached = Some((handle, d));
        acc.bytes = d.ty.size() as u32 * d.channels;
        let mut first = None;
        let mut read = |addr: u64, size: u32| {
            first.get_or_insert(addr);
            mem.global.slice_mut(addr, size).map(|b| super::super::memory::read_le(b))
        };
        let coords = lane_coords(op, w, env, lane);
        let v = match (op.gather, coords) {
            (Some(comp), Coords::Float(c)) => gather(&d, comp, c, float_dest, &mut read),
            (Some(comp), Coords::Int([x, y])) => gather(&d, comp, [x as f64, y as f64], float_dest, &mut read),
            (None, c) => fetch(&d, op.dims, c, float_dest, &mut read),
        }
        .map_err(|f| (lane, f))?;
        if acc.enabled {
            acc.addrs.push(first.unwrap_or(d.data));
        }
        for (k, out) in vals.iter_mut().enumerate() {
            out[lane] = out_bits(v[k], op.dty);
        }
    }
    for (dst, v) in op.d.iter().zip(&vals) {
        w.write(*dst, v, mask);
    }
    Ok(())
}
