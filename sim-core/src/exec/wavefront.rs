//! A 64-wide wavefront (AMD GCN3, Wyse's compute unit) replayed from the streams of its two
//! 32-lane halves. The executor runs 32-thread warps; for a 64-wide machine the halves
//! `2w` and `2w + 1` of a block form wavefront `w`, and this module works out the order in which
//! the wavefront runs their instructions: the same reconvergence stack the executor uses
//! ([`super::simt_stack`], immediate post-dominators), over 64-lane masks.
//!
//! Why that is exact: each thread's path through the code does not depend on the warp width
//! (kernels whose semantics do — shuffles, votes, `%laneid`, … — are refused on a 64-wide
//! machine by [`crate::exec::wavefront_check`]), and a branch splits lanes only by their own
//! outcome, so the 64-lane stack, seen from one half, runs exactly that half's recorded
//! instructions in the recorded order; it only adds the instructions the other half runs alone.
//! [`WaveControl`] checks that at every step (a half's next record must be the instruction the
//! stack says, with the lanes it says).
//!
//! ```text
//! half 0: bra (taken by 0-31) · A · A · join        half 1: bra (taken by none) · B · join
//! wavefront: bra (lanes 0-63) · A (0-31) · A (0-31) · B (32-63) · join (0-63)
//! ```
//!
//! What it does not replay (refused before the run): `brx.idx` and indirect calls, whose per-lane
//! targets the streams do not record.

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use super::op::{CallTarget, Op};
use super::program::Program;
use super::simt_stack::{self, Entry};

/// One call frame of the wavefront.
#[derive(Clone, Debug)]
struct WaveFrame {
    func: u32,
    stack: Vec<Entry<u64>>,
    returned: u64,
}

/// The reconvergence state of one wavefront.
#[derive(Clone, Debug)]
pub struct WaveControl {
    frames: Vec<WaveFrame>,
    exited: u64,
    /// The instruction [`WaveControl::next`] returned: `(func, pc, active)`.
    current: Option<(u32, u32, u64)>,
}

/// The lanes of the half `half` (0 or 1) of a 64-lane mask.
pub fn half_of(mask: u64, half: usize) -> u32 {
    (mask >> (32 * (half & 1))) as u32
}

/// A 64-lane mask from the halves' 32-lane masks.
pub fn join(low: u32, high: u32) -> u64 {
    u64::from(low) | u64::from(high) << 32
}

impl WaveControl {
    /// A wavefront whose lanes `valid` exist, at the kernel's first instruction.
    pub fn new(valid: u64) -> Self {
        let stack = alloc::vec![Entry { pc: 0, rpc: u32::MAX, mask: valid }];
        WaveControl { frames: alloc::vec![WaveFrame { func: 0, stack, returned: 0 }], exited: 0, current: None }
    }

    /// The next instruction the wavefront runs, `(function, pc, active lanes)`, after popping
    /// finished entries and frames exactly as the executor does; `None` once it has finished.
    pub fn next(&mut self, prog: &Program) -> Option<(u32, u32, u64)> {
        if let Some(c) = self.current {
            return Some(c);
        }
        loop {
            let frame = self.frames.last_mut()?;
            let Some(&top) = frame.stack.last() else {
                self.frames.pop();
                continue;
            };
            let len = prog.funcs.get(frame.func as usize).map_or(0, |f| f.code.len());
            let active = top.mask & !self.exited & !frame.returned;
            if active == 0 || top.pc == top.rpc || top.pc as usize >= len {
                frame.stack.pop();
                continue;
            }
            self.current = Some((frame.func, top.pc, active));
            return self.current;
        }
    }

    /// Runs the control effect of the instruction [`WaveControl::next`] returned, `executed`
    /// being its lanes whose guard held.
    pub fn retire(&mut self, prog: &Program, executed: u64) -> Result<(), String> {
        let Some((func, pc, active)) = self.current.take() else {
            return Err(String::from("a wavefront retired an instruction it had not reached"));
        };
        let kernel_frame = self.frames.len() == 1;
        let Some(frame) = self.frames.last_mut() else { return Ok(()) };
        if let Some(top) = frame.stack.last_mut() {
            top.pc += 1;
        }
        let op = prog.funcs.get(func as usize).and_then(|f| f.code.get(pc as usize)).map(|d| &d.op);
        match op {
            Some(Op::Bra { target, reconv }) => {
                simt_stack::branch(&mut frame.stack, active, executed, *target, pc + 1, *reconv);
            }
            Some(Op::BrxIdx { .. }) => {
                return Err(String::from("brx.idx: per-lane branch targets are not replayed on a 64-wide wavefront"))
            }
            Some(Op::Call { target, .. }) if executed != 0 => match target {
                CallTarget::Direct(callee) => {
                    let stack = alloc::vec![Entry { pc: 0, rpc: u32::MAX, mask: executed }];
                    self.frames.push(WaveFrame { func: *callee, stack, returned: 0 });
                }
                CallTarget::Vprintf => {}
                CallTarget::Indirect(_) | CallTarget::External(_) => {
                    return Err(format!(
                        "function {func}, instruction {pc}: a call that a 64-wide wavefront cannot replay"
                    ))
                }
            },
            Some(Op::Ret) if kernel_frame => self.exited |= executed,
            Some(Op::Ret) => frame.returned |= executed,
            Some(Op::Exit) => self.exited |= executed,
            _ => {}
        }
        Ok(())
    }
}

/// Where the replay of one wavefront stands, for the merge of its halves' records.
#[derive(Clone, Debug)]
pub struct WaveMerge {
    control: WaveControl,
}

/// What the merge does next.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MergeStep {
    /// The wavefront runs the next record of each half marked `true`, together.
    Run([bool; 2]),
    /// The record of this half is needed and not recorded yet.
    Wait(usize),
    /// The wavefront has finished.
    Done,
}

/// What the merge needs to know of a half's next record.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HalfNext {
    /// Function index (the records' `func`).
    pub func: u32,
    /// Program counter.
    pub pc: u32,
    /// Lanes active in the half's stack.
    pub active: u32,
    /// Lanes whose guard held.
    pub executed: u32,
}

impl WaveMerge {
    /// The merge of a wavefront whose halves have `valid` lanes each (`[32, 0]` for a
    /// wavefront of one half).
    pub fn new(valid: [u32; 2]) -> Self {
        WaveMerge { control: WaveControl::new(join(valid[0], valid[1])) }
    }

    /// The next step, given each half's next record (`None`: not recorded yet, or none left
    /// when `done[h]`): checks that the records are the instruction the wavefront runs next.
    pub fn step(&mut self, prog: &Program, next: [Option<HalfNext>; 2], done: [bool; 2]) -> Result<MergeStep, String> {
        let Some((func, pc, active)) = self.control.next(prog) else {
            return match next {
                [None, None] => Ok(MergeStep::Done),
                _ => Err(String::from("a half of a wavefront recorded instructions after the wavefront finished")),
            };
        };
        let mut run = [false; 2];
        let mut executed = [0u32; 2];
        for h in 0..2 {
            let lanes = half_of(active, h);
            if lanes == 0 {
                continue;
            }
            let Some(r) = next[h] else {
                return if done[h] {
                    Err(format!("half {h} of a wavefront ended before function {func}, instruction {pc}"))
                } else {
                    Ok(MergeStep::Wait(h))
                };
            };
            if r.func != func || r.pc != pc || r.active != lanes {
                return Err(format!(
                    "half {h} of a wavefront ran function {} instruction {} (lanes {:#x}) where the wavefront runs \
                     function {func} instruction {pc} (lanes {lanes:#x})",
                    r.func, r.pc, r.active
                ));
            }
            run[h] = true;
            executed[h] = r.executed;
        }
        self.control.retire(prog, join(executed[0], executed[1]))?;
        Ok(MergeStep::Run(run))
    }
}
