//! Dominators and post-dominators (Cooper, Harvey and Kennedy's iterative algorithm), with
//! dominance frontiers and the immediate post-dominator of each branch: the point where the
//! threads of a warp that diverged there reconverge.
//!
//! ```text
//!   @%p1 bra THEN;        // block 0: idom none; ipdom JOIN → a divergent warp reconverges at JOIN
//!   add.s32 %r2, %r1, 1;  // block 1: idom 0, ipdom JOIN
//!   bra.uni JOIN;
//! THEN: ...               // block 2: idom 0, ipdom JOIN
//! JOIN: ret;              // block 3: idom 0, ipdom the virtual exit
//! ```
//!
//! Post-dominators are computed on the reversed CFG rooted at the virtual exit. Blocks that cannot
//! reach the exit (infinite loops) get a virtual edge to the exit so every block has an immediate
//! post-dominator: for each block in reverse layout order that still cannot reach the exit, one
//! edge from that block (so the loop's last block in layout post-dominates nothing it should not).
//! Blocks unreachable from the entry have no dominator.

use alloc::vec;
use alloc::vec::Vec;

use super::cfg::Cfg;
use crate::ir::{Block, Handle};

const NONE: u32 = u32::MAX;

/// A tree of immediate (post-)dominators over nodes `0..n`, with DFS numbers for O(1) ancestor
/// queries.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct Tree {
    idom: Vec<u32>,
    pre: Vec<u32>,
    post: Vec<u32>,
    children: Vec<Vec<u32>>,
}

impl Tree {
    /// Cooper–Harvey–Kennedy over `succ` (edges away from `root`) and `pred`.
    fn compute(root: usize, succ: &[Vec<u32>], pred: &[Vec<u32>]) -> Tree {
        let n = succ.len();
        let order = postorder(root, succ);
        let mut po_num = vec![NONE; n];
        for (i, &b) in order.iter().enumerate() {
            po_num[b as usize] = i as u32;
        }
        let mut idom = vec![NONE; n];
        idom[root] = root as u32;
        let mut changed = true;
        while changed {
            changed = false;
            for &b in order.iter().rev().filter(|&&b| b as usize != root) {
                let mut new = NONE;
                for &p in pred[b as usize].iter().filter(|&&p| idom[p as usize] != NONE) {
                    new = if new == NONE { p } else { intersect(&idom, &po_num, p, new) };
                }
                if new != NONE && idom[b as usize] != new {
                    idom[b as usize] = new;
                    changed = true;
                }
            }
        }
        idom[root] = NONE;
        Tree::from_idoms(root, idom)
    }

    fn from_idoms(root: usize, idom: Vec<u32>) -> Tree {
        let n = idom.len();
        let mut children = vec![Vec::new(); n];
        for (b, &d) in idom.iter().enumerate() {
            if d != NONE {
                children[d as usize].push(b as u32);
            }
        }
        let (mut pre, mut post) = (vec![NONE; n], vec![NONE; n]);
        let (mut counter, mut stack) = (0u32, vec![(root as u32, 0usize)]);
        pre[root] = 0;
        while let Some(&mut (b, ref mut next)) = stack.last_mut() {
            if let Some(&c) = children[b as usize].get(*next) {
                *next += 1;
                counter += 1;
                pre[c as usize] = counter;
                stack.push((c, 0));
            } else {
                post[b as usize] = counter;
                stack.pop();
            }
        }
        Tree { idom, pre, post, children }
    }

    /// `a` is an ancestor of `b` or `b` itself (both in the tree).
    fn dominates(&self, a: usize, b: usize) -> bool {
        match (self.pre.get(a), self.pre.get(b), self.post.get(a)) {
            (Some(&pa), Some(&pb), Some(&qa)) if pa != NONE && pb != NONE => pa <= pb && pb <= qa,
            _ => false,
        }
    }

    fn idom(&self, b: usize) -> Option<usize> {
        self.idom.get(b).filter(|&&d| d != NONE).map(|&d| d as usize)
    }
}

fn intersect(idom: &[u32], po_num: &[u32], mut a: u32, mut b: u32) -> u32 {
    while a != b {
        while po_num[a as usize] < po_num[b as usize] {
            a = idom[a as usize];
        }
        while po_num[b as usize] < po_num[a as usize] {
            b = idom[b as usize];
        }
    }
    a
}

fn postorder(root: usize, succ: &[Vec<u32>]) -> Vec<u32> {
    let mut visited = vec![false; succ.len()];
    let mut out = Vec::with_capacity(succ.len());
    let mut stack = vec![(root as u32, 0usize)];
    visited[root] = true;
    while let Some(&mut (b, ref mut next)) = stack.last_mut() {
        if let Some(&s) = succ[b as usize].get(*next) {
            *next += 1;
            if !visited[s as usize] {
                visited[s as usize] = true;
                stack.push((s, 0));
            }
        } else {
            out.push(b);
            stack.pop();
        }
    }
    out
}

fn block(i: usize) -> Handle<Block> {
    Handle::from_index(i as u32)
}

/// The dominator tree of a function's CFG, rooted at the entry block.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Dominators {
    tree: Tree,
    frontiers: Vec<Vec<Handle<Block>>>,
}

impl Dominators {
    /// Computes dominators of `cfg`.
    pub fn compute(cfg: &Cfg) -> Dominators {
        if cfg.is_empty() {
            return Dominators::default();
        }
        let succ: Vec<Vec<u32>> = cfg.blocks().map(|b| cfg.succs(b).iter().map(|s| s.raw()).collect()).collect();
        let pred: Vec<Vec<u32>> = cfg.blocks().map(|b| cfg.preds(b).iter().map(|s| s.raw()).collect()).collect();
        let tree = Tree::compute(0, &succ, &pred);
        let frontiers = frontiers(&tree, &pred, cfg.len());
        Dominators { tree, frontiers }
    }

    /// The immediate dominator (`None` for the entry and unreachable blocks).
    pub fn idom(&self, b: Handle<Block>) -> Option<Handle<Block>> {
        self.tree.idom(b.index()).map(block)
    }

    /// True if every path from the entry to `b` passes through `a` (reflexive; false if either is
    /// unreachable).
    pub fn dominates(&self, a: Handle<Block>, b: Handle<Block>) -> bool {
        self.tree.dominates(a.index(), b.index())
    }

    /// `a` dominates `b` and differs from it.
    pub fn strictly_dominates(&self, a: Handle<Block>, b: Handle<Block>) -> bool {
        a != b && self.dominates(a, b)
    }

    /// Blocks immediately dominated by `b`, in layout order.
    pub fn children(&self, b: Handle<Block>) -> impl Iterator<Item = Handle<Block>> + '_ {
        self.tree.children.get(b.index()).into_iter().flatten().map(|&c| block(c as usize))
    }

    /// The dominance frontier of `b` (where φ-functions for its definitions go), in layout order.
    pub fn frontier(&self, b: Handle<Block>) -> &[Handle<Block>] {
        self.frontiers.get(b.index()).map_or(&[], Vec::as_slice)
    }
}

/// Dominance frontiers (Cooper–Harvey–Kennedy): for each join node, walk up from each
/// predecessor to the join's idom.
fn frontiers(tree: &Tree, pred: &[Vec<u32>], n: usize) -> Vec<Vec<Handle<Block>>> {
    let mut df: Vec<Vec<Handle<Block>>> = vec![Vec::new(); n];
    for (b, preds) in pred.iter().enumerate().take(n) {
        let Some(idom_b) = tree.idom(b) else { continue };
        if preds.len() < 2 {
            continue;
        }
        for &p in preds {
            let mut runner = p as usize;
            while runner != idom_b && tree.pre.get(runner).is_some_and(|&x| x != NONE) {
                if !df[runner].contains(&block(b)) {
                    df[runner].push(block(b));
                }
                match tree.idom(runner) {
                    Some(up) => runner = up,
                    None => break,
                }
            }
        }
    }
    df.iter_mut().for_each(|v| crate::sorting::sort(v));
    df
}

/// A node of the post-dominator tree: a block or the virtual exit.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum PostDomNode {
    /// A basic block.
    Block(Handle<Block>),
    /// The virtual exit every `ret`/`exit` leads to.
    Exit,
}

/// The post-dominator tree, rooted at the virtual exit.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PostDominators {
    tree: Tree,
    exit: usize,
}

impl PostDominators {
    /// Computes post-dominators of `cfg`.
    pub fn compute(cfg: &Cfg) -> PostDominators {
        let n = cfg.len();
        let exit = n;
        // Reverse graph: edges from the exit towards the entry.
        let mut rsucc: Vec<Vec<u32>> = vec![Vec::new(); n + 1];
        let mut rpred: Vec<Vec<u32>> = vec![Vec::new(); n + 1];
        for b in cfg.blocks() {
            for s in cfg.succs(b) {
                rsucc[s.index()].push(b.raw());
                rpred[b.index()].push(s.raw());
            }
            if cfg.exits(b) {
                rsucc[exit].push(b.raw());
                rpred[b.index()].push(exit as u32);
            }
        }
        connect_dead_ends(&mut rsucc, &mut rpred, exit);
        PostDominators { tree: Tree::compute(exit, &rsucc, &rpred), exit }
    }

    fn node(&self, i: usize) -> PostDomNode {
        if i == self.exit {
            PostDomNode::Exit
        } else {
            PostDomNode::Block(block(i))
        }
    }

    fn index(&self, n: PostDomNode) -> usize {
        match n {
            PostDomNode::Block(b) => b.index(),
            PostDomNode::Exit => self.exit,
        }
    }

    /// The immediate post-dominator of `b` (`None` only for a block outside the function).
    pub fn ipdom(&self, b: Handle<Block>) -> Option<PostDomNode> {
        self.tree.idom(b.index()).map(|i| self.node(i))
    }

    /// Where the threads of a warp that diverge at the branch ending `b` reconverge: its
    /// immediate post-dominator, `None` if that is the virtual exit (they meet only at the end).
    pub fn reconvergence_point(&self, b: Handle<Block>) -> Option<Handle<Block>> {
        match self.ipdom(b) {
            Some(PostDomNode::Block(p)) => Some(p),
            _ => None,
        }
    }

    /// True if every path from `b` to the exit passes through `a` (reflexive).
    pub fn post_dominates(&self, a: PostDomNode, b: PostDomNode) -> bool {
        self.tree.dominates(self.index(a), self.index(b))
    }

    /// Children of `n` in the post-dominator tree.
    pub fn children(&self, n: PostDomNode) -> impl Iterator<Item = PostDomNode> + '_ {
        self.tree.children.get(self.index(n)).into_iter().flatten().map(|&c| self.node(c as usize))
    }
}

/// Gives every node that cannot reach the exit (through reversed edges: is not reached from the
/// exit) an edge to the exit, last blocks in layout order first, until all are reached.
fn connect_dead_ends(rsucc: &mut [Vec<u32>], rpred: &mut [Vec<u32>], exit: usize) {
    let n = rsucc.len();
    let mut reached = vec![false; n];
    mark(exit, rsucc, &mut reached);
    for b in (0..exit).rev() {
        if !reached[b] {
            rsucc[exit].push(b as u32);
            rpred[b].push(exit as u32);
            mark(b, rsucc, &mut reached);
        }
    }
}

fn mark(from: usize, succ: &[Vec<u32>], reached: &mut [bool]) {
    if reached[from] {
        return;
    }
    reached[from] = true;
    let mut stack = vec![from];
    while let Some(b) = stack.pop() {
        for &s in &succ[b] {
            if !reached[s as usize] {
                reached[s as usize] = true;
                stack.push(s as usize);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::test_util::kernel;

    fn b(i: u32) -> Handle<Block> {
        Handle::from_index(i)
    }

    #[test]
    fn diamond_in_a_loop() {
        // 0 → 1(head) → {2, 3} → 4(latch) → {1, 5}; 5 ret.
        let m = kernel(
            ".reg .pred %p<3>; .reg .b32 %r<3>;
             mov.u32 %r1, 0;
             HEAD: setp.eq.s32 %p1, %r1, 3;
             @%p1 bra ELSE;
             add.s32 %r1, %r1, 1;
             bra.uni LATCH;
             ELSE: add.s32 %r1, %r1, 2;
             LATCH: setp.lt.s32 %p2, %r1, 100;
             @%p2 bra HEAD;
             ret;",
        );
        let cfg = Cfg::compute(&m.functions[Handle::from_index(0)]);
        let dom = Dominators::compute(&cfg);
        assert_eq!(dom.idom(b(0)), None);
        assert_eq!(dom.idom(b(1)), Some(b(0)));
        assert_eq!(dom.idom(b(2)), Some(b(1)));
        assert_eq!(dom.idom(b(3)), Some(b(1)));
        assert_eq!(dom.idom(b(4)), Some(b(1)));
        assert_eq!(dom.idom(b(5)), Some(b(4)));
        assert!(dom.dominates(b(1), b(5)) && !dom.dominates(b(2), b(4)));
        assert_eq!(dom.frontier(b(2)), [b(4)]);
        assert_eq!(dom.frontier(b(4)), [b(1)]);
        assert_eq!(dom.frontier(b(1)), [b(1)]);
        let pdom = PostDominators::compute(&cfg);
        assert_eq!(pdom.reconvergence_point(b(1)), Some(b(4)));
        assert_eq!(pdom.reconvergence_point(b(4)), Some(b(5)));
        assert_eq!(pdom.ipdom(b(5)), Some(PostDomNode::Exit));
        assert!(pdom.post_dominates(PostDomNode::Block(b(4)), PostDomNode::Block(b(0))));
        assert!(!pdom.post_dominates(PostDomNode::Block(b(2)), PostDomNode::Block(b(1))));
    }

    #[test]
    fn infinite_loop_still_has_post_dominators() {
        let m = kernel(
            ".reg .pred %p<2>; .reg .b32 %r<2>;
             setp.eq.u32 %p1, %r1, 0;
             @%p1 bra DONE;
             SPIN: bra.uni SPIN;
             DONE: ret;",
        );
        let cfg = Cfg::compute(&m.functions[Handle::from_index(0)]);
        let pdom = PostDominators::compute(&cfg);
        assert_eq!(pdom.ipdom(b(1)), Some(PostDomNode::Exit));
        assert_eq!(pdom.ipdom(b(0)), Some(PostDomNode::Exit));
        assert_eq!(pdom.ipdom(b(2)), Some(PostDomNode::Exit));
    }
}
