//! Composite fusion (Gilani et al.): each pair [`CompositePairs`] found becomes one instruction
//! whose producer half writes the composite register; further uses of the intermediate read
//! `%crf`. An IR → IR pass; the result is verified.
//!
//! ```text
//! xor.b32 %r0, %r2, %r0;        xor.b32_shr.u32 %r0, %r2, %r0, 31;
//! shr.u32 %r0, %r0, 31;    →    sub.s32 %r5, %r5, %r4;
//! sub.s32 %r5, %r5, %r4;        xor.b32_add.s32 %r0, %r4, %r5, %r0;
//! xor.b32 %r4, %r4, %r5;        neg.s32 %r6, %crf;
//! neg.s32 %r6, %r4;
//! add.s32 %r0, %r0, %r4;
//! ```
//!
//! (Gilani et al. Fig. 4, with CRF forwarding.) When the consumer is commutative (`add`, `and`,
//! `or`, `xor`) and reads the intermediate second, its sources are swapped so that the producer
//! comes first, as the paper writes `xor_add $r0 <= $r4,$r5,$r0`.

use alloc::boxed::Box;
use alloc::vec::Vec;

use super::cfg::Cfg;
use super::composite::{CompositePair, CompositePairs, CompositeRules, Placement};
use super::liveness::Liveness;
use super::rebuild::{rebuild, Slot};
use crate::diagnostic::Diagnostic;
use crate::ir::{Body, Function, Inst, Module, Opcode, Operand, SchemeOperand};

/// What fusion did to a module.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CompositeFusion {
    /// The fused module.
    pub module: Module,
    /// Number of composite instructions formed, all functions together.
    pub fused: usize,
}

/// Fuses the pairs of every defined function of `module` under `rules`; the result has passed
/// the verifier, or the verifier's complaints are returned.
pub fn composite_fuse(module: &Module, rules: CompositeRules) -> Result<CompositeFusion, Vec<Diagnostic>> {
    let mut out = module.clone();
    let mut fused = 0;
    for (h, func) in module.functions.iter() {
        let Some(body) = &func.body else { continue };
        let live = Liveness::compute(func, &Cfg::compute(func));
        let pairs = CompositePairs::compute(func, &live, rules);
        fused += pairs.len();
        let new_body = fuse_body(body, &pairs);
        if let Some(f) = out.functions.get_mut(h) {
            *f = Function { body: Some(new_body), ..func.clone() };
        }
    }
    let problems = crate::ir::verify::verify(&out);
    if problems.is_empty() {
        Ok(CompositeFusion { module: out, fused })
    } else {
        Err(problems)
    }
}

fn fuse_body(body: &Body, pairs: &CompositePairs) -> Body {
    rebuild(body, |_, insts| {
        let mut slots = Vec::with_capacity(insts.len());
        for &ih in insts {
            let Some(inst) = body.insts.get(ih) else { continue };
            if let Some(pair) = pairs.crf_source_of(ih) {
                slots.push(Slot { origin: ih, inst: reading_crf(inst, pair) });
                continue;
            }
            let Some(pair) = pairs.pair_of(ih) else {
                slots.push(Slot { origin: ih, inst: inst.clone() });
                continue;
            };
            let here = match pair.placement {
                Placement::AtFirst => pair.first,
                Placement::AtSecond => pair.second,
            };
            if ih == here {
                if let Some(inst) = fused(body, pair) {
                    slots.push(Slot { origin: ih, inst });
                }
            }
        }
        slots
    })
}

/// The composite instruction of `pair`.
fn fused(body: &Body, pair: &CompositePair) -> Option<Inst> {
    let mut producer = body.insts.get(pair.first)?.clone();
    producer.guard = None;
    *producer.operands.first_mut()? = Operand::Scheme(Box::new(SchemeOperand::Crf));
    let mut consumer = body.insts.get(pair.second)?.clone();
    let mut at = pair.operand;
    let first_source = consumer.def_count();
    let commutative = matches!(consumer.opcode, Opcode::Add | Opcode::And | Opcode::Or | Opcode::Xor);
    if commutative && at == first_source + 1 {
        consumer.operands.swap(first_source, at);
        at = first_source;
    }
    *consumer.operands.get_mut(at)? = Operand::Scheme(Box::new(SchemeOperand::Composite(producer)));
    Some(consumer)
}

/// `inst` with its reads of the pair's intermediate turned into `%crf` reads, if it is one of the
/// pair's CRF readers.
fn reading_crf(inst: &Inst, pair: &CompositePair) -> Inst {
    let mut inst = inst.clone();
    let first_source = inst.def_count();
    for op in inst.operands.iter_mut().skip(first_source) {
        if op.as_reg() == Some(pair.intermediate) {
            *op = Operand::Scheme(Box::new(SchemeOperand::Crf));
        }
    }
    inst
}
