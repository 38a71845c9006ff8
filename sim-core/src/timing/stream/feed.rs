//! The CTA feed shared by the timing runs of one simulation (one per scheme): CTAs are pulled
//! from the source once, checked, counted into the value statistics, and kept in a window until
//! every run has dispatched them. A run holds the CTAs it has in flight itself (shared `Rc`), so
//! memory is bounded by the CTAs in flight plus the spread between the fastest and the slowest
//! run — which the driver keeps small by always advancing the run that has taken the fewest CTAs.
//!
//! The source is pulled in batches: when a CTA past the window is asked for, up to [`AHEAD`]
//! more (at most [`AHEAD_INSTRUCTIONS`] warp-instructions of them) are pulled with it. The
//! executor behind the source has a working set of its own (the kernel's memory, the streams it
//! writes) that pushes the timing model's out of the host's caches; in batches that happens once
//! per batch instead of once per CTA. Nothing else changes: a CTA counts in the value statistics
//! and a source error is reported only when the CTA is first asked for, as without the batches.
//!
//! ```text
//! source → [CTA 12, CTA 13, CTA 14] ← baseline takes 14 next, 2x-registers takes 12 next
//! ```

use alloc::boxed::Box;
use alloc::collections::VecDeque;
use alloc::rc::Rc;
use core::cell::RefCell;

use crate::timing::error::{SourceError, TimingError};
use crate::timing::program::Program;
use crate::timing::stream::store::Store;
use crate::timing::stream::trace::{CtaSource, CtaStream};
use crate::timing::value_stats::ValueReport;

/// CTAs pulled past the one asked for, at most.
pub const AHEAD: u64 = 7;

/// Warp-instructions of the CTAs pulled ahead, at most (a bound on the memory they hold).
pub const AHEAD_INSTRUCTIONS: u64 = 1 << 20;

/// The window of CTAs.
pub struct Feed {
    /// The source, and the pieces of CTAs handed out unfinished.
    store: Rc<RefCell<Store>>,
    window: VecDeque<Rc<CtaStream>>,
    base: u64,
    exhausted: bool,
    /// What pulling CTA number `.0` failed with (reported when that CTA is asked for).
    failed: Option<(u64, SourceError)>,
    /// CTAs before this number have been asked for and counted in the value statistics.
    counted: u64,
    /// Quick mode: each counted CTA's warp-instructions, in order (`u64::MAX`: it came in
    /// pieces, its total unknown here); `None` unless [`Feed::record_work`].
    work: Option<alloc::vec::Vec<u64>>,
}

impl Feed {
    /// A feed over `source` for one timing run ([`Feed::set_runs`] for more).
    pub fn new(source: Box<dyn CtaSource>, program: &Program) -> Self {
        let store = Store::new(source, Rc::new(program.clone()), 1);
        Feed {
            store: Rc::new(RefCell::new(store)),
            window: VecDeque::new(),
            base: 0,
            exhausted: false,
            failed: None,
            counted: 0,
            work: None,
        }
    }

    /// Sets the number of timing runs that take the CTAs (before the first is asked for).
    pub fn set_runs(&mut self, runs: usize) {
        let mut st = self.store.borrow_mut();
        *st = Store::new(st.take_source(), st.program(), runs);
    }

    /// Which static ids write integers, for the value statistics' 16-bit share (after
    /// [`Feed::set_runs`]).
    pub fn set_integer(&mut self, table: alloc::vec::Vec<bool>) {
        self.store.borrow_mut().values.set_integer(table);
    }

    /// The value statistics of every CTA asked for so far.
    pub fn values_report(&self) -> ValueReport {
        self.store.borrow().values.report()
    }

    /// What continuing a CTA handed out unfinished failed with, if it did.
    pub fn failure(&self) -> Option<SourceError> {
        self.store.borrow().failure().cloned()
    }

    /// Run `run` has ended: the pieces it has not taken need not wait for it.
    pub fn run_ended(&mut self, run: usize) {
        self.store.borrow_mut().run_ended(run);
    }

    /// Warp-instructions held in pieces now, and the pieces run `run` has taken.
    pub fn pieces(&self, run: usize) -> (u64, u64) {
        let st = self.store.borrow();
        (st.held(), st.taken(run))
    }

    /// The most warp-instructions the pieces of unfinished CTAs held at any time (a memory
    /// measure; the CTAs' first streams, held by the window, are not counted).
    pub fn max_held(&self) -> u64 {
        self.store.borrow().max_held
    }

    /// CTA number `index` (0-based, execution order), pulling from the source as needed; `None`
    /// after the last.
    pub fn get(&mut self, index: u64, program: &Program) -> Result<Option<Rc<CtaStream>>, TimingError> {
        if index < self.base {
            return Err(TimingError::Internal("a CTA was requested after it left the feed".into()));
        }
        if self.base + self.window.len() as u64 <= index {
            self.pull(index, program);
        }
        self.counted = self.counted.max(self.base);
        while self.counted <= index {
            let Some(cta) = self.window.get((self.counted - self.base) as usize) else { break };
            let mut st = self.store.borrow_mut();
            match &cta.more {
                Some(m) => st.opened(self.counted, &cta.warps, &m.done),
                None => cta.warps.iter().for_each(|w| st.values.add_warp(w)),
            }
            if let Some(work) = &mut self.work {
                work.push(if cta.more.is_some() { u64::MAX } else { cta.warp_instructions() });
            }
            self.counted += 1;
        }
        if let Some(cta) = self.window.get((index - self.base) as usize) {
            return Ok(Some(Rc::clone(cta)));
        }
        match &self.failed {
            Some((at, e)) if *at <= index => Err(TimingError::Source(e.clone())),
            _ => Ok(None),
        }
    }

    /// Pulls CTAs up to number `index` and then up to [`AHEAD`] more, until the source ends or
    /// fails.
    fn pull(&mut self, index: u64, program: &Program) {
        let mut ahead = 0u64;
        while !self.exhausted && self.failed.is_none() {
            let next = self.base + self.window.len() as u64;
            let mut st = self.store.borrow_mut();
            if next > index && (next > index + AHEAD || ahead >= AHEAD_INSTRUCTIONS || !st.source().ready()) {
                break;
            }
            match st.source().next_cta() {
                Ok(Some(mut cta)) => match cta.validate(program.insts.len()) {
                    Ok(()) => {
                        if next > index {
                            ahead += cta.warp_instructions();
                        }
                        if let Some(m) = cta.more.as_mut() {
                            m.store = Some(Rc::clone(&self.store));
                            m.cta = next;
                        }
                        self.window.push_back(Rc::new(cta));
                    }
                    Err(e) => self.failed = Some((next, SourceError::Stream(e))),
                },
                Ok(None) => self.exhausted = true,
                Err(e) => self.failed = Some((next, e)),
            }
        }
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
        self.store.borrow().source_ref().total_ctas()
    }

    /// Quick mode: keep each CTA's warp-instructions from now on ([`Feed::work`]).
    pub fn record_work(&mut self) {
        self.work.get_or_insert_with(alloc::vec::Vec::new);
    }

    /// The warp-instructions of every CTA counted since [`Feed::record_work`], in order
    /// (`u64::MAX` for one that came in pieces).
    pub fn work(&self) -> &[u64] {
        self.work.as_deref().unwrap_or(&[])
    }

    /// The source's sample, if it takes one ([`CtaSource::sampling`]).
    pub fn sampling(&self) -> Option<(u64, u64)> {
        self.store.borrow().source_ref().sampling()
    }

    /// What the functional run behind the source has to tell its user so far.
    pub fn notices(&self) -> alloc::vec::Vec<crate::exec::Notice> {
        self.store.borrow().source_ref().notices()
    }

    /// CTAs held in the window.
    pub fn window_len(&self) -> usize {
        self.window.len()
    }
}
