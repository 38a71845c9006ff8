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
//! | [`bitset`] | compact bit sets over 32-bit register units or definitions |
//! | [`cfg`] | control-flow graph with a virtual exit; call sites |
//! | [`dominators`] | dominators, dominance frontiers, post-dominators, reconvergence points |
//! | [`loops`] | natural loops, nesting, irreducible flow |
//! | [`def_use`] | reaching definitions, def-use and use-def chains |
//! | [`uniformity`] | values equal across a warp, divergent branches |
//! | [`use_counts`] | static uses per definition, reads-per-value histogram |
//! | [`liveness`] | live 32-bit register units per block and instruction, pressure, FineReg vectors |

pub mod bitset;
pub mod cfg;
pub mod def_use;
pub mod dominators;
mod live_solver;
pub mod liveness;
pub mod loops;
pub mod uniformity;
pub mod use_counts;

pub use bitset::{BitMatrix, BitSet, Bits};
pub use cfg::{CallSite, Callee, Cfg};
pub use def_use::{Def, DefId, DefUse, Use, UseId};
pub use dominators::{Dominators, PostDomNode, PostDominators};
pub use liveness::{Liveness, UnitMap};
pub use loops::{Loop, Loops};
pub use uniformity::{Uniformity, UniformityOptions};
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
}
