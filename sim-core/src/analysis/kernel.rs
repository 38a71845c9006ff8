//! Every analysis of one function, computed once in dependency order, and of a whole module
//! (where registers per thread include what called functions need).
//!
//! ```text
//! .visible .entry k(...) { ...; call (r), f, (a); ... }   // registers_per_thread(k) =
//! .func (...) f(...) { ... }                               //   max(own(k), live across + own(f))
//! ```

use alloc::vec;
use alloc::vec::Vec;

use super::alloc_target::AllocTarget;
use super::cfg::{Callee, Cfg};
use super::def_use::DefUse;
use super::dominators::{Dominators, PostDominators};
use super::latency_schedule;
use super::liveness::Liveness;
use super::loops::Loops;
use super::ptxas_compare_hoist;
use super::ptxas_dead_code;
use super::ptxas_pointer_copy;
use super::ptxas_unroll;
use super::regalloc::Allocation;
use super::uniformity::{Uniformity, UniformityOptions};
use super::use_counts::UseCounts;
use crate::ir::{Function, Handle, Module};

/// Options of the analyses.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct AnalysisOptions {
    /// What the launch tells uniformity.
    pub uniformity: UniformityOptions,
    /// The GPU generation the register estimate is for (default: the module's `.target`).
    pub target: Option<AllocTarget>,
}

/// All analyses of one function.
#[derive(Clone, Debug, Default)]
pub struct KernelAnalysis {
    /// Control-flow graph.
    pub cfg: Cfg,
    /// Dominator tree.
    pub dominators: Dominators,
    /// Post-dominator tree (reconvergence points).
    pub post_dominators: PostDominators,
    /// Natural loops.
    pub loops: Loops,
    /// Live register units.
    pub liveness: Liveness,
    /// Def-use chains.
    pub def_use: DefUse,
    /// Uses per definition.
    pub use_counts: UseCounts,
    /// Uniform values and divergent branches.
    pub uniformity: Uniformity,
    /// Register allocation estimate (this function alone).
    pub allocation: Allocation,
}

impl KernelAnalysis {
    /// Runs every analysis on `kernel`.
    pub fn compute(kernel: &Function, opts: &AnalysisOptions) -> KernelAnalysis {
        KernelAnalysis::compute_for(kernel, opts.uniformity, opts.target.unwrap_or_default())
    }

    /// Runs every analysis on `kernel`, estimating registers for `target`.
    pub fn compute_for(kernel: &Function, uniformity: UniformityOptions, target: AllocTarget) -> KernelAnalysis {
        let analysis = KernelAnalysis::in_ptx_order(kernel, uniformity, target);
        if target.debug() {
            // Debug code is issued in PTX order.
            return analysis;
        }
        // The count follows the order ptxas issues instructions in (small loops unrolled, loads
        // early, within the full-occupancy budget); the physical registers stay those of the PTX
        // order.
        // Computations nothing reads are gone first (`ptxas_dead_code`); then, before Volta,
        // stepped store pointers are copied (`ptxas_pointer_copy`).
        let live_code = ptxas_dead_code::without_dead_code(kernel);
        let pointers = ptxas_pointer_copy::copy_stepped_pointers(live_code.as_ref().unwrap_or(kernel), target);
        let copied = pointers.or(live_code);
        let copied = ptxas_compare_hoist::hoist_compares(copied.as_ref().unwrap_or(kernel)).or(copied);
        let reshaped = ptxas_unroll::unroll(copied.as_ref().unwrap_or(kernel)).or(copied);
        let issued = match reshaped {
            Some(copy) => {
                let live = Liveness::compute(&copy, &Cfg::compute(&copy));
                Some(latency_schedule::schedule(&copy, &live, target).unwrap_or(copy))
            }
            None => latency_schedule::schedule(kernel, &analysis.liveness, target),
        };
        match issued {
            Some(issued) => {
                let count = KernelAnalysis::in_ptx_order(&issued, uniformity, target).allocation;
                // ptxas schedules within the full-occupancy budget: issuing early never takes
                // the count above that budget or, past it, above the PTX order's.
                let limit = analysis.allocation.registers().max(latency_schedule::full_occupancy_registers(target));
                KernelAnalysis { allocation: analysis.allocation.with_count_of(count, limit), ..analysis }
            }
            None => analysis,
        }
    }

    /// Every analysis of `kernel` as written, its register estimate included.
    fn in_ptx_order(kernel: &Function, uniformity: UniformityOptions, target: AllocTarget) -> KernelAnalysis {
        let cfg = Cfg::compute(kernel);
        let dominators = Dominators::compute(&cfg);
        let post_dominators = PostDominators::compute(&cfg);
        let loops = Loops::compute(&cfg, &dominators);
        let liveness = Liveness::compute(kernel, &cfg);
        let def_use = DefUse::compute(kernel, &cfg);
        let use_counts = UseCounts::compute(&def_use);
        let uniformity = Uniformity::compute(kernel, &cfg, &post_dominators, &def_use, uniformity);
        let allocation = Allocation::compute_uniform(
            kernel,
            &cfg,
            &dominators,
            &loops,
            &def_use,
            &liveness,
            Some(&uniformity),
            target,
        );
        KernelAnalysis {
            cfg,
            dominators,
            post_dominators,
            loops,
            liveness,
            def_use,
            use_counts,
            uniformity,
            allocation,
        }
    }
}

/// The analyses of every defined function of a module.
#[derive(Clone, Debug, Default)]
pub struct ModuleAnalysis {
    functions: Vec<Option<KernelAnalysis>>,
    registers: Vec<u32>,
    /// The target's maximum registers per thread (a caller's total never exceeds it).
    cap: u32,
}

impl ModuleAnalysis {
    /// Analyses every function of `module` that has a body.
    pub fn compute(module: &Module, opts: &AnalysisOptions) -> ModuleAnalysis {
        let target = opts.target.map_or_else(|| AllocTarget::of_module(module), |t| t.compiling(module));
        let functions: Vec<Option<KernelAnalysis>> = module
            .functions
            .values()
            .map(|f| f.body.as_ref().map(|_| KernelAnalysis::compute_for(f, opts.uniformity, target)))
            .collect();
        let mut m = ModuleAnalysis { registers: vec![0; functions.len()], functions, cap: target.max_registers() };
        let mut state = vec![0u8; m.functions.len()];
        for f in 0..m.functions.len() {
            m.total(f, &mut state);
        }
        m
    }

    /// The analyses of function `f` (`None` for a declaration).
    pub fn get(&self, f: Handle<Function>) -> Option<&KernelAnalysis> {
        self.functions.get(f.index()).and_then(Option::as_ref)
    }

    /// Registers per thread of `f` including what its callees need while it waits for them: the
    /// maximum of its own allocation and, over its call sites, the registers live across the call
    /// plus the callee's registers per thread (a recursive call counts the callee's own).
    pub fn registers_per_thread(&self, f: Handle<Function>) -> u32 {
        self.registers.get(f.index()).copied().unwrap_or(0)
    }

    fn total(&mut self, f: usize, state: &mut [u8]) -> u32 {
        match state[f] {
            2 => return self.registers[f],
            1 => return self.functions[f].as_ref().map_or(0, |a| a.allocation.registers()),
            _ => {}
        }
        state[f] = 1;
        let Some(a) = &self.functions[f] else {
            state[f] = 2;
            return 0;
        };
        let own = a.allocation.registers();
        let calls: Vec<(u32, Option<usize>)> = a
            .cfg
            .call_sites()
            .iter()
            .map(|c| {
                let across = a.allocation.live_across_calls().iter().find(|x| x.0 == c.inst).map_or(0, |x| x.1);
                let callee = match c.callee {
                    Callee::Direct(h) => Some(h.index()),
                    _ => None,
                };
                (across, callee)
            })
            .collect();
        let mut total = own;
        for (across, callee) in calls {
            let inner = callee.map_or(0, |c| self.total(c, state));
            total = total.max(inner.max(across));
        }
        self.registers[f] = total.min(self.cap);
        state[f] = 2;
        total
    }
}
