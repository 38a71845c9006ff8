//! The thin adapter from the functional executor to the timing model: runs
//! [`crate::exec::Run`] with tracing on and turns each [`crate::exec::CtaTrace`] into a
//! [`CtaStream`] — static ids instead of (function, instruction) handles, the launch's block
//! shape, and generic addresses resolved to their state space (offsets within it).
//!
//! ```text
//! ExecSource::new(&module, &setup, &program)?   // then Simulation::new(program, Box::new(src), …)
//! TraceRecord { func 0, inst #12, executed ffffffff, space None, addrs [0x7e00_0000_0040, …] }
//!   → DynInst { sid 12, space Shared, addrs [0x40, …] }
//! ```

use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;

use super::program::Program;
use super::trace::{AddrForm, CtaSource, CtaStream, DynInst, LaunchShape, MemSpace, WarpStream};
use crate::exec::memory::{AddressLayout, Space};
use crate::exec::plan::{address_bits, plan};
use crate::exec::{CtaTrace, ExecError, LaunchSetup, Run, RunOptions, TraceOptions};
use crate::ir::Module;

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
            let mut addresses = Vec::new();
            let mut insts = Vec::with_capacity(w.records.len());
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
                if space.is_some() && n != r.executed.count_ones() as usize {
                    return Err(format!(
                        "CTA {:?}: {n} addresses for {} executing lanes",
                        t.cta,
                        r.executed.count_ones()
                    ));
                }
                let addr_start =
                    u32::try_from(addresses.len()).map_err(|_| String::from("too many addresses in a warp"))?;
                let addr_form = compact(lanes, r.executed, &mut addresses);
                insts.push(DynInst { sid, executed: r.executed, addr_start, bytes: r.bytes, space, addr_form });
            }
            self.warp_instructions += insts.len() as u64;
            warps.push(WarpStream { insts, addresses });
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

/// Appends the addresses of one instruction (one per lane of `executed`, lane order) to `out`
/// as an [`AddrForm::Affine`] if they fit one — over the whole warp, or in rows of 16 or 8 lanes
/// as 2-D thread blocks of those widths lay them out — else as a list.
fn compact(lanes: &[u64], executed: u32, out: &mut Vec<u64>) -> AddrForm {
    if executed.count_ones() as usize == lanes.len() && !lanes.is_empty() {
        for w in [32u64, 16, 8] {
            if let Some([base, sx, sy]) = fit(lanes, executed, w) {
                out.extend_from_slice(&[base, sx, sy, w]);
                return AddrForm::Affine;
            }
        }
    }
    out.extend_from_slice(lanes);
    AddrForm::List
}

/// `[base, sx, sy]` with `address(l) = base + sx·(l mod w) + sy·(l div w)` for every executed
/// lane, if there is one (strides taken from the first lanes that determine them).
fn fit(lanes: &[u64], executed: u32, w: u64) -> Option<[u64; 3]> {
    let (shift, mask) = (w.trailing_zeros(), w - 1);
    let (col, row) = (move |l: u64| l & mask, move |l: u64| l >> shift);
    let ids = || (0..32u64).filter(move |l| executed >> l & 1 == 1);
    let pairs = || ids().zip(lanes.iter().copied());
    let (l0, a0) = pairs().next()?;
    let (x0, y0) = (col(l0), row(l0));
    let sx = pairs()
        .find(|&(l, _)| row(l) == y0 && col(l) != x0)
        .map_or(Some(0), |(l, a)| a.wrapping_sub(a0).checked_div(col(l) - x0))?;
    let sy = pairs()
        .find(|&(l, _)| row(l) != y0)
        .map_or(0, |(l, a)| a.wrapping_sub(a0).wrapping_sub(sx.wrapping_mul(col(l).wrapping_sub(x0))) / (row(l) - y0));
    let base = a0.wrapping_sub(sx.wrapping_mul(x0)).wrapping_sub(sy.wrapping_mul(y0));
    let at = |l: u64| base.wrapping_add(sx.wrapping_mul(col(l))).wrapping_add(sy.wrapping_mul(row(l)));
    pairs().all(|(l, a)| at(l) == a).then_some([base, sx, sy])
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
    fn next_cta(&mut self) -> Result<Option<CtaStream>, String> {
        match self.run.next_cta().map_err(|e| e.to_string())? {
            Some(t) => self.convert(t).map(Some),
            None => Ok(None),
        }
    }

    fn total_ctas(&self) -> Option<u64> {
        self.total
    }
}
