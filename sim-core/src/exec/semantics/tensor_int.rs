//! Integer `mma.sync`: `.s8`/`.u8` inputs (`m8n8k16`, `m16n8k16`, `m16n8k32`) and `.s4`/`.u4`
//! inputs (`m8n8k32`, `m16n8k32`, `m16n8k64`), `.s32` accumulators, `.row.col` layouts, with or
//! without `.satfinite` (PTX ISA "Matrix Fragments for mma.m8n8k16/k32, mma.m16n8k16/k32/k64").
//!
//! ```text
//! mma.sync.aligned.m16n8k32.row.col.satfinite.s32.s8.s8.s32 {d0..d3}, {a0..a3}, {b0, b1}, {c0..c3};
//! ```
//!
//! Each 32-bit fragment register packs `e = 32 / bits` elements (element `j` in bits
//! `j·bits ..`). With `g = lane / 4` and `t = lane % 4`, element `i` of a lane lies in register
//! `r = i / e` at position `j = i % e`:
//! - A (m16n8): row `g + 8·(r mod 2)`, column `t·e + j + 4e·(r / 2)`; (m8n8): row `g`, column `t·e + j`;
//! - B: row `t·e + j + 4e·r`, column `g`;
//! - C, D (.s32): m16n8 like the float shapes (row `g`, `g + 8`; column `2t`, `2t + 1`), m8n8 row
//!   `g`, column `2t + i`.
//!
//! The sum `C + A·B` is exact in `i64`; `.satfinite` clamps it to the `.s32` range, otherwise its
//! low 32 bits are kept.

use alloc::vec::Vec;

use super::super::program::{Dst, Src};
use super::super::warp::{Env, Lanes, Warp, ZERO};
use crate::ir::{Layout, Type};

/// Bits per element and signedness of an integer `mma` input type.
fn element(t: Type) -> Option<(u32, bool)> {
    match t {
        Type::S8 => Some((8, true)),
        Type::U8 => Some((8, false)),
        Type::S4 => Some((4, true)),
        Type::U4 => Some((4, false)),
        _ => None,
    }
}

/// Element `i` of a lane's fragment registers `regs`, sign- or zero-extended.
fn value(regs: &[Lanes], lane: usize, i: usize, (bits, signed): (u32, bool)) -> i64 {
    let e = (32 / bits) as usize;
    let word = regs.get(i / e).map_or(0, |r| r[lane]);
    let raw = (word >> ((i % e) as u32 * bits)) & ((1u64 << bits) - 1);
    if signed && (raw >> (bits - 1)) & 1 == 1 {
        raw as i64 - (1i64 << bits)
    } else {
        raw as i64
    }
}

fn a_pos(lane: usize, i: usize, e: usize, m: usize) -> (usize, usize) {
    let (g, t, r, j) = (lane / 4, lane % 4, i / e, i % e);
    if m == 8 {
        (g, t * e + j)
    } else {
        (g + 8 * (r % 2), t * e + j + 4 * e * (r / 2))
    }
}

fn b_pos(lane: usize, i: usize, e: usize) -> (usize, usize) {
    let (g, t, r, j) = (lane / 4, lane % 4, i / e, i % e);
    (t * e + j + 4 * e * r, g)
}

fn c_pos(lane: usize, i: usize, m: usize) -> (usize, usize) {
    let (g, t) = (lane / 4, lane % 4);
    if m == 8 {
        (g, 2 * t + i)
    } else {
        (g + if i >= 2 { 8 } else { 0 }, 2 * t + (i & 1))
    }
}

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

/// True for the shapes and types this module executes.
pub fn is_integer_mma(shape: (u16, u16, u16), types: [Type; 4], layout: (Layout, Layout)) -> bool {
    let [dt, at, bt, ct] = types;
    let (Some((abits, _)), Some((bbits, _))) = (element(at), element(bt)) else { return false };
    let k = if abits == 8 { [16, 32] } else { [32, 64] };
    let kk = shape.2;
    let shape_ok = match (shape.0, shape.1) {
        (8, 8) => kk == k[0],
        (16, 8) => k.contains(&kk),
        _ => false,
    };
    abits == bbits && shape_ok && dt == Type::S32 && ct == Type::S32 && layout == (Layout::Row, Layout::Col)
}

/// Executes an integer `mma.sync` (the caller checked [`is_integer_mma`]).
#[allow(clippy::too_many_arguments, reason = "the operands of one PTX instruction")]
pub fn exec_mma_int(
    w: &mut Warp,
    env: &Env,
    shape: (u16, u16, u16),
    types: [Type; 4],
    satfinite: bool,
    d: &[Dst],
    (a, b, c): (&[Src], &[Src], &[Src]),
    mask: u32,
) {
    let (m, k) = (shape.0 as usize, shape.2 as usize);
    let (Some(fa), Some(fb)) = (element(types[1]), element(types[2])) else { return };
    let e = (32 / fa.0) as usize;
    let (ra, rb, rc) = (gather(w, env, a), gather(w, env, b), gather(w, env, c));
    let mut am = [[0i64; 64]; 16];
    let mut bm = [[0i64; 8]; 64];
    for lane in 0..32 {
        for i in 0..(m * k / 32) {
            let (r, col) = a_pos(lane, i, e, m);
            am[r][col] = value(&ra, lane, i, fa);
        }
        for i in 0..(k * 8 / 32) {
            let (r, col) = b_pos(lane, i, e);
            bm[r][col] = value(&rb, lane, i, fb);
        }
    }
    let per_lane = m * 8 / 32;
    let mut out: Vec<Lanes> = alloc::vec![ZERO; per_lane];
    for lane in 0..32 {
        for (i, o) in out.iter_mut().enumerate() {
            let (r, col) = c_pos(lane, i, m);
            let acc = i64::from(rc.get(i).map_or(0, |x| x[lane]) as u32 as i32);
            let sum = (0..k).fold(acc, |s, kk| s + am[r][kk] * bm[kk][col]);
            let v = if satfinite { sum.clamp(i64::from(i32::MIN), i64::from(i32::MAX)) } else { sum };
            o[lane] = u64::from(v as u32);
        }
    }
    for (dst, v) in d.iter().zip(&out) {
        w.write(*dst, v, mask);
    }
}
