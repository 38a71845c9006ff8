//! The stream side of the timing model: what the functional executor hands over and how the SMs
//! replay it. [`trace`] defines a CTA's recorded streams ([`trace::CtaStream`], one
//! [`warp_stream::WarpStream`] per warp, decoded one [`trace::DynInst`] at a time);
//! [`exec_source`] runs the executor CTA by CTA as a [`trace::CtaSource`] — a CTA longer than a
//! batch is handed out unfinished and continued on demand, piece by piece; [`timed_source`]
//! measures the executor's share of host time; [`feed`] pulls each CTA once and shares it among
//! the timing runs of several schemes, and [`store`] shares the pieces of unfinished CTAs;
//! [`values`] holds a warp's value summaries when a scheme asks for them.
//!
//! ```text
//! executor ──ExecSource──▶ Feed (one CtaStream per CTA, shared) ──▶ ChipRun per scheme ──▶ Sm
//!              ▲ more(cta, warp)      Store (pieces, shared)  ◀── a warp's window runs dry
//! ```

pub mod exec_source;
pub mod feed;
pub mod store;
pub mod timed_source;
pub mod trace;
pub mod values;
pub mod warp_stream;
