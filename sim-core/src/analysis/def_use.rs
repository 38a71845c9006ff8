//! Definitions, uses and the chains between them, from reaching definitions.
//!
//! ```text
//! mov.u32 %r1, 0;          // def d0 (%r1)
//! @%p1 mov.u32 %r1, 1;     // def d1 (%r1): guarded, so d0 still reaches below
//! add.s32 %r2, %r1, %r1;   // use u0 of %r1: reached by {d0, d1}; def d2 (%r2)
//! ```
//!
//! A *definition* is one register written by one instruction; a *use* is one register read by one
//! instruction (a register read twice by the same instruction, `add %r2, %r1, %r1`, is one use: the
//! hardware reads it once). Guards, address bases and call arguments are uses; call return
//! registers are definitions. An unguarded definition kills the register's earlier definitions,
//! a guarded one does not. A use reached by no definition reads a register parameter or an
//! uninitialised register.

use alloc::vec;
use alloc::vec::Vec;

use super::bitset::BitSet;
use super::cfg::Cfg;
use crate::ir::{Function, Handle, Inst, Reg};

/// Index of a definition in [`DefUse::defs`].
pub type DefId = u32;
/// Index of a use in [`DefUse::uses`].
pub type UseId = u32;

/// One register written by one instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Def {
    /// The register.
    pub reg: Handle<Reg>,
    /// The writing instruction.
    pub inst: Handle<Inst>,
}

/// One register read by one instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Use {
    /// The register.
    pub reg: Handle<Reg>,
    /// The reading instruction.
    pub inst: Handle<Inst>,
}

/// Flat lists addressed through offsets (`items[at[i]..at[i + 1]]`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct Lists {
    at: Vec<u32>,
    items: Vec<u32>,
}

impl Lists {
    fn from_pairs(n: usize, mut pairs: Vec<(u32, u32)>) -> Lists {
        crate::sorting::sort(&mut pairs);
        pairs.dedup();
        let mut at = vec![0u32; n + 1];
        for &(k, _) in &pairs {
            at[k as usize + 1] += 1;
        }
        for i in 0..n {
            at[i + 1] += at[i];
        }
        Lists { at, items: pairs.into_iter().map(|(_, v)| v).collect() }
    }

    fn get(&self, i: usize) -> &[u32] {
        match (self.at.get(i), self.at.get(i + 1)) {
            (Some(&a), Some(&b)) => self.items.get(a as usize..b as usize).unwrap_or(&[]),
            _ => &[],
        }
    }
}

/// Def-use and use-def chains of one function.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DefUse {
    defs: Vec<Def>,
    uses: Vec<Use>,
    reg_defs: Vec<u32>,
    inst_defs: Lists,
    inst_uses: Lists,
    use_defs: Lists,
    def_uses: Lists,
    reach_in: Vec<BitSet>,
}

impl DefUse {
    /// Computes reaching definitions and the chains for `kernel`.
    pub fn compute(kernel: &Function, cfg: &Cfg) -> DefUse {
        let Some(body) = &kernel.body else { return DefUse::default() };
        let (n_regs, n_insts) = (body.regs.len(), body.insts.len());
        // Definitions grouped by register (then instruction), so a register's are contiguous.
        let mut defs: Vec<Def> = Vec::new();
        let mut uses: Vec<Use> = Vec::new();
        for inst in body.insts_in_order() {
            let Some(i) = body.insts.get(inst) else { continue };
            let mut regs = Vec::new();
            i.for_each_def(|reg| regs.push(reg));
            crate::sorting::sort(&mut regs);
            regs.dedup();
            defs.extend(regs.into_iter().map(|reg| Def { reg, inst }));
            let mut regs = Vec::new();
            i.for_each_use(|reg| regs.push(reg));
            crate::sorting::sort(&mut regs);
            regs.dedup();
            uses.extend(regs.into_iter().map(|reg| Use { reg, inst }));
        }
        crate::sorting::sort_by_key(&mut defs, |d| (d.reg, cfg_order(cfg, d.inst)));
        let mut reg_defs = vec![0u32; n_regs + 1];
        for d in &defs {
            if let Some(slot) = reg_defs.get_mut(d.reg.index() + 1) {
                *slot += 1;
            }
        }
        for r in 0..n_regs {
            reg_defs[r + 1] += reg_defs[r];
        }
        let inst_defs =
            Lists::from_pairs(n_insts, defs.iter().enumerate().map(|(i, d)| (d.inst.raw(), i as u32)).collect());
        let inst_uses =
            Lists::from_pairs(n_insts, uses.iter().enumerate().map(|(i, u)| (u.inst.raw(), i as u32)).collect());
        let mut du = DefUse { defs, uses, reg_defs, inst_defs, inst_uses, ..DefUse::default() };
        let pairs = du.chain_pairs(kernel, cfg);
        du.def_uses = Lists::from_pairs(du.defs.len(), pairs.iter().map(|&(u, d)| (d, u)).collect());
        du.use_defs = Lists::from_pairs(du.uses.len(), pairs);
        du
    }

    /// (use, def) pairs from a forward reaching-definitions walk; keeps the sets at block entries.
    fn chain_pairs(&mut self, kernel: &Function, cfg: &Cfg) -> Vec<(UseId, DefId)> {
        let Some(body) = &kernel.body else { return Vec::new() };
        let n = self.defs.len();
        let mut reach_in = vec![BitSet::new(n); cfg.len()];
        let mut reach_out = vec![BitSet::new(n); cfg.len()];
        let mut order: Vec<_> = cfg.reverse_postorder().to_vec();
        order.extend(cfg.blocks().filter(|&b| !cfg.is_reachable(b)));
        let mut cur = BitSet::new(n);
        let mut changed = true;
        while changed {
            changed = false;
            for &b in &order {
                cur.clear();
                cfg.preds(b).iter().for_each(|p| {
                    cur.union_with(&reach_out[p.index()]);
                });
                reach_in[b.index()].copy_from(&cur);
                for &ih in &body.blocks[b].insts {
                    self.step(body, ih, &mut cur);
                }
                changed |= reach_out[b.index()].union_with(&cur);
            }
        }
        let mut pairs = Vec::new();
        for b in cfg.blocks() {
            cur.copy_from(&reach_in[b.index()]);
            for &ih in &body.blocks[b].insts {
                for &u in self.inst_uses.get(ih.index()) {
                    let r = self.reg_def_range(self.uses[u as usize].reg);
                    pairs.extend(cur.iter_range(r).map(|d| (u, d as u32)));
                }
                self.step(body, ih, &mut cur);
            }
        }
        self.reach_in = reach_in;
        pairs
    }

    /// The definitions that may reach the entry of `b`.
    pub fn reaching_at_entry(&self, b: Handle<crate::ir::Block>) -> Option<&BitSet> {
        self.reach_in.get(b.index())
    }

    /// Number of definitions.
    pub fn def_count(&self) -> usize {
        self.defs.len()
    }

    /// Applies the definitions of `ih` to a reaching set (kills, then adds them).
    pub fn step(&self, body: &crate::ir::Body, ih: Handle<Inst>, set: &mut BitSet) {
        self.kill(body, ih, set);
        for &d in self.inst_defs.get(ih.index()) {
            set.insert(d as usize);
        }
    }

    /// Removes from `set` the definitions an unguarded `ih` kills.
    pub fn kill(&self, body: &crate::ir::Body, ih: Handle<Inst>, set: &mut BitSet) {
        if body.insts.get(ih).is_none_or(|i| i.guard.is_some()) {
            return;
        }
        for &d in self.inst_defs.get(ih.index()) {
            let r = self.reg_def_range(self.defs[d as usize].reg);
            set.remove_range(r.start, r.len());
        }
    }

    /// The definitions of `reg`, as a range of ids.
    pub fn reg_def_range(&self, reg: Handle<Reg>) -> core::ops::Range<usize> {
        let i = reg.index();
        match (self.reg_defs.get(i), self.reg_defs.get(i + 1)) {
            (Some(&a), Some(&b)) => a as usize..b as usize,
            _ => 0..0,
        }
    }

    /// Every definition (grouped by register).
    pub fn defs(&self) -> &[Def] {
        &self.defs
    }

    /// Every use, in layout order.
    pub fn uses(&self) -> &[Use] {
        &self.uses
    }

    /// The definitions made by `inst`.
    pub fn defs_at(&self, inst: Handle<Inst>) -> &[DefId] {
        self.inst_defs.get(inst.index())
    }

    /// The uses made by `inst`.
    pub fn uses_at(&self, inst: Handle<Inst>) -> &[UseId] {
        self.inst_uses.get(inst.index())
    }

    /// The definitions that may reach use `u`.
    pub fn reaching(&self, u: UseId) -> &[DefId] {
        self.use_defs.get(u as usize)
    }

    /// The uses definition `d` may reach.
    pub fn uses_of(&self, d: DefId) -> &[UseId] {
        self.def_uses.get(d as usize)
    }
}

fn cfg_order(cfg: &Cfg, inst: Handle<Inst>) -> (usize, usize) {
    cfg.position(inst).map_or((usize::MAX, 0), |(b, i)| (b.index(), i))
}
