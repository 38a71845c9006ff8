//! Running one warp: fetch the top entry of the current frame's reconvergence stack, evaluate the
//! guard, count the instruction against the budget, execute it over the active lanes, record it
//! in the stream. A warp runs until it reaches a barrier, finishes, or has executed its slice.
//!
//! ```text
//! @%p1 bra $L__BB0_3;   // lanes where %p1 holds → $L__BB0_3, the others fall through;
//!                       // both meet at the branch block's immediate post-dominator
//! bar.sync 0;           // the warp stops here; the CTA releases it when all warps arrived
//! ```

use super::budget;
use super::calls;
use super::error::{ExecError, Fault, Site};
use super::memory::AccessFault;
use super::notice::{Notice, NoticeKind, Notices};
use super::program::{BarKind, DInst, Dst, FuncCode, Op, Program};
use super::semantics::bits::{self, Bits3};
use super::semantics::memory_ops::{self, Accessed, MemCtx};
use super::semantics::{compare, convert, float, int, tensor, warp_ops, wmma};
use super::simt_stack;
use super::stream::{RecordKind, TraceRecord, WarpTrace};
use super::value_summary;
use super::warp::{Env, Warp};

/// Instructions executed so far.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counters {
    /// Warp-instructions (every issue of an instruction by a warp).
    pub warp: u64,
    /// Thread-instructions: lanes of each issue that are active and whose guard holds (what
    /// GPGPU-Sim counts as `gpu_sim_insn`).
    pub thread: u64,
}

/// A warp's arrival at a CTA barrier.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Arrival {
    /// What the barrier does.
    pub kind: BarKind,
    /// Barrier number.
    pub id: u32,
    /// Expected thread count, if given.
    pub count: Option<u32>,
    /// Destination of `bar.red`.
    pub d: Dst,
    /// Lanes that arrived.
    pub mask: u32,
    /// Lanes whose `bar.red` predicate holds.
    pub votes: u32,
    /// The function and program counter of the barrier (for deadlock reports).
    pub at: (u32, u32),
}

/// Why a warp stopped running.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stop {
    /// Its slice is used up.
    Yield,
    /// It arrived at a barrier.
    Barrier(Arrival),
    /// All its threads finished.
    Done,
}

/// What one warp needs to run.
pub struct StepCx<'a> {
    /// The program.
    pub prog: &'a Program,
    /// Special-register values of the CTA.
    pub env: Env,
    /// Memories.
    pub mem: MemCtx<'a>,
    /// Counters of the run.
    pub counters: &'a mut Counters,
    /// Budget in warp-instructions.
    pub budget: u64,
    /// Kernel name (for errors).
    pub kernel: &'a str,
    /// Where to record the stream.
    pub trace: Option<&'a mut WarpTrace>,
    /// Record result values.
    pub values: bool,
    /// With `values`: the first executed lane's bits of each unit too.
    pub first_values: bool,
    /// Scratch for memory addresses.
    pub acc: Accessed,
    /// What the run will tell its user (divisions by zero, …).
    pub notices: &'a mut Notices,
}

impl StepCx<'_> {
    /// The site of an instruction.
    pub fn site(&self, func: &FuncCode, di: &DInst) -> Site {
        Site {
            kernel: self.kernel.into(),
            function: func.name.clone(),
            instruction: func.texts.get(di.inst.index()).cloned().unwrap_or_default(),
            line: None,
            span: di.span,
        }
    }

    fn fault(&self, w: &Warp, func: &FuncCode, di: &DInst, (lane, f): (usize, AccessFault)) -> ExecError {
        let digits = if f.address > 0xFFFF_FFFF { 16 } else { 8 };
        ExecError::Fault(alloc::boxed::Box::new(Fault {
            site: self.site(func, di),
            thread: [w.tid[0][lane], w.tid[1][lane], w.tid[2][lane]],
            cta: self.env.ctaid,
            address: alloc::format!("0x{:0digits$x}", f.address),
            space: f.space,
            size: f.size,
            reason: f.reason,
        }))
    }
}

/// Runs `w` for at most `limit` warp-instructions.
pub fn run_warp(w: &mut Warp, cx: &mut StepCx<'_>, limit: u64) -> Result<Stop, ExecError> {
    let prog = cx.prog;
    let mut n = 0u64;
    while n < limit {
        let Some(frame) = w.frames.last_mut() else { return Ok(Stop::Done) };
        let Some(&top) = frame.stack.last() else {
            calls::return_from(w, cx)?;
            continue;
        };
        let func_index = frame.func;
        let Some(func) = prog.funcs.get(func_index as usize) else { return Ok(Stop::Done) };
        let active = top.mask & !w.exited & !frame.returned;
        let Some(di) = func.code.get(top.pc as usize).filter(|_| active != 0 && top.pc != top.rpc) else {
            frame.stack.pop();
            continue;
        };
        if cx.counters.warp >= cx.budget {
            return Err(budget_exceeded(w, cx));
        }
        if let Some(e) = frame.stack.last_mut() {
            e.pc += 1;
        }
        let exec = match di.guard {
            Some((p, neg)) => active & (w.pred(p) ^ if neg { u32::MAX } else { 0 }),
            None => active,
        };
        cx.counters.warp += 1;
        cx.counters.thread += u64::from(exec.count_ones());
        w.executed += 1;
        n += 1;
        let (kind, aux) = step(w, cx, func, di, top.pc, active, exec)?;
        if cx.trace.is_some() {
            record(w, cx, func_index, di, top.pc, (active, exec), (kind, aux));
        }
        if let RecordKind::Barrier = kind {
            if exec != 0 {
                if let Op::Bar { kind: bk, count, d, p, .. } = &di.op {
                    let count = count.map(|c| w.read_lane(c, exec.trailing_zeros() as usize, &cx.env) as u32);
                    let votes = p.map_or(0, |p| w.read_mask(p, &cx.env)) & exec;
                    let at = (func_index, top.pc);
                    return Ok(Stop::Barrier(Arrival { kind: *bk, id: aux, count, d: *d, mask: exec, votes, at }));
                }
            }
        }
    }
    Ok(if w.done() { Stop::Done } else { Stop::Yield })
}

/// The budget ran out while `w` ran: where, and in which loop ([`budget::hottest_loop`]).
#[cold]
fn budget_exceeded(w: &mut Warp, cx: &mut StepCx<'_>) -> ExecError {
    let (executed, thread_instructions) = (cx.counters.warp, cx.counters.thread);
    ExecError::BudgetExceeded {
        executed,
        thread_instructions,
        budget: cx.budget,
        kernel: cx.kernel.into(),
        cta: Some(cx.env.ctaid),
        warp: Some(w.index),
        hot_loop: budget::hottest_loop(w, cx),
    }
}

/// Notes a division by zero in lanes `zero` (the first site, thread and CTA are kept).
#[cold]
fn divided_by_zero(w: &Warp, cx: &mut StepCx<'_>, func: &FuncCode, di: &DInst, zero: u32) {
    let lanes = u64::from(zero.count_ones());
    if cx.notices.add(NoticeKind::DivisionByZero, lanes) {
        return;
    }
    let lane = zero.trailing_zeros() as usize;
    let thread = [0, 1, 2].map(|d| w.tid.get(d).and_then(|t| t.get(lane)).copied().unwrap_or(0));
    let site = cx.site(func, di);
    cx.notices.first(Notice { kind: NoticeKind::DivisionByZero, site, thread, cta: cx.env.ctaid, lanes });
}

fn record(w: &Warp, cx: &mut StepCx<'_>, func: u32, di: &DInst, pc: u32, masks: (u32, u32), what: (RecordKind, u32)) {
    let Some(t) = cx.trace.as_deref_mut() else { return };
    let (kind, aux) = what;
    let is_mem = matches!(kind, RecordKind::Load | RecordKind::Store | RecordKind::Atomic);
    let addr_start = t.addresses.len() as u32;
    let mut addr_count = 0;
    if is_mem {
        t.addresses.extend_from_slice(&cx.acc.addrs);
        addr_count = cx.acc.addrs.len() as u32;
    }
    let (mut value_start, mut value_units) = (u32::MAX, 0);
    if cx.values && masks.1 != 0 {
        let start = t.values.len();
        let (firsts, lane) = (cx.first_values, masks.1.trailing_zeros() as usize);
        let mut summarise = |d: Dst| {
            if let Dst::Reg(r, width) = d {
                let before = t.values.len();
                value_summary::summarise(w.reg(r), masks.1, width, &mut t.values);
                if firsts {
                    let v = w.reg(r).get(lane).copied().unwrap_or(0);
                    t.firsts.extend((0..t.values.len() - before).map(|k| (v >> (32 * k)) as u32));
                }
            }
        };
        match &di.op {
            Op::Ld { d, .. } => d.iter().copied().for_each(&mut summarise),
            op => op.first_def().into_iter().for_each(&mut summarise),
        }
        if t.values.len() > start {
            value_start = start as u32;
            value_units = (t.values.len() - start).min(255) as u8;
        }
    }
    t.records.push(TraceRecord {
        func: func as u16,
        bytes: if is_mem { cx.acc.bytes as u16 } else { 0 },
        inst: di.inst,
        pc,
        active: masks.0,
        executed: masks.1,
        kind,
        space: if is_mem { cx.acc.space } else { None },
        aux,
        addr_start,
        addr_count,
        value_start,
        value_units,
    });
}

/// Executes one instruction; returns its stream class (and the barrier number for barriers).
#[allow(clippy::too_many_lines, reason = "the opcode dispatch")]
fn step(
    w: &mut Warp,
    cx: &mut StepCx<'_>,
    func: &FuncCode,
    di: &DInst,
    pc: u32,
    active: u32,
    m: u32,
) -> Result<(RecordKind, u32), ExecError> {
    let env = cx.env;
    let e = &env;
    let alu = Ok((RecordKind::Alu, 0));
    match &di.op {
        Op::Int { op, ty, sat, d, a, b, c } => {
            let zero = int::exec(w, e, *op, *ty, *sat, *d, *a, *b, *c, m);
            if zero != 0 {
                divided_by_zero(w, cx, func, di, zero);
            }
        }
        Op::Bfi { ty, d, a, b, c, e: len } => bits::exec_bfi(w, e, *ty, *d, *a, *b, *c, *len, m),
        Op::Carry { op, ty, cin, cout, d, a, b, c } => {
            int::exec_carry(w, e, *op, *ty, (*cin, *cout), *d, (*a, *b, *c), m)
        }
        Op::Dp4a { a_signed, b_signed, d, a, b, c } => {
            bits::exec3(w, e, Bits3::Dp4a(*a_signed, *b_signed), *d, *a, *b, *c, m)
        }
        Op::Dp2a { a_signed, b_signed, hi, d, a, b, c } => {
            bits::exec3(w, e, Bits3::Dp2a(*a_signed, *b_signed, *hi), *d, *a, *b, *c, m)
        }
        Op::CvtPackSat { bits, signed, d, a, b, c } => {
            super::semantics::convert::exec_pack_sat(w, e, *bits, *signed, *d, *a, *b, *c, m)
        }
        Op::Video { spec, d, a, b, c } => super::semantics::video::exec(w, e, spec, *d, *a, *b, *c, m),
        Op::Prmt { mode, d, a, b, c } => bits::exec3(w, e, Bits3::Prmt(*mode), *d, *a, *b, *c, m),
        Op::Lop3 { d, a, b, c, lut } => bits::exec3(w, e, Bits3::Lop3(*lut), *d, *a, *b, *c, m),
        Op::Shf { left, clamp, d, a, b, c } => bits::exec3(w, e, Bits3::Shf(*left, *clamp), *d, *a, *b, *c, m),
        Op::Float { op, ty, mode, d, a, b, c } => float::exec(w, e, *op, *ty, *mode, *d, *a, *b, *c, m),
        Op::Testp { op, ty, d, a } => compare::exec_testp(w, e, *op, *ty, *d, *a, m),
        Op::Setp { cmp, ty, ftz, d, d2, a, b, combine } => {
            compare::exec_setp(w, e, (*cmp, *ty, *ftz), *d, *d2, *a, *b, *combine, m)
        }
        Op::Set { cmp, ty, ftz, one, d, a, b, combine } => {
            compare::exec_set(w, e, (*cmp, *ty, *ftz, *one), *d, *a, *b, *combine, m)
        }
        Op::Selp { d, a, b, p } => compare::exec_selp(w, e, *d, *a, *b, *p, m),
        Op::Slct { ty, d, a, b, c } => compare::exec_slct(w, e, *ty, *d, *a, *b, *c, m),
        Op::PredLogic { op, d, a, b } => compare::exec_pred_logic(w, e, *op, *d, *a, *b, m),
        Op::Pack { d, parts, part_bits } => bits::exec_pack(w, e, *d, parts, *part_bits, m),
        Op::Unpack { ds, a, part_bits } => bits::exec_unpack(w, e, ds, *a, *part_bits, m),
        Op::Cvt { to, from, mode, int_round, ftz, sat, satfinite, relu, d, a, b } => {
            let cm = convert::CvtMode {
                round: *mode,
                int_round: *int_round,
                ftz: *ftz,
                sat: *sat,
                satfinite: *satfinite,
                relu: *relu,
            };
            convert::exec(w, e, *to, *from, cm, *d, *a, *b, m)
        }
        Op::Cvta { to_generic, space, d, a } => {
            let layout = cx.mem.layout;
            let mut out = super::warp::ZERO;
            for (l, o) in out.iter_mut().enumerate() {
                let v = w.read_lane(*a, l, e);
                *o = if *to_generic { layout.to_generic(*space, v) } else { layout.from_generic(*space, v) };
            }
            w.write(*d, &out, m);
        }
        Op::Isspacep { space, d, a } => {
            let mut out = super::warp::ZERO;
            for (l, o) in out.iter_mut().enumerate() {
                *o = u64::from(cx.mem.layout.classify(w.read_lane(*a, l, e)).0 == *space);
            }
            w.write(*d, &out, m);
        }
        Op::Ld { ty, d, addr } => {
            memory_ops::exec_ld(w, e, &mut cx.mem, *ty, d, addr, m, &mut cx.acc)
                .map_err(|f| cx.fault(w, func, di, f))?;
            return Ok((RecordKind::Load, 0));
        }
        Op::St { ty, s, addr } => {
            memory_ops::exec_st(w, e, &mut cx.mem, *ty, s, addr, m, &mut cx.acc)
                .map_err(|f| cx.fault(w, func, di, f))?;
            return Ok((RecordKind::Store, 0));
        }
        Op::Atom { op, ty, d, addr, b, c } => {
            memory_ops::exec_atom(w, e, &mut cx.mem, *op, *ty, *d, addr, *b, *c, m, &mut cx.acc)
                .map_err(|f| cx.fault(w, func, di, f))?;
            return Ok((RecordKind::Atomic, 0));
        }
        Op::CpAsync { dst, src, size, src_size } => {
            memory_ops::exec_cp_async(w, e, &mut cx.mem, dst, src, *size, *src_size, m, &mut cx.acc)
                .map_err(|f| cx.fault(w, func, di, f))?;
            return Ok((RecordKind::Load, 0));
        }
        Op::Ldmatrix { count, trans, d, addr } => {
            tensor::exec_ldmatrix(w, e, &mut cx.mem, *count, *trans, d, addr, m, &mut cx.acc)
                .map_err(|f| cx.fault(w, func, di, f))?;
            return Ok((RecordKind::Load, 0));
        }
        Op::WmmaLoad { frag, shape, ty, layout, d, addr, stride } => {
            wmma::exec_load(w, e, &mut cx.mem, (*frag, *shape, *ty, *layout), d, addr, *stride, m, &mut cx.acc)
                .map_err(|f| cx.fault(w, func, di, f))?;
            return Ok((RecordKind::Load, 0));
        }
        Op::WmmaStore { shape, ty, layout, s, addr, stride } => {
            wmma::exec_store(w, e, &mut cx.mem, (*shape, *ty, *layout), s, addr, *stride, m, &mut cx.acc)
                .map_err(|f| cx.fault(w, func, di, f))?;
            return Ok((RecordKind::Store, 0));
        }
        Op::WmmaMma { shape, types, d, a, b, c } => {
            wmma::exec_mma(w, e, *shape, *types, d, (a, b, c), m);
            return Ok((RecordKind::Warp, 0));
        }
        Op::Mma { shape, types, layout, satfinite, d, a, b, c } => {
            if super::semantics::tensor_int::is_integer_mma(*shape, *types, *layout) {
                super::semantics::tensor_int::exec_mma_int(w, e, *shape, *types, *satfinite, d, (a, b, c), m);
            } else if !tensor::exec_mma(w, e, *shape, *types, *layout, d, (a, b, c), m) {
                return Err(unsupported(cx, func, di, "this mma shape or type combination is not modelled"));
            }
            return Ok((RecordKind::Warp, 0));
        }
        Op::Bra { target, reconv } => {
            if let Some(f) = w.frames.last_mut() {
                simt_stack::branch(&mut f.stack, active, m, *target, pc + 1, *reconv);
            }
            return Ok((RecordKind::Branch, 0));
        }
        Op::BrxIdx { index, targets, reconv } => {
            let mut groups: alloc::vec::Vec<(u32, u32)> = alloc::vec::Vec::new();
            for l in (0..32).filter(|l| (m >> l) & 1 == 1) {
                let i = w.read_lane(*index, l, e) as usize;
                let Some(&t) = targets.get(i) else {
                    return Err(unsupported(cx, func, di, "brx.idx index past the end of its target list"));
                };
                match groups.iter_mut().find(|g| g.0 == t) {
                    Some(g) => g.1 |= 1 << l,
                    None => groups.push((t, 1 << l)),
                }
            }
            groups.push((pc + 1, active & !m));
            if let Some(f) = w.frames.last_mut() {
                simt_stack::diverge(&mut f.stack, &groups, *reconv);
            }
            return Ok((RecordKind::Branch, 0));
        }
        Op::Call { target, rets, args } => {
            calls::call(w, cx, func, di, target, (rets, args), m, (pc, active))?;
            return Ok((RecordKind::Call, 0));
        }
        Op::Ret => {
            let kernel_frame = w.frames.len() == 1;
            if kernel_frame {
                w.exited |= m;
                return Ok((RecordKind::Exit, 0));
            }
            if let Some(f) = w.frames.last_mut() {
                f.returned |= m;
            }
            return Ok((RecordKind::Return, 0));
        }
        Op::Exit => {
            w.exited |= m;
            return Ok((RecordKind::Exit, 0));
        }
        Op::Bar { id, .. } => {
            return Ok((RecordKind::Barrier, w.read_lane(*id, m.trailing_zeros().min(31) as usize, e) as u32))
        }
        Op::Vote { mode, d, p } => warp_ops::exec_vote(w, e, *mode, *d, *p, m),
        Op::Shfl { mode, d, dp, a, b, c } => warp_ops::exec_shfl(w, e, *mode, *d, *dp, *a, *b, *c, m),
        Op::Activemask { d } => warp_ops::exec_activemask(w, *d, m),
        Op::Redux { op, ty, d, a } => warp_ops::exec_redux(w, e, *op, *ty, *d, *a, m),
        Op::MatchAny { ty, d, a } => warp_ops::exec_match_any(w, e, *ty, *d, *a, m),
        Op::MatchAll { ty, d, dp, a } => warp_ops::exec_match_all(w, e, *ty, *d, *dp, *a, m),
        Op::Elect { d, dp } => warp_ops::exec_elect(w, *d, *dp, m),
        Op::Tex(t) => {
            super::semantics::texture::exec(w, e, &mut cx.mem, t, m, &mut cx.acc).map_err(|f| {
                if f.1.address == 0 {
                    return unsupported(cx, func, di, super::semantics::texture::UNBOUND);
                }
                cx.fault(w, func, di, f)
            })?;
            return Ok((RecordKind::Load, 0));
        }
        Op::Nop => return Ok((RecordKind::Nop, 0)),
        Op::Trap => {
            if m == 0 {
                return Ok((RecordKind::Nop, 0));
            }
            let lane = m.trailing_zeros() as usize;
            return Err(ExecError::Trap {
                site: alloc::boxed::Box::new(cx.site(func, di)),
                thread: [w.tid[0][lane], w.tid[1][lane], w.tid[2][lane]],
                cta: env.ctaid,
            });
        }
        Op::Unsupported(reason) => {
            if m == 0 {
                return Ok((RecordKind::Nop, 0));
            }
            return Err(unsupported(cx, func, di, reason));
        }
    }
    if matches!(di.op, Op::Vote { .. } | Op::Shfl { .. } | Op::Redux { .. } | Op::MatchAny { .. } | Op::MatchAll { .. })
    {
        return Ok((RecordKind::Warp, 0));
    }
    alu
}

/// An "unsupported here" error at `di`.
pub fn unsupported(cx: &StepCx<'_>, func: &FuncCode, di: &DInst, reason: &str) -> ExecError {
    ExecError::Unsupported { site: alloc::boxed::Box::new(cx.site(func, di)), reason: reason.into() }
}
