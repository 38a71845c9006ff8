//! One CTA: its warps, its shared memory, and its barriers. Warps run one at a time in index
//! order, each until it reaches a barrier or finishes; when every warp that has not finished
//! waits at a barrier (or the barrier's thread count is reached), the barrier releases them —
//! barrier phase by barrier phase, so shared-memory results are those of real hardware. A barrier
//! that some warps can never reach is reported as a deadlock.
//!
//! ```text
//! st.shared.f32 [%r6], %f9;   // phase 1: every warp stores
//! bar.sync 0;                 // all warps arrive → released together
//! ld.shared.f32 %f7, [%r13];  // phase 2: every warp sees every store
//! ```

use alloc::collections::BTreeMap;
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use super::error::{ExecError, Site};
use super::execute::{run_warp, Arrival, Counters, StepCx, Stop};
use super::memory::{AddressLayout, GlobalMemory};
use super::notice::Notices;
use super::program::{BarKind, Program};
use super::semantics::memory_ops::{Accessed, MemCtx};
use super::stream::{CtaTrace, WarpTrace};
use super::warp::{Env, Warp, ZERO};
use crate::ir::ReduceOp;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    Ready,
    Waiting(Arrival),
    Done,
}

/// What every CTA of a launch shares.
pub struct LaunchCx<'a> {
    /// The program.
    pub prog: &'a Program,
    /// Address layout.
    pub layout: AddressLayout,
    /// Global memory.
    pub global: &'a mut GlobalMemory,
    /// Constant bank.
    pub consts: &'a [u8],
    /// Kernel parameter bank.
    pub params: &'a [u8],
    /// Counters of the run.
    pub counters: &'a mut Counters,
    /// Budget.
    pub budget: u64,
    /// Kernel name.
    pub kernel: &'a str,
    /// Record result values in the stream.
    pub values: bool,
    /// With `values`: the first executed lane's bits of each unit too.
    pub first_values: bool,
    /// What the run will tell its user.
    pub notices: &'a mut Notices,
}

/// Warp-instructions a warp runs in one turn before the next ready warp's turn (a warp's turn
/// also ends at a barrier): a phase shorter than this runs as one piece, warp after warp.
pub const SLICE: u64 = 1 << 13;

/// A CTA being executed.
pub struct CtaExec {
    env: Env,
    warps: Vec<Warp>,
    state: Vec<State>,
    shared: Vec<u8>,
    cursor: usize,
    arrived: BTreeMap<u32, u32>,
    traces: Option<Vec<WarpTrace>>,
}

impl CtaExec {
    /// CTA `env.ctaid` of a launch of `prog`; `trace`, when its streams are recorded, gives each
    /// warp's starting room for records, addresses and values (missing warps start empty).
    pub fn new(prog: &Program, env: Env, trace: Option<&[[usize; 3]]>) -> CtaExec {
        let threads = env.ntid[0] * env.ntid[1] * env.ntid[2];
        let n = threads.div_ceil(32);
        let regs = prog.funcs.first().map_or(0, |f| f.regs);
        let preds = prog.funcs.first().map_or(0, |f| f.preds);
        let frame = prog.funcs.first().map_or(0, |f| f.frame_bytes);
        let warps: Vec<Warp> = (0..n)
            .map(|i| {
                let mut w = Warp::new(i, env.ntid, regs, preds);
                w.rounding.clone_from(&prog.rounding);
                w.exactness.clone_from(&prog.exactness);
                if frame > 0 {
                    let _ = w.local.ensure(frame as usize);
                }
                w
            })
            .collect();
        let shared_bytes = prog.static_shared as usize + env.dynamic_smem as usize;
        CtaExec {
            env: Env { nwarps: n, total_smem: shared_bytes as u32, ..env },
            state: alloc::vec![State::Ready; warps.len()],
            warps,
            shared: alloc::vec![0; shared_bytes],
            cursor: 0,
            arrived: BTreeMap::new(),
            traces: trace.map(|sizes| {
                (0..n)
                    .map(|i| {
                        let [r, a, v] = sizes.get(i as usize).copied().unwrap_or_default();
                        WarpTrace {
                            warp: i,
                            records: Vec::with_capacity(r),
                            addresses: Vec::with_capacity(a),
                            values: Vec::with_capacity(v),
                            firsts: Vec::new(),
                        }
                    })
                    .collect()
            }),
        }
    }

    /// Folds every warp's exactness record into `into` (per register slot, the least index:
    /// what every warp's writes allow) — precision tuning ([`super::run::Run::track_exactness`]).
    pub fn fold_exactness(&self, into: &mut [u8]) {
        for w in &self.warps {
            for (k, &mine) in into.iter_mut().zip(&w.exactness) {
                *k = (*k).min(mine);
            }
        }
    }

    /// The streams of a finished CTA.
    pub fn into_trace(self, launch: u32, kernel: String, prog: &Program) -> Option<CtaTrace> {
        let warps = self.traces?;
        let functions = prog.funcs.iter().map(|f| f.handle).collect();
        Some(CtaTrace { launch, kernel, cta: self.env.ctaid, functions, warps })
    }

    /// Hands over the streams recorded since the last call (with tracing on), one per warp.
    pub fn take_traces(&mut self) -> Vec<WarpTrace> {
        let Some(traces) = self.traces.as_mut() else { return Vec::new() };
        // A warp that goes on records about as much again: its new buffers start that large
        // (instead of growing by copies); a finished warp's start empty.
        fn renew<T>(v: &mut Vec<T>, going_on: bool) -> Vec<T> {
            core::mem::replace(v, Vec::with_capacity(if going_on { v.len() } else { 0 }))
        }
        traces
            .iter_mut()
            .zip(&self.state)
            .map(|(t, s)| {
                let on = *s != State::Done;
                WarpTrace {
                    warp: t.warp,
                    records: renew(&mut t.records, on),
                    addresses: renew(&mut t.addresses, on),
                    values: renew(&mut t.values, on),
                    firsts: renew(&mut t.firsts, on),
                }
            })
            .collect()
    }

    /// Whether warp `i` has finished (`true` past the last warp).
    pub fn warp_done(&self, i: usize) -> bool {
        self.state.get(i).is_none_or(|s| *s == State::Done)
    }

    /// `%ctaid` of the CTA.
    pub fn ctaid(&self) -> [u32; 3] {
        self.env.ctaid
    }

    /// Runs for at most `limit` warp-instructions; `true` once every warp has finished.
    pub fn run(&mut self, cx: &mut LaunchCx<'_>, limit: u64) -> Result<bool, ExecError> {
        let start = cx.counters.warp;
        let n = self.warps.len();
        loop {
            let used = cx.counters.warp - start;
            if used >= limit {
                return Ok(false);
            }
            let next = (0..n).map(|k| (self.cursor + k) % n).find(|&i| self.state[i] == State::Ready);
            let Some(i) = next else {
                if self.state.iter().all(|s| *s == State::Done) {
                    return Ok(true);
                }
                if !self.release(cx) {
                    return Err(self.deadlock(cx));
                }
                continue;
            };
            self.cursor = i;
            let turn = cx.counters.warp;
            let stop = self.run_one(cx, i, (limit - used).min(SLICE))?;
            match stop {
                // A warp's turn ends after SLICE instructions even without a barrier, so that the
                // streams of a long phase come out warp by warp in pieces.
                Stop::Yield if cx.counters.warp - turn >= SLICE => {}
                Stop::Yield => return Ok(false),
                Stop::Done => self.state[i] = State::Done,
                Stop::Barrier(a) if a.kind == BarKind::Arrive => {
                    let threads = self.warps.get(i).map_or(0, |w| (w.valid & !w.exited).count_ones());
                    *self.arrived.entry(a.id).or_insert(0) += threads;
                }
                Stop::Barrier(a) => self.state[i] = State::Waiting(a),
            }
            self.cursor = (i + 1) % n.max(1);
            self.release(cx);
        }
    }

    fn run_one(&mut self, cx: &mut LaunchCx<'_>, i: usize, limit: u64) -> Result<Stop, ExecError> {
        let Some(w) = self.warps.get_mut(i) else { return Ok(Stop::Done) };
        let trace = self.traces.as_mut().and_then(|t| t.get_mut(i));
        let acc = Accessed { enabled: trace.is_some(), ..Accessed::default() };
        let mut step = StepCx {
            prog: cx.prog,
            env: self.env,
            mem: MemCtx {
                layout: cx.layout,
                global: cx.global,
                consts: cx.consts,
                params: cx.params,
                shared: &mut self.shared,
            },
            counters: cx.counters,
            budget: cx.budget,
            kernel: cx.kernel,
            trace,
            values: cx.values,
            first_values: cx.first_values,
            acc,
            notices: cx.notices,
        };
        run_warp(w, &mut step, limit)
    }

    /// Releases every barrier whose condition holds; true if any warp was released.
    fn release(&mut self, _cx: &mut LaunchCx<'_>) -> bool {
        let mut any = false;
        // Each barrier id once, in the order of its first waiting warp (ids from 64 on may be
        // looked at again: harmless, as nothing a later release does can make them ready).
        let mut seen = 0u64;
        let mut k = 0;
        while let Some(s) = self.state.get(k) {
            k += 1;
            let State::Waiting(a0) = *s else { continue };
            let id = a0.id;
            if id < 64 {
                if seen >> id & 1 == 1 {
                    continue;
                }
                seen |= 1 << id;
            }
            if !self.barrier_ready(a0) {
                continue;
            }
            let waiting: Vec<usize> =
                (0..self.state.len()).filter(|&i| matches!(self.state[i], State::Waiting(a) if a.id == id)).collect();
            self.arrived.remove(&id);
            self.finish_reduction(&waiting);
            for i in waiting {
                self.state[i] = State::Ready;
            }
            any = true;
        }
        any
    }

    /// Whether barrier `a0.id`, whose first waiting warp arrived with `a0`, is complete: its
    /// expected thread count has arrived, or without one every warp not done waits at it.
    fn barrier_ready(&self, a0: Arrival) -> bool {
        let id = a0.id;
        let waits = |s: &State| matches!(s, State::Waiting(a) if a.id == id);
        match a0.count {
            Some(c) => {
                let threads: u32 = self
                    .state
                    .iter()
                    .zip(&self.warps)
                    .filter(|(s, _)| waits(s))
                    .map(|(_, w)| (w.valid & !w.exited).count_ones())
                    .sum();
                threads + self.arrived.get(&id).copied().unwrap_or(0) >= c
            }
            None => self.state.iter().all(|s| matches!(s, State::Done) || waits(s)),
        }
    }

    fn finish_reduction(&mut self, waiting: &[usize]) {
        let arrivals: Vec<Arrival> = waiting
            .iter()
            .filter_map(|&i| match self.state[i] {
                State::Waiting(a) => Some(a),
                _ => None,
            })
            .collect();
        let Some(BarKind::Red(op)) = arrivals.first().map(|a| a.kind) else { return };
        let votes: u32 = arrivals.iter().map(|a| a.votes.count_ones()).sum();
        let all = arrivals.iter().all(|a| a.votes == a.mask);
        let value = match op {
            ReduceOp::Popc => u64::from(votes),
            ReduceOp::And => u64::from(all),
            _ => u64::from(votes > 0),
        };
        for (&i, a) in waiting.iter().zip(&arrivals) {
            if let Some(w) = self.warps.get_mut(i) {
                let mut vals = ZERO;
                vals.iter_mut().for_each(|v| *v = value);
                w.write(a.d, &vals, a.mask);
            }
        }
    }

    fn deadlock(&self, cx: &LaunchCx<'_>) -> ExecError {
        let mut waiting = Vec::new();
        let mut desc = Vec::new();
        for (i, s) in self.state.iter().enumerate() {
            match s {
                State::Waiting(a) => {
                    desc.push(format!("warp {i} waits at barrier {}", a.id));
                    if let Some(f) = cx.prog.funcs.get(a.at.0 as usize) {
                        if let Some(di) = f.code.get(a.at.1 as usize) {
                            let site = Site {
                                kernel: cx.kernel.into(),
                                function: f.name.clone(),
                                instruction: f.texts.get(di.inst.index()).cloned().unwrap_or_default(),
                                line: None,
                                span: di.span,
                            };
                            if !waiting.contains(&site) {
                                waiting.push(site);
                            }
                        }
                    }
                }
                State::Done => desc.push(format!("warp {i} has finished")),
                State::Ready => {}
            }
        }
        ExecError::Deadlock {
            kernel: cx.kernel.into(),
            cta: self.env.ctaid,
            message: format!("no barrier can complete: {}", desc.join(", ")),
            waiting,
        }
    }
}
