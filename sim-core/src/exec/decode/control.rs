//! Decoding control flow and warp-wide instructions: `bra`, `brx.idx`, `call`, `ret`, `exit`,
//! barriers, `vote`, `shfl`, `activemask`, `redux`, `match`, `elect`, `mma`, instructions without
//! functional effect, and the reasons for what stays unsupported.
//!
//! ```text
//! @%p1 bra $L__BB0_2;   // Op::Bra { target: pc of $L__BB0_2, reconv: pc of the ipdom }
//! ```

use alloc::boxed::Box;
use alloc::format;

use super::ops::{Ops, R};
use super::FnCx;
use crate::exec::program::{BarKind, CallTarget, Dst, Op, Src};
use crate::ir::{BarMode, Layout, MatchMode, Opcode, Operand, Symbol, Type};

/// The op of a control-flow, warp-wide or remaining instruction.
pub(super) fn decode(o: &Ops<'_, '_>, block: usize) -> R<Op> {
    use Opcode as O;
    let (inst, cx, mods) = (o.inst, o.cx, &o.inst.mods);
    Ok(match inst.opcode {
        O::Bra => {
            let target = label(cx, o.op(0)?)?;
            Op::Bra { target, reconv: cx.reconv.get(block).copied().unwrap_or(cx.exit_pc) }
        }
        O::BrxIdx => {
            let targets = match o.op(1)? {
                Operand::List(items) | Operand::Vector(items) => {
                    items.iter().map(|i| label(cx, i)).collect::<R<alloc::vec::Vec<u32>>>()?
                }
                _ => return Err("brx.idx through a .branchtargets variable is not modelled".into()),
            };
            Op::BrxIdx {
                index: o.s_untyped(0)?,
                targets: targets.into_boxed_slice(),
                reconv: cx.reconv.get(block).copied().unwrap_or(cx.exit_pc),
            }
        }
        O::Call => decode_call(o)?,
        O::Ret => Op::Ret,
        O::Exit => Op::Exit,
        O::Bar | O::Barrier => decode_bar(o)?,
        O::Vote => Op::Vote { mode: mods.vote.ok_or("missing mode")?, d: o.d(0)?, p: o.s_untyped(1)? },
        O::Shfl => {
            let (d, dp) = o.pair(0)?;
            Op::Shfl {
                mode: mods.shfl.ok_or("missing mode")?,
                d,
                dp,
                a: o.s(1)?,
                b: o.s_untyped(2)?,
                c: o.s_untyped(3)?,
            }
        }
        O::Activemask => Op::Activemask { d: o.d(0)? },
        O::Redux => Op::Redux { op: mods.reduce.ok_or("missing op")?, ty: o.ity()?, d: o.d(0)?, a: o.s(1)? },
        O::Match => {
            let (d, dp) = o.pair(0)?;
            match mods.match_mode {
                Some(MatchMode::All) => Op::MatchAll { ty: o.ity()?, d, dp, a: o.s(1)? },
                _ => Op::MatchAny { ty: o.ity()?, d, a: o.s(1)? },
            }
        }
        O::Elect => {
            let (d, dp) = o.pair(0)?;
            Op::Elect { d, dp }
        }
        O::Mma => {
            let shape = mods.shape.ok_or("missing shape")?;
            let t = |i: usize| inst.types.get(i).or_else(|| inst.types.last()).unwrap_or(Type::F32);
            let types = match inst.types.len() {
                2 => [t(0), t(1), t(1), t(0)],
                _ => [t(0), t(1), t(2), t(3)],
            };
            Op::Mma {
                shape: (shape.m, shape.n, shape.k),
                types,
                layout: (mods.layout_a.unwrap_or(Layout::Row), mods.layout_b.unwrap_or(Layout::Col)),
                satfinite: mods.satfinite,
                d: cx.dsts(o.op(0)?)?,
                a: cx.srcs(o.op(1)?, None)?,
                b: cx.srcs(o.op(2)?, None)?,
                c: cx.srcs(o.op(3)?, None)?,
            }
        }
        O::CpAsyncCommitGroup
        | O::CpAsyncWaitGroup
        | O::CpAsyncWaitAll
        | O::BarWarpSync
        | O::Membar
        | O::Fence
        | O::Prefetch
        | O::Prefetchu
        | O::Nanosleep
        | O::Pmevent
        | O::RegmutexAcquire
        | O::RegmutexRelease
        | O::Brkpt
        | O::GriddepcontrolLaunchDependents
        | O::GriddepcontrolWait => Op::Nop,
        O::Trap => Op::Trap,
        O::Tex | O::Tld4 => return super::texture::decode(o),
        O::Txq | O::Suld | O::Sust | O::Sured | O::Suq => {
            return Err(format!("`{}` needs texture/surface hardware, which RegLab does not model", inst.opcode.name()))
        }
        other => return Err(format!("`{}` is not modelled by the executor", other.name())),
    })
}

fn label(cx: &FnCx<'_>, op: &Operand) -> R<u32> {
    match op {
        Operand::Label(b) => cx.block_pc.get(b.index()).copied().ok_or_else(|| "unknown label".into()),
        _ => Err("expected a label".into()),
    }
}

fn decode_bar(o: &Ops<'_, '_>) -> R<Op> {
    let mods = &o.inst.mods;
    let n = o.inst.operands.len();
    Ok(match mods.bar_mode {
        Some(BarMode::Red) => {
            let op = mods.reduce.ok_or("bar.red needs .popc, .and or .or")?;
            let count = if n == 4 { Some(o.s_untyped(2)?) } else { None };
            Op::Bar { kind: BarKind::Red(op), id: o.s_untyped(1)?, count, d: o.d(0)?, p: Some(o.s_untyped(n - 1)?) }
        }
        mode => {
            let kind = if mode == Some(BarMode::Arrive) { BarKind::Arrive } else { BarKind::Sync };
            let id = if n > 0 { o.s_untyped(0)? } else { Src::Imm(0) };
            let count = if n > 1 { Some(o.s_untyped(1)?) } else { None };
            Op::Bar { kind, id, count, d: Dst::Sink, p: None }
        }
    })
}

fn decode_call(o: &Ops<'_, '_>) -> R<Op> {
    let (cx, ops) = (o.cx, &o.inst.operands);
    let mut i = 0;
    let rets: Box<[_]> = match ops.first() {
        Some(Operand::List(items)) => {
            i = 1;
            items.iter().map(|r| cx.call_value(r, true)).collect::<R<alloc::vec::Vec<_>>>()?.into_boxed_slice()
        }
        _ => Box::new([]),
    };
    let target = match ops.get(i).ok_or("call without target")? {
        Operand::Symbol { symbol: Symbol::Function(h), .. } => {
            let f = cx.module.functions.get(*h).ok_or("unknown function")?;
            match cx.func_index.get(h) {
                Some(&idx) if f.body.is_some() => CallTarget::Direct(idx),
                _ if f.name == "vprintf" => CallTarget::Vprintf,
                _ => CallTarget::External(f.name.clone()),
            }
        }
        Operand::Symbol { symbol: Symbol::External(e), .. } => {
            let name = cx.module.externals.get(*e as usize).cloned().unwrap_or_default();
            if name == "vprintf" {
                CallTarget::Vprintf
            } else {
                CallTarget::External(name)
            }
        }
        other => CallTarget::Indirect(cx.src(other, None)?),
    };
    let args = match ops.get(i + 1) {
        Some(Operand::List(items)) => {
            items.iter().map(|a| cx.call_value(a, false)).collect::<R<alloc::vec::Vec<_>>>()?.into_boxed_slice()
        }
        _ => Box::new([]),
    };
    Ok(Op::Call { target, rets, args })
}
