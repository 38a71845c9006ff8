//! Decoding one instruction into an [`Op`]: the opcode, its types and modifiers choose the
//! operation; anything RegLab cannot give meaning to becomes [`Op::Unsupported`] with the reason,
//! which ends a run only if the instruction is actually executed.
//!
//! ```text
//! mad.lo.cc.u32 %r1, %r2, %r3, %r4;   // Op::Carry { op: MadLo, cin: false, cout: true, .. }
//! tex.2d.v4.f32.f32 {..}, [tex, {..}]; // Op::Unsupported("texture ... need texture hardware")
//! ```

use alloc::format;
use alloc::string::String;

use super::FnCx;
use crate::exec::program::{CarryOp, CmpTy, Dst, FMode, FTy, FloatOp, IntOp, IntTy, Op, Src};
use crate::exec::semantics::round::Mode;
use crate::ir::{FunnelMode, Inst, MulMode, Opcode, Operand, Rounding, ShiftDir, Type};

pub(super) type R<T> = Result<T, String>;

/// The float type of arithmetic, if `t` is one.
pub(crate) fn fty(t: Type) -> Option<FTy> {
    Some(match t {
        Type::F16 => FTy::F16,
        Type::F16x2 => FTy::F16x2,
        Type::Bf16 => FTy::Bf16,
        Type::Bf16x2 => FTy::Bf16x2,
        Type::F32 => FTy::F32,
        Type::F64 => FTy::F64,
        _ => return None,
    })
}

/// The integer type of `t`, if it has one.
pub(crate) fn ity(t: Type) -> Option<IntTy> {
    let bits = t.bits();
    (t.is_integer() && matches!(bits, 8 | 16 | 32 | 64)).then(|| IntTy { bits, signed: t.is_signed_int() })
}

fn cmp_ty(t: Type) -> R<CmpTy> {
    if let Some(f) = fty(t) {
        return Ok(CmpTy::Float(f));
    }
    ity(t).map(CmpTy::Int).ok_or_else(|| format!("comparisons of {t} are not modelled"))
}

/// Decodes `inst` of block `block`; errors become [`Op::Unsupported`].
pub(crate) fn decode(cx: &FnCx<'_>, inst: &Inst, block: usize) -> Op {
    match decode_inner(cx, inst, block) {
        Ok(op) => op,
        Err(msg) => Op::Unsupported(msg),
    }
}

pub(super) struct Ops<'c, 'a> {
    pub cx: &'c FnCx<'a>,
    pub inst: &'c Inst,
}

impl Ops<'_, '_> {
    pub(super) fn op(&self, i: usize) -> R<&Operand> {
        self.inst.operands.get(i).ok_or_else(|| format!("missing operand {}", i + 1))
    }
    pub(super) fn d(&self, i: usize) -> R<Dst> {
        self.cx.dst(self.op(i)?)
    }
    pub(super) fn s(&self, i: usize) -> R<Src> {
        self.cx.src(self.op(i)?, self.inst.ty())
    }
    pub(super) fn s_untyped(&self, i: usize) -> R<Src> {
        self.cx.src(self.op(i)?, None)
    }
    pub(super) fn s_or0(&self, i: usize) -> R<Src> {
        if i < self.inst.operands.len() {
            self.s(i)
        } else {
            Ok(Src::Imm(0))
        }
    }
    pub(super) fn pair(&self, i: usize) -> R<(Dst, Dst)> {
        match self.op(i)? {
            Operand::Pair(p) => Ok((self.cx.dst(&p[0])?, self.cx.dst(&p[1])?)),
            other => Ok((self.cx.dst(other)?, Dst::Sink)),
        }
    }
    pub(super) fn ty(&self) -> R<Type> {
        self.inst.ty().ok_or_else(|| String::from("missing type"))
    }
    pub(super) fn ity(&self) -> R<IntTy> {
        let t = self.ty()?;
        ity(t).ok_or_else(|| format!("{} on {t} is not modelled", self.inst.opcode.name()))
    }
    pub(super) fn fmode(&self) -> FMode {
        let m = &self.inst.mods;
        FMode { round: Mode::from_ptx(m.rounding), ftz: m.ftz, sat: m.sat, relu: m.relu, nan: m.nan }
    }
}

fn float_op(op: Opcode) -> Option<FloatOp> {
    use Opcode as O;
    Some(match op {
        O::Add => FloatOp::Add,
        O::Sub => FloatOp::Sub,
        O::Mul => FloatOp::Mul,
        O::Mad | O::Fma => FloatOp::Fma,
        O::Div => FloatOp::Div,
        O::Rcp => FloatOp::Rcp,
        O::Sqrt => FloatOp::Sqrt,
        O::Rsqrt => FloatOp::Rsqrt,
        O::Sin => FloatOp::Sin,
        O::Cos => FloatOp::Cos,
        O::Lg2 => FloatOp::Lg2,
        O::Ex2 => FloatOp::Ex2,
        O::Tanh => FloatOp::Tanh,
        O::Abs => FloatOp::Abs,
        O::Neg => FloatOp::Neg,
        O::Min => FloatOp::Min,
        O::Max => FloatOp::Max,
        O::Copysign => FloatOp::Copysign,
        O::Mov => FloatOp::Mov,
        _ => return None,
    })
}

fn int_op(inst: &Inst) -> Option<IntOp> {
    use Opcode as O;
    let mode = inst.mods.mul_mode;
    let clamp = inst.mods.funnel == Some(FunnelMode::Clamp);
    Some(match inst.opcode {
        O::Add => IntOp::Add,
        O::Sub => IntOp::Sub,
        O::Mul => match mode {
            Some(MulMode::Hi) => IntOp::MulHi,
            Some(MulMode::Wide) => IntOp::MulWide,
            _ => IntOp::MulLo,
        },
        O::Mad => match mode {
            Some(MulMode::Hi) => IntOp::MadHi,
            Some(MulMode::Wide) => IntOp::MadWide,
            _ => IntOp::MadLo,
        },
        O::Mul24 if mode == Some(MulMode::Hi) => IntOp::Mul24Hi,
        O::Mul24 => IntOp::Mul24Lo,
        O::Mad24 if mode == Some(MulMode::Hi) => IntOp::Mad24Hi,
        O::Mad24 => IntOp::Mad24Lo,
        O::Sad => IntOp::Sad,
        O::Div => IntOp::Div,
        O::Rem => IntOp::Rem,
        O::Abs => IntOp::Abs,
        O::Neg => IntOp::Neg,
        O::Min => IntOp::Min,
        O::Max => IntOp::Max,
        O::And => IntOp::And,
        O::Or => IntOp::Or,
        O::Xor => IntOp::Xor,
        O::Not => IntOp::Not,
        O::Cnot => IntOp::Cnot,
        O::Shl => IntOp::Shl,
        O::Shr => IntOp::Shr,
        O::Popc => IntOp::Popc,
        O::Clz => IntOp::Clz,
        O::Brev => IntOp::Brev,
        O::Bfind if inst.mods.shiftamt => IntOp::BfindShiftAmt,
        O::Bfind => IntOp::Bfind,
        O::Bfe => IntOp::Bfe,
        O::Fns => IntOp::Fns,
        O::Bmsk if clamp => IntOp::BmskClamp,
        O::Bmsk => IntOp::Bmsk,
        O::Szext if clamp => IntOp::SzextClamp,
        O::Szext => IntOp::Szext,
        O::Mov => IntOp::Mov,
        _ => return None,
    })
}

#[allow(clippy::too_many_lines, reason = "the opcode dispatch")]
fn decode_inner(cx: &FnCx<'_>, inst: &Inst, block: usize) -> R<Op> {
    use Opcode as O;
    let o = Ops { cx, inst };
    let mods = &inst.mods;
    let ty = inst.ty();
    if ty == Some(Type::B128) {
        return Err("128-bit values (.b128) are not modelled".into());
    }
    let is_pred = ty == Some(Type::Pred);
    match inst.opcode {
        op if op.is_video() => return super::video::decode(&o),
        O::Mov => return decode_mov(&o),
        O::And | O::Or | O::Xor | O::Not if is_pred => {
            let op = int_op(inst).ok_or("logic")?;
            let b = if inst.opcode == O::Not { Src::Imm(0) } else { o.s(2)? };
            return Ok(Op::PredLogic { op, d: o.d(0)?, a: o.s(1)?, b });
        }
        O::Copysign | O::Rcp | O::Sqrt | O::Rsqrt | O::Sin | O::Cos | O::Lg2 | O::Ex2 | O::Tanh | O::Fma => {
            return float(&o)
        }
        O::Add | O::Sub | O::Mul | O::Mad | O::Div | O::Abs | O::Neg | O::Min | O::Max
            if ty.and_then(fty).is_some() =>
        {
            return float(&o)
        }
        O::Add | O::Sub | O::Mad if mods.cc => {
            let op = match inst.opcode {
                O::Add => CarryOp::Add,
                O::Sub => CarryOp::Sub,
                _ if mods.mul_mode == Some(MulMode::Hi) => CarryOp::MadHi,
                _ => CarryOp::MadLo,
            };
            return carry(&o, op, false);
        }
        O::Addc => return carry(&o, CarryOp::Add, true),
        O::Subc => return carry(&o, CarryOp::Sub, true),
        O::Madc => {
            let op = if mods.mul_mode == Some(MulMode::Hi) { CarryOp::MadHi } else { CarryOp::MadLo };
            return carry(&o, op, true);
        }
        O::Shl | O::Shr => {
            return Ok(Op::Int {
                op: int_op(inst).ok_or("shift")?,
                ty: o.ity()?,
                sat: false,
                d: o.d(0)?,
                a: o.s(1)?,
                b: o.s_untyped(2)?,
                c: Src::Imm(0),
            });
        }
        O::Bfe => {
            return Ok(Op::Int {
                op: IntOp::Bfe,
                ty: o.ity()?,
                sat: false,
                d: o.d(0)?,
                a: o.s(1)?,
                b: o.s_untyped(2)?,
                c: o.s_untyped(3)?,
            });
        }
        O::Bfi => {
            return Ok(Op::Bfi {
                ty: o.ity()?,
                d: o.d(0)?,
                a: o.s(1)?,
                b: o.s(2)?,
                c: o.s_untyped(3)?,
                e: o.s_untyped(4)?,
            });
        }
        _ => {}
    }
    if let Some(op) = int_op(inst) {
        return Ok(Op::Int { op, ty: o.ity()?, sat: mods.sat, d: o.d(0)?, a: o.s(1)?, b: o.s_or0(2)?, c: o.s_or0(3)? });
    }
    decode_other(&o, block)
}

fn float(o: &Ops<'_, '_>) -> R<Op> {
    let t = o.ty()?;
    let ty = fty(t).ok_or_else(|| format!("{} on {t} is not modelled", o.inst.opcode.name()))?;
    let op = float_op(o.inst.opcode).ok_or("float op")?;
    Ok(Op::Float { op, ty, mode: o.fmode(), d: o.d(0)?, a: o.s(1)?, b: o.s_or0(2)?, c: o.s_or0(3)? })
}

fn carry(o: &Ops<'_, '_>, op: CarryOp, cin: bool) -> R<Op> {
    let c = if matches!(op, CarryOp::MadLo | CarryOp::MadHi) { o.s(3)? } else { Src::Imm(0) };
    Ok(Op::Carry { op, ty: o.ity()?, cin, cout: o.inst.mods.cc, d: o.d(0)?, a: o.s(1)?, b: o.s(2)?, c })
}

fn decode_mov(o: &Ops<'_, '_>) -> R<Op> {
    let t = o.ty()?;
    let bits = t.bits();
    match (o.op(0)?, o.op(1)?) {
        (Operand::Vector(items), _) => {
            let ds = o.cx.dsts(o.op(0)?)?;
            Ok(Op::Unpack { ds, a: o.s(1)?, part_bits: bits / items.len().max(1) as u32 })
        }
        (_, Operand::Vector(items)) => {
            let parts = o.cx.srcs(o.op(1)?, None)?;
            Ok(Op::Pack { d: o.d(0)?, parts, part_bits: bits / items.len().max(1) as u32 })
        }
        _ if t == Type::Pred => Ok(Op::PredLogic { op: IntOp::Mov, d: o.d(0)?, a: o.s(1)?, b: Src::Imm(0) }),
        _ => {
            let ty = IntTy { bits: bits.clamp(8, 64).next_power_of_two(), signed: false };
            Ok(Op::Int { op: IntOp::Mov, ty, sat: false, d: o.d(0)?, a: o.s(1)?, b: Src::Imm(0), c: Src::Imm(0) })
        }
    }
}

fn decode_other(o: &Ops<'_, '_>, block: usize) -> R<Op> {
    use Opcode as O;
    let (inst, cx, mods) = (o.inst, o.cx, &o.inst.mods);
    Ok(match inst.opcode {
        O::Setp | O::Set => {
            let stype = inst.types.last().ok_or("missing type")?;
            let ty = cmp_ty(stype)?;
            let cmp = mods.cmp.ok_or("missing comparison")?;
            let combine = match (mods.bool_op, inst.operands.get(3)) {
                (Some(b), Some(_)) => Some((b, o.s_untyped(3)?)),
                _ => None,
            };
            if inst.opcode == O::Setp {
                let (d, d2) = o.pair(0)?;
                Op::Setp { cmp, ty, ftz: mods.ftz, d, d2, a: o.s(1)?, b: o.s(2)?, combine }
            } else {
                let packed = matches!(stype, Type::F16x2 | Type::Bf16x2);
                let one = match inst.ty() {
                    Some(Type::F32) => u64::from(1.0f32.to_bits()),
                    Some(Type::F16 | Type::F16x2) => 0x3C00,
                    Some(Type::Bf16 | Type::Bf16x2) => 0x3F80,
                    _ if packed => 0xFFFF,
                    _ => 0xFFFF_FFFF,
                };
                let (a, b) = (cx.src(o.op(1)?, Some(stype))?, cx.src(o.op(2)?, Some(stype))?);
                Op::Set { cmp, ty, ftz: mods.ftz, one, d: o.d(0)?, a, b, combine }
            }
        }
        O::Selp => Op::Selp { d: o.d(0)?, a: o.s(1)?, b: o.s(2)?, p: o.s_untyped(3)? },
        O::Slct => {
            let cty = cmp_ty(inst.types.last().ok_or("missing type")?)?;
            Op::Slct { ty: cty, d: o.d(0)?, a: o.s(1)?, b: o.s(2)?, c: o.s_untyped(3)? }
        }
        O::Testp => {
            let t = o.ty()?;
            Op::Testp {
                op: mods.testp.ok_or("missing property")?,
                ty: fty(t).ok_or("testp type")?,
                d: o.d(0)?,
                a: o.s(1)?,
            }
        }
        O::Dp4a | O::Dp2a => {
            let (ta, tb) = (inst.types.get(0).ok_or("type")?, inst.types.get(1).ok_or("type")?);
            let (a_signed, b_signed) = (ta.is_signed_int(), tb.is_signed_int());
            let (d, a, b, c) = (o.d(0)?, o.s_untyped(1)?, o.s_untyped(2)?, o.s_untyped(3)?);
            if inst.opcode == O::Dp4a {
                Op::Dp4a { a_signed, b_signed, d, a, b, c }
            } else {
                Op::Dp2a { a_signed, b_signed, hi: mods.mul_mode == Some(MulMode::Hi), d, a, b, c }
            }
        }
        O::CvtPack => {
            let to = o.ty()?;
            if !mods.sat || !matches!(to, Type::U4 | Type::S4 | Type::U8 | Type::S8 | Type::U16 | Type::S16) {
                return Err(format!("cvt.pack{} to {to} is not modelled", if mods.sat { ".sat" } else { "" }));
            }
            let c = if inst.operands.len() > 3 { o.s_untyped(3)? } else { Src::Imm(0) };
            let (d, a, b) = (o.d(0)?, o.s_untyped(1)?, o.s_untyped(2)?);
            Op::CvtPackSat { bits: to.bits(), signed: to.is_signed_int(), d, a, b, c }
        }
        O::Prmt => Op::Prmt { mode: mods.prmt, d: o.d(0)?, a: o.s(1)?, b: o.s(2)?, c: o.s_untyped(3)? },
        O::Lop3 if inst.operands.len() == 5 => {
            Op::Lop3 { d: o.d(0)?, a: o.s(1)?, b: o.s(2)?, c: o.s(3)?, lut: o.s_untyped(4)? }
        }
        O::Shf => Op::Shf {
            left: mods.shift_dir == Some(ShiftDir::L),
            clamp: mods.funnel == Some(FunnelMode::Clamp),
            d: o.d(0)?,
            a: o.s(1)?,
            b: o.s(2)?,
            c: o.s_untyped(3)?,
        },
        O::Cvt => {
            let (to, from) = (inst.types.get(0).ok_or("type")?, inst.types.get(1).ok_or("type")?);
            let int_round =
                matches!(mods.rounding, Some(Rounding::Rni | Rounding::Rzi | Rounding::Rmi | Rounding::Rpi));
            let b = if inst.operands.len() > 2 { Some(cx.src(o.op(2)?, Some(from))?) } else { None };
            Op::Cvt {
                to,
                from,
                mode: Mode::from_ptx(mods.rounding),
                int_round,
                ftz: mods.ftz,
                sat: mods.sat,
                satfinite: mods.satfinite,
                relu: mods.relu,
                d: o.d(0)?,
                a: cx.src(o.op(1)?, Some(from))?,
                b,
            }
        }
        _ => return super::memory::decode(o).unwrap_or_else(|| super::control::decode(o, block)),
    })
}
