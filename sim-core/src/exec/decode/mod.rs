//! Decoding the IR of a kernel and every function it can call into a [`Program`]: register and
//! predicate slots, local-frame layout (locals, call buffers, parameters, return values), the
//! CTA's shared-memory layout, branch targets as program counters and reconvergence points from
//! the immediate post-dominators ([`crate::analysis::PostDominators`]).
//!
//! ```text
//! .func (.param .f32 r) f(.param .f32 x) { .local .b8 buf[16]; ... }
//! // frame of f: buf at 0, x at 16, r at 20; frame_bytes 24
//! ```

mod control;
mod memory;
mod operand;
mod ops;
mod texture;
mod video;

use alloc::collections::BTreeMap;
use alloc::string::String;
use alloc::vec::Vec;

use super::image::{var_align, var_size, ModuleImage, VarKey};
use super::program::{CallValue, DInst, Dst, FuncCode, Program};
use crate::analysis::{Cfg, PostDominators};
use crate::ir::print_inst::{write_inst, Names};
use crate::ir::{Body, Function, Handle, Module, Operand, Param, StateSpace, Symbol, Type, Var};

/// The register slot of an IR register.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Slot {
    Reg(u32, u64),
    Pred(u32),
}

/// Everything a function's instructions are decoded against.
pub(crate) struct FnCx<'a> {
    pub module: &'a Module,
    pub image: &'a ModuleImage,
    pub func: &'a Function,
    pub handle: Handle<Function>,
    pub slots: Vec<Slot>,
    pub frame: BTreeMap<Handle<Var>, u64>,
    pub params: Vec<CallValue>,
    pub returns: Vec<CallValue>,
    pub shared: &'a BTreeMap<VarKey, u64>,
    pub param_layout: &'a [(u64, u64)],
    pub block_pc: Vec<u32>,
    pub reconv: Vec<u32>,
    pub exit_pc: u32,
    pub func_index: &'a BTreeMap<Handle<Function>, u32>,
}

impl FnCx<'_> {
    pub fn is_entry(&self) -> bool {
        self.func.is_entry()
    }
}

fn align_up(v: u64, a: u64) -> u64 {
    v.next_multiple_of(a.max(1))
}

/// Functions reachable from `kernel` (calls and taken addresses), the kernel first.
fn reachable(module: &Module, kernel: Handle<Function>) -> Vec<Handle<Function>> {
    let mut order = alloc::vec![kernel];
    let mut i = 0;
    while let Some(&f) = order.get(i) {
        i += 1;
        let Some(body) = module.functions.get(f).and_then(|f| f.body.as_ref()) else { continue };
        for inst in body.insts.values() {
            for op in &inst.operands {
                visit_functions(op, &mut |h| {
                    let defined = module.functions.get(h).is_some_and(|g| g.body.is_some());
                    if defined && !order.contains(&h) {
                        order.push(h);
                    }
                });
            }
        }
    }
    order
}

fn visit_functions(op: &Operand, f: &mut dyn FnMut(Handle<Function>)) {
    match op {
        Operand::Symbol { symbol: Symbol::Function(h), .. } => f(*h),
        Operand::List(items) | Operand::Vector(items) => items.iter().for_each(|o| visit_functions(o, f)),
        _ => {}
    }
}

/// Offsets of the shared variables a kernel can reach (module scope and reachable functions),
/// and the static size; dynamic (`extern`, unsized) arrays start at the 16-aligned end.
fn shared_layout(module: &Module, funcs: &[Handle<Function>]) -> (BTreeMap<VarKey, u64>, u64) {
    let mut vars: Vec<(VarKey, &Var)> =
        module.globals.iter().filter(|(_, v)| v.space.is_shared()).map(|(h, v)| ((None, h), v)).collect();
    for &fh in funcs {
        if let Some(b) = module.functions.get(fh).and_then(|f| f.body.as_ref()) {
            vars.extend(b.vars.iter().filter(|(_, v)| v.space.is_shared()).map(|(h, v)| ((Some(fh), h), v)));
        }
    }
    let mut offsets = BTreeMap::new();
    let mut end = 0u64;
    let mut dynamic = Vec::new();
    for (key, v) in vars {
        let size = var_size(v);
        if size == 0 || v.dims.iter().any(Option::is_none) {
            dynamic.push(key);
            continue;
        }
        let off = align_up(end, var_align(v));
        offsets.insert(key, off);
        end = off + size;
    }
    let static_end = align_up(end, 16);
    for key in dynamic {
        offsets.insert(key, static_end);
    }
    (offsets, static_end)
}

fn param_slot(p: &Param, at: &mut u64) -> (u64, u64) {
    let size = p.size_bytes().unwrap_or(0);
    let elem = u64::from(p.ty.size_bytes()) * p.vec.map_or(1, |v| v.len() as u64);
    let align = u64::from(p.align.unwrap_or(0)).max(elem).max(1).next_power_of_two();
    let off = align_up(*at, align);
    *at = off + size;
    (off, size)
}

/// Decodes `kernel` of `module` and its callees.
pub fn build_program(module: &Module, image: &ModuleImage, kernel: Handle<Function>) -> Program {
    let funcs = reachable(module, kernel);
    let func_index: BTreeMap<Handle<Function>, u32> = funcs.iter().enumerate().map(|(i, h)| (*h, i as u32)).collect();
    let (shared, static_shared) = shared_layout(module, &funcs);
    let mut at = 0u64;
    let param_layout: Vec<(u64, u64)> = module
        .functions
        .get(kernel)
        .map(|k| k.params.iter().map(|p| param_slot(p, &mut at)).collect())
        .unwrap_or_default();
    let code = funcs
        .iter()
        .filter_map(|&h| {
            let func = module.functions.get(h)?;
            Some(decode_function(module, image, h, func, &shared, &param_layout, &func_index))
        })
        .collect();
    Program { funcs: code, static_shared, param_layout, param_bytes: at, rounding: Vec::new(), exactness: Vec::new() }
}

fn slots_of(func: &Function) -> (Vec<Slot>, u32, u32) {
    let (mut nr, mut np) = (0u32, 0u32);
    let slots = func
        .body
        .iter()
        .flat_map(|b| b.regs.values())
        .map(|r| {
            if r.ty == Type::Pred {
                np += 1;
                Slot::Pred(np - 1)
            } else {
                nr += 1;
                let bits = r.ty.bits();
                Slot::Reg(nr - 1, if bits >= 64 { u64::MAX } else { (1u64 << bits) - 1 })
            }
        })
        .collect();
    (slots, nr, np)
}

/// Frame layout: body `.local`/`.param` variables, then (for `.func`s) parameters and returns.
fn frame_of(func: &Function, slots: &[Slot]) -> (BTreeMap<Handle<Var>, u64>, Vec<CallValue>, Vec<CallValue>, u64) {
    let mut frame = BTreeMap::new();
    let mut end = 0u64;
    for (h, v) in func.body.iter().flat_map(|b| b.vars.iter()) {
        if matches!(v.space, StateSpace::Local) || v.space.is_param() {
            let off = align_up(end, var_align(v));
            frame.insert(h, off);
            end = off + var_size(v);
        }
    }
    let mut reg_params = 0usize;
    let mut place = |p: &Param, end: &mut u64| -> CallValue {
        if p.space == StateSpace::Reg {
            let slot = slots.get(reg_params).copied();
            reg_params += 1;
            return match slot {
                Some(Slot::Reg(r, m)) => CallValue::Reg(Dst::Reg(r, m)),
                Some(Slot::Pred(p)) => CallValue::Reg(Dst::Pred(p)),
                None => CallValue::Reg(Dst::Sink),
            };
        }
        let (offset, size) = param_slot(p, end);
        CallValue::Frame { offset, size: size as u32 }
    };
    let (mut returns, mut params) = (Vec::new(), Vec::new());
    if !func.is_entry() {
        returns = func.returns.iter().map(|p| place(p, &mut end)).collect();
        params = func.params.iter().map(|p| place(p, &mut end)).collect();
    }
    (frame, params, returns, align_up(end, 16))
}

/// The first PC of each block, each block's reconvergence PC (its immediate post-dominator's first
/// PC, or the exit PC), and the exit PC.
fn control_points(func: &Function, body: &Body) -> (Vec<u32>, Vec<u32>, u32) {
    let mut block_pc = Vec::with_capacity(body.blocks.len());
    let mut pc = 0u32;
    for b in body.blocks.values() {
        block_pc.push(pc);
        pc += b.insts.len() as u32;
    }
    let pdom = PostDominators::compute(&Cfg::compute(func));
    let reconv = body
        .blocks
        .handles()
        .map(|b| pdom.reconvergence_point(b).and_then(|p| block_pc.get(p.index()).copied()).unwrap_or(pc))
        .collect();
    (block_pc, reconv, pc)
}

/// The PTX text of every instruction (for error messages).
fn texts(module: &Module, func: &Function, body: &Body) -> Vec<String> {
    let names = Names { module, func, body };
    body.insts
        .values()
        .map(|i| {
            let mut s = String::new();
            let _ = write_inst(&mut s, &names, i);
            s
        })
        .collect()
}

fn decode_function(
    module: &Module,
    image: &ModuleImage,
    handle: Handle<Function>,
    func: &Function,
    shared: &BTreeMap<VarKey, u64>,
    param_layout: &[(u64, u64)],
    func_index: &BTreeMap<Handle<Function>, u32>,
) -> FuncCode {
    let (slots, regs, preds) = slots_of(func);
    let (frame, params, returns, frame_bytes) = frame_of(func, &slots);
    let mut out = FuncCode {
        name: func.name.clone(),
        handle,
        code: Vec::new(),
        regs,
        preds,
        frame_bytes,
        params: params.clone(),
        returns: returns.clone(),
        texts: Vec::new(),
    };
    let Some(body) = &func.body else { return out };
    let (block_pc, reconv, pc) = control_points(func, body);
    let cx = FnCx {
        module,
        image,
        func,
        handle,
        slots,
        frame,
        params,
        returns,
        shared,
        param_layout,
        block_pc,
        reconv,
        exit_pc: pc,
        func_index,
    };
    out.texts = texts(module, func, body);
    for (bi, b) in body.blocks.values().enumerate() {
        for &h in &b.insts {
            let Some(inst) = body.insts.get(h) else { continue };
            let guard = inst.guard.and_then(|g| match cx.slots.get(g.reg.index()) {
                Some(Slot::Pred(p)) => Some((*p, g.negated)),
                _ => None,
            });
            let span = body.inst_spans.get(h);
            out.code.push(DInst { op: ops::decode(&cx, inst, bi), guard, inst: h, span });
        }
    }
    out
}
