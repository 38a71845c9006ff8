//! Modifier values of the scalar video instructions (`vadd`, `vsub`, `vabsdiff`, `vmin`, `vmax`,
//! `vshl`, `vshr`, `vmad`, `vset`): the byte/half-word selectors written on the operands, the
//! secondary operation, and `vmad`'s negations, plus-one mode and scaling.
//!
//! ```text
//! vadd.s32.u32.s32.sat.add %r1, %r2.b0, %r3.h1, %r4;  // asel = b0, bsel = h1, op2 = add
//! vabsdiff.u32.u32.u32 %r1.h0, %r2, %r3, %r4;          // dsel = h0: merge into the low half of %r4
//! vmad.s32.s32.s32.shr7 %r1, -%r2, %r3, %r4;            // neg_a, scale = shr7
//! ```

use crate::ir::types::keyword_enum;

keyword_enum! {
    /// The part of a 32-bit operand a video instruction reads (`a.b1`) or, on the destination,
    /// the part it merges its result into (`d.h0`).
    VideoSel {
        /// Bits 0–7.
        B0 = ".b0",
        /// Bits 8–15.
        B1 = ".b1",
        /// Bits 16–23.
        B2 = ".b2",
        /// Bits 24–31.
        B3 = ".b3",
        /// Bits 0–15.
        H0 = ".h0",
        /// Bits 16–31.
        H1 = ".h1",
    }
}

impl VideoSel {
    /// The selected field as (bit offset, width in bits).
    pub fn field(self) -> (u32, u32) {
        match self {
            VideoSel::B0 => (0, 8),
            VideoSel::B1 => (8, 8),
            VideoSel::B2 => (16, 8),
            VideoSel::B3 => (24, 8),
            VideoSel::H0 => (0, 16),
            VideoSel::H1 => (16, 16),
        }
    }
}

keyword_enum! {
    /// The secondary operation of a scalar video instruction (`vadd.….add d, a, b, c`).
    VideoOp2 {
        /// `d = tmp + c`.
        Add = ".add",
        /// `d = min(tmp, c)`.
        Min = ".min",
        /// `d = max(tmp, c)`.
        Max = ".max",
    }
}

keyword_enum! {
    /// The right shift `vmad` applies to its intermediate result.
    VideoScale {
        /// Shift right by 7.
        Shr7 = ".shr7",
        /// Shift right by 15.
        Shr15 = ".shr15",
    }
}

/// What the video instructions add to the common modifiers (all default: not written).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct VideoMods {
    /// Destination selector: merge the (truncated) result into this part of `c`.
    pub dsel: Option<VideoSel>,
    /// Part of `a` read.
    pub asel: Option<VideoSel>,
    /// Part of `b` read.
    pub bsel: Option<VideoSel>,
    /// Secondary operation with `c`.
    pub op2: Option<VideoOp2>,
    /// `vmad` scaling.
    pub scale: Option<VideoScale>,
    /// `vmad.po`: `(a*b) + c + 1`.
    pub po: bool,
    /// `vmad`: `-a` written.
    pub neg_a: bool,
    /// `vmad`: `-b` written.
    pub neg_b: bool,
    /// `vmad`: `-c` written.
    pub neg_c: bool,
}

impl VideoMods {
    /// True when nothing video-specific was written.
    pub fn is_empty(&self) -> bool {
        *self == VideoMods::default()
    }
}
