//! A CTA source that measures its inner source: the host time spent producing CTAs (the
//! functional executor's share of a run) and the warp-instructions produced. The clock is the
//! caller's (milliseconds from any origin), so the core stays free of platform timers: the CLI
//! passes `Instant`, the web worker `performance.now()`.
//!
//! ```text
//! let (source, spent) = TimedSource::new(exec_source, now_ms);
//! … run the simulation …  spent.get() → ProducerTime { ms: 2600.0, warp_instructions: 16834560 }
//! ```

use alloc::rc::Rc;
use core::cell::Cell;

use crate::timing::error::SourceError;
use crate::timing::stream::store::Piece;
use crate::timing::stream::trace::{CtaSource, CtaStream};

/// What a [`TimedSource`] has measured so far.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ProducerTime {
    /// Host milliseconds spent in the inner source.
    pub ms: f64,
    /// Warp-instructions it produced.
    pub warp_instructions: u64,
}

/// Wraps a source, timing each [`CtaSource::next_cta`] with `clock` (milliseconds).
pub struct TimedSource<S> {
    inner: S,
    clock: fn() -> f64,
    spent: Rc<Cell<ProducerTime>>,
}

impl<S: CtaSource> TimedSource<S> {
    /// Wraps `inner`; the returned cell holds the running totals.
    pub fn new(inner: S, clock: fn() -> f64) -> (Self, Rc<Cell<ProducerTime>>) {
        let spent = Rc::new(Cell::new(ProducerTime::default()));
        (TimedSource { inner, clock, spent: spent.clone() }, spent)
    }
}

impl<S: CtaSource> CtaSource for TimedSource<S> {
    fn next_cta(&mut self) -> Result<Option<CtaStream>, SourceError> {
        let start = (self.clock)();
        let r = self.inner.next_cta();
        let ms = (self.clock)() - start;
        let produced = r.as_ref().ok().and_then(Option::as_ref).map_or(0, CtaStream::warp_instructions);
        let t = self.spent.get();
        self.spent.set(ProducerTime { ms: t.ms + ms, warp_instructions: t.warp_instructions + produced });
        r
    }

    fn more(&mut self, cta: u64, warp: usize) -> Result<alloc::vec::Vec<Piece>, SourceError> {
        let start = (self.clock)();
        let r = self.inner.more(cta, warp);
        let ms = (self.clock)() - start;
        let produced: u64 = r.as_ref().map_or(0, |p| p.iter().map(|x| x.stream.held()).sum());
        let t = self.spent.get();
        self.spent.set(ProducerTime { ms: t.ms + ms, warp_instructions: t.warp_instructions + produced });
        r
    }

    fn ready(&self) -> bool {
        self.inner.ready()
    }

    fn notices(&self) -> alloc::vec::Vec<crate::exec::Notice> {
        self.inner.notices()
    }

    fn total_ctas(&self) -> Option<u64> {
        self.inner.total_ctas()
    }

    fn lanes(&self) -> u32 {
        self.inner.lanes()
    }

    fn sampling(&self) -> Option<(u64, u64)> {
        self.inner.sampling()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::timing::stream::trace::{VecSource, WarpStream};
    use alloc::vec;

    fn ticking() -> f64 {
        2.5
    }

    #[test]
    fn counts_what_the_inner_source_produced() {
        let cta = CtaStream { warps: vec![WarpStream::from_plain([(0, 0); 3])], ..CtaStream::default() };
        let (mut s, spent) = TimedSource::new(VecSource::new(vec![cta.clone(), cta]), ticking);
        while let Ok(Some(_)) = s.next_cta() {}
        assert_eq!(spent.get(), ProducerTime { ms: 0.0, warp_instructions: 6 });
        assert_eq!(s.total_ctas(), Some(2));
    }
}
