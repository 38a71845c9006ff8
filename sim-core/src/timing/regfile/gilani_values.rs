//! The run-time value state of Gilani's scalar unit and sliced datapath: per warp slot and
//! register unit, whether its last write was scalar (every executed lane wrote one value) and
//! half-width (every value fits `bits` signed), set from the functional run's value summaries
//! (the comparison stage before write-back), and the class of an instruction about to issue;
//! with them the paper's statistics: instructions whose result is uniform (of those that wrote a
//! summarised register) and integer register values that fit 16 bits (of the integer values
//! written; which instructions write integers: [`super::gilani_int`]).
//!
//! ```text
//! mov.u32 %r1, 0;          // uniform, 1 signed bit   → %r1 scalar, half-width; Scalar
//! add.s32 %r1, %r1, 1;     // sources scalar, uniform → Scalar
//! add.s32 %r3, %r2, 7;     // %r2 = tid (half, not scalar), result 7..38 → Half { fits: true }
//! add.s32 %r4, %r2, 70000; // %r2 half, result > 16 bits → Half { fits: false } (a misprediction)
//! ```

use alloc::collections::BTreeMap;
use alloc::vec::Vec;

use crate::timing::exec_units::UnitKind;
use crate::timing::program::MemOp;
use crate::timing::regfile::OperandRequest;
use crate::timing::stream::values::ValueSummary;

/// Registers numbered below this are kept in a dense table per warp.
const DENSE: u32 = 1024;

/// Bits of the 16-bit share statistic (Gilani et al. Fig. 1: values that need 16 bits or fewer).
pub const STAT_BITS: u32 = 16;

const SCALAR: u8 = 1;
const HALF: u8 = 2;

/// How an instruction issues under the techniques in use.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Class {
    /// On its own unit, full width.
    #[default]
    Simt,
    /// On the scalar unit.
    Scalar,
    /// As a 16-bit instruction; `fits`: its result fits after all.
    Half {
        /// The result fits the half width.
        fits: bool,
    },
}

/// Value figures of the run (the paper's statistics): counted by the family as it issues, and for
/// every run that records values from the original kernel's streams
/// ([`crate::timing::value_stats::ValueReport::lane_values`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ValueCounts {
    /// Issued instructions that wrote at least one summarised register unit.
    pub value_instructions: u64,
    /// Of those, instructions whose every written unit was uniform across the executed lanes.
    pub uniform_result_instructions: u64,
    /// Register units written with a summary by an instruction that writes integers
    /// ([`super::gilani_int`]).
    pub integer_values: u64,
    /// Of those, units whose values fit 16 bits signed ([`STAT_BITS`], the paper's figure,
    /// whatever the sliced datapath's `half_width_bits`).
    pub integer_16bit_values: u64,
}

impl ValueCounts {
    /// Counts one instruction that wrote `values` (nothing when it has none); `integer`: it
    /// writes integers ([`super::gilani_int`]).
    pub fn count(&mut self, values: &[ValueSummary], integer: bool) {
        if values.is_empty() {
            return;
        }
        self.value_instructions += 1;
        self.uniform_result_instructions += u64::from(values.iter().all(|v| v.uniform()));
        if integer {
            self.integer_values += values.len() as u64;
            self.integer_16bit_values += values.iter().filter(|v| v.signed_bits() <= STAT_BITS).count() as u64;
        }
    }
}

/// Per-warp register flags and the summaries of each warp's next instruction.
#[derive(Clone, Debug, Default)]
pub struct WarpValues {
    /// Per warp slot, per register below [`DENSE`]: `SCALAR | HALF` bits of its last write.
    flags: Vec<Vec<u8>>,
    /// The same for registers from [`DENSE`] on (values the allocator left in their virtual
    /// unit, numbered far above the physical registers), by warp slot and register.
    sparse: BTreeMap<(u32, u32), u8>,
    /// Per warp slot: the summaries of the instruction it tries to issue.
    next: Vec<Vec<ValueSummary>>,
    /// Per static id: whether it writes integers (empty, or an id past the end: integer).
    integer: Vec<bool>,
    bits: u32,
    /// Statistics so far.
    pub counts: ValueCounts,
}

fn alu(req: &OperandRequest<'_>) -> bool {
    req.mem == MemOp::None && matches!(req.unit, UnitKind::Sp | UnitKind::Int)
}

impl WarpValues {
    /// For `warps` warp slots, half width `bits`.
    pub fn new(warps: u32, bits: u32) -> Self {
        WarpValues {
            flags: alloc::vec![Vec::new(); warps as usize],
            sparse: BTreeMap::new(),
            next: alloc::vec![Vec::new(); warps as usize],
            integer: Vec::new(),
            bits,
            counts: ValueCounts::default(),
        }
    }

    /// The table of which static ids write integers ([`super::gilani_int::integer_results`]).
    pub fn set_integer(&mut self, table: &[bool]) {
        self.integer = table.to_vec();
    }

    /// Warp `warp`'s next instruction wrote `values`.
    pub fn set_next(&mut self, warp: u32, values: &[ValueSummary]) {
        if let Some(n) = self.next.get_mut(warp as usize) {
            n.clear();
            n.extend_from_slice(values);
        }
    }

    fn flag(&self, warp: u32, unit: u32) -> u8 {
        if unit >= DENSE {
            return self.sparse.get(&(warp, unit)).copied().unwrap_or(0);
        }
        self.flags.get(warp as usize).and_then(|f| f.get(unit as usize)).copied().unwrap_or(0)
    }

    fn fits(&self, v: ValueSummary) -> bool {
        v.signed_bits() <= self.bits
    }

    /// The class of `req` (its warp's next instruction) with the scalar unit (`scalar`) and the
    /// sliced datapath (`sliced`) in use.
    pub fn classify(&self, req: &OperandRequest<'_>, scalar: bool, sliced: bool) -> Class {
        let Some(values) = self.next.get(req.warp as usize) else { return Class::Simt };
        if !alu(req) || values.len() != req.writes.len() || (req.reads.is_empty() && values.is_empty()) {
            return Class::Simt;
        }
        let all = |bit: u8| req.reads.iter().all(|&u| self.flag(req.warp, u) & bit != 0);
        if scalar && all(SCALAR) && values.iter().all(|v| v.uniform()) {
            return Class::Scalar;
        }
        if sliced && !req.reads.is_empty() && all(HALF) {
            return Class::Half { fits: values.iter().all(|&v| self.fits(v)) };
        }
        Class::Simt
    }

    /// `req` issued: its written units take the flags of its summaries (none without them), and
    /// the statistics count it.
    pub fn commit(&mut self, req: &OperandRequest<'_>) {
        let bits = self.bits;
        let WarpValues { flags, sparse, next, counts, integer, .. } = self;
        let values = next.get(req.warp as usize).map(Vec::as_slice).unwrap_or(&[]);
        counts.count(values, integer.get(req.sid as usize).copied().unwrap_or(true));
        let matched = values.len() == req.writes.len();
        let Some(f) = flags.get_mut(req.warp as usize) else { return };
        for (i, &u) in req.writes.iter().enumerate() {
            let x = match values.get(i).filter(|_| matched) {
                Some(v) => (if v.uniform() { SCALAR } else { 0 }) | (if v.signed_bits() <= bits { HALF } else { 0 }),
                None => 0,
            };
            if u >= DENSE {
                sparse.insert((req.warp, u), x);
                continue;
            }
            if f.len() <= u as usize {
                f.resize(u as usize + 1, 0);
            }
            if let Some(slot) = f.get_mut(u as usize) {
                *slot = x;
            }
        }
    }
}
