//! The text form of the scalar video instructions: modifiers in the PTX ISA's order and the
//! selectors and negations written on the operands, so the listing reads back as the same PTX.
//!
//! ```text
//! vadd.s32.u32.s32.sat.add %r1, %r2.b0, %r3.h1, %r4;
//! vmad.s32.s32.s32.shr7 %r1, -%r2, %r3, %r4;
//! ```

use core::fmt::{self, Write};

use super::inst::Inst;
use super::opcode::Opcode;

/// Writes the modifier words of video instruction `inst` (types included).
pub fn video_words(out: &mut dyn Write, inst: &Inst) -> fmt::Result {
    let (m, v) = (&inst.mods, &inst.mods.video);
    for t in inst.types.iter() {
        out.write_str(t.as_str())?;
    }
    if let Some(cmp) = m.cmp {
        write!(out, "{cmp}")?;
    }
    if v.po {
        out.write_str(".po")?;
    }
    if m.sat {
        out.write_str(".sat")?;
    }
    if let Some(mode) = m.funnel {
        write!(out, "{mode}")?;
    }
    if let Some(scale) = v.scale {
        write!(out, "{scale}")?;
    }
    if let Some(op2) = v.op2 {
        write!(out, "{op2}")?;
    }
    Ok(())
}

/// The `-` written before operand `i` of `inst` (`vmad` only).
pub fn operand_prefix(inst: &Inst, i: usize) -> &'static str {
    let v = &inst.mods.video;
    let negated = match i {
        1 => v.neg_a,
        2 => v.neg_b,
        3 => v.neg_c,
        _ => false,
    };
    if inst.opcode == Opcode::Vmad && negated {
        "-"
    } else {
        ""
    }
}

/// The selector written after operand `i` of `inst` (`.b0` … `.h1`), if any.
pub fn operand_suffix(inst: &Inst, i: usize) -> &'static str {
    if !inst.opcode.is_video() {
        return "";
    }
    let v = &inst.mods.video;
    let sel = match i {
        0 => v.dsel,
        1 => v.asel,
        2 => v.bsel,
        _ => None,
    };
    sel.map_or("", |s| s.as_str())
}
