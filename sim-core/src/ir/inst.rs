//! Instructions and their operands.
//!
//! ```text
//! @!%p1 ld.global.v2.f32 {%f1, _}, [%rd4+-16];
//! // guard: Some(Guard { reg: %p1, negated: true }), opcode: Ld,
//! // modifiers: space Global, vec V2; types: [.f32];
//! // operands: [Vector([Reg(%f1), Sink]), Address { base: Reg(%rd4), offset: -16 }]
//! ```
//!
//! Operands are stored in PTX order. Which ones an instruction writes is given by [`Inst::defs`]
//! and which registers it reads by [`Inst::for_each_use`] (guards, address bases and vector
//! elements included), so analyses never need to know operand layouts themselves. The carry flag
//! of `add.cc`/`addc` and friends is implicit per-thread state, not a register.

use alloc::boxed::Box;
use alloc::vec::Vec;

use serde::{Deserialize, Serialize};

use super::arena::Handle;
use super::modifiers::{Modifiers, TypeList};
use super::module::{Block, Function, Prototype, Reg, Var};
use super::opcode::Opcode;
pub use super::special::{Dim, SpecialReg};
use super::types::{StateSpace, Type};

/// One PTX instruction.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Inst {
    /// The instruction name.
    pub opcode: Opcode,
    /// Optional predicate guard `@%p` / `@!%p`.
    pub guard: Option<Guard>,
    /// Every modifier, typed.
    pub mods: Modifiers,
    /// The instruction types in PTX order (`cvt.f32.s32` → `[.f32, .s32]`).
    pub types: TypeList,
    /// Operands in PTX order.
    pub operands: Vec<Operand>,
}

/// A predicate guard: the instruction executes in threads where `reg` is true (false if
/// `negated`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Guard {
    /// The predicate register.
    pub reg: Handle<Reg>,
    /// `@!%p`.
    pub negated: bool,
}

/// An immediate value with its exact bits.
///
/// Meaning in an instruction (as ptxas reads it; the verifier rejects other combinations): an
/// integer supplies the low bits of an integer, bit or predicate operand; a float literal in an
/// `.f32`/`.f64` instruction is converted to that precision (round to nearest even); in a
/// `.b32`/`.b64` instruction a `0f`/`0d` literal supplies raw bits.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Imm {
    /// An integer literal as 64-bit two's complement (`-1` is `u64::MAX`; `0xFFFFFFFF` is
    /// `4294967295`). Instructions use the low bits their type needs.
    Int(u64),
    /// A single-precision literal `0fXXXXXXXX`, by its bits.
    F32(u32),
    /// A double-precision literal: `0dXXXXXXXXXXXXXXXX` or a decimal literal such as `1.5`, by its
    /// bits.
    F64(u64),
}

impl Imm {
    /// The value's bits, zero-extended to 64.
    pub fn bits(self) -> u64 {
        match self {
            Imm::Int(v) | Imm::F64(v) => v,
            Imm::F32(v) => u64::from(v),
        }
    }
}

/// Something with an address that an operand can name: a variable, a parameter or a function.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Symbol {
    /// A module-level variable (`Module::globals`).
    Global(Handle<Var>),
    /// A variable declared in the function body (`Body::vars`).
    Local(Handle<Var>),
    /// The `i`-th parameter of the enclosing function.
    Param(u32),
    /// The `i`-th return parameter of the enclosing `.func`.
    Return(u32),
    /// A function (call target, or its address taken with `mov`).
    Function(Handle<Function>),
    /// A call target this module never declares (`Module::externals[i]`): OptiX-style runtime
    /// functions that the loader provides.
    External(u32),
}

/// The base of a memory address.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum AddressBase {
    /// A register holding an address.
    Reg(Handle<Reg>),
    /// A variable or parameter.
    Symbol(Symbol),
    /// No base: an absolute address given by the offset alone (`[0x100]`).
    Absolute,
}

/// A memory address `[base+offset]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Address {
    /// What the offset is added to.
    pub base: AddressBase,
    /// Byte offset (may be negative).
    pub offset: i64,
}

/// The operand of a texture or surface instruction: `[tex, {coords}]`, `[tex, sampler, {coords}]`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TexOperand {
    /// The texture or surface: a `.texref`/`.surfref` variable, a parameter or a 64-bit register
    /// holding a handle.
    pub texture: Operand,
    /// The sampler in independent mode.
    pub sampler: Option<Operand>,
    /// Coordinates (a vector operand, or a single register for 1D surfaces).
    pub coords: Operand,
}

/// An instruction operand.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Operand {
    /// A register.
    Reg(Handle<Reg>),
    /// A negated predicate `!%p` (as a source of `setp`, `vote`, `selp`-like instructions).
    NotReg(Handle<Reg>),
    /// An immediate.
    Imm(Imm),
    /// A special register.
    Special(SpecialReg),
    /// A memory address `[base+offset]`.
    Address(Address),
    /// The address of a symbol plus an offset, outside brackets (`mov.u64 %rd1, arr+4`).
    Symbol {
        /// The symbol.
        symbol: Symbol,
        /// Byte offset.
        offset: i64,
    },
    /// A branch target.
    Label(Handle<Block>),
    /// A vector `{a, b, c, d}` (elements are registers, sinks or immediates).
    Vector(Vec<Operand>),
    /// `_`: a destination whose value is discarded.
    Sink,
    /// `d|p`: the two destinations of `setp`, `shfl`, `lop3.bop` and friends.
    Pair(Box<[Operand; 2]>),
    /// A parenthesised list: the return values and arguments of `call`.
    List(Vec<Operand>),
    /// A texture or surface operand.
    Tex(Box<TexOperand>),
    /// The call prototype of an indirect `call`.
    Prototype(Handle<Prototype>),
    /// An operand only a register-file scheme's IR → IR pass creates (see [`SchemeOperand`]).
    Scheme(Box<SchemeOperand>),
}

/// Operands that exist only in IR produced by a register-file scheme's pass, never by the front
/// end. Their text form is for listings and diffs: it is not NVIDIA PTX and does not re-parse.
///
/// ```text
/// mul.ftz.f32 %f3, %c[%rd1+4], %f1;     // DeMO: a direct memory operand (Memory)
/// xor.b32_shr.u32 %r0, %r2, %r0, 31;     // Gilani: shr reads the composite xor (Composite)
/// neg.s32 %r6, %crf;                     // Gilani: reads the composite register (Crf)
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum SchemeOperand {
    /// DeMO (Mohammadpur-Fard et al.): the consumer of a single-use load reads memory directly;
    /// printed `%c[…]`, `%g[…]`, `%s[…]`, `%l[…]` or `%p[…]` by state space (the paper's Fig. 4).
    Memory(MemOperand),
    /// Gilani et al.: the producer half of a composite instruction. Its destination (first
    /// operand) is [`SchemeOperand::Crf`]; it has no guard of its own (the consumer's applies).
    Composite(Inst),
    /// Gilani et al.: a read of the warp's entry in the composite register file, written by the
    /// last composite instruction before it in the same block.
    Crf,
}

/// A direct memory operand: what the removed load would have read.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct MemOperand {
    /// The state space of the removed load (`.const`, `.global`, `.shared`, `.local`, `.param`).
    pub space: StateSpace,
    /// The address of the removed load.
    pub address: Address,
    /// The type of the removed load (`.f32`, `.u32`, …).
    pub ty: Type,
}

impl MemOperand {
    /// The one-letter prefix of the text form (`c` for `.const`, as in the paper's `%c[%rd1+4]`).
    pub fn prefix(&self) -> &'static str {
        match self.space {
            StateSpace::Const => "%c",
            StateSpace::Global => "%g",
            StateSpace::Local => "%l",
            s if s.is_shared() => "%s",
            s if s.is_param() => "%p",
            _ => "%m",
        }
    }
}

impl Operand {
    /// What kind of operand it is, in words, for messages (`a label`, `a memory address`).
    pub fn kind_in_words(&self) -> &'static str {
        match self {
            Operand::Reg(_) => "a register",
            Operand::NotReg(_) => "a negated predicate",
            Operand::Imm(_) => "an immediate",
            Operand::Special(_) => "a special register",
            Operand::Address(_) => "a memory address `[…]`",
            Operand::Symbol { .. } => "a symbol's address",
            Operand::Label(_) => "a label",
            Operand::Vector(_) => "a vector `{…}`",
            Operand::Sink => "the sink `_`",
            Operand::Pair(_) => "a pair `d|p`",
            Operand::List(_) => "a parenthesised list",
            Operand::Tex(_) => "a texture or surface operand",
            Operand::Prototype(_) => "a call prototype",
            Operand::Scheme(_) => "a scheme's operand",
        }
    }

    /// Whether it never stands for a value an instruction reads: a memory address, a label, a
    /// parenthesised list, a texture or surface operand, or a call prototype.
    pub fn is_never_a_value(&self) -> bool {
        matches!(
            self,
            Operand::Address(_) | Operand::Label(_) | Operand::List(_) | Operand::Tex(_) | Operand::Prototype(_)
        )
    }

    /// The register of a plain `Reg` operand.
    pub fn as_reg(&self) -> Option<Handle<Reg>> {
        match self {
            Operand::Reg(r) => Some(*r),
            _ => None,
        }
    }

    /// Calls `f` for every register this operand mentions, with `true` if the mention is a
    /// read even when the operand is in a destination position (address bases, texture handles).
    fn for_each_reg(&self, f: &mut dyn FnMut(Handle<Reg>, bool)) {
        match self {
            Operand::Reg(r) | Operand::NotReg(r) => f(*r, false),
            Operand::Address(Address { base: AddressBase::Reg(r), .. }) => f(*r, true),
            Operand::Vector(items) | Operand::List(items) => items.iter().for_each(|o| o.for_each_reg(f)),
            Operand::Pair(pair) => pair.iter().for_each(|o| o.for_each_reg(f)),
            Operand::Tex(t) => {
                t.texture.for_each_reg(&mut |r, _| f(r, true));
                if let Some(s) = &t.sampler {
                    s.for_each_reg(&mut |r, _| f(r, true));
                }
                t.coords.for_each_reg(&mut |r, _| f(r, true));
            }
            Operand::Scheme(s) => match &**s {
                SchemeOperand::Memory(MemOperand { address: Address { base: AddressBase::Reg(r), .. }, .. }) => {
                    f(*r, true)
                }
                SchemeOperand::Composite(inner) => {
                    inner.uses().iter().for_each(|o| o.for_each_reg(&mut |r, _| f(r, true)));
                }
                SchemeOperand::Memory(_) | SchemeOperand::Crf => {}
            },
            _ => {}
        }
    }

    /// Calls `f` for every register this operand reads when it is a source.
    pub fn for_each_read(&self, mut f: impl FnMut(Handle<Reg>)) {
        self.for_each_reg(&mut |r, _| f(r));
    }

    /// The scheme operand, if this is one.
    pub fn as_scheme(&self) -> Option<&SchemeOperand> {
        match self {
            Operand::Scheme(s) => Some(s),
            _ => None,
        }
    }
}

impl Inst {
    /// An instruction with no guard, modifiers or types.
    pub fn new(opcode: Opcode, operands: Vec<Operand>) -> Self {
        Inst { opcode, guard: None, mods: Modifiers::default(), types: TypeList::new(), operands }
    }

    /// The instruction type (first type), if any.
    pub fn ty(&self) -> Option<Type> {
        self.types.first()
    }

    /// Number of leading operands that are written (destinations).
    pub fn def_count(&self) -> usize {
        let n = match self.opcode {
            Opcode::Bar | Opcode::Barrier if self.mods.bar_mode == Some(super::modifiers::BarMode::Red) => 1,
            op => op.dest_count(),
        };
        n.min(self.operands.len())
    }

    /// Destination operands.
    pub fn defs(&self) -> &[Operand] {
        self.operands.get(..self.def_count()).unwrap_or(&[])
    }

    /// Source operands.
    pub fn uses(&self) -> &[Operand] {
        self.operands.get(self.def_count()..).unwrap_or(&[])
    }

    /// True if the destination is also read (accumulating `wgmma.mma_async` with a non-zero
    /// scale-d is modelled as always reading its accumulators).
    pub fn reads_dest(&self) -> bool {
        matches!(self.opcode, Opcode::WgmmaMmaAsync)
    }

    /// Calls `f` for every register the instruction writes. `call` writes no register: its
    /// results go to `.param` variables, except when a register appears in the return list (as
    /// hand-written PTX and inline asm do), which counts as written.
    pub fn for_each_def(&self, mut f: impl FnMut(Handle<Reg>)) {
        for op in self.defs() {
            op.for_each_reg(&mut |r, read| {
                if !read {
                    f(r);
                }
            });
        }
        if self.opcode == Opcode::Call {
            if let Some(Operand::List(rets)) = self.operands.first() {
                for op in rets {
                    op.for_each_reg(&mut |r, read| {
                        if !read {
                            f(r);
                        }
                    });
                }
            }
        }
    }

    /// Calls `f` for every register the instruction reads: the guard, sources, address bases
    /// (also of destinations) and accumulators that are read back.
    pub fn for_each_use(&self, mut f: impl FnMut(Handle<Reg>)) {
        if let Some(g) = self.guard {
            f(g.reg);
        }
        let reads_dest = self.reads_dest();
        for op in self.defs() {
            op.for_each_reg(&mut |r, read| {
                if read || reads_dest {
                    f(r);
                }
            });
        }
        let skip_call_rets =
            usize::from(self.opcode == Opcode::Call && matches!(self.operands.first(), Some(Operand::List(_))));
        for op in self.uses().iter().skip(skip_call_rets) {
            op.for_each_reg(&mut |r, _| f(r));
        }
    }

    /// The block targets of a branch (`bra`, `brx.idx` through its label list).
    pub fn branch_targets(&self) -> impl Iterator<Item = Handle<Block>> + '_ {
        self.operands.iter().flat_map(|op| {
            let items: &[Operand] = match op {
                Operand::List(items) | Operand::Vector(items) => items,
                other => core::slice::from_ref(other),
            };
            items.iter().filter_map(|o| match o {
                Operand::Label(b) => Some(*b),
                _ => None,
            })
        })
    }
}

#[cfg(test)]
#[allow(clippy::panic, reason = "a failing test panics with the input that failed")]
mod tests {
    use alloc::string::String;
    use alloc::vec::Vec;

    use crate::ir::Module;

    const HEAD: &str = ".version 8.3\n.target sm_90\n.address_size 64\n";

    fn module(body: &str) -> Module {
        let src = alloc::format!(
            "{HEAD}.visible .entry k(.param .u64 p)\n{{\n.reg .pred %p<3>;\n.reg .b32 %r<9>;\n.reg .b64 %rd<4>;\n\
             .reg .f32 %f<5>;\n{body}\nret;\n}}\n"
        );
        match crate::ptx::compile(&src) {
            Ok(m) => m,
            Err(d) => panic!("{src}\n{d:?}"),
        }
    }

    /// (defs, uses) of the first instruction, by register name.
    fn def_use(body: &str) -> (Vec<String>, Vec<String>) {
        let m = module(body);
        let Some(f) = m.functions.values().next() else { return Default::default() };
        let Some(b) = f.body.as_ref() else { return Default::default() };
        let Some(inst) = b.insts.values().next() else { return Default::default() };
        let name = |r| b.regs[r].name.clone();
        let (mut defs, mut uses) = (Vec::new(), Vec::new());
        inst.for_each_def(|r| defs.push(name(r)));
        inst.for_each_use(|r| uses.push(name(r)));
        (defs, uses)
    }

    fn names(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| String::from(*s)).collect()
    }

    #[test]
    fn defs_and_uses_cover_every_operand_shape() {
        assert_eq!(def_use("@!%p1 add.s32 %r1, %r2, 3;"), (names(&["%r1"]), names(&["%p1", "%r2"])));
        assert_eq!(def_use("st.global.u32 [%rd1+4], %r2;"), (names(&[]), names(&["%rd1", "%r2"])));
        assert_eq!(def_use("ld.global.v2.f32 {%f1, _}, [%rd2];"), (names(&["%f1"]), names(&["%rd2"])));
        assert_eq!(
            def_use("setp.lt.and.s32 %p1|%p2, %r1, %r2, !%p0;"),
            (names(&["%p1", "%p2"]), names(&["%r1", "%r2", "%p0"]))
        );
        assert_eq!(
            def_use("atom.global.cas.b32 %r1, [%rd1], %r2, %r3;"),
            (names(&["%r1"]), names(&["%rd1", "%r2", "%r3"]))
        );
        assert_eq!(def_use("mov.b64 {%r1, %r2}, %rd1;"), (names(&["%r1", "%r2"]), names(&["%rd1"])));
        assert_eq!(def_use("mov.b64 %rd1, {%r1, %r2};"), (names(&["%rd1"]), names(&["%r1", "%r2"])));
        assert_eq!(def_use("bar.red.popc.u32 %r1, 0, %p1;"), (names(&["%r1"]), names(&["%p1"])));
        assert_eq!(def_use("red.global.add.u32 [%rd1], %r1;"), (names(&[]), names(&["%rd1", "%r1"])));
        assert_eq!(def_use("shfl.sync.bfly.b32 %r1|%p1, %r2, 1, 31, -1;"), (names(&["%r1", "%p1"]), names(&["%r2"])));
    }

    #[test]
    fn calls_write_registers_in_their_result_list_only() {
        let src = alloc::format!(
            "{HEAD}.func (.param .b32 r) f(.param .b32 a) {{ ret; }}\n.entry k() {{\n.reg .b32 %r<3>;\n\
             .param .b32 a0;\n.param .b32 r0;\ncall.uni (r0), f, (a0);\ncall.uni (%r1), f, (%r2);\nret;\n}}\n"
        );
        let Ok(m) = crate::ptx::compile(&src) else { panic!("{src}") };
        let Some(b) = m.functions.values().nth(1).and_then(|f| f.body.as_ref()) else { panic!("no body") };
        let calls: Vec<_> = b.insts.values().take(2).collect();
        let mut defs = Vec::new();
        calls[0].for_each_def(|r| defs.push(r));
        assert!(defs.is_empty());
        calls[1].for_each_def(|r| defs.push(r));
        let mut uses = Vec::new();
        calls[1].for_each_use(|r| uses.push(b.regs[r].name.clone()));
        assert_eq!(defs.len(), 1);
        assert_eq!(uses, names(&["%r2"]));
    }
}
