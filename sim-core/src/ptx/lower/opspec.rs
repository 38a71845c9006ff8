//! What each opcode accepts: the kinds of modifier, how many types and operands, and which
//! modifiers it cannot do without.
//!
//! ```text
//! setp: modifiers cmp, bool, ftz; exactly 1 type; 3–4 operands; requires a comparison
//! ```

use super::mods::Kind::{self, *};
use crate::ir::Opcode;

/// The accepted shape of one opcode.
pub struct OpSpec {
    /// Modifier kinds it accepts (types are separate).
    pub kinds: &'static [Kind],
    /// Minimum and maximum number of types.
    pub types: (u8, u8),
    /// Minimum and maximum number of operands.
    pub operands: (u8, u8),
    /// Modifier kinds that must be present.
    pub required: &'static [Kind],
}

const fn spec(kinds: &'static [Kind], types: (u8, u8), operands: (u8, u8), required: &'static [Kind]) -> OpSpec {
    OpSpec { kinds, types, operands, required }
}

const FLOAT_ARITH: &[Kind] = &[Rounding, Ftz, Sat, Cc, Relu];
const MEM_LD: &[Kind] = &[Sem, Mmio, Scope, Space, Cache, Nc, Eviction, CacheHint, PrefetchSize, Vec];
const ATOMIC: &[Kind] = &[Sem, Scope, Space, Atom, Noftz, CacheHint, Vec];
const MBARRIER: &[Kind] = &[Space, Sem, Scope, NoComplete, ExpectTx, Parity];

/// The spec of `op`.
pub fn op_spec(op: Opcode) -> OpSpec {
    use Opcode as O;
    match op {
        O::Add | O::Sub => spec(FLOAT_ARITH, (1, 1), (3, 3), &[]),
        O::Mul => spec(&[MulMode, Rounding, Ftz, Sat], (1, 1), (3, 3), &[]),
        O::Mad => spec(&[MulMode, Cc, Rounding, Ftz, Sat], (1, 1), (4, 4), &[]),
        O::Mul24 => spec(&[MulMode], (1, 1), (3, 3), &[]),
        O::Mad24 => spec(&[MulMode, Sat], (1, 1), (4, 4), &[]),
        O::Sad => spec(&[], (1, 1), (4, 4), &[]),
        O::Div => spec(&[Rounding, Precision, Ftz], (1, 1), (3, 3), &[]),
        O::Rem | O::Copysign | O::Shl | O::Shr | O::And | O::Or | O::Xor => spec(&[], (1, 1), (3, 3), &[]),
        O::Abs | O::Neg => spec(&[Ftz, Relu], (1, 1), (2, 2), &[]),
        O::Min | O::Max => spec(&[Ftz, NaN, Relu, Xorsign, Abs], (1, 1), (3, 3), &[]),
        O::Popc | O::Clz | O::Brev | O::Not | O::Cnot => spec(&[], (1, 1), (2, 2), &[]),
        O::Bfind => spec(&[Shiftamt], (1, 1), (2, 2), &[]),
        O::Fns => spec(&[], (1, 1), (4, 4), &[]),
        O::Bfe => spec(&[], (1, 1), (4, 4), &[]),
        O::Bfi => spec(&[], (1, 1), (5, 5), &[]),
        O::Bmsk | O::Szext => spec(&[Funnel], (1, 1), (3, 3), &[]),
        O::Dp4a => spec(&[], (2, 2), (4, 4), &[]),
        O::Dp2a => spec(&[MulMode], (2, 2), (4, 4), &[]),
        O::Addc | O::Subc => spec(&[Cc], (1, 1), (3, 3), &[]),
        O::Madc => spec(&[MulMode, Cc], (1, 1), (4, 4), &[]),
        O::Testp => spec(&[Testp], (1, 1), (2, 2), &[Testp]),
        O::Fma => spec(&[Rounding, Oob, Ftz, Sat, Relu], (1, 1), (4, 4), &[]),
        O::Rcp | O::Sqrt | O::Rsqrt => spec(&[Rounding, Precision, Ftz], (1, 1), (2, 2), &[]),
        O::Sin | O::Cos | O::Lg2 | O::Ex2 | O::Tanh => spec(&[Precision, Ftz], (1, 1), (2, 2), &[]),
        O::Set => spec(&[Cmp, BoolOp, Ftz], (2, 2), (3, 4), &[Cmp]),
        O::Setp => spec(&[Cmp, BoolOp, Ftz], (1, 1), (3, 4), &[Cmp]),
        O::Selp => spec(&[], (1, 1), (4, 4), &[]),
        O::Slct => spec(&[Ftz], (2, 2), (4, 4), &[]),
        O::Lop3 => spec(&[BoolOp], (1, 1), (5, 6), &[]),
        O::Shf => spec(&[ShiftDir, Funnel], (1, 1), (4, 4), &[ShiftDir]),
        O::Prmt => spec(&[Prmt], (1, 1), (4, 4), &[]),
        O::Mov => spec(&[], (1, 1), (2, 2), &[]),
        O::Shfl => spec(&[Sync, Shfl], (1, 1), (4, 5), &[Shfl]),
        O::Ld => spec(MEM_LD, (1, 1), (2, 3), &[]),
        O::Ldu => spec(&[Space, Vec], (1, 1), (2, 2), &[]),
        O::St => spec(&[Sem, Mmio, Scope, Space, Cache, Eviction, CacheHint, Vec], (1, 1), (2, 3), &[]),
        O::Prefetch => spec(&[Space, Level, Eviction], (0, 0), (1, 1), &[]),
        O::Prefetchu => spec(&[Level], (0, 0), (1, 1), &[]),
        O::Isspacep => spec(&[Space], (0, 0), (2, 2), &[Space]),
        O::Cvta => spec(&[To, Space], (1, 1), (2, 2), &[Space]),
        O::Cvt => spec(&[Rounding, Ftz, Sat, Satfinite, Relu], (2, 2), (2, 3), &[]),
        O::CvtPack => spec(&[Sat], (2, 3), (3, 4), &[]),
        O::Mapa => spec(&[Space], (1, 1), (3, 3), &[]),
        O::Createpolicy => spec(&[Policy, Space, Eviction, Level], (1, 1), (2, 4), &[Policy]),
        O::Getctarank => spec(&[Space], (1, 1), (2, 2), &[]),
        O::CpAsync => spec(&[Cache, Space, CacheHint, PrefetchSize], (0, 0), (3, 5), &[Space]),
        O::CpAsyncCommitGroup | O::CpAsyncWaitAll | O::WgmmaFence | O::WgmmaCommitGroup => {
            spec(&[Sync, Aligned], (0, 0), (0, 0), &[])
        }
        O::CpAsyncWaitGroup | O::WgmmaWaitGroup | O::CpAsyncBulkWaitGroup => {
            spec(&[Sync, Aligned], (0, 0), (1, 1), &[])
        }
        O::CpAsyncMbarrierArrive => spec(&[Noinc, Space], (0, 1), (1, 1), &[]),
        O::CpAsyncBulk => spec(&[Space, Completion, Multicast, CacheHint], (0, 0), (3, 6), &[Space]),
        O::CpAsyncBulkCommitGroup => spec(&[], (0, 0), (0, 0), &[]),
        O::Ldmatrix | O::Stmatrix => {
            spec(&[Sync, Aligned, Shape, Matrices, Trans, Space], (1, 1), (2, 2), &[Shape, Matrices])
        }
        O::Tex => spec(&[Geom, Lod, Vec], (2, 2), (2, 5), &[Geom]),
        O::Tld4 => spec(&[Component, Geom, Vec], (2, 2), (2, 4), &[Component, Geom]),
        O::Txq => spec(&[Lod, Query], (1, 1), (2, 3), &[Query]),
        O::Suld | O::Sust => spec(&[SurfMode, Geom, Cache, Vec, SurfClamp], (1, 1), (2, 2), &[SurfMode, Geom]),
        O::Sured => spec(&[SurfMode, Atom, Geom, SurfClamp], (1, 1), (2, 2), &[Geom]),
        O::Suq => spec(&[Query], (1, 1), (2, 2), &[Query]),
        O::Bra => spec(&[Uni], (0, 0), (1, 1), &[]),
        O::BrxIdx => spec(&[Uni], (0, 0), (2, 2), &[]),
        O::Call => spec(&[Uni], (0, 0), (1, 4), &[]),
        O::Ret => spec(&[Uni], (0, 0), (0, 0), &[]),
        O::Exit | O::Trap | O::Brkpt | O::GriddepcontrolLaunchDependents | O::GriddepcontrolWait => {
            spec(&[], (0, 0), (0, 0), &[])
        }
        O::Bar | O::Barrier => spec(&[Scope, Bar, Aligned, Reduce], (0, 1), (0, 4), &[Bar]),
        O::BarWarpSync => spec(&[], (0, 0), (1, 1), &[]),
        O::BarrierClusterArrive | O::BarrierClusterWait => spec(&[Sem, Aligned], (0, 0), (0, 0), &[]),
        O::Membar => spec(&[Gl, Scope], (0, 0), (0, 0), &[Scope]),
        O::Fence => spec(&[Sem, Scope, Proxy, MbarrierInit], (0, 0), (0, 0), &[]),
        O::Atom => spec(ATOMIC, (1, 1), (3, 5), &[Atom]),
        O::Red => spec(ATOMIC, (1, 1), (2, 3), &[Atom]),
        O::Vote => spec(&[Sync, Vote], (1, 1), (2, 3), &[Vote]),
        O::Match => spec(&[Match, Sync], (1, 1), (3, 4), &[Match, Sync]),
        O::Activemask => spec(&[], (1, 1), (1, 1), &[]),
        O::Redux => spec(&[Sync, Reduce, Abs, NaN], (1, 1), (3, 3), &[Sync, Reduce]),
        O::Elect => spec(&[Sync], (0, 0), (2, 2), &[Sync]),
        O::Setmaxnreg => spec(&[IncDec, Sync, Aligned], (1, 1), (1, 1), &[IncDec]),
        O::MbarrierInit | O::MbarrierExpectTx | O::MbarrierCompleteTx | O::MbarrierPendingCount => {
            spec(MBARRIER, (0, 1), (2, 2), &[])
        }
        O::MbarrierInval => spec(MBARRIER, (0, 1), (1, 1), &[]),
        O::MbarrierArrive | O::MbarrierArriveDrop => spec(MBARRIER, (0, 1), (1, 3), &[]),
        O::MbarrierTestWait | O::MbarrierTryWait => spec(MBARRIER, (0, 1), (3, 4), &[]),
        O::WmmaLoad | O::WmmaStore => {
            spec(&[Frag, Sync, Aligned, Layout, Shape, Space], (1, 1), (2, 3), &[Frag, Layout, Shape])
        }
        O::WmmaMma => spec(&[Sync, Aligned, Layout, Shape, Rounding, Satfinite], (2, 4), (4, 4), &[Layout, Shape]),
        O::Mma => spec(&[Sync, Aligned, Shape, Layout, Rounding, Satfinite, Bmma, Popc], (2, 4), (4, 6), &[Shape]),
        O::MmaSp => spec(&[Sync, Aligned, Shape, Layout, Rounding, Satfinite], (2, 4), (6, 7), &[Shape]),
        O::WgmmaMmaAsync => spec(&[Sync, Aligned, Shape, Satfinite], (3, 3), (4, 9), &[Shape]),
        O::Pmevent => spec(&[], (0, 0), (1, 1), &[]),
        O::RegmutexAcquire | O::RegmutexRelease => spec(&[], (0, 0), (1, 1), &[]),
        O::Nanosleep => spec(&[], (1, 1), (1, 1), &[]),
        O::Alloca => spec(&[Space], (1, 1), (2, 3), &[]),
        O::Stacksave | O::Stackrestore => spec(&[], (1, 1), (1, 1), &[]),
        O::Vadd | O::Vsub | O::Vabsdiff | O::Vmin | O::Vmax => spec(&[Sat, VideoOp2], (3, 3), (3, 4), &[]),
        O::Vshl | O::Vshr => spec(&[Sat, Funnel, VideoOp2], (3, 3), (3, 4), &[Funnel]),
        O::Vmad => spec(&[Sat, VideoScale, Po], (3, 3), (4, 4), &[]),
        O::Vset => spec(&[Cmp, VideoOp2], (2, 2), (3, 4), &[Cmp]),
    }
}

/// Opcodes that take a destination and a source state space (`cp.async.ca.shared.global`).
pub fn takes_two_spaces(op: Opcode) -> bool {
    matches!(op, Opcode::CpAsync | Opcode::CpAsyncBulk)
}

/// Opcodes that take two layouts (`.row.col`).
pub fn takes_two_layouts(op: Opcode) -> bool {
    matches!(op, Opcode::WmmaMma | Opcode::Mma | Opcode::MmaSp)
}
