//! Whether a module can run on a 64-wide machine (GCN3): the executor runs 32-thread warps and
//! [`super::wavefront`] replays pairs of them as 64-lane wavefronts, which is exact only for
//! code whose meaning does not depend on the warp width. The first instruction (in source
//! order, among the functions the launched kernels may run) that does is named, with its line,
//! and the run is refused:
//!
//! ```text
//! shfl.sync.down.b32 %r5, %r4, 16, 31, -1;   // exchanges values within a 32-lane warp
//! mov.u32 %r1, %laneid;                      // the lane number differs in a 64-lane wavefront
//! brx.idx %r2, $targets;                      // per-lane targets: not replayed (see wavefront)
//! ```
//!
//! Refused: warp-level operations (`shfl`, `vote`, `match`, `activemask`, `redux`, `elect`,
//! `bar.warp.sync`) and warp-wide matrix operations (`ldmatrix`, `stmatrix`, `wmma`, `mma`,
//! `wgmma`), reads of `%laneid`, `%lanemask_*`, `%warpid`, `%nwarpid` and `WARP_SZ`, and the
//! two control transfers whose per-lane targets the streams do not record (`brx.idx`, calls
//! through a register).

use alloc::boxed::Box;
use alloc::collections::BTreeSet;
use alloc::format;
use alloc::string::String;

use super::error::{ExecError, Site};
use crate::ir::print_inst::{write_inst, Names};
use crate::ir::{Function, Handle, Inst, Module, Opcode, Operand, SpecialReg, Symbol};

/// Why `inst` depends on a 32-lane warp, if it does.
fn width_dependence(inst: &Inst) -> Option<&'static str> {
    let why = match inst.opcode {
        Opcode::Shfl
        | Opcode::Vote
        | Opcode::Match
        | Opcode::Activemask
        | Opcode::Redux
        | Opcode::Elect
        | Opcode::BarWarpSync => "a warp-level operation, defined over the lanes of a 32-thread warp",
        Opcode::Ldmatrix
        | Opcode::Stmatrix
        | Opcode::WmmaLoad
        | Opcode::WmmaStore
        | Opcode::WmmaMma
        | Opcode::Mma
        | Opcode::MmaSp
        | Opcode::WgmmaMmaAsync
        | Opcode::WgmmaFence
        | Opcode::WgmmaCommitGroup
        | Opcode::WgmmaWaitGroup => "a warp-wide matrix operation, whose fragments are laid out over 32 lanes",
        Opcode::BrxIdx => "an indexed branch, whose per-lane targets a 64-wide wavefront is not replayed from",
        Opcode::Call if indirect_call(inst) => {
            "a call through a register, whose per-lane targets a 64-wide wavefront is not replayed from"
        }
        _ => "",
    };
    if !why.is_empty() {
        return Some(why);
    }
    inst.operands.iter().find_map(special_dependence)
}

/// A call whose target is not a function symbol.
fn indirect_call(inst: &Inst) -> bool {
    let target = match inst.operands.first() {
        Some(Operand::List(_)) => inst.operands.get(1),
        first => first,
    };
    !matches!(target, Some(Operand::Symbol { symbol: Symbol::Function(_) | Symbol::External(_), .. }))
}

fn special_dependence(op: &Operand) -> Option<&'static str> {
    match op {
        Operand::Special(
            SpecialReg::Laneid
            | SpecialReg::LanemaskEq
            | SpecialReg::LanemaskLe
            | SpecialReg::LanemaskLt
            | SpecialReg::LanemaskGe
            | SpecialReg::LanemaskGt,
        ) => Some("it reads the thread's lane within a 32-thread warp"),
        Operand::Special(SpecialReg::Warpid | SpecialReg::Nwarpid) => {
            Some("it reads the warp numbering of 32-thread warps")
        }
        Operand::Special(SpecialReg::WarpSz) => Some("it reads WARP_SZ, the 32-thread warp size"),
        Operand::Vector(items) | Operand::List(items) => items.iter().find_map(special_dependence),
        _ => None,
    }
}

/// The refusal for the first instruction (in source order) of the functions `run` of `module`
/// whose meaning depends on a 32-thread warp, for a machine whose wavefronts are `lanes` wide;
/// `None` when every instruction runs the same.
pub fn refuse_for_width(module: &Module, run: &BTreeSet<Handle<Function>>, lanes: u32) -> Option<ExecError> {
    let mut first: Option<(usize, Site, &'static str)> = None;
    for (handle, func) in module.functions.iter() {
        let Some(body) = func.body.as_ref().filter(|_| run.contains(&handle)) else { continue };
        for (h, inst) in body.insts.iter() {
            let Some(why) = width_dependence(inst) else { continue };
            let span = body.inst_spans.get(h);
            if first.as_ref().is_some_and(|(at, _, _)| *at <= span.start as usize) {
                continue;
            }
            let mut text = String::new();
            let _ = write_inst(&mut text, &Names { module, func, body }, inst);
            let site =
                Site { kernel: func.name.clone(), function: func.name.clone(), instruction: text, line: None, span };
            first = Some((span.start as usize, site, why));
        }
    }
    first.map(|(_, site, why)| ExecError::Unsupported {
        site: Box::new(site),
        reason: format!("a {lanes}-wide machine runs 64-lane wavefronts, and this instruction depends on 32-lane warps ({why}); pick a 32-wide GPU for this kernel"),
    })
}
