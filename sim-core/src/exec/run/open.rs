//! CTAs executed piece by piece for a consumer that reads their streams as it goes (the timing
//! model): [`Run::open_cta`] starts the next CTA and hands it out, [`Run::advance_cta`] runs it
//! for a bounded number of warp-instructions, [`OpenCta::take`] hands over what it recorded
//! since. Several CTAs of one launch may be open at once; a CTA of the next launch opens only
//! once every open one has finished ([`Run::next_opens_launch`]), as launches are ordered.
//!
//! ```text
//! let mut cta = run.open_cta()?.unwrap();     // CTA 0 of launch 0
//! while !run.advance_cta(&mut cta, 65536)? { consume(cta.take()); }
//! consume(cta.take());                        // the last pieces
//! ```

use alloc::string::String;
use alloc::vec::Vec;

use super::Run;
use crate::exec::cta::CtaExec;
use crate::exec::error::ExecError;
use crate::exec::stream::WarpTrace;
use crate::ir::{Function, Handle};

/// A CTA being executed for a streaming consumer.
pub struct OpenCta {
    exec: CtaExec,
    /// Launch index in the run (counting repetitions).
    pub launch: u32,
    /// The kernel's name.
    pub kernel: String,
    /// IR functions by the `func` index of the records (0 is the kernel).
    pub functions: Vec<Handle<Function>>,
    step: usize,
    done: bool,
}

impl OpenCta {
    /// The streams recorded since the last call, one per warp in index order.
    pub fn take(&mut self) -> Vec<WarpTrace> {
        self.exec.take_traces()
    }

    /// `%ctaid`.
    pub fn ctaid(&self) -> [u32; 3] {
        self.exec.ctaid()
    }

    /// Whether warp `i` has executed its last instruction.
    pub fn warp_done(&self, i: usize) -> bool {
        self.done || self.exec.warp_done(i)
    }

    /// Every warp has finished.
    pub fn done(&self) -> bool {
        self.done
    }
}

impl Run {
    /// Starts the next CTA (tracing must be on) and hands it out; `None` after the last. The
    /// caller must have finished every open CTA first when [`Run::next_opens_launch`] says so.
    pub fn open_cta(&mut self) -> Result<Option<OpenCta>, ExecError> {
        if let Some(done) = &self.finished {
            return done.clone().map(|()| None);
        }
        match self.start_next_cta() {
            Ok(true) => {}
            Ok(false) => {
                self.finished = Some(Ok(()));
                return Ok(None);
            }
            Err(e) => {
                self.finished = Some(Err(e.clone()));
                return Err(e);
            }
        }
        let Some(exec) = self.current.take() else { return Ok(None) };
        let step = self.step_index;
        let kernel = self.plan.steps.get(step).map(|s| s.name.clone()).unwrap_or_default();
        let functions = self
            .plan
            .steps
            .get(step)
            .and_then(|s| self.programs.get(&s.kernel))
            .map(|p| p.funcs.iter().map(|f| f.handle).collect())
            .unwrap_or_default();
        let launch = self.launches.len().saturating_sub(1) as u32;
        Ok(Some(OpenCta { exec, launch, kernel, functions, step, done: false }))
    }

    /// Sizes the buffers of the CTAs started from now on like `warps` (a finished CTA, or an open
    /// CTA's first piece): they start that large instead of growing by copies.
    pub fn size_traces_like(&mut self, warps: &[WarpTrace]) {
        self.trace_sizes.clear();
        self.trace_sizes.extend(warps.iter().map(|w| [w.records.len(), w.addresses.len(), w.values.len()]));
    }

    /// The decoded program `cta` runs (for the replay of 64-wide wavefronts,
    /// [`crate::exec::wavefront`]).
    pub fn program_of(&self, cta: &OpenCta) -> Option<&crate::exec::program::Program> {
        self.plan.steps.get(cta.step).and_then(|s| self.programs.get(&s.kernel))
    }

    /// Every function the launched kernels may run (the kernels and what they call).
    pub fn functions_run(&self) -> alloc::collections::BTreeSet<Handle<Function>> {
        self.programs.values().flat_map(|p| p.funcs.iter().map(|f| f.handle)).collect()
    }

    /// Whether the next CTA to open belongs to a later launch (or there is none): every open
    /// CTA must finish first.
    pub fn next_opens_launch(&self) -> bool {
        let Some(step) = self.plan.steps.get(self.step_index) else { return true };
        self.cta_next >= step.grid.iter().map(|&g| u64::from(g)).product::<u64>()
    }

    /// Whether a CTA follows the current launch's (a later launch, or another round).
    pub fn launches_follow(&self) -> bool {
        self.step_index + 1 < self.plan.steps.len() || self.plan.repeat.is_some()
    }

    /// Runs `cta` for at most `limit` warp-instructions; `true` once it has finished.
    pub fn advance_cta(&mut self, cta: &mut OpenCta, limit: u64) -> Result<bool, ExecError> {
        if cta.done {
            return Ok(true);
        }
        if self.plan.steps.get(cta.step).is_none() || cta.step != self.step_index {
            return Err(ExecError::InvalidLaunch { message: "a CTA ran outside its launch".into() });
        }
        let Some(mut cx) = self.launch_cx(cta.step) else { return Ok(true) };
        match cta.exec.run(&mut cx, limit.max(1)) {
            Ok(done) => {
                cta.done = done;
                Ok(done)
            }
            Err(e) => {
                self.finished = Some(Err(e.clone()));
                Err(e)
            }
        }
    }
}
