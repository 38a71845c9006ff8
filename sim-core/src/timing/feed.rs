//! The CTA feed shared by the timing runs of one simulation (one per scheme): CTAs are pulled
//! from the source once, checked, counted into the value statistics, and kept in a window until
//! every run has dispatched them. A run holds the CTAs it has in flight itself (shared `Rc`), so
//! memory is bounded by the CTAs in flight plus the spread between the fastest and the slowest
//! run — which the driver keeps small by always advancing the run that has taken the fewest CTAs.
//!
//! ```text
//! source → [CTA 12, CTA 13, CTA 14] ← baseline takes 14 next, 2x-registers takes 12 next
//! ```

use alloc::boxed::Box;
use alloc::collections::VecDeque;
use alloc::rc::Rc;

use super::program::Program;
use super::trace::{CtaSource, CtaStream};
use super::value_stats::ValueStats;
use super::TimingError;

/// The window of CTAs.
pub struct Feed {
    source: Box<dyn CtaSource>,
    window: VecDeque<Rc<CtaStream>>,
    base: u64,
    exhausted: bool,
    /// Value statistics of every CTA pulled so far.
    pub values: ValueStats,
}

impl Feed {
    /// A feed over `source`.
    pub fn new(source: Box<dyn CtaSource>, program: &Program) -> Self {
        Feed { source, window: VecDeque::new(), base: 0, exhausted: false, values: ValueStats::new(program) }
    }

    /// CTA number `index` (0-based, execution order), pulling from the source as needed; `None`
    /// after the last.
    pub fn get(&mut self, index: u64, program: &Program) -> Result<Option<Rc<CtaStream>>, TimingError> {
        if index < self.base {
            return Err(TimingError::Internal("a CTA was requested after it left the feed".into()));
        }
        while self.base + self.window.len() as u64 <= index {
            if self.exhausted {
                return Ok(None);
            }
            match self.source.next_cta().map_err(TimingError::Source)? {
                Some(cta) => {
                    cta.validate(program.insts.len()).map_err(TimingError::Source)?;
                    for w in &cta.warps {
                        self.values.add_warp(program, w);
                    }
                    self.window.push_back(Rc::new(cta));
                }
                None => self.exhausted = true,
            }
        }
        Ok(self.window.get((index - self.base) as usize).cloned())
    }

    /// Drops CTAs before `index` (every run has taken them).
    pub fn trim(&mut self, index: u64) {
        while self.base < index && !self.window.is_empty() {
            self.window.pop_front();
            self.base += 1;
        }
    }

    /// CTAs the source will produce, if it knows.
    pub fn total(&self) -> Option<u64> {
        self.source.total_ctas()
    }

    /// CTAs held in the window.
    pub fn window_len(&self) -> usize {
        self.window.len()
    }
}
