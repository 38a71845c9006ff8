//! Decoding operands: registers to frame slots, immediates to the bits of the instruction type,
//! symbols to addresses in their state space (global addresses, shared and constant offsets,
//! kernel-parameter offsets, local-frame offsets), `[base+offset]` to [`MemRef`]s.
//!
//! ```text
//! add.f32 %f1, %f2, 1.5;       // 1.5 is an f64 literal → Imm(0x3FC00000)
//! ld.param.u64 %rd1, [p];      // kernel param → MemRef { base: Imm(0), space: Param }
//! mov.u32 %r1, sdata;          // shared variable → Imm(its shared offset)
//! ```

use alloc::boxed::Box;
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use super::{FnCx, Slot};
use crate::exec::memory::Space;
use crate::exec::program::{CallValue, Dst, MemRef, Src};
use crate::exec::semantics::round::{self, Mode};
use crate::ir::{AddressBase, Imm, Operand, StateSpace, Symbol, Type};

/// The executor's space for a PTX state space (`None` for spaces it cannot address).
pub(crate) fn space_of(s: StateSpace, entry: bool) -> Option<Space> {
    Some(match s {
        StateSpace::Global => Space::Global,
        StateSpace::Shared | StateSpace::SharedCta | StateSpace::SharedCluster => Space::Shared,
        StateSpace::Local => Space::Local,
        StateSpace::Const => Space::Const,
        StateSpace::Param | StateSpace::ParamEntry if entry => Space::Param,
        StateSpace::Param | StateSpace::ParamEntry | StateSpace::ParamFunc => Space::Local,
        StateSpace::Reg | StateSpace::Sreg | StateSpace::Tex => return None,
    })
}

/// The bits of an immediate for an instruction of type `ty`.
pub(crate) fn imm_bits(imm: Imm, ty: Option<Type>) -> u64 {
    let f64_to = |x: f64, t: Type| match t {
        Type::F32 => round::round(x, 0.0, round::F32, Mode::NearestEven, false),
        Type::F16 => round::round(x, 0.0, round::F16, Mode::NearestEven, false),
        Type::Bf16 => round::round(x, 0.0, round::BF16, Mode::NearestEven, false),
        _ => x.to_bits(),
    };
    match (imm, ty) {
        (Imm::Int(v), Some(t @ (Type::F32 | Type::F64 | Type::F16 | Type::Bf16))) => f64_to(v as i64 as f64, t),
        (Imm::F32(b), Some(t @ (Type::F64 | Type::F16 | Type::Bf16))) => f64_to(f64::from(f32::from_bits(b)), t),
        (Imm::F64(b), Some(t @ (Type::F32 | Type::F16 | Type::Bf16))) => f64_to(f64::from_bits(b), t),
        (imm, _) => imm.bits(),
    }
}

fn add(src: Src, offset: i64) -> Src {
    match src {
        Src::Imm(v) => Src::Imm(v.wrapping_add(offset as u64)),
        Src::Frame(v) => Src::Frame(v.wrapping_add(offset as u64)),
        other => other,
    }
}

impl FnCx<'_> {
    fn var_key(&self, sym: Symbol) -> Option<crate::exec::image::VarKey> {
        match sym {
            Symbol::Global(h) => Some((None, h)),
            Symbol::Local(h) => Some((Some(self.handle), h)),
            _ => None,
        }
    }

    /// The space a symbol lives in and its address there.
    pub(crate) fn symbol(&self, sym: Symbol, offset: i64) -> Result<(Option<Space>, Src), String> {
        let (space, value) = match sym {
            Symbol::Global(_) | Symbol::Local(_) => {
                let key = self.var_key(sym).ok_or("bad symbol")?;
                let var = match sym {
                    Symbol::Global(h) => self.module.globals.get(h),
                    Symbol::Local(h) => self.func.body.as_ref().and_then(|b| b.vars.get(h)),
                    _ => None,
                }
                .ok_or("a variable that does not exist")?;
                if let Some(&a) = self.image.globals.get(&key) {
                    (Some(Space::Global), Src::Imm(a))
                } else if let Some(&o) = self.image.consts.get(&key) {
                    (Some(Space::Const), Src::Imm(o))
                } else if let Some(&o) = self.shared.get(&key) {
                    (Some(Space::Shared), Src::Imm(o))
                } else if let Some(&o) = (key.0.is_some()).then(|| self.frame.get(&key.1)).flatten() {
                    (Some(Space::Local), Src::Frame(o))
                } else {
                    return Err(format!("'{}' lives in {} space, which RegLab does not model", var.name, var.space));
                }
            }
            Symbol::Param(i) if self.is_entry() => {
                let (off, _) = self.param_layout.get(i as usize).copied().ok_or("no such parameter")?;
                (Some(Space::Param), Src::Imm(off))
            }
            Symbol::Param(i) => self.frame_value(self.params.get(i as usize))?,
            Symbol::Return(i) => self.frame_value(self.returns.get(i as usize))?,
            Symbol::Function(h) => (None, Src::Imm(self.image.func_address(h))),
            Symbol::External(i) => {
                let name = self.module.externals.get(i as usize).map_or("?", String::as_str);
                return Err(format!("'{name}' is an external symbol this module does not define"));
            }
        };
        Ok((space, add(value, offset)))
    }

    fn frame_value(&self, v: Option<&CallValue>) -> Result<(Option<Space>, Src), String> {
        match v {
            Some(CallValue::Frame { offset, .. }) => Ok((Some(Space::Local), Src::Frame(*offset))),
            _ => Err("a register parameter used as an address".into()),
        }
    }

    /// A source operand for an instruction of type `ty`.
    pub(crate) fn src(&self, op: &Operand, ty: Option<Type>) -> Result<Src, String> {
        Ok(match op {
            Operand::Reg(h) => match self.slots.get(h.index()) {
                Some(Slot::Reg(r, _)) => Src::Reg(*r),
                Some(Slot::Pred(p)) => Src::Pred(*p, false),
                None => return Err("unknown register".into()),
            },
            Operand::NotReg(h) => match self.slots.get(h.index()) {
                Some(Slot::Pred(p)) => Src::Pred(*p, true),
                _ => return Err("'!' applied to a non-predicate".into()),
            },
            Operand::Imm(i) => Src::Imm(imm_bits(*i, ty)),
            Operand::Special(s) => Src::Special(*s),
            Operand::Symbol { symbol, offset } => self.symbol(*symbol, *offset)?.1,
            other => return Err(format!("{} cannot be a source here", other.kind_in_words())),
        })
    }

    /// A destination operand.
    pub(crate) fn dst(&self, op: &Operand) -> Result<Dst, String> {
        Ok(match op {
            Operand::Reg(h) => match self.slots.get(h.index()) {
                Some(Slot::Reg(r, m)) => Dst::Reg(*r, *m),
                Some(Slot::Pred(p)) => Dst::Pred(*p),
                None => return Err("unknown register".into()),
            },
            Operand::Sink => Dst::Sink,
            other => return Err(format!("{} cannot be a destination", other.kind_in_words())),
        })
    }

    /// Destinations of a vector (or one destination).
    pub(crate) fn dsts(&self, op: &Operand) -> Result<Box<[Dst]>, String> {
        match op {
            Operand::Vector(items) => {
                items.iter().map(|o| self.dst(o)).collect::<Result<Vec<_>, _>>().map(Vec::into_boxed_slice)
            }
            other => Ok(Box::new([self.dst(other)?])),
        }
    }

    /// Sources of a vector (or one source).
    pub(crate) fn srcs(&self, op: &Operand, ty: Option<Type>) -> Result<Box<[Src]>, String> {
        match op {
            Operand::Vector(items) => {
                items.iter().map(|o| self.src(o, ty)).collect::<Result<Vec<_>, _>>().map(Vec::into_boxed_slice)
            }
            other => Ok(Box::new([self.src(other, ty)?])),
        }
    }

    /// A memory operand with the instruction's state space (`None`: generic).
    pub(crate) fn mem(&self, op: &Operand, space: Option<StateSpace>) -> Result<MemRef, String> {
        let Operand::Address(a) = op else { return Err("expected an address [..]".into()) };
        let inst_space = match space {
            Some(s) => Some(space_of(s, self.is_entry()).ok_or_else(|| format!("{s} addresses are not modelled"))?),
            None => None,
        };
        Ok(match a.base {
            AddressBase::Reg(h) => {
                MemRef { base: self.src(&Operand::Reg(h), None)?, offset: a.offset, space: inst_space }
            }
            AddressBase::Symbol(sym) => {
                let (natural, value) = self.symbol(sym, 0)?;
                MemRef { base: value, offset: a.offset, space: natural.or(inst_space) }
            }
            AddressBase::Absolute => MemRef { base: Src::Imm(0), offset: a.offset, space: inst_space },
        })
    }

    /// An argument or return value of a call.
    pub(crate) fn call_value(&self, op: &Operand, dest: bool) -> Result<CallValue, String> {
        match op {
            Operand::Symbol { symbol, offset } => match self.symbol(*symbol, *offset)? {
                (Some(Space::Local), Src::Frame(offset)) => {
                    let size = match symbol {
                        Symbol::Local(h) => self
                            .func
                            .body
                            .as_ref()
                            .and_then(|b| b.vars.get(*h))
                            .map_or(0, |v| crate::exec::image::var_size(v) as u32),
                        Symbol::Param(i) | Symbol::Return(i) => {
                            let list = if matches!(symbol, Symbol::Param(_)) { &self.params } else { &self.returns };
                            match list.get(*i as usize) {
                                Some(CallValue::Frame { size, .. }) => *size,
                                _ => 0,
                            }
                        }
                        _ => 0,
                    };
                    Ok(CallValue::Frame { offset, size })
                }
                (_, v) if !dest => Ok(CallValue::Value(v)),
                _ => Err("a call result must go to a .param variable or a register".into()),
            },
            _ if dest => Ok(CallValue::Reg(self.dst(op)?)),
            _ => Ok(CallValue::Value(self.src(op, None)?)),
        }
    }
}
