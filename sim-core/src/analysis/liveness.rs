//! Liveness of virtual registers, as bit vectors over 32-bit register *units*: per block (live-in,
//! live-out) and per instruction, with register pressure per instruction and its maximum.
//!
//! ```text
//! .reg .b32 %r<3>; .reg .b64 %rd<2>;    // units: %r0→0 %r1→1 %r2→2 %rd0→3,4 %rd1→5,6
//! ld.param.u64 %rd1, [p];               // live-in {}          live-out {5,6}        pressure 2
//! mov.u32 %r1, %tid.x;                  // live-in {5,6}       live-out {1,5,6}      pressure 3
//! mul.wide.u32 %rd0, %r1, 4;            // live-in {1,5,6}     live-out {3,4,5,6}    pressure 4
//! ```
//!
//! Units: a register of class `b16`/`b32` takes 1 unit, `b64` 2, `b128` 4; a vector register
//! `.reg .v4 .u32 t` is four scalar registers after lowering, so 4 units. Predicates have their
//! own bit vector ([`Liveness::pred_live_in`]) and are not counted in pressure.
//!
//! Definitions used throughout (and by the CLI's `live` column):
//! - `live_in(i)`: units whose current value some later instruction (or `i` itself) may read
//!   before it is overwritten — exactly the per-PC live-register vector FineReg stores: what a
//!   warp stalled at `i` must keep.
//! - `live_out(i)`: the same just after `i`.
//! - `pressure(i)` = |`live_out(i)` ∪ defs(`i`)|: units occupied right after `i` issues, its own
//!   destinations included even if never read. [`Liveness::max_pressure`] is the maximum over
//!   the function (and the entry's live-in, for registers read before any write).
//!
//! A guarded write (`@%p mov`) does not end the previous value's life; registers never written
//! on any path to a point are not live there (see [`super::live_solver`]).

use alloc::vec::Vec;
use core::ops::Range;

use super::bitset::{BitMatrix, BitSet, Bits};
use super::cfg::Cfg;
use super::live_solver::{solve, Boundary, Effects, LiveSets};
use crate::ir::{Block, Function, Handle, Inst, Reg, WidthClass};

const NO_PRED: u32 = u32::MAX;

/// Where each register lives in the unit bit vector (or the predicate bit vector).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct UnitMap {
    start: Vec<u32>,
    pred: Vec<u32>,
    unit_reg: Vec<Handle<Reg>>,
    pred_reg: Vec<Handle<Reg>>,
}

impl UnitMap {
    /// Lays out the registers of `kernel` in declaration order.
    pub fn compute(kernel: &Function) -> UnitMap {
        let mut map = UnitMap::default();
        let Some(body) = &kernel.body else { return map };
        for (h, reg) in body.regs.iter() {
            map.start.push(map.unit_reg.len() as u32);
            if reg.class == WidthClass::Pred {
                map.pred.push(map.pred_reg.len() as u32);
                map.pred_reg.push(h);
            } else {
                map.pred.push(NO_PRED);
                (0..reg.class.units32()).for_each(|_| map.unit_reg.push(h));
            }
        }
        map
    }

    /// Number of 32-bit units.
    pub fn units(&self) -> usize {
        self.unit_reg.len()
    }

    /// Number of predicate registers.
    pub fn preds(&self) -> usize {
        self.pred_reg.len()
    }

    /// The units of `reg` (empty for predicates and unknown registers).
    pub fn units_of(&self, reg: Handle<Reg>) -> Range<usize> {
        let Some(&start) = self.start.get(reg.index()) else { return 0..0 };
        let start = start as usize;
        let end = self.unit_reg[start..].iter().take_while(|&&r| r == reg).count() + start;
        start..end
    }

    /// The index of predicate `reg` in the predicate vector.
    pub fn pred_index(&self, reg: Handle<Reg>) -> Option<usize> {
        self.pred.get(reg.index()).filter(|&&p| p != NO_PRED).map(|&p| p as usize)
    }

    /// The register a unit belongs to.
    pub fn reg_of_unit(&self, unit: usize) -> Option<Handle<Reg>> {
        self.unit_reg.get(unit).copied()
    }

    /// The predicate register at index `p`.
    pub fn reg_of_pred(&self, p: usize) -> Option<Handle<Reg>> {
        self.pred_reg.get(p).copied()
    }

    /// The registers with a unit in `bits`, in declaration order.
    pub fn regs_in(&self, bits: Bits<'_>) -> Vec<Handle<Reg>> {
        let mut regs: Vec<Handle<Reg>> = bits.iter().filter_map(|u| self.reg_of_unit(u)).collect();
        regs.dedup();
        regs
    }
}

/// The registers that are `.reg` parameters and `.reg` return values of an old-style `.func`
/// (`.func (.reg .b32 y) f(.reg .b32 x)`): lowering declares them first, by name.
pub fn register_params(kernel: &Function) -> (Vec<Handle<Reg>>, Vec<Handle<Reg>>) {
    let Some(body) = &kernel.body else { return (Vec::new(), Vec::new()) };
    let find = |list: &[crate::ir::Param]| -> Vec<Handle<Reg>> {
        list.iter()
            .filter(|p| p.space == crate::ir::StateSpace::Reg)
            .filter_map(|p| body.regs.iter().find(|(_, r)| r.name == p.name).map(|(h, _)| h))
            .collect()
    };
    (find(&kernel.params), find(&kernel.returns))
}

/// Liveness of one function.
#[derive(Clone, Debug, Default)]
pub struct Liveness {
    map: UnitMap,
    units: LiveSets,
    preds: LiveSets,
    pressure: Vec<u32>,
    max: u32,
    max_at: Option<Handle<Inst>>,
}

impl Liveness {
    /// Computes liveness of `kernel` over `cfg`.
    pub fn compute(kernel: &Function, cfg: &Cfg) -> Liveness {
        let map = UnitMap::compute(kernel);
        let Some(body) = &kernel.body else { return Liveness { map, ..Liveness::default() } };
        let unit_effects = Effects::build(body, map.units(), |_, inst, f| {
            inst.for_each_def(|r| f(map.units_of(r), true));
            inst.for_each_use(|r| f(map.units_of(r), false));
        });
        let pred_range = |r| map.pred_index(r).map_or(0..0, |p| p..p + 1);
        let pred_effects = Effects::build(body, map.preds(), |_, inst, f| {
            inst.for_each_def(|r| f(pred_range(r), true));
            inst.for_each_use(|r| f(pred_range(r), false));
        });
        let (params, returns) = register_params(kernel);
        let ranges = |regs: &[Handle<Reg>], f: &dyn Fn(Handle<Reg>) -> Range<usize>| {
            regs.iter().map(|&r| f(r)).map(|r| (r.start as u32, r.end as u32)).collect()
        };
        let unit_of = |r| map.units_of(r);
        let unit_bounds = Boundary { entry_defined: ranges(&params, &unit_of), exit_live: ranges(&returns, &unit_of) };
        let pred_bounds =
            Boundary { entry_defined: ranges(&params, &pred_range), exit_live: ranges(&returns, &pred_range) };
        let units = solve(body, cfg, &unit_effects, &unit_bounds);
        let preds = solve(body, cfg, &pred_effects, &pred_bounds);
        let mut pressure = Vec::with_capacity(body.insts.len());
        let mut scratch = BitSet::new(map.units());
        for ih in body.insts.handles() {
            scratch.clear();
            scratch.union_with_words(units.inst_out.row(ih.index()).words());
            unit_effects.add_defs(ih, &mut scratch);
            pressure.push(scratch.count() as u32);
        }
        let (mut max, mut max_at) = (0, None);
        for ih in body.insts_in_order() {
            let p = pressure.get(ih.index()).copied().unwrap_or(0);
            if p > max {
                (max, max_at) = (p, Some(ih));
            }
        }
        if let Some(entry) = units.block_in.first() {
            max = max.max(entry.count() as u32);
        }
        Liveness { map, units, preds, pressure, max, max_at }
    }

    /// The register → unit layout.
    pub fn unit_map(&self) -> &UnitMap {
        &self.map
    }

    /// Units live before `inst` (FineReg's live-register vector at that PC).
    pub fn live_in(&self, inst: Handle<Inst>) -> Bits<'_> {
        self.units.inst_in.row(inst.index())
    }

    /// Units live after `inst`.
    pub fn live_out(&self, inst: Handle<Inst>) -> Bits<'_> {
        self.units.inst_out.row(inst.index())
    }

    /// Predicates live before `inst`.
    pub fn pred_live_in(&self, inst: Handle<Inst>) -> Bits<'_> {
        self.preds.inst_in.row(inst.index())
    }

    /// Predicates live after `inst`.
    pub fn pred_live_out(&self, inst: Handle<Inst>) -> Bits<'_> {
        self.preds.inst_out.row(inst.index())
    }

    /// Units live at the entry of `b`.
    pub fn block_live_in(&self, b: Handle<Block>) -> Option<&BitSet> {
        self.units.block_in.get(b.index())
    }

    /// Units live at the end of `b`.
    pub fn block_live_out(&self, b: Handle<Block>) -> Option<&BitSet> {
        self.units.block_out.get(b.index())
    }

    /// Units occupied right after `inst` issues: |live-out ∪ defs|.
    pub fn pressure(&self, inst: Handle<Inst>) -> u32 {
        self.pressure.get(inst.index()).copied().unwrap_or(0)
    }

    /// The maximum pressure over the function, in 32-bit units.
    pub fn max_pressure(&self) -> u32 {
        self.max
    }

    /// The first instruction (in layout order) where the maximum is reached.
    pub fn max_pressure_at(&self) -> Option<Handle<Inst>> {
        self.max_at
    }

    /// Every instruction's FineReg vector (live-in units), rows indexed by instruction handle.
    pub fn live_vectors(&self) -> &BitMatrix {
        &self.units.inst_in
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::test_util::kernel;

    #[test]
    fn straight_line_pairs_and_guarded_defs() {
        let m = kernel(
            ".reg .pred %p<2>; .reg .b32 %r<4>; .reg .b64 %rd<3>;
             ld.param.u64 %rd1, [k_p0];
             mov.u32 %r1, %tid.x;
             mul.wide.u32 %rd2, %r1, 4;
             add.s64 %rd2, %rd1, %rd2;
             setp.eq.s32 %p1, %r1, 0;
             @%p1 mov.u32 %r2, 7;
             st.global.u32 [%rd2], %r2;
             ret;",
        );
        let f = &m.functions[Handle::from_index(0)];
        let cfg = Cfg::compute(f);
        let live = Liveness::compute(f, &cfg);
        let map = live.unit_map();
        assert_eq!(map.units(), 4 + 6);
        assert_eq!(map.units_of(Handle::from_index(8)), 8..10); // %rd2
        let insts: Vec<Handle<Inst>> = f.body.as_ref().map(|b| b.insts_in_order().collect()).unwrap_or_default();
        let pressures: Vec<u32> = insts.iter().map(|&i| live.pressure(i)).collect();
        // {rd1} {rd1 r1} {rd1 r1 rd2} {r1 rd2} {rd2} {rd2 r2} {} {}
        assert_eq!(pressures, [2, 3, 5, 3, 2, 3, 0, 0]);
        assert_eq!(live.max_pressure(), 5);
        // %r2 is written only under a guard: live from that write to the store, not from the entry.
        assert_eq!(live.live_in(insts[5]).count(), 2);
        assert_eq!(live.pred_live_in(insts[5]).count(), 1);
        assert_eq!(live.pred_live_out(insts[5]).count(), 0);
    }
}
