//! The executable form of a kernel: every function it may call, decoded once from the IR into a
//! flat list of [`DInst`] with registers as frame slots, addresses resolved to spaces and
//! offsets, branch targets and reconvergence points as program counters. Executing this form
//! needs no look-ups in the IR.
//!
//! ```text
//! $L__BB0_2: add.s32 %r1, %r2, 1;   // DInst { op: Int { op: Add, ty: s32, d: Reg(1), a: Reg(2), b: Imm(1) } }
//! @%p1 bra $L__BB0_2;               // DInst { guard: Some((p1, false)), op: Bra { target: 0, reconv: 7 } }
//! ```

use alloc::boxed::Box;
use alloc::string::String;
use alloc::vec::Vec;

use super::memory::Space;
use super::semantics::round::Mode;
use crate::diagnostic::Span;
use crate::ir::{
    AtomOp, BoolOp, CmpOp, Function, Handle, Inst, Layout, PrmtMode, ReduceOp, ShflMode, SpecialReg, TestpOp, Type,
    VoteMode,
};

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

/// Integer and bit operations.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[allow(missing_docs, reason = "the names are the PTX instructions")]
pub enum IntOp {
    Add,
    Sub,
    MulLo,
    MulHi,
    MulWide,
    MadLo,
    MadHi,
    MadWide,
    Mul24Lo,
    Mul24Hi,
    Mad24Lo,
    Mad24Hi,
    Sad,
    Div,
    Rem,
    Abs,
    Neg,
    Min,
    Max,
    And,
    Or,
    Xor,
    Not,
    Cnot,
    Shl,
    Shr,
    Popc,
    Clz,
    Brev,
    Bfind,
    BfindShiftAmt,
    Bfe,
    Bmsk,
    BmskClamp,
    Szext,
    SzextClamp,
    Mov,
    Fns,
}

/// Integer operations with the carry flag.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[allow(missing_docs, reason = "the names are the PTX instructions")]
pub enum CarryOp {
    Add,
    Sub,
    MadLo,
    MadHi,
}

/// Float operations.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[allow(missing_docs, reason = "the names are the PTX instructions")]
pub enum FloatOp {
    Add,
    Sub,
    Mul,
    Fma,
    Div,
    Rcp,
    Sqrt,
    Rsqrt,
    Sin,
    Cos,
    Lg2,
    Ex2,
    Tanh,
    Abs,
    Neg,
    Min,
    Max,
    Copysign,
    Mov,
}

/// How a comparison reads its operands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CmpTy {
    /// Integers.
    Int(IntTy),
    /// Floats.
    Float(FTy),
}

/// What a barrier instruction does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BarKind {
    /// Arrive and wait.
    Sync,
    /// Arrive without waiting.
    Arrive,
    /// Arrive, wait and reduce a predicate (`.popc`, `.and`, `.or`).
    Red(ReduceOp),
}

/// Where a call goes.
#[derive(Clone, Debug, PartialEq)]
pub enum CallTarget {
    /// A function of the program.
    Direct(u32),
    /// A function address in a register.
    Indirect(Src),
    /// `vprintf`: a no-op returning 0.
    Vprintf,
    /// Something this module does not define.
    External(String),
}

/// One call argument or return value.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum CallValue {
    /// A `.param` variable of the caller at a frame offset, of `size` bytes.
    Frame {
        /// Offset in the caller's frame.
        offset: u64,
        /// Bytes.
        size: u32,
    },
    /// A register (or immediate) of the caller.
    Value(Src),
    /// A register destination of the caller.
    Reg(Dst),
}

/// The decoded operation.
#[derive(Clone, Debug, PartialEq)]
#[allow(missing_docs, reason = "fields are the PTX operands in order")]
pub enum Op {
    Int {
        op: IntOp,
        ty: IntTy,
        sat: bool,
        d: Dst,
        a: Src,
        b: Src,
        c: Src,
    },
    Bfi {
        ty: IntTy,
        d: Dst,
        a: Src,
        b: Src,
        c: Src,
        e: Src,
    },
    Carry {
        op: CarryOp,
        ty: IntTy,
        cin: bool,
        cout: bool,
        d: Dst,
        a: Src,
        b: Src,
        c: Src,
    },
    Dp4a {
        a_signed: bool,
        b_signed: bool,
        d: Dst,
        a: Src,
        b: Src,
        c: Src,
    },
    Dp2a {
        a_signed: bool,
        b_signed: bool,
        hi: bool,
        d: Dst,
        a: Src,
        b: Src,
        c: Src,
    },
    Prmt {
        mode: Option<PrmtMode>,
        d: Dst,
        a: Src,
        b: Src,
        c: Src,
    },
    Lop3 {
        d: Dst,
        a: Src,
        b: Src,
        c: Src,
        lut: Src,
    },
    Shf {
        left: bool,
        clamp: bool,
        d: Dst,
        a: Src,
        b: Src,
        c: Src,
    },
    Float {
        op: FloatOp,
        ty: FTy,
        mode: FMode,
        d: Dst,
        a: Src,
        b: Src,
        c: Src,
    },
    Testp {
        op: TestpOp,
        ty: FTy,
        d: Dst,
        a: Src,
    },
    Setp {
        cmp: CmpOp,
        ty: CmpTy,
        ftz: bool,
        d: Dst,
        d2: Dst,
        a: Src,
        b: Src,
        combine: Option<(BoolOp, Src)>,
    },
    Set {
        cmp: CmpOp,
        ty: CmpTy,
        ftz: bool,
        float_out: bool,
        d: Dst,
        a: Src,
        b: Src,
        combine: Option<(BoolOp, Src)>,
    },
    Selp {
        d: Dst,
        a: Src,
        b: Src,
        p: Src,
    },
    Slct {
        ty: CmpTy,
        d: Dst,
        a: Src,
        b: Src,
        c: Src,
    },
    PredLogic {
        op: IntOp,
        d: Dst,
        a: Src,
        b: Src,
    },
    Pack {
        d: Dst,
        parts: Box<[Src]>,
        part_bits: u32,
    },
    Unpack {
        ds: Box<[Dst]>,
        a: Src,
        part_bits: u32,
    },
    Cvt {
        to: Type,
        from: Type,
        mode: Mode,
        int_round: bool,
        ftz: bool,
        sat: bool,
        satfinite: bool,
        relu: bool,
        d: Dst,
        a: Src,
        b: Option<Src>,
    },
    Cvta {
        to_generic: bool,
        space: Space,
        d: Dst,
        a: Src,
    },
    Isspacep {
        space: Space,
        d: Dst,
        a: Src,
    },
    Ld {
        ty: Type,
        d: Box<[Dst]>,
        addr: MemRef,
    },
    St {
        ty: Type,
        s: Box<[Src]>,
        addr: MemRef,
    },
    Atom {
        op: AtomOp,
        ty: Type,
        d: Dst,
        addr: MemRef,
        b: Src,
        c: Src,
    },
    CpAsync {
        dst: MemRef,
        src: MemRef,
        size: u32,
        src_size: Option<Src>,
    },
    Bra {
        target: u32,
        reconv: u32,
    },
    BrxIdx {
        index: Src,
        targets: Box<[u32]>,
        reconv: u32,
    },
    Call {
        target: CallTarget,
        rets: Box<[CallValue]>,
        args: Box<[CallValue]>,
    },
    Ret,
    Exit,
    Bar {
        kind: BarKind,
        id: Src,
        count: Option<Src>,
        d: Dst,
        p: Option<Src>,
    },
    Vote {
        mode: VoteMode,
        d: Dst,
        p: Src,
    },
    Shfl {
        mode: ShflMode,
        d: Dst,
        dp: Dst,
        a: Src,
        b: Src,
        c: Src,
    },
    Activemask {
        d: Dst,
    },
    Redux {
        op: ReduceOp,
        ty: IntTy,
        d: Dst,
        a: Src,
    },
    MatchAny {
        ty: IntTy,
        d: Dst,
        a: Src,
    },
    MatchAll {
        ty: IntTy,
        d: Dst,
        dp: Dst,
        a: Src,
    },
    Elect {
        d: Dst,
        dp: Dst,
    },
    Mma {
        shape: (u16, u16, u16),
        types: [Type; 4],
        layout: (Layout, Layout),
        d: Box<[Dst]>,
        a: Box<[Src]>,
        b: Box<[Src]>,
        c: Box<[Src]>,
    },
    Ldmatrix {
        count: u32,
        trans: bool,
        d: Box<[Dst]>,
        addr: MemRef,
    },
    Nop,
    Trap,
    Unsupported(String),
}

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
}
