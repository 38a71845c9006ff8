//! Resolving names and lowering operands: registers (scalar and vector), variables, parameters,
//! labels, functions, prototypes and special registers; addresses, vectors, pairs, call lists and
//! texture operands.
//!
//! ```text
//! [%rd1+-8]       → Address { base: Reg(%rd1), offset: -8 }
//! arr+4           → Symbol { symbol: Global(arr), offset: 4 }
//! %ctaid.y        → Special(Ctaid(Y))
//! [tex, {%f1}]    → Tex { texture: Symbol(tex), coords: Vector([%f1]) }
//! ```

use alloc::boxed::Box;
use alloc::format;
use alloc::vec::Vec;

use super::function::{BodyCx, Local};
use crate::diagnostic::Diagnostic;
use crate::ir::{
    Address, AddressBase, Block, Dim, Handle, Imm, MemOperand, Operand, Prototype, Reg, SchemeOperand, SpecialReg,
    StateSpace, Symbol, TexOperand, Type,
};
use crate::ptx::ast::{Literal, Name, OperandAst};

/// What a name resolves to.
pub(super) enum Resolved<'a> {
    Reg(Handle<Reg>),
    Vector(Vec<Handle<Reg>>),
    Symbol(Symbol),
    Label(Option<Handle<Block>>),
    Proto(Handle<Prototype>),
    Special(SpecialReg),
    /// A `.branchtargets` (false) or `.calltargets` (true) list.
    Targets(bool, Vec<Name<'a>>),
}

pub(super) fn imm(lit: Literal) -> Imm {
    match lit {
        Literal::Int(v) => Imm::Int(v),
        Literal::F32(v) => Imm::F32(v),
        Literal::F64(v) => Imm::F64(v),
    }
}

impl<'a> BodyCx<'_, 'a> {
    /// Resolves a name (with an optional `.x`-style component).
    pub(super) fn resolve(&self, name: Name<'a>, component: Option<Name<'a>>) -> Result<Resolved<'a>, Diagnostic> {
        let found = self.scopes.iter().rev().find_map(|s| s.get(name.text)).cloned();
        let resolved = match found {
            Some(Local::Reg(h)) => Resolved::Reg(h),
            Some(Local::Vector(regs)) => Resolved::Vector(regs),
            Some(Local::Var(h)) => Resolved::Symbol(Symbol::Local(h)),
            Some(Local::Proto(h)) => Resolved::Proto(h),
            None => self.resolve_outer(name, component)?,
        };
        let Some(c) = component else { return Ok(resolved) };
        match resolved {
            Resolved::Vector(regs) => {
                let index = match c.text {
                    ".x" | ".r" => 0,
                    ".y" | ".g" => 1,
                    ".z" | ".b" => 2,
                    ".w" | ".a" => 3,
                    _ => usize::MAX,
                };
                regs.get(index).map(|h| Resolved::Reg(*h)).ok_or_else(|| {
                    Diagnostic::error(c.span, format!("'{}' has no element '{}'", name.text, c.text))
                        .with_hint("vector elements are .x, .y, .z, .w (or .r, .g, .b, .a)")
                })
            }
            Resolved::Special(_) => Ok(resolved),
            _ => Err(Diagnostic::error(c.span, format!("'{}' has no component '{}'", name.text, c.text))
                .with_hint("only vector registers and special registers such as %tid take a component")),
        }
    }

    fn resolve_outer(&self, name: Name<'a>, component: Option<Name<'a>>) -> Result<Resolved<'a>, Diagnostic> {
        if let Some(sym) = self.params.get(name.text) {
            return Ok(Resolved::Symbol(*sym));
        }
        if let Some((calls, targets)) = self.target_lists.get(name.text) {
            return Ok(Resolved::Targets(*calls, targets.clone()));
        }
        if self.label_names.contains(name.text) {
            return Ok(Resolved::Label(self.labels.get(name.text).copied()));
        }
        if let Some(h) = self.m.globals.get(name.text) {
            return Ok(Resolved::Symbol(Symbol::Global(*h)));
        }
        if let Some(h) = self.m.functions.get(name.text) {
            return Ok(Resolved::Symbol(Symbol::Function(*h)));
        }
        if name.text.starts_with('%') || name.text == "WARP_SZ" {
            return special(name, component);
        }
        Err(Diagnostic::error(name.span, format!("'{}' is not declared", name.text))
            .with_hint("declare it (.reg, .local, .shared, …) before use, or check the spelling"))
    }

    /// Lowers operand `index` of an instruction.
    pub(super) fn operand(&mut self, index: usize, op: &OperandAst<'a>) -> Result<Operand, Diagnostic> {
        match op {
            OperandAst::Name { name, component } => Ok(match self.resolve(*name, *component)? {
                Resolved::Reg(h) => Operand::Reg(h),
                Resolved::Vector(regs) => Operand::Vector(regs.into_iter().map(Operand::Reg).collect()),
                Resolved::Symbol(symbol) => Operand::Symbol { symbol, offset: 0 },
                Resolved::Label(Some(b)) => Operand::Label(b),
                Resolved::Label(None) => {
                    self.pending_labels.push((index, None, *name));
                    Operand::Label(Handle::from_index(u32::MAX))
                }
                Resolved::Proto(h) => Operand::Prototype(h),
                Resolved::Special(s) => Operand::Special(s),
                Resolved::Targets(calls, targets) => self.target_list(index, calls, &targets)?,
            }),
            OperandAst::Not(name) => Ok(Operand::NotReg(self.scalar_reg(*name)?)),
            OperandAst::Literal(lit, _) => Ok(Operand::Imm(imm(*lit))),
            OperandAst::SymOffset { name, offset, .. } => match self.resolve(*name, None)? {
                Resolved::Symbol(symbol) => Ok(Operand::Symbol { symbol, offset: *offset }),
                _ => Err(Diagnostic::error(
                    name.span,
                    format!("'{}' + offset needs a variable, not a register", name.text),
                )
                .with_hint("a register plus an offset is an address: write it inside [ ]")),
            },
            OperandAst::Address { base, offset, .. } => {
                Ok(Operand::Address(Address { base: self.address_base(*base)?, offset: *offset }))
            }
            OperandAst::Memory { prefix, base, offset, .. } => {
                let space = match prefix.text {
                    "%g" => StateSpace::Global,
                    "%s" => StateSpace::Shared,
                    "%l" => StateSpace::Local,
                    "%c" => StateSpace::Const,
                    _ => StateSpace::Param,
                };
                let address = Address { base: self.address_base(*base)?, offset: *offset };
                // The load's type is not written; the instruction's lowering sets the operand's.
                let mem = MemOperand { space, address, ty: Type::B32 };
                Ok(Operand::Scheme(Box::new(SchemeOperand::Memory(mem))))
            }
            OperandAst::Bracket(items, span) => self.tex_operand(items, *span),
            OperandAst::Vector(items, _) => {
                items.iter().map(|item| self.element(item)).collect::<Result<Vec<_>, _>>().map(Operand::Vector)
            }
            OperandAst::Sink(_) => Ok(Operand::Sink),
            OperandAst::Pair(a, b) => {
                let first = if a.text == "_" { Operand::Sink } else { Operand::Reg(self.scalar_reg(*a)?) };
                let second = if b.text == "_" { Operand::Sink } else { Operand::Reg(self.scalar_reg(*b)?) };
                Ok(Operand::Pair(Box::new([first, second])))
            }
            OperandAst::List(items, _) => items
                .iter()
                .map(|item| self.operand(usize::MAX, item))
                .collect::<Result<Vec<_>, _>>()
                .map(Operand::List),
            OperandAst::Neg(_, span) => Err(Diagnostic::error(*span, "a register cannot be negated here")
                .with_hint("only the sources of 'vmad' take '-'; negate with 'neg' first")),
        }
    }

    /// The base of an address: none (absolute), a register or a variable.
    fn address_base(&self, base: Option<Name<'a>>) -> Result<AddressBase, Diagnostic> {
        let Some(name) = base else { return Ok(AddressBase::Absolute) };
        match self.resolve(name, None)? {
            Resolved::Reg(h) => Ok(AddressBase::Reg(h)),
            Resolved::Symbol(s) => Ok(AddressBase::Symbol(s)),
            _ => Err(Diagnostic::error(name.span, format!("'{}' cannot be an address", name.text))),
        }
    }

    /// A `.branchtargets` list as a list of labels, a `.calltargets` list as a list of functions.
    fn target_list(&mut self, index: usize, calls: bool, targets: &[Name<'a>]) -> Result<Operand, Diagnostic> {
        let mut items = Vec::with_capacity(targets.len());
        for (j, t) in targets.iter().enumerate() {
            let item = match (calls, self.m.functions.get(t.text), self.labels.get(t.text)) {
                (true, Some(f), _) => Operand::Symbol { symbol: Symbol::Function(*f), offset: 0 },
                (false, _, Some(b)) => Operand::Label(*b),
                (false, _, None) if self.label_names.contains(t.text) => {
                    self.pending_labels.push((index, Some(j), *t));
                    Operand::Label(Handle::from_index(u32::MAX))
                }
                _ => {
                    let what = if calls { "function" } else { "label" };
                    return Err(Diagnostic::error(t.span, format!("target '{}' is not a {what}", t.text)));
                }
            };
            items.push(item);
        }
        Ok(Operand::List(items))
    }

    /// An element of a `{ }` vector: a scalar register, `_` or an immediate.
    fn element(&mut self, item: &OperandAst<'a>) -> Result<Operand, Diagnostic> {
        match item {
            OperandAst::Name { name, component } => match self.resolve(*name, *component)? {
                Resolved::Reg(h) => Ok(Operand::Reg(h)),
                _ => Err(Diagnostic::error(name.span, format!("'{}' cannot be a vector element", name.text))
                    .with_hint("vector elements are scalar registers, '_' or numbers")),
            },
            OperandAst::Sink(_) => Ok(Operand::Sink),
            OperandAst::Literal(lit, _) => Ok(Operand::Imm(imm(*lit))),
            other => Err(Diagnostic::error(other.span(), "this cannot be a vector element")),
        }
    }

    pub(super) fn scalar_reg(&self, name: Name<'a>) -> Result<Handle<Reg>, Diagnostic> {
        match self.resolve(name, None)? {
            Resolved::Reg(h) => Ok(h),
            _ => Err(Diagnostic::error(name.span, format!("'{}' is not a register", name.text))),
        }
    }

    fn tex_operand(&mut self, items: &[OperandAst<'a>], span: crate::diagnostic::Span) -> Result<Operand, Diagnostic> {
        let (texture, sampler, coords) = match items {
            [t, c] => (t, None, c),
            [t, s, c] => (t, Some(s), c),
            _ => {
                return Err(Diagnostic::error(
                    span,
                    "a texture operand is [texture, coordinates] or [texture, sampler, coordinates]",
                ))
            }
        };
        let texture = self.operand(usize::MAX, texture)?;
        let sampler = sampler.map(|s| self.operand(usize::MAX, s)).transpose()?;
        let coords = self.operand(usize::MAX, coords)?;
        Ok(Operand::Tex(Box::new(TexOperand { texture, sampler, coords })))
    }
}

/// A special register named `name` (with its `.x`-style component if it has dimensions).
fn special<'a>(name: Name<'a>, component: Option<Name<'a>>) -> Result<Resolved<'a>, Diagnostic> {
    use SpecialReg::*;
    let dim = component.and_then(|c| match c.text {
        ".x" => Some(Dim::X),
        ".y" => Some(Dim::Y),
        ".z" => Some(Dim::Z),
        _ => None,
    });
    let with_dim = |f: fn(Dim) -> SpecialReg| match dim {
        Some(d) => Ok(Resolved::Special(f(d))),
        None => Err(Diagnostic::error(
            component.map_or(name.span, |c| c.span),
            format!("'{}' needs .x, .y or .z", name.text),
        )),
    };
    let text = name.text;
    let plain = match text {
        "%tid" => return with_dim(Tid),
        "%ntid" => return with_dim(Ntid),
        "%ctaid" => return with_dim(Ctaid),
        "%nctaid" => return with_dim(Nctaid),
        "%clusterid" => return with_dim(Clusterid),
        "%nclusterid" => return with_dim(Nclusterid),
        "%cluster_ctaid" => return with_dim(ClusterCtaid),
        "%cluster_nctaid" => return with_dim(ClusterNctaid),
        "%cluster_ctarank" => ClusterCtarank,
        "%cluster_nctarank" => ClusterNctarank,
        "%is_explicit_cluster" => IsExplicitCluster,
        "%laneid" => Laneid,
        "%warpid" => Warpid,
        "%nwarpid" => Nwarpid,
        "%smid" => Smid,
        "%nsmid" => Nsmid,
        "%gridid" => Gridid,
        "%lanemask_eq" => LanemaskEq,
        "%lanemask_le" => LanemaskLe,
        "%lanemask_lt" => LanemaskLt,
        "%lanemask_ge" => LanemaskGe,
        "%lanemask_gt" => LanemaskGt,
        "%clock" => Clock,
        "%clock_hi" => ClockHi,
        "%clock64" => Clock64,
        "%globaltimer" => Globaltimer,
        "%globaltimer_lo" => GlobaltimerLo,
        "%globaltimer_hi" => GlobaltimerHi,
        "%total_smem_size" => TotalSmemSize,
        "%aggr_smem_size" => AggrSmemSize,
        "%dynamic_smem_size" => DynamicSmemSize,
        "%current_graph_exec" => CurrentGraphExec,
        "WARP_SZ" => WarpSz,
        _ => numbered(text).ok_or_else(|| {
            Diagnostic::error(name.span, format!("register '{text}' is not declared"))
                .with_hint("declare it with .reg (for example `.reg .b32 %r<10>;` declares %r0 … %r9)")
        })?,
    };
    if let Some(c) = component {
        return Err(Diagnostic::error(c.span, format!("'{text}' takes no component")));
    }
    Ok(Resolved::Special(plain))
}

/// `%envregN`, `%pmN`, `%pmN_64`.
fn numbered(text: &str) -> Option<SpecialReg> {
    if let Some(n) = text.strip_prefix("%envreg").and_then(|n| n.parse::<u8>().ok()).filter(|n| *n < 32) {
        return Some(SpecialReg::Envreg(n));
    }
    if let Some(n) = text.strip_prefix("%pm").and_then(|n| n.strip_suffix("_64")).and_then(|n| n.parse::<u8>().ok()) {
        return (n < 8).then_some(SpecialReg::Pm64(n));
    }
    text.strip_prefix("%pm").and_then(|n| n.parse::<u8>().ok()).filter(|n| *n < 8).map(SpecialReg::Pm)
}
