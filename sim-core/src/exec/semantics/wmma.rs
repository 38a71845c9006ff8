//! Warp-level matrix operations of the `wmma` family (`m16n16k16`, `m32n8k16`, `m8n32k16` with
//! `f16`/`bf16` multiplicands and `f16`/`f32` accumulators): `wmma.load`, `wmma.mma`,
//! `wmma.store`.
//!
//! ```text
//! wmma.load.a.sync.row.m16n16k16.f16 {%r1, ..., %r8}, [%rd1], 16;
//! wmma.mma.sync.row.col.m16n16k16.f32.f32 {%f1, ..., %f8}, {a}, {b}, {c};
//! wmma.store.d.sync.col.m16n16k16.f32 [%rd2], {%f1, ..., %f8}, 16;
//! ```
//!
//! PTX leaves the distribution of fragment elements over lanes unspecified (programs may only
//! load, multiply and store fragments), so RegLab picks one: element `e` of a matrix in row-major
//! order is held by every (lane, register, half) whose position `lane·16 + register·2 + half`
//! (multiplicands, two 16-bit elements per register) or `lane·8 + register` (`f32` accumulators)
//! equals `e` modulo the matrix size. Loads and stores honour the layout and the stride;
//! products are summed in `f64` and rounded once, as for `mma`.

use alloc::vec::Vec;

use super::super::memory::AccessFault;
use super::super::program::{Dst, MemRef, Src};
use super::super::warp::{Env, Lanes, Warp, ZERO};
use super::memory_ops::{self, lanes, Accessed, MemCtx};
use super::round::{self, Mode};
use crate::ir::{Frag, Layout, Type};

/// Rows and columns of a fragment of `shape` (m, n, k).
pub fn dims(frag: Frag, (m, n, k): (u16, u16, u16)) -> (usize, usize) {
    let (m, n, k) = (usize::from(m), usize::from(n), usize::from(k));
    match frag {
        Frag::A => (m, k),
        Frag::B => (k, n),
        Frag::C | Frag::D => (m, n),
    }
}

/// True if the shape and element type are modelled.
pub fn supported(shape: (u16, u16, u16), ty: Type) -> bool {
    matches!(shape, (16, 16, 16) | (32, 8, 16) | (8, 32, 16))
        && matches!(ty, Type::F16 | Type::Bf16 | Type::F32 | Type::F16x2 | Type::Bf16x2)
}

/// Elements per register: one `f32`, or two 16-bit values.
fn per_reg(ty: Type) -> usize {
    if ty == Type::F32 {
        1
    } else {
        2
    }
}

/// The row-major element that half `half` of register `reg` of `lane` holds, in a fragment of
/// `nregs` registers per lane and `size` elements.
fn element(ty: Type, nregs: usize, (lane, reg, half): (usize, usize, usize), size: usize) -> usize {
    let p = per_reg(ty);
    (lane * nregs * p + reg * p + half) % size.max(1)
}

fn elem_bytes(ty: Type) -> u32 {
    if ty == Type::F32 {
        4
    } else {
        2
    }
}

/// `wmma.load`: reads the whole matrix (from the first executing lane's address) and gives each
/// lane its elements.
#[allow(clippy::too_many_arguments, reason = "the operands of one PTX instruction")]
pub fn exec_load(
    w: &mut Warp,
    env: &Env,
    mem: &mut MemCtx<'_>,
    (frag, shape, ty, layout): (Frag, (u16, u16, u16), Type, Layout),
    d: &[Dst],
    m: &MemRef,
    stride: Option<Src>,
    mask: u32,
    acc: &mut Accessed,
) -> Result<(), (usize, AccessFault)> {
    let (rows, cols) = dims(frag, shape);
    let Some(lane0) = lanes(mask).next() else { return Ok(()) };
    let base = memory_ops::address(w, env, m, lane0);
    let ld = stride.map_or(if layout == Layout::Row { cols } else { rows }, |s| w.read_lane(s, lane0, env) as usize);
    let size = elem_bytes(ty);
    let mut values = alloc::vec![0u64; rows * cols];
    for (e, v) in values.iter_mut().enumerate() {
        let (r, c) = (e / cols, e % cols);
        let idx = if layout == Layout::Row { r * ld + c } else { c * ld + r };
        let a = base.wrapping_add((idx as u64).wrapping_mul(u64::from(size)));
        *v = memory_ops::load(mem, &mut w.local, m.space, a, lane0, size).map_err(|f| (lane0, f))?;
    }
    acc.begin(m, size, &[base; 32], mask);
    let mut out: Vec<Lanes> = alloc::vec![ZERO; d.len()];
    for (reg, o) in out.iter_mut().enumerate() {
        for (lane, slot) in o.iter_mut().enumerate() {
            *slot = (0..per_reg(ty)).fold(0u64, |acc, h| {
                let e = element(ty, d.len(), (lane, reg, h), rows * cols);
                acc | (values.get(e).copied().unwrap_or(0) << (16 * h))
            });
        }
    }
    for (dst, v) in d.iter().zip(&out) {
        w.write(*dst, v, mask);
    }
    Ok(())
}

/// Gathers a fragment from registers into a row-major matrix.
fn gather(w: &Warp, env: &Env, srcs: &[Src], ty: Type, rows: usize, cols: usize) -> Vec<u64> {
    let mut values = alloc::vec![0u64; rows * cols];
    let p = per_reg(ty);
    for (reg, s) in srcs.iter().enumerate() {
        for lane in 0..32 {
            let v = w.read_lane(*s, lane, env);
            for h in 0..p {
                let e = element(ty, srcs.len(), (lane, reg, h), rows * cols);
                if let Some(slot) = values.get_mut(e) {
                    *slot = if p == 1 { v & 0xFFFF_FFFF } else { (v >> (16 * h)) & 0xFFFF };
                }
            }
        }
    }
    values
}

/// `wmma.store`: writes the whole matrix (to the first executing lane's address).
#[allow(clippy::too_many_arguments, reason = "the operands of one PTX instruction")]
pub fn exec_store(
    w: &mut Warp,
    env: &Env,
    mem: &mut MemCtx<'_>,
    (shape, ty, layout): ((u16, u16, u16), Type, Layout),
    s: &[Src],
    m: &MemRef,
    stride: Option<Src>,
    mask: u32,
    acc: &mut Accessed,
) -> Result<(), (usize, AccessFault)> {
    let (rows, cols) = dims(Frag::D, shape);
    let Some(lane0) = lanes(mask).next() else { return Ok(()) };
    let base = memory_ops::address(w, env, m, lane0);
    let ld = stride.map_or(if layout == Layout::Row { cols } else { rows }, |s| w.read_lane(s, lane0, env) as usize);
    let size = elem_bytes(ty);
    let values = gather(w, env, s, ty, rows, cols);
    acc.begin(m, size, &[base; 32], mask);
    for (e, v) in values.iter().enumerate() {
        let (r, c) = (e / cols, e % cols);
        let idx = if layout == Layout::Row { r * ld + c } else { c * ld + r };
        let a = base.wrapping_add((idx as u64).wrapping_mul(u64::from(size)));
        memory_ops::store(mem, &mut w.local, m.space, a, lane0, size, *v).map_err(|f| (lane0, f))?;
    }
    Ok(())
}

/// `wmma.mma`: D = A·B + C with `f16`/`bf16` multiplicands (`ab`) and `dt`/`ct` accumulators.
#[allow(clippy::too_many_arguments, reason = "the operands of one PTX instruction")]
pub fn exec_mma(
    w: &mut Warp,
    env: &Env,
    shape: (u16, u16, u16),
    (dt, ct, ab): (Type, Type, Type),
    d: &[Dst],
    (a, b, c): (&[Src], &[Src], &[Src]),
    mask: u32,
) {
    let (m, k) = dims(Frag::A, shape);
    let n = dims(Frag::B, shape).1;
    let fin = if matches!(ab, Type::Bf16 | Type::Bf16x2) { round::BF16 } else { round::F16 };
    let av = gather(w, env, a, Type::F16, m, k);
    let bv = gather(w, env, b, Type::F16, k, n);
    let cv = gather(w, env, c, ct, m, n);
    let value = |bits: u64, t: Type| {
        if t == Type::F32 {
            f64::from(f32::from_bits(bits as u32))
        } else {
            round::F16.decode(bits)
        }
    };
    let mut dv = alloc::vec![0u64; m * n];
    for (e, out) in dv.iter_mut().enumerate() {
        let (i, j) = (e / n, e % n);
        let sum = (0..k).fold(value(cv[e], ct), |s, kk| s + fin.decode(av[i * k + kk]) * fin.decode(bv[kk * n + j]));
        *out = if dt == Type::F32 {
            round::round(sum, 0.0, round::F32, Mode::NearestEven, false)
        } else {
            round::round(sum, 0.0, round::F16, Mode::NearestEven, false)
        };
    }
    for (reg, dst) in d.iter().enumerate() {
        let mut o = ZERO;
        for (lane, slot) in o.iter_mut().enumerate() {
            *slot = (0..per_reg(dt)).fold(0u64, |acc, h| {
                let e = element(dt, d.len(), (lane, reg, h), m * n);
                acc | (dv.get(e).copied().unwrap_or(0) << (16 * h))
            });
        }
        w.write(*dst, &o, mask);
    }
}
