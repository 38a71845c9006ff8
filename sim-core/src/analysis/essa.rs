//! An e-SSA view of a function (Bodik et al.; as used by Campos, Rodrigues, Pereira's range
//! analysis): every write of an integer register is a new value, φ-values merge them at join
//! points, and σ-values split a register after a conditional branch that compared it. The IR is
//! not touched: the view maps each instruction's reads and writes to values.
//!
//! ```text
//! $L_loop:                         // k1 = φ(k0, k3)
//!   setp.ge.s32 %p1, %r1, 50;
//!   @%p1 bra $L_exit;              // k_f = σ(k1 ≥ 50) on the taken edge, k_t = σ(k1 < 50) else
//!   add.s32 %r1, %r1, 1;           // k3 = k_t + 1
//!   bra.uni $L_loop;
//! ```
//!
//! φ-values go to the iterated dominance frontiers of the definitions, pruned by liveness. σ-values
//! are attached to CFG edges: for a branch whose guard a plain integer `setp` in the same block
//! computed (operands not rewritten in between), each compared register gets one σ per successor
//! where it is live. An edge into a block with several predecessors is split virtually: its σ
//! feeds that block's φ directly (and makes the φ necessary). A guarded write keeps the value
//! before it as `prior`: either may reach later reads.

use alloc::collections::BTreeMap;
use alloc::vec::Vec;

use serde::{Deserialize, Serialize};

use super::cfg::Cfg;
use super::dominators::Dominators;
use super::essa_place::{branch_tests, place_phis, single_pred, Bound, EdgeSigma};
use super::liveness::Liveness;
use crate::ir::{Arena, Block, Body, Function, Handle, Inst, Reg};

/// A comparison, already oriented so that the σ's register is on the left.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Cmp {
    /// `<`
    Lt,
    /// `≤`
    Le,
    /// `>`
    Gt,
    /// `≥`
    Ge,
    /// `=`
    Eq,
    /// `≠`
    Ne,
}

impl Cmp {
    /// The comparison that holds exactly when `self` does not.
    pub fn negated(self) -> Cmp {
        match self {
            Cmp::Lt => Cmp::Ge,
            Cmp::Le => Cmp::Gt,
            Cmp::Gt => Cmp::Le,
            Cmp::Ge => Cmp::Lt,
            Cmp::Eq => Cmp::Ne,
            Cmp::Ne => Cmp::Eq,
        }
    }

    /// `b ? a` for `a self b`.
    pub fn swapped(self) -> Cmp {
        match self {
            Cmp::Lt => Cmp::Gt,
            Cmp::Le => Cmp::Ge,
            Cmp::Gt => Cmp::Lt,
            Cmp::Ge => Cmp::Le,
            c => c,
        }
    }

    /// `"<"`, `"<="`, …
    pub fn symbol(self) -> &'static str {
        match self {
            Cmp::Lt => "<",
            Cmp::Le => "<=",
            Cmp::Gt => ">",
            Cmp::Ge => ">=",
            Cmp::Eq => "==",
            Cmp::Ne => "!=",
        }
    }
}

/// What a σ compares against: a constant, or another value (a symbolic bound, "future").
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Against {
    /// An immediate, by its 64-bit pattern (read at the test's width and signedness).
    Const(u64),
    /// The value of another register at the branch.
    Value(Handle<Value>),
}

/// The condition a σ-value satisfies: `value cmp against`, compared at `bits` bits.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Test {
    /// The comparison.
    pub cmp: Cmp,
    /// Signed comparison.
    pub signed: bool,
    /// Width of the comparison.
    pub bits: u32,
    /// The other side.
    pub against: Against,
}

/// How a value comes to be.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum ValueKind {
    /// What the register holds on entry: never written (undefined).
    Entry,
    /// Written by destination `def` (in [`crate::ir::Inst::for_each_def`] order) of `inst`;
    /// `prior` is the value before a guarded write, which survives when the guard is false.
    Inst {
        /// The instruction.
        inst: Handle<Inst>,
        /// Which of its written registers (position in `for_each_def` order).
        def: u32,
        /// The value before a guarded write.
        prior: Option<Handle<Value>>,
    },
    /// A φ at the top of `block`: one argument per predecessor, in [`Cfg::preds`] order.
    Phi {
        /// The join block.
        block: Handle<Block>,
        /// Arguments.
        args: Vec<Handle<Value>>,
    },
    /// A σ on the edge `from → to`: `source` where `test` holds.
    Sigma {
        /// The branching block.
        from: Handle<Block>,
        /// The successor.
        to: Handle<Block>,
        /// The value before the branch.
        source: Handle<Value>,
        /// The condition known on this edge.
        test: Test,
    },
}

/// One e-SSA value.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Value {
    /// The register it is a version of.
    pub reg: Handle<Reg>,
    /// Its definition.
    pub kind: ValueKind,
}

/// The e-SSA view of one function.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Essa {
    values: Arena<Value>,
    reads: Vec<Vec<(Handle<Reg>, Handle<Value>)>>,
    writes: Vec<Vec<(Handle<Reg>, Handle<Value>)>>,
    tracked: Vec<bool>,
}

/// Renaming state: the current value of each register.
struct Rename<'a> {
    body: &'a Body,
    cfg: &'a Cfg,
    essa: Essa,
    stacks: Vec<Vec<Handle<Value>>>,
    phis: BTreeMap<(Handle<Block>, Handle<Reg>), Handle<Value>>,
    sigmas: BTreeMap<(Handle<Block>, Handle<Block>), Vec<EdgeSigma>>,
}

impl Essa {
    /// Builds the view of `func` (integer registers up to 64 bits; predicates and floats are not
    /// tracked).
    pub fn compute(func: &Function, cfg: &Cfg, dom: &Dominators, live: &Liveness) -> Essa {
        let Some(body) = &func.body else { return Essa::default() };
        let tracked: Vec<bool> = body.regs.values().map(|r| r.ty.is_integer() && r.ty.bits() <= 64).collect();
        let mut essa = Essa {
            values: Arena::new(),
            reads: alloc::vec![Vec::new(); body.insts.len()],
            writes: alloc::vec![Vec::new(); body.insts.len()],
            tracked,
        };
        let stacks = body
            .regs
            .handles()
            .map(|r| alloc::vec![essa.values.alloc(Value { reg: r, kind: ValueKind::Entry })])
            .collect();
        let sigmas = branch_tests(body, cfg, live, &essa.tracked);
        let mut phis = BTreeMap::new();
        for (block, reg) in place_phis(body, cfg, dom, live, &essa.tracked, &sigmas) {
            // Arguments start as the register's entry value (allocated first, at the register's
            // index); edges from unreachable blocks keep it.
            let args = cfg.preds(block).iter().map(|_| Handle::from_index(reg.raw())).collect();
            let v = essa.values.alloc(Value { reg, kind: ValueKind::Phi { block, args } });
            phis.insert((block, reg), v);
        }
        let mut r = Rename { body, cfg, essa, stacks, phis, sigmas };
        if let Some(entry) = cfg.entry() {
            r.walk(entry, dom);
        }
        r.essa
    }

    /// Every value, with its handle.
    pub fn values(&self) -> impl ExactSizeIterator<Item = (Handle<Value>, &Value)> + '_ {
        self.values.iter()
    }

    /// Number of values.
    pub fn len(&self) -> usize {
        self.values.len()
    }

    /// True if there is none.
    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }

    /// The value `h`.
    pub fn value(&self, h: Handle<Value>) -> Option<&Value> {
        self.values.get(h)
    }

    /// The value of `reg` that `inst` reads (`None` if it does not read it, or is unreachable).
    pub fn read(&self, inst: Handle<Inst>, reg: Handle<Reg>) -> Option<Handle<Value>> {
        self.reads.get(inst.index())?.iter().find(|(r, _)| *r == reg).map(|(_, v)| *v)
    }

    /// The value `inst` writes into `reg`.
    pub fn written(&self, inst: Handle<Inst>, reg: Handle<Reg>) -> Option<Handle<Value>> {
        self.writes.get(inst.index())?.iter().find(|(r, _)| *r == reg).map(|(_, v)| *v)
    }

    /// The values `inst` reads, with their registers.
    pub fn reads_of(&self, inst: Handle<Inst>) -> &[(Handle<Reg>, Handle<Value>)] {
        self.reads.get(inst.index()).map_or(&[], Vec::as_slice)
    }

    /// The values `inst` writes, with their registers.
    pub fn writes_of(&self, inst: Handle<Inst>) -> &[(Handle<Reg>, Handle<Value>)] {
        self.writes.get(inst.index()).map_or(&[], Vec::as_slice)
    }

    /// True if the view tracks `reg` (an integer register of at most 64 bits).
    pub fn is_tracked(&self, reg: Handle<Reg>) -> bool {
        self.tracked.get(reg.index()).copied().unwrap_or(false)
    }
}

impl Rename<'_> {
    fn top(&self, reg: Handle<Reg>) -> Handle<Value> {
        self.stacks.get(reg.index()).and_then(|s| s.last()).copied().unwrap_or(Handle::from_index(reg.raw()))
    }

    fn push(&mut self, reg: Handle<Reg>, v: Handle<Value>, pushed: &mut Vec<Handle<Reg>>) {
        if let Some(s) = self.stacks.get_mut(reg.index()) {
            s.push(v);
            pushed.push(reg);
        }
    }

    /// σ-values for the edge `from → to` (sources and bounds read before any is pushed).
    fn sigmas_on(&mut self, from: Handle<Block>, to: Handle<Block>) -> Vec<(Handle<Reg>, Handle<Value>)> {
        let edge = self.sigmas.get(&(from, to)).cloned().unwrap_or_default();
        let made: Vec<Value> = edge
            .iter()
            .map(|s| {
                let against = match s.against {
                    Bound::Const(c) => Against::Const(c),
                    Bound::Reg(r) => Against::Value(self.top(r)),
                };
                let test = Test { cmp: s.cmp, signed: s.signed, bits: s.bits, against };
                Value { reg: s.reg, kind: ValueKind::Sigma { from, to, source: self.top(s.reg), test } }
            })
            .collect();
        made.into_iter().map(|v| (v.reg, self.essa.values.alloc(v))).collect()
    }

    /// Renames the dominator tree below `root` (iteratively: deep trees do not overflow).
    fn walk(&mut self, root: Handle<Block>, dom: &Dominators) {
        enum Step {
            Enter(Handle<Block>),
            Leave(Vec<Handle<Reg>>),
        }
        let mut todo = alloc::vec![Step::Enter(root)];
        while let Some(step) = todo.pop() {
            match step {
                Step::Enter(b) => {
                    let pushed = self.block(b);
                    todo.push(Step::Leave(pushed));
                    let children: Vec<Handle<Block>> = dom.children(b).collect();
                    todo.extend(children.into_iter().rev().map(Step::Enter));
                }
                Step::Leave(pushed) => {
                    for r in pushed {
                        if let Some(s) = self.stacks.get_mut(r.index()) {
                            s.pop();
                        }
                    }
                }
            }
        }
    }

    /// Renames block `b`; returns the registers it pushed.
    fn block(&mut self, b: Handle<Block>) -> Vec<Handle<Reg>> {
        let mut pushed = Vec::new();
        if let Some(pred) = single_pred(self.cfg, b) {
            for (reg, v) in self.sigmas_on(pred, b) {
                self.push(reg, v, &mut pushed);
            }
        }
        let phis: Vec<(Handle<Reg>, Handle<Value>)> = self
            .phis
            .range((b, Handle::from_index(0))..)
            .take_while(|((blk, _), _)| *blk == b)
            .map(|((_, r), v)| (*r, *v))
            .collect();
        for (reg, v) in phis {
            self.push(reg, v, &mut pushed);
        }
        let insts = self.body.blocks.get(b).map(|blk| blk.insts.clone()).unwrap_or_default();
        for ih in insts {
            self.inst(ih, &mut pushed);
        }
        for &s in self.cfg.succs(b) {
            self.phi_args(b, s);
        }
        pushed
    }

    fn inst(&mut self, ih: Handle<Inst>, pushed: &mut Vec<Handle<Reg>>) {
        let Some(inst) = self.body.insts.get(ih) else { return };
        let mut reads = Vec::new();
        inst.for_each_use(|r| {
            if self.essa.is_tracked(r) && !reads.iter().any(|(x, _)| *x == r) {
                reads.push((r, self.top(r)));
            }
        });
        let mut defs = Vec::new();
        inst.for_each_def(|r| defs.push(r));
        let mut writes = Vec::new();
        for (def, r) in defs.into_iter().enumerate() {
            if !self.essa.is_tracked(r) {
                continue;
            }
            let prior = inst.guard.map(|_| self.top(r));
            let kind = ValueKind::Inst { inst: ih, def: def as u32, prior };
            let v = self.essa.values.alloc(Value { reg: r, kind });
            writes.push((r, v));
            self.push(r, v, pushed);
        }
        if let Some(slot) = self.essa.reads.get_mut(ih.index()) {
            *slot = reads;
        }
        if let Some(slot) = self.essa.writes.get_mut(ih.index()) {
            *slot = writes;
        }
    }

    /// Fills the arguments of `s`'s φs for the edge from `b` (through the edge's σs, if any).
    fn phi_args(&mut self, b: Handle<Block>, s: Handle<Block>) {
        let Some(index) = self.cfg.preds(s).iter().position(|&p| p == b) else { return };
        let edge_sigmas = if single_pred(self.cfg, s).is_none() { self.sigmas_on(b, s) } else { Vec::new() };
        let regs: Vec<(Handle<Reg>, Handle<Value>)> = self
            .phis
            .range((s, Handle::from_index(0))..)
            .take_while(|((blk, _), _)| *blk == s)
            .map(|((_, r), v)| (*r, *v))
            .collect();
        for (reg, phi) in regs {
            let arg = edge_sigmas.iter().find(|(r, _)| *r == reg).map_or_else(|| self.top(reg), |(_, v)| *v);
            if let Some(Value { kind: ValueKind::Phi { args, .. }, .. }) = self.essa.values.get_mut(phi) {
                if let Some(slot) = args.get_mut(index) {
                    *slot = arg;
                }
            }
        }
    }
}
