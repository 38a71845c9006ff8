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
//! elements included), so analyses never need to know operand layouts themselves.

use alloc::boxed::Box;
use alloc::vec::Vec;

use serde::{Deserialize, Serialize};

use super::arena::Handle;
use super::modifiers::{Modifiers, TypeList};
use super::module::{Block, Function, Prototype, Reg, Var};
use super::opcode::Opcode;
use super::types::Type;

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

/// A dimension selector of special registers (`%tid.x`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum Dim {
    /// `.x`
    X,
    /// `.y`
    Y,
    /// `.z`
    Z,
}

impl Dim {
    /// `".x"`, `".y"` or `".z"`.
    pub fn as_str(self) -> &'static str {
        match self {
            Dim::X => ".x",
            Dim::Y => ".y",
            Dim::Z => ".z",
        }
    }
}

/// A PTX special register (read-only, predefined).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum SpecialReg {
    /// `%tid`: thread index in the CTA.
    Tid(Dim),
    /// `%ntid`: CTA dimensions.
    Ntid(Dim),
    /// `%ctaid`: CTA index in the grid.
    Ctaid(Dim),
    /// `%nctaid`: grid dimensions.
    Nctaid(Dim),
    /// `%clusterid`: cluster index in the grid.
    Clusterid(Dim),
    /// `%nclusterid`: grid dimensions in clusters.
    Nclusterid(Dim),
    /// `%cluster_ctaid`: CTA index in the cluster.
    ClusterCtaid(Dim),
    /// `%cluster_nctaid`: cluster dimensions in CTAs.
    ClusterNctaid(Dim),
    /// `%cluster_ctarank`.
    ClusterCtarank,
    /// `%cluster_nctarank`.
    ClusterNctarank,
    /// `%is_explicit_cluster`.
    IsExplicitCluster,
    /// `%laneid`.
    Laneid,
    /// `%warpid`.
    Warpid,
    /// `%nwarpid`.
    Nwarpid,
    /// `%smid`.
    Smid,
    /// `%nsmid`.
    Nsmid,
    /// `%gridid`.
    Gridid,
    /// `%lanemask_eq`.
    LanemaskEq,
    /// `%lanemask_le`.
    LanemaskLe,
    /// `%lanemask_lt`.
    LanemaskLt,
    /// `%lanemask_ge`.
    LanemaskGe,
    /// `%lanemask_gt`.
    LanemaskGt,
    /// `%clock`.
    Clock,
    /// `%clock_hi`.
    ClockHi,
    /// `%clock64`.
    Clock64,
    /// `%globaltimer`.
    Globaltimer,
    /// `%globaltimer_lo`.
    GlobaltimerLo,
    /// `%globaltimer_hi`.
    GlobaltimerHi,
    /// `%envreg0` … `%envreg31`.
    Envreg(u8),
    /// `%pm0` … `%pm7`.
    Pm(u8),
    /// `%pm0_64` … `%pm7_64`.
    Pm64(u8),
    /// `%reserved_smem_offset_begin` and friends are not modelled; `%total_smem_size`.
    TotalSmemSize,
    /// `%aggr_smem_size`.
    AggrSmemSize,
    /// `%dynamic_smem_size`.
    DynamicSmemSize,
    /// `%current_graph_exec`.
    CurrentGraphExec,
    /// `WARP_SZ`: the predefined constant warp size (32).
    WarpSz,
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
}

impl Operand {
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
            _ => {}
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
