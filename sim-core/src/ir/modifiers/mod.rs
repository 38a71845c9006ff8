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

mod arith;
mod memory;
mod sync;
mod tensor;
mod texture;
mod video;

pub use arith::*;
pub use memory::*;
pub use sync::*;
pub use tensor::*;
pub use texture::*;
pub use video::*;

use super::types::{StateSpace, VecWidth};

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
///
/// A field at its default means the modifier was not written, and PTX's default applies: round to
/// nearest even for float arithmetic, weak memory semantics, the generic address space, no
/// flushing of subnormals, and so on. Lowering never fills in defaults, so the IR says exactly
/// what the source said.
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
    /// `.oob` of `fma`: out-of-bounds inputs (tagged NaNs) give zero.
    pub oob: bool,
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
    /// `.L2::…` eviction priority (the primary priority of `createpolicy`).
    pub l2_eviction: Option<Eviction>,
    /// Secondary `.L2::…` priority of `createpolicy`.
    pub l2_eviction_secondary: Option<Eviction>,
    /// Kind of `createpolicy`.
    pub policy: Option<PolicyKind>,
    /// `.L2::cache_hint`: an extra cache-policy operand follows.
    pub l2_cache_hint: bool,
    /// `.L2::64B`/`128B`/`256B` prefetch size.
    pub prefetch_size: Option<PrefetchSize>,
    /// Memory semantics (`.volatile`, `.relaxed`, `.acquire`, …).
    pub sem: Option<MemSem>,
    /// `.mmio` of `ld.mmio.relaxed.sys`/`st.mmio.relaxed.sys`: memory-mapped I/O, performed
    /// exactly once.
    pub mmio: bool,
    /// `.mbarrier_init` of `fence.mbarrier_init.release.cluster`: orders prior `mbarrier.init`s.
    pub mbarrier_init: bool,
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
    /// Operand selectors, secondary operation and `vmad` forms of the scalar video instructions
    /// (left out of the serialised form when empty, so other instructions serialise as before).
    #[serde(default, skip_serializing_if = "VideoMods::is_empty")]
    pub video: VideoMods,
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
