//! Decoding memory instructions: `ld`, `ldu`, `st`, `atom`, `red`, `cp.async`, `cvta`,
//! `isspacep`, `ldmatrix` and the `wmma` family.
//!
//! ```text
//! ld.global.v4.f32 {%f1, %f2, %f3, %f4}, [%rd1+16];   // Op::Ld { ty: f32, d: [4 regs], addr }
//! ```

use alloc::format;
use alloc::string::String;

use super::operand::space_of;
use super::ops::{Ops, R};
use crate::exec::program::{Dst, Op, Src};
use crate::ir::{Layout, Opcode, Operand, Type};

/// The op of a memory instruction, `None` for other opcodes.
pub(super) fn decode(o: &Ops<'_, '_>) -> Option<R<Op>> {
    decode_inner(o).transpose()
}

fn decode_inner(o: &Ops<'_, '_>) -> R<Option<Op>> {
    use Opcode as O;
    let (inst, cx, mods) = (o.inst, o.cx, &o.inst.mods);
    let entry = cx.is_entry();
    Ok(Some(match inst.opcode {
        O::Cvta | O::Isspacep => {
            let s = mods.space.ok_or("missing state space")?;
            let space = space_of(s, entry).ok_or_else(|| format!("{s} is not modelled"))?;
            if inst.opcode == O::Cvta {
                Op::Cvta { to_generic: !mods.to_space, space, d: o.d(0)?, a: o.s_untyped(1)? }
            } else {
                Op::Isspacep { space, d: o.d(0)?, a: o.s_untyped(1)? }
            }
        }
        O::Ld | O::Ldu => Op::Ld { ty: o.ty()?, d: cx.dsts(o.op(0)?)?, addr: cx.mem(o.op(1)?, mods.space)? },
        O::St => Op::St { ty: o.ty()?, s: cx.srcs(o.op(1)?, inst.ty())?, addr: cx.mem(o.op(0)?, mods.space)? },
        O::Atom | O::Red if mods.vec.is_some() => return Err("vector atomics are not modelled".into()),
        O::Atom => Op::Atom {
            op: mods.atom_op.ok_or("missing operation")?,
            ty: o.ty()?,
            d: o.d(0)?,
            addr: cx.mem(o.op(1)?, mods.space)?,
            b: o.s(2)?,
            c: o.s_or0(3)?,
        },
        O::Red => Op::Atom {
            op: mods.atom_op.ok_or("missing operation")?,
            ty: o.ty()?,
            d: Dst::Sink,
            addr: cx.mem(o.op(0)?, mods.space)?,
            b: o.s(1)?,
            c: Src::Imm(0),
        },
        O::CpAsync => {
            let size = match o.op(2)? {
                Operand::Imm(i) => i.bits() as u32,
                _ => return Err("cp.async needs a constant size".into()),
            };
            let has_src_size = inst.operands.len() >= if mods.l2_cache_hint { 5 } else { 4 };
            let src_size = if has_src_size { Some(o.s_untyped(3)?) } else { None };
            if matches!(src_size, Some(Src::Pred(..))) {
                return Err("cp.async with an ignore-src predicate is not modelled".into());
            }
            Op::CpAsync {
                dst: cx.mem(o.op(0)?, mods.space)?,
                src: cx.mem(o.op(1)?, mods.src_space.or(Some(crate::ir::StateSpace::Global)))?,
                size,
                src_size,
            }
        }
        O::Ldmatrix => {
            let count = match mods.matrices {
                Some(crate::ir::MatrixCount::X1) => 1,
                Some(crate::ir::MatrixCount::X2) => 2,
                _ => 4,
            };
            Op::Ldmatrix { count, trans: mods.trans, d: cx.dsts(o.op(0)?)?, addr: cx.mem(o.op(1)?, mods.space)? }
        }
        O::WmmaLoad | O::WmmaStore | O::WmmaMma => decode_wmma(o)?,
        _ => return Ok(None),
    }))
}

fn decode_wmma(o: &Ops<'_, '_>) -> R<Op> {
    let (inst, cx, mods) = (o.inst, o.cx, &o.inst.mods);
    let shape = mods.shape.ok_or("missing shape")?;
    let shape = (shape.m, shape.n, shape.k);
    let t = |i: usize| inst.types.get(i).ok_or_else(|| String::from("missing type"));
    let stride = |i: usize| if inst.operands.len() > i { o.s_untyped(i).map(Some) } else { Ok(None) };
    let layout = mods.layout_a.unwrap_or(Layout::Row);
    let check = |ty: Type| {
        if crate::exec::semantics::wmma::supported(shape, ty) {
            Ok(())
        } else {
            Err(format!("wmma .m{}n{}k{} with {ty} is not modelled", shape.0, shape.1, shape.2))
        }
    };
    Ok(match inst.opcode {
        Opcode::WmmaLoad => {
            let ty = t(0)?;
            check(ty)?;
            let frag = mods.frag.ok_or("missing fragment")?;
            Op::WmmaLoad {
                frag,
                shape,
                ty,
                layout,
                d: cx.dsts(o.op(0)?)?,
                addr: cx.mem(o.op(1)?, mods.space)?,
                stride: stride(2)?,
            }
        }
        Opcode::WmmaStore => {
            let ty = t(0)?;
            check(ty)?;
            Op::WmmaStore {
                shape,
                ty,
                layout,
                s: cx.srcs(o.op(1)?, None)?,
                addr: cx.mem(o.op(0)?, mods.space)?,
                stride: stride(2)?,
            }
        }
        _ => {
            let types = match inst.types.len() {
                4 => (t(0)?, t(3)?, t(1)?),
                _ => (t(0)?, t(1)?, Type::F16),
            };
            check(types.2)?;
            Op::WmmaMma {
                shape,
                types,
                d: cx.dsts(o.op(0)?)?,
                a: cx.srcs(o.op(1)?, None)?,
                b: cx.srcs(o.op(2)?, None)?,
                c: cx.srcs(o.op(3)?, None)?,
            }
        }
    })
}
