//! Lowering one instruction: the guard, the modifiers (decoded against the opcode's
//! [`OpSpec`](super::opspec::OpSpec)), the operand count and the operands.
//!
//! ```text
//! fence.proxy.async.shared::cta;   // proxy = AsyncSharedCta (the words after .proxy form one kind)
//! add.s32 %r1, %r2;                // error: 'add' takes 3 operands, found 2
//! ```

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use super::function::BodyCx;
use super::mods::Decoded;
use super::mods_info::{describe, is_set, nearest_modifier};
use super::opspec::{op_spec, takes_two_layouts, takes_two_spaces};
use crate::diagnostic::Diagnostic;
use crate::ir::{Guard, Inst, Opcode, Operand, ProxyKind, SchemeOperand, Symbol};
use crate::ptx::ast::{self, Name};

impl<'a> BodyCx<'_, 'a> {
    /// Lowers `inst`, reporting its errors; `None` if it had any.
    pub(super) fn lower_inst(&mut self, inst: &ast::Instruction<'a>) -> Option<Inst> {
        self.pending_labels.clear();
        let errors_before = self.error_count();
        let mut decoded = self.decode_modifiers(inst);
        let video_ops;
        let ast_operands: &[ast::OperandAst<'a>] = if inst.opcode.is_video() {
            video_ops = self.video_operands(inst, &mut decoded.mods.video);
            &video_ops
        } else {
            &inst.operands
        };
        let spec = op_spec(inst.opcode);
        let (min, max) = (spec.operands.0 as usize, spec.operands.1 as usize);
        let n = inst.operands.len();
        if n < min || n > max {
            let expected = if min == max { format!("{min}") } else { format!("{min} to {max}") };
            let plural = if max == 1 { "" } else { "s" };
            self.m.diags.push(Diagnostic::error(
                inst.span,
                format!("'{}' takes {expected} operand{plural}, found {n}", inst.opcode.name()),
            ));
        }
        let guard = inst.guard.and_then(|g| match self.scalar_reg(g.name) {
            Ok(reg) => Some(Guard { reg, negated: g.negated }),
            Err(d) => {
                self.m.diags.push(d);
                None
            }
        });
        let mut operands = Vec::with_capacity(n);
        let call_target = (inst.opcode == Opcode::Call)
            .then(|| usize::from(matches!(inst.operands.first(), Some(ast::OperandAst::List(..)))));
        for (i, op) in ast_operands.iter().enumerate() {
            if let (Some(t), ast::OperandAst::Name { name, component: None }) = (call_target, op) {
                if t == i && !name.text.starts_with('%') {
                    operands.push(self.call_target(*name));
                    continue;
                }
            }
            match self.operand(i, op) {
                Ok(o) => operands.push(o),
                Err(d) => {
                    let d = match op {
                        ast::OperandAst::Name { name, .. }
                            if inst.opcode == Opcode::Bra && d.message.ends_with("declared") =>
                        {
                            Diagnostic::error(
                                name.span,
                                format!("label '{}' is not defined in this function", name.text),
                            )
                            .with_hint("a label is defined by writing `name:` before an instruction")
                        }
                        _ => d,
                    };
                    self.m.diags.push(d);
                }
            }
        }
        if self.error_count() > errors_before {
            return None;
        }
        // A direct memory operand (RegLab's DeMO syntax) reads a value of the instruction's source
        // type (a cvt's second type).
        let source = decoded.types.iter().nth(usize::from(inst.opcode == Opcode::Cvt));
        for op in &mut operands {
            if let (Operand::Scheme(s), Some(t)) = (op, source) {
                if let SchemeOperand::Memory(m) = &mut **s {
                    m.ty = t;
                }
            }
        }
        Some(Inst { opcode: inst.opcode, guard, mods: decoded.mods, types: decoded.types, operands })
    }

    fn error_count(&mut self) -> usize {
        self.m.error_count()
    }

    /// A call target: a function, a register or prototype-typed value; a name declared nowhere is
    /// an external function (OptiX programs call runtime functions they never declare).
    fn call_target(&mut self, name: Name<'a>) -> Operand {
        match self.operand(0, &ast::OperandAst::Name { name, component: None }) {
            Ok(op) => op,
            Err(_) => {
                let index = match self.m.externals.get(name.text) {
                    Some(&i) => i as usize,
                    None => {
                        let externals = &mut self.m.module.externals;
                        self.m.externals.insert(name.text, externals.len() as u32);
                        externals.push(name.text.into());
                        self.m.diags.push(
                            Diagnostic::warning(
                                name.span,
                                format!("'{}' is not declared in this module; calls to it are external", name.text),
                            )
                            .with_hint("runtimes such as OptiX provide such functions when the module is loaded"),
                        );
                        externals.len() - 1
                    }
                };
                Operand::Symbol { symbol: Symbol::External(index as u32), offset: 0 }
            }
        }
    }

    fn decode_modifiers(&mut self, inst: &ast::Instruction<'a>) -> Decoded {
        let spec = op_spec(inst.opcode);
        let mut d = Decoded::default();
        let joined;
        let words: &[Name<'a>] = if inst.opcode == Opcode::Fence {
            joined = join_proxy(&inst.mods);
            &joined
        } else {
            &inst.mods
        };
        let op = inst.opcode.name();
        let mut unknown = false;
        for w in words {
            match d.add(spec.kinds, spec.types.1 as usize, w.text) {
                Ok(true) => {}
                Ok(false) => {
                    unknown = true;
                    let mut diag = Diagnostic::error(w.span, format!("'{op}' does not take the modifier '{}'", w.text));
                    if let Some(s) = nearest_modifier(spec.kinds, spec.types.1 > 0, w.text) {
                        diag = diag.with_hint(format!("did you mean '{s}'?"));
                    }
                    self.m.diags.push(diag);
                }
                Err(msg) => self.m.diags.push(Diagnostic::error(w.span, msg)),
            }
        }
        let at = inst.opcode_span;
        if d.types.len() < spec.types.0 as usize {
            let what = if spec.types.0 == 1 { "a type such as .u32".into() } else { format!("{} types", spec.types.0) };
            self.m.diags.push(Diagnostic::error(at, format!("'{op}' needs {what}")));
        }
        // A misspelt modifier is usually the missing one: one error is enough.
        for kind in spec.required.iter().filter(|_| !unknown) {
            if !is_set(*kind, &d.mods) {
                self.m.diags.push(Diagnostic::error(at, format!("'{op}' needs a {}", describe(*kind))));
            }
        }
        if d.mods.src_space.is_some() && !takes_two_spaces(inst.opcode) {
            self.m.diags.push(Diagnostic::error(at, format!("'{op}' takes one state space, found two")));
        }
        if d.mods.layout_b.is_some() && !takes_two_layouts(inst.opcode) {
            self.m.diags.push(Diagnostic::error(at, format!("'{op}' takes one layout, found two")));
        }
        d
    }
}

/// `fence.proxy.async.shared::cta`: the words after `.proxy` are one proxy kind; `.proxy` itself
/// is implied by the kind.
fn join_proxy<'a>(words: &[Name<'a>]) -> Vec<Name<'a>> {
    let Some(at) = words.iter().position(|w| w.text == ".proxy") else { return words.to_vec() };
    let mut out: Vec<Name<'a>> = words.get(..at).map(<[Name<'a>]>::to_vec).unwrap_or_default();
    let rest = words.get(at + 1..).unwrap_or(&[]);
    for take in (1..=rest.len().min(2)).rev() {
        let joined: String = rest.iter().take(take).map(|w| w.text).collect();
        if let Some(kind) = ProxyKind::from_keyword(&joined) {
            let span = rest.get(take - 1).map_or(words[at].span, |w| words[at].span.join(w.span));
            out.push(Name { text: kind.as_str(), span });
            out.extend(rest.iter().skip(take).copied());
            return out;
        }
    }
    out.extend(words.get(at..).unwrap_or(&[]).iter().copied());
    out
}
