//! One module per `reglab` subcommand.

pub mod analyze;
pub mod bench;
pub mod corpus;
pub mod diagnostics;
pub mod exec;
pub mod experiment;
pub mod merge;
pub mod occupancy;
pub mod parse;
pub mod pipelined_source;
pub mod rewrite;
pub mod run;
pub mod run_threads;
pub mod schemes;
pub mod shared_searches;
pub mod sweep;
