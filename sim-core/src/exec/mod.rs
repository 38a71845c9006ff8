//! The functional SIMT executor: runs PTX kernels of the IR with a launch setup and gives their
//! outputs, instruction counts, and — for the timing model — each warp's dynamic instruction
//! stream, CTA by CTA.
//!
//! ```text
//! .visible .entry add(.param .u64 in, .param .u64 out) {
//!   ld.param.u64 %rd1, [in]; ld.u64 %rd2, [%rd1]; add.u64 %rd2, %rd2, 1; ...
//! }
//! // run(&module, &LaunchSetup { kernel: "add", params: [buffer u64 [1], buffer u64 [0]], .. })
//! //   → outputs {1: [2]}, warp_instructions 6
//! ```
//!
//! How it works: [`plan`] checks the [`LaunchSetup`]; [`image`] lays out the module's `.global`
//! and `.const` data; buffers are allocated in [`memory`] at separated addresses; [`decode`]
//! turns the kernel and its callees into a flat [`program`] with reconvergence points from the
//! post-dominator analysis. A [`Run`] then executes CTA after CTA ([`cta`]): warps one at a time
//! until a barrier ([`execute`], [`warp`], [`simt_stack`], [`calls`]), instructions by family
//! ([`semantics`]). Everything is deterministic: CTAs in linear order, warps in index order,
//! lanes in ascending order (also for atomics), no hashing, no host time. `%clock`, `%clock64`
//! and `%globaltimer` read the warp's count of executed warp-instructions. `vprintf` is a no-op
//! returning 0; 1D and 2D textures are read through descriptors in global memory ([`texture`]);
//! surfaces and calls to functions the module does not define end the run with an "unsupported
//! here" error naming the instruction. `T**` parameters take pointer tables ([`pointer_table`]).
//!
//! The public API:
//!
//! | what | where |
//! |---|---|
//! | the launch JSON (`docs/launch-format.md`) | [`LaunchSetup`] (`from_json`, `to_json`), [`ParamSpec`], [`Value`] |
//! | a setup for a pasted kernel | [`propose_launch`]`(&module, "kernel") -> LaunchSetup` |
//! | running to the end | [`run()`]`(&module, &setup) -> Result<RunResult, ExecError>` |
//! | running in slices (progress, cancel) | [`Run::new`], [`Run::step`]`(max) -> Progress`, [`Run::result`] |
//! | the instruction stream for the timing model | [`RunOptions::trace`], [`Run::next_cta`]` -> CtaTrace` |
//! | why a run stopped | [`ExecError`] (`fault`, `budget_exceeded`, `unsupported`, `trap`, `deadlock`, `invalid_launch`) |

pub mod budget;
pub mod calls;
pub mod cta;
pub mod decode;
pub mod error;
pub mod execute;
pub mod float_formats;
pub mod float_tuning;
pub mod image;
pub mod launch;
pub mod launch_struct;
pub mod memory;
pub mod notice;
pub mod op;
pub mod plan;
pub mod pointer_table;
pub mod program;
pub mod propose;
mod propose_buffer;
mod propose_extent;
mod propose_struct;
mod propose_table;
mod propose_texture;
pub mod run;
pub mod semantics;
pub mod simt_stack;
pub mod stream;
pub mod texture;
pub mod value;
pub mod value_summary;
pub mod warp;
pub mod wavefront;
pub mod wavefront_check;

pub use budget::HotLoop;
pub use error::{ExecError, Fault, Site};
pub use execute::Counters;
pub use launch::{
    BufferSpec, FieldSpec, Init, LaunchSetup, LaunchStep, ParamSpec, Repeat, ScalarSpec, ScalarValue, DEFAULT_BUDGET,
};
pub use memory::{FaultReason, Space};
pub use notice::{Notice, NoticeKind};
pub use plan::{LaunchError, Plan};
pub use propose::{propose, propose_launch, Proposal, ProposalNote};
pub use run::{run, LaunchStats, Progress, Run, RunOptions, RunResult};
pub use stream::{CtaTrace, RecordKind, TraceOptions, TraceRecord, WarpTrace};
pub use texture::{AddressMode, Filter, TextureSpec};
pub use value::{ElemType, Value};
pub use value_summary::ValueSummary;
