//! When the budget runs out: which loop the warp was in. Nothing is counted while a kernel runs
//! (the inner loop pays nothing); once the budget is used up, the warp that used the last of it
//! runs on for up to [`SAMPLE`] more warp-instructions, untraced and uncounted, and the back edge
//! (a branch to itself or an earlier instruction of its function) it takes most often names the
//! loop: its target is the loop's head, the branch its end.
//!
//! ```text
//! 12  $L_loop:  add.s32 %r1, %r1, 1;   // head
//! 13            bra.uni $L_loop;       // back edge, taken 5000 times in 10000 instructions
//! → "... in the loop at lines 12-13 (`add.s32 %r1, %r1, 1` ... `bra.uni $L_loop`) of k"
//! ```

use alloc::boxed::Box;
use alloc::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::error::Site;
use super::execute::{run_warp, StepCx, Stop};
use super::program::{Op, Program};
use super::warp::Warp;

/// Warp-instructions run after the budget to find the loop.
pub const SAMPLE: u32 = 10_000;

/// The loop a warp spent its last instructions in.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct HotLoop {
    /// The loop's first instruction (the back edge's target).
    pub head: Site,
    /// The branch back to it.
    pub back_edge: Site,
    /// Times the back edge was taken in the sample.
    pub taken: u32,
    /// Warp-instructions sampled.
    pub sampled: u32,
}

/// The next instruction `w` will execute, `(function, pc)`, after popping finished stack
/// entries as [`run_warp`] does; `None` at a return or once the warp is done.
fn next_pc(w: &mut Warp, prog: &Program) -> Option<(u32, u32)> {
    loop {
        let frame = w.frames.last_mut()?;
        let top = *frame.stack.last()?;
        let func = prog.funcs.get(frame.func as usize)?;
        let active = top.mask & !w.exited & !frame.returned;
        if active != 0 && top.pc != top.rpc && (top.pc as usize) < func.code.len() {
            return Some((frame.func, top.pc));
        }
        frame.stack.pop();
    }
}

/// Runs `w` on for up to [`SAMPLE`] warp-instructions (its budget used up) and returns its
/// hottest back edge, if it took one. The counters, budget and trace of `cx` are left as they
/// were.
pub fn hottest_loop(w: &mut Warp, cx: &mut StepCx<'_>) -> Option<Box<HotLoop>> {
    let (counters, budget, trace) = (*cx.counters, cx.budget, cx.trace.take());
    cx.budget = u64::MAX;
    let prog = cx.prog;
    let mut edges: BTreeMap<(u32, u32, u32), u32> = BTreeMap::new();
    let mut sampled = 0;
    while sampled < SAMPLE && !w.done() {
        let at = next_pc(w, prog);
        if !matches!(run_warp(w, cx, 1), Ok(Stop::Yield)) {
            break;
        }
        sampled += 1;
        let (Some((f, pc)), Some((g, next))) = (at, next_pc(w, prog)) else { continue };
        let is_branch = prog
            .funcs
            .get(f as usize)
            .and_then(|x| x.code.get(pc as usize))
            .is_some_and(|d| matches!(d.op, Op::Bra { .. }));
        if is_branch && f == g && next <= pc {
            *edges.entry((f, next, pc)).or_insert(0) += 1;
        }
    }
    *cx.counters = counters;
    cx.budget = budget;
    cx.trace = trace;
    // The most taken; among equals, the first in program order.
    let (&(f, head, end), &taken) = edges.iter().max_by(|a, b| a.1.cmp(b.1).then(b.0.cmp(a.0)))?;
    let func = prog.funcs.get(f as usize)?;
    let site = |pc: u32| func.code.get(pc as usize).map(|di| cx.site(func, di));
    Some(Box::new(HotLoop { head: site(head)?, back_edge: site(end)?, taken, sampled }))
}
