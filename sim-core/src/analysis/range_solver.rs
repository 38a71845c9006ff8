//! The constraint solver of the range analysis (Campos, Rodrigues, Pereira, "Speed and precision
//! in range analysis"): the e-SSA values form a constraint graph (each value depends on the values
//! its definition reads, a σ also on its symbolic bound); its strongly connected components are
//! solved one by one in topological order. In a cycle: widening with jump set (a bound that grows
//! jumps to the next program constant, else to the end of the window), σs whose symbolic bound
//! ("future") lies in the same component left open; then the futures are resolved and the
//! component is narrowed (`x ← x ⊓ f(x)`) to a fixpoint or a round limit.
//!
//! Each cyclic component is first solved over the unbounded integers, as Campos et al. do (a
//! widened `[0, +∞] + 1` stays `[1, +∞]` and narrowing brings it back). That solution is kept only
//! if it is checked to be a post-fixpoint of PTX's wrap-around semantics as well (every value in
//! its window, every constraint re-evaluated modularly inside it), so it is sound; otherwise the
//! component is solved again with wrap-around semantics throughout.
//!
//! ```text
//! k1 = φ(0, k3); k_t = σ(k1 < 50); k3 = k_t + 1      // one component
//! widening: k1 [0,0] → [0,1] → [0,50] (50 is a program constant); k_t [0,49]; k3 [1,50]
//! ```

use alloc::vec::Vec;

use super::interval::Interval;

/// Rounds of narrowing per component at most (every intermediate state is sound).
const NARROWING_ROUNDS: usize = 64;

/// "Infinity" of the unbounded phase: far beyond any 64-bit window, far below `i128`'s limits.
const INFINITY: i128 = 1 << 100;

/// The strongly connected components of the graph `v → deps[v]`, dependencies first (Tarjan,
/// iterative).
pub(crate) fn components(deps: &[Vec<u32>]) -> Vec<Vec<u32>> {
    const NONE: u32 = u32::MAX;
    let n = deps.len();
    let (mut index, mut low, mut on_stack) = (alloc::vec![NONE; n], alloc::vec![0u32; n], alloc::vec![false; n]);
    let (mut stack, mut out, mut counter) = (Vec::new(), Vec::new(), 0u32);
    for root in 0..n {
        if index[root] != NONE {
            continue;
        }
        let mut call: Vec<(usize, usize)> = alloc::vec![(root, 0)];
        index[root] = counter;
        low[root] = counter;
        counter += 1;
        stack.push(root as u32);
        on_stack[root] = true;
        while let Some(&mut (v, ref mut next)) = call.last_mut() {
            if let Some(&w) = deps[v].get(*next) {
                *next += 1;
                let w = w as usize;
                if w >= n {
                    continue;
                }
                if index[w] == NONE {
                    index[w] = counter;
                    low[w] = counter;
                    counter += 1;
                    stack.push(w as u32);
                    on_stack[w] = true;
                    call.push((w, 0));
                } else if on_stack[w] {
                    low[v] = low[v].min(index[w]);
                }
                continue;
            }
            call.pop();
            if let Some(&(p, _)) = call.last() {
                low[p] = low[p].min(low[v]);
            }
            if low[v] == index[v] {
                let mut comp = Vec::new();
                while let Some(w) = stack.pop() {
                    on_stack[w as usize] = false;
                    comp.push(w);
                    if w as usize == v {
                        break;
                    }
                }
                comp.reverse();
                out.push(comp);
            }
        }
    }
    out
}

/// Where a constraint is evaluated.
pub(crate) struct State<'a> {
    /// The current range of every value.
    pub ranges: &'a [Interval],
    /// σ-bounds ("futures") for which this is false are not resolved yet: ignore them.
    pub open: &'a dyn Fn(u32) -> bool,
    /// PTX's wrap-around arithmetic, else the unbounded integers.
    pub modular: bool,
}

/// What the solver needs from the analysis.
pub(crate) trait System {
    /// Number of values.
    fn len(&self) -> usize;
    /// The values `v`'s constraint reads.
    fn deps(&self, v: u32) -> Vec<u32>;
    /// `v`'s constraint evaluated in state `at`.
    fn eval(&self, v: u32, at: &State<'_>) -> Interval;
    /// The window of `v` (where widening ends).
    fn window(&self, v: u32) -> Interval;
}

/// Solves `sys` with jump set `jumps` (sorted, deduplicated).
pub(crate) fn solve(sys: &dyn System, jumps: &[i128]) -> Vec<Interval> {
    let n = sys.len();
    let deps: Vec<Vec<u32>> = (0..n as u32).map(|v| sys.deps(v)).collect();
    let mut users: Vec<Vec<u32>> = alloc::vec![Vec::new(); n];
    for (v, ds) in deps.iter().enumerate() {
        for &d in ds {
            if let Some(u) = users.get_mut(d as usize) {
                u.push(v as u32);
            }
        }
    }
    let mut ranges = alloc::vec![Interval::EMPTY; n];
    let mut component = alloc::vec![u32::MAX; n];
    for (id, comp) in components(&deps).into_iter().enumerate() {
        comp.iter().for_each(|&v| component[v as usize] = id as u32);
        let cyclic = comp.len() > 1 || deps[comp[0] as usize].contains(&comp[0]);
        let here = |w: u32| component.get(w as usize).copied() == Some(id as u32);
        if !cyclic {
            let v = comp[0];
            ranges[v as usize] = sys.eval(v, &State { ranges: &ranges, open: &|_| true, modular: true });
            continue;
        }
        for modular in [false, true] {
            comp.iter().for_each(|&v| ranges[v as usize] = Interval::EMPTY);
            widen(sys, &comp, &users, &here, jumps, &mut ranges, modular);
            narrow(sys, &comp, &mut ranges, modular);
            if modular || holds_modulo(sys, &comp, &ranges) {
                break;
            }
        }
    }
    ranges
}

/// True if the unbounded phase's solution of `comp` is also a post-fixpoint of PTX's wrap-around
/// semantics: every value fits its window and re-evaluating any constraint modularly stays
/// inside it. Then it is sound as it stands.
fn holds_modulo(sys: &dyn System, comp: &[u32], ranges: &[Interval]) -> bool {
    let at = State { ranges, open: &|_| true, modular: true };
    comp.iter().all(|&v| {
        let r = ranges[v as usize];
        r.within(sys.window(v)) && sys.eval(v, &at).within(r)
    })
}

fn widen(
    sys: &dyn System,
    comp: &[u32],
    users: &[Vec<u32>],
    here: &dyn Fn(u32) -> bool,
    jumps: &[i128],
    ranges: &mut [Interval],
    modular: bool,
) {
    let mut queue: alloc::collections::VecDeque<u32> = comp.iter().copied().collect();
    let mut queued = alloc::collections::BTreeSet::from_iter(comp.iter().copied());
    while let Some(v) = queue.pop_front() {
        queued.remove(&v);
        let new = sys.eval(v, &State { ranges, open: &|w| !here(w), modular });
        let old = ranges[v as usize];
        let window = if modular { sys.window(v) } else { Interval::new(-INFINITY, INFINITY) };
        let w = jump(old, new, window, jumps);
        if w != old {
            ranges[v as usize] = w;
            for &u in users.get(v as usize).into_iter().flatten() {
                if here(u) && queued.insert(u) {
                    queue.push_back(u);
                }
            }
        }
    }
}

fn narrow(sys: &dyn System, comp: &[u32], ranges: &mut [Interval], modular: bool) {
    for _ in 0..NARROWING_ROUNDS {
        let mut changed = false;
        for &v in comp {
            let old = ranges[v as usize];
            let new = old.meet(sys.eval(v, &State { ranges, open: &|_| true, modular }));
            if new != old {
                ranges[v as usize] = new;
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
}

/// Widening with a jump set: a bound that grows moves to the next constant beyond it (or to the
/// window's end); a bound that does not grow stays.
pub(crate) fn jump(old: Interval, new: Interval, window: Interval, jumps: &[i128]) -> Interval {
    if old.is_empty() {
        return new;
    }
    if new.is_empty() {
        return old;
    }
    let lo = if new.lo < old.lo {
        let i = jumps.partition_point(|&c| c <= new.lo);
        i.checked_sub(1).and_then(|i| jumps.get(i)).copied().filter(|&c| c >= window.lo).unwrap_or(window.lo)
    } else {
        old.lo
    };
    let hi = if new.hi > old.hi {
        let i = jumps.partition_point(|&c| c < new.hi);
        jumps.get(i).copied().filter(|&c| c <= window.hi).unwrap_or(window.hi)
    } else {
        old.hi
    };
    Interval::new(lo, hi)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn components_come_dependencies_first() {
        // 0 ← 1 ⇄ 2 ← 3
        let deps = alloc::vec![alloc::vec![], alloc::vec![0, 2], alloc::vec![1], alloc::vec![2]];
        assert_eq!(components(&deps), alloc::vec![alloc::vec![0], alloc::vec![1, 2], alloc::vec![3]]);
    }

    #[test]
    fn widening_jumps_to_constants() {
        let w = Interval::new(-100, 100);
        let jumps = [0, 1, 50];
        assert_eq!(jump(Interval::new(0, 1), Interval::new(0, 2), w, &jumps), Interval::new(0, 50));
        assert_eq!(jump(Interval::new(0, 50), Interval::new(0, 51), w, &jumps), Interval::new(0, 100));
        assert_eq!(jump(Interval::new(0, 1), Interval::new(-1, 1), w, &jumps), Interval::new(-100, 1));
        assert_eq!(jump(Interval::EMPTY, Interval::new(3, 4), w, &jumps), Interval::new(3, 4));
    }
}
