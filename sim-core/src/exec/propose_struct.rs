//! Struct parameters passed by value whose fields are pointers (thrust's `queue<int>` holds
//! its arrays' addresses): a pointer-wide integer loaded from an array parameter
//! (`.param .b8 s[N]`) at a multiple of the address width is a field; when the kernel uses it
//! as an address, the field is a pointer. The range analysis reads such a load as address 0
//! (as it seeds pointer parameters), so each field's buffer is sized like any buffer; the
//! proposal gives the parameter `{"struct": [...]}` with one buffer per pointer field (the other
//! bytes stay zero, as a proposed array parameter's do).
//!
//! ```text
//! .param .align 8 .b8 q[16]
//! ld.param.u64 %rd1, [q+8];  ld.global.s32 %r1, [%rd1+4];   // field +8 is a pointer
//! → {"struct": [{"offset": 8, "buffer": {"type": "s32", "len": 32, ...}}]}
//! ```

use alloc::collections::{BTreeMap, BTreeSet};
use alloc::format;
use alloc::vec::Vec;

use super::launch::{FieldSpec, LaunchSetup, ParamSpec};
use super::propose::ProposalNote;
use super::propose_extent::{Base, Reaches};
use crate::ir::{AddressBase, Function, Handle, Inst, Module, Opcode, Operand, Reg, Symbol};

/// For a scalar load as wide as an address from array parameter `param` at a multiple of the
/// address width: the struct field it reads (whether the value is used as an address decides
/// if the field is a pointer).
pub(crate) fn field_base(module: &Module, func: &Function, inst: &Inst, param: u32, offset: i64) -> Option<Base> {
    let ptr_bytes = super::plan::address_bits(module) / 8;
    let array = func.params.get(param as usize).is_some_and(|p| !p.dims.is_empty());
    let wide = inst.mods.vec.is_none() && inst.ty().is_some_and(|t| t.is_integer() && t.size_bytes() == ptr_bytes);
    let offset = u32::try_from(offset).ok().filter(|o| o % ptr_bytes == 0)?;
    (array && wide).then_some(Base::Field { param, offset })
}

/// False when `inst` turns a value loaded from a struct field into something no pointer
/// becomes: scaled (`mul`, `mul24`, `shl`, `div`, `rem`) or narrowed below the address width
/// (`cvt.u32.u64`). A count beside the pointers of a struct (a Kokkos policy's tile count) is
/// scaled into indices; a pointer never is, so a field only so used is not a pointer.
pub(crate) fn keeps_base(module: &Module, inst: &Inst, base: Base) -> bool {
    if !matches!(base, Base::Field { .. }) {
        return true;
    }
    let ptr_bytes = super::plan::address_bits(module) / 8;
    match inst.opcode {
        Opcode::Mul | Opcode::Mul24 | Opcode::Shl | Opcode::Div | Opcode::Rem => false,
        Opcode::Cvt => inst.ty().is_none_or(|t| t.size_bytes() >= ptr_bytes),
        _ => true,
    }
}

/// The struct fields the kernel uses as addresses.
pub(crate) fn used_fields(func: &Function, base: &BTreeMap<Handle<Reg>, Base>) -> BTreeSet<Base> {
    let Some(body) = &func.body else { return BTreeSet::new() };
    let used = body.insts.values().flat_map(|i| &i.operands).filter_map(|op| match op {
        Operand::Address(crate::ir::Address { base: AddressBase::Reg(r), .. }) => base.get(r).copied(),
        _ => None,
    });
    used.filter(|b| matches!(b, Base::Field { .. })).collect()
}

/// True if `inst` loads one of `fields` from its struct parameter.
pub(crate) fn loads_field(module: &Module, func: &Function, inst: &Inst, fields: &BTreeSet<Base>) -> bool {
    let param_load = matches!(inst.opcode, Opcode::Ld | Opcode::Ldu) && inst.mods.space.is_some_and(|s| s.is_param());
    match inst.operands.get(inst.def_count()) {
        Some(Operand::Address(a)) if param_load => match a.base {
            AddressBase::Symbol(Symbol::Param(i)) => {
                field_base(module, func, inst, i, a.offset).is_some_and(|b| fields.contains(&b))
            }
            _ => false,
        },
        _ => false,
    }
}

/// Replaces each array parameter with pointer fields in `reach` by a struct of their buffers,
/// with a note for every field whose size is a guess (`unknown_bytes`: the size of a buffer
/// whose index has no bound).
pub(crate) fn struct_specs(
    reach: &Reaches,
    unknown_bytes: u64,
    setup: &mut LaunchSetup,
    notes: &mut Vec<ProposalNote>,
) {
    let mut structs: BTreeMap<u32, Vec<FieldSpec>> = BTreeMap::new();
    for (base, r) in reach {
        let Base::Field { param, offset } = *base else { continue };
        let (buffer, note) = super::propose_buffer::buffer_for(param, r, unknown_bytes);
        structs.entry(param).or_default().push(FieldSpec {
            offset: u64::from(offset),
            buffer: Some(buffer),
            scalar: None,
        });
        let text = note.map(|n| format!("field +{offset}: {n}"));
        notes.extend(text.map(|text| ProposalNote { param: Some(param as usize), text }));
    }
    for (param, fields) in structs {
        if let Some(slot) = setup.params.get_mut(param as usize) {
            *slot = ParamSpec::Struct(fields);
        }
    }
}
