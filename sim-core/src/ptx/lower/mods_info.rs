//! What modifier kinds are called and how they are spelled: for "needs a …" messages, "did you
//! mean" hints and the check that required modifiers are present.
//!
//! ```text
//! setp.s32 …     → "'setp' needs a comparison operator such as .lt"
//! fma.rx.f32 …   → hint "did you mean '.rm'?"
//! ```

use alloc::vec::Vec;

use super::mods::{flag_word, Kind};
use crate::ir::{
    AtomOp, BarMode, BoolOp, CacheLevel, CacheOp, CmpOp, Completion, Component, Eviction, Frag, FunnelMode, IncDec,
    Layout, MatchMode, MatrixCount, MemSem, Modifiers, MulMode, PolicyKind, Precision, PrefetchSize, PrmtMode,
    ProxyKind, ReduceOp, Rounding, Scope, ShflMode, ShiftDir, StateSpace, SurfClamp, SurfMode, TestpOp, TexGeom,
    TexLod, TexQuery, Type, VecWidth, VideoOp2, VideoScale, VoteMode,
};

/// Every spelling of `kind` (for hints).
fn spellings(kind: Kind) -> Vec<&'static str> {
    fn all<T: Copy>(items: &[T], f: fn(T) -> &'static str) -> Vec<&'static str> {
        items.iter().map(|v| f(*v)).collect()
    }
    if let Some(w) = flag_word(kind) {
        return alloc::vec![w];
    }
    match kind {
        Kind::Rounding => all(Rounding::ALL, Rounding::as_str),
        Kind::Precision => all(Precision::ALL, Precision::as_str),
        Kind::MulMode => all(MulMode::ALL, MulMode::as_str),
        Kind::Cmp => all(CmpOp::ALL, CmpOp::as_str),
        Kind::BoolOp | Kind::Bmma => all(BoolOp::ALL, BoolOp::as_str),
        Kind::Space => all(StateSpace::ALL, StateSpace::as_str),
        Kind::Cache => all(CacheOp::ALL, CacheOp::as_str),
        Kind::Eviction => all(Eviction::ALL, Eviction::as_str),
        Kind::PrefetchSize => all(PrefetchSize::ALL, PrefetchSize::as_str),
        Kind::Sem => all(MemSem::ALL, MemSem::as_str),
        Kind::Scope => all(Scope::ALL, Scope::as_str),
        Kind::Vec => all(VecWidth::ALL, VecWidth::as_str),
        Kind::Atom => all(AtomOp::ALL, AtomOp::as_str),
        Kind::Bar => all(BarMode::ALL, BarMode::as_str),
        Kind::Reduce => all(ReduceOp::ALL, ReduceOp::as_str),
        Kind::Vote => all(VoteMode::ALL, VoteMode::as_str),
        Kind::Shfl => all(ShflMode::ALL, ShflMode::as_str),
        Kind::Match => all(MatchMode::ALL, MatchMode::as_str),
        Kind::ShiftDir => all(ShiftDir::ALL, ShiftDir::as_str),
        Kind::Funnel => all(FunnelMode::ALL, FunnelMode::as_str),
        Kind::Prmt => all(PrmtMode::ALL, PrmtMode::as_str),
        Kind::Testp => all(TestpOp::ALL, TestpOp::as_str),
        Kind::Geom => all(TexGeom::ALL, TexGeom::as_str),
        Kind::Lod => all(TexLod::ALL, TexLod::as_str),
        Kind::Component => all(Component::ALL, Component::as_str),
        Kind::Query => all(TexQuery::ALL, TexQuery::as_str),
        Kind::SurfMode => all(SurfMode::ALL, SurfMode::as_str),
        Kind::SurfClamp => all(SurfClamp::ALL, SurfClamp::as_str),
        Kind::Layout => all(Layout::ALL, Layout::as_str),
        Kind::Frag => all(Frag::ALL, Frag::as_str),
        Kind::Matrices => all(MatrixCount::ALL, MatrixCount::as_str),
        Kind::Proxy => all(ProxyKind::ALL, ProxyKind::as_str),
        Kind::Level => all(CacheLevel::ALL, CacheLevel::as_str),
        Kind::Completion => all(Completion::ALL, Completion::as_str),
        Kind::IncDec => all(IncDec::ALL, IncDec::as_str),
        Kind::Policy => all(PolicyKind::ALL, PolicyKind::as_str),
        Kind::VideoOp2 => all(VideoOp2::ALL, VideoOp2::as_str),
        Kind::VideoScale => all(VideoScale::ALL, VideoScale::as_str),
        _ => Vec::new(),
    }
}

/// The accepted words of an opcode closest to `word`, for a hint.
pub fn nearest_modifier(kinds: &[Kind], allows_types: bool, word: &str) -> Option<&'static str> {
    let mut words: Vec<&'static str> = kinds.iter().flat_map(|k| spellings(*k)).collect();
    if allows_types {
        words.extend(Type::ALL.iter().map(|t| t.as_str()));
    }
    words
        .into_iter()
        .map(|w| (crate::diagnostic::edit_distance(word, w), w))
        .min()
        .filter(|(d, w)| *d <= 1.max(w.len() / 3))
        .map(|(_, w)| w)
}

/// True if `kind` has been given a value in `m` (for required modifiers).
pub fn is_set(kind: Kind, m: &Modifiers) -> bool {
    match kind {
        Kind::Rounding => m.rounding.is_some(),
        Kind::Cmp => m.cmp.is_some(),
        Kind::Space => m.space.is_some(),
        Kind::Scope | Kind::Gl => m.scope.is_some(),
        Kind::Atom => m.atom_op.is_some(),
        Kind::Bar => m.bar_mode.is_some(),
        Kind::Reduce => m.reduce.is_some(),
        Kind::Vote => m.vote.is_some(),
        Kind::Shfl => m.shfl.is_some(),
        Kind::Match => m.match_mode.is_some(),
        Kind::ShiftDir => m.shift_dir.is_some(),
        Kind::Testp => m.testp.is_some(),
        Kind::Geom => m.geom.is_some(),
        Kind::Component => m.component.is_some(),
        Kind::Query => m.query.is_some(),
        Kind::SurfMode => m.surf_mode.is_some(),
        Kind::Shape => m.shape.is_some(),
        Kind::Layout => m.layout_a.is_some(),
        Kind::Frag => m.frag.is_some(),
        Kind::Matrices => m.matrices.is_some(),
        Kind::IncDec => m.inc_dec.is_some(),
        Kind::Policy => m.policy.is_some(),
        Kind::Sync => m.sync,
        Kind::Funnel => m.funnel.is_some(),
        _ => true,
    }
}

/// The name of a kind in messages ("comparison", "state space").
pub fn describe(kind: Kind) -> &'static str {
    match kind {
        Kind::Rounding => "rounding mode",
        Kind::Cmp => "comparison operator such as .lt",
        Kind::Space => "state space",
        Kind::Scope | Kind::Gl => "scope",
        Kind::Atom => "atomic operation such as .add",
        Kind::Bar => "barrier mode such as .sync",
        Kind::Reduce => "reduction such as .popc",
        Kind::Vote => "vote mode such as .ballot",
        Kind::Shfl => "shuffle mode such as .idx",
        Kind::Match => "match mode (.any or .all)",
        Kind::ShiftDir => "direction (.l or .r)",
        Kind::Testp => "test such as .finite",
        Kind::Geom => "geometry such as .2d",
        Kind::Component => "component (.r, .g, .b or .a)",
        Kind::Query => "query such as .width",
        Kind::SurfMode => "surface mode (.b or .p)",
        Kind::Shape => "shape such as .m16n8k16",
        Kind::Layout => "layout (.row or .col)",
        Kind::Frag => "fragment (.a, .b, .c or .d)",
        Kind::Matrices => "matrix count (.x1, .x2 or .x4)",
        Kind::IncDec => "direction (.inc or .dec)",
        Kind::Policy => "policy kind (.fractional, .range or .cvt)",
        Kind::Sync => ".sync",
        Kind::Funnel => "shift mode (.clamp or .wrap)",
        _ => "modifier",
    }
}
