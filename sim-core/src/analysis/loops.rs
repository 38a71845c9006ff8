//! Natural loops: one per loop header (back edges to the same header are merged), with their
//! blocks, latches, exit blocks, nesting and depth.
//!
//! ```text
//! HEAD:                       // loop 0: header HEAD, blocks {HEAD, BODY}, latch BODY, exit DONE
//!   @%p1 bra DONE;
//! BODY:
//!   add.s32 %r1, %r1, 1;
//!   bra.uni HEAD;             // back edge BODY → HEAD (HEAD dominates BODY)
//! DONE: ret;
//! ```
//!
//! A back edge is an edge `t → h` where `h` dominates `t`; the loop's body is `h` plus every block
//! that reaches `t` without passing through `h`. A retreating edge (against reverse postorder) that
//! is not a back edge means irreducible control flow: it forms no natural loop and is reported by
//! [`Loops::has_irreducible_flow`].

use alloc::vec;
use alloc::vec::Vec;

use super::cfg::Cfg;
use super::dominators::Dominators;
use crate::ir::{Block, Handle};

/// One natural loop.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Loop {
    /// The header: the only entry, it dominates every block of the loop.
    pub header: Handle<Block>,
    /// Every block of the loop (nested loops' blocks included), in layout order.
    pub blocks: Vec<Handle<Block>>,
    /// Sources of back edges to the header, in layout order.
    pub latches: Vec<Handle<Block>>,
    /// Blocks outside the loop with a predecessor inside it, in layout order.
    pub exits: Vec<Handle<Block>>,
    /// The innermost enclosing loop.
    pub parent: Option<Handle<Loop>>,
    /// Nesting depth: 1 for an outermost loop.
    pub depth: u32,
}

impl Loop {
    /// True if `b` belongs to this loop.
    pub fn contains(&self, b: Handle<Block>) -> bool {
        self.blocks.binary_search(&b).is_ok()
    }
}

/// The natural loops of a function.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Loops {
    loops: Vec<Loop>,
    innermost: Vec<Option<Handle<Loop>>>,
    irreducible: bool,
}

impl Loops {
    /// Finds the natural loops of `cfg`.
    pub fn compute(cfg: &Cfg, dom: &Dominators) -> Loops {
        let mut loops: Vec<Loop> = Vec::new();
        let mut irreducible = false;
        for &h in cfg.reverse_postorder() {
            let latches: Vec<Handle<Block>> = cfg.preds(h).iter().copied().filter(|&t| dom.dominates(h, t)).collect();
            irreducible |= cfg.preds(h).iter().any(|&t| {
                !dom.dominates(h, t) && cfg.rpo_index(t).zip(cfg.rpo_index(h)).is_some_and(|(ti, hi)| ti >= hi)
            });
            if !latches.is_empty() {
                loops.push(natural_loop(cfg, h, latches));
            }
        }
        let innermost = nest(&mut loops, cfg.len());
        Loops { loops, innermost, irreducible }
    }

    /// Every loop with its handle, outer loops before the loops they contain.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = (Handle<Loop>, &Loop)> + '_ {
        self.loops.iter().enumerate().map(|(i, l)| (Handle::from_index(i as u32), l))
    }

    /// Number of loops.
    pub fn len(&self) -> usize {
        self.loops.len()
    }

    /// True if the function has no loop.
    pub fn is_empty(&self) -> bool {
        self.loops.is_empty()
    }

    /// The loop named by `h`.
    pub fn get(&self, h: Handle<Loop>) -> Option<&Loop> {
        self.loops.get(h.index())
    }

    /// The innermost loop containing `b`.
    pub fn innermost(&self, b: Handle<Block>) -> Option<Handle<Loop>> {
        self.innermost.get(b.index()).copied().flatten()
    }

    /// Loop nesting depth of `b` (0 outside every loop).
    pub fn depth(&self, b: Handle<Block>) -> u32 {
        self.innermost(b).and_then(|l| self.get(l)).map_or(0, |l| l.depth)
    }

    /// True if `b` is a loop header.
    pub fn is_header(&self, b: Handle<Block>) -> bool {
        self.loops.iter().any(|l| l.header == b)
    }

    /// True if some cycle has more than one entry (it is not a natural loop).
    pub fn has_irreducible_flow(&self) -> bool {
        self.irreducible
    }
}

fn natural_loop(cfg: &Cfg, header: Handle<Block>, latches: Vec<Handle<Block>>) -> Loop {
    let mut inside = vec![false; cfg.len()];
    inside[header.index()] = true;
    let mut stack: Vec<Handle<Block>> = Vec::new();
    for &t in &latches {
        if !inside[t.index()] {
            inside[t.index()] = true;
            stack.push(t);
        }
    }
    while let Some(b) = stack.pop() {
        for &p in cfg.preds(b) {
            if !inside[p.index()] && cfg.is_reachable(p) {
                inside[p.index()] = true;
                stack.push(p);
            }
        }
    }
    let blocks: Vec<Handle<Block>> = cfg.blocks().filter(|b| inside[b.index()]).collect();
    let mut exits: Vec<Handle<Block>> =
        blocks.iter().flat_map(|&b| cfg.succs(b).iter().copied()).filter(|s| !inside[s.index()]).collect();
    crate::sorting::sort(&mut exits);
    exits.dedup();
    let mut latches = latches;
    crate::sorting::sort(&mut latches);
    Loop { header, blocks, latches, exits, parent: None, depth: 1 }
}

/// Orders loops outer-first (by size, then header), links parents, sets depths; returns the
/// innermost loop of each block.
fn nest(loops: &mut [Loop], n: usize) -> Vec<Option<Handle<Loop>>> {
    crate::sorting::sort_by(loops, |a, b| b.blocks.len().cmp(&a.blocks.len()).then(a.header.cmp(&b.header)));
    let mut innermost: Vec<Option<Handle<Loop>>> = vec![None; n];
    for i in 0..loops.len() {
        let (outer, rest) = loops.split_at_mut(i);
        let Some(l) = rest.first_mut() else { continue };
        // The last enclosing loop in outer-first order is the innermost one.
        if let Some(p) = (0..outer.len()).rev().find(|&p| outer[p].contains(l.header)) {
            l.parent = Some(Handle::from_index(p as u32));
            l.depth = outer[p].depth + 1;
        }
        for b in &l.blocks {
            innermost[b.index()] = Some(Handle::from_index(i as u32));
        }
    }
    innermost
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::test_util::kernel;

    fn b(i: u32) -> Handle<Block> {
        Handle::from_index(i)
    }

    #[test]
    fn nested_loops() {
        // 0 → 1(outer head) → 2(inner head/latch) ↺ → 3(outer latch) → 1 | 4 ret.
        let m = kernel(
            ".reg .pred %p<3>; .reg .b32 %r<3>;
             mov.u32 %r1, 0;
             OUTER: mov.u32 %r2, 0;
             INNER: add.s32 %r2, %r2, 1;
             setp.lt.s32 %p1, %r2, 8;
             @%p1 bra INNER;
             add.s32 %r1, %r1, 1;
             setp.lt.s32 %p2, %r1, 8;
             @%p2 bra OUTER;
             ret;",
        );
        let cfg = Cfg::compute(&m.functions[Handle::from_index(0)]);
        let dom = Dominators::compute(&cfg);
        let loops = Loops::compute(&cfg, &dom);
        let all: Vec<Loop> = loops.iter().map(|(_, l)| l.clone()).collect();
        assert_eq!(all.len(), 2);
        assert_eq!(all[0].header, b(1));
        assert_eq!(all[0].blocks, [b(1), b(2), b(3)]);
        assert_eq!(all[0].latches, [b(3)]);
        assert_eq!(all[0].exits, [b(4)]);
        assert_eq!(all[0].parent, None);
        assert_eq!(all[1].header, b(2));
        assert_eq!(all[1].blocks, [b(2)]);
        assert_eq!(all[1].parent, Some(Handle::from_index(0)));
        assert_eq!(loops.depth(b(2)), 2);
        assert_eq!(loops.depth(b(3)), 1);
        assert_eq!(loops.depth(b(4)), 0);
        assert!(loops.is_header(b(2)) && !loops.has_irreducible_flow());
    }

    #[test]
    fn irreducible_cycle() {
        // 0 branches into both 1 and 2, which branch to each other.
        let m = kernel(
            ".reg .pred %p<3>;
             setp.eq.u32 %p1, 1, 1;
             @%p1 bra B;
             A: @%p1 bra B;
             ret;
             B: @%p1 bra A;
             ret;",
        );
        let cfg = Cfg::compute(&m.functions[Handle::from_index(0)]);
        let dom = Dominators::compute(&cfg);
        let loops = Loops::compute(&cfg, &dom);
        assert!(loops.is_empty());
        assert!(loops.has_irreducible_flow());
    }
}
