//! The IR verifier: checks the invariants every later stage relies on, and the operand rules PTX
//! states, reporting each violation as a [`Diagnostic`] at the offending instruction. It never
//! panics, whatever the IR (a transformation may hand it anything).
//!
//! ```text
//! bra %r1;                 // error: 'bra' needs a label
//! add.s32 %rd1, %r1, %r2;  // error: operand 1 of 'add.s32' is a 64-bit register, expected 32 bits
//! ```
//!
//! Structure: every handle in range; instructions owned by exactly one block; terminators last in
//! their block; register and variable names unique per function; span and `.loc` tables sized to
//! the instruction arena; pragmas placed inside blocks. Operands: the count an opcode takes,
//! writable destinations, addresses where memory is accessed, labels for branches, predicate
//! registers for guards and predicate positions, register widths matching the instruction type
//! (see `verify_operands`), vector lengths matching `.v2`/`.v4`, immediates that fit.

use alloc::collections::BTreeSet;
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use super::inst::{AddressBase, Operand, Symbol};
use super::module::{Body, Function, Module};
use super::print_inst::Names;
use super::verify_operands::check_operands;
use crate::diagnostic::{Diagnostic, Span};

/// Checks `module`; returns every problem found (empty if the IR is well formed).
pub fn verify(module: &Module) -> Vec<Diagnostic> {
    let mut v = Verifier { module, diags: Vec::new() };
    for (h, func) in module.functions.iter() {
        if let Some(body) = &func.body {
            v.function(func, body, module.function_spans.get(h));
        }
    }
    v.diags
}

struct Verifier<'m> {
    module: &'m Module,
    diags: Vec<Diagnostic>,
}

impl<'m> Verifier<'m> {
    fn function(&mut self, func: &'m Function, body: &'m Body, span: Span) {
        let before = self.diags.len();
        self.structure(func, body, span);
        if self.diags.len() > before {
            // Operand checks index through the handles the structure check found broken.
            return;
        }
        let names = Names { module: self.module, func, body };
        for (h, inst) in body.insts.iter() {
            let at = body.inst_spans.get(h);
            check_operands(&names, inst, at, &mut self.diags);
        }
    }

    fn error(&mut self, span: Span, message: String) {
        self.diags.push(Diagnostic::error(span, message));
    }

    fn structure(&mut self, func: &Function, body: &Body, span: Span) {
        let mut names = BTreeSet::new();
        for (h, r) in body.regs.iter() {
            if !names.insert(r.name.as_str()) {
                self.error(
                    body.reg_spans.get(h),
                    format!("register name '{}' is used twice in '{}'", r.name, func.name),
                );
            }
            if r.class != r.ty.width_class() {
                self.error(body.reg_spans.get(h), format!("register '{}' has the wrong width class", r.name));
            }
        }
        let mut var_names = BTreeSet::new();
        for (h, var) in body.vars.iter() {
            if !var_names.insert(var.name.as_str()) {
                self.error(
                    body.var_spans.get(h),
                    format!("variable name '{}' is used twice in '{}'", var.name, func.name),
                );
            }
        }
        let mut owner = alloc::vec![None; body.insts.len()];
        for (bh, block) in body.blocks.iter() {
            for (i, &ih) in block.insts.iter().enumerate() {
                let Some(slot) = owner.get_mut(ih.index()) else {
                    self.error(span, format!("block {} lists an instruction that does not exist", bh.index()));
                    continue;
                };
                if slot.replace(bh).is_some() {
                    self.error(body.inst_spans.get(ih), "instruction is listed in two places".into());
                }
                let terminator = body.insts.get(ih).is_some_and(|inst| inst.opcode.is_terminator());
                if terminator && i + 1 != block.insts.len() {
                    self.error(body.inst_spans.get(ih), "a branch, ret or exit must end its basic block".into());
                }
            }
        }
        if let Some(i) = owner.iter().position(Option::is_none) {
            self.error(span, format!("instruction {i} of '{}' belongs to no block", func.name));
        }
        if body.locs.len() != body.insts.len() {
            self.error(
                span,
                format!("'{}' has {} .loc entries for {} instructions", func.name, body.locs.len(), body.insts.len()),
            );
        }
        for p in &body.pragmas {
            let ok = body.blocks.get(p.block).is_some_and(|b| p.index as usize <= b.insts.len());
            if !ok {
                self.error(span, format!("a .pragma of '{}' is placed outside its blocks", func.name));
            }
        }
        for (ih, inst) in body.insts.iter() {
            let at = body.inst_spans.get(ih);
            if let Some(g) = inst.guard {
                if !body.regs.contains(g.reg) {
                    self.error(at, "guard register does not exist".into());
                }
            }
            for op in &inst.operands {
                self.handles(func, body, op, at);
            }
        }
    }

    /// Every handle an operand holds is in range.
    fn handles(&mut self, func: &Function, body: &Body, op: &Operand, at: Span) {
        let ok = match op {
            Operand::Reg(r) | Operand::NotReg(r) => body.regs.contains(*r),
            Operand::Address(a) => match a.base {
                AddressBase::Reg(r) => body.regs.contains(r),
                AddressBase::Symbol(s) => self.symbol_ok(func, body, s),
                AddressBase::Absolute => true,
            },
            Operand::Symbol { symbol, .. } => self.symbol_ok(func, body, *symbol),
            Operand::Label(b) => {
                if !body.blocks.contains(*b) {
                    self.error(at, "branch target label was never defined".into());
                }
                true
            }
            Operand::Vector(items) | Operand::List(items) => {
                items.iter().for_each(|o| self.handles(func, body, o, at));
                true
            }
            Operand::Pair(pair) => {
                pair.iter().for_each(|o| self.handles(func, body, o, at));
                true
            }
            Operand::Tex(t) => {
                self.handles(func, body, &t.texture, at);
                if let Some(s) = &t.sampler {
                    self.handles(func, body, s, at);
                }
                self.handles(func, body, &t.coords, at);
                true
            }
            Operand::Prototype(p) => body.prototypes.contains(*p),
            Operand::Imm(_) | Operand::Special(_) | Operand::Sink => true,
        };
        if !ok {
            self.error(at, "operand refers to something that does not exist".into());
        }
    }

    fn symbol_ok(&self, func: &Function, body: &Body, s: Symbol) -> bool {
        match s {
            Symbol::Global(h) => self.module.globals.contains(h),
            Symbol::Local(h) => body.vars.contains(h),
            Symbol::Param(i) => (i as usize) < func.params.len(),
            Symbol::Return(i) => (i as usize) < func.returns.len(),
            Symbol::Function(h) => self.module.functions.contains(h),
            Symbol::External(i) => (i as usize) < self.module.externals.len(),
        }
    }
}
