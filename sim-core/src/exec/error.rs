//! How a run can end other than with outputs: an invalid launch, a memory fault, the budget
//! running out, an instruction that needs hardware RegLab does not model, a `trap`, or a barrier
//! some warps never reach. Every error names the kernel and instruction and, where one thread is
//! to blame, its thread and CTA indices; [`ExecError::locate`] fills in source line numbers.
//!
//! ```text
//! st.global.u32 [%rd4], %r1;   // %rd4 past the buffer →
//! {"kind": "fault", "kernel": "k", "line": 12, "thread": [37,0,0], "cta": [1,0,0],
//!  "address": "0x200000400", "space": "global", "reason": "out_of_bounds", ...}
//! ```

use alloc::boxed::Box;
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use serde::{Deserialize, Serialize};

use super::budget::HotLoop;
use super::memory::{FaultReason, Space};
use super::plan::LaunchError;
use crate::diagnostic::{LineIndex, Span};

/// Where in the program something happened.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Site {
    /// The kernel being run.
    pub kernel: String,
    /// The function executing (the kernel, or a `.func` it called).
    pub function: String,
    /// The instruction, as PTX text.
    pub instruction: String,
    /// 1-based source line (after [`ExecError::locate`]).
    pub line: Option<u32>,
    /// Source span of the instruction.
    pub span: Span,
}

/// A memory fault.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Fault {
    /// Where.
    #[serde(flatten)]
    pub site: Site,
    /// `%tid` of the faulting thread.
    pub thread: [u32; 3],
    /// `%ctaid` of its CTA.
    pub cta: [u32; 3],
    /// The address (hexadecimal).
    pub address: String,
    /// The state space accessed.
    pub space: Space,
    /// Bytes accessed.
    pub size: u32,
    /// What went wrong.
    pub reason: FaultReason,
}

/// Why a run stopped without outputs.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum ExecError {
    /// The launch setup does not fit the module.
    InvalidLaunch {
        /// What is wrong.
        message: String,
    },
    /// A memory access outside every allocation, misaligned, or to read-only memory.
    Fault(Box<Fault>),
    /// The warp-instruction budget ran out (an endless loop, or a launch too large).
    BudgetExceeded {
        /// Warp-instructions executed.
        executed: u64,
        /// Thread-instructions executed.
        thread_instructions: u64,
        /// The budget.
        budget: u64,
        /// The kernel running when it ran out.
        kernel: String,
        /// `%ctaid` of the CTA whose warp used the last of it (absent when it ran out between
        /// CTAs: a grid of more CTAs than the budget).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        cta: Option<[u32; 3]>,
        /// That warp's index in its CTA.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        warp: Option<u32>,
        /// The loop that warp was running ([`super::budget`]), if it was in one.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        hot_loop: Option<Box<HotLoop>>,
    },
    /// An instruction RegLab cannot give meaning to (textures, unknown externs, …).
    Unsupported {
        /// Where.
        #[serde(flatten)]
        site: Box<Site>,
        /// Why.
        reason: String,
    },
    /// A `trap` instruction.
    Trap {
        /// Where.
        #[serde(flatten)]
        site: Box<Site>,
        /// `%tid` of the first trapping thread.
        thread: [u32; 3],
        /// `%ctaid`.
        cta: [u32; 3],
    },
    /// Warps wait at a barrier that the others never reach.
    Deadlock {
        /// The kernel.
        kernel: String,
        /// `%ctaid`.
        cta: [u32; 3],
        /// What the warps are waiting for.
        message: String,
        /// The barrier instructions waited at.
        waiting: Vec<Site>,
    },
}

impl From<LaunchError> for ExecError {
    fn from(e: LaunchError) -> Self {
        ExecError::InvalidLaunch { message: e.message }
    }
}

impl ExecError {
    /// The `kind` tag (`"fault"`, `"budget_exceeded"`, …).
    pub fn kind(&self) -> &'static str {
        match self {
            ExecError::InvalidLaunch { .. } => "invalid_launch",
            ExecError::Fault(_) => "fault",
            ExecError::BudgetExceeded { .. } => "budget_exceeded",
            ExecError::Unsupported { .. } => "unsupported",
            ExecError::Trap { .. } => "trap",
            ExecError::Deadlock { .. } => "deadlock",
        }
    }

    /// Fills in line numbers from the source text the module was compiled from.
    pub fn locate(&mut self, src: &str) {
        let index = LineIndex::new(src);
        let fix = |s: &mut Site| s.line = Some(index.line_col(src, s.span.start).line);
        match self {
            ExecError::Fault(f) => fix(&mut f.site),
            ExecError::Unsupported { site, .. } | ExecError::Trap { site, .. } => fix(site),
            ExecError::Deadlock { waiting, .. } => waiting.iter_mut().for_each(fix),
            ExecError::BudgetExceeded { hot_loop: Some(l), .. } => {
                fix(&mut l.head);
                fix(&mut l.back_edge);
            }
            _ => {}
        }
    }
}

impl core::fmt::Display for ExecError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        let at = |s: &Site| match s.line {
            Some(l) => format!("line {l}: `{}` in {}", s.instruction, s.function),
            None => format!("`{}` in {}", s.instruction, s.function),
        };
        match self {
            ExecError::InvalidLaunch { message } => write!(f, "invalid launch: {message}"),
            ExecError::Fault(x) => write!(
                f,
                "fault: {} of {} bytes at {} ({} space) by thread {:?} of CTA {:?}, {}",
                x.reason.describe(),
                x.size,
                x.address,
                x.space.name(),
                x.thread,
                x.cta,
                at(&x.site)
            ),
            ExecError::BudgetExceeded { executed, budget, kernel, cta, warp, hot_loop, .. } => {
                write!(f, "budget exceeded: kernel {kernel}")?;
                if let Some(c) = cta {
                    write!(f, ", CTA {c:?}")?;
                }
                if let Some(w) = warp {
                    write!(f, ", warp {w}")?;
                }
                write!(f, " was still running after {executed} warp-instructions (the budget is {budget})")?;
                match hot_loop {
                    Some(l) => write!(f, ", in {}: an endless loop?", describe_loop(l)),
                    None => write!(f, ": an endless loop, or a launch too large for the budget?"),
                }
            }
            ExecError::Unsupported { site, reason } => write!(f, "unsupported here: {reason}: {}", at(site)),
            ExecError::Trap { site, thread, cta } => {
                write!(f, "trap by thread {thread:?} of CTA {cta:?}: {}", at(site))
            }
            ExecError::Deadlock { kernel, cta, message, .. } => {
                write!(f, "deadlock in kernel {kernel}, CTA {cta:?}: {message}")
            }
        }
    }
}

/// "the loop at lines 12-13 (`add.s32 %r1, %r1, 1` ... `bra.uni $L_loop`) of k" (lines once located).
fn describe_loop(l: &HotLoop) -> String {
    let lines = match (l.head.line, l.back_edge.line) {
        (Some(a), Some(b)) if a == b => format!(" at line {a}"),
        (Some(a), Some(b)) => format!(" at lines {a}-{b}"),
        _ => String::new(),
    };
    format!("the loop{lines} (`{}` ... `{}`) of {}", l.head.instruction, l.back_edge.instruction, l.head.function)
}
