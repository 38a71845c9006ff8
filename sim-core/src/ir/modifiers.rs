//! Instruction modifiers as typed values: every `.word` after an opcode (other than the opcode's own
//! name parts and its types) lands in exactly one field of [`Modifiers`].
//!
//! ```text
//! setp.lt.and.ftz.f32 %p1, %f1, %f2, %p0;   // cmp = Lt, bool_op = And, ftz, types = [.f32]
//! ld.global.nc.L1::evict_last.v4.f32 ...;   // space = Global, nc, l1_eviction = EvictLast, vec = V4
//! ```
//!
//! Fields that an opcode does not use stay at their default (`None`/`false`); lowering rejects a
//! modifier the opcode does not take, so nothing the source says is ever dropped.

use serde::{Deserialize, Serialize};

use super::types::{keyword_enum, StateSpace, VecWidth};

keyword_enum! {
    /// Rounding modes: floating-point (`.rn` …) and round-to-integer (`.rni` …) for `cvt`.
    Rounding {
        /// Round to nearest even.
        Rn = ".rn",
        /// Round towards zero.
        Rz = ".rz",
        /// Round towards minus infinity.
        Rm = ".rm",
        /// Round towards plus infinity.
        Rp = ".rp",
        /// Round to nearest, ties away from zero (`cvt.rna.tf32.f32`).
        Rna = ".rna",
        /// Stochastic rounding (`cvt.rs`).
        Rs = ".rs",
        /// Round to nearest even integer.
        Rni = ".rni",
        /// Round towards zero to an integer.
        Rzi = ".rzi",
        /// Round towards minus infinity to an integer.
        Rmi = ".rmi",
        /// Round towards plus infinity to an integer.
        Rpi = ".rpi",
    }
}

keyword_enum! {
    /// Precision of a floating-point operation that has an approximate form.
    Precision {
        /// Fast approximation (`.approx`).
        Approx = ".approx",
        /// Full-range approximation (`div.full.f32`).
        Full = ".full",
    }
}

keyword_enum! {
    /// Which half of a double-width product an integer multiply keeps.
    MulMode {
        /// High half.
        Hi = ".hi",
        /// Low half.
        Lo = ".lo",
        /// The whole double-width product.
        Wide = ".wide",
    }
}

keyword_enum! {
    /// Comparison operators of `set`, `setp`, `vset` (unsigned `lo/ls/hi/hs`, unordered `…u`).
    CmpOp {
        /// Equal.
        Eq = ".eq",
        /// Not equal.
        Ne = ".ne",
        /// Less than.
        Lt = ".lt",
        /// Less or equal.
        Le = ".le",
        /// Greater than.
        Gt = ".gt",
        /// Greater or equal.
        Ge = ".ge",
        /// Unsigned lower.
        Lo = ".lo",
        /// Unsigned lower or same.
        Ls = ".ls",
        /// Unsigned higher.
        Hi = ".hi",
        /// Unsigned higher or same.
        Hs = ".hs",
        /// Equal or unordered.
        Equ = ".equ",
        /// Not equal or unordered.
        Neu = ".neu",
        /// Less than or unordered.
        Ltu = ".ltu",
        /// Less or equal or unordered.
        Leu = ".leu",
        /// Greater than or unordered.
        Gtu = ".gtu",
        /// Greater or equal or unordered.
        Geu = ".geu",
        /// Both numbers (ordered).
        Num = ".num",
        /// Either is NaN (unordered).
        Nan = ".nan",
    }
}

keyword_enum! {
    /// Boolean combination of `set`/`setp` with a predicate, and `lop3`'s predicate form.
    BoolOp {
        /// And.
        And = ".and",
        /// Or.
        Or = ".or",
        /// Exclusive or.
        Xor = ".xor",
    }
}

keyword_enum! {
    /// Cache operators of `ld`, `st` and `cp.async`.
    CacheOp {
        /// Cache at all levels.
        Ca = ".ca",
        /// Cache at global level (L2).
        Cg = ".cg",
        /// Streaming, likely accessed once.
        Cs = ".cs",
        /// Last use.
        Lu = ".lu",
        /// Don't cache, fetch again.
        Cv = ".cv",
        /// Write back.
        Wb = ".wb",
        /// Write through.
        Wt = ".wt",
    }
}

keyword_enum! {
    /// Cache eviction priority hints (`.L1::evict_last`, `.L2::evict_first`, …).
    Eviction {
        /// L1 normal priority.
        L1EvictNormal = ".L1::evict_normal",
        /// L1 keep current priority.
        L1EvictUnchanged = ".L1::evict_unchanged",
        /// L1 evict first.
        L1EvictFirst = ".L1::evict_first",
        /// L1 evict last.
        L1EvictLast = ".L1::evict_last",
        /// Do not allocate in L1.
        L1NoAllocate = ".L1::no_allocate",
        /// L2 normal priority.
        L2EvictNormal = ".L2::evict_normal",
        /// L2 evict first.
        L2EvictFirst = ".L2::evict_first",
        /// L2 evict last.
        L2EvictLast = ".L2::evict_last",
    }
}

impl Eviction {
    /// True for the `.L1::…` hints.
    pub fn is_l1(self) -> bool {
        self.as_str().starts_with(".L1")
    }
}

keyword_enum! {
    /// L2 prefetch size hint (`.L2::64B` …).
    PrefetchSize {
        /// 64 bytes.
        B64 = ".L2::64B",
        /// 128 bytes.
        B128 = ".L2::128B",
        /// 256 bytes.
        B256 = ".L2::256B",
    }
}

keyword_enum! {
    /// Memory-consistency semantics of a memory operation or fence.
    MemSem {
        /// Weak (the default, spelled out).
        Weak = ".weak",
        /// Volatile.
        Volatile = ".volatile",
        /// Relaxed (with a scope).
        Relaxed = ".relaxed",
        /// Acquire.
        Acquire = ".acquire",
        /// Release.
        Release = ".release",
        /// Acquire-release.
        AcqRel = ".acq_rel",
        /// Sequentially consistent (`fence.sc`).
        Sc = ".sc",
        /// Memory-mapped I/O (`ld.mmio.relaxed.sys`).
        Mmio = ".mmio",
    }
}

keyword_enum! {
    /// Scope of a memory operation, fence or barrier. `membar.gl` is `Gpu`.
    Scope {
        /// The CTA.
        Cta = ".cta",
        /// The cluster.
        Cluster = ".cluster",
        /// The whole GPU (`.gpu`, `membar.gl`).
        Gpu = ".gpu",
        /// The system.
        Sys = ".sys",
    }
}

keyword_enum! {
    /// Atomic operations of `atom` and `red`.
    AtomOp {
        /// Bitwise and.
        And = ".and",
        /// Bitwise or.
        Or = ".or",
        /// Bitwise xor.
        Xor = ".xor",
        /// Compare and swap.
        Cas = ".cas",
        /// Exchange.
        Exch = ".exch",
        /// Add.
        Add = ".add",
        /// Wrapping increment.
        Inc = ".inc",
        /// Wrapping decrement.
        Dec = ".dec",
        /// Minimum.
        Min = ".min",
        /// Maximum.
        Max = ".max",
    }
}

keyword_enum! {
    /// What a `bar`/`barrier` does.
    BarMode {
        /// Arrive and wait.
        Sync = ".sync",
        /// Arrive only.
        Arrive = ".arrive",
        /// Arrive, wait and reduce a predicate.
        Red = ".red",
    }
}

keyword_enum! {
    /// Reductions of `bar.red` and `redux.sync`.
    ReduceOp {
        /// Population count of true predicates.
        Popc = ".popc",
        /// And.
        And = ".and",
        /// Or.
        Or = ".or",
        /// Xor.
        Xor = ".xor",
        /// Sum.
        Add = ".add",
        /// Minimum.
        Min = ".min",
        /// Maximum.
        Max = ".max",
    }
}

keyword_enum! {
    /// Modes of `vote`.
    VoteMode {
        /// True if the predicate is true in all active threads.
        All = ".all",
        /// True if it is true in any active thread.
        Any = ".any",
        /// True if it is the same in all active threads.
        Uni = ".uni",
        /// The mask of threads where it is true.
        Ballot = ".ballot",
    }
}

keyword_enum! {
    /// Modes of `shfl`.
    ShflMode {
        /// From a lower lane.
        Up = ".up",
        /// From a higher lane.
        Down = ".down",
        /// Butterfly (xor of the lane id).
        Bfly = ".bfly",
        /// Indexed lane.
        Idx = ".idx",
    }
}

keyword_enum! {
    /// Modes of `match.sync`.
    MatchMode {
        /// Mask of threads with the same value.
        Any = ".any",
        /// Mask if all threads have the same value.
        All = ".all",
    }
}

keyword_enum! {
    /// Direction of `shf`.
    ShiftDir {
        /// Left.
        L = ".l",
        /// Right.
        R = ".r",
    }
}

keyword_enum! {
    /// Shift-amount handling of `shf`.
    FunnelMode {
        /// Amount taken modulo 32.
        Wrap = ".wrap",
        /// Amount clamped to 32.
        Clamp = ".clamp",
    }
}

keyword_enum! {
    /// Special modes of `prmt`.
    PrmtMode {
        /// Forward 4 extract.
        F4e = ".f4e",
        /// Backward 4 extract.
        B4e = ".b4e",
        /// Replicate 8.
        Rc8 = ".rc8",
        /// Edge clamp left.
        Ecl = ".ecl",
        /// Edge clamp right.
        Ecr = ".ecr",
        /// Replicate 16.
        Rc16 = ".rc16",
    }
}

keyword_enum! {
    /// Properties `testp` tests.
    TestpOp {
        /// Not infinite and not NaN.
        Finite = ".finite",
        /// Infinite.
        Infinite = ".infinite",
        /// Not NaN.
        Number = ".number",
        /// NaN.
        NotANumber = ".notanumber",
        /// Normal.
        Normal = ".normal",
        /// Subnormal.
        Subnormal = ".subnormal",
    }
}

keyword_enum! {
    /// Texture and surface geometries.
    TexGeom {
        /// 1D.
        D1 = ".1d",
        /// 2D.
        D2 = ".2d",
        /// 3D.
        D3 = ".3d",
        /// 1D array.
        A1d = ".a1d",
        /// 2D array.
        A2d = ".a2d",
        /// Cube map.
        Cube = ".cube",
        /// Cube-map array.
        Acube = ".acube",
        /// 2D multisample.
        D2ms = ".2dms",
        /// 2D multisample array.
        A2dms = ".a2dms",
    }
}

keyword_enum! {
    /// Mip level selection of `tex`.
    TexLod {
        /// Base level (the default, spelled out).
        Base = ".base",
        /// Explicit level of detail.
        Level = ".level",
        /// Explicit gradients.
        Grad = ".grad",
    }
}

keyword_enum! {
    /// Colour component gathered by `tld4`.
    Component {
        /// Red.
        R = ".r",
        /// Green.
        G = ".g",
        /// Blue.
        B = ".b",
        /// Alpha.
        A = ".a",
    }
}

keyword_enum! {
    /// Attributes `txq`/`suq` query.
    TexQuery {
        /// Width.
        Width = ".width",
        /// Height.
        Height = ".height",
        /// Depth.
        Depth = ".depth",
        /// Channel data type.
        ChannelDataType = ".channel_data_type",
        /// Channel order.
        ChannelOrder = ".channel_order",
        /// Normalized coordinates flag.
        NormalizedCoords = ".normalized_coords",
        /// Forced unnormalized coordinates flag.
        ForceUnnormalizedCoords = ".force_unnormalized_coords",
        /// Filter mode.
        FilterMode = ".filter_mode",
        /// Addressing mode, dimension 0.
        AddrMode0 = ".addr_mode_0",
        /// Addressing mode, dimension 1.
        AddrMode1 = ".addr_mode_1",
        /// Addressing mode, dimension 2.
        AddrMode2 = ".addr_mode_2",
        /// Number of mipmap levels.
        NumMipmapLevels = ".num_mipmap_levels",
        /// Number of samples.
        NumSamples = ".num_samples",
        /// Array size.
        ArraySize = ".array_size",
        /// Memory layout.
        MemoryLayout = ".memory_layout",
    }
}

keyword_enum! {
    /// Surface access mode (`suld.b` formatted as raw bits, `.p` formatted).
    SurfMode {
        /// Raw bits.
        B = ".b",
        /// Formatted.
        P = ".p",
    }
}

keyword_enum! {
    /// Out-of-bounds behaviour of surface instructions.
    SurfClamp {
        /// Trap.
        Trap = ".trap",
        /// Clamp to the edge.
        Clamp = ".clamp",
        /// Read zero / ignore the write.
        Zero = ".zero",
    }
}

keyword_enum! {
    /// Matrix layout of a tensor-core operand.
    Layout {
        /// Row major.
        Row = ".row",
        /// Column major.
        Col = ".col",
    }
}

keyword_enum! {
    /// Which matrix fragment a `wmma.load`/`wmma.store` moves.
    Frag {
        /// Multiplicand A.
        A = ".a",
        /// Multiplicand B.
        B = ".b",
        /// Accumulator C.
        C = ".c",
        /// Result D.
        D = ".d",
    }
}

keyword_enum! {
    /// Number of 8x8 matrices `ldmatrix`/`stmatrix` move.
    MatrixCount {
        /// One.
        X1 = ".x1",
        /// Two.
        X2 = ".x2",
        /// Four.
        X4 = ".x4",
    }
}

keyword_enum! {
    /// Proxy kind of `fence.proxy`.
    ProxyKind {
        /// Virtual aliases.
        Alias = ".alias",
        /// Async proxy, all state spaces.
        Async = ".async",
        /// Async proxy, global memory.
        AsyncGlobal = ".async.global",
        /// Async proxy, shared memory of the CTA.
        AsyncSharedCta = ".async.shared::cta",
        /// Async proxy, shared memory of the cluster.
        AsyncSharedCluster = ".async.shared::cluster",
        /// Tensormap proxy.
        TensormapGeneric = ".tensormap::generic",
    }
}

keyword_enum! {
    /// Cache level of `prefetch`/`prefetchu`.
    CacheLevel {
        /// L1.
        L1 = ".L1",
        /// L2.
        L2 = ".L2",
    }
}

keyword_enum! {
    /// Completion mechanism of bulk asynchronous copies.
    Completion {
        /// Signals an mbarrier with the transferred byte count.
        MbarrierCompleteTx = ".mbarrier::complete_tx::bytes",
        /// Bulk async-group completion.
        BulkGroup = ".bulk_group",
    }
}

keyword_enum! {
    /// Direction of `setmaxnreg`.
    IncDec {
        /// Increase.
        Inc = ".inc",
        /// Decrease.
        Dec = ".dec",
    }
}

/// A tensor-core or matrix shape `.mMnNkK` (`k == 0` for shapes without a K, like `.m8n8`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct Shape {
    /// Rows.
    pub m: u16,
    /// Columns.
    pub n: u16,
    /// Reduction depth (0: not part of the shape).
    pub k: u16,
}

impl Shape {
    /// Parses `.m16n8k16` or `.m8n8`.
    pub fn from_keyword(text: &str) -> Option<Shape> {
        let rest = text.strip_prefix(".m")?;
        let (m, rest) = rest.split_once('n')?;
        let (n, k) = match rest.split_once('k') {
            Some((n, k)) => (n, k.parse().ok()?),
            None => (rest, 0),
        };
        let shape = Shape { m: m.parse().ok()?, n: n.parse().ok()?, k };
        (shape.m > 0 && shape.n > 0).then_some(shape)
    }
}

impl core::fmt::Display for Shape {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, ".m{}n{}", self.m, self.n)?;
        if self.k != 0 {
            write!(f, "k{}", self.k)?;
        }
        Ok(())
    }
}

/// Every modifier an instruction can carry, as typed fields. Which opcodes use which field is
/// said on each field; the text form prints them in the order the PTX ISA writes them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Modifiers {
    /// Rounding mode (float arithmetic, `cvt`, `mma`).
    pub rounding: Option<Rounding>,
    /// Flush subnormals to zero (`.ftz`).
    pub ftz: bool,
    /// Saturate (`.sat`): clamp to [0, 1] for floats, to the type's range for integers.
    pub sat: bool,
    /// Saturate to the finite range (`.satfinite`: `cvt`, `mma`).
    pub satfinite: bool,
    /// Clamp negative results to zero (`.relu`: `cvt`, `fma`, `min`, `max`).
    pub relu: bool,
    /// Propagate NaN (`.NaN`: `min`, `max`, `redux`).
    pub nan: bool,
    /// `.xorsign.abs` of `min`/`max`, `.abs` of `redux`.
    pub abs: bool,
    /// `.xorsign` of `min`/`max`.
    pub xorsign: bool,
    /// `.approx` or `.full` (`div`, `rcp`, `sqrt`, `sin`, …).
    pub precision: Option<Precision>,
    /// `.hi`/`.lo`/`.wide` of integer `mul`, `mad`, `mul24`, `mad24`; `.lo`/`.hi` of `dp2a`.
    pub mul_mode: Option<MulMode>,
    /// `.cc`: the instruction writes the carry flag (`add.cc`, `addc.cc`, `mad.cc`, …).
    pub cc: bool,
    /// Comparison of `set`, `setp`.
    pub cmp: Option<CmpOp>,
    /// Predicate combination of `set`, `setp`; predicate form of `lop3`.
    pub bool_op: Option<BoolOp>,
    /// State space of a memory access, `cvta`, `isspacep`, `atom`, `wmma`, `mbarrier`, …; the
    /// destination space of `cp.async`. `None` is the generic space.
    pub space: Option<StateSpace>,
    /// Source space of `cp.async` (`cp.async.ca.shared.global`: `space` shared, `src_space` global)
    /// and of `cvta`-like conversions between two spaces.
    pub src_space: Option<StateSpace>,
    /// `cvta.to.space` (generic → space) rather than `cvta.space` (space → generic).
    pub to_space: bool,
    /// Cache operator.
    pub cache: Option<CacheOp>,
    /// Non-coherent read-only path (`ld.global.nc`).
    pub nc: bool,
    /// `.L1::…` eviction priority.
    pub l1_eviction: Option<Eviction>,
    /// `.L2::…` eviction priority.
    pub l2_eviction: Option<Eviction>,
    /// `.L2::cache_hint`: an extra cache-policy operand follows.
    pub l2_cache_hint: bool,
    /// `.L2::64B`/`128B`/`256B` prefetch size.
    pub prefetch_size: Option<PrefetchSize>,
    /// Memory semantics (`.volatile`, `.relaxed`, `.acquire`, …).
    pub sem: Option<MemSem>,
    /// Scope (`.cta`, `.gpu`, …; `membar.gl` is `.gpu`).
    pub scope: Option<Scope>,
    /// Vector width of `ld`, `st`, `tex`, `atom`, `red`, …
    pub vec: Option<VecWidth>,
    /// `.uni`: non-divergent `bra`, `brx.idx`, `call`, `ret`.
    pub uni: bool,
    /// `.sync` of warp-synchronous instructions (`vote.sync`, `shfl.sync`, `mma.sync`, …).
    pub sync: bool,
    /// `.aligned`: all threads execute the same instance.
    pub aligned: bool,
    /// Operation of `atom`, `red`.
    pub atom_op: Option<AtomOp>,
    /// `.noftz` of `atom.add.noftz.f16`.
    pub noftz: bool,
    /// What a `bar`/`barrier` does.
    pub bar_mode: Option<BarMode>,
    /// Reduction of `bar.red`, `redux.sync`.
    pub reduce: Option<ReduceOp>,
    /// Mode of `vote`.
    pub vote: Option<VoteMode>,
    /// Mode of `shfl`.
    pub shfl: Option<ShflMode>,
    /// Mode of `match`.
    pub match_mode: Option<MatchMode>,
    /// Direction of `shf`.
    pub shift_dir: Option<ShiftDir>,
    /// `.wrap`/`.clamp` of `shf`.
    pub funnel: Option<FunnelMode>,
    /// Mode of `prmt`.
    pub prmt: Option<PrmtMode>,
    /// `.shiftamt` of `bfind`.
    pub shiftamt: bool,
    /// Property `testp` tests.
    pub testp: Option<TestpOp>,
    /// Geometry of texture and surface instructions.
    pub geom: Option<TexGeom>,
    /// Level of detail of `tex`.
    pub lod: Option<TexLod>,
    /// Component of `tld4`.
    pub component: Option<Component>,
    /// Query of `txq`/`suq`.
    pub query: Option<TexQuery>,
    /// `.b`/`.p` of surface instructions.
    pub surf_mode: Option<SurfMode>,
    /// Out-of-bounds mode of surface instructions.
    pub surf_clamp: Option<SurfClamp>,
    /// Matrix shape (`mma`, `wmma`, `wgmma`, `ldmatrix`, `stmatrix`).
    pub shape: Option<Shape>,
    /// Layout of A (`mma`, `wmma.mma`), or the one layout of `wmma.load`/`wmma.store`.
    pub layout_a: Option<Layout>,
    /// Layout of B (`mma`, `wmma.mma`).
    pub layout_b: Option<Layout>,
    /// Fragment of `wmma.load`/`wmma.store`.
    pub frag: Option<Frag>,
    /// Matrix count of `ldmatrix`/`stmatrix`.
    pub matrices: Option<MatrixCount>,
    /// `.trans` of `ldmatrix`/`stmatrix`/`wgmma`.
    pub trans: bool,
    /// Proxy kind of `fence.proxy`.
    pub proxy: Option<ProxyKind>,
    /// Cache level of `prefetch`.
    pub level: Option<CacheLevel>,
    /// Completion mechanism of bulk copies.
    pub completion: Option<Completion>,
    /// `.noinc` of `cp.async.mbarrier.arrive`.
    pub noinc: bool,
    /// `.noComplete` of `mbarrier.arrive`.
    pub no_complete: bool,
    /// `.expect_tx` of `mbarrier.arrive`.
    pub expect_tx: bool,
    /// `.parity` of `mbarrier.test_wait`/`try_wait`.
    pub parity: bool,
    /// `.inc`/`.dec` of `setmaxnreg`.
    pub inc_dec: Option<IncDec>,
    /// Boolean op of binary `mma` (`.xor.popc`, `.and.popc`).
    pub bmma_op: Option<BoolOp>,
    /// `.multicast::cluster` of `cp.async.bulk`.
    pub multicast: bool,
}

/// A short list of instruction types in PTX order (`cvt.f32.s32` → `[.f32, .s32]`; `mma` takes
/// four: d, a, b, c).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct TypeList {
    len: u8,
    items: [Option<super::types::Type>; 4],
}

impl TypeList {
    /// The empty list.
    pub const fn new() -> Self {
        TypeList { len: 0, items: [None; 4] }
    }

    /// A list of one type.
    pub fn one(t: super::types::Type) -> Self {
        let mut l = TypeList::new();
        l.push(t);
        l
    }

    /// Appends `t`; returns false (and drops it) if the list already holds four types.
    pub fn push(&mut self, t: super::types::Type) -> bool {
        match self.items.get_mut(self.len as usize) {
            Some(slot) => {
                *slot = Some(t);
                self.len += 1;
                true
            }
            None => false,
        }
    }

    /// Number of types.
    pub fn len(&self) -> usize {
        self.len as usize
    }

    /// True when there is no type.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The `i`-th type.
    pub fn get(&self, i: usize) -> Option<super::types::Type> {
        self.items.get(i).copied().flatten()
    }

    /// The first type (the instruction type for most instructions; the destination type of `cvt`).
    pub fn first(&self) -> Option<super::types::Type> {
        self.get(0)
    }

    /// The last type (the source type of `cvt`, `set`, `slct`).
    pub fn last(&self) -> Option<super::types::Type> {
        self.len.checked_sub(1).and_then(|i| self.get(i as usize))
    }

    /// The types in order.
    pub fn iter(&self) -> impl Iterator<Item = super::types::Type> + '_ {
        self.items.iter().take(self.len as usize).filter_map(|t| *t)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::types::Type;
    use alloc::string::ToString;

    #[test]
    fn shapes_parse_and_print() {
        assert_eq!(Shape::from_keyword(".m16n8k16"), Some(Shape { m: 16, n: 8, k: 16 }));
        assert_eq!(Shape::from_keyword(".m8n8").map(|s| s.to_string()).as_deref(), Some(".m8n8"));
        assert_eq!(Shape::from_keyword(".m64n256k32").map(|s| s.to_string()).as_deref(), Some(".m64n256k32"));
        assert_eq!(Shape::from_keyword(".mxn8"), None);
    }

    #[test]
    fn type_lists_hold_four() {
        let mut l = TypeList::new();
        for t in [Type::F32, Type::F16, Type::F16, Type::F32] {
            assert!(l.push(t));
        }
        assert!(!l.push(Type::F64));
        assert_eq!(l.len(), 4);
        assert_eq!(l.last(), Some(Type::F32));
        assert_eq!(l.get(1), Some(Type::F16));
    }
}
