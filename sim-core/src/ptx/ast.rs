//! The PTX abstract syntax tree: what the text says, with a span on everything, before names are
//! resolved. Keywords with a closed set of spellings (state spaces, types, linkage) are already
//! typed; instruction modifiers stay words (their meaning depends on the opcode and is decided by
//! lowering, which reports any it does not know).
//!
//! ```text
//! @%p1 bra.uni $L__BB0_2;
//! // Statement::Inst(Instruction { guard: Some(%p1), opcode: Bra, mods: [".uni"],
//! //                               operands: [Name($L__BB0_2)] })
//! ```
//!
//! Nested `{ }` scopes in a body are flat `Enter`/`Leave` statements, so no part of the front end
//! recurses on nesting depth.

use alloc::boxed::Box;
use alloc::vec::Vec;

use crate::diagnostic::Span;
use crate::ir::{DebugLoc, FunctionKind, Linkage, Opcode, PerfDirectives, StateSpace, TargetOption, Type, VecWidth};

/// A word of the source with its span.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Name<'a> {
    /// The text.
    pub text: &'a str,
    /// Where.
    pub span: Span,
}

/// A parsed module.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Module<'a> {
    /// Top-level items in order.
    pub items: Vec<TopItem<'a>>,
}

/// A top-level item.
#[derive(Clone, Debug, PartialEq)]
pub enum TopItem<'a> {
    /// `.version 7.0`.
    Version {
        /// Major.
        major: u32,
        /// Minor.
        minor: u32,
        /// Where.
        span: Span,
    },
    /// `.target sm_80, debug`.
    Target {
        /// Architecture.
        arch: Name<'a>,
        /// Options.
        options: Vec<(TargetOption, Span)>,
        /// Where.
        span: Span,
    },
    /// `.address_size 64`.
    AddressSize {
        /// Bits.
        bits: u32,
        /// Where.
        span: Span,
    },
    /// `.file 1 "x.cu"[, stamp, size]`.
    File {
        /// Number.
        index: u32,
        /// Name without quotes.
        name: &'a str,
        /// Timestamp and size.
        stamp: Option<(u64, u64)>,
        /// Where.
        span: Span,
    },
    /// A module-level variable declaration.
    Var(VarDecl<'a>),
    /// An entry or function, declared or defined.
    Function(FunctionDecl<'a>),
    /// A `.section` with data lines.
    Section(SectionDecl<'a>),
    /// `.pragma "…";`.
    Pragma(Name<'a>),
}

/// One name in a declaration (`%r<42>`, `arr[4][2] = {…}`).
#[derive(Clone, Debug, PartialEq)]
pub struct DeclName<'a> {
    /// The name.
    pub name: Name<'a>,
    /// `<N>`: declares `name0 … nameN-1`.
    pub count: Option<u32>,
    /// Array dimensions (`None` for `[]`).
    pub dims: Vec<Option<u64>>,
    /// Initialiser.
    pub init: Option<Init<'a>>,
}

/// A variable declaration: `.reg`, `.global`, `.shared`, `.local`, `.const`, `.param`, `.tex`.
#[derive(Clone, Debug, PartialEq)]
pub struct VarDecl<'a> {
    /// The whole declaration.
    pub span: Span,
    /// Linkage directive.
    pub linkage: Linkage,
    /// State space.
    pub space: StateSpace,
    /// `.align N`.
    pub align: Option<u32>,
    /// `.v2`/`.v4`/`.v8`.
    pub vec: Option<VecWidth>,
    /// Type.
    pub ty: Type,
    /// The declared names (one or more).
    pub names: Vec<DeclName<'a>>,
}

/// An initialiser expression.
#[derive(Clone, Debug, PartialEq)]
pub enum Init<'a> {
    /// An integer or float literal.
    Literal(Literal, Span),
    /// `sym`, `sym+4`, `generic(sym)`, `generic(sym)+4`.
    Symbol {
        /// The symbol.
        name: Name<'a>,
        /// Offset.
        offset: i64,
        /// `generic(…)`.
        generic: bool,
    },
    /// `{ … }`.
    List(Vec<Init<'a>>, Span),
}

/// A numeric literal with its exact value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Literal {
    /// Integer, 64-bit two's complement.
    Int(u64),
    /// `0f` single-precision bits.
    F32(u32),
    /// `0d` or decimal double-precision bits.
    F64(u64),
}

/// A parameter in a signature or prototype.
#[derive(Clone, Debug, PartialEq)]
pub struct ParamDecl<'a> {
    /// Where.
    pub span: Span,
    /// `.param` or `.reg`.
    pub space: StateSpace,
    /// `.align N`.
    pub align: Option<u32>,
    /// Vector width.
    pub vec: Option<VecWidth>,
    /// Type.
    pub ty: Type,
    /// `.ptr` attributes: `(space, align)`.
    pub ptr: Option<(Option<StateSpace>, Option<u32>)>,
    /// Name.
    pub name: Name<'a>,
    /// Array dimensions.
    pub dims: Vec<Option<u64>>,
}

/// An `.entry` or `.func`.
#[derive(Clone, Debug, PartialEq)]
pub struct FunctionDecl<'a> {
    /// The header (linkage to the end of the parameter list).
    pub span: Span,
    /// Linkage.
    pub linkage: Linkage,
    /// Entry or func.
    pub kind: FunctionKind,
    /// Name.
    pub name: Name<'a>,
    /// Return parameters.
    pub returns: Vec<ParamDecl<'a>>,
    /// Parameters.
    pub params: Vec<ParamDecl<'a>>,
    /// Performance directives, `.noreturn` and pragmas between the signature and the body.
    pub perf: PerfDirectives,
    /// The body, if defined here.
    pub body: Option<Vec<Statement<'a>>>,
}

/// A statement in a function body.
#[derive(Clone, Debug, PartialEq)]
pub enum Statement<'a> {
    /// `{`: a nested scope opens.
    Enter(Span),
    /// `}`: the innermost nested scope closes.
    Leave(Span),
    /// `name:`.
    Label(Name<'a>),
    /// An instruction.
    Inst(Instruction<'a>),
    /// A declaration.
    Var(VarDecl<'a>),
    /// `.loc`.
    Loc(DebugLoc, Span),
    /// `.pragma "…";`.
    Pragma(Name<'a>),
    /// `name: .callprototype …;`.
    Prototype(PrototypeDecl<'a>),
    /// `name: .branchtargets L1, L2;` or `name: .calltargets f, g;`.
    Targets {
        /// The label naming the list.
        name: Name<'a>,
        /// `.calltargets` (functions) rather than `.branchtargets` (labels).
        calls: bool,
        /// The labels or functions.
        targets: Vec<Name<'a>>,
    },
}

/// A call prototype declaration.
#[derive(Clone, Debug, PartialEq)]
pub struct PrototypeDecl<'a> {
    /// The label naming it.
    pub name: Name<'a>,
    /// Return parameters.
    pub returns: Vec<ParamDecl<'a>>,
    /// Parameters.
    pub params: Vec<ParamDecl<'a>>,
    /// `.noreturn`.
    pub noreturn: bool,
}

/// A guard `@%p` / `@!%p`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GuardAst<'a> {
    /// Negated.
    pub negated: bool,
    /// The predicate.
    pub name: Name<'a>,
}

/// An instruction.
#[derive(Clone, Debug, PartialEq)]
pub struct Instruction<'a> {
    /// From the guard (or opcode) to the `;`.
    pub span: Span,
    /// Guard.
    pub guard: Option<GuardAst<'a>>,
    /// Opcode.
    pub opcode: Opcode,
    /// The opcode's words.
    pub opcode_span: Span,
    /// The remaining dot words (modifiers and types) in order.
    pub mods: Vec<Name<'a>>,
    /// Operands.
    pub operands: Vec<OperandAst<'a>>,
}

/// An operand as written.
#[derive(Clone, Debug, PartialEq)]
pub enum OperandAst<'a> {
    /// A register, variable, parameter, label or function name, with an optional component
    /// (`%tid.x`, `temp.w`).
    Name {
        /// The name.
        name: Name<'a>,
        /// The `.x`-style suffix.
        component: Option<Name<'a>>,
    },
    /// `!%p`.
    Not(Name<'a>),
    /// A literal.
    Literal(Literal, Span),
    /// `sym+4` outside brackets.
    SymOffset {
        /// The symbol.
        name: Name<'a>,
        /// Offset.
        offset: i64,
        /// Where.
        span: Span,
    },
    /// `[base+offset]`; `base` is `None` for an absolute address.
    Address {
        /// Base name.
        base: Option<Name<'a>>,
        /// Offset.
        offset: i64,
        /// Where.
        span: Span,
    },
    /// `[a, b, {c}]` (textures, surfaces).
    Bracket(Vec<OperandAst<'a>>, Span),
    /// `{a, b}`.
    Vector(Vec<OperandAst<'a>>, Span),
    /// `_`.
    Sink(Span),
    /// `a|b`.
    Pair(Name<'a>, Name<'a>),
    /// `(a, b)`.
    List(Vec<OperandAst<'a>>, Span),
    /// `-%r1` (a negated register: `vmad`'s sources).
    Neg(Box<OperandAst<'a>>, Span),
    /// A DeMO direct memory operand, RegLab's syntax (not PTX): `%g[%rd1+4]` — a space prefix
    /// (`%g` global, `%s` shared, `%l` local, `%c` const, `%p` param) and an address.
    Memory {
        /// The space prefix.
        prefix: Name<'a>,
        /// Base name.
        base: Option<Name<'a>>,
        /// Offset.
        offset: i64,
        /// Where.
        span: Span,
    },
}

impl OperandAst<'_> {
    /// Where the operand is.
    pub fn span(&self) -> Span {
        match self {
            OperandAst::Name { name, component } => component.map_or(name.span, |c| name.span.join(c.span)),
            OperandAst::Not(n) => n.span,
            OperandAst::Pair(a, b) => a.span.join(b.span),
            OperandAst::Literal(_, s)
            | OperandAst::SymOffset { span: s, .. }
            | OperandAst::Address { span: s, .. }
            | OperandAst::Memory { span: s, .. }
            | OperandAst::Bracket(_, s)
            | OperandAst::Vector(_, s)
            | OperandAst::Sink(s)
            | OperandAst::List(_, s)
            | OperandAst::Neg(_, s) => *s,
        }
    }
}

/// A `.section` block.
#[derive(Clone, Debug, PartialEq)]
pub struct SectionDecl<'a> {
    /// Section name (`.debug_info`).
    pub name: Name<'a>,
    /// Data lines.
    pub lines: Vec<SectionLineAst<'a>>,
    /// Where.
    pub span: Span,
}

/// `.b8 1, 2` / `.b32 label+4`.
#[derive(Clone, Debug, PartialEq)]
pub struct SectionLineAst<'a> {
    /// Element type.
    pub ty: Type,
    /// Values: numbers or names with offsets.
    pub values: Vec<SectionValueAst<'a>>,
}

/// A section value.
#[derive(Clone, Debug, PartialEq)]
pub enum SectionValueAst<'a> {
    /// A number.
    Int(u64),
    /// A name plus offset.
    Symbol(Name<'a>, i64),
}
