//! # RegLab simulation core
//!
//! Everything RegLab computes lives here, free of any platform code, so that the same model runs
//! natively (the `reglab` CLI) and in the browser (the Yew front end compiled to WebAssembly).
//! The crate is `no_std` + `alloc`; the `std` feature only adds native conveniences.
//!
//! ## The pipeline (data flows one way)
//!
//! ```text
//! PTX text
//!  └─ ptx::lexer    → tokens with byte spans (also drives the editor's highlighting)
//!  └─ ptx::parse    → AST with spans; every error is a `Diagnostic` (line, column, message, hint)
//!      └─ ptx::lower → IR: Module → Kernel → Block → Inst, typed virtual registers
//!          └─ analysis (pure functions of the IR: cfg, liveness, allocation, ranges, …)
//!          └─ occupancy (kernel resources × GPU preset × launch)
//!          └─ exec (functional SIMT interpreter) → per-warp instruction streams
//!              └─ timing (cycle-level SM model) + register-file scheme → `Report`
//! ```
//!
//! Each stage consumes the previous stage's output and never reaches back. Analyses never mutate
//! the IR; transformations are IR → IR functions whose result goes through the verifier again.
//!
//! ## The front end in one call
//!
//! ```text
//! let module = sim_core::ptx::compile(src)?;     // parse + lower + verify, or every error
//! let checked = sim_core::ptx::check(src);       // the same, keeping warnings (for an editor)
//! let text = sim_core::ptx::emit(&module);       // IR → PTX that compiles back to the same IR
//! let summary = sim_core::ptx::summary(&module); // kernels, instruction/register/block counts
//! ```
//!
//! ## IR invariants (checked by [`ir::verify`])
//!
//! - Every `Handle` in a function points into that function's arenas (registers, variables,
//!   blocks, instructions, prototypes) or the module's (globals, functions, externals).
//! - Register names are unique per function: shadowing declarations in nested `{ }` scopes were
//!   renamed (`%r1$1`), vector registers split into scalars (`v$x` …), `%r<N>` expanded.
//! - Every instruction belongs to exactly one block; a branch, `ret` or `exit` ends its block; a
//!   block without an unconditional terminator falls through to the next block in layout order.
//! - Operands respect the instruction's type (register widths, predicate positions, immediate
//!   kinds), vector lengths match `.v2`/`.v4`, and destinations are registers.
//! - Every modifier of the source is in a typed field of `ir::Modifiers`; the text form
//!   (`Display`) is deterministic PTX and re-parses to an equal IR (spans aside).
//!
//! ## Where each stage lives
//!
//! | module | stage |
//! |---|---|
//! | [`diagnostic`] | spans, line/column mapping, the one `Diagnostic` type (text and HTML) |
//! | [`diff`] | line diffs (Myers), and a scheme's rewritten kernel beside the original with reasons |
//! | [`gpu`] | `GpuConfig` (one struct per concern, every field sourced) and the paper presets |
//! | [`occupancy`] | NVIDIA's exact occupancy rules (cc 1.3–9.0), GCN3 dispatch limits, the three curves |
//! | [`ir`] | the IR: modules, functions, blocks, typed instructions, text form, verifier |
//! | [`ptx`] | the PTX front end: lexer, parser → AST, lowering → IR, emitter IR → PTX |
//! | [`exec`] | the functional SIMT executor: launch setups, device memory, warps, instruction streams |
//! | [`experiment`] | a shared experiment (kernel, launch, GPU, schemes): the web app's links and `.reglab.json` files |
//! | [`analysis`] | static analyses: CFG, (post-)dominators, loops, liveness, allocation, uniformity, use counts |
//! | [`sorting`] | stable sorting: the standard sort, or (the page's build) one shared copy of it |
//! | [`timing`] | cycle-level SM model: CTA dispatch, schedulers, scoreboard, register-file schemes, memory, reports |
//!
//! No function in this crate panics on any input: bad input is returned as a value.

#![cfg_attr(not(feature = "std"), no_std)]

extern crate alloc;

pub mod analysis;
pub mod diagnostic;
pub mod diff;
pub mod exec;
pub mod experiment;
pub mod gpu;
pub mod ir;
pub mod occupancy;
pub mod ptx;
pub mod sorting;
pub mod timing;
