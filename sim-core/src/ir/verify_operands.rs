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

use super::inst::{Imm, Inst, Operand, SchemeOperand, Symbol};
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
    /// A register of exactly this many bits, or an immediate of this type that fits.
    Exact(u32, Type),
    /// A register of at least this many bits, or an immediate of this type that fits.
    AtLeast(u32, Type),
}

/// What a register-or-immediate operand position takes, for messages.
const SCALAR: &str = "a register or an immediate";

/// PTX's type-compatibility rule for a register of type `reg` in an operand of type `ty` (sizes
/// are checked separately): bit types go with anything, signed and unsigned integers with each
/// other, floating-point types only with the same floating-point type.
fn kinds_compatible(reg: Type, ty: Type) -> bool {
    reg.is_bits() || ty.is_bits() || reg == ty || (reg.is_integer() && ty.is_integer())
}

/// Whether an immediate of kind `imm` may stand for a value of type `ty` (what ptxas accepts):
/// float literals for `.f32`/`.f64` (converted to that precision) and as raw bits for `.b32`
/// (`0f`) and `.b64` (`0d` or decimal); integers for integer, bit and predicate types.
fn imm_allowed(imm: Imm, ty: Type) -> bool {
    match imm {
        Imm::Int(_) => ty.is_integer() || ty == Type::Pred,
        Imm::F32(_) => matches!(ty, Type::F32 | Type::F64 | Type::B32),
        Imm::F64(_) => matches!(ty, Type::F32 | Type::F64 | Type::B64),
    }
}

struct Checker<'a, 'n> {
    names: &'a Names<'n>,
    inst: &'a Inst,
    at: Span,
    operand_at: &'a dyn Fn(usize) -> Span,
    diags: &'a mut Vec<Diagnostic>,
}

/// Checks the operands of `inst` (located at `at`, operand `i` at `operand_at(i)`), appending
/// problems to `diags`.
pub fn check_operands(
    names: &Names<'_>,
    inst: &Inst,
    at: Span,
    operand_at: &dyn Fn(usize) -> Span,
    diags: &mut Vec<Diagnostic>,
) {
    for problem in super::verify_types::type_problems(inst) {
        diags.push(Diagnostic::error(at, problem));
    }
    let mut c = Checker { names, inst, at, operand_at, diags };
    c.guard();
    c.destinations();
    c.shapes();
    c.widths();
    if inst.opcode == Opcode::Call {
        c.call();
    }
    super::scheme::check_operands(inst, at, c.diags);
}

/// The type of the value a composite producer computes (the destination type of a `cvt`).
fn composite_result_type(inner: &Inst) -> Option<Type> {
    inner.types.first()
}

/// The data operand of a memory, texture or surface instruction — the one `.v2`/`.v4` makes a
/// vector: what a load, texture fetch or surface load writes, what a store or reduction writes
/// to memory.
fn data_operand(opcode: Opcode) -> Option<usize> {
    use Opcode::*;
    match opcode {
        Ld | Ldu | Atom | Tex | Tld4 | Suld => Some(0),
        St | Red => Some(1),
        _ => None,
    }
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

    /// An error about operand `i` (0-based), placed at that operand.
    fn error_at(&mut self, i: usize, message: String) {
        self.diags.push(Diagnostic::error((self.operand_at)(i), message));
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
                self.error_at(i, format!("operand {} of '{op}' is written, so it must be a register", i + 1));
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
                self.error_at(i, format!("operand {} of '{op}' must be an address in [ ]", i + 1));
            }
        }
        if self.inst.opcode == Bra && !matches!(self.inst.operands.first(), Some(Operand::Label(_))) {
            self.error_at(0, "'bra' needs a label".into());
        }
        if self.inst.opcode == BrxIdx {
            let labels = match self.inst.operands.get(1) {
                Some(Operand::List(items)) => !items.is_empty() && items.iter().all(|o| matches!(o, Operand::Label(_))),
                _ => false,
            };
            if !labels {
                self.error_at(1, "'brx.idx' needs a .branchtargets list of labels".into());
            }
        }
        let data = data_operand(self.inst.opcode).and_then(|i| Some((i, self.inst.operands.get(i)?)));
        if let Some((data_at, op)) = data {
            let want = self.inst.mods.vec.map_or(1, |v| v.len());
            let got = match op {
                Operand::Vector(items) => items.len(),
                _ => 1,
            };
            let lenient = matches!(self.inst.opcode, Tex | Tld4 | Suld) && self.inst.mods.vec.is_none();
            if got != want && !lenient {
                let op = self.opname();
                self.error_at(data_at, format!("'{op}' moves {want} element(s), but the operand has {got}"));
            }
        }
    }

    fn wants(&self) -> Vec<Want> {
        use Opcode::*;
        use Want::{Any, AtLeast, Pred};
        let ty = self.inst.types.first().unwrap_or(Type::B32);
        let ty1 = self.inst.types.get(1).unwrap_or(ty);
        let exact = |t: Type| Want::Exact(t.bits(), t);
        let (t, t1, u32_) = (exact(ty), exact(ty1), exact(Type::U32));
        let wide = Want::Exact(2 * ty.bits(), ty);
        let at_least = AtLeast(ty.bits(), ty);
        let at_least1 = AtLeast(ty1.bits(), ty1);
        match self.inst.opcode {
            Add | Sub | Min | Max | Rem | Div | Copysign | Addc | Subc | Mul24 | And | Or | Xor => alloc::vec![t; 3],
            Mul if self.inst.mods.mul_mode == Some(MulMode::Wide) => alloc::vec![wide, t, t],
            Mul => alloc::vec![t; 3],
            Mad | Madc if self.inst.mods.mul_mode == Some(MulMode::Wide) => alloc::vec![wide, t, t, wide],
            Mad | Madc | Mad24 | Sad | Fma => alloc::vec![t; 4],
            Abs | Neg | Not | Cnot | Brev | Rcp | Sqrt | Rsqrt | Sin | Cos | Lg2 | Ex2 | Tanh => alloc::vec![t; 2],
            Popc | Clz | Bfind => alloc::vec![u32_, t],
            Shl | Shr => alloc::vec![t, t, u32_],
            Bfe => alloc::vec![t, t, u32_, u32_],
            Bfi => alloc::vec![t, t, t, u32_, u32_],
            Setp => alloc::vec![Pred, t, t, Pred],
            Set => alloc::vec![t, t1, t1, Pred],
            Selp => alloc::vec![t, t, t, Pred],
            Slct => alloc::vec![t, t, t, t1],
            Testp => alloc::vec![Pred, t],
            Cvt => alloc::vec![at_least, at_least1, at_least1],
            Cvta => alloc::vec![t, t],
            Isspacep => alloc::vec![Pred, Any],
            Ld | Ldu => alloc::vec![at_least, Any, Any],
            St => alloc::vec![Any, at_least, Any],
            Atom => alloc::vec![at_least, Any, at_least, at_least, Any],
            Red => alloc::vec![Any, at_least, Any],
            Vote if self.inst.mods.vote == Some(VoteMode::Ballot) => alloc::vec![u32_, Pred, u32_],
            Vote => alloc::vec![Pred, Pred, u32_],
            Shfl => alloc::vec![t, t, u32_, u32_, u32_],
            Prmt | Dp4a | Dp2a | Shf => alloc::vec![u32_; 4],
            Vadd | Vsub | Vabsdiff | Vmin | Vmax | Vshl | Vshr | Vmad | Vset => alloc::vec![u32_; 4],
            Lop3 => alloc::vec![t, t, t, t, Any, Pred],
            Activemask => alloc::vec![u32_],
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
            // Only the data operand of a memory instruction is a vector (`ld.v4`, `st.v2`, …).
            Operand::Vector(_) if want != Want::Any && !self.moves_vectors() => self.misplaced(i, op, SCALAR),
            Operand::Vector(items) => items.iter().for_each(|o| self.check(i, o, want)),
            _ if op.is_never_a_value() && want != Want::Any => self.misplaced(i, op, SCALAR),
            Operand::Pair(p) => {
                self.check(i, &p[0], want);
                self.check(i, &p[1], Want::Pred);
            }
            Operand::Reg(_) | Operand::NotReg(_) => {
                let Some(ty) = self.reg_type(op) else { return };
                let ok = match want {
                    Want::Any => true,
                    Want::Pred => ty == Type::Pred,
                    Want::Exact(b, want_ty) => ty.bits() == b && kinds_compatible(ty, want_ty),
                    Want::AtLeast(b, _) => ty.bits() >= b && ty != Type::Pred || b <= 1 && ty == Type::Pred,
                };
                if !ok {
                    let op = self.opname();
                    let message = match want {
                        Want::Exact(b, want_ty) if ty.bits() == b => format!(
                            "operand {} of '{op}' is a {ty} register, which {want_ty} does not accept (use a .b{b} or \
                             {want_ty} register)",
                            i + 1
                        ),
                        Want::Exact(b, _) => format!(
                            "operand {} of '{op}' is a {}-bit {ty} register, expected {b} bits",
                            i + 1,
                            ty.bits()
                        ),
                        Want::AtLeast(b, _) => {
                            format!(
                                "operand {} of '{op}' is a {}-bit {ty} register, expected at least {b} bits",
                                i + 1,
                                ty.bits()
                            )
                        }
                        Want::Pred | Want::Any => {
                            format!("operand {} of '{op}' is a {ty} register, expected a .pred register", i + 1)
                        }
                    };
                    self.error_at(i, message);
                }
            }
            Operand::Scheme(s) => {
                let ty = match &**s {
                    SchemeOperand::Memory(m) => Some(m.ty),
                    SchemeOperand::Composite(inner) => composite_result_type(inner),
                    SchemeOperand::Crf => None,
                };
                let ok = match (ty, want) {
                    (Some(t), Want::Exact(b, _)) => t.bits() == b,
                    (Some(t), Want::AtLeast(b, _)) => t.bits() >= b,
                    (Some(_), Want::Pred) => false,
                    _ => true,
                };
                if !ok {
                    let op = self.opname();
                    self.error(format!("operand {} of '{op}' has the wrong width", i + 1));
                }
            }
            Operand::Imm(imm) => {
                let (b, ty) = match want {
                    Want::Exact(b, ty) | Want::AtLeast(b, ty) => (b, ty),
                    Want::Pred => (1, Type::Pred),
                    Want::Any => return,
                };
                let op = self.opname();
                if !imm_allowed(*imm, ty) {
                    let kind = if matches!(imm, Imm::Int(_)) { "an integer" } else { "a floating-point" };
                    let message =
                        format!("immediate operand {} of '{op}' is {kind} literal, which {ty} does not take", i + 1);
                    let hint = match (imm, ty) {
                        (Imm::Int(_), Type::F32 | Type::F64) => {
                            "write a floating-point literal such as 1.0 or 0f3F800000"
                        }
                        (Imm::Int(_), _) => {
                            "half-precision and packed types take no immediates; move the bits with mov.b16/.b32"
                        }
                        (_, Type::B32) => "a .b32 operand takes single-precision bits: 0f3F800000",
                        (_, Type::B64) => "a .b64 operand takes double-precision bits: 0d3FF0000000000000",
                        _ => "integer and half-precision types take integer literals (the bits) or none",
                    };
                    self.diags.push(Diagnostic::error((self.operand_at)(i), message).with_hint(hint));
                } else if let Imm::Int(v) = imm {
                    if !int_fits(*v, b) {
                        self.error_at(i, format!("immediate operand {} of '{op}' does not fit in {b} bits", i + 1));
                    }
                }
            }
            _ => {}
        }
    }

    /// Whether the instruction has a data operand, which may be a vector (the textures' and
    /// surfaces' operands are not checked against [`Want`]s, so only memory instructions reach
    /// this).
    fn moves_vectors(&self) -> bool {
        data_operand(self.inst.opcode).is_some()
    }

    /// Source operand `i` is of a kind its position does not take (an address as a source of
    /// `add`); a destination's kind is [`Checker::destinations`]'s to report.
    fn misplaced(&mut self, i: usize, op: &Operand, takes: &str) {
        if i < self.inst.defs().len() {
            return;
        }
        let name = self.opname();
        let message = format!("operand {} of '{name}' is {}, where it takes {takes}", i + 1, op.kind_in_words());
        self.error_at(i, message);
    }

    /// `mov`: scalar to scalar, or packing/unpacking a vector of the same total width.
    fn mov(&mut self) {
        let ty = self.inst.types.first().unwrap_or(Type::B32);
        let t = ty.bits();
        let total = |c: &Self, items: &[Operand]| -> u32 {
            items.iter().map(|o| c.reg_type(o).map_or(t / items.len().max(1) as u32, Type::bits)).sum()
        };
        for (i, op) in self.inst.operands.iter().enumerate() {
            match op {
                Operand::Vector(items) if items.len() > 1 && total(self, items) != t => {
                    let op = self.opname();
                    self.error_at(i, format!("the vector operand {} of '{op}' is not {t} bits wide", i + 1));
                }
                Operand::Reg(_) | Operand::Imm(_) => self.check(i, op, Want::Exact(t, ty)),
                _ if op.is_never_a_value() => {
                    self.misplaced(i, op, "a register, an immediate or a variable's name");
                }
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
