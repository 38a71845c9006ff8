//! The executable form of a kernel: every function it may call, decoded once from the IR into a
//! flat list of [`DInst`] with registers as frame slots, addresses resolved to spaces and
//! offsets, branch targets and reconvergence points as program counters. Executing this form
//! needs no look-ups in the IR.
//!
//! ```text
//! $L__BB0_2: add.s32 %r1, %r2, 1;   // DInst { op: Int { op: Add, ty: s32, d: Reg(1), a: Reg(2), b: Imm(1) } }
//! @%p1 bra $L__BB0_2;               // DInst { guard: Some((p1, false)), op: Bra { target: 0, reconv: 7 } }
//! ```

use alloc::string::String;
use alloc::vec::Vec;

use super::memory::Space;
use super::semantics::round::Mode;
use crate::diagnostic::Span;
use crate::ir::{Function, Handle, Inst, SpecialReg};

/// A register slot of the current frame.
pub type RegId = u32;
/// A predicate slot of the current frame.
pub type PredId = u32;

/// A source operand.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Src {
    /// A register.
    Reg(RegId),
    /// An immediate (bits).
    Imm(u64),
    /// A special register.
    Special(SpecialReg),
    /// A predicate as 0/1 (negated if the flag is set).
    Pred(PredId, bool),
    /// A frame-relative local address (`frame.local_base + offset`).
    Frame(u64),
}

/// A destination operand.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dst {
    /// A register with the mask of its width.
    Reg(RegId, u64),
    /// A predicate (written from bit 0 of the value).
    Pred(PredId),
    /// `_`: discarded.
    Sink,
}

/// A memory reference `[base + offset]` in a space.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MemRef {
    /// The base.
    pub base: Src,
    /// Byte offset.
    pub offset: i64,
    /// The space (`None`: generic addressing).
    pub space: Option<Space>,
}

/// An integer type: width and signedness.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IntTy {
    /// Width in bits (8, 16, 32, 64).
    pub bits: u32,
    /// Signed.
    pub signed: bool,
}

/// A float type of arithmetic.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FTy {
    /// Half.
    F16,
    /// Two halves.
    F16x2,
    /// bfloat16.
    Bf16,
    /// Two bfloat16.
    Bf16x2,
    /// Single.
    F32,
    /// Double.
    F64,
}

/// Float-operation modifiers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FMode {
    /// Rounding.
    pub round: Mode,
    /// Flush subnormals to zero.
    pub ftz: bool,
    /// Clamp to [0, 1].
    pub sat: bool,
    /// Clamp negatives to 0.
    pub relu: bool,
    /// `min`/`max` propagate NaN.
    pub nan: bool,
}

pub use super::op::*;

/// One decoded instruction.
#[derive(Clone, Debug, PartialEq)]
pub struct DInst {
    /// What it does.
    pub op: Op,
    /// Guard predicate and negation.
    pub guard: Option<(PredId, bool)>,
    /// The IR instruction it came from.
    pub inst: Handle<Inst>,
    /// Its source span (for line numbers).
    pub span: Span,
}

/// One decoded function.
#[derive(Clone, Debug)]
pub struct FuncCode {
    /// Name.
    pub name: String,
    /// The IR function.
    pub handle: Handle<Function>,
    /// Instructions; `code.len()` is the exit pseudo-PC.
    pub code: Vec<DInst>,
    /// Number of register slots.
    pub regs: u32,
    /// Number of predicate slots.
    pub preds: u32,
    /// Bytes of local frame (locals, call buffers, parameters, returns).
    pub frame_bytes: u64,
    /// Frame offset and size of each parameter (`.param` parameters) or its register slot (`.reg`).
    pub params: Vec<CallValue>,
    /// Frame offset and size of each return parameter, or its register slot.
    pub returns: Vec<CallValue>,
    /// Text of each instruction (by IR handle index) for error messages.
    pub texts: Vec<String>,
}

impl FuncCode {
    /// The exit pseudo-PC.
    pub fn exit_pc(&self) -> u32 {
        self.code.len() as u32
    }
}

/// A kernel ready to run: its functions (index 0 is the kernel).
#[derive(Clone, Debug)]
pub struct Program {
    /// Functions; 0 is the entry.
    pub funcs: Vec<FuncCode>,
    /// Bytes of static shared memory (dynamic shared memory starts at this offset, 16-aligned).
    pub static_shared: u64,
    /// Bytes of each kernel parameter, and its offset in the parameter bank.
    pub param_layout: Vec<(u64, u64)>,
    /// Total size of the parameter bank.
    pub param_bytes: u64,
    /// Per register slot of the kernel: reduced float format bits its writes are rounded to
    /// (0: none; empty: no rounding) — precision tuning ([`super::float_formats`]).
    pub rounding: Vec<u8>,
    /// Per register slot of the kernel: where each warp's exactness record starts (empty: none
    /// kept) — precision tuning ([`super::float_formats::exactness_slots`]).
    pub exactness: Vec<u8>,
}
