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

use super::wavefronts::Waves;
use super::ExecSource;
use crate::exec::run::OpenCta;
use crate::exec::stream::TraceRecord;
use crate::exec::ExecError;
use crate::timing::stream::store::{More, Piece};
use crate::timing::stream::trace::CtaStream;
use crate::timing::stream::trace::WarpStream;

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
    /// On a 64-wide machine: the wavefronts being merged (the "warps" of the pieces).
    waves: Option<Waves>,
}

impl ExecSource {
    /// Starts the next CTA and runs it for up to [`EAGER`] warp-instructions.
    pub(super) fn open_next(&mut self) -> Result<Option<CtaStream>, Failure> {
        if self.run.next_opens_launch() && !self.open.is_empty() {
            if !self.run.launches_follow() {
                // The last launch's CTAs are all out: nothing follows (the open ones go on).
                return Ok(None);
            }
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
        let mut waves = (self.lanes == 64).then(|| Waves::new(shape.threads));
        match waves.as_mut() {
            Some(waves) => warps = self.absorb(waves, &mut cta, &bases)?,
            None => {
                let taken = cta.take();
                self.run.size_traces_like(&taken);
                for w in taken {
                    warps.push(self.convert_warp(&bases, ctaid, w, 0)?);
                }
            }
        }
        let launch = cta.launch;
        let more = if done {
            None
        } else {
            let finished = (0..warps.len()).map(|i| finished(&cta, waves.as_ref(), i)).collect();
            let pos = warps.iter().map(|w| w.len()).collect();
            self.open.insert(number, Open { cta, bases, pos, pending: Vec::new(), waves });
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
        } else if self.open.is_empty() && self.run.next_opens_launch() && !self.run.launches_follow() {
            // The last CTA finished: the run closes its last launch ([`ExecSource::run`]'s result).
            self.run.open_cta()?;
        }
        Ok(out)
    }

    /// Converts what `open` recorded since the last call into pieces (one per warp) appended
    /// to `out`; per warp, whether it recorded anything.
    fn take_pieces(&mut self, open: &mut Open, out: &mut Vec<Piece>) -> Result<Vec<bool>, Failure> {
        let ctaid = open.cta.ctaid();
        let streams = match open.waves.as_mut() {
            Some(waves) => self.absorb(waves, &mut open.cta, &open.bases)?,
            None => {
                let mut streams = Vec::new();
                for (i, w) in open.cta.take().into_iter().enumerate() {
                    let start = open.pos.get(i).copied().unwrap_or(0);
                    streams.push(self.convert_warp(&open.bases, ctaid, w, start)?);
                }
                streams
            }
        };
        let mut got = Vec::new();
        for (i, stream) in streams.into_iter().enumerate() {
            let start = open.pos.get(i).copied().unwrap_or(0);
            if let Some(p) = open.pos.get_mut(i) {
                *p = stream.len();
            }
            got.push(stream.len() > start);
            out.push(Piece { warp: i, stream, last: finished(&open.cta, open.waves.as_ref(), i) });
        }
        Ok(got)
    }

    /// The wavefronts' newly merged instructions from what `cta` recorded since the last call.
    fn absorb(
        &mut self,
        waves: &mut Waves,
        cta: &mut OpenCta,
        bases: &[Option<u32>],
    ) -> Result<Vec<WarpStream>, Failure> {
        let traces = cta.take();
        let cta = &*cta;
        let prog = self.run.program_of(cta).ok_or_else(|| String::from("the CTA's decoded program is missing"))?;
        let (layout, ctaid) = (self.layout, cta.ctaid());
        let mut convert = |r: &TraceRecord, a: &[u64]| ExecSource::convert_half(&layout, bases, ctaid, r, a);
        let streams = waves.absorb(traces, |i| cta.warp_done(i), prog, &mut convert)?;
        self.warp_instructions += streams.iter().map(|s| u64::from(s.len() - s.start())).sum::<u64>();
        Ok(streams)
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

/// Whether unit `i` of the CTA's streams (a warp, or a wavefront on a 64-wide machine) is
/// complete.
fn finished(cta: &OpenCta, waves: Option<&Waves>, i: usize) -> bool {
    match waves {
        Some(w) => w.finished(i),
        None => cta.warp_done(i),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exec::{LaunchSetup, RunOptions, TraceOptions};
    use crate::timing::stream::exec_source::SourceOptions;
    use crate::timing::stream::trace::VecSource;
    use crate::timing::{Program, Simulation, TimingOptions};
    use alloc::boxed::Box;

    /// Each thread sums its element `n` times: 6 instructions an iteration (a load, a barrier).
    const LOOP: &str = ".version 7.0\n.target sm_70\n.address_size 64\n\
        .visible .entry sum(.param .u64 buf, .param .u32 n)\n{\n\
        .reg .b32 %r<8>;\n.reg .pred %p<2>;\n.reg .b64 %rd<4>;\n.reg .f32 %f<3>;\n\
        ld.param.u64 %rd1, [buf];\nld.param.u32 %r1, [n];\nmov.u32 %r2, %tid.x;\n\
        mul.wide.u32 %rd2, %r2, 4;\nadd.s64 %rd3, %rd1, %rd2;\nmov.u32 %r3, 0;\nmov.f32 %f1, 0f00000000;\n\
        $L:\nld.global.f32 %f2, [%rd3];\nadd.f32 %f1, %f1, %f2;\nadd.s32 %r3, %r3, 1;\nbar.sync 0;\n\
        setp.lt.u32 %p1, %r3, %r1;\n@%p1 bra $L;\nst.global.f32 [%rd3], %f1;\nret;\n}\n";

    fn setup(n: u32) -> LaunchSetup {
        let json = alloc::format!(
            r#"{{"kernel": "sum", "grid": [1], "block": [64], "params": [
                {{"buffer": {{"type": "f32", "len": 64, "init": "random:1"}}}},
                {{"scalar": {{"type": "u32", "value": {n}}}}}]}}"#
        );
        LaunchSetup::from_json(&json).unwrap_or_else(|e| unreachable!("{e:?}"))
    }

    #[test]
    fn a_long_cta_in_pieces_gives_the_reports_of_the_whole_stream_and_bounded_memory() {
        let module = crate::ptx::compile(LOOP).unwrap_or_default();
        let Some(gpu) = crate::gpu::presets::by_name("turing-rtx2060") else { unreachable!() };
        let program = Program::decode(&module, &gpu);
        // 2 warps × 16000 iterations × 6 ≈ 192000 warp-instructions in one CTA: far more than
        // the EAGER 65536 a CTA runs before it is handed out.
        let n = 16_000;
        let options = SourceOptions { values: true, budget: None, lanes: 32 };
        let pieces = ExecSource::with_options(&module, &setup(n), &program, options);
        let Ok(pieces) = pieces else { unreachable!() };
        // The same CTA recorded whole, as before pieces.
        let trace =
            RunOptions { budget: None, trace: TraceOptions { enabled: true, values: true, first_values: false } };
        let whole = ExecSource::with_options(&module, &setup(n), &program, options).and_then(|mut s| {
            s.run = crate::exec::Run::new(&module, &setup(n), trace)?;
            Ok(s.run.next_cta().map(|t| t.map(|t| s.convert(t))))
        });
        let Ok(Ok(Some(Ok(whole)))) = whole else { unreachable!() };
        // Per warp: 7 before the loop, 16000 × 6 in it, the store and `ret`.
        assert_eq!(whole.warp_instructions(), 2 * (7 + 96_000 + 2));
        let schemes = ["baseline", "baseline:collector_units=2"];
        let timing = TimingOptions { values: true, ..TimingOptions::default() };
        let sim = |src: Box<dyn crate::timing::CtaSource>| {
            Simulation::new(program.clone(), src, &gpu, &schemes, timing.clone())
        };
        let Ok(mut a) = sim(Box::new(pieces)) else { unreachable!() };
        let Ok(mut b) = sim(VecSource::boxed(alloc::vec![whole])) else { unreachable!() };
        let mut most = (0, 0);
        loop {
            let p = a.step(2000);
            let (store, windows) = a.held_instructions();
            most = (most.0.max(store), most.1.max(windows));
            match p {
                Ok(p) if p.finished => break,
                Ok(_) => {}
                Err(e) => unreachable!("{e}"),
            }
        }
        let (ra, rb) = (a.reports(), b.run_to_end().unwrap_or_default());
        assert_eq!(ra.len(), 2);
        assert!(ra.iter().zip(&rb).all(|(x, y)| x == y), "the reports differ");
        // Pieces wait in the store for the slower run: a few EAGER batches at most. Each run's
        // windows hold at most a piece plus TRIM_AT behind the replay, per warp.
        assert!(most.0 <= 3 * EAGER, "store held {}", most.0);
        assert!(most.1 <= 2 * 2 * (EAGER + (1 << 15)), "windows held {}", most.1);
        assert!(most.0 > 0, "the CTA came in pieces");
    }
}
