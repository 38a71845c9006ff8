//! The IR forms that register-file schemes' passes create, and the verifier's rules for them:
//! which instructions may read a direct memory operand (DeMO, Mohammadpur-Fard et al.) and which
//! dependent pairs form a composite instruction (Gilani et al., Table 1).
//!
//! ```text
//! mul.ftz.f32 %f3, %c[%rd1+4], %f1;      // DeMO: an arithmetic consumer reads memory directly
//! xor.b32_shr.u32 %r0, %r2, %r0, 31;      // Gilani: add/logic-shift composite (ALU-NSFT)
//! neg.s32 %r6, %crf;                      // a further use of the intermediate, from the CRF
//! ```
//!
//! The front end never produces these operands; a pass that does hands its result to
//! [`crate::ir::verify`], which checks them with [`check_operands`] and [`check_crf_reads`].

use alloc::collections::BTreeSet;
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use core::fmt::{self, Write};

use serde::{Deserialize, Serialize};

use super::inst::{Address, AddressBase, Inst, Operand, SchemeOperand};
use super::modifiers::MulMode;
use super::module::Body;
use super::opcode::Opcode;
use super::print_inst::Names;
use super::types::Type;
use crate::diagnostic::{Diagnostic, Span};

/// True for the arithmetic instructions that may read one direct memory operand (DeMO **A**: an
/// ALU instruction of the operand collector; no memory, control, carry-chain or warp-level op).
pub fn accepts_memory_operand(inst: &Inst) -> bool {
    use Opcode::*;
    // Register computations but the carry chain, the rarer bit-field and search instructions,
    // moves (a `mov` from memory is a load) and address-space operations.
    let excluded = matches!(inst.opcode, Fns | Bmsk | Szext | Addc | Subc | Madc | Mov | CvtPack | Cvta | Isspacep);
    inst.opcode.computes_registers_only() && !excluded && !inst.mods.cc
}

/// The composite-instruction classes of Gilani et al., Table 1, with the FMA resources each uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum CompositeClass {
    /// `mul.lo`/`mul24.lo` then `shl`/`shr` (SMUL-ALU).
    MultiplyShift,
    /// `add`/`sub`/`and`/`or`/`xor` then a shift (ALU-NSFT).
    AddLogicShift,
    /// add/logic then `add` (ALU-RADD).
    AddLogicAdd,
    /// A shift then add/logic (ASFT-ALU).
    ShiftAddLogic,
    /// A multiply then an integer → integer `cvt` (SMUL-LZC-NSFT-RADD).
    MultiplyCvt,
    /// add/logic then an integer → integer `cvt` (ALU-LZC-NSFT-RADD).
    AddLogicCvt,
    /// A shift then a shift (ASFT-NSFT).
    ShiftShift,
}

impl CompositeClass {
    /// The paper's name (`"add/logic-shift"`).
    pub fn name(self) -> &'static str {
        match self {
            CompositeClass::MultiplyShift => "multiply-shift",
            CompositeClass::AddLogicShift => "add/logic-shift",
            CompositeClass::AddLogicAdd => "add/logic-add",
            CompositeClass::ShiftAddLogic => "shift-add/logic",
            CompositeClass::MultiplyCvt => "multiply-cvt",
            CompositeClass::AddLogicCvt => "add/logic-cvt",
            CompositeClass::ShiftShift => "shift-shift",
        }
    }

    /// The FMA resources the paper lists for the class (`"ALU-NSFT"`).
    pub fn resources(self) -> &'static str {
        match self {
            CompositeClass::MultiplyShift => "SMUL-ALU",
            CompositeClass::AddLogicShift => "ALU-NSFT",
            CompositeClass::AddLogicAdd => "ALU-RADD",
            CompositeClass::ShiftAddLogic => "ASFT-ALU",
            CompositeClass::MultiplyCvt => "SMUL-LZC-NSFT-RADD",
            CompositeClass::AddLogicCvt => "ALU-LZC-NSFT-RADD",
            CompositeClass::ShiftShift => "ASFT-NSFT",
        }
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Multiply,
    AddLogic,
    Add,
    Shift,
    Cvt,
}

fn int32(t: Option<Type>) -> bool {
    t.is_some_and(|t| t.is_integer() && t.bits() == 32)
}

/// What an instruction can be in a composite pair (32-bit integer, no carry, no saturation).
fn kind(inst: &Inst) -> Option<Kind> {
    use Opcode::*;
    if inst.mods.cc || inst.mods.sat {
        return None;
    }
    let ty = inst.ty();
    match inst.opcode {
        Mul | Mul24 if inst.mods.mul_mode == Some(MulMode::Lo) && int32(ty) => Some(Kind::Multiply),
        Add if int32(ty) => Some(Kind::Add),
        Sub | And | Or | Xor if int32(ty) => Some(Kind::AddLogic),
        Shl | Shr if int32(ty) => Some(Kind::Shift),
        Cvt => {
            let ok = inst.types.iter().all(|t| t.is_integer() && t.bits() <= 32) && inst.types.len() == 2;
            ok.then_some(Kind::Cvt)
        }
        _ => None,
    }
}

/// The Table 1 class of `first` followed by a `second` that reads its result, judging opcodes,
/// types and modes only (data flow, guards and operand counts are the caller's business).
pub fn composite_class(first: &Inst, second: &Inst) -> Option<CompositeClass> {
    use Kind::*;
    let a = kind(first)?;
    let b = kind(second)?;
    let add_logic = |k| matches!(k, AddLogic | Add);
    match (a, b) {
        (Multiply, Shift) => Some(CompositeClass::MultiplyShift),
        (Multiply, Cvt) => Some(CompositeClass::MultiplyCvt),
        (x, Shift) if add_logic(x) => Some(CompositeClass::AddLogicShift),
        (x, Add) if add_logic(x) => Some(CompositeClass::AddLogicAdd),
        (x, Cvt) if add_logic(x) => Some(CompositeClass::AddLogicCvt),
        (Shift, y) if add_logic(y) => Some(CompositeClass::ShiftAddLogic),
        (Shift, Shift) => Some(CompositeClass::ShiftShift),
        _ => None,
    }
}

/// Distinct registers a composite of `first` and `second` reads from the main register file:
/// both instructions' sources (address registers of memory operands included) except `second`'s
/// operand at `position`, which is the intermediate.
pub fn composite_register_sources(first: &Inst, second: &Inst, position: usize) -> usize {
    let mut regs = BTreeSet::new();
    let mut add = |op: &Operand| {
        op.for_each_read(|r| {
            regs.insert(r);
        })
    };
    first.uses().iter().for_each(&mut add);
    let from = second.def_count();
    second.operands.iter().enumerate().filter(|&(i, _)| i >= from && i != position).for_each(|(_, o)| add(o));
    regs.len()
}

/// Number of memory accesses among the operands of `inst` (direct memory operands, also inside a
/// composite producer).
pub fn memory_operands(inst: &Inst) -> usize {
    inst.operands
        .iter()
        .map(|op| match op.as_scheme() {
            Some(SchemeOperand::Memory(_)) => 1,
            Some(SchemeOperand::Composite(inner)) => memory_operands(inner),
            _ => 0,
        })
        .sum()
}

/// The verifier's rules for one instruction's scheme operands: memory operands only as sources
/// of arithmetic instructions, at most one per instruction; composites only as a source of a
/// Table 1 pair, with `%crf` as the producer's destination, no guard of its own, no nesting and at
/// most three register sources; `%crf` only as a source.
pub fn check_operands(inst: &Inst, at: Span, diags: &mut Vec<Diagnostic>) {
    let mut error = |m: &str| diags.push(Diagnostic::error(at, format!("{m} ('{}')", inst.opcode.name())));
    let sources = inst.def_count();
    let mut scheme = inst.operands.iter().enumerate().filter_map(|(i, o)| o.as_scheme().map(|s| (i, s))).peekable();
    if scheme.peek().is_none() {
        return;
    }
    if memory_operands(inst) > 1 {
        error("an instruction may read at most one direct memory operand");
    }
    for (i, s) in scheme {
        if i < sources {
            error("a memory operand, composite or %crf cannot be a destination");
            continue;
        }
        match s {
            SchemeOperand::Memory(m) => {
                if !accepts_memory_operand(inst) {
                    error("only an arithmetic instruction may read a direct memory operand");
                }
                if !address_ok(&m.address) || !m.ty.is_integer() && !m.ty.is_float() || m.ty.bits() != 32 {
                    error("a direct memory operand must be a 32-bit scalar at an address");
                }
            }
            SchemeOperand::Composite(inner) => check_composite(inst, i, inner, &mut error),
            SchemeOperand::Crf => {}
        }
    }
}

fn address_ok(a: &Address) -> bool {
    !matches!(a.base, AddressBase::Absolute) || a.offset >= 0
}

fn check_composite(second: &Inst, position: usize, first: &Inst, error: &mut dyn FnMut(&str)) {
    if composite_class(first, second).is_none() {
        error("the pair is not a composite class of Gilani et al. Table 1");
    }
    if first.guard.is_some() {
        error("the producer of a composite instruction takes the consumer's guard, not its own");
    }
    if !matches!(first.defs().first().and_then(Operand::as_scheme), Some(SchemeOperand::Crf)) || first.def_count() != 1
    {
        error("the producer of a composite instruction writes the composite register %crf");
    }
    let nested =
        first.uses().iter().any(|o| matches!(o.as_scheme(), Some(SchemeOperand::Composite(_) | SchemeOperand::Crf)));
    if nested {
        error("a composite instruction fuses exactly two instructions");
    }
    if composite_register_sources(first, second, position) > 3 {
        error("a composite instruction reads at most three registers");
    }
}

/// Every `%crf` read follows a composite instruction in the same block (the composite register
/// holds one value per warp and does not survive a branch).
pub fn check_crf_reads(body: &Body, diags: &mut Vec<Diagnostic>) {
    for block in body.blocks.values() {
        let mut written = false;
        for &ih in &block.insts {
            let Some(inst) = body.insts.get(ih) else { continue };
            let reads = inst.operands.iter().any(|o| matches!(o.as_scheme(), Some(SchemeOperand::Crf)));
            if reads && !written {
                diags.push(Diagnostic::error(
                    body.inst_spans.get(ih),
                    String::from("reads the composite register %crf before any composite instruction in its block"),
                ));
            }
            written |= inst.operands.iter().any(|o| matches!(o.as_scheme(), Some(SchemeOperand::Composite(_))));
        }
    }
}

/// The operand position and producer of a composite instruction (Gilani et al.).
pub fn composite_part(inst: &Inst) -> Option<(usize, &Inst)> {
    inst.operands.iter().enumerate().find_map(|(i, op)| match op.as_scheme() {
        Some(SchemeOperand::Composite(inner)) => Some((i, inner)),
        _ => None,
    })
}

/// A composite instruction in the paper's notation: `xor.b32_shr.u32 %r0, %r2, %r0, 31` is
/// `shr.u32 %r0, (xor.b32 %r2, %r0), 31`. Operands: the consumer's destinations, the producer's
/// sources, then the consumer's other sources; the producer's place among them is left out when it
/// is the first source and written `%crf` otherwise.
pub fn write_composite(
    out: &mut dyn Write,
    names: &Names<'_>,
    inst: &Inst,
    position: usize,
    inner: &Inst,
) -> fmt::Result {
    super::print_inst::write_opcode(out, inner)?;
    out.write_str("_")?;
    super::print_inst::write_opcode(out, inst)?;
    let first_source = inst.def_count();
    let operands = inst.defs().iter().chain(inner.uses()).chain(
        inst.operands
            .iter()
            .enumerate()
            .filter(|&(i, _)| i >= first_source && !(i == position && i == first_source))
            .map(|(_, o)| o),
    );
    for (i, op) in operands.enumerate() {
        out.write_str(if i == 0 { " " } else { ", " })?;
        match op.as_scheme() {
            Some(SchemeOperand::Composite(_)) => out.write_str("%crf")?,
            _ => super::print_inst::write_operand(out, names, op)?,
        }
    }
    Ok(())
}
