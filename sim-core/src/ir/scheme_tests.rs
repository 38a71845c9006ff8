//! The verifier's rules for scheme operands, on IR edited by hand.

use alloc::boxed::Box;
use alloc::string::String;
use alloc::vec::Vec;

use super::inst::{Address, AddressBase, MemOperand, Operand, SchemeOperand};
use super::module::Module;
use super::types::{StateSpace, Type};
use super::verify::verify;
use super::{Handle, Inst};

const SRC: &str = ".version 7.0\n.target sm_80\n.address_size 64\n\
    .visible .entry k(.param .u64 p)\n{\n.reg .b32 %r<6>;\n.reg .b64 %rd<2>;\n\
    ld.param.u64 %rd1, [p];\nld.global.u32 %r1, [%rd1];\nadd.s32 %r2, %r1, 1;\n\
    xor.b32 %r3, %r2, %r1;\nshl.b32 %r4, %r3, 2;\nneg.s32 %r5, %r4;\nst.global.u32 [%rd1], %r5;\nret;\n}\n";

fn module() -> Module {
    crate::ptx::compile(SRC).unwrap_or_default()
}

fn mem(base: Handle<super::module::Reg>) -> Operand {
    let address = Address { base: AddressBase::Reg(base), offset: 4 };
    Operand::Scheme(Box::new(SchemeOperand::Memory(MemOperand { space: StateSpace::Global, address, ty: Type::U32 })))
}

/// Applies `edit` to instruction `i` of the kernel and returns the verifier's messages.
fn errors_after(i: u32, edit: impl FnOnce(&mut Inst, &Inst)) -> Vec<String> {
    let mut m = module();
    let Some(func) = m.functions.values().next().cloned() else { return alloc::vec![String::from("no kernel")] };
    let mut func = func;
    if let Some(body) = func.body.as_mut() {
        let other = body.insts.get(Handle::from_index(i.saturating_sub(1))).cloned();
        if let (Some(inst), Some(other)) = (body.insts.get_mut(Handle::from_index(i)), other) {
            edit(inst, &other);
        }
    }
    if let Some(f) = m.functions.get_mut(Handle::from_index(0)) {
        *f = func;
    }
    verify(&m).into_iter().map(|d| d.message).collect()
}

fn rd1() -> Handle<super::module::Reg> {
    Handle::from_index(7)
}

#[test]
fn memory_operands_only_in_arithmetic_sources() {
    assert!(errors_after(2, |add, _| add.operands[1] = mem(rd1())).is_empty());
    let two = errors_after(2, |add, _| {
        add.operands[1] = mem(rd1());
        add.operands[2] = mem(rd1());
    });
    assert!(two.iter().any(|e| e.contains("at most one direct memory operand")), "{two:?}");
    let store = errors_after(6, |st, _| st.operands[1] = mem(rd1()));
    assert!(store.iter().any(|e| e.contains("only an arithmetic instruction")), "{store:?}");
    let dest = errors_after(2, |add, _| add.operands[0] = mem(rd1()));
    assert!(!dest.is_empty());
}

#[test]
fn composites_follow_table_1() {
    let fuse = |second: &mut Inst, first: &Inst| {
        let mut producer = first.clone();
        producer.operands[0] = Operand::Scheme(Box::new(SchemeOperand::Crf));
        second.operands[1] = Operand::Scheme(Box::new(SchemeOperand::Composite(producer)));
    };
    // xor + shl: add/logic-shift.
    assert!(errors_after(4, fuse).is_empty());
    // shl + neg: not a class.
    let bad = errors_after(5, fuse);
    assert!(bad.iter().any(|e| e.contains("Table 1")), "{bad:?}");
    let crf = errors_after(5, |neg, _| neg.operands[1] = Operand::Scheme(Box::new(SchemeOperand::Crf)));
    assert!(crf.iter().any(|e| e.contains("before any composite")), "{crf:?}");
}
