//! Value statistics from the dynamic streams (Wyse §4; SCHEMES.md §1): how many times each
//! produced register value is read before it is overwritten or its warp ends (histogram 0, 1, 2,
//! more than 2), and for each read, how many dynamic instructions of the same warp separate it
//! from its producer (a CDF). A value is one write of one register (a 64-bit register is one
//! value); predicates are not counted (their own file); an instruction whose guard held in no
//! lane neither reads nor writes; a source named twice in one instruction is one read.
//!
//! ```text
//! add %r3, %r1, %r2   // i = 10: value v = (%r3, 10)
//! mul %r4, %r3, %r3   // i = 11: v read once, distance 1
//! st [%rd1], %r3      // i = 12: v read again, distance 2 → v has 2 reads when %r3 is next written
//! ```
//!
//! When the functional run recorded value summaries ([`crate::timing::TimingOptions::values`], or
//! a scheme that models values), the streams also give Gilani's statistics (Fig. 1): the share of
//! register-writing instructions whose result is the same in every executed lane, and the share
//! of integer register values that fit 16 bits ([`ValueReport::lane_values`]; definitions in
//! [`crate::timing::regfile::gilani_values::ValueCounts`]).
//!
//! The figures do not depend on the register-file scheme: they are computed once per CTA as the
//! streams arrive (from the original kernel's instructions) and appear in every scheme's report.

use alloc::vec;
use alloc::vec::Vec;

use serde::{Deserialize, Serialize};

use crate::timing::program::Program;
use crate::timing::regfile::gilani_values::ValueCounts;
use crate::timing::stream::trace::WarpStream;

/// Distances up to this many instructions are kept exactly; larger ones share one bucket.
pub const MAX_DISTANCE: usize = 64;

/// Produced values by how often they were read.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReadsPerValue {
    /// Values never read.
    pub zero: u64,
    /// Values read exactly once.
    pub one: u64,
    /// Values read twice.
    pub two: u64,
    /// Values read more than twice.
    pub more_than_two: u64,
}

impl ReadsPerValue {
    /// All values.
    pub fn total(&self) -> u64 {
        self.zero + self.one + self.two + self.more_than_two
    }

    /// Counts a value read `reads` times (it was overwritten, or its warp ended).
    fn count(&mut self, reads: u32) {
        match reads {
            0 => self.zero += 1,
            1 => self.one += 1,
            2 => self.two += 1,
            _ => self.more_than_two += 1,
        }
    }

    /// Adds another histogram.
    pub fn merge(&mut self, o: &ReadsPerValue) {
        self.zero += o.zero;
        self.one += o.one;
        self.two += o.two;
        self.more_than_two += o.more_than_two;
    }
}

/// One point of the distance CDF.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct CdfPoint {
    /// Producer→consumer distance in dynamic instructions of the warp.
    pub distance: u32,
    /// Fraction of reads (of produced values) at this distance or closer, 0 to 1.
    pub cumulative_fraction: f64,
}

/// The value statistics of a run.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ValueReport {
    /// Values by number of reads.
    pub reads_per_value: ReadsPerValue,
    /// Reads of produced values (the CDF's denominator).
    pub reads: u64,
    /// CDF of producer→consumer distance for distances 1..=64 (the rest are farther).
    pub distance_cdf: Vec<CdfPoint>,
    /// Gilani's value statistics of the original kernel, when the run recorded value summaries.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lane_values: Option<ValueCounts>,
}

impl ValueReport {
    /// The histogram of reads per value.
    pub fn reading_counts(&self) -> ReadsPerValue {
        self.reads_per_value
    }
}

/// A warp's values still open between the pieces of its stream ([`ValueStats::add_piece`]).
#[derive(Clone, Debug, Default)]
pub struct PieceState {
    now: u64,
    /// (unit, instruction number of its last write, reads since).
    open: Vec<(u32, u64, u32)>,
}

/// Accumulates value statistics warp by warp.
#[derive(Clone, Debug, Default)]
pub struct ValueStats {
    hist: ReadsPerValue,
    distances: Vec<u64>,
    def_at: Vec<u64>,
    reads: Vec<u32>,
    touched: Vec<u32>,
    /// Per static id: whether it writes integers (empty, or an id past the end: integer).
    integer: Vec<bool>,
    /// Gilani's counts; `None` until a stream with value summaries arrives.
    lane: Option<ValueCounts>,
    /// The units each instruction reads and writes that count as values (the first unit of a
    /// register, within the program's units), listed once per program ([`Heads::of`]).
    heads: Heads,
}

/// Per static id, the register units of [`Program::rf_reads_of`] and [`Program::rf_writes_of`]
/// that are value heads ([`Program::value_head`]), in operand order: `units[at[sid]..]` holds
/// `reads[sid]` reads, then the writes up to `at[sid + 1]`.
#[derive(Clone, Debug, Default)]
struct Heads {
    at: Vec<u32>,
    reads: Vec<u16>,
    units: Vec<u32>,
}

impl Heads {
    fn of(program: &Program) -> Heads {
        let n = program.insts.len();
        let mut h = Heads { at: Vec::with_capacity(n + 1), reads: Vec::with_capacity(n), units: Vec::new() };
        let counted = |u: &&u32| **u < program.units && program.value_head.get(**u as usize).copied().unwrap_or(false);
        for st in &program.insts {
            h.at.push(h.units.len() as u32);
            let before = h.units.len();
            h.units.extend(program.rf_reads_of(st).iter().filter(counted));
            h.reads.push((h.units.len() - before) as u16);
            h.units.extend(program.rf_writes_of(st).iter().filter(counted));
        }
        h.at.push(h.units.len() as u32);
        h
    }

    /// The counted reads and writes of instruction `sid`.
    fn get(&self, sid: u32) -> (&[u32], &[u32]) {
        let i = sid as usize;
        let (Some(&a), Some(&b), Some(&r)) = (self.at.get(i), self.at.get(i + 1), self.reads.get(i)) else {
            return (&[], &[]);
        };
        let ops = self.units.get(a as usize..b as usize).unwrap_or(&[]);
        ops.split_at(usize::from(r).min(ops.len()))
    }
}

impl ValueStats {
    /// Statistics for `program`'s registers.
    pub fn new(program: &Program) -> Self {
        ValueStats {
            hist: ReadsPerValue::default(),
            distances: vec![0; MAX_DISTANCE + 2],
            def_at: vec![0; program.units as usize],
            reads: vec![0; program.units as usize],
            touched: Vec::new(),
            integer: Vec::new(),
            lane: None,
            heads: Heads::of(program),
        }
    }

    /// The table of which static ids write integers
    /// ([`crate::timing::regfile::gilani_int::integer_results`]), for the 16-bit share.
    pub fn set_integer(&mut self, table: Vec<bool>) {
        self.integer = table;
    }

    /// Counts the value summaries `warp` carries (none: nothing).
    fn add_lane_values(&mut self, warp: &WarpStream) {
        if !warp.has_values() {
            return;
        }
        let lane = self.lane.get_or_insert_with(ValueCounts::default);
        let mut entries = warp.value_entries().peekable();
        let mut pos = warp.start();
        for run in warp.runs() {
            let end = pos.saturating_add(run.len);
            while let Some((p, units)) = entries.next_if(|&(p, _)| p < end) {
                if p >= pos {
                    let sid = run.sid.wrapping_add(p - pos);
                    lane.count(units, self.integer.get(sid as usize).copied().unwrap_or(true));
                }
            }
            pos = end;
        }
    }

    /// Adds one warp's stream.
    pub fn add_warp(&mut self, warp: &WarpStream) {
        self.add_lane_values(warp);
        self.add_instructions(warp, 0);
        self.close_warp();
    }

    /// Adds a piece of a warp's stream that arrives in pieces: `state` carries the warp's open
    /// values from one piece to the next; `last`: the warp ends with this piece.
    pub fn add_piece(&mut self, piece: &WarpStream, state: &mut PieceState, last: bool) {
        for &(u, def, reads) in &state.open {
            if let (Some(d), Some(r)) = (self.def_at.get_mut(u as usize), self.reads.get_mut(u as usize)) {
                *d = def;
                *r = reads;
                self.touched.push(u);
            }
        }
        state.open.clear();
        self.add_lane_values(piece);
        state.now = self.add_instructions(piece, state.now);
        if last {
            self.close_warp();
            return;
        }
        for &u in &self.touched {
            let (Some(d), Some(r)) = (self.def_at.get_mut(u as usize), self.reads.get_mut(u as usize)) else {
                continue;
            };
            state.open.push((u, *d, *r));
            *d = 0;
            *r = 0;
        }
        self.touched.clear();
    }

    /// Counts the instructions of `warp`, numbered from `now` + 1; returns the last number.
    fn add_instructions(&mut self, warp: &WarpStream, now: u64) -> u64 {
        let mut now = now;
        let insts = warp.runs().iter().flat_map(|r| (0..r.len).map(move |k| (r.sid.wrapping_add(k), r.executed)));
        for (sid, executed) in insts {
            now += 1;
            if executed == 0 {
                continue;
            }
            let (head_reads, head_writes) = self.heads.get(sid);
            for &u in head_reads {
                let u = u as usize;
                let (Some(&def), Some(r)) = (self.def_at.get(u), self.reads.get_mut(u)) else { continue };
                if def == 0 {
                    continue;
                }
                *r += 1;
                let d = ((now - def) as usize).min(MAX_DISTANCE + 1);
                if let Some(b) = self.distances.get_mut(d) {
                    *b += 1;
                }
            }
            for &u in head_writes {
                let ui = u as usize;
                match self.def_at.get(ui).copied() {
                    Some(0) => self.touched.push(u),
                    Some(_) => self.hist.count(self.reads.get(ui).copied().unwrap_or(0)),
                    None => continue,
                }
                if let (Some(def), Some(r)) = (self.def_at.get_mut(ui), self.reads.get_mut(ui)) {
                    *def = now;
                    *r = 0;
                }
            }
        }
        now
    }

    /// The warp ended: its values still open are closed.
    fn close_warp(&mut self) {
        let touched = core::mem::take(&mut self.touched);
        for &u in &touched {
            self.hist.count(self.reads.get(u as usize).copied().unwrap_or(0));
            if let (Some(def), Some(r)) = (self.def_at.get_mut(u as usize), self.reads.get_mut(u as usize)) {
                *def = 0;
                *r = 0;
            }
        }
        self.touched = touched;
        self.touched.clear();
    }

    /// The figures so far.
    pub fn report(&self) -> ValueReport {
        let reads: u64 = self.distances.iter().sum();
        let mut cum = 0;
        let distance_cdf = (1..=MAX_DISTANCE)
            .map(|d| {
                cum += self.distances.get(d).copied().unwrap_or(0);
                let cumulative_fraction = if reads == 0 { 0.0 } else { cum as f64 / reads as f64 };
                CdfPoint { distance: d as u32, cumulative_fraction }
            })
            .collect();
        ValueReport { reads_per_value: self.hist, reads, distance_cdf, lane_values: self.lane }
    }
}
