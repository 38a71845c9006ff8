//! One warp's recorded instruction stream, stored compactly for replay: the timing model reads
//! the streams of every resident warp (hundreds of them, each CTA's recorded long before it is
//! replayed), so their size decides how much of the replay waits on host memory.
//!
//! ```text
//! executed: sid 4 5 6 7 (all lanes) · sid 8 ld.shared (lanes 0-31, 0x40 + 4·lane) · sid 9 10 · sid 4 …
//! runs:     {sid 4, len 7, lanes ffffffff} {sid 4, …}      // straight-line stretches, 12 bytes each
//! accesses: {at 4, shape 0, base 0x40}                      // one per memory instruction, 16 bytes
//! shapes:   [{shared, 4 bytes, affine sx 4 sy 0 w 32}]      // shared by the warp's accesses
//! ```
//!
//! A run is a stretch of consecutive static ids executed by the same lanes; a loop body with no
//! divergence is one run per iteration. Each memory instruction (one with a resolved state space)
//! has an access record naming its position in the stream, its shape (space, bytes per lane,
//! address form and strides) and its base; per-lane address lists are kept only for accesses that
//! fit no affine form. [`WarpStream::decode`] turns position `pc` back into a [`DynInst`] with a
//! [`Cursor`] that only moves forward, so replay reads each array once, front to back.

use alloc::vec::Vec;

use serde::{Deserialize, Serialize};

mod window;

use crate::timing::stream::trace::{DynInst, LaneAddrs, LaneMask, MemSpace, MAX_LANES};
use crate::timing::stream::values::{StreamValues, ValueSummary};

/// Consecutive static ids `sid, sid + 1, …` (`len` of them) executed by `executed`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Run {
    /// Static id of the first instruction.
    pub sid: u32,
    /// Lanes active in the SIMT stack whose guard held, for every instruction of the run.
    pub executed: LaneMask,
    /// Instructions in the run.
    pub len: u32,
}

/// How an access's per-lane addresses are stored.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum AddrForm {
    /// One address per executed lane, in lane order, from the access's `base` index in
    /// [`WarpStream::addresses`].
    #[default]
    List,
    /// Lane `l` accesses `base + sx × (l mod w) + sy × (l div w)` (`w` a power of two ≤ 64) — how
    /// a warp of a 1-D or 2-D thread block walks an array.
    Affine {
        /// Stride between lanes of a row.
        sx: u64,
        /// Stride between rows.
        sy: u64,
        /// Lanes per row.
        w: u64,
    },
}

/// What the accesses of a warp have in common: space, width and address form.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct AccessShape {
    /// The space accessed.
    pub space: MemSpace,
    /// Bytes per lane.
    pub bytes: u16,
    /// How the addresses are stored.
    pub form: AddrForm,
}

/// One memory instruction's access.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct AccessRecord {
    /// Its position in the stream.
    pub at: u32,
    /// Index into [`WarpStream::shapes`] (low [`SHAPE_BITS`] bits) and the code of its space
    /// ([`MemSpace::code`], the bits above): decoding learns the space from the record alone.
    shape_space: u32,
    /// Affine: lane 0's address; list: the first address's index in [`WarpStream::addresses`].
    pub base: u64,
}

/// Bits of [`AccessRecord::shape_space`] that index the shapes.
const SHAPE_BITS: u32 = 29;

impl AccessRecord {
    /// Index into [`WarpStream::shapes`].
    pub fn shape(&self) -> usize {
        (self.shape_space & ((1 << SHAPE_BITS) - 1)) as usize
    }

    /// The space accessed (a copy of its shape's).
    pub fn space(&self) -> MemSpace {
        MemSpace::ALL.get((self.shape_space >> SHAPE_BITS) as usize).copied().unwrap_or(MemSpace::Global)
    }
}

/// A memory instruction's access as the memory model takes it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StreamAccess<'a> {
    /// The space accessed.
    pub space: MemSpace,
    /// Bytes per lane.
    pub bytes: u16,
    /// The executed lanes' addresses.
    pub addrs: LaneAddrs<'a>,
}

/// Where a replay is in a stream (see [`WarpStream::decode`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Cursor {
    run: u32,
    run_start: u32,
    access: u32,
    /// A copy of the current run (`run_end` = `run_start` + its length; 0: nothing decoded yet)
    /// and of the position of access record `access` (`u32::MAX`: none left), so that the next
    /// positions of a run decode from the cursor alone, without touching the stream.
    sid: u32,
    executed: LaneMask,
    run_end: u32,
    access_at: u32,
    access_space: Option<MemSpace>,
}

impl Cursor {
    /// The instruction at `pc` if the cursor alone knows it: `pc` lies in the current run and
    /// not past the next access record.
    #[inline]
    pub fn cached(&self, pc: u32) -> Option<DynInst> {
        if pc < self.run_start || pc >= self.run_end || pc > self.access_at {
            return None;
        }
        let (access, space) = if pc == self.access_at { (self.access, self.access_space) } else { (NO_ACCESS, None) };
        Some(DynInst { sid: self.sid.wrapping_add(pc - self.run_start), executed: self.executed, access, space })
    }
}

/// No access record (see [`DynInst::access`]).
pub const NO_ACCESS: u32 = u32::MAX;

/// Shapes searched for a match before a new one is added (recent ones; a repeat is harmless).
const SHAPE_SEARCH: usize = 16;

/// What a window has dropped from its front (see [`WarpStream::trim`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
struct Window {
    start: u32,
    run: u32,
    access: u32,
    addr: u64,
}

impl Window {
    fn is_zero(&self) -> bool {
        *self == Window::default()
    }
}

/// One warp's dynamic instruction stream in one CTA.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct WarpStream {
    runs: Vec<Run>,
    accesses: Vec<AccessRecord>,
    shapes: Vec<AccessShape>,
    addresses: Vec<u64>,
    len: u32,
    /// A window ([`WarpStream::append`], [`WarpStream::trim`]): what was dropped from the front —
    /// the position of the first instruction kept and the absolute indices of the first run,
    /// access record and address kept (all 0 for a whole stream).
    #[serde(default, skip_serializing_if = "Window::is_zero")]
    window: Window,
    /// Value summaries (only when a scheme asked for values).
    #[serde(default, skip_serializing_if = "StreamValues::is_empty")]
    values: StreamValues,
}

impl WarpStream {
    /// An empty stream.
    pub fn new() -> Self {
        WarpStream::default()
    }

    /// A stream of instructions without memory accesses: `(sid, executed)` in execution order
    /// (32-lane masks).
    pub fn from_plain(insts: impl IntoIterator<Item = (u32, u32)>) -> Self {
        let mut w = WarpStream::new();
        for (sid, executed) in insts {
            w.push(sid, LaneMask::from(executed));
        }
        w
    }

    /// Instructions in the stream (for a window: the position after its last instruction).
    pub fn len(&self) -> u32 {
        self.len
    }

    /// An empty stream whose first instruction will be at position `start`: a chunk of a
    /// stream produced piece by piece, for [`WarpStream::append`].
    pub fn starting_at(start: u32) -> Self {
        WarpStream { len: start, window: Window { start, ..Window::default() }, ..WarpStream::default() }
    }

    /// The position of the first instruction kept (0 unless a window was trimmed or this is a
    /// chunk).
    pub fn start(&self) -> u32 {
        self.window.start
    }

    /// A cursor at the first instruction kept.
    pub fn start_cursor(&self) -> Cursor {
        Cursor { run: self.window.run, run_start: self.window.start, access: self.window.access, ..Cursor::default() }
    }

    /// Instructions held (runs, access records, addresses and value units: a memory measure).
    pub fn held(&self) -> u64 {
        u64::from(self.len - self.window.start)
    }

    /// True for an empty stream.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The runs, in order.
    pub fn runs(&self) -> &[Run] {
        &self.runs
    }

    /// Records the value summaries of the instruction pushed last (one per register unit it
    /// wrote; see [`crate::exec::value_summary`]).
    pub fn push_values(&mut self, units: &[ValueSummary]) -> Result<(), &'static str> {
        let at = self.len.checked_sub(1).ok_or("value summaries before any instruction")?;
        self.values.push(at, units)
    }

    /// The value summaries of the instruction at position `pc` (empty when it wrote no register
    /// or values were not recorded). A binary search: for schemes that model values, not for
    /// the replay of every instruction.
    pub fn values_at(&self, pc: u32) -> &[ValueSummary] {
        self.values.at(pc)
    }

    /// The value summaries of every instruction that has them, in position order: `(position,
    /// summaries)`.
    pub fn value_entries(&self) -> impl Iterator<Item = (u32, &[ValueSummary])> + '_ {
        self.values.entries()
    }

    /// True when the stream carries value summaries.
    pub fn has_values(&self) -> bool {
        !self.values.is_empty()
    }

    /// Appends an instruction without a memory access.
    pub fn push(&mut self, sid: u32, executed: LaneMask) {
        match self.runs.last_mut() {
            Some(r) if r.executed == executed && r.sid.checked_add(r.len) == Some(sid) => r.len += 1,
            _ => self.runs.push(Run { sid, executed, len: 1 }),
        }
        self.len += 1;
    }

    /// Appends a memory instruction that accessed `space`, `bytes` per lane, at `lanes` (one
    /// address per lane of `executed`, lane order). Fails when the stream outgrows 32-bit
    /// indices.
    pub fn push_access(
        &mut self,
        sid: u32,
        executed: LaneMask,
        space: MemSpace,
        bytes: u16,
        lanes: &[u64],
    ) -> Result<(), &'static str> {
        let at = self.len;
        let (form, base) = match compact(lanes, executed) {
            Some((base, sx, sy, w)) => (AddrForm::Affine { sx, sy, w }, base),
            None => {
                let start = self.addresses.len() as u64 + self.window.addr;
                self.addresses.extend_from_slice(lanes);
                (AddrForm::List, start)
            }
        };
        let shape = AccessShape { space, bytes, form };
        let found = self.shapes.iter().enumerate().rev().take(SHAPE_SEARCH).find(|(_, s)| **s == shape);
        let index = match found {
            Some((i, _)) => i,
            None => {
                self.shapes.push(shape);
                self.shapes.len() - 1
            }
        };
        let shape =
            u32::try_from(index).ok().filter(|&i| i < 1 << SHAPE_BITS).ok_or("too many access shapes in a warp")?;
        if self.len == u32::MAX {
            return Err("too many instructions in a warp");
        }
        self.accesses.push(AccessRecord { at, shape_space: shape | space.code() << SHAPE_BITS, base });
        self.push(sid, executed);
        Ok(())
    }

    /// The instruction at position `pc`, found from `cursor` (which must not have passed `pc`:
    /// positions are decoded in increasing order, each any number of times). Past the end: the
    /// default instruction.
    pub fn decode(&self, pc: u32, cursor: &mut Cursor) -> DynInst {
        let mut run = cursor.run as usize;
        let mut start = cursor.run_start;
        let r = loop {
            let Some(r) = self.runs.get(run.wrapping_sub(self.window.run as usize)) else { return DynInst::default() };
            if pc < start.saturating_add(r.len) {
                break *r;
            }
            start += r.len;
            run += 1;
        };
        let mut a = cursor.access as usize;
        let ab = self.window.access as usize;
        while self.accesses.get(a.wrapping_sub(ab)).is_some_and(|x| x.at < pc) {
            a += 1;
        }
        let next = self.accesses.get(a.wrapping_sub(ab));
        let (access_at, access_space) = next.map_or((u32::MAX, None), |x| (x.at, Some(x.space())));
        *cursor = Cursor {
            run: run as u32,
            run_start: start,
            access: a as u32,
            sid: r.sid,
            executed: r.executed,
            run_end: start.saturating_add(r.len),
            access_at,
            access_space,
        };
        // The cursor now covers `pc` (it lies in run `run`, not past record `a`).
        cursor.cached(pc).unwrap_or_default()
    }

    /// The memory access of `d` (decoded from this stream), if it has one.
    pub fn access(&self, d: &DynInst) -> Option<StreamAccess<'_>> {
        let rec = self.accesses.get((d.access.wrapping_sub(self.window.access)) as usize)?;
        let shape = self.shapes.get(rec.shape())?;
        let addrs = match shape.form {
            AddrForm::List => {
                let a = rec.base.wrapping_sub(self.window.addr) as usize;
                LaneAddrs::List(self.addresses.get(a..a + d.executed.count_ones() as usize).unwrap_or(&[]))
            }
            AddrForm::Affine { sx, sy, w } => LaneAddrs::Affine { base: rec.base, sx, sy, w, executed: d.executed },
        };
        Some(StreamAccess { space: shape.space, bytes: shape.bytes, addrs })
    }

    /// Every instruction in order (slow: checks and statistics, not replay).
    pub fn iter(&self) -> impl Iterator<Item = DynInst> + '_ {
        let mut cursor = self.start_cursor();
        (self.window.start..self.len).map(move |pc| self.decode(pc, &mut cursor))
    }

    /// Checks static ids against `program_len` and every access record against the stream, so
    /// that replay can index without further checks; the message names the first problem.
    pub fn validate(&self, program_len: usize) -> Result<(), alloc::string::String> {
        let mut pc = u64::from(self.window.start);
        let mut a = 0usize;
        for r in &self.runs {
            if r.len == 0 || u64::from(r.sid) + u64::from(r.len) > program_len as u64 {
                return Err(alloc::format!("instruction {pc}: static id {} out of range", r.sid));
            }
            let end = pc + u64::from(r.len);
            while let Some(rec) = self.accesses.get(a).filter(|x| u64::from(x.at) < end) {
                let shape = self.shapes.get(rec.shape());
                let list_end =
                    rec.base.wrapping_sub(self.window.addr).saturating_add(u64::from(r.executed.count_ones()));
                let bad = u64::from(rec.at) < pc
                    || match shape {
                        None => true,
                        Some(s) => s.form == AddrForm::List && list_end > self.addresses.len() as u64,
                    };
                if bad {
                    return Err(alloc::format!("instruction {}: memory access record out of range", rec.at));
                }
                pc = u64::from(rec.at) + 1;
                a += 1;
            }
            pc = end;
        }
        if pc != u64::from(self.len) || a != self.accesses.len() {
            return Err(alloc::format!("{} instructions recorded for a length of {}", pc, self.len));
        }
        self.values.validate(self.len)
    }
}

/// `(base, sx, sy, w)` if the addresses of an instruction (one per lane of `executed`, lane
/// order) fit an affine form — over the whole warp, or in rows of 16 or 8 lanes as 2-D thread
/// blocks of those widths lay them out (a 64-lane wavefront over a 1-D array is two rows of 32).
fn compact(lanes: &[u64], executed: LaneMask) -> Option<(u64, u64, u64, u64)> {
    if executed.count_ones() as usize != lanes.len() || lanes.is_empty() {
        return None;
    }
    // The common case, lanes 0..n all executed: lane numbers are positions (same result as `fit`).
    let dense = executed == LaneMask::MAX >> (MAX_LANES - lanes.len());
    [32u64, 16, 8].into_iter().find_map(|w| {
        let fitted = if dense { fit_dense(lanes, w) } else { fit(lanes, executed, w) };
        fitted.map(|[base, sx, sy]| (base, sx, sy, w))
    })
}

/// [`fit`] for lanes `0..lanes.len()`: the strides are lane 1's and lane `w`'s differences;
/// each row of `w` lanes starts `sy` after the one before and steps by `sx` (additions only,
/// stopping at the first lane that does not fit).
fn fit_dense(lanes: &[u64], w: u64) -> Option<[u64; 3]> {
    let base = *lanes.first()?;
    let sx = lanes.get(1).map_or(0, |a| a.wrapping_sub(base));
    let sy = lanes.get(w as usize).map_or(0, |a| a.wrapping_sub(base));
    let mut row_start = base;
    for row in lanes.chunks(w as usize) {
        let mut at = row_start;
        for &a in row {
            if a != at {
                return None;
            }
            at = at.wrapping_add(sx);
        }
        row_start = row_start.wrapping_add(sy);
    }
    Some([base, sx, sy])
}

/// `[base, sx, sy]` with `address(l) = base + sx·(l mod w) + sy·(l div w)` for every executed
/// lane, if there is one (strides taken from the first lanes that determine them).
fn fit(lanes: &[u64], executed: LaneMask, w: u64) -> Option<[u64; 3]> {
    let (shift, mask) = (w.trailing_zeros(), w - 1);
    let (col, row) = (move |l: u64| l & mask, move |l: u64| l >> shift);
    // The executed lanes in increasing order, each with its address (one pass over the set bits).
    let pairs = || {
        let mut rest = executed;
        lanes.iter().copied().map_while(move |a| {
            (rest != 0).then(|| {
                let l = u64::from(rest.trailing_zeros());
                rest &= rest - 1;
                (l, a)
            })
        })
    };
    let (l0, a0) = pairs().next()?;
    let (x0, y0) = (col(l0), row(l0));
    // The strides come from the first lane after l0 in its row and the first lane in another row
    // (one scan finds both: lanes of l0's row come before any later row).
    let (mut sx, mut sy) = (None, None);
    for (l, a) in pairs().skip(1) {
        if row(l) == y0 {
            if sx.is_none() {
                sx = Some(a.wrapping_sub(a0).checked_div(col(l) - x0)?);
            }
        } else {
            let sx = *sx.get_or_insert(0);
            sy = Some(a.wrapping_sub(a0).wrapping_sub(sx.wrapping_mul(col(l).wrapping_sub(x0))) / (row(l) - y0));
            break;
        }
    }
    let (sx, sy) = (sx.unwrap_or(0), sy.unwrap_or(0));
    let base = a0.wrapping_sub(sx.wrapping_mul(x0)).wrapping_sub(sy.wrapping_mul(y0));
    let at = |l: u64| base.wrapping_add(sx.wrapping_mul(col(l))).wrapping_add(sy.wrapping_mul(row(l)));
    pairs().all(|(l, a)| at(l) == a).then_some([base, sx, sy])
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::vec;

    /// All 32 lanes of a warp.
    const WARP: LaneMask = 0xffff_ffff;

    #[test]
    fn straight_line_code_is_one_run_and_loops_start_new_ones() {
        let w = WarpStream::from_plain([(4, !0), (5, !0), (6, !0), (4, !0), (5, 0xffff), (6, 0xffff)]);
        assert_eq!(w.len(), 6);
        let runs: Vec<(u32, u32, u64)> = w.runs().iter().map(|r| (r.sid, r.len, r.executed)).collect();
        assert_eq!(runs, vec![(4, 3, WARP), (4, 1, WARP), (5, 2, 0xffff)]);
        let sids: Vec<(u32, u64)> = w.iter().map(|d| (d.sid, d.executed)).collect();
        assert_eq!(sids, vec![(4, WARP), (5, WARP), (6, WARP), (4, WARP), (5, 0xffff), (6, 0xffff)]);
    }

    #[test]
    fn accesses_round_trip_in_affine_and_list_form() {
        let mut w = WarpStream::new();
        w.push(0, WARP);
        let affine: Vec<u64> = (0..32).map(|l| 0x100 + 4 * (l % 16) + 256 * (l / 16)).collect();
        assert_eq!(w.push_access(1, WARP, MemSpace::Global, 4, &affine), Ok(()));
        let scattered = [7u64, 3, 90];
        assert_eq!(w.push_access(2, 0b1011, MemSpace::Shared, 8, &scattered), Ok(()));
        assert_eq!(w.push_access(1, WARP, MemSpace::Global, 4, &affine), Ok(()));
        assert_eq!(w.validate(3), Ok(()));
        assert_eq!(w.shapes.len(), 2, "the repeated shape is shared");
        let insts: Vec<DynInst> = w.iter().collect();
        assert_eq!(insts[0].access, NO_ACCESS);
        let mut buf = [0u64; MAX_LANES];
        let a = w.access(&insts[1]).map(|a| (a.space, a.bytes, a.addrs.expand(&mut buf).to_vec()));
        assert_eq!(a, Some((MemSpace::Global, 4, affine.clone())));
        assert!(matches!(w.access(&insts[1]).map(|a| a.addrs), Some(LaneAddrs::Affine { w: 16, sx: 4, sy: 256, .. })));
        let b = w.access(&insts[2]).map(|a| (a.space, a.bytes, a.addrs.expand(&mut buf).to_vec()));
        assert_eq!(b, Some((MemSpace::Shared, 8, scattered.to_vec())));
        assert_eq!(w.access(&insts[3]).map(|a| a.addrs.expand(&mut buf).to_vec()), Some(affine));
    }

    #[test]
    fn decoding_may_repeat_a_position_and_skip_ahead() {
        let mut w = WarpStream::from_plain([(0, !0), (1, !0)]);
        assert_eq!(w.push_access(2, 1, MemSpace::Local, 4, &[64]), Ok(()));
        w.push(3, WARP);
        let mut c = Cursor::default();
        assert_eq!(w.decode(0, &mut c).sid, 0);
        assert_eq!(w.decode(0, &mut c).sid, 0);
        let d = w.decode(2, &mut c);
        assert_eq!((d.sid, d.executed, d.access), (2, 1, 0));
        assert_eq!(w.decode(2, &mut c).access, 0);
        assert_eq!(w.decode(3, &mut c).access, NO_ACCESS);
        assert_eq!(w.decode(4, &mut c), DynInst::default());
    }

    #[test]
    fn every_space_survives_the_record_and_reaches_the_decoded_instruction() {
        assert!(MemSpace::ALL.iter().enumerate().all(|(i, s)| s.code() as usize == i));
        let mut w = WarpStream::new();
        for (sid, &space) in MemSpace::ALL.iter().enumerate() {
            assert_eq!(w.push_access(sid as u32, 1, space, 4, &[8 * sid as u64]), Ok(()));
        }
        w.push(9, 1);
        let spaces: Vec<Option<MemSpace>> = w.iter().map(|d| d.space).collect();
        let expected: Vec<Option<MemSpace>> = MemSpace::ALL.iter().copied().map(Some).chain([None]).collect();
        assert_eq!(spaces, expected);
        let insts: Vec<DynInst> = w.iter().collect();
        assert!(insts.iter().take(5).all(|d| w.access(d).map(|a| Some(a.space)) == Some(d.space)));
    }

    #[test]
    fn the_cursor_alone_decodes_within_a_run_up_to_the_next_access() {
        let mut w = WarpStream::from_plain([(0, !0), (1, !0), (2, !0)]);
        assert_eq!(w.push_access(3, WARP, MemSpace::Shared, 4, &[0; 32]), Ok(()));
        w.push(4, WARP);
        w.push(0, 0xff);
        w.push(1, 0xff);
        let mut c = Cursor::default();
        assert_eq!(c.cached(0), None, "nothing decoded yet");
        let mut served = 0;
        for pc in 0..w.len() {
            let from_cursor = c.cached(pc);
            let decoded = w.decode(pc, &mut c);
            if let Some(d) = from_cursor {
                assert_eq!(d, decoded, "position {pc}");
                served += 1;
            }
            // Asking again for the position just decoded needs no stream.
            assert_eq!(c.cached(pc), Some(decoded));
        }
        // 1, 2 and 3 (the access) follow 0; past the access (4) the next record is read; 6
        // follows 5 in the second run.
        assert_eq!(served, 4);
    }

    /// `fit_dense` is `fit` for lanes 0..n: the same answer on affine, 2-D, broadcast, partial
    /// and scattered address lists of every warp width.
    #[test]
    fn the_dense_fit_agrees_with_the_general_one() {
        let patterns: [fn(u64) -> u64; 6] = [
            |l| 0x1000 + 4 * l,
            |l| 0x100 + 4 * (l % 16) + 256 * (l / 16),
            |l| 64 + 8 * (l % 8) + 1000 * (l / 8),
            |_| 77,
            |l| 4 * l * l,
            |l| 0u64.wrapping_sub(4 * l),
        ];
        for f in patterns {
            for n in [1usize, 2, 7, 8, 9, 16, 17, 31, 32, 33, 64] {
                let lanes: Vec<u64> = (0..n as u64).map(f).collect();
                let executed = LaneMask::MAX >> (MAX_LANES - n);
                for w in [32u64, 16, 8] {
                    assert_eq!(fit_dense(&lanes, w), fit(&lanes, executed, w), "n {n} w {w} {lanes:?}");
                }
            }
        }
    }

    #[test]
    fn validation_rejects_ids_beyond_the_program() {
        let w = WarpStream::from_plain([(0, !0), (1, !0), (2, !0)]);
        assert_eq!(w.validate(3), Ok(()));
        assert!(w.validate(2).is_err_and(|e| e.contains("static id")));
    }
}
