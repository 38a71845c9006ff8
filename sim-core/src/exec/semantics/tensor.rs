//! Warp-level matrix instructions: `mma.sync` for the `m16n8k16` and `m16n8k8` shapes with
//! `f16`/`bf16` inputs and `f32` or `f16` accumulators (PTX fragment layouts), and `ldmatrix`
//! (`.x1/.x2/.x4`, `.trans`).
//!
//! ```text
//! mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {d0..d3}, {a0..a3}, {b0, b1}, {c0..c3};
//! // lane l holds A rows l/4 and l/4+8, columns 2(l%4)+{0,1} (+8); D = A·B + C
//! ldmatrix.sync.aligned.m8n8.x2.b16 {%r1, %r2}, [%rd1];   // lanes 0-15 give the row addresses
//! ```
//!
//! Products of `f16`/`bf16` values are exact in `f64`; each dot product is summed in `f64` and
//! rounded once to the accumulator type. Hardware accumulates in an unspecified order with at
//! least `f32` precision, so results agree exactly whenever the sums are exact in `f32`.

use alloc::vec::Vec;

use super::super::memory::AccessFault;
use super::super::program::{Dst, MemRef, Src};
use super::super::warp::{Env, Lanes, Warp, ZERO};
use super::memory_ops::{self, Accessed, MemCtx};
use super::round::{self, Format, Mode};
use crate::ir::{Layout, Type};

fn fmt(t: Type) -> Option<Format> {
    match t {
        Type::F16 | Type::F16x2 => Some(round::F16),
        Type::Bf16 | Type::Bf16x2 => Some(round::BF16),
        _ => None,
    }
}

/// The halves of fragment registers, element `i` of lane `l` (two 16-bit elements per register).
fn half(regs: &[Lanes], lane: usize, i: usize) -> u64 {
    regs.get(i / 2).map_or(0, |r| (r[lane] >> (16 * (i % 2))) & 0xFFFF)
}

/// Row and column of A element `i` of lane `lane` (row-major A, `k` 8 or 16).
fn a_pos(lane: usize, i: usize) -> (usize, usize) {
    let (g, t) = (lane / 4, lane % 4);
    let row = g + if (i / 2) % 2 == 1 { 8 } else { 0 };
    let col = t * 2 + (i & 1) + if i >= 4 { 8 } else { 0 };
    (row, col)
}

/// Row (k) and column (n) of B element `i` of lane `lane`.
fn b_pos(lane: usize, i: usize) -> (usize, usize) {
    let (g, t) = (lane / 4, lane % 4);
    (t * 2 + (i & 1) + if i >= 2 { 8 } else { 0 }, g)
}

/// Row and column of C/D element `i` of lane `lane`.
fn c_pos(lane: usize, i: usize) -> (usize, usize) {
    let (g, t) = (lane / 4, lane % 4);
    (g + if i >= 2 { 8 } else { 0 }, t * 2 + (i & 1))
}

/// Every lane of each source register.
fn gather(w: &Warp, env: &Env, srcs: &[Src]) -> Vec<Lanes> {
    srcs.iter()
        .map(|s| {
            let mut l = ZERO;
            for (lane, v) in l.iter_mut().enumerate() {
                *v = w.read_lane(*s, lane, env);
            }
            l
        })
        .collect()
}

/// The A matrix (16 × k) from its fragment registers.
fn a_matrix(ra: &[Lanes], fa: Format, k: usize) -> [[f64; 16]; 16] {
    let mut am = [[0f64; 16]; 16];
    for lane in 0..32 {
        for i in 0..(k / 2) {
            let (r, col) = a_pos(lane, i);
            am[r][col] = fa.decode(half(ra, lane, i));
        }
    }
    am
}

/// The B matrix (k × 8) from its fragment registers.
fn b_matrix(rb: &[Lanes], fb: Format, k: usize) -> [[f64; 8]; 16] {
    let mut bm = [[0f64; 8]; 16];
    for lane in 0..32 {
        for i in 0..(k / 8) * 2 {
            let (r, col) = b_pos(lane, i);
            bm[r][col] = fb.decode(half(rb, lane, i));
        }
    }
    bm
}

/// `mma.sync` for `m16n8k{8,16}` with 16-bit inputs. Returns false for shapes and types it does
/// not model.
#[allow(clippy::too_many_arguments, reason = "the operands of one PTX instruction")]
pub fn exec_mma(
    w: &mut Warp,
    env: &Env,
    shape: (u16, u16, u16),
    types: [Type; 4],
    layout: (Layout, Layout),
    d: &[Dst],
    (a, b, c): (&[Src], &[Src], &[Src]),
    mask: u32,
) -> bool {
    let (m, n, k) = (shape.0 as usize, shape.1 as usize, shape.2 as usize);
    let [dt, at, bt, ct] = types;
    let (Some(fa), Some(fb)) = (fmt(at), fmt(bt)) else { return false };
    let f32_acc = |t: Type| t == Type::F32;
    if (m, n) != (16, 8) || !(k == 8 || k == 16) || layout != (Layout::Row, Layout::Col) {
        return false;
    }
    let (ra, rb, rc) = (gather(w, env, a), gather(w, env, b), gather(w, env, c));
    let (am, bm) = (a_matrix(&ra, fa, k), b_matrix(&rb, fb, k));
    let mut cm = [[0f64; 8]; 16];
    for lane in 0..32 {
        for i in 0..4 {
            let (r, col) = c_pos(lane, i);
            cm[r][col] = if f32_acc(ct) {
                f64::from(f32::from_bits(rc.get(i).map_or(0, |x| x[lane]) as u32))
            } else {
                round::F16.decode(half(&rc, lane, i))
            };
        }
    }
    let mut out: Vec<Lanes> = alloc::vec![ZERO; d.len()];
    for lane in 0..32 {
        for i in 0..4 {
            let (r, col) = c_pos(lane, i);
            let sum = (0..k).fold(cm[r][col], |s, kk| s + am[r][kk] * bm[kk][col]);
            if f32_acc(dt) {
                if let Some(o) = out.get_mut(i) {
                    o[lane] = round::round(sum, 0.0, round::F32, Mode::NearestEven, false);
                }
            } else if let Some(o) = out.get_mut(i / 2) {
                o[lane] |= round::round(sum, 0.0, round::F16, Mode::NearestEven, false) << (16 * (i % 2));
            }
        }
    }
    for (dst, v) in d.iter().zip(&out) {
        w.write(*dst, v, mask);
    }
    true
}

/// `ldmatrix`: `count` 8x8 matrices of 16-bit elements; lane `8i + r` gives row `r` of matrix `i`.
#[allow(clippy::too_many_arguments, reason = "the operands of one PTX instruction")]
pub fn exec_ldmatrix(
    w: &mut Warp,
    env: &Env,
    mem: &mut MemCtx<'_>,
    count: u32,
    trans: bool,
    d: &[Dst],
    m: &MemRef,
    mask: u32,
    acc: &mut Accessed,
) -> Result<(), (usize, AccessFault)> {
    let count = count as usize;
    let mut rows = [[0u16; 8]; 32];
    let addrs = memory_ops::addresses(w, env, m);
    acc.begin(m, 16, &addrs, (((1u64 << (8 * count)) - 1) & u64::from(u32::MAX)) as u32);
    for (lane, row) in rows.iter_mut().enumerate().take(8 * count) {
        let addr = addrs[lane];
        for (e, v) in row.iter_mut().enumerate() {
            let a = addr.wrapping_add(2 * e as u64);
            *v = memory_ops::load(mem, &mut w.local, m.space, a, lane, 2).map_err(|f| (lane, f))? as u16;
        }
    }
    let mut out: Vec<Lanes> = alloc::vec![ZERO; count];
    for (i, o) in out.iter_mut().enumerate() {
        for (lane, v) in o.iter_mut().enumerate() {
            let (r, c) = (lane / 4, (lane % 4) * 2);
            let (x, y) = if trans {
                (rows[8 * i + c][r], rows[8 * i + c + 1][r])
            } else {
                (rows[8 * i + r][c], rows[8 * i + r][c + 1])
            };
            *v = u64::from(x) | (u64::from(y) << 16);
        }
    }
    for (dst, v) in d.iter().zip(&out) {
        w.write(*dst, v, mask);
    }
    Ok(())
}
