//! RegLab's intermediate representation of PTX: typed, with every modifier kept, with virtual
//! registers and basic blocks, and a stable text form that is itself PTX.
//!
//! ```text
//! .reg .b32 %r<3>;
//! @%p1 bra $L__BB0_2;        // Inst { guard: %p1, opcode: Bra, operands: [Label(block 2)] }
//! add.s32 %r2, %r1, -1;      // Inst { opcode: Add, types: [.s32], operands: [Reg, Reg, Imm(Int(-1))] }
//! ```
//!
//! Structure: a [`Module`] holds globals and [`Function`]s (kernels are `.entry` functions); a
//! defined function has a [`Body`] with arenas of registers, variables, blocks and instructions
//! addressed by typed [`Handle`]s, and span side tables for diagnostics. [`Inst`] stores operands
//! in PTX order; [`Inst::defs`], [`Inst::for_each_def`] and [`Inst::for_each_use`] say what it
//! writes and reads. Shadowing declarations in nested `{ }` scopes get unique names (`%r1$1`),
//! vector registers (`.reg .v4 .u32 t`) are split into scalar registers (`t$x` … `t$w`), and
//! parameterised names (`%r<42>`) declare `%r0` … `%r41`.
//!
//! The text form ([`core::fmt::Display`] on [`Module`]) is deterministic and re-parses to the
//! same IR; [`verify`] checks the invariants listed in [`module`].

pub mod arena;
pub mod debug_info;
pub mod display;
pub mod inst;
pub mod modifiers;
pub mod module;
pub mod opcode;
pub mod print_inst;
pub mod print_video;
pub mod query;
pub mod scheme;
#[cfg(test)]
mod scheme_tests;
pub mod special;
pub mod types;
pub mod verify;
pub mod verify_operands;
pub mod verify_types;

pub use arena::{Arena, Handle, OperandSpans, SpanTable};
pub use debug_info::*;
pub use inst::{Address, AddressBase, Guard, Imm, Inst, MemOperand, Operand, SchemeOperand, Symbol, TexOperand};
pub use modifiers::*;
pub use module::*;
pub use opcode::Opcode;
pub use special::{Dim, SpecialReg};
pub use types::{StateSpace, Type, VecWidth, WidthClass};
