//! Decoding the scalar video instructions into [`Op::Video`]: the types give each operand's
//! signedness, the modifiers the selectors, secondary operation and `vmad` forms.
//!
//! ```text
//! vset.s32.u32.lt.add %r1, %r2.b0, %r3, %r4;   // VideoSpec { op: Set(Lt), a_signed, op2: Add, .. }
//! ```

use super::ops::{Ops, R};
use crate::exec::program::{Op, Src};
use crate::exec::semantics::video::{VideoOp, VideoSpec};
use crate::ir::{CmpOp, FunnelMode, Opcode, Type};

/// The [`Op::Video`] of a video instruction.
pub(super) fn decode(o: &Ops<'_, '_>) -> R<Op> {
    let inst = o.inst;
    let (m, v) = (&inst.mods, &inst.mods.video);
    let op = match inst.opcode {
        Opcode::Vadd => VideoOp::Add,
        Opcode::Vsub => VideoOp::Sub,
        Opcode::Vabsdiff => VideoOp::Absdiff,
        Opcode::Vmin => VideoOp::Min,
        Opcode::Vmax => VideoOp::Max,
        Opcode::Vshl => VideoOp::Shl,
        Opcode::Vshr => VideoOp::Shr,
        Opcode::Vmad => VideoOp::Mad,
        Opcode::Vset => match m.cmp {
            Some(c @ (CmpOp::Eq | CmpOp::Ne | CmpOp::Lt | CmpOp::Le | CmpOp::Gt | CmpOp::Ge)) => VideoOp::Set(c),
            other => {
                let given = other.map_or("no comparison", CmpOp::as_str);
                return Err(alloc::format!("vset compares with .eq/.ne/.lt/.le/.gt/.ge, not {given}"));
            }
        },
        other => return Err(alloc::format!("{} is not a video instruction", other.name())),
    };
    // vset has no destination type: its types are atype, btype.
    let skip = usize::from(inst.opcode != Opcode::Vset);
    let ty = |i: usize| inst.types.get(i).ok_or_else(|| alloc::string::String::from("missing type"));
    let (dt, at, bt) = (if skip == 1 { ty(0)? } else { Type::U32 }, ty(skip)?, ty(skip + 1)?);
    let spec = VideoSpec {
        op,
        d_signed: dt == Type::S32,
        a_signed: at == Type::S32,
        b_signed: bt == Type::S32,
        sat: m.sat,
        dsel: v.dsel,
        asel: v.asel,
        bsel: v.bsel,
        op2: v.op2,
        clamp: m.funnel == Some(FunnelMode::Clamp),
        neg_product: v.neg_a != v.neg_b,
        neg_c: v.neg_c,
        po: v.po,
        scale: v.scale,
    };
    let src = |i: usize, t: Type| o.cx.src(o.op(i)?, Some(t));
    let c = if inst.operands.len() > 3 { src(3, dt)? } else { Src::Imm(0) };
    Ok(Op::Video { spec, d: o.d(0)?, a: src(1, at)?, b: src(2, bt)?, c })
}
