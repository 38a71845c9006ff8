//! The thin adapter from the functional executor to the timing model: runs
//! [`crate::exec::Run`] with tracing on and turns each [`crate::exec::CtaTrace`] into a
//! [`CtaStream`] — static ids instead of (function, instruction) handles, the launch's block
//! shape, and generic addresses resolved to their state space (offsets within it).
//!
//! ```text
//! ExecSource::new(&module, &setup, &program)?   // then Simulation::new(program, Box::new(src), …)
//! TraceRecord { func 0, inst #12, executed ffffffff, space None, addrs [0x7e00_0000_0040, …] }
//!   → sid 12, access { space Shared, addrs [0x40, …] }
//! ```

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use crate::exec::memory::{AddressLayout, Space};
use crate::exec::plan::{address_bits, plan};
use crate::exec::{CtaTrace, ExecError, LaunchSetup, Run, RunOptions, TraceOptions};
use crate::ir::Module;
use crate::timing::error::SourceError;
use crate::timing::program::Program;
use crate::timing::stream::trace::{CtaSource, CtaStream, LaunchShape, MemSpace, WarpStream};

/// CTAs from the executor.
pub struct ExecSource {
    run: Run,
    layout: AddressLayout,
    func_base: Vec<(u32, u32)>,
    /// Per launch step: its shape.
    steps: Vec<LaunchShape>,
    total: Option<u64>,
    warp_instructions: u64,
}

impl ExecSource {
    /// Starts the executor on `setup` (tracing on) for a timing run of `program` (decoded from
    /// the same `module`).
    pub fn new(module: &Module, setup: &LaunchSetup, program: &Program) -> Result<ExecSource, ExecError> {
        let checked = plan(module, setup)?;
        let mut steps = Vec::new();
        for s in &checked.steps {
            let kernel = program.kernel_index(&s.name).ok_or_else(|| ExecError::InvalidLaunch {
                message: format!("kernel {} is not an entry of the decoded program", s.name),
            })?;
            let threads = s.block.iter().map(|&d| d.max(1)).product();
            steps.push(LaunchShape { kernel, threads, dynamic_smem: s.dynamic_smem });
        }
        let total = checked
            .repeat
            .is_none()
            .then(|| checked.steps.iter().map(|s| s.grid.iter().map(|&g| u64::from(g.max(1))).product::<u64>()).sum());
        let layout = if address_bits(module) == 64 { AddressLayout::bits64() } else { AddressLayout::bits32() };
        let options = RunOptions { budget: None, trace: TraceOptions { enabled: true, values: false } };
        let run = Run::new(module, setup, options)?;
        let func_base = program.func_base.iter().map(|(&f, &b)| (f, b)).collect();
        Ok(ExecSource { run, layout, func_base, steps, total, warp_instructions: 0 })
    }

    /// Warp-instructions handed over so far.
    pub fn warp_instructions(&self) -> u64 {
        self.warp_instructions
    }

    /// The executor's run (for its outputs once the streams are consumed).
    pub fn run(&self) -> &Run {
        &self.run
    }

    fn convert(&mut self, t: CtaTrace) -> Result<CtaStream, String> {
        let bases: Vec<Option<u32>> = t
            .functions
            .iter()
            .map(|f| {
                let i = self.func_base.binary_search_by_key(&f.raw(), |&(k, _)| k).ok()?;
                self.func_base.get(i).map(|&(_, b)| b)
            })
            .collect();
        let step = (t.launch as usize).checked_rem(self.steps.len()).and_then(|i| self.steps.get(i).copied());
        let shape = step.ok_or_else(|| format!("launch {} has no launch step", t.launch))?;
        let mut warps = Vec::with_capacity(t.warps.len());
        for w in t.warps {
            let mut raw = w.addresses;
            let mut stream = WarpStream::new();
            for r in &w.records {
                let base = bases.get(r.func as usize).copied().flatten();
                let sid = base.ok_or_else(|| format!("function #{} of CTA {:?} was not decoded", r.func, t.cta))?
                    + r.inst.raw();
                let (a, n) = (r.addr_start as usize, r.addr_count as usize);
                let lanes = raw.get_mut(a..a + n).unwrap_or(&mut []);
                let space = match r.space {
                    Some(s) => Some(from_exec(s)),
                    None if n > 0 => Some(self.resolve(lanes)),
                    None => None,
                };
                match space {
                    Some(space) => {
                        if n != r.executed.count_ones() as usize {
                            return Err(format!(
                                "CTA {:?}: {n} addresses for {} executing lanes",
                                t.cta,
                                r.executed.count_ones()
                            ));
                        }
                        stream.push_access(sid, r.executed, space, r.bytes, lanes).map_err(String::from)?;
                    }
                    None => stream.push(sid, r.executed),
                }
            }
            self.warp_instructions += u64::from(stream.len());
            warps.push(stream);
        }
        Ok(CtaStream { launch: t.launch, shape, warps })
    }

    /// The space of generic addresses `addrs` (by the first), rewritten to offsets in it.
    fn resolve(&self, addrs: &mut [u64]) -> MemSpace {
        let Some(&first) = addrs.first() else { return MemSpace::Global };
        let (space, _) = self.layout.classify(first);
        for a in addrs.iter_mut() {
            *a = self.layout.from_generic(space, *a);
        }
        from_exec(space)
    }
}

fn from_exec(s: Space) -> MemSpace {
    match s {
        Space::Global => MemSpace::Global,
        Space::Shared => MemSpace::Shared,
        Space::Local => MemSpace::Local,
        Space::Const => MemSpace::Const,
        Space::Param => MemSpace::Param,
    }
}

impl CtaSource for ExecSource {
    fn next_cta(&mut self) -> Result<Option<CtaStream>, SourceError> {
        match self.run.next_cta()? {
            Some(t) => self.convert(t).map(Some).map_err(SourceError::Stream),
            None => Ok(None),
        }
    }

    fn total_ctas(&self) -> Option<u64> {
        self.total
    }
}
