//! Decoding instruction modifiers: each `.word` after an opcode is tried as each kind of modifier
//! the opcode accepts ([`OpSpec`](super::opspec::OpSpec)), and lands in one typed field of
//! [`Modifiers`]. A word no accepted kind recognises, a duplicate or a conflict is an error naming
//! the word.
//!
//! ```text
//! setp.lo.u32  → cmp = Lo     (setp accepts comparisons)
//! mul.lo.u32   → mul_mode = Lo (mul accepts multiply modes)
//! ```

use alloc::format;
use alloc::string::String;

use crate::ir::{
    AtomOp, BarMode, BoolOp, CacheLevel, CacheOp, CmpOp, Completion, Component, Eviction, Frag, FunnelMode, IncDec,
    Layout, MatchMode, MatrixCount, MemSem, Modifiers, MulMode, PolicyKind, Precision, PrefetchSize, PrmtMode,
    ProxyKind, ReduceOp, Rounding, Scope, Shape, ShflMode, ShiftDir, StateSpace, SurfClamp, SurfMode, TestpOp, TexGeom,
    TexLod, TexQuery, Type, TypeList, VecWidth, VideoOp2, VideoScale, VoteMode,
};

/// A kind of modifier (which field of [`Modifiers`] it fills).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Rounding,
    Ftz,
    Sat,
    Satfinite,
    Relu,
    NaN,
    Abs,
    Xorsign,
    Precision,
    MulMode,
    Cc,
    Cmp,
    BoolOp,
    Space,
    To,
    Cache,
    Nc,
    Eviction,
    CacheHint,
    PrefetchSize,
    Sem,
    Scope,
    /// `membar`'s `.gl` (scope `.gpu`).
    Gl,
    Vec,
    Uni,
    Sync,
    Aligned,
    Atom,
    Noftz,
    Bar,
    Reduce,
    Vote,
    Shfl,
    Match,
    ShiftDir,
    Funnel,
    Prmt,
    Shiftamt,
    Testp,
    Geom,
    Lod,
    Component,
    Query,
    SurfMode,
    SurfClamp,
    Shape,
    Layout,
    Frag,
    Matrices,
    Trans,
    Proxy,
    Level,
    Completion,
    Noinc,
    NoComplete,
    ExpectTx,
    Parity,
    IncDec,
    Bmma,
    Popc,
    Multicast,
    Policy,
    Oob,
    Mmio,
    MbarrierInit,
    /// Secondary operation of a video instruction (`.add`, `.min`, `.max`).
    VideoOp2,
    /// `vmad` scaling (`.shr7`, `.shr15`).
    VideoScale,
    /// `vmad.po`.
    Po,
}

/// A word recognised as a modifier of some kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Interp {
    Rounding(Rounding),
    Flag(Kind),
    Precision(Precision),
    MulMode(MulMode),
    Cmp(CmpOp),
    BoolOp(BoolOp),
    Space(StateSpace),
    Cache(CacheOp),
    Eviction(Eviction),
    PrefetchSize(PrefetchSize),
    Sem(MemSem),
    Scope(Scope),
    Vec(VecWidth),
    Atom(AtomOp),
    Bar(BarMode),
    Reduce(ReduceOp),
    Vote(VoteMode),
    Shfl(ShflMode),
    Match(MatchMode),
    ShiftDir(ShiftDir),
    Funnel(FunnelMode),
    Prmt(PrmtMode),
    Testp(TestpOp),
    Geom(TexGeom),
    Lod(TexLod),
    Component(Component),
    Query(TexQuery),
    SurfMode(SurfMode),
    SurfClamp(SurfClamp),
    Shape(Shape),
    Layout(Layout),
    Frag(Frag),
    Matrices(MatrixCount),
    Proxy(ProxyKind),
    Level(CacheLevel),
    Completion(Completion),
    IncDec(IncDec),
    Bmma(BoolOp),
    Policy(PolicyKind),
    VideoOp2(VideoOp2),
    VideoScale(VideoScale),
}

/// The spelling of each flag kind.
pub(super) fn flag_word(kind: Kind) -> Option<&'static str> {
    Some(match kind {
        Kind::Ftz => ".ftz",
        Kind::Sat => ".sat",
        Kind::Satfinite => ".satfinite",
        Kind::Relu => ".relu",
        Kind::NaN => ".NaN",
        Kind::Abs => ".abs",
        Kind::Xorsign => ".xorsign",
        Kind::Cc => ".cc",
        Kind::To => ".to",
        Kind::Nc => ".nc",
        Kind::CacheHint => ".L2::cache_hint",
        Kind::Gl => ".gl",
        Kind::Uni => ".uni",
        Kind::Sync => ".sync",
        Kind::Aligned => ".aligned",
        Kind::Noftz => ".noftz",
        Kind::Shiftamt => ".shiftamt",
        Kind::Trans => ".trans",
        Kind::Noinc => ".noinc",
        Kind::NoComplete => ".noComplete",
        Kind::ExpectTx => ".expect_tx",
        Kind::Parity => ".parity",
        Kind::Popc => ".popc",
        Kind::Multicast => ".multicast::cluster",
        Kind::Oob => ".oob",
        Kind::Mmio => ".mmio",
        Kind::MbarrierInit => ".mbarrier_init",
        Kind::Po => ".po",
        _ => return None,
    })
}

/// `word` read as a modifier of `kind`.
fn parse_as(kind: Kind, word: &str) -> Option<Interp> {
    if let Some(w) = flag_word(kind) {
        return (w == word).then_some(Interp::Flag(kind));
    }
    match kind {
        Kind::Rounding => Rounding::from_keyword(word).map(Interp::Rounding),
        Kind::Precision => Precision::from_keyword(word).map(Interp::Precision),
        Kind::MulMode => MulMode::from_keyword(word).map(Interp::MulMode),
        Kind::Cmp => CmpOp::from_keyword(word).map(Interp::Cmp),
        Kind::BoolOp => BoolOp::from_keyword(word).map(Interp::BoolOp),
        Kind::Space => StateSpace::from_keyword(word).map(Interp::Space),
        Kind::Cache => CacheOp::from_keyword(word).map(Interp::Cache),
        Kind::Eviction => Eviction::from_keyword(word).map(Interp::Eviction),
        Kind::PrefetchSize => PrefetchSize::from_keyword(word).map(Interp::PrefetchSize),
        Kind::Sem => MemSem::from_keyword(word).map(Interp::Sem),
        Kind::Scope => Scope::from_keyword(word).map(Interp::Scope),
        Kind::Vec => VecWidth::from_keyword(word).map(Interp::Vec),
        Kind::Atom => AtomOp::from_keyword(word).map(Interp::Atom),
        Kind::Bar => BarMode::from_keyword(word).map(Interp::Bar),
        Kind::Reduce => ReduceOp::from_keyword(word).map(Interp::Reduce),
        Kind::Vote => VoteMode::from_keyword(word).map(Interp::Vote),
        Kind::Shfl => ShflMode::from_keyword(word).map(Interp::Shfl),
        Kind::Match => MatchMode::from_keyword(word).map(Interp::Match),
        Kind::ShiftDir => ShiftDir::from_keyword(word).map(Interp::ShiftDir),
        Kind::Funnel => FunnelMode::from_keyword(word).map(Interp::Funnel),
        Kind::Prmt => PrmtMode::from_keyword(word).map(Interp::Prmt),
        Kind::Testp => TestpOp::from_keyword(word).map(Interp::Testp),
        Kind::Geom => TexGeom::from_keyword(word).map(Interp::Geom),
        Kind::Lod => TexLod::from_keyword(word).map(Interp::Lod),
        Kind::Component => Component::from_keyword(word).map(Interp::Component),
        Kind::Query => TexQuery::from_keyword(word).map(Interp::Query),
        Kind::SurfMode => SurfMode::from_keyword(word).map(Interp::SurfMode),
        Kind::SurfClamp => SurfClamp::from_keyword(word).map(Interp::SurfClamp),
        Kind::Shape => Shape::from_keyword(word).map(Interp::Shape),
        Kind::Layout => Layout::from_keyword(word).map(Interp::Layout),
        Kind::Frag => Frag::from_keyword(word).map(Interp::Frag),
        Kind::Matrices => MatrixCount::from_keyword(word).map(Interp::Matrices),
        Kind::Proxy => ProxyKind::from_keyword(word).map(Interp::Proxy),
        Kind::Level => CacheLevel::from_keyword(word).map(Interp::Level),
        Kind::Completion => Completion::from_keyword(word).map(Interp::Completion),
        Kind::IncDec => IncDec::from_keyword(word).map(Interp::IncDec),
        Kind::Policy => PolicyKind::from_keyword(word).map(Interp::Policy),
        Kind::VideoOp2 => VideoOp2::from_keyword(word).map(Interp::VideoOp2),
        Kind::VideoScale => VideoScale::from_keyword(word).map(Interp::VideoScale),
        Kind::Bmma => match word {
            ".xor" => Some(Interp::Bmma(BoolOp::Xor)),
            ".and" => Some(Interp::Bmma(BoolOp::And)),
            _ => None,
        },
        _ => None,
    }
}

/// Accumulates decoded modifiers; `add` reports problems as messages.
#[derive(Default)]
pub struct Decoded {
    /// The modifier fields.
    pub mods: Modifiers,
    /// The types in order.
    pub types: TypeList,
}

fn set<T: Copy + PartialEq + core::fmt::Display>(slot: &mut Option<T>, v: T, word: &str) -> Result<(), String> {
    match slot.replace(v) {
        None => Ok(()),
        Some(old) if old == v => Err(format!("modifier '{word}' is repeated")),
        Some(old) => {
            *slot = Some(old);
            Err(format!("modifier '{word}' conflicts with '{old}'"))
        }
    }
}

fn flag(slot: &mut bool, word: &str) -> Result<(), String> {
    if core::mem::replace(slot, true) {
        return Err(format!("modifier '{word}' is repeated"));
    }
    Ok(())
}

impl Decoded {
    /// Decodes `word` as one of `kinds` (types first if `max_types > 0`). `Ok(false)` means no
    /// kind recognised it.
    pub fn add(&mut self, kinds: &[Kind], max_types: usize, word: &str) -> Result<bool, String> {
        if max_types > 0 {
            if let Some(t) = Type::from_keyword(word) {
                if self.types.len() >= max_types || !self.types.push(t) {
                    let plural = if max_types == 1 { "" } else { "s" };
                    return Err(format!(
                        "type '{word}' is one too many: this instruction takes {max_types} type{plural}"
                    ));
                }
                return Ok(true);
            }
        }
        let Some(interp) = kinds.iter().find_map(|k| parse_as(*k, word)) else {
            return Ok(false);
        };
        self.apply(interp, word)?;
        Ok(true)
    }

    fn apply(&mut self, interp: Interp, word: &str) -> Result<(), String> {
        let m = &mut self.mods;
        match interp {
            Interp::Rounding(v) => set(&mut m.rounding, v, word),
            Interp::Precision(v) => set(&mut m.precision, v, word),
            Interp::MulMode(v) => set(&mut m.mul_mode, v, word),
            Interp::Cmp(v) => set(&mut m.cmp, v, word),
            Interp::BoolOp(v) => set(&mut m.bool_op, v, word),
            Interp::Space(v) if m.space.is_some() && m.src_space.is_none() => {
                m.src_space = Some(v);
                Ok(())
            }
            Interp::Space(v) => set(&mut m.space, v, word),
            Interp::Cache(v) => set(&mut m.cache, v, word),
            Interp::Eviction(v) if v.is_l1() => set(&mut m.l1_eviction, v, word),
            Interp::Eviction(v) if m.policy.is_some() && m.l2_eviction.is_some() => {
                set(&mut m.l2_eviction_secondary, v, word)
            }
            Interp::Eviction(v) => set(&mut m.l2_eviction, v, word),
            Interp::PrefetchSize(v) => set(&mut m.prefetch_size, v, word),
            Interp::Sem(v) => set(&mut m.sem, v, word),
            Interp::Scope(v) => set(&mut m.scope, v, word),
            Interp::Vec(v) => set(&mut m.vec, v, word),
            Interp::Atom(v) => set(&mut m.atom_op, v, word),
            Interp::Bar(v) => set(&mut m.bar_mode, v, word),
            Interp::Reduce(v) => set(&mut m.reduce, v, word),
            Interp::Vote(v) => set(&mut m.vote, v, word),
            Interp::Shfl(v) => set(&mut m.shfl, v, word),
            Interp::Match(v) => set(&mut m.match_mode, v, word),
            Interp::ShiftDir(v) => set(&mut m.shift_dir, v, word),
            Interp::Funnel(v) => set(&mut m.funnel, v, word),
            Interp::Prmt(v) => set(&mut m.prmt, v, word),
            Interp::Testp(v) => set(&mut m.testp, v, word),
            Interp::Geom(v) => set(&mut m.geom, v, word),
            Interp::Lod(v) => set(&mut m.lod, v, word),
            Interp::Component(v) => set(&mut m.component, v, word),
            Interp::Query(v) => set(&mut m.query, v, word),
            Interp::SurfMode(v) => set(&mut m.surf_mode, v, word),
            Interp::SurfClamp(v) => set(&mut m.surf_clamp, v, word),
            Interp::Shape(v) => set(&mut m.shape, v, word),
            Interp::Layout(v) if m.layout_a.is_some() => set(&mut m.layout_b, v, word),
            Interp::Layout(v) => set(&mut m.layout_a, v, word),
            Interp::Frag(v) => set(&mut m.frag, v, word),
            Interp::Matrices(v) => set(&mut m.matrices, v, word),
            Interp::Proxy(v) => set(&mut m.proxy, v, word),
            Interp::Level(v) => set(&mut m.level, v, word),
            Interp::Completion(v) => set(&mut m.completion, v, word),
            Interp::IncDec(v) => set(&mut m.inc_dec, v, word),
            Interp::Bmma(v) => set(&mut m.bmma_op, v, word),
            Interp::Policy(v) => set(&mut m.policy, v, word),
            Interp::VideoOp2(v) => set(&mut m.video.op2, v, word),
            Interp::VideoScale(v) => set(&mut m.video.scale, v, word),
            Interp::Flag(kind) => self.apply_flag(kind, word),
        }
    }

    fn apply_flag(&mut self, kind: Kind, word: &str) -> Result<(), String> {
        let m = &mut self.mods;
        let slot = match kind {
            Kind::Ftz => &mut m.ftz,
            Kind::Sat => &mut m.sat,
            Kind::Satfinite => &mut m.satfinite,
            Kind::Relu => &mut m.relu,
            Kind::NaN => &mut m.nan,
            Kind::Abs => &mut m.abs,
            Kind::Xorsign => &mut m.xorsign,
            Kind::Cc => &mut m.cc,
            Kind::To => &mut m.to_space,
            Kind::Nc => &mut m.nc,
            Kind::CacheHint => &mut m.l2_cache_hint,
            Kind::Gl => return set(&mut m.scope, Scope::Gpu, word),
            Kind::Uni => &mut m.uni,
            Kind::Sync => &mut m.sync,
            Kind::Aligned => &mut m.aligned,
            Kind::Noftz => &mut m.noftz,
            Kind::Shiftamt => &mut m.shiftamt,
            Kind::Trans => &mut m.trans,
            Kind::Noinc => &mut m.noinc,
            Kind::NoComplete => &mut m.no_complete,
            Kind::ExpectTx => &mut m.expect_tx,
            Kind::Parity => &mut m.parity,
            Kind::Multicast => &mut m.multicast,
            Kind::Oob => &mut m.oob,
            Kind::Mmio => &mut m.mmio,
            Kind::MbarrierInit => &mut m.mbarrier_init,
            Kind::Po => &mut m.video.po,
            // `.popc` of binary mma is implied by the bit op; it is written back from `bmma_op`.
            Kind::Popc => {
                return if m.bmma_op.is_some() {
                    Ok(())
                } else {
                    Err("'.popc' needs '.xor' or '.and' before it".into())
                }
            }
            _ => return Err(format!("modifier '{word}' is not a flag")),
        };
        flag(slot, word)
    }
}
