//! The decoded operations: what each executed instruction does, with its operands already
//! turned into register slots, immediates and memory references.
//!
//! ```text
//! add.s32 %r1, %r2, 1;   // Op::Int { op: IntOp::Add, ty: s32, d: Reg(1), a: Reg(2), b: Imm(1), .. }
//! bar.sync 0;            // Op::Bar { kind: BarKind::Sync, id: Imm(0), .. }
//! ```

use alloc::boxed::Box;
use alloc::string::String;

use super::memory::Space;
use super::program::{Dst, FMode, FTy, IntTy, MemRef, Src};
use super::semantics::round::Mode;
use crate::ir::{AtomOp, BoolOp, CmpOp, Frag, Layout, PrmtMode, ReduceOp, ShflMode, TestpOp, Type, VoteMode};

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
    CvtPackSat {
        bits: u32,
        signed: bool,
        d: Dst,
        a: Src,
        b: Src,
        c: Src,
    },
    Video {
        spec: super::semantics::video::VideoSpec,
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
        /// The bits a true result writes (per half for packed comparisons): all ones for an
        /// integer destination, 1.0 in a float one.
        one: u64,
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
        /// `.satfinite`: integer results clamp to the `.s32` range instead of wrapping.
        satfinite: bool,
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
    WmmaLoad {
        frag: Frag,
        shape: (u16, u16, u16),
        ty: Type,
        layout: Layout,
        d: Box<[Dst]>,
        addr: MemRef,
        stride: Option<Src>,
    },
    WmmaStore {
        shape: (u16, u16, u16),
        ty: Type,
        layout: Layout,
        s: Box<[Src]>,
        addr: MemRef,
        stride: Option<Src>,
    },
    WmmaMma {
        shape: (u16, u16, u16),
        types: (Type, Type, Type),
        d: Box<[Dst]>,
        a: Box<[Src]>,
        b: Box<[Src]>,
        c: Box<[Src]>,
    },
    Nop,
    Trap,
    /// `tex`/`tld4` (`semantics::texture`).
    Tex(Box<super::semantics::texture::TexOp>),
    Unsupported(String),
}

impl Op {
    /// The first destination register of the instructions whose result the stream can record.
    pub fn first_def(&self) -> Option<Dst> {
        Some(match self {
            Op::Int { d, .. }
            | Op::Bfi { d, .. }
            | Op::Carry { d, .. }
            | Op::Dp4a { d, .. }
            | Op::Dp2a { d, .. }
            | Op::Prmt { d, .. }
            | Op::Video { d, .. }
            | Op::CvtPackSat { d, .. }
            | Op::Lop3 { d, .. }
            | Op::Shf { d, .. }
            | Op::Float { d, .. }
            | Op::Set { d, .. }
            | Op::Selp { d, .. }
            | Op::Slct { d, .. }
            | Op::Pack { d, .. }
            | Op::Cvt { d, .. }
            | Op::Cvta { d, .. }
            | Op::Atom { d, .. }
            | Op::Vote { d, .. }
            | Op::Shfl { d, .. }
            | Op::Activemask { d }
            | Op::Redux { d, .. } => *d,
            Op::Ld { d, .. } => *d.first()?,
            _ => return None,
        })
    }
}
