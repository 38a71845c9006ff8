//! What a run that finished wants its user to know: behaviour the PTX ISA leaves to the machine
//! that the kernel relied on. Today one kind: an integer division or remainder by zero, which the
//! ISA calls machine-specific; RegLab gives all ones for unsigned `div`, −1 for signed `div` and
//! the dividend for `rem` ([`super::semantics::int`]), and says so, naming the first instruction,
//! thread and CTA that did it and how many lanes did.
//!
//! ```text
//! div.u32 %r3, %r1, %r2;   // %r2 = 0 in 32 lanes →
//! warning: line 14: `div.u32 %r3, %r1, %r2` in k: integer division by zero in 32 lanes (first:
//!   thread [0, 0, 0] of CTA [0, 0, 0]); PTX leaves the result machine-specific: RegLab gives …
//! ```

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use serde::{Deserialize, Serialize};

use super::error::Site;
use crate::diagnostic::LineIndex;

/// The kind of a notice.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum NoticeKind {
    /// An integer `div` or `rem` whose divisor was zero in an executing lane.
    DivisionByZero,
}

/// One notice: the first site, the first thread, and how often it happened.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Notice {
    /// What happened.
    pub kind: NoticeKind,
    /// The first instruction it happened at.
    #[serde(flatten)]
    pub site: Site,
    /// `%tid` of the first thread.
    pub thread: [u32; 3],
    /// `%ctaid` of its CTA.
    pub cta: [u32; 3],
    /// Lanes it happened in, over the whole run.
    pub lanes: u64,
}

impl Notice {
    /// Fills in the line number from the source text the module was compiled from.
    pub fn locate(&mut self, src: &str) {
        let index = LineIndex::new(src);
        self.site.line = Some(index.line_col(src, self.site.span.start).line);
    }
}

impl core::fmt::Display for Notice {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        let s = &self.site;
        match s.line {
            Some(l) => write!(f, "line {l}: `{}` in {}: ", s.instruction, s.function)?,
            None => write!(f, "`{}` in {}: ", s.instruction, s.function)?,
        }
        match self.kind {
            NoticeKind::DivisionByZero => write!(
                f,
                "integer division by zero in {} lane(s) (first: thread {:?} of CTA {:?}); PTX leaves the result \
                 machine-specific: RegLab gives all ones for unsigned div, -1 for signed div and the dividend for rem",
                self.lanes, self.thread, self.cta
            ),
        }
    }
}

/// The notices of a run, gathered as it executes (at most one per kind: the first site, with a
/// count of every occurrence).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Notices {
    list: Vec<Notice>,
}

impl Notices {
    /// Counts `lanes` more occurrences of `kind`; `false` if it is the kind's first (then the
    /// caller gives it with [`Notices::first`]).
    pub fn add(&mut self, kind: NoticeKind, lanes: u64) -> bool {
        match self.list.iter_mut().find(|n| n.kind == kind) {
            Some(n) => {
                n.lanes += lanes;
                true
            }
            None => false,
        }
    }

    /// The first occurrence of its kind.
    pub fn first(&mut self, notice: Notice) {
        self.list.push(notice);
    }

    /// The notices so far.
    pub fn list(&self) -> &[Notice] {
        &self.list
    }
}

/// The text of `notices`, one line each, located in `src`.
pub fn describe(notices: &[Notice], src: &str) -> Vec<String> {
    notices
        .iter()
        .map(|n| {
            let mut n = n.clone();
            n.locate(src);
            format!("{n}")
        })
        .collect()
}
