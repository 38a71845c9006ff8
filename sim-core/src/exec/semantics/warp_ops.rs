//! Warp-wide instructions: `vote` (`all`, `any`, `uni`, `ballot`), `shfl` (`up`, `down`, `bfly`,
//! `idx` with clamp and segment masks), `activemask`, `redux`, `match`, `elect`. They see the
//! lanes that execute the instruction (active and guard true); member masks are not checked.
//!
//! ```text
//! vote.sync.ballot.b32 %r1, %p1, 0xffffffff;          // bit l set where lane l has %p1
//! shfl.sync.bfly.b32 %r1|%p1, %r2, 3, 31, 0xffffffff; // %r2 of lane (l ^ 3)
//! ```

use super::super::program::{Dst, IntTy, Src};
use super::super::warp::{Env, Warp, ZERO};
use super::int::Ext;
use crate::ir::{ReduceOp, ShflMode, VoteMode};

/// `vote`.
pub fn exec_vote(w: &mut Warp, env: &Env, mode: VoteMode, d: Dst, p: Src, mask: u32) {
    let votes = w.read_mask(p, env) & mask;
    let value = match mode {
        VoteMode::Ballot => u64::from(votes),
        VoteMode::All => u64::from(votes == mask),
        VoteMode::Any => u64::from(votes != 0),
        VoteMode::Uni => u64::from(votes == 0 || votes == mask),
    };
    w.write(d, &[value; 32], mask);
}

/// `shfl`.
#[allow(clippy::too_many_arguments, reason = "the operands of one PTX instruction")]
pub fn exec_shfl(w: &mut Warp, env: &Env, mode: ShflMode, d: Dst, dp: Dst, a: Src, b: Src, c: Src, mask: u32) {
    let mut out = ZERO;
    let mut pv = 0u32;
    for (lane, slot) in out.iter_mut().enumerate() {
        if (mask >> lane) & 1 == 0 {
            continue;
        }
        let bval = (w.read_lane(b, lane, env) & 31) as i64;
        let cval = w.read_lane(c, lane, env);
        let clamp = (cval & 31) as i64;
        let segmask = ((cval >> 8) & 31) as i64;
        let l = lane as i64;
        let max_lane = (l & segmask) | (clamp & !segmask);
        let min_lane = l & segmask;
        let (j, ok) = match mode {
            ShflMode::Up => (l - bval, l - bval >= max_lane),
            ShflMode::Down => (l + bval, l + bval <= max_lane),
            ShflMode::Bfly => (l ^ bval, (l ^ bval) <= max_lane),
            ShflMode::Idx => {
                let j = min_lane | (bval & !segmask);
                (j, j <= max_lane)
            }
        };
        let src = if ok && (0..32).contains(&j) { j as usize } else { lane };
        *slot = w.read_lane(a, src, env);
        pv |= u32::from(ok) << lane;
    }
    w.write(d, &out, mask);
    let mut pl = ZERO;
    for (l, v) in pl.iter_mut().enumerate() {
        *v = u64::from((pv >> l) & 1);
    }
    w.write(dp, &pl, mask);
}

/// `activemask`.
pub fn exec_activemask(w: &mut Warp, d: Dst, mask: u32) {
    w.write(d, &[u64::from(mask); 32], mask);
}

/// `redux.sync`.
pub fn exec_redux(w: &mut Warp, env: &Env, op: ReduceOp, ty: IntTy, d: Dst, a: Src, mask: u32) {
    let k = Ext::new(ty);
    let mut acc: Option<u64> = None;
    for lane in 0..32 {
        if (mask >> lane) & 1 == 0 {
            continue;
        }
        let v = k.ext(w.read_lane(a, lane, env));
        acc = Some(match acc {
            None => v,
            Some(x) => match op {
                ReduceOp::Add | ReduceOp::Popc => k.ext(x.wrapping_add(v)),
                ReduceOp::And => x & v,
                ReduceOp::Or => x | v,
                ReduceOp::Xor => x ^ v,
                ReduceOp::Min if ty.signed => k.ext((k.sx(x).min(k.sx(v))) as u64),
                ReduceOp::Max if ty.signed => k.ext((k.sx(x).max(k.sx(v))) as u64),
                ReduceOp::Min => x.min(v),
                ReduceOp::Max => x.max(v),
            },
        });
    }
    w.write(d, &[acc.unwrap_or(0); 32], mask);
}

/// `match.any.sync`: the lanes holding the same value.
pub fn exec_match_any(w: &mut Warp, env: &Env, ty: IntTy, d: Dst, a: Src, mask: u32) {
    let k = Ext::new(ty);
    let mut out = ZERO;
    for (lane, slot) in out.iter_mut().enumerate() {
        if (mask >> lane) & 1 == 0 {
            continue;
        }
        let v = k.zx(w.read_lane(a, lane, env));
        let same = (0..32).filter(|&o| (mask >> o) & 1 == 1 && k.zx(w.read_lane(a, o, env)) == v);
        *slot = same.fold(0u64, |m, o| m | (1 << o));
    }
    w.write(d, &out, mask);
}

/// `match.all.sync`: all lanes hold the same value.
pub fn exec_match_all(w: &mut Warp, env: &Env, ty: IntTy, d: Dst, dp: Dst, a: Src, mask: u32) {
    let k = Ext::new(ty);
    let first = (0..32).find(|&l| (mask >> l) & 1 == 1).map(|l| k.zx(w.read_lane(a, l, env)));
    let all = (0..32).all(|l| (mask >> l) & 1 == 0 || Some(k.zx(w.read_lane(a, l, env))) == first);
    w.write(d, &[if all { u64::from(mask) } else { 0 }; 32], mask);
    w.write(dp, &[u64::from(all); 32], mask);
}

/// `elect.sync`: the lowest executing lane is elected.
pub fn exec_elect(w: &mut Warp, d: Dst, dp: Dst, mask: u32) {
    let leader = mask.trailing_zeros();
    w.write(d, &[u64::from(leader); 32], mask);
    let mut p = ZERO;
    if let Some(v) = p.get_mut(leader as usize) {
        *v = 1;
    }
    w.write(dp, &p, mask);
}
