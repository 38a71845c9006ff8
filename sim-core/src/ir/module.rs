//! The IR's containers: [`Module`] → [`Function`] (entries and `.func`s) → [`Body`] → [`Block`] →
//! instructions, plus variables, parameters and debug information.
//!
//! ```text
//! .visible .entry k(.param .u64 k_param_0) .maxntid 128, 1, 1
//! { .reg .b32 %r<2>; ld.param.u64 ...; $L__BB0_1: ...; ret; }
//! // Function { kind: Entry, linkage: Visible, params: [k_param_0], perf: maxntid [128,1,1],
//! //            body: Body { regs: [%r0, %r1], blocks: [entry, $L__BB0_1], insts: [...] } }
//! ```
//!
//! Invariants (checked by [`crate::ir::verify`]): every handle is in range; register names are
//! unique in a function (nested-scope shadowing was resolved by renaming); every block's
//! instructions are listed once; a terminator is only ever the last instruction of a block; a block
//! that does not end in an unconditional terminator falls through to the next block in layout
//! order (falling off the end of the last block is an implicit return).

use alloc::collections::BTreeMap;
use alloc::string::String;
use alloc::vec::Vec;

use serde::{Deserialize, Serialize};

use super::arena::{Arena, Handle, OperandSpans, SpanTable};
pub use super::debug_info::{DebugLoc, FileEntry, Section, SectionLine, SectionValue};
use super::inst::Inst;
use super::types::{StateSpace, Type, VecWidth, WidthClass};

/// A whole PTX module.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Module {
    /// `.version major.minor`.
    pub version: Version,
    /// `.target`.
    pub target: Target,
    /// `.address_size` (32 or 64; `None` if absent, which PTX reads as 32 before 2.3).
    pub address_size: Option<u32>,
    /// Module-level variables (`.global`, `.const`, `.shared`, `.tex`, …).
    pub globals: Arena<Var>,
    /// Source spans of `globals`.
    pub global_spans: SpanTable<Var>,
    /// Entries, functions and their declarations.
    pub functions: Arena<Function>,
    /// Source spans of `functions` (the name in the first declaration).
    pub function_spans: SpanTable<Function>,
    /// Top-level items in source order (what the emitter writes, in this order).
    pub items: Vec<Item>,
    /// `.file` entries by number.
    pub files: BTreeMap<u32, FileEntry>,
    /// DWARF `.section` blocks, kept as data.
    pub sections: Vec<Section>,
    /// Module-level `.pragma` strings (without quotes), referenced by `Item::Pragma`.
    pub pragmas: Vec<String>,
    /// Names called but never declared (see `Symbol::External`), in order of first use.
    pub externals: Vec<String>,
}

/// One top-level item, in source order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Item {
    /// A module-level variable.
    Global(Handle<Var>),
    /// A function declaration without body (prototype, `.extern`, forward declaration).
    Declaration(Handle<Function>),
    /// A function definition (the function has a body).
    Definition(Handle<Function>),
    /// A debug section (`Module::sections[i]`).
    Section(u32),
    /// A module-level `.pragma` (`Module::pragmas[i]`).
    Pragma(u32),
}

/// `.version major.minor`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Version {
    /// Major version.
    pub major: u32,
    /// Minor version.
    pub minor: u32,
}

/// `.target sm_80, debug`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Target {
    /// The architecture (`sm_80`, `sm_90a`, `compute_70`).
    pub arch: String,
    /// The options after it, in source order.
    pub options: Vec<TargetOption>,
}

super::types::keyword_enum! {
    /// Options of `.target` besides the architecture.
    TargetOption {
        /// `map_f64_to_f32`: doubles are demoted (sm_1x).
        MapF64ToF32 = "map_f64_to_f32",
        /// `texmode_unified`: textures and samplers are one object.
        TexmodeUnified = "texmode_unified",
        /// `texmode_independent`: separate textures and samplers.
        TexmodeIndependent = "texmode_independent",
        /// `debug`: the module carries DWARF debug information.
        Debug = "debug",
    }
}

/// Symbol visibility and linkage.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Linkage {
    /// No directive: visible in this module only.
    #[default]
    Internal,
    /// `.visible`.
    Visible,
    /// `.extern`: defined elsewhere.
    Extern,
    /// `.weak`.
    Weak,
    /// `.common`.
    Common,
}

impl Linkage {
    /// The directive (`""` for internal).
    pub fn as_str(self) -> &'static str {
        match self {
            Linkage::Internal => "",
            Linkage::Visible => ".visible",
            Linkage::Extern => ".extern",
            Linkage::Weak => ".weak",
            Linkage::Common => ".common",
        }
    }
}

/// A variable: module-level (`.global`, `.const`, …) or declared in a function body (`.local`,
/// `.shared`, `.param` for call arguments, …).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Var {
    /// Name (unique in its scope after lowering).
    pub name: String,
    /// State space.
    pub space: StateSpace,
    /// Linkage.
    pub linkage: Linkage,
    /// `.align N` in bytes.
    pub align: Option<u32>,
    /// Vector width (`.global .v4 .f32 x;`).
    pub vec: Option<VecWidth>,
    /// Element type.
    pub ty: Type,
    /// Array dimensions; `None` is `[]` (size from the initialiser, or extern/dynamic).
    pub dims: Vec<Option<u64>>,
    /// Initial value.
    pub init: Option<Initializer>,
}

impl Var {
    /// Size in bytes, if every dimension is known.
    pub fn size_bytes(&self) -> Option<u64> {
        let elem = u64::from(self.ty.size_bytes()) * self.vec.map_or(1, |v| v.len() as u64);
        self.dims.iter().try_fold(elem, |acc, d| d.and_then(|d| acc.checked_mul(d)))
    }
}

/// An initial value of a variable.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Initializer {
    /// An integer (64-bit two's complement; the variable's type says how many bytes are used).
    Int(u64),
    /// A `0f` single-precision literal by its bits.
    F32(u32),
    /// A double (decimal literal or `0d`) by its bits.
    F64(u64),
    /// The address of a variable or function plus an offset; `generic(sym)` if `generic`.
    Address {
        /// The named symbol (global variable or function), by name.
        name: String,
        /// Byte offset.
        offset: i64,
        /// Written as `generic(name)`.
        generic: bool,
    },
    /// `{ … }` (nested for multi-dimensional arrays).
    List(Vec<Initializer>),
}

/// Kernel entry or callable function.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum FunctionKind {
    /// `.entry`: a kernel.
    Entry,
    /// `.func`: a device function.
    Func,
}

/// `.ptr` attributes of a kernel pointer parameter (`.param .u64 .ptr .global .align 4 p`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct PtrAttr {
    /// The space the pointer points to (`None`: generic).
    pub space: Option<StateSpace>,
    /// `.align N` of the pointee.
    pub align: Option<u32>,
}

/// A parameter or return parameter.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Param {
    /// Name (`_` in prototypes).
    pub name: String,
    /// `.param` normally; `.reg` for old-style `.func` register parameters.
    pub space: StateSpace,
    /// `.align N` (bytes).
    pub align: Option<u32>,
    /// Vector width.
    pub vec: Option<VecWidth>,
    /// Type.
    pub ty: Type,
    /// `.ptr` attributes.
    pub ptr: Option<PtrAttr>,
    /// Array dimensions (`.param .align 4 .b8 p[12]`); `None` is `[]`.
    pub dims: Vec<Option<u64>>,
}

impl Param {
    /// Size in bytes, if every dimension is known.
    pub fn size_bytes(&self) -> Option<u64> {
        let elem = u64::from(self.ty.size_bytes()) * self.vec.map_or(1, |v| v.len() as u64);
        self.dims.iter().try_fold(elem, |acc, d| d.and_then(|d| acc.checked_mul(d)))
    }
}

/// Performance-tuning directives of an entry or function.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PerfDirectives {
    /// `.maxntid x[, y[, z]]`.
    pub maxntid: Option<Vec<u32>>,
    /// `.reqntid x[, y[, z]]`.
    pub reqntid: Option<Vec<u32>>,
    /// `.minnctapersm n`.
    pub minnctapersm: Option<u32>,
    /// `.maxnctapersm n` (deprecated spelling).
    pub maxnctapersm: Option<u32>,
    /// `.maxnreg n`.
    pub maxnreg: Option<u32>,
    /// `.reqnctapercluster x[, y[, z]]`.
    pub reqnctapercluster: Option<Vec<u32>>,
    /// `.maxclusterrank n`.
    pub maxclusterrank: Option<u32>,
    /// `.explicitcluster`.
    pub explicitcluster: bool,
    /// `.noreturn`.
    pub noreturn: bool,
    /// `.pragma` strings given between the signature and the body.
    pub pragmas: Vec<String>,
}

/// A kernel (`.entry`) or device function (`.func`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Function {
    /// Name.
    pub name: String,
    /// Entry or func.
    pub kind: FunctionKind,
    /// Linkage.
    pub linkage: Linkage,
    /// Return parameters of a `.func`.
    pub returns: Vec<Param>,
    /// Parameters.
    pub params: Vec<Param>,
    /// Performance directives.
    pub perf: PerfDirectives,
    /// The body, `None` for a declaration that is never defined in this module.
    pub body: Option<Body>,
}

/// "Kernel" is what the rest of RegLab calls a function it analyses or runs.
pub type Kernel = Function;

impl Function {
    /// True for `.entry`.
    pub fn is_entry(&self) -> bool {
        self.kind == FunctionKind::Entry
    }

    /// Number of instructions in the body (0 for declarations).
    pub fn instruction_count(&self) -> usize {
        self.body.as_ref().map_or(0, |b| b.insts.len())
    }
}

/// A virtual register.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Reg {
    /// Name, unique in the function (`%r12`; `%r12$1` for a shadowing declaration in a nested
    /// scope; `temp$x` for the `.x` element of a vector register `temp`).
    pub name: String,
    /// PTX type as declared.
    pub ty: Type,
    /// Width class (derived from `ty`, kept for the allocator).
    pub class: WidthClass,
}

/// A basic block: an optional label and instructions; control enters only at the top.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Block {
    /// The label (`$L__BB0_2`), `None` for a block that starts after a terminator or the entry.
    pub label: Option<String>,
    /// Instructions in order.
    pub insts: Vec<Handle<Inst>>,
}

/// A call prototype (`proto: .callprototype (.param .b32 _) _ (.param .b64 _);`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Prototype {
    /// The label naming it.
    pub name: String,
    /// Return parameters.
    pub returns: Vec<Param>,
    /// Parameters.
    pub params: Vec<Param>,
    /// `.noreturn`.
    pub noreturn: bool,
}

/// A `.pragma` inside a body, placed before instruction `index` of `block` (`index` may equal the
/// block's length: at its end).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct BodyPragma {
    /// The block.
    pub block: Handle<Block>,
    /// Position in the block.
    pub index: u32,
    /// The string, without quotes.
    pub text: String,
}

/// The body of a defined function.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Body {
    /// Virtual registers.
    pub regs: Arena<Reg>,
    /// Where each register was declared.
    pub reg_spans: SpanTable<Reg>,
    /// Variables declared in the body (`.local`, `.shared`, `.param` call buffers, …).
    pub vars: Arena<Var>,
    /// Where each variable was declared.
    pub var_spans: SpanTable<Var>,
    /// Call prototypes declared in the body.
    pub prototypes: Arena<Prototype>,
    /// Basic blocks in layout order (the first is the entry).
    pub blocks: Arena<Block>,
    /// Instructions (owned by blocks through handles).
    pub insts: Arena<Inst>,
    /// Where each instruction was written.
    pub inst_spans: SpanTable<Inst>,
    /// Where each operand of each instruction was written (for precise diagnostics).
    pub operand_spans: OperandSpans,
    /// The `.loc` in force at each instruction (indexed like `insts`).
    pub locs: Vec<Option<DebugLoc>>,
    /// `.pragma`s in the body.
    pub pragmas: Vec<BodyPragma>,
    /// The registers that hold old-style `.reg` parameters (`.func (.reg .u32 r) f(.reg .u32 a)`):
    /// return registers first, then parameter registers, in signature order. Such registers are
    /// declared by the signature, not in the body.
    pub param_regs: Vec<Handle<Reg>>,
}

impl Body {
    /// The `.loc` of an instruction.
    pub fn loc(&self, inst: Handle<Inst>) -> Option<DebugLoc> {
        self.locs.get(inst.index()).copied().flatten()
    }

    /// Instructions in layout order (block by block).
    pub fn insts_in_order(&self) -> impl Iterator<Item = Handle<Inst>> + '_ {
        self.blocks.values().flat_map(|b| b.insts.iter().copied())
    }
}
