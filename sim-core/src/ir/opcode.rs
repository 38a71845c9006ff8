//! The PTX instruction names RegLab understands, one [`Opcode`] per name.
//!
//! A name may span several dot-separated words (`cp.async.wait_group`, `wmma.load`,
//! `bar.warp.sync`); the rest of the words are modifiers and types.
//!
//! ```text
//! wmma.load.a.sync.aligned.row.m16n16k16.f16 ...   // Opcode::WmmaLoad, then modifiers
//! ```

use serde::{Deserialize, Serialize};

/// Re-exported where it used to live (it moved to [`crate::diagnostic`]).
pub use crate::diagnostic::edit_distance;

macro_rules! opcodes {
    ($($(#[$meta:meta])* $variant:ident = $text:literal,)*) => {
        /// A PTX instruction name.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
        pub enum Opcode {
            $($(#[$meta])* $variant,)*
        }

        impl Opcode {
            /// Every opcode, in declaration order.
            pub const ALL: &'static [Opcode] = &[$(Opcode::$variant,)*];

            /// The PTX name (`"add"`, `"cp.async.wait_group"`).
            pub fn name(self) -> &'static str {
                match self {
                    $(Opcode::$variant => $text,)*
                }
            }

            /// The opcode named exactly `name`.
            pub fn from_name(name: &str) -> Option<Opcode> {
                match name {
                    $($text => Some(Opcode::$variant),)*
                    _ => None,
                }
            }
        }
    };
}

opcodes! {
    // Integer arithmetic.
    /// `add` (integer and float).
    Add = "add",
    /// `sub`.
    Sub = "sub",
    /// `mul`.
    Mul = "mul",
    /// `mad`.
    Mad = "mad",
    /// `mul24`.
    Mul24 = "mul24",
    /// `mad24`.
    Mad24 = "mad24",
    /// `sad`: sum of absolute differences.
    Sad = "sad",
    /// `div`.
    Div = "div",
    /// `rem`.
    Rem = "rem",
    /// `abs`.
    Abs = "abs",
    /// `neg`.
    Neg = "neg",
    /// `min`.
    Min = "min",
    /// `max`.
    Max = "max",
    /// `popc`: population count.
    Popc = "popc",
    /// `clz`: count leading zeros.
    Clz = "clz",
    /// `bfind`: find most significant non-sign bit.
    Bfind = "bfind",
    /// `fns`: find n-th set bit.
    Fns = "fns",
    /// `brev`: bit reverse.
    Brev = "brev",
    /// `bfe`: bit field extract.
    Bfe = "bfe",
    /// `bfi`: bit field insert.
    Bfi = "bfi",
    /// `bmsk`: bit mask.
    Bmsk = "bmsk",
    /// `szext`: sign/zero extend a bit field.
    Szext = "szext",
    /// `dp4a`: four-way byte dot product.
    Dp4a = "dp4a",
    /// `dp2a`: two-way dot product.
    Dp2a = "dp2a",
    /// `addc`: add with carry in.
    Addc = "addc",
    /// `subc`: subtract with borrow in.
    Subc = "subc",
    /// `madc`: multiply-add with carry in.
    Madc = "madc",
    // Floating point.
    /// `testp`.
    Testp = "testp",
    /// `copysign`.
    Copysign = "copysign",
    /// `fma`.
    Fma = "fma",
    /// `rcp`.
    Rcp = "rcp",
    /// `sqrt`.
    Sqrt = "sqrt",
    /// `rsqrt`.
    Rsqrt = "rsqrt",
    /// `sin`.
    Sin = "sin",
    /// `cos`.
    Cos = "cos",
    /// `lg2`.
    Lg2 = "lg2",
    /// `ex2`.
    Ex2 = "ex2",
    /// `tanh`.
    Tanh = "tanh",
    // Comparison and selection.
    /// `set`.
    Set = "set",
    /// `setp`.
    Setp = "setp",
    /// `selp`.
    Selp = "selp",
    /// `slct`.
    Slct = "slct",
    // Logic and shift.
    /// `and`.
    And = "and",
    /// `or`.
    Or = "or",
    /// `xor`.
    Xor = "xor",
    /// `not`.
    Not = "not",
    /// `cnot`.
    Cnot = "cnot",
    /// `lop3`.
    Lop3 = "lop3",
    /// `shf`: funnel shift.
    Shf = "shf",
    /// `shl`.
    Shl = "shl",
    /// `shr`.
    Shr = "shr",
    /// `prmt`: byte permute.
    Prmt = "prmt",
    // Data movement and conversion.
    /// `mov`.
    Mov = "mov",
    /// `shfl` (and `shfl.sync`).
    Shfl = "shfl",
    /// `ld`.
    Ld = "ld",
    /// `ldu`.
    Ldu = "ldu",
    /// `st`.
    St = "st",
    /// `prefetch`.
    Prefetch = "prefetch",
    /// `prefetchu`.
    Prefetchu = "prefetchu",
    /// `isspacep`.
    Isspacep = "isspacep",
    /// `cvta`.
    Cvta = "cvta",
    /// `cvt`.
    Cvt = "cvt",
    /// `cvt.pack`.
    CvtPack = "cvt.pack",
    /// `mapa`.
    Mapa = "mapa",
    /// `createpolicy`: builds an L2 cache policy for `.L2::cache_hint` accesses.
    Createpolicy = "createpolicy",
    /// `getctarank`.
    Getctarank = "getctarank",
    /// `cp.async`.
    CpAsync = "cp.async",
    /// `cp.async.commit_group`.
    CpAsyncCommitGroup = "cp.async.commit_group",
    /// `cp.async.wait_group`.
    CpAsyncWaitGroup = "cp.async.wait_group",
    /// `cp.async.wait_all`.
    CpAsyncWaitAll = "cp.async.wait_all",
    /// `cp.async.mbarrier.arrive`.
    CpAsyncMbarrierArrive = "cp.async.mbarrier.arrive",
    /// `cp.async.bulk` (non-tensor bulk copy).
    CpAsyncBulk = "cp.async.bulk",
    /// `cp.async.bulk.commit_group`.
    CpAsyncBulkCommitGroup = "cp.async.bulk.commit_group",
    /// `cp.async.bulk.wait_group`.
    CpAsyncBulkWaitGroup = "cp.async.bulk.wait_group",
    /// `ldmatrix`.
    Ldmatrix = "ldmatrix",
    /// `stmatrix`.
    Stmatrix = "stmatrix",
    // Texture and surface.
    /// `tex`.
    Tex = "tex",
    /// `tld4`.
    Tld4 = "tld4",
    /// `txq`.
    Txq = "txq",
    /// `suld`.
    Suld = "suld",
    /// `sust`.
    Sust = "sust",
    /// `sured`.
    Sured = "sured",
    /// `suq`.
    Suq = "suq",
    // Control flow.
    /// `bra`.
    Bra = "bra",
    /// `brx.idx`.
    BrxIdx = "brx.idx",
    /// `call`.
    Call = "call",
    /// `ret`.
    Ret = "ret",
    /// `exit`.
    Exit = "exit",
    // Synchronization and communication.
    /// `bar` (`bar.sync`, `bar.arrive`, `bar.red`).
    Bar = "bar",
    /// `barrier` (`barrier.sync`, …).
    Barrier = "barrier",
    /// `bar.warp.sync`.
    BarWarpSync = "bar.warp.sync",
    /// `barrier.cluster.arrive`.
    BarrierClusterArrive = "barrier.cluster.arrive",
    /// `barrier.cluster.wait`.
    BarrierClusterWait = "barrier.cluster.wait",
    /// `membar`.
    Membar = "membar",
    /// `fence`.
    Fence = "fence",
    /// `atom`.
    Atom = "atom",
    /// `red`.
    Red = "red",
    /// `vote`.
    Vote = "vote",
    /// `match`.
    Match = "match",
    /// `activemask`.
    Activemask = "activemask",
    /// `redux`.
    Redux = "redux",
    /// `elect`.
    Elect = "elect",
    /// `griddepcontrol.launch_dependents`.
    GriddepcontrolLaunchDependents = "griddepcontrol.launch_dependents",
    /// `griddepcontrol.wait`.
    GriddepcontrolWait = "griddepcontrol.wait",
    /// `setmaxnreg`.
    Setmaxnreg = "setmaxnreg",
    /// `mbarrier.init`.
    MbarrierInit = "mbarrier.init",
    /// `mbarrier.inval`.
    MbarrierInval = "mbarrier.inval",
    /// `mbarrier.arrive`.
    MbarrierArrive = "mbarrier.arrive",
    /// `mbarrier.arrive_drop`.
    MbarrierArriveDrop = "mbarrier.arrive_drop",
    /// `mbarrier.expect_tx`.
    MbarrierExpectTx = "mbarrier.expect_tx",
    /// `mbarrier.complete_tx`.
    MbarrierCompleteTx = "mbarrier.complete_tx",
    /// `mbarrier.test_wait`.
    MbarrierTestWait = "mbarrier.test_wait",
    /// `mbarrier.try_wait`.
    MbarrierTryWait = "mbarrier.try_wait",
    /// `mbarrier.pending_count`.
    MbarrierPendingCount = "mbarrier.pending_count",
    // Matrix multiply-accumulate.
    /// `wmma.load`.
    WmmaLoad = "wmma.load",
    /// `wmma.store`.
    WmmaStore = "wmma.store",
    /// `wmma.mma`.
    WmmaMma = "wmma.mma",
    /// `mma`.
    Mma = "mma",
    /// `mma.sp` (sparse).
    MmaSp = "mma.sp",
    /// `wgmma.mma_async`.
    WgmmaMmaAsync = "wgmma.mma_async",
    /// `wgmma.fence`.
    WgmmaFence = "wgmma.fence",
    /// `wgmma.commit_group`.
    WgmmaCommitGroup = "wgmma.commit_group",
    /// `wgmma.wait_group`.
    WgmmaWaitGroup = "wgmma.wait_group",
    // Miscellaneous.
    /// `trap`.
    Trap = "trap",
    /// `brkpt`.
    Brkpt = "brkpt",
    /// `pmevent`.
    Pmevent = "pmevent",
    /// `nanosleep`.
    Nanosleep = "nanosleep",
    /// `alloca`.
    Alloca = "alloca",
    /// `stacksave`.
    Stacksave = "stacksave",
    /// `stackrestore`.
    Stackrestore = "stackrestore",
    // Scalar video instructions.
    /// `vadd`: add selected bytes/half-words/words, with saturation and a secondary op or merge.
    Vadd = "vadd",
    /// `vsub`.
    Vsub = "vsub",
    /// `vabsdiff`: absolute difference.
    Vabsdiff = "vabsdiff",
    /// `vmin`.
    Vmin = "vmin",
    /// `vmax`.
    Vmax = "vmax",
    /// `vshl`: shift left, amount clamped or wrapped.
    Vshl = "vshl",
    /// `vshr`: shift right (arithmetic for a signed source).
    Vshr = "vshr",
    /// `vmad`: `(a*b) + c` with negations, plus-one and scaling.
    Vmad = "vmad",
    /// `vset`: compare to 0/1, with a secondary op or merge.
    Vset = "vset",
    // Register-file schemes' pseudo-instructions: only a scheme's pass creates them (the
    // executor runs them as no-ops).
    /// `regmutex.acquire N;`: RegMutex (SCHEMES.md §4) — the warp takes `N` registers per thread
    /// from the SM's shared register pool before a region whose live registers exceed its base set.
    RegmutexAcquire = "regmutex.acquire",
    /// `regmutex.release N;`: RegMutex — the warp gives its `N` extended registers per thread back.
    RegmutexRelease = "regmutex.release",
}

macro_rules! unsupported {
    ($($name:literal,)*) => {
        /// PTX instruction names RegLab knows exist but does not model; the parser reports them as
        /// unsupported (an error naming them), never as unknown or silently skipped.
        pub const UNSUPPORTED: &[&str] = &[$($name,)*];

        /// True if `name` is in [`UNSUPPORTED`] (a `match`, cheap enough for every instruction).
        pub fn is_unsupported(name: &str) -> bool {
            matches!(name, $($name)|*)
        }
    };
}

unsupported! {
    "vadd2",
    "vsub2",
    "vavrg2",
    "vabsdiff2",
    "vmin2",
    "vmax2",
    "vset2",
    "vadd4",
    "vsub4",
    "vavrg4",
    "vabsdiff4",
    "vmin4",
    "vmax4",
    "vset4",
    "cp.async.bulk.tensor",
    "cp.reduce.async.bulk",
    "cp.reduce.async.bulk.tensor",
    "cp.async.bulk.prefetch",
    "cp.async.bulk.prefetch.tensor",
    "multimem.ld_reduce",
    "multimem.st",
    "multimem.red",
    "st.async",
    "red.async",
    "st.bulk",
    "tensormap.replace",
    "tensormap.cp_fenceproxy",
    "applypriority",
    "discard",
    "istypep",
    "movmatrix",
    "clusterlaunchcontrol.try_cancel",
    "clusterlaunchcontrol.query_cancel",
    "tcgen05.alloc",
    "tcgen05.dealloc",
    "tcgen05.relinquish_alloc_permit",
    "tcgen05.ld",
    "tcgen05.st",
    "tcgen05.wait",
    "tcgen05.cp",
    "tcgen05.shift",
    "tcgen05.mma",
    "tcgen05.commit",
    "tcgen05.fence",
    "wgmma.mma_async.sp",
    "mma.sp::ordered_metadata",
}

impl Opcode {
    /// True for the scalar video instructions (`vadd` … `vset`), whose operands carry selectors.
    pub fn is_video(self) -> bool {
        use Opcode::*;
        matches!(self, Vadd | Vsub | Vabsdiff | Vmin | Vmax | Vshl | Vshr | Vmad | Vset)
    }

    /// True for instructions that only compute registers from registers and immediates:
    /// arithmetic, logic, comparison, selection, `mov` and conversions; no memory access,
    /// control, texture or warp-level exchange. (The `.cc` carry flag is a modifier: callers
    /// that care check `Modifiers::cc`.)
    pub fn computes_registers_only(self) -> bool {
        use Opcode::*;
        matches!(
            self,
            Add | Sub
                | Mul
                | Mad
                | Mul24
                | Mad24
                | Sad
                | Div
                | Rem
                | Abs
                | Neg
                | Min
                | Max
                | Popc
                | Clz
                | Bfind
                | Fns
                | Brev
                | Bfe
                | Bfi
                | Bmsk
                | Szext
                | Dp4a
                | Dp2a
                | Addc
                | Subc
                | Madc
                | Testp
                | Copysign
                | Fma
                | Rcp
                | Sqrt
                | Rsqrt
                | Sin
                | Cos
                | Lg2
                | Ex2
                | Tanh
                | Set
                | Setp
                | Selp
                | Slct
                | And
                | Or
                | Xor
                | Not
                | Cnot
                | Lop3
                | Shf
                | Shl
                | Shr
                | Prmt
                | Mov
                | Cvt
                | CvtPack
                | Cvta
                | Isspacep
        )
    }

    /// True for instructions that end a basic block: the next instruction is not (or not only)
    /// reached by falling through.
    pub fn is_terminator(self) -> bool {
        matches!(self, Opcode::Bra | Opcode::BrxIdx | Opcode::Ret | Opcode::Exit)
    }

    /// The first words of every multi-word name: the parser tries the longest name that matches.
    pub fn max_name_words() -> usize {
        4
    }

    /// Number of leading operands the instruction writes (the rest are read), by opcode; the exact
    /// per-instruction view, including vector and pair destinations, is `Inst::defs`.
    pub fn dest_count(self) -> usize {
        use Opcode::*;
        match self {
            St
            | Prefetch
            | Prefetchu
            | CpAsync
            | CpAsyncCommitGroup
            | CpAsyncWaitGroup
            | CpAsyncWaitAll
            | CpAsyncMbarrierArrive
            | CpAsyncBulk
            | CpAsyncBulkCommitGroup
            | CpAsyncBulkWaitGroup
            | Stmatrix
            | Sust
            | Sured
            | Bra
            | BrxIdx
            | Call
            | Ret
            | Exit
            | Bar
            | Barrier
            | BarWarpSync
            | BarrierClusterArrive
            | BarrierClusterWait
            | Membar
            | Fence
            | Red
            | GriddepcontrolLaunchDependents
            | GriddepcontrolWait
            | Setmaxnreg
            | MbarrierInit
            | MbarrierInval
            | MbarrierExpectTx
            | MbarrierCompleteTx
            | WmmaStore
            | WgmmaFence
            | WgmmaCommitGroup
            | WgmmaWaitGroup
            | Trap
            | Brkpt
            | Pmevent
            | Nanosleep
            | Stackrestore
            | RegmutexAcquire
            | RegmutexRelease => 0,
            _ => 1,
        }
    }
}

/// The known opcode names closest to `name` (for "did you mean" hints), best first.
pub fn suggest(name: &str) -> Option<&'static str> {
    let mut best: Option<(usize, &'static str)> = None;
    for op in Opcode::ALL {
        let d = crate::diagnostic::edit_distance(name, op.name());
        if best.is_none_or(|(bd, _)| d < bd) {
            best = Some((d, op.name()));
        }
    }
    best.filter(|(d, cand)| *d <= 2.max(cand.len() / 3)).map(|(_, n)| n)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for op in Opcode::ALL {
            assert!(!UNSUPPORTED.contains(&op.name()), "{} is both supported and unsupported", op.name());
            assert_eq!(Opcode::from_name(op.name()), Some(*op));
            assert!(op.name().split('.').count() <= Opcode::max_name_words());
        }
    }

    #[test]
    fn suggestions() {
        assert_eq!(suggest("addd"), Some("add"));
        assert_eq!(suggest("setpp"), Some("setp"));
        assert_eq!(suggest("ldmatrx"), Some("ldmatrix"));
        assert_eq!(suggest("qqqqqqqqqqqq"), None);
    }
}
