//! The scalar video instructions, as the PTX ISA defines them: each source is a byte, half-word
//! or word of a 32-bit register (`.b0`–`.b3`, `.h0`/`.h1`, or all of it), sign- or zero-extended
//! by its type; the primary operation runs on these wide values (no overflow); the result is
//! optionally clamped to the range of the destination (the selected part's width when merging);
//! then either a secondary operation with `c` (`.add`, `.min`, `.max`) or a merge of the
//! result's low byte/half-word into the selected part of `c`, and the low 32 bits are written.
//!
//! ```text
//! vadd.u32.u32.u32.sat %r1, %r2.b0, %r3.b1;   // min(byte0(%r2) + byte1(%r3), 0xFFFF_FFFF)
//! vabsdiff.u32.u32.u32 %r1.h1, %r2, %r3, %r4;  // |%r2 - %r3| into bits 16..31 of %r4
//! vmad.s32.s32.s32.shr7 %r1, %r2.h0, %r3.h0, %r4; // (h0·h0 + %r4) >> 7
//! ```
//!
//! Values are computed in `i128`, wider than any intermediate the ISA describes (33-bit inputs,
//! a 34-bit result, a 66-bit `vmad` product, a shift of a 33-bit value by up to 32).

use super::super::program::{Dst, Src};
use super::super::warp::{Env, Warp, ZERO};
use crate::ir::{CmpOp, VideoOp2, VideoScale, VideoSel};

/// The primary operation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum VideoOp {
    /// `vadd`.
    Add,
    /// `vsub`.
    Sub,
    /// `vabsdiff`.
    Absdiff,
    /// `vmin`.
    Min,
    /// `vmax`.
    Max,
    /// `vshl`.
    Shl,
    /// `vshr`.
    Shr,
    /// `vset` with its comparison (`.eq`, `.ne`, `.lt`, `.le`, `.gt`, `.ge`).
    Set(CmpOp),
    /// `vmad`.
    Mad,
}

/// Everything one video instruction's modifiers and types say.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct VideoSpec {
    /// The primary operation.
    pub op: VideoOp,
    /// `.s32` destination (`vset`: always unsigned).
    pub d_signed: bool,
    /// `.s32` first source.
    pub a_signed: bool,
    /// `.s32` second source.
    pub b_signed: bool,
    /// `.sat`.
    pub sat: bool,
    /// Destination (merge) selector.
    pub dsel: Option<VideoSel>,
    /// Source selectors.
    pub asel: Option<VideoSel>,
    /// Second source selector.
    pub bsel: Option<VideoSel>,
    /// Secondary operation.
    pub op2: Option<VideoOp2>,
    /// `vshl`/`vshr`: `.clamp` (amount at most 32) rather than `.wrap` (amount mod 32).
    pub clamp: bool,
    /// `vmad`: the product is negated (exactly one of `-a`, `-b`).
    pub neg_product: bool,
    /// `vmad`: `-c`.
    pub neg_c: bool,
    /// `vmad.po`.
    pub po: bool,
    /// `vmad` scaling.
    pub scale: Option<VideoScale>,
}

/// The part of `x` that `sel` names, sign- or zero-extended (the ISA's `partSelectSignExtend`).
fn part(x: u32, signed: bool, sel: Option<VideoSel>) -> i128 {
    let (off, width) = sel.map_or((0, 32), VideoSel::field);
    let field = (u64::from(x) >> off) & ((1u64 << width) - 1);
    if signed && (field >> (width - 1)) & 1 == 1 {
        field as i128 - (1i128 << width)
    } else {
        field as i128
    }
}

/// The range of a destination of `width` bits.
fn range(signed: bool, width: u32) -> (i128, i128) {
    if signed {
        (-(1i128 << (width - 1)), (1i128 << (width - 1)) - 1)
    } else {
        (0, (1i128 << width) - 1)
    }
}

fn compare(cmp: CmpOp, a: i128, b: i128) -> bool {
    match cmp {
        CmpOp::Eq => a == b,
        CmpOp::Ne => a != b,
        CmpOp::Lt => a < b,
        CmpOp::Le => a <= b,
        CmpOp::Gt => a > b,
        _ => a >= b,
    }
}

/// One lane of a video instruction other than `vmad`.
pub fn video(s: &VideoSpec, a: u32, b: u32, c: u32) -> u32 {
    if s.op == VideoOp::Mad {
        return vmad(s, a, b, c);
    }
    let ta = part(a, s.a_signed, s.asel);
    let b_signed = s.b_signed && !matches!(s.op, VideoOp::Shl | VideoOp::Shr);
    let tb = part(b, b_signed, s.bsel);
    let shift = if s.clamp { tb.min(32) } else { tb & 31 } as u32;
    let mut tmp = match s.op {
        VideoOp::Add => ta + tb,
        VideoOp::Sub => ta - tb,
        VideoOp::Absdiff => (ta - tb).abs(),
        VideoOp::Min => ta.min(tb),
        VideoOp::Max => ta.max(tb),
        VideoOp::Shl => ta << shift,
        VideoOp::Shr => ta >> shift,
        VideoOp::Set(cmp) => i128::from(compare(cmp, ta, tb)),
        VideoOp::Mad => 0,
    };
    let d_signed = s.d_signed && !matches!(s.op, VideoOp::Set(_));
    if s.sat {
        let width = s.dsel.map_or(32, |sel| sel.field().1);
        let (lo, hi) = range(d_signed, width);
        tmp = tmp.clamp(lo, hi);
    }
    let wide_c = if d_signed { i128::from(c as i32) } else { i128::from(c) };
    let out = match (s.op2, s.dsel) {
        (Some(VideoOp2::Add), _) => tmp + wide_c,
        (Some(VideoOp2::Min), _) => tmp.min(wide_c),
        (Some(VideoOp2::Max), _) => tmp.max(wide_c),
        (None, Some(sel)) => {
            let (off, width) = sel.field();
            let mask = ((1u64 << width) - 1) << off;
            let merged = (u64::from(c) & !mask) | (((tmp as u64) << off) & mask);
            merged as i128
        }
        (None, None) => tmp,
    };
    out as u32
}

/// One lane of `vmad`: `(±a·b) ± c (+1)`, scaled, optionally clamped to 32 bits.
fn vmad(s: &VideoSpec, a: u32, b: u32, c: u32) -> u32 {
    let ta = part(a, s.a_signed, s.asel);
    let tb = part(b, s.b_signed, s.bsel);
    let signed_final = s.a_signed || s.b_signed || s.neg_product || s.neg_c;
    let mut product = ta * tb;
    let mut c = c;
    let mut lsb = 0;
    if s.po {
        lsb = 1;
    } else if s.neg_product {
        product = !product;
        lsb = 1;
    } else if s.neg_c {
        c = !c;
        lsb = 1;
    }
    let wide_c = if signed_final { i128::from(c as i32) } else { i128::from(c) };
    let tmp = product + wide_c + lsb;
    let shifted = match s.scale {
        Some(VideoScale::Shr7) => tmp >> 7,
        Some(VideoScale::Shr15) => tmp >> 15,
        None => tmp,
    };
    // The low 64 bits, read with the sign of the final result.
    let low = shifted as u64;
    let mut result = if signed_final { i128::from(low as i64) } else { i128::from(low) };
    if s.sat {
        let (lo, hi) = range(signed_final, 32);
        result = result.clamp(lo, hi);
    }
    result as u32
}

/// Executes a video instruction in the lanes of `mask`.
#[allow(clippy::too_many_arguments, reason = "the operands of one PTX instruction")]
pub fn exec(w: &mut Warp, env: &Env, s: &VideoSpec, d: Dst, a: Src, b: Src, c: Src, mask: u32) {
    let mut out = ZERO;
    for (lane, o) in out.iter_mut().enumerate() {
        if (mask >> lane) & 1 == 0 {
            continue;
        }
        let (x, y, z) = (w.read_lane(a, lane, env), w.read_lane(b, lane, env), w.read_lane(c, lane, env));
        *o = u64::from(video(s, x as u32, y as u32, z as u32));
    }
    w.write(d, &out, mask);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(op: VideoOp) -> VideoSpec {
        VideoSpec {
            op,
            d_signed: false,
            a_signed: false,
            b_signed: false,
            sat: false,
            dsel: None,
            asel: None,
            bsel: None,
            op2: None,
            clamp: false,
            neg_product: false,
            neg_c: false,
            po: false,
            scale: None,
        }
    }

    #[test]
    fn selectors_extend_by_source_type() {
        // 0x80 as a signed byte is −128, unsigned 128; h1 of 0xFFFE_0000 signed is −2.
        assert_eq!(part(0x0000_8000, true, Some(VideoSel::B1)), -128);
        assert_eq!(part(0x0000_8000, false, Some(VideoSel::B1)), 128);
        assert_eq!(part(0xFFFE_0000, true, Some(VideoSel::H1)), -2);
        assert_eq!(part(0xFFFF_FFFF, false, None), 0xFFFF_FFFF);
    }

    #[test]
    fn saturation_uses_the_merged_width() {
        // 200 + 100 = 300 clamps to 255 when merging into a byte of an unsigned destination,
        // and the merge keeps the other bytes of c.
        let s = VideoSpec { sat: true, dsel: Some(VideoSel::B2), ..spec(VideoOp::Add) };
        assert_eq!(video(&s, 200, 100, 0x1122_3344), 0x11FF_3344);
        // Unsigned 32-bit: 5 − 7 = −2 clamps to 0 with .sat, wraps to 0xFFFF_FFFE without.
        let s = VideoSpec { sat: true, ..spec(VideoOp::Sub) };
        assert_eq!(video(&s, 5, 7, 0), 0);
        assert_eq!(video(&spec(VideoOp::Sub), 5, 7, 0), 0xFFFF_FFFE);
    }

    #[test]
    fn vmad_negation_and_plus_one() {
        // −(3·4) + 20 = 8 (signed final); (3·4) + 20 + 1 = 33 with .po.
        let s = VideoSpec { a_signed: true, b_signed: true, d_signed: true, neg_product: true, ..spec(VideoOp::Mad) };
        assert_eq!(vmad(&s, 3, 4, 20), 8);
        let s = VideoSpec { po: true, ..spec(VideoOp::Mad) };
        assert_eq!(vmad(&s, 3, 4, 20), 33);
    }
}
