//! Operand rules of the verifier: writable destinations, addresses and labels where PTX wants
//! them, predicate registers, register widths against the instruction type, vector lengths,
//! immediates that fit, and call signatures.
//!
//! ```text
//! mul.wide.s32 %rd1, %r1, 4;   // destination 64 bits (twice the type), sources 32
//! ld.global.s8 %r1, [%rd1];    // ld/st/cvt may use registers wider than the type
//! setp.lt.s32 %p1|%p2, ...;    // both destinations are predicates
//! ```

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use super::inst::{Imm, Inst, Operand, Symbol};
use super::modifiers::{MulMode, VoteMode};
use super::opcode::Opcode;
use super::print_inst::{write_opcode, Names};
use super::types::Type;
use crate::diagnostic::{Diagnostic, Span};

/// What an operand position needs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Want {
    /// No check.
    Any,
    /// A predicate register (or a `!%p`).
    Pred,
    /// A register of exactly this many bits, or an immediate that fits.
    Exact(u32),
    /// A register of at least this many bits, or an immediate that fits.
    AtLeast(u32),
}

struct Checker<'a, 'n> {
    names: &'a Names<'n>,
    inst: &'a Inst,
    at: Span,
    diags: &'a mut Vec<Diagnostic>,
}

/// Checks the operands of `inst` (located at `at`), appending problems to `diags`.
pub fn check_operands(names: &Names<'_>, inst: &Inst, at: Span, diags: &mut Vec<Diagnostic>) {
    let mut c = Checker { names, inst, at, diags };
    c.guard();
    c.destinations();
    c.shapes();
    c.widths();
    if inst.opcode == Opcode::Call {
        c.call();
    }
}

fn bits(t: Option<Type>) -> u32 {
    t.map_or(0, Type::bits)
}

/// Whether integer `v` (64-bit two's complement) fits in `b` bits, signed or unsigned.
fn int_fits(v: u64, b: u32) -> bool {
    let signed = v as i64;
    b >= 64 || v < (1u64 << b) || (signed < 0 && signed >= -(1i64 << (b - 1)))
}

impl Checker<'_, '_> {
    fn opname(&self) -> String {
        let mut s = String::new();
        let _ = write_opcode(&mut s, self.inst);
        s
    }

    fn error(&mut self, message: String) {
        self.diags.push(Diagnostic::error(self.at, message));
    }

    fn reg_type(&self, op: &Operand) -> Option<Type> {
        match op {
            Operand::Reg(r) | Operand::NotReg(r) => self.names.body.regs.get(*r).map(|r| r.ty),
            _ => None,
        }
    }

    fn guard(&mut self) {
        if let Some(g) = self.inst.guard {
            if self.names.body.regs.get(g.reg).is_some_and(|r| r.ty != Type::Pred) {
                let name = self.names.body.regs.get(g.reg).map_or("", |r| r.name.as_str());
                self.error(format!("guard '{name}' is not a .pred register"));
            }
        }
    }

    fn destinations(&mut self) {
        for (i, op) in self.inst.defs().iter().enumerate() {
            let writable = match op {
                Operand::Reg(_) | Operand::Sink => true,
                Operand::Vector(items) => items.iter().all(|o| matches!(o, Operand::Reg(_) | Operand::Sink)),
                Operand::Pair(p) => p.iter().all(|o| matches!(o, Operand::Reg(_) | Operand::Sink)),
                _ => false,
            };
            if !writable {
                let op = self.opname();
                self.error(format!("operand {} of '{op}' is written, so it must be a register", i + 1));
            }
        }
    }

    /// Addresses, labels and vector lengths.
    fn shapes(&mut self) {
        use Opcode::*;
        let address_at: &[usize] = match self.inst.opcode {
            Ld | Ldu | Atom | Ldmatrix | WmmaLoad => &[1],
            St | Red | Prefetch | Prefetchu | Stmatrix | WmmaStore => &[0],
            CpAsync => &[0, 1],
            _ => &[],
        };
        for &i in address_at {
            if self.inst.operands.get(i).is_some_and(|o| !matches!(o, Operand::Address(_))) {
                let op = self.opname();
                self.error(format!("operand {} of '{op}' must be an address in [ ]", i + 1));
            }
        }
        if self.inst.opcode == Bra && !matches!(self.inst.operands.first(), Some(Operand::Label(_))) {
            self.error("'bra' needs a label".into());
        }
        let data = match self.inst.opcode {
            Ld | Ldu | Atom => self.inst.operands.first(),
            St | Red => self.inst.operands.get(1),
            Tex | Tld4 | Suld => self.inst.operands.first(),
            _ => None,
        };
        if let Some(op) = data {
            let want = self.inst.mods.vec.map_or(1, |v| v.len());
            let got = match op {
                Operand::Vector(items) => items.len(),
                _ => 1,
            };
            let lenient = matches!(self.inst.opcode, Tex | Tld4 | Suld) && self.inst.mods.vec.is_none();
            if got != want && !lenient {
                let op = self.opname();
                self.error(format!("'{op}' moves {want} element(s), but the operand has {got}"));
            }
        }
    }

    fn wants(&self) -> Vec<Want> {
        use Opcode::*;
        use Want::*;
        let t = bits(self.inst.types.first());
        let t1 = bits(self.inst.types.get(1));
        let wide = self.inst.mods.mul_mode == Some(MulMode::Wide);
        match self.inst.opcode {
            Add | Sub | Min | Max | Rem | Div | Copysign | Addc | Subc | Mul24 | And | Or | Xor => {
                alloc::vec![Exact(t); 3]
            }
            Mul if wide => alloc::vec![Exact(2 * t), Exact(t), Exact(t)],
            Mul => alloc::vec![Exact(t); 3],
            Mad | Madc if wide => alloc::vec![Exact(2 * t), Exact(t), Exact(t), Exact(2 * t)],
            Mad | Madc | Mad24 | Sad | Fma => alloc::vec![Exact(t); 4],
            Abs | Neg | Not | Cnot | Brev | Rcp | Sqrt | Rsqrt | Sin | Cos | Lg2 | Ex2 | Tanh => {
                alloc::vec![Exact(t); 2]
            }
            Popc | Clz | Bfind => alloc::vec![Exact(32), Exact(t)],
            Shl | Shr => alloc::vec![Exact(t), Exact(t), Exact(32)],
            Bfe => alloc::vec![Exact(t), Exact(t), Exact(32), Exact(32)],
            Bfi => alloc::vec![Exact(t), Exact(t), Exact(t), Exact(32), Exact(32)],
            Setp => alloc::vec![Pred, Exact(t), Exact(t), Pred],
            Set => alloc::vec![Exact(t), Exact(t1), Exact(t1), Pred],
            Selp => alloc::vec![Exact(t), Exact(t), Exact(t), Pred],
            Slct => alloc::vec![Exact(t), Exact(t), Exact(t), Exact(t1)],
            Testp => alloc::vec![Pred, Exact(t)],
            Cvt => alloc::vec![AtLeast(t), AtLeast(t1), AtLeast(t1)],
            Cvta => alloc::vec![Exact(t), Exact(t)],
            Isspacep => alloc::vec![Pred, Any],
            Ld | Ldu => alloc::vec![AtLeast(t), Any, Any],
            St => alloc::vec![Any, AtLeast(t), Any],
            Atom => alloc::vec![AtLeast(t), Any, AtLeast(t), AtLeast(t), Any],
            Red => alloc::vec![Any, AtLeast(t), Any],
            Vote if self.inst.mods.vote == Some(VoteMode::Ballot) => alloc::vec![Exact(32), Pred, Exact(32)],
            Vote => alloc::vec![Pred, Pred, Exact(32)],
            Shfl => alloc::vec![Exact(t), Exact(t), Exact(32), Exact(32), Exact(32)],
            Prmt | Dp4a | Dp2a | Shf => alloc::vec![Exact(32); 4],
            Lop3 => alloc::vec![Exact(t), Exact(t), Exact(t), Exact(t), Any, Pred],
            Activemask => alloc::vec![Exact(32)],
            _ => Vec::new(),
        }
    }

    fn widths(&mut self) {
        if self.inst.opcode == Opcode::Mov {
            self.mov();
            return;
        }
        let wants = self.wants();
        for (i, (op, want)) in self.inst.operands.iter().zip(wants).enumerate() {
            self.check(i, op, want);
        }
    }

    fn check(&mut self, i: usize, op: &Operand, want: Want) {
        match op {
            Operand::Vector(items) => items.iter().for_each(|o| self.check(i, o, want)),
            Operand::Pair(p) => {
                self.check(i, &p[0], want);
                self.check(i, &p[1], Want::Pred);
            }
            Operand::Reg(_) | Operand::NotReg(_) => {
                let Some(ty) = self.reg_type(op) else { return };
                let ok = match want {
                    Want::Any => true,
                    Want::Pred => ty == Type::Pred,
                    Want::Exact(b) => ty.bits() == b,
                    Want::AtLeast(b) => ty.bits() >= b && ty != Type::Pred || b <= 1 && ty == Type::Pred,
                };
                if !ok {
                    let expected = match want {
                        Want::Pred => String::from("a .pred register"),
                        Want::Exact(b) => format!("{b} bits"),
                        Want::AtLeast(b) => format!("at least {b} bits"),
                        Want::Any => String::new(),
                    };
                    let op = self.opname();
                    self.error(format!(
                        "operand {} of '{op}' is a {}-bit {} register, expected {expected}",
                        i + 1,
                        ty.bits(),
                        ty
                    ));
                }
            }
            Operand::Imm(Imm::Int(v)) => {
                let b = match want {
                    Want::Exact(b) | Want::AtLeast(b) => b,
                    Want::Pred => 1,
                    Want::Any => 64,
                };
                if b > 0 && !int_fits(*v, b) {
                    let op = self.opname();
                    self.error(format!("immediate operand {} of '{op}' does not fit in {b} bits", i + 1));
                }
            }
            _ => {}
        }
    }

    /// `mov`: scalar to scalar, or packing/unpacking a vector of the same total width.
    fn mov(&mut self) {
        let t = bits(self.inst.types.first());
        let total = |c: &Self, items: &[Operand]| -> u32 {
            items.iter().map(|o| c.reg_type(o).map_or(t / items.len().max(1) as u32, Type::bits)).sum()
        };
        for (i, op) in self.inst.operands.iter().enumerate() {
            match op {
                Operand::Vector(items) if items.len() > 1 && total(self, items) != t => {
                    let op = self.opname();
                    self.error(format!("the vector operand {} of '{op}' is not {t} bits wide", i + 1));
                }
                Operand::Reg(_) | Operand::Imm(_) => self.check(i, op, Want::Exact(t)),
                _ => {}
            }
        }
    }

    /// A direct call passes as many arguments and results as the callee declares.
    fn call(&mut self) {
        let ops = &self.inst.operands;
        let (rets, rest) = match ops.first() {
            Some(Operand::List(r)) => (r.len(), ops.get(1..).unwrap_or(&[])),
            _ => (0, ops.as_slice()),
        };
        let args = match rest.get(1) {
            Some(Operand::List(a)) => a.len(),
            _ => 0,
        };
        match rest.first() {
            Some(Operand::Symbol { symbol: Symbol::Function(f), .. }) => {
                let Some(callee) = self.names.module.functions.get(*f) else { return };
                if callee.returns.len() != rets || callee.params.len() != args {
                    let message = format!(
                        "call to '{}' passes {args} argument(s) and {rets} result(s); it takes {} and returns {}",
                        callee.name,
                        callee.params.len(),
                        callee.returns.len()
                    );
                    self.error(message);
                }
            }
            Some(Operand::Symbol { symbol: Symbol::External(_), .. } | Operand::Reg(_)) => {}
            _ => self.error("'call' needs a function or a register holding its address".into()),
        }
    }
}
