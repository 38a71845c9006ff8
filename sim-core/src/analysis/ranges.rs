//! Integer range analysis on e-SSA (Campos, Rodrigues, Pereira; `SCHEMES.md` §A) and the
//! bitwidth of every integer value, as the static compression scheme of Angerd et al. uses it.
//!
//! ```text
//!   mov.u32 %r1, 0;                 // [0, 0]
//! $L_loop:                          // φ: [0, 50]
//!   setp.ge.s32 %p1, %r1, 50;
//!   @%p1 bra $L_done;               // σ taken: [50, 50]; σ fall-through: [0, 49]
//!   add.s32 %r1, %r1, 1;            // [1, 50]: 6 bits
//!   bra.uni $L_loop;
//! ```
//!
//! Each register has one interpretation (signed if any instruction writes it with a signed type,
//! else unsigned) and every value of it is an interval in that window; instructions read their
//! operands under their own type (see [`super::interval`]). Entry values (never written) are ⊥,
//! and so is whatever an instruction computes from one (undefined stays undefined), except the
//! `.reg` parameters of an old-style `.func`, which may hold anything.
//! The solver is in `range_solver`, the per-opcode arithmetic in `range_transfer` (private
//! modules), the starting ranges in [`super::range_seeds`].

use alloc::vec::Vec;

use super::cfg::Cfg;
use super::dominators::Dominators;
use super::essa::{Against, Cmp, Essa, Test, Value, ValueKind};
use super::interval::{BitWidth, Interp, Interval};
use super::liveness::{register_params, Liveness};
use super::range_seeds::RangeSeeds;
use super::range_solver::{solve, State, System};
use super::range_transfer::{imm_operand, immediate, transfer, Reader};
use crate::ir::{Function, Handle, Imm, Inst, Operand, Reg, Symbol};

/// Ranges and bitwidths of the integer values of one function.
#[derive(Clone, Debug, Default)]
pub struct RangeAnalysis {
    essa: Essa,
    ranges: Vec<Interval>,
    interps: Vec<Interp>,
}

/// The constraint system of one function.
struct Constraints<'a> {
    func: &'a Function,
    /// `.reg` parameters of an old-style `.func`: defined on entry, any value.
    reg_params: Vec<Handle<Reg>>,
    essa: &'a Essa,
    seeds: &'a RangeSeeds,
    interps: &'a [Interp],
}

impl RangeAnalysis {
    /// Builds the e-SSA view of `func` and solves its ranges from `seeds`.
    pub fn compute(func: &Function, cfg: &Cfg, dom: &Dominators, live: &Liveness, seeds: &RangeSeeds) -> Self {
        let essa = Essa::compute(func, cfg, dom, live);
        let interps = interpretations(func);
        let jumps = jump_set(func);
        let reg_params = register_params(func).0;
        let sys = Constraints { func, reg_params, essa: &essa, seeds, interps: &interps };
        let ranges = solve(&sys, &jumps);
        RangeAnalysis { essa, ranges, interps }
    }

    /// Values whose constraint, re-evaluated on the final ranges with wrap-around semantics,
    /// leaves their range: empty for a sound solution (a post-fixpoint). For tests; `func` and
    /// `seeds` must be the ones the analysis was computed with.
    pub fn unstable_values(&self, func: &Function, seeds: &RangeSeeds) -> Vec<Handle<Value>> {
        let sys =
            Constraints { func, reg_params: register_params(func).0, essa: &self.essa, seeds, interps: &self.interps };
        let at = State { ranges: &self.ranges, open: &|_| true, modular: true };
        let unstable = |(h, _): &(Handle<Value>, &Value)| !sys.eval(h.raw(), &at).within(self.value_range(*h));
        self.essa.values().filter(unstable).map(|(h, _)| h).collect()
    }

    /// The e-SSA view the ranges are given on.
    pub fn essa(&self) -> &Essa {
        &self.essa
    }

    /// The range of e-SSA value `v` (⊥ if it has none: never written, or unreachable).
    pub fn value_range(&self, v: Handle<Value>) -> Interval {
        self.ranges.get(v.index()).copied().unwrap_or(Interval::EMPTY)
    }

    /// The interpretation of `reg`'s values.
    pub fn interp(&self, reg: Handle<Reg>) -> Option<Interp> {
        self.interps.get(reg.index()).copied().filter(|_| self.essa.is_tracked(reg))
    }

    /// The range of the value `inst` writes into `reg`.
    pub fn range(&self, inst: Handle<Inst>, reg: Handle<Reg>) -> Option<Interval> {
        self.essa.written(inst, reg).map(|v| self.value_range(v))
    }

    /// The bits the value `inst` writes into `reg` needs (`SCHEMES.md` §A's formula; full width
    /// when it exceeds the register's declared width or is unknown).
    pub fn bitwidth(&self, inst: Handle<Inst>, reg: Handle<Reg>) -> Option<BitWidth> {
        let t = self.interp(reg)?;
        self.range(inst, reg).map(|r| r.bitwidth(t.bits))
    }

    /// The union of the ranges of every value of `reg` (Angerd et al. Fig. 8(d)).
    pub fn register_range(&self, reg: Handle<Reg>) -> Option<Interval> {
        self.interp(reg)?;
        let values = self.essa.values().filter(|(_, v)| v.reg == reg);
        Some(values.fold(Interval::EMPTY, |acc, (h, _)| acc.union(self.value_range(h))))
    }

    /// The bits `reg` needs over the whole function.
    pub fn register_bitwidth(&self, reg: Handle<Reg>) -> Option<BitWidth> {
        let t = self.interp(reg)?;
        self.register_range(reg).map(|r| r.bitwidth(t.bits))
    }
}

/// Per register: its declared width, signed if some instruction writes it with a signed type.
fn interpretations(func: &Function) -> Vec<Interp> {
    let Some(body) = &func.body else { return Vec::new() };
    let mut signed = alloc::vec![false; body.regs.len()];
    for inst in body.insts.values() {
        if inst.ty().is_some_and(|t| t.is_signed_int()) {
            inst.for_each_def(|r| {
                if let Some(s) = signed.get_mut(r.index()) {
                    *s = true;
                }
            });
        }
    }
    body.regs.values().zip(signed).map(|(r, s)| Interp::new(r.ty.bits(), s)).collect()
}

/// The program's integer constants, read signed and unsigned at 32 and 64 bits.
fn jump_set(func: &Function) -> Vec<i128> {
    let mut out = Vec::new();
    let Some(body) = &func.body else { return out };
    let mut add = |op: &Operand| {
        if let Operand::Imm(Imm::Int(v)) = op {
            for t in [Interp::new(32, true), Interp::new(32, false), Interp::new(64, true), Interp::new(64, false)] {
                out.push(immediate(*v, t).lo);
            }
        }
    };
    for inst in body.insts.values() {
        inst.operands.iter().for_each(&mut add);
    }
    crate::sorting::sort(&mut out);
    out.dedup();
    out
}

/// Reads operands of one instruction from the current ranges.
struct InstReader<'a> {
    sys: &'a Constraints<'a>,
    inst: Handle<Inst>,
    ranges: &'a [Interval],
    modular: bool,
}

impl Reader for InstReader<'_> {
    fn operand(&self, op: &Operand, t: Interp) -> Interval {
        match op {
            Operand::Reg(r) if self.sys.essa.is_tracked(*r) => match self.sys.essa.read(self.inst, *r) {
                Some(v) => self.ranges.get(v.index()).copied().unwrap_or(Interval::EMPTY).convert(t, self.modular),
                None => Interval::full(t),
            },
            Operand::Special(s) => self.sys.seeds.special(*s, self.sys.func).wrap(t),
            Operand::Symbol { symbol: Symbol::Local(h), offset } => {
                let body = self.sys.func.body.as_ref();
                let shared = body.and_then(|b| b.vars.get(*h)).is_some_and(|v| v.space.is_shared());
                let size = i128::from(self.sys.seeds.shared_window);
                let window = Interval::new(0, size - 1) + Interval::constant(i128::from(*offset));
                if shared {
                    window.wrap(t)
                } else {
                    Interval::full(t)
                }
            }
            other => imm_operand(other, t).unwrap_or(Interval::full(t)),
        }
    }

    fn param(&self, index: u32) -> Option<Interval> {
        self.sys.func.is_entry().then(|| self.sys.seeds.param(index)).flatten()
    }
}

impl Constraints<'_> {
    fn interp(&self, reg: Handle<Reg>) -> Interp {
        self.interps.get(reg.index()).copied().unwrap_or(Interp::new(64, false))
    }

    fn inst_value(
        &self,
        inst: Handle<Inst>,
        def: u32,
        reg: Handle<Reg>,
        ranges: &[Interval],
        modular: bool,
    ) -> Interval {
        let t = self.interp(reg);
        let Some(i) = self.func.body.as_ref().and_then(|b| b.insts.get(inst)) else { return Interval::full(t) };
        // Strict: an instruction reading an undefined (or not yet computed) value yields ⊥.
        let reads = self.essa.reads_of(inst);
        if reads.iter().any(|(_, v)| ranges.get(v.index()).is_none_or(|r| r.is_empty())) {
            return Interval::EMPTY;
        }
        let reader = InstReader { sys: self, inst, ranges, modular };
        transfer(i, def, t, &reader).convert(t, modular)
    }

    /// `source` restricted by `test` (bounds for which `open` is false are ignored).
    fn sigma(&self, reg: Handle<Reg>, source: Interval, test: &Test, at: &State<'_>) -> Interval {
        let (ranges, modular) = (at.ranges, at.modular);
        let own = self.interp(reg);
        if test.bits != own.bits || source.is_empty() {
            return source;
        }
        let t = Interp::new(test.bits, test.signed);
        let b = match test.against {
            Against::Const(c) => immediate(c, t),
            Against::Value(w) if (at.open)(w.raw()) => {
                ranges.get(w.index()).copied().unwrap_or(Interval::EMPTY).convert(t, modular)
            }
            Against::Value(_) => return source,
        };
        if b.is_empty() {
            return Interval::EMPTY;
        }
        let s = source.convert(t, modular);
        let k = match test.cmp {
            Cmp::Lt => Interval::new(t.min(), b.hi.saturating_sub(1)),
            Cmp::Le => Interval::new(t.min(), b.hi),
            Cmp::Gt => Interval::new(b.lo.saturating_add(1), t.max()),
            Cmp::Ge => Interval::new(b.lo, t.max()),
            Cmp::Eq => b,
            Cmp::Ne if b.lo == b.hi && s.lo == b.lo => Interval::new(b.lo.saturating_add(1), t.max()),
            Cmp::Ne if b.lo == b.hi && s.hi == b.lo => Interval::new(t.min(), b.lo.saturating_sub(1)),
            Cmp::Ne => Interval::full(t),
        };
        s.meet(k).convert(own, modular).meet(source)
    }
}

impl System for Constraints<'_> {
    fn len(&self) -> usize {
        self.essa.len()
    }

    fn deps(&self, v: u32) -> Vec<u32> {
        let Some(value) = self.essa.value(Handle::from_index(v)) else { return Vec::new() };
        match &value.kind {
            ValueKind::Entry => Vec::new(),
            ValueKind::Inst { inst, prior, .. } => {
                let body = self.func.body.as_ref();
                let mut out = Vec::new();
                if let Some(i) = body.and_then(|b| b.insts.get(*inst)) {
                    i.for_each_use(|r| out.extend(self.essa.read(*inst, r).map(|x| x.raw())));
                }
                out.extend(prior.map(|p| p.raw()));
                out
            }
            ValueKind::Phi { args, .. } => args.iter().map(|a| a.raw()).collect(),
            ValueKind::Sigma { source, test, .. } => {
                let mut out = alloc::vec![source.raw()];
                if let Against::Value(w) = test.against {
                    out.push(w.raw());
                }
                out
            }
        }
    }

    fn eval(&self, v: u32, at: &State<'_>) -> Interval {
        let ranges = at.ranges;
        let Some(value) = self.essa.value(Handle::from_index(v)) else { return Interval::EMPTY };
        let get = |h: Handle<Value>| ranges.get(h.index()).copied().unwrap_or(Interval::EMPTY);
        match &value.kind {
            ValueKind::Entry if self.reg_params.contains(&value.reg) => Interval::full(self.interp(value.reg)),
            ValueKind::Entry => Interval::EMPTY,
            ValueKind::Inst { inst, def, prior } => {
                let r = self.inst_value(*inst, *def, value.reg, ranges, at.modular);
                prior.map_or(r, |p| r.union(get(p)))
            }
            ValueKind::Phi { args, .. } => args.iter().fold(Interval::EMPTY, |acc, &a| acc.union(get(a))),
            ValueKind::Sigma { source, test, .. } => self.sigma(value.reg, get(*source), test, at),
        }
    }

    fn window(&self, v: u32) -> Interval {
        let reg = self.essa.value(Handle::from_index(v)).map(|x| x.reg);
        reg.map_or(Interval::full(Interp::new(64, false)), |r| Interval::full(self.interp(r)))
    }
}
