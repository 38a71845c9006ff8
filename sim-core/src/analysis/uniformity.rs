//! Static uniformity: which values are provably equal in every thread of a warp that computes
//! them, and which branches may diverge.
//!
//! ```text
//! mov.u32 %r1, %ctaid.x;        // uniform: the CTA index is one value per warp
//! mov.u32 %r2, %tid.x;          // varying
//! setp.lt.u32 %p1, %r2, 16;     // varying → the branch below may diverge
//! @%p1 bra $L1;
//! add.s32 %r1, %r1, 1;          // uniform among the threads that run it
//! $L1:                          // reconvergence point: %r1 is now a merge of two values under
//! st.global.u32 [%rd1], %r1;    // divergent control → varying here
//! ```
//!
//! Sources of uniform values: `%ctaid`, `%nctaid`, `%ntid`, cluster ids, `%warpid`, `%smid`,
//! `%gridid`, `WARP_SZ`, immediates, symbol addresses, kernel parameters (`ld.param` of an `.entry`
//! parameter), loads from `.const`, `ld.global.nc` and `ldu` (read-only data: the same address
//! gives the same value), `vote`, `activemask`, `redux.sync` and `bar.red` (one result for all
//! threads), and any other instruction whose inputs are all uniform. Sources of variation: `%tid`
//! (unless the launch's block shape makes a component uniform, see [`UniformityOptions`]),
//! `%laneid`, lane masks, clocks, atomics, shuffles, `match`, `elect`, matrix fragments, other
//! loads (a uniform address is not enough: another thread may write in between), results of
//! `call`, `.func` parameters, and reads of never-written registers.
//!
//! Control: "uniform" means equal across the threads that *execute* the instruction (as the
//! scalar unit of Gilani et al. sees it). A value written inside the region of a divergent branch
//! (the blocks between the branch and its reconvergence point, its immediate post-dominator) is
//! uniform among the threads that wrote it, but where that region rejoins, at the reconvergence
//! point, threads hold different values: every use that such a definition reaches through the
//! reconvergence point is varying (this covers if/else merges and values leaving a loop with a
//! divergent exit). A guarded write with a varying guard is varying. `bra.uni` is trusted.

use alloc::vec;
use alloc::vec::Vec;

use super::bitset::BitSet;
use super::cfg::Cfg;
use super::def_use::{DefId, DefUse, UseId};
use super::dominators::PostDominators;
use crate::ir::{AddressBase, BarMode, Block, Function, Handle, Inst, Opcode, Operand, SpecialReg, StateSpace, Symbol};

/// What the launch tells the analysis.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct UniformityOptions {
    /// CTA shape (`%ntid`), if known: `%tid.y` is uniform when `x` is a multiple of 32 or `y` is
    /// 1, `%tid.z` when `x·y` is a multiple of 32 or `z` is 1, `%tid.x` when `x` is 1.
    pub block: Option<[u32; 3]>,
}

/// How an instruction's results relate to its inputs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    /// Varying whatever the inputs.
    Varying,
    /// Uniform whatever the inputs.
    Uniform,
    /// Uniform if every input is.
    FromInputs,
}

/// Uniformity of one function's values, instructions and branches.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Uniformity {
    varying_def: Vec<bool>,
    varying_use: Vec<bool>,
    uniform_inst: Vec<bool>,
    divergent: Vec<bool>,
}

impl Uniformity {
    /// Computes uniformity of `kernel`.
    pub fn compute(
        kernel: &Function,
        cfg: &Cfg,
        pdom: &PostDominators,
        du: &DefUse,
        opts: UniformityOptions,
    ) -> Uniformity {
        let Some(body) = &kernel.body else { return Uniformity::default() };
        let kinds: Vec<Kind> = body.insts.values().map(|i| kind(kernel, i, opts)).collect();
        let mut divergent = vec![false; cfg.len()];
        loop {
            let tainted = taint(kernel, cfg, pdom, du, &divergent);
            let (varying_def, varying_use) = propagate(du, &kinds, &tainted);
            let next: Vec<bool> = cfg
                .blocks()
                .map(|b| cfg.branch(b).is_some_and(|br| is_divergent(body, br, du, &varying_use)))
                .collect();
            if next == divergent {
                let uniform_inst =
                    body.insts.handles().map(|ih| inst_uniform(du, ih, &varying_def, &varying_use)).collect();
                return Uniformity { varying_def, varying_use, uniform_inst, divergent };
            }
            divergent = next;
        }
    }

    /// True if definition `d` holds one value across the threads that execute it.
    pub fn is_uniform_def(&self, d: DefId) -> bool {
        !self.varying_def.get(d as usize).copied().unwrap_or(true)
    }

    /// True if the value read by use `u` is the same in every thread reading it.
    pub fn is_uniform_use(&self, u: UseId) -> bool {
        !self.varying_use.get(u as usize).copied().unwrap_or(true)
    }

    /// True if every result of `inst` is uniform; for an instruction without results (a store,
    /// a branch), if every register it reads is.
    pub fn is_uniform(&self, inst: Handle<Inst>) -> bool {
        self.uniform_inst.get(inst.index()).copied().unwrap_or(false)
    }

    /// True if the branch ending `b` may send the threads of a warp different ways.
    pub fn is_divergent_branch(&self, b: Handle<Block>) -> bool {
        self.divergent.get(b.index()).copied().unwrap_or(false)
    }
}

fn inst_uniform(du: &DefUse, ih: Handle<Inst>, varying_def: &[bool], varying_use: &[bool]) -> bool {
    let defs = du.defs_at(ih);
    if defs.is_empty() {
        du.uses_at(ih).iter().all(|&u| !varying_use[u as usize])
    } else {
        defs.iter().all(|&d| !varying_def[d as usize])
    }
}

fn is_divergent(body: &crate::ir::Body, br: Handle<Inst>, du: &DefUse, varying_use: &[bool]) -> bool {
    if body.insts.get(br).is_some_and(|i| i.mods.uni) {
        return false;
    }
    du.uses_at(br).iter().any(|&u| varying_use[u as usize])
}

/// Varying definitions and uses, by a worklist from the sources of variation.
fn propagate(du: &DefUse, kinds: &[Kind], tainted: &[bool]) -> (Vec<bool>, Vec<bool>) {
    let mut varying_def = vec![false; du.def_count()];
    let mut varying_use = vec![false; du.uses().len()];
    let mut work: Vec<DefId> = Vec::new();
    let mark_inst = |inst: Handle<Inst>, varying_def: &mut Vec<bool>, work: &mut Vec<DefId>| {
        for &d in du.defs_at(inst) {
            if !varying_def[d as usize] {
                varying_def[d as usize] = true;
                work.push(d);
            }
        }
    };
    for (u, usage) in du.uses().iter().enumerate() {
        if tainted[u] || du.reaching(u as UseId).is_empty() {
            varying_use[u] = true;
            if kinds.get(usage.inst.index()) == Some(&Kind::FromInputs) {
                mark_inst(usage.inst, &mut varying_def, &mut work);
            }
        }
    }
    for (i, k) in kinds.iter().enumerate() {
        if *k == Kind::Varying {
            mark_inst(Handle::from_index(i as u32), &mut varying_def, &mut work);
        }
    }
    while let Some(d) = work.pop() {
        for &u in du.uses_of(d) {
            varying_use[u as usize] = true;
            let inst = du.uses()[u as usize].inst;
            if kinds.get(inst.index()) == Some(&Kind::FromInputs) {
                mark_inst(inst, &mut varying_def, &mut work);
            }
        }
    }
    (varying_def, varying_use)
}

/// Uses reached, through a reconvergence point, by a definition made inside the region of a
/// divergent branch.
fn taint(kernel: &Function, cfg: &Cfg, pdom: &PostDominators, du: &DefUse, divergent: &[bool]) -> Vec<bool> {
    let mut tainted = vec![false; du.uses().len()];
    let Some(body) = &kernel.body else { return tainted };
    let n = du.def_count();
    let mut gen = vec![BitSet::new(n); cfg.len()];
    let mut any = false;
    for x in cfg.blocks().filter(|b| divergent[b.index()]) {
        let Some(p) = pdom.reconvergence_point(x) else { continue };
        let Some(reach) = du.reaching_at_entry(p) else { continue };
        for b in region(cfg, x, p) {
            for &ih in &body.blocks[b].insts {
                for &d in du.defs_at(ih) {
                    if reach.contains(d as usize) {
                        any |= gen[p.index()].insert(d as usize);
                    }
                }
            }
        }
    }
    if !any {
        return tainted;
    }
    let mut t_in = vec![BitSet::new(n); cfg.len()];
    let mut t_out = vec![BitSet::new(n); cfg.len()];
    let mut cur = BitSet::new(n);
    let mut changed = true;
    while changed {
        changed = false;
        for &b in cfg.reverse_postorder() {
            cur.copy_from(&gen[b.index()]);
            cfg.preds(b).iter().for_each(|p| {
                cur.union_with(&t_out[p.index()]);
            });
            t_in[b.index()].copy_from(&cur);
            body.blocks[b].insts.iter().for_each(|&ih| du.kill(body, ih, &mut cur));
            changed |= t_out[b.index()].union_with(&cur);
        }
    }
    for &b in cfg.reverse_postorder() {
        cur.copy_from(&t_in[b.index()]);
        for &ih in &body.blocks[b].insts {
            for &u in du.uses_at(ih) {
                tainted[u as usize] = du.reaching(u).iter().any(|&d| cur.contains(d as usize));
            }
            du.kill(body, ih, &mut cur);
        }
    }
    tainted
}

/// Blocks reachable from the successors of `x` without passing through `p`.
fn region(cfg: &Cfg, x: Handle<Block>, p: Handle<Block>) -> Vec<Handle<Block>> {
    let mut seen = vec![false; cfg.len()];
    let mut stack: Vec<Handle<Block>> = cfg.succs(x).iter().copied().filter(|&s| s != p).collect();
    stack.iter().for_each(|s| seen[s.index()] = true);
    let mut out = Vec::new();
    while let Some(b) = stack.pop() {
        out.push(b);
        for &s in cfg.succs(b) {
            if s != p && !seen[s.index()] {
                seen[s.index()] = true;
                stack.push(s);
            }
        }
    }
    out
}

/// How the instruction's results depend on its inputs.
fn kind(kernel: &Function, inst: &Inst, opts: UniformityOptions) -> Kind {
    if inst.uses().iter().any(|op| matches!(op, Operand::Special(s) if varying_special(*s, opts))) {
        return Kind::Varying;
    }
    use Opcode::*;
    match inst.opcode {
        Vote | Activemask | Redux => Kind::Uniform,
        Bar | Barrier if inst.mods.bar_mode == Some(BarMode::Red) => Kind::Uniform,
        Ld => load_kind(kernel, inst),
        Ldu | Tex | Tld4 | Txq => Kind::FromInputs,
        Atom | Shfl | Match | Elect | Mma | MmaSp | WmmaLoad | WmmaMma | Ldmatrix | WgmmaMmaAsync | Suld | Suq
        | Call | Alloca | Stacksave | MbarrierArrive | MbarrierArriveDrop | MbarrierTestWait | MbarrierTryWait
        | MbarrierPendingCount | Isspacep | Getctarank | Mapa => Kind::Varying,
        _ => Kind::FromInputs,
    }
}

fn load_kind(kernel: &Function, inst: &Inst) -> Kind {
    match inst.mods.space {
        Some(StateSpace::Const) => Kind::FromInputs,
        Some(StateSpace::Global) if inst.mods.nc => Kind::FromInputs,
        Some(s) if s.is_param() => {
            let base = inst.uses().iter().find_map(|op| match op {
                Operand::Address(a) => Some(a.base),
                _ => None,
            });
            let kernel_param = matches!(base, Some(AddressBase::Symbol(Symbol::Param(_))));
            if kernel.is_entry() && kernel_param {
                Kind::Uniform
            } else {
                Kind::Varying
            }
        }
        _ => Kind::Varying,
    }
}

fn varying_special(s: SpecialReg, opts: UniformityOptions) -> bool {
    use crate::ir::Dim;
    use SpecialReg::*;
    match s {
        Tid(d) => {
            let Some([x, y, z]) = opts.block else { return true };
            match d {
                Dim::X => x != 1,
                Dim::Y => !(y == 1 || x % 32 == 0),
                Dim::Z => !(z == 1 || (x * y) % 32 == 0),
            }
        }
        Laneid | LanemaskEq | LanemaskLe | LanemaskLt | LanemaskGe | LanemaskGt | Clock | ClockHi | Clock64
        | Globaltimer | GlobaltimerLo | GlobaltimerHi | Pm(_) | Pm64(_) => true,
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::test_util::kernel;

    fn analyse(m: &crate::ir::Module, opts: UniformityOptions) -> (Vec<Handle<Inst>>, Uniformity) {
        let f = &m.functions[Handle::from_index(0)];
        let cfg = Cfg::compute(f);
        let pdom = PostDominators::compute(&cfg);
        let du = DefUse::compute(f, &cfg);
        let insts = f.body.as_ref().map(|b| b.insts_in_order().collect()).unwrap_or_default();
        (insts, Uniformity::compute(f, &cfg, &pdom, &du, opts))
    }

    #[test]
    fn divergent_merge_and_launch_shape() {
        let m = kernel(
            ".reg .pred %p<2>; .reg .b32 %r<5>;
             mov.u32 %r1, %tid.y;
             mov.u32 %r2, %ctaid.x;
             setp.eq.s32 %p1, %r1, 0;
             mov.u32 %r3, 1;
             @%p1 bra J;
             mov.u32 %r3, %r2;
             J: add.s32 %r4, %r3, 1;
             ret;",
        );
        let (insts, u) = analyse(&m, UniformityOptions::default());
        assert!(!u.is_uniform(insts[0]) && u.is_uniform(insts[1]));
        assert!(u.is_divergent_branch(Handle::from_index(0)));
        assert!(u.is_uniform(insts[5])); // uniform among the threads that run it
        assert!(!u.is_uniform(insts[6])); // a merge under divergent control
        let (_, u) = analyse(&m, UniformityOptions { block: Some([64, 4, 1]) });
        assert!(!u.is_divergent_branch(Handle::from_index(0)));
        assert!(u.is_uniform(insts[6]));
    }
}
