//! Static analyses of one function body (pure functions of the IR, each a struct with a
//! `compute` constructor and query methods) and the IR → IR passes of the register-file schemes
//! that build on them (their results go through the verifier again).
//!
//! ```text
//! ld.const.f32 %f2, [%rd1+4];   // SingleUseLoads: read once, by the mul (DeMO)
//! mul.ftz.f32 %f3, %f2, %f1;    // demo_rewrite: mul.ftz.f32 %f3, %c[%rd1+4], %f1
//! xor.b32 %r0, %r2, %r0;        // CompositePairs: add/logic-shift with the shr (Gilani)
//! shr.u32 %r0, %r0, 31;         // composite_fuse: xor.b32_shr.u32 %r0, %r2, %r0, 31
//! ```
//!
//! | module | analysis or pass |
//! |---|---|
//! | [`block_liveness`] | registers live at block ends |
//! | [`single_use_loads`] | DeMO Algorithm 1: loads whose value is read exactly once |
//! | [`demo_rewrite`] | DeMO Algorithm 2: consumers read memory directly (IR → IR) |
//! | [`composite`] | Gilani Table 1 composite-instruction pairs |
//! | [`composite_fuse`] | composite instructions with the composite register file (IR → IR) |

pub mod block_liveness;
pub mod composite;
pub mod composite_fuse;
pub mod demo_rewrite;
pub mod rebuild;
pub mod single_use_loads;

pub use composite::{CompositePair, CompositePairs, CompositeRules, Placement};
pub use composite_fuse::{composite_fuse, CompositeFusion};
pub use demo_rewrite::{demo_rewrite, DemoRewrite};
pub use single_use_loads::{SingleUse, SingleUseLoads};
