//! The operands of the scalar video instructions: a selector written on an operand (`%r2.b1`,
//! `%r1.h0`) and `vmad`'s negations (`-%r3`) move into [`VideoMods`], leaving plain registers
//! for the rest of lowering, so every analysis sees ordinary register operands.
//!
//! ```text
//! vabsdiff.u32.u32.u32 %r1.h0, %r2.b0, %r3, %r4;  // operands %r1, %r2, %r3, %r4; dsel h0, asel b0
//! vmad.s32.s32.s32 %r1, -%r2, %r3, %r4;           // neg_a
//! ```

use alloc::format;
use alloc::vec::Vec;

use super::function::BodyCx;
use crate::diagnostic::Diagnostic;
use crate::ir::{Opcode, VideoMods, VideoSel};
use crate::ptx::ast::{Instruction, OperandAst};

impl<'a> BodyCx<'_, 'a> {
    /// The operands of video instruction `inst` with selectors and negations taken off (and
    /// recorded in `video`); misplaced ones are reported.
    pub(super) fn video_operands(&mut self, inst: &Instruction<'a>, video: &mut VideoMods) -> Vec<OperandAst<'a>> {
        let n = inst.operands.len();
        let mut out = Vec::with_capacity(n);
        for (i, op) in inst.operands.iter().enumerate() {
            let (op, negated) = match op {
                OperandAst::Neg(inner, span) => {
                    if inst.opcode != Opcode::Vmad || i == 0 || video.po {
                        self.m.diags.push(
                            Diagnostic::error(*span, "only the sources of 'vmad' (without .po) may be negated")
                                .with_hint("write the operand without '-'"),
                        );
                    }
                    (inner.as_ref(), true)
                }
                other => (other, false),
            };
            let slot = match i {
                0 => &mut video.dsel,
                1 => &mut video.asel,
                2 => &mut video.bsel,
                _ => &mut None,
            };
            let plain = match op {
                OperandAst::Name { name, component: Some(c) } => {
                    match VideoSel::from_keyword(c.text) {
                        Some(sel) if i < 3 => *slot = Some(sel),
                        _ => self.m.diags.push(
                            Diagnostic::error(c.span, format!("'{}' is not a selector of this operand", c.text))
                                .with_hint("a, b and a merging d take .b0, .b1, .b2, .b3, .h0 or .h1; c takes none"),
                        ),
                    }
                    OperandAst::Name { name: *name, component: None }
                }
                other => other.clone(),
            };
            match i {
                1 => video.neg_a = negated,
                2 => video.neg_b = negated,
                3 => video.neg_c = negated,
                _ => {}
            }
            out.push(plain);
        }
        self.check_video_forms(inst, video);
        out
    }

    /// The combinations the ISA allows: a merge (`d.dsel`) needs `c` and excludes a secondary
    /// operation; a secondary operation needs `c`; `vmad` has no selector on `d`.
    fn check_video_forms(&mut self, inst: &Instruction<'a>, video: &VideoMods) {
        let op = inst.opcode;
        let has_c = inst.operands.len() == 4;
        let problem = if op == Opcode::Vmad && video.dsel.is_some() {
            Some("'vmad' takes no selector on its destination")
        } else if op == Opcode::Vmad && video.neg_c && (video.neg_a != video.neg_b) {
            Some("'vmad' negates either the product a*b or c, not both")
        } else if op == Opcode::Vmad {
            None
        } else if video.dsel.is_some() && video.op2.is_some() {
            Some("a merge into d.sel and a secondary operation cannot be combined")
        } else if (video.dsel.is_some() || video.op2.is_some()) != has_c {
            Some(if has_c {
                "the fourth operand c needs a secondary operation (.add, .min, .max) or a selector on d"
            } else {
                "a secondary operation or a merge into d.sel needs a fourth operand c"
            })
        } else {
            None
        };
        if let Some(msg) = problem {
            self.m.diags.push(Diagnostic::error(inst.span, msg));
        }
    }
}
