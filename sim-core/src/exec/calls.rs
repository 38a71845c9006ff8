//! Calls to `.func`s: a new frame with its own registers, predicates, reconvergence stack and
//! local-memory frame (locals, call buffers, parameters and return values), arguments copied by
//! value, return values copied back when every calling lane has returned. Indirect calls through
//! a function address are serialised: the lanes calling one function go first (that of the lowest
//! lane), the others execute the call again afterwards. `vprintf` is a no-op that returns 0; calls
//! to functions the module does not define end the run as unsupported.
//!
//! ```text
//! st.param.f32 [x_p], %f1;
//! call (ret_p), add_rp, (x_p, y_p);   // frame of add_rp: x, y copied in; output copied to ret_p
//! ld.param.f32 %f2, [ret_p];
//! ```

use alloc::boxed::Box;
use alloc::vec::Vec;

use super::error::ExecError;
use super::execute::{unsupported, StepCx};
use super::memory::{read_le, write_le, FaultReason, Space};
use super::program::{CallTarget, CallValue, DInst, Dst, FuncCode};
use super::semantics::memory_ops::lanes;
use super::simt_stack::{self, Entry};
use super::warp::{Frame, Lanes, Warp, ZERO};

/// Deepest call nesting (unbounded recursion ends here).
pub const MAX_CALL_DEPTH: usize = 1024;

fn frame_fault(cx: &StepCx<'_>, w: &Warp, func: &FuncCode, di: &DInst, lane: usize, addr: u64) -> ExecError {
    ExecError::Fault(Box::new(super::error::Fault {
        site: cx.site(func, di),
        thread: [w.tid[0][lane], w.tid[1][lane], w.tid[2][lane]],
        cta: cx.env.ctaid,
        address: alloc::format!("0x{addr:x}"),
        space: Space::Local,
        size: 0,
        reason: FaultReason::StackOverflow,
    }))
}

fn copy_local(w: &mut Warp, lane: usize, from: u64, to: u64, size: u32) {
    let bytes: Vec<u8> = w.local.slice_mut(lane, from, size).map(|s| s.to_vec()).unwrap_or_default();
    if let Some(dst) = w.local.slice_mut(lane, to, size) {
        if dst.len() == bytes.len() {
            dst.copy_from_slice(&bytes);
        }
    }
}

fn read_local(w: &mut Warp, lane: usize, at: u64, size: u32) -> u64 {
    w.local.slice_mut(lane, at, size.min(8)).map_or(0, |s| read_le(s))
}

fn write_local(w: &mut Warp, lane: usize, at: u64, size: u32, v: u64) {
    if let Some(s) = w.local.slice_mut(lane, at, size.min(8)) {
        write_le(s, v);
    }
}

/// Executes `call` for the lanes of `m`.
#[allow(clippy::too_many_arguments, reason = "the operands of one PTX instruction")]
pub fn call(
    w: &mut Warp,
    cx: &mut StepCx<'_>,
    func: &FuncCode,
    di: &DInst,
    target: &CallTarget,
    (rets, args): (&[CallValue], &[CallValue]),
    m: u32,
    at: (u32, u32),
) -> Result<(), ExecError> {
    if m == 0 {
        return Ok(());
    }
    let env = cx.env;
    let callee_index = match target {
        CallTarget::Direct(i) => *i,
        CallTarget::Indirect(src) => {
            let target_of = |l: usize| w.read_lane(*src, l, &env);
            let first = target_of(m.trailing_zeros() as usize);
            let group = lanes(m).filter(|&l| target_of(l) == first).fold(0u32, |g, l| g | (1 << l));
            if group != m {
                // Lanes calling other functions run the call again afterwards (serialised).
                let (pc, active) = at;
                let rest = m & !group;
                if let Some(f) = w.frames.last_mut() {
                    simt_stack::diverge(&mut f.stack, &[(pc + 1, active & !rest), (pc, rest)], pc + 1);
                }
            }
            let found =
                cx.prog.funcs.iter().position(|f| cx.mem.layout.func_window + 16 * u64::from(f.handle.raw()) == first);
            match found {
                Some(i) => return push_call(w, cx, func, di, i as u32, rets, args, group),
                None => return Err(unsupported(cx, func, di, "an indirect call to an address that is no function")),
            }
        }
        CallTarget::Vprintf => {
            for r in rets {
                set_value(w, r, &ZERO, m);
            }
            return Ok(());
        }
        CallTarget::External(name) => {
            let reason =
                alloc::format!("a call to `{name}`, which this module does not define (an external runtime function)");
            return Err(unsupported(cx, func, di, &reason));
        }
    };
    push_call(w, cx, func, di, callee_index, rets, args, m)
}

/// Pushes the frame of function `callee_index` for the lanes of `m` and passes the arguments.
#[allow(clippy::too_many_arguments, reason = "the operands of one PTX instruction")]
fn push_call(
    w: &mut Warp,
    cx: &mut StepCx<'_>,
    func: &FuncCode,
    di: &DInst,
    callee_index: u32,
    rets: &[CallValue],
    args: &[CallValue],
    m: u32,
) -> Result<(), ExecError> {
    let env = cx.env;
    let prog = cx.prog;
    let Some(callee) = prog.funcs.get(callee_index as usize) else {
        return Err(unsupported(cx, func, di, "a call to a function without a body"));
    };
    let caller_base = w.frames.last().map_or(0, |f| f.local_base);
    let local_base = (caller_base + func.frame_bytes).next_multiple_of(16);
    let top = local_base + callee.frame_bytes;
    if w.frames.len() >= MAX_CALL_DEPTH || w.local.ensure(top as usize).is_err() {
        return Err(frame_fault(cx, w, func, di, m.trailing_zeros() as usize, top));
    }
    let values: Vec<Option<Lanes>> = args
        .iter()
        .map(|a| match a {
            CallValue::Value(s) => {
                let mut l = ZERO;
                for lane in lanes(m) {
                    l[lane] = w.read_lane(*s, lane, &env);
                }
                Some(l)
            }
            _ => None,
        })
        .collect();
    let (reg_base, pred_base) = (w.regs.len() as u32, w.preds.len() as u32);
    w.regs.resize(w.regs.len() + callee.regs as usize, ZERO);
    w.preds.resize(w.preds.len() + callee.preds as usize, 0);
    w.frames.push(Frame {
        func: callee_index,
        reg_base,
        pred_base,
        local_base,
        stack: alloc::vec![Entry { pc: 0, rpc: u32::MAX, mask: m }],
        call_mask: m,
        ret_dsts: Box::from(rets),
        returned: 0,
    });
    for ((arg, value), param) in args.iter().zip(&values).zip(&callee.params) {
        pass(w, m, (caller_base, *arg, value.as_ref()), (local_base, *param));
    }
    Ok(())
}

/// Copies one value from `(base, value)` of the caller (or precomputed lanes) to `(base, slot)`.
fn pass(w: &mut Warp, m: u32, from: (u64, CallValue, Option<&Lanes>), to: (u64, CallValue)) {
    let (fb, fv, pre) = from;
    let (tb, tv) = to;
    let mut vals = ZERO;
    match (fv, pre) {
        (_, Some(p)) => vals = *p,
        (CallValue::Frame { offset, size }, None) => {
            if let CallValue::Frame { offset: to_off, size: to_size } = tv {
                for lane in lanes(m) {
                    copy_local(w, lane, fb + offset, tb + to_off, size.min(to_size));
                }
                return;
            }
            for lane in lanes(m) {
                vals[lane] = read_local(w, lane, fb + offset, size);
            }
        }
        _ => {}
    }
    set_at(w, tb, &tv, &vals, m);
}

fn set_at(w: &mut Warp, base: u64, slot: &CallValue, vals: &Lanes, m: u32) {
    match *slot {
        CallValue::Frame { offset, size } => {
            for lane in lanes(m) {
                write_local(w, lane, base + offset, size, vals[lane]);
            }
        }
        CallValue::Reg(d) => w.write(d, vals, m),
        CallValue::Value(_) => {}
    }
}

fn set_value(w: &mut Warp, slot: &CallValue, vals: &Lanes, m: u32) {
    let base = w.frames.last().map_or(0, |f| f.local_base);
    set_at(w, base, slot, vals, m);
}

/// Pops the current frame once its reconvergence stack is empty: copies return values to the
/// caller, or finishes the warp when it was the kernel's frame.
pub fn return_from(w: &mut Warp, cx: &mut StepCx<'_>) -> Result<(), ExecError> {
    let Some(frame) = w.frames.pop() else { return Ok(()) };
    if w.frames.is_empty() {
        return Ok(());
    }
    let m = frame.call_mask & !w.exited;
    let callee = cx.prog.funcs.get(frame.func as usize);
    let caller_base = w.frames.last().map_or(0, |f| f.local_base);
    let slots: &[CallValue] = callee.map_or(&[], |c| c.returns.as_slice());
    for (dst, slot) in frame.ret_dsts.iter().zip(slots) {
        match (*slot, *dst) {
            (CallValue::Frame { offset, size }, CallValue::Frame { offset: to, size: to_size }) => {
                for lane in lanes(m) {
                    copy_local(w, lane, frame.local_base + offset, caller_base + to, size.min(to_size));
                }
            }
            (CallValue::Frame { offset, size }, d) => {
                let mut vals = ZERO;
                for lane in lanes(m) {
                    vals[lane] = read_local(w, lane, frame.local_base + offset, size);
                }
                set_at(w, caller_base, &d, &vals, m);
            }
            (CallValue::Reg(Dst::Reg(r, _)), d) => {
                let vals = w.regs.get((frame.reg_base + r) as usize).copied().unwrap_or(ZERO);
                set_at(w, caller_base, &d, &vals, m);
            }
            _ => {}
        }
    }
    w.regs.truncate(frame.reg_base as usize);
    w.preds.truncate(frame.pred_base as usize);
    Ok(())
}
