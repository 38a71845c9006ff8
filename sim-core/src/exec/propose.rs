//! A proposed launch setup for a kernel, from its parameter list and body: 64-bit (or 32-bit in
//! 32-bit modules) integer parameters that the kernel uses as addresses become buffers whose
//! element type is the type of the loads and stores through them; buffers that are stored to are
//! outputs, the others get seeded random contents; integer scalars get the problem size (16384,
//! or 128 for two-dimensional kernels, whose buffers hold 128²); the block is `.reqntid`/`.maxntid`
//! or 256 threads (16×16 in two dimensions), and the grid covers the problem.
//!
//! ```text
//! .entry vecAdd(.param .u64 a, .param .u64 b, .param .u64 c, .param .u32 n)
//! → {"kernel": "vecAdd", "grid": [64,1,1], "block": [256,1,1],
//!    "params": [{"buffer": {"type": "f32", "len": 16384, "init": "random:1"}}, …,
//!               {"scalar": {"type": "u32", "value": 16384}}], "outputs": [2]}
//! ```

use alloc::collections::BTreeMap;
use alloc::vec::Vec;

use super::launch::{BufferSpec, Init, LaunchSetup, ParamSpec, ScalarSpec, ScalarValue};
use super::value::{ElemType, Value};
use crate::ir::{AddressBase, Function, Handle, Inst, Module, Opcode, Operand, Reg, Symbol, Type};

/// The problem size a proposal uses: elements per buffer, and the value of integer scalars of
/// one-dimensional kernels.
pub const PROPOSED_ELEMENTS: u64 = 16384;

/// The side of the square problem of two-dimensional kernels (those reading `%tid.y`,
/// `%ctaid.y` or `%ntid.y`): integer scalars get this value, buffers hold its square.
pub const PROPOSED_SIDE: u64 = 128;

/// True if the kernel indexes a second dimension.
fn uses_y_dimension(func: &Function) -> bool {
    use crate::ir::{Dim, SpecialReg};
    func.body.as_ref().is_some_and(|b| {
        b.insts.values().flat_map(|i| &i.operands).any(|o| {
            matches!(
                o,
                Operand::Special(SpecialReg::Tid(Dim::Y) | SpecialReg::Ctaid(Dim::Y) | SpecialReg::Ntid(Dim::Y))
            )
        })
    })
}

#[derive(Default, Clone, Copy)]
struct Use {
    ty: Option<Type>,
    stored: bool,
}

/// For each pointer-sized parameter, how the kernel accesses memory through addresses derived
/// from it.
fn param_uses(func: &Function, ptr_bytes: u32) -> BTreeMap<u32, Use> {
    let mut uses: BTreeMap<u32, Use> = BTreeMap::new();
    let Some(body) = &func.body else { return uses };
    // Registers holding an address derived from parameter i.
    let mut origin: BTreeMap<Handle<Reg>, u32> = BTreeMap::new();
    for _ in 0..4 {
        for inst in body.insts.values() {
            propagate(func, ptr_bytes, inst, &mut origin);
        }
    }
    for inst in body.insts.values() {
        let (addr, stored) = match inst.opcode {
            Opcode::Ld | Opcode::Ldu => (inst.operands.get(1), false),
            Opcode::St | Opcode::Red => (inst.operands.first(), true),
            Opcode::Atom => (inst.operands.get(1), true),
            _ => continue,
        };
        let Some(Operand::Address(a)) = addr else { continue };
        let AddressBase::Reg(r) = a.base else { continue };
        if let Some(&p) = origin.get(&r) {
            let u = uses.entry(p).or_default();
            u.ty = u.ty.or(inst.ty());
            u.stored |= stored;
        }
    }
    uses
}

fn propagate(func: &Function, ptr_bytes: u32, inst: &Inst, origin: &mut BTreeMap<Handle<Reg>, u32>) {
    let Some(Operand::Reg(d)) = inst.operands.first() else { return };
    let from_param = match (inst.opcode, inst.operands.get(1)) {
        (Opcode::Ld, Some(Operand::Address(a))) if inst.mods.space.is_some_and(|s| s.is_param()) => match a.base {
            AddressBase::Symbol(Symbol::Param(i))
                if func.params.get(i as usize).is_some_and(|p| p.ty.size_bytes() == ptr_bytes) =>
            {
                Some(i)
            }
            _ => None,
        },
        (Opcode::Ld, _) => None,
        _ => inst.operands.iter().skip(1).find_map(|o| match o {
            Operand::Reg(r) => origin.get(r).copied(),
            _ => None,
        }),
    };
    if let Some(p) = from_param {
        origin.entry(*d).or_insert(p);
    }
}

/// Proposes a launch setup for `kernel` of `module`. An unknown kernel gives a setup that names
/// it and has no parameters (checking it reports the unknown kernel).
pub fn propose_launch(module: &Module, kernel: &str) -> LaunchSetup {
    let func = module.functions.values().find(|f| f.name == kernel && f.is_entry());
    let mut setup = LaunchSetup {
        kernel: Some(kernel.into()),
        grid: alloc::vec![1, 1, 1],
        block: alloc::vec![256, 1, 1],
        dynamic_smem: 0,
        params: Vec::new(),
        outputs: None,
        launches: Vec::new(),
        repeat: None,
        budget: None,
    };
    let Some(func) = func else { return setup };
    let two_d = uses_y_dimension(func);
    let default_block = if two_d { alloc::vec![16, 16] } else { alloc::vec![256] };
    let block = func.perf.reqntid.clone().or_else(|| func.perf.maxntid.clone()).unwrap_or(default_block);
    let mut b = [1u32; 3];
    for (slot, v) in b.iter_mut().zip(&block) {
        *slot = (*v).clamp(1, 1024);
    }
    let threads = u64::from(b[0] * b[1] * b[2]).max(1);
    setup.block = b.to_vec();
    setup.grid = if two_d {
        let side = PROPOSED_SIDE as u32;
        alloc::vec![side.div_ceil(b[0]), side.div_ceil(b[1]), 1]
    } else {
        alloc::vec![PROPOSED_ELEMENTS.div_ceil(threads) as u32, 1, 1]
    };
    if has_dynamic_shared(module, func) {
        setup.dynamic_smem = (threads * 8) as u32;
    }
    let ptr_bytes = super::plan::address_bits(module) / 8;
    let uses = param_uses(func, ptr_bytes);
    let mut outputs = Vec::new();
    for (i, p) in func.params.iter().enumerate() {
        let used = uses.get(&(i as u32)).copied();
        let is_ptr = p.ty.is_integer() && p.dims.is_empty() && p.ty.size_bytes() == ptr_bytes;
        let spec = if is_ptr && (used.is_some() || p.ptr.is_some()) {
            let u = used.unwrap_or_default();
            let ty = u.ty.and_then(ElemType::from_ptx).unwrap_or(ElemType::F32);
            if u.stored {
                outputs.push(i);
            }
            let init = if u.stored { Init::Zeros } else { Init::Random(i as u64 + 1) };
            ParamSpec::Buffer(BufferSpec { ty, len: Some(PROPOSED_ELEMENTS), init: Some(init), data: None })
        } else {
            scalar_for(p, if two_d { PROPOSED_SIDE } else { PROPOSED_ELEMENTS })
        };
        setup.params.push(spec);
    }
    if !outputs.is_empty() {
        setup.outputs = Some(outputs);
    }
    setup
}

/// True if the kernel (or the module) declares a shared array without a size.
fn has_dynamic_shared(module: &Module, func: &Function) -> bool {
    let unsized_shared =
        |v: &crate::ir::Var| v.space.is_shared() && (v.dims.iter().any(Option::is_none) || v.size_bytes() == Some(0));
    module.globals.values().any(unsized_shared)
        || func.body.as_ref().is_some_and(|b| b.vars.values().any(unsized_shared))
}

fn scalar_for(p: &crate::ir::Param, size: u64) -> ParamSpec {
    let ty = ElemType::from_ptx(p.ty).unwrap_or(ElemType::U8);
    let n = (p.size_bytes().unwrap_or(0) / ty.size() as u64).max(1);
    let one = if ty.is_float() {
        Value::Float(1.0)
    } else if p.dims.is_empty() {
        let max = if ty.size() >= 4 { size } else { 1 };
        Value::UInt(max)
    } else {
        Value::UInt(0)
    };
    let value = if p.dims.is_empty() { ScalarValue::One(one) } else { ScalarValue::Many(alloc::vec![one; n as usize]) };
    ParamSpec::Scalar(ScalarSpec { ty, value })
}
