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

use super::inst::{AddressBase, Operand, SchemeOperand, Symbol};
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
        super::scheme::check_crf_reads(body, &mut self.diags);
        let names = Names { module: self.module, func, body };
        for (h, inst) in body.insts.iter() {
            let at = body.inst_spans.get(h);
            let operand_at = |i: usize| body.operand_spans.get(h.index(), i).unwrap_or(at);
            check_operands(&names, inst, at, &operand_at, &mut self.diags);
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
        let reg_params = func.returns.iter().chain(&func.params).filter(|p| p.space == super::StateSpace::Reg).count();
        if body.param_regs.len() != reg_params || body.param_regs.iter().any(|r| !body.regs.contains(*r)) {
            self.error(span, format!("'{}' does not map each .reg parameter to one register", func.name));
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
            Operand::Scheme(s) => match &**s {
                SchemeOperand::Memory(m) => match m.address.base {
                    AddressBase::Reg(r) => body.regs.contains(r),
                    AddressBase::Symbol(s) => self.symbol_ok(func, body, s),
                    AddressBase::Absolute => true,
                },
                SchemeOperand::Composite(inner) => {
                    inner.operands.iter().for_each(|o| self.handles(func, body, o, at));
                    true
                }
                SchemeOperand::Crf => true,
            },
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

#[cfg(test)]
mod tests {
    use alloc::string::String;
    use alloc::vec::Vec;

    use super::verify;
    use crate::ir::{Body, Handle, Module, Operand};

    fn compiled() -> Module {
        let src = ".version 7.0\n.target sm_80\n.address_size 64\n.entry k() {\n.reg .b32 %r<3>;\n\
                   mov.u32 %r1, 1;\nadd.u32 %r2, %r1, %r1;\nret;\n}\n";
        crate::ptx::compile(src).unwrap_or_default()
    }

    /// The verifier's messages after `edit` changed the body of the kernel.
    fn problems(edit: impl FnOnce(&mut Body)) -> Vec<String> {
        let mut m = compiled();
        assert!(verify(&m).is_empty());
        if let Some(body) = m.functions.get_mut(Handle::from_index(0)).and_then(|f| f.body.as_mut()) {
            edit(body);
        }
        verify(&m).into_iter().map(|d| d.message).collect()
    }

    #[test]
    fn a_terminator_must_end_its_block() {
        let found = problems(|b| {
            if let Some(block) = b.blocks.get_mut(Handle::from_index(0)) {
                block.insts.rotate_right(1);
            }
        });
        assert!(found.iter().any(|m| m.contains("must end its basic block")), "{found:?}");
    }

    #[test]
    fn instructions_belong_to_exactly_one_block() {
        let found = problems(|b| {
            if let Some(block) = b.blocks.get_mut(Handle::from_index(0)) {
                let first = block.insts[0];
                block.insts.insert(1, first);
                block.insts.pop();
            }
        });
        assert!(found.iter().any(|m| m.contains("listed in two places")), "{found:?}");
        assert!(found.iter().any(|m| m.contains("belongs to no block")), "{found:?}");
    }

    #[test]
    fn handles_and_names_are_checked() {
        let found = problems(|b| {
            if let Some(inst) = b.insts.get_mut(Handle::from_index(0)) {
                inst.operands[0] = Operand::Reg(Handle::from_index(99));
            }
            if let Some(reg) = b.regs.get_mut(Handle::from_index(2)) {
                reg.name = "%r1".into();
            }
        });
        assert!(found.iter().any(|m| m.contains("does not exist")), "{found:?}");
        assert!(found.iter().any(|m| m.contains("used twice")), "{found:?}");
    }

    #[test]
    fn operand_rules_apply_to_transformed_ir() {
        let found = problems(|b| {
            if let Some(inst) = b.insts.get_mut(Handle::from_index(1)) {
                inst.guard = Some(crate::ir::Guard { reg: Handle::from_index(1), negated: false });
                inst.operands.pop();
            }
        });
        assert!(found.iter().any(|m| m.contains("not a .pred register")), "{found:?}");
    }
}
