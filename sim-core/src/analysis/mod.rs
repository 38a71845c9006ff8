//! Static analyses of one function body: pure functions of the IR, each a struct with a
//! `compute` constructor and query methods, never mutating what they analyse.
//!
//! ```text
//! .visible .entry k(.param .u64 p) {
//!   .reg .pred %p<2>; .reg .b32 %r<3>;
//!   mov.u32 %r1, %tid.x;          // Cfg: one block …; Liveness: %r1 live after this line
//!   setp.eq.s32 %p1, %r1, 0;      // Uniformity: %r1, %p1 vary across the warp
//!   @%p1 bra DONE;                // PostDominators: a divergent warp reconverges at DONE
//!   …
//! }
//! ```
//!
//! | module | analysis |
//! |---|---|
//! | [`kernel`] | every analysis of a function / module at once; registers per thread with callees |
//! | [`annotations`] | per-instruction facts for listings, with hooks for later analyses |
//! | [`bitset`] | compact bit sets over 32-bit register units or definitions |
//! | [`cfg`] | control-flow graph with a virtual exit; call sites |
//! | [`dominators`] | dominators, dominance frontiers, post-dominators, reconvergence points |
//! | [`loops`] | natural loops, nesting, irreducible flow |
//! | [`def_use`] | reaching definitions, def-use and use-def chains |
//! | [`regalloc`] | registers per thread: interference-graph colouring with pairs, coalescing, rematerialisation |
//! | [`uniformity`] | values equal across a warp, divergent branches |
//! | [`use_counts`] | static uses per definition, reads-per-value histogram |
//! | [`liveness`] | live 32-bit register units per block and instruction, pressure, FineReg vectors |
//! | [`essa`] | e-SSA view: values per write, φ at joins, σ after compares and branches |
//! | [`ranges`] | integer range analysis → bitwidth and signedness per value ([`interval`], [`range_seeds`]) |
//! | [`single_use_loads`] | DeMO Algorithm 1: loads whose value is read exactly once |
//! | [`demo_rewrite`](mod@demo_rewrite) | DeMO Algorithm 2: consumers read memory directly (IR → IR pass) |
//! | [`composite`] | Gilani Table 1 composite-instruction pairs |
//! | [`composite_fuse`](mod@composite_fuse) | composite instructions and the composite register file (IR → IR pass) |
//! | [`scheme_annotations`] | the schemes' results in the per-instruction [`Annotations`] |
//! | [`rebuild`] | the common tail of the IR → IR passes: a body from new instruction lists |

mod alloc_target;
mod alloc_uniform;
pub(crate) mod alloc_values;
pub mod annotations;
pub mod bitset;
pub mod cfg;
pub mod composite;
pub mod composite_fuse;
pub mod def_use;
pub mod demo_rewrite;
pub mod dominators;
pub mod essa;
mod essa_place;
mod interference;
pub mod interval;
pub mod kernel;
pub mod latency_schedule;
mod live_solver;
pub mod liveness;
pub mod loops;
pub mod ptxas_compare_hoist;
pub mod ptxas_dead_code;
pub mod ptxas_pointer_copy;
pub mod ptxas_unroll;
pub mod range_seeds;
mod range_solver;
mod range_transfer;
pub mod ranges;
pub mod rebuild;
pub mod regalloc;
pub mod scheme_annotations;
pub mod single_use_loads;
pub mod slice_alloc;
pub mod uniformity;
pub mod uninitialised;
pub mod use_counts;

pub use alloc_target::AllocTarget;
pub use annotations::{declared_width, Annotations, DefInfo, InstInfo, Width};
pub use bitset::{BitMatrix, BitSet, Bits};
pub use cfg::{CallSite, Callee, Cfg};
pub use composite::{CompositePair, CompositePairs, CompositeRules, Placement};
pub use composite_fuse::{composite_fuse, CompositeFusion};
pub use def_use::{Def, DefId, DefUse, Use, UseId};
pub use demo_rewrite::{demo_rewrite, DemoRewrite};
pub use dominators::{Dominators, PostDomNode, PostDominators};
pub use essa::Essa;
pub use interval::{BitWidth, Interp, Interval};
pub use kernel::{AnalysisOptions, KernelAnalysis, ModuleAnalysis};
pub use liveness::{Liveness, UnitMap};
pub use loops::{Loop, Loops};
pub use range_seeds::RangeSeeds;
pub use ranges::RangeAnalysis;
pub use regalloc::Allocation;
pub use scheme_annotations::annotate_schemes;
pub use single_use_loads::{SingleUse, SingleUseLoads};
pub use uniformity::{Uniformity, UniformityOptions};
pub use uninitialised::UninitialisedReads;
pub use use_counts::{ReadsHistogram, UseCounts};

#[cfg(test)]
pub(crate) mod test_util {
    use crate::ir::Module;

    /// Compiles a one-kernel module whose body is `body` (declarations and instructions); a
    /// failure is reported through an empty module so the test's assertions fail visibly.
    pub fn kernel(body: &str) -> Module {
        let src = alloc::format!(
            ".version 7.0\n.target sm_80\n.address_size 64\n.visible .entry k(.param .u64 k_p0)\n{{\n{body}\n}}\n"
        );
        match crate::ptx::compile(&src) {
            Ok(m) => m,
            Err(d) => {
                assert!(d.is_empty(), "test kernel does not compile: {d:?}");
                Module::default()
            }
        }
    }

    /// The text of the one-kernel module of `body` ([`kernel`]) with its kernel replaced by what
    /// `pass` makes of it; `None` when the pass leaves it as it is.
    pub fn passed(
        body: &str,
        pass: impl Fn(&crate::ir::Function) -> Option<crate::ir::Function>,
    ) -> Option<alloc::string::String> {
        use alloc::string::ToString;
        let mut module = kernel(body);
        let h = crate::ir::Handle::from_index(0);
        let out = pass(module.functions.get(h)?)?;
        if let Some(slot) = module.functions.get_mut(h) {
            *slot = out;
        }
        Some(module.to_string())
    }
}
