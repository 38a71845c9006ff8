//! CTAs handed out in pieces: [`ExecSource`] starts each CTA and runs it for up to [`EAGER`]
//! warp-instructions; a CTA that finishes within them is handed out whole, as before. A longer
//! one is handed out with what it recorded so far and stays open: each time the timing model
//! asks for more of one of its warps ([`CtaSource::more`]), the executor runs it on (its own
//! order: a warp's turn ends at a barrier or after [`crate::exec::cta::SLICE`] instructions)
//! until that warp has recorded more, and every warp's new records are handed over. So the
//! executor's memory for a CTA is its state plus what it recorded since the last hand-over,
//! however long the CTA runs; the budget is checked as the instructions execute.
//!
//! ```text
//! next_cta → CTA 0: 65536 instructions, warps 0–7 unfinished → more(0, 3) → 8192 more of each …
//! ```

use alloc::string::String;
use alloc::vec::Vec;

use super::ExecSource;
use crate::exec::run::OpenCta;
use crate::exec::ExecError;
use crate::timing::stream::store::{More, Piece};
use crate::timing::stream::trace::CtaStream;

/// Warp-instructions a CTA runs when it starts, and at least each time it is asked for more.
pub const EAGER: u64 = 1 << 16;

/// Why producing a CTA's stream failed.
pub enum Failure {
    /// The executor stopped (fault, budget, deadlock, …).
    Exec(ExecError),
    /// A record could not be converted.
    Stream(String),
}

impl From<ExecError> for Failure {
    fn from(e: ExecError) -> Self {
        Failure::Exec(e)
    }
}

impl From<String> for Failure {
    fn from(e: String) -> Self {
        Failure::Stream(e)
    }
}

/// A CTA handed out unfinished.
pub struct Open {
    cta: OpenCta,
    bases: Vec<Option<u32>>,
    /// Per warp: the position its next piece starts at.
    pos: Vec<u32>,
    /// Pieces recorded while the CTA was run to its end for a later launch, not yet asked for.
    pending: Vec<Piece>,
}

impl ExecSource {
    /// Starts the next CTA and runs it for up to [`EAGER`] warp-instructions.
    pub(super) fn open_next(&mut self) -> Result<Option<CtaStream>, Failure> {
        if self.run.next_opens_launch() && !self.open.is_empty() {
            self.finish_open()?;
        }
        let Some(mut cta) = self.run.open_cta()? else { return Ok(None) };
        let number = self.next_number;
        self.next_number += 1;
        let shape = self.shape(cta.launch)?;
        let bases = self.bases(&cta.functions);
        let done = self.run.advance_cta(&mut cta, EAGER)?;
        let ctaid = cta.ctaid();
        let mut warps = Vec::new();
        for w in cta.take() {
            warps.push(self.convert_warp(&bases, ctaid, w, 0)?);
        }
        let launch = cta.launch;
        let more = if done {
            None
        } else {
            let finished = (0..warps.len()).map(|i| cta.warp_done(i)).collect();
            let pos = warps.iter().map(|w| w.len()).collect();
            self.open.insert(number, Open { cta, bases, pos, pending: Vec::new() });
            Some(More { store: None, cta: number, done: finished })
        };
        Ok(Some(CtaStream { launch, shape, warps, more }))
    }

    /// Runs open CTA `number` on until warp `warp` has more (or the CTA ends); every warp's
    /// new records.
    pub(super) fn continue_cta(&mut self, number: u64, warp: usize) -> Result<Vec<Piece>, Failure> {
        let Some(mut open) = self.open.remove(&number) else { return Ok(Vec::new()) };
        let mut out = core::mem::take(&mut open.pending);
        if out.is_empty() {
            loop {
                let done = self.run.advance_cta(&mut open.cta, EAGER)?;
                let got = self.take_pieces(&mut open, &mut out)?;
                if done || got.get(warp).copied().unwrap_or(true) {
                    break;
                }
            }
        }
        if !open.cta.done() || !open.pending.is_empty() {
            self.open.insert(number, open);
        }
        Ok(out)
    }

    /// Converts what `open` recorded since the last call into pieces (one per warp) appended
    /// to `out`; per warp, whether it recorded anything.
    fn take_pieces(&mut self, open: &mut Open, out: &mut Vec<Piece>) -> Result<Vec<bool>, Failure> {
        let ctaid = open.cta.ctaid();
        let mut got = Vec::new();
        for (i, w) in open.cta.take().into_iter().enumerate() {
            let start = open.pos.get(i).copied().unwrap_or(0);
            let stream = self.convert_warp(&open.bases, ctaid, w, start)?;
            if let Some(p) = open.pos.get_mut(i) {
                *p = stream.len();
            }
            got.push(stream.len() > start);
            out.push(Piece { warp: i, stream, last: open.cta.warp_done(i) });
        }
        Ok(got)
    }

    /// Runs every open CTA to its end (the next CTA belongs to a later launch); their pieces
    /// wait to be asked for.
    fn finish_open(&mut self) -> Result<(), Failure> {
        let numbers: Vec<u64> = self.open.keys().copied().collect();
        for n in numbers {
            let Some(mut open) = self.open.remove(&n) else { continue };
            let mut pending = core::mem::take(&mut open.pending);
            while !self.run.advance_cta(&mut open.cta, EAGER)? {
                self.take_pieces(&mut open, &mut pending)?;
            }
            self.take_pieces(&mut open, &mut pending)?;
            open.pending = pending;
            self.open.insert(n, open);
        }
        Ok(())
    }
}
