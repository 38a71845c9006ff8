//! Line diffs: two texts aligned row by row (same / changed / added / removed), as the app's PTX
//! diff view shows a scheme's rewritten kernel beside the original ([`rewrite`] adds the reasons).
//!
//! ```text
//! old                              new                            row
//! ld.const.f32 %f1, [%rd1];        ld.const.f32 %f1, [%rd1];      same
//! ld.const.f32 %f2, [%rd1+4];                                     removed
//! mul.ftz.f32 %f3, %f2, %f1;       mul.ftz.f32 %f3, %c[..], %f1;  changed
//! ```
//!
//! The alignment is Myers' greedy shortest edit script (the longest common subsequence of whole
//! lines). Within each run of edits, removed and added lines are paired into "changed" rows when
//! their first word (the opcode, after a guard) matches, in order (a second, small LCS over those
//! words; a fused `a_b` opcode matches `a` and `b`); a run with no such match pairs its lines in order when both sides have the same count,
//! else stays removed + added. Bounded: beyond [`MAX_LINES`] lines on a side or [`MAX_EDITS`]
//! edits, the texts are shown side by side line for line, with [`LineDiff::fallback`] saying so.

pub mod rewrite;
#[cfg(test)]
mod tests;

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use serde::{Deserialize, Serialize};

/// Most lines on either side that are aligned (beyond: side by side, unaligned).
pub const MAX_LINES: usize = 20_000;

/// Most edits (added + removed lines) the alignment searches for (memory grows with their square).
pub const MAX_EDITS: usize = 2_000;

/// Largest removed × added run that is paired by opcode (beyond: in order).
const MAX_PAIRING_CELLS: usize = 250_000;

/// What a row of the aligned texts is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum RowKind {
    /// The same line on both sides.
    Same,
    /// A line of the old text replaced by a line of the new.
    Changed,
    /// A line only the new text has.
    Added,
    /// A line only the old text has.
    Removed,
}

/// One aligned row: line indices (0-based) into the old and the new text.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct DiffRow {
    /// What the row is.
    pub kind: RowKind,
    /// Its line of the old text (`None`: added).
    pub old: Option<usize>,
    /// Its line of the new text (`None`: removed).
    pub new: Option<usize>,
    /// Why the line changed, where the producer of the new text knows ([`rewrite`]).
    pub reason: Option<String>,
}

/// Two texts aligned.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct LineDiff {
    /// The rows, in order of both texts.
    pub rows: Vec<DiffRow>,
    /// Why the texts are shown line for line without alignment (too large), if they are.
    pub fallback: Option<String>,
}

impl LineDiff {
    /// Rows that are not [`RowKind::Same`].
    pub fn edits(&self) -> usize {
        self.rows.iter().filter(|r| r.kind != RowKind::Same).count()
    }
}

fn row(kind: RowKind, old: Option<usize>, new: Option<usize>) -> DiffRow {
    DiffRow { kind, old, new, reason: None }
}

/// Aligns `old` and `new` line by line.
pub fn diff_lines(old: &[&str], new: &[&str]) -> LineDiff {
    if old.len() > MAX_LINES || new.len() > MAX_LINES {
        let why = format!(
            "{} and {} lines: more than {MAX_LINES} on a side, shown side by side without alignment",
            old.len(),
            new.len()
        );
        return side_by_side(old, new, why);
    }
    let Some(script) = myers(old, new, MAX_EDITS) else {
        let why = format!("more than {MAX_EDITS} lines differ: shown side by side without alignment");
        return side_by_side(old, new, why);
    };
    let mut rows = Vec::new();
    let (mut dels, mut ins) = (Vec::new(), Vec::new());
    for op in script {
        match op {
            Op::Keep(a, b) => {
                pair_run(old, new, &dels, &ins, &mut rows);
                dels.clear();
                ins.clear();
                rows.push(row(RowKind::Same, Some(a), Some(b)));
            }
            Op::Del(a) => dels.push(a),
            Op::Ins(b) => ins.push(b),
        }
    }
    pair_run(old, new, &dels, &ins, &mut rows);
    LineDiff { rows, fallback: None }
}

/// Line `i` of `old` beside line `i` of `new`, no alignment.
fn side_by_side(old: &[&str], new: &[&str], why: String) -> LineDiff {
    let rows = (0..old.len().max(new.len()))
        .map(|i| match (old.get(i), new.get(i)) {
            (Some(a), Some(b)) => row(if a == b { RowKind::Same } else { RowKind::Changed }, Some(i), Some(i)),
            (Some(_), None) => row(RowKind::Removed, Some(i), None),
            _ => row(RowKind::Added, None, Some(i)),
        })
        .collect();
    LineDiff { rows, fallback: Some(why) }
}

/// One step of an edit script: keep (old, new), delete old, insert new.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Op {
    Keep(usize, usize),
    Del(usize),
    Ins(usize),
}

/// Myers' greedy shortest edit script from `a` to `b`, or `None` beyond `max_d` edits. Keeps the
/// furthest x of each diagonal k = x − y for every d (only k ∈ −d..=d, so O(d²) memory).
fn myers<T: PartialEq>(a: &[T], b: &[T], max_d: usize) -> Option<Vec<Op>> {
    let (n, m) = (a.len() as isize, b.len() as isize);
    let max_d = max_d.min(a.len() + b.len()) as isize;
    let off = max_d + 1;
    let mut v = alloc::vec![0isize; 2 * off as usize + 1];
    let mut trace: Vec<Vec<isize>> = Vec::new();
    for d in 0..=max_d {
        let mut xs = Vec::with_capacity(d as usize + 1);
        for k in (-d..=d).step_by(2) {
            let at = |k: isize| v.get((k + off) as usize).copied().unwrap_or(0);
            let mut x = if k == -d || (k != d && at(k - 1) < at(k + 1)) { at(k + 1) } else { at(k - 1) + 1 };
            let mut y = x - k;
            while x < n && y < m && a.get(x as usize) == b.get(y as usize) {
                x += 1;
                y += 1;
            }
            if let Some(slot) = v.get_mut((k + off) as usize) {
                *slot = x;
            }
            xs.push(x);
            if x >= n && y >= m {
                trace.push(xs);
                return Some(backtrack(&trace, n, m));
            }
        }
        trace.push(xs);
    }
    None
}

/// The edit script from the furthest-x rows `trace` (row d: k = −d, −d+2, …, d).
fn backtrack(trace: &[Vec<isize>], n: isize, m: isize) -> Vec<Op> {
    let (mut x, mut y) = (n, m);
    let mut ops = Vec::new();
    for d in (1..trace.len() as isize).rev() {
        let prev = trace.get(d as usize - 1).map_or(&[][..], |r| r.as_slice());
        let at = |k: isize| prev.get(((k + d - 1) / 2) as usize).copied().unwrap_or(0);
        let k = x - y;
        let down = k == -d || (k != d && at(k - 1) < at(k + 1));
        let pk = if down { k + 1 } else { k - 1 };
        let (px, py) = (at(pk), at(pk) - pk);
        let (sx, sy) = if down { (px, py + 1) } else { (px + 1, py) };
        while x > sx && y > sy {
            x -= 1;
            y -= 1;
            ops.push(Op::Keep(x as usize, y as usize));
        }
        ops.push(if down { Op::Ins(py as usize) } else { Op::Del(px as usize) });
        (x, y) = (px, py);
    }
    while x > 0 && y > 0 {
        x -= 1;
        y -= 1;
        ops.push(Op::Keep(x as usize, y as usize));
    }
    ops.reverse();
    ops
}

/// The first word of a line, after a guard (`@%p1 add.s32 …` → `add.s32`).
fn opcode_key(line: &str) -> &str {
    let mut words = line.split_whitespace();
    let first = words.next().unwrap_or("");
    if first.starts_with('@') {
        words.next().unwrap_or("")
    } else {
        first
    }
}

/// An opcode key that also matches either half of a fused opcode (`shl.b32_add.s32` matches
/// `shl.b32` and `add.s32`: the composite-instruction text form).
#[derive(Clone, Copy)]
struct Key<'a>(&'a str);

impl PartialEq for Key<'_> {
    fn eq(&self, other: &Self) -> bool {
        let half = |fused: &str, k: &str| fused.split_once('_').is_some_and(|(a, b)| a == k || b == k);
        self.0 == other.0 || half(self.0, other.0) || half(other.0, self.0)
    }
}

/// Rows for one run of removed lines `dels` and added lines `ins` (see the module notes).
fn pair_run(old: &[&str], new: &[&str], dels: &[usize], ins: &[usize], rows: &mut Vec<DiffRow>) {
    let key_old: Vec<Key> = dels.iter().map(|&i| Key(opcode_key(old.get(i).copied().unwrap_or("")))).collect();
    let key_new: Vec<Key> = ins.iter().map(|&i| Key(opcode_key(new.get(i).copied().unwrap_or("")))).collect();
    let mut pairs: Vec<(usize, usize)> = if dels.len().saturating_mul(ins.len()) <= MAX_PAIRING_CELLS {
        let script = myers(&key_old, &key_new, dels.len() + ins.len()).unwrap_or_default();
        script.into_iter().filter_map(|op| if let Op::Keep(a, b) = op { Some((a, b)) } else { None }).collect()
    } else {
        Vec::new()
    };
    if pairs.is_empty() && dels.len() == ins.len() {
        pairs = (0..dels.len()).map(|i| (i, i)).collect();
    }
    let (mut i, mut j) = (0, 0);
    for (a, b) in pairs.into_iter().chain(core::iter::once((dels.len(), ins.len()))) {
        for &d in dels.get(i..a).unwrap_or(&[]) {
            rows.push(row(RowKind::Removed, Some(d), None));
        }
        for &n in ins.get(j..b).unwrap_or(&[]) {
            rows.push(row(RowKind::Added, None, Some(n)));
        }
        if let (Some(&d), Some(&n)) = (dels.get(a), ins.get(b)) {
            rows.push(row(RowKind::Changed, Some(d), Some(n)));
        }
        (i, j) = (a + 1, b + 1);
    }
}
