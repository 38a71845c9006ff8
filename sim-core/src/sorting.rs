//! Stable sorting for the front end, the analyses and the page: one place that decides how.
//!
//! Every call is a stable sort, so its result is defined by the comparison alone and is the same
//! however it is computed. Two ways compute it:
//!
//! - by default, the standard library's stable sort (`slice::sort_by`), which the simulator and
//!   the CLI use;
//! - with the `compact-sort` feature, which only the page's wasm turns on (`static/index.html`):
//!   [`sort_by_permutation`], which sorts the element indices with one shared instantiation of
//!   the standard sort and then moves the elements into place by swaps. The standard sort is
//!   generic over the element and comparison types, and every call site used to add its own copy
//!   of it (about 4 KB of code each, 20 copies in the page); the permutation costs one `usize`
//!   per element and one pass of swaps, which the page's sorts (diagnostics, loops, defs, notes,
//!   a few thousand elements at most) do not notice.
//!
//! The simulator's inner loops (`timing::sm`, `timing::memory`) sort small integer lists with
//! `sort_unstable` directly: equal integers are indistinguishable, so the result is defined
//! there too, and those loops never run in the page.

use alloc::vec::Vec;
use core::cmp::Ordering;

/// Sorts `v` stably by `cmp`.
pub fn sort_by<T, F: FnMut(&T, &T) -> Ordering>(v: &mut [T], cmp: F) {
    #[cfg(feature = "compact-sort")]
    sort_by_permutation(v, cmp);
    #[cfg(not(feature = "compact-sort"))]
    v.sort_by(cmp);
}

/// Sorts `v` stably by the key `key` gives each element.
pub fn sort_by_key<T, K: Ord, F: FnMut(&T) -> K>(v: &mut [T], mut key: F) {
    sort_by(v, |a, b| key(a).cmp(&key(b)));
}

/// Sorts `v` stably in ascending order.
pub fn sort<T: Ord>(v: &mut [T]) {
    sort_by(v, T::cmp);
}

/// The stable sort of `v` by `cmp`, computed as the permutation that sorts its indices (one
/// instantiation of the standard sort for every element type) applied by swaps.
pub fn sort_by_permutation<T, F: FnMut(&T, &T) -> Ordering>(v: &mut [T], mut cmp: F) {
    if v.len() < 2 {
        return;
    }
    let order = {
        let items: &[T] = v;
        sorted_indices(items.len(), &mut |a, b| match (items.get(a), items.get(b)) {
            (Some(x), Some(y)) => cmp(x, y),
            // Unreachable: both indices are below `items.len()`.
            _ => a.cmp(&b),
        })
    };
    permute(v, &order);
}

/// The indices `0..n` sorted stably by `cmp` (not generic: one copy of the standard sort).
fn sorted_indices(n: usize, cmp: &mut dyn FnMut(usize, usize) -> Ordering) -> Vec<usize> {
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by(|a, b| cmp(*a, *b));
    order
}

/// Rearranges `v` so that position `i` holds the element that was at `order[i]` (`order` is a
/// permutation of `0..v.len()`), following each cycle of the permutation with swaps.
fn permute<T>(v: &mut [T], order: &[usize]) {
    let mut done = alloc::vec![false; order.len()];
    for start in 0..order.len() {
        if done.get(start).copied().unwrap_or(true) {
            continue;
        }
        // Invariant: every position of the cycle before `at` holds its final element, and `at`
        // holds the element that was at `start`.
        let mut at = start;
        loop {
            if let Some(d) = done.get_mut(at) {
                *d = true;
            }
            let from = order.get(at).copied().unwrap_or(start);
            if from == start || from >= v.len() {
                break;
            }
            v.swap(at, from);
            at = from;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::vec;

    /// A small deterministic generator (xorshift), so the test needs no dependency.
    fn pseudo_random(seed: &mut u64) -> u64 {
        *seed ^= *seed << 13;
        *seed ^= *seed >> 7;
        *seed ^= *seed << 17;
        *seed
    }

    #[test]
    fn the_permutation_sort_equals_the_standard_stable_sort() {
        let mut seed = 0x9e37_79b9_7f4a_7c15;
        for len in [0usize, 1, 2, 3, 7, 20, 33, 100, 1000] {
            for keys in [1u64, 3, 10, 1 << 20] {
                // (key, original position): ties on the key keep their order in a stable sort,
                // which the position makes visible.
                let v: Vec<(u64, usize)> = (0..len).map(|i| (pseudo_random(&mut seed) % keys, i)).collect();
                let mut ours = v.clone();
                sort_by_permutation(&mut ours, |a, b| a.0.cmp(&b.0));
                let mut std_sorted = v.clone();
                std_sorted.sort_by_key(|a| a.0);
                assert_eq!(ours, std_sorted, "len {len}, {keys} distinct keys");
            }
        }
    }

    #[test]
    fn elements_that_cannot_be_cloned_are_moved_not_copied() {
        let mut v = vec![vec![3u8], vec![1, 1], vec![2], vec![1]];
        sort_by_permutation(&mut v, |a, b| a.first().cmp(&b.first()));
        assert_eq!(v, vec![vec![1, 1], vec![1], vec![2], vec![3]]);
    }

    #[test]
    fn the_helpers_sort_by_key_and_by_order() {
        let mut v = vec![5, -2, 9, 0, -2];
        sort(&mut v);
        assert_eq!(v, vec![-2, -2, 0, 5, 9]);
        let mut w = vec!["ccc", "a", "bb", "d"];
        sort_by_key(&mut w, |s| s.len());
        assert_eq!(w, vec!["a", "d", "bb", "ccc"]);
    }
}
