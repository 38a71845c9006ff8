//! Why a timing simulation could not run: [`TimingError`], and [`SourceError`] for what the CTA
//! source (the functional executor, or a recorded stream) reported. The executor's error stays
//! typed ([`crate::exec::ExecError`]), so a caller reads its kind and fields (the faulting thread,
//! the budget, the instruction) instead of parsing text.
//!
//! ```text
//! {"error":"source","detail":{"source":"exec","detail":{"kind":"fault", …}}}
//! ```

use alloc::string::String;
use alloc::vec::Vec;

use serde::{Deserialize, Serialize};

use crate::exec::ExecError;
use crate::timing::regfile;

/// What a CTA source could not deliver.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "source", content = "detail", rename_all = "snake_case")]
pub enum SourceError {
    /// The functional executor stopped (fault, budget, unsupported instruction, …).
    Exec(ExecError),
    /// A recorded stream is malformed (names an instruction the program lacks, …).
    Stream(String),
}

impl core::fmt::Display for SourceError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            SourceError::Exec(e) => write!(f, "{e}"),
            SourceError::Stream(m) => f.write_str(m),
        }
    }
}

impl From<ExecError> for SourceError {
    fn from(e: ExecError) -> Self {
        SourceError::Exec(e)
    }
}

impl From<String> for SourceError {
    fn from(m: String) -> Self {
        SourceError::Stream(m)
    }
}

/// Why a timing simulation could not run. Serialized as `{"error": "unsupported_gpu", "detail":
/// …}` (the detail a message or the variant's fields).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "error", content = "detail", rename_all = "snake_case")]
pub enum TimingError {
    /// No scheme has this name.
    UnknownScheme(String),
    /// A scheme spec is malformed, sets an unknown parameter, a value of the wrong type or out of
    /// range, or repeats another spec's label.
    SchemeConfig(regfile::SchemeConfigError),
    /// The GPU cannot be simulated with these streams.
    UnsupportedGpu(String),
    /// The stream source failed: the executor's error, or a malformed stream.
    Source(SourceError),
    /// The occupancy calculator rejected the launch.
    Occupancy(String),
    /// Not even one CTA fits on an SM.
    DoesNotFit {
        /// The kernel.
        kernel: String,
        /// Why, from the occupancy calculator.
        reasons: Vec<String>,
    },
    /// No SM can make progress although CTAs remain (a model bug; reported, never a hang).
    Deadlock {
        /// The cycle it was detected.
        cycle: u64,
    },
    /// A scheme that transforms code could not build its program (the pass failed, its result
    /// failed verification, or its instruction map is inconsistent).
    SchemeProgram {
        /// The scheme.
        scheme: String,
        /// What went wrong.
        message: String,
    },
    /// An internal inconsistency.
    Internal(String),
}

impl TimingError {
    /// The executor's error behind this one, if that is what stopped the simulation.
    pub fn exec_error(&self) -> Option<&ExecError> {
        match self {
            TimingError::Source(SourceError::Exec(e)) => Some(e),
            _ => None,
        }
    }

    /// Fills in the executor error's line numbers from the source text ([`ExecError::locate`]).
    pub fn locate(&mut self, src: &str) {
        if let TimingError::Source(SourceError::Exec(e)) = self {
            e.locate(src);
        }
    }
}

impl From<SourceError> for TimingError {
    fn from(e: SourceError) -> Self {
        TimingError::Source(e)
    }
}

impl core::fmt::Display for TimingError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            TimingError::UnknownScheme(s) => {
                write!(f, "unknown register-file scheme '{s}' (known: ")?;
                for (i, n) in regfile::registry::names().enumerate() {
                    write!(f, "{}{n}", if i > 0 { ", " } else { "" })?;
                }
                write!(f, ")")
            }
            TimingError::SchemeConfig(e) => write!(f, "{e}"),
            TimingError::Source(e) => write!(f, "{e}"),
            TimingError::UnsupportedGpu(m) | TimingError::Occupancy(m) => f.write_str(m),
            TimingError::DoesNotFit { kernel, reasons } => {
                write!(f, "kernel {kernel}: not one CTA fits on an SM ({})", reasons.join("; "))
            }
            TimingError::Deadlock { cycle } => write!(f, "no SM can make progress at cycle {cycle}"),
            TimingError::SchemeProgram { scheme, message } => write!(f, "scheme {scheme}: its program: {message}"),
            TimingError::Internal(m) => write!(f, "internal error: {m}"),
        }
    }
}
