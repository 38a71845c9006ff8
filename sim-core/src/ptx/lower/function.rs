//! Lowering one function body: scopes and unique names, register and variable declarations,
//! labels and basic blocks, `.loc` and `.pragma` placement.
//!
//! ```text
//! .reg .v2 .f32 t;      // registers t$x, t$y; `t` names the vector {t$x, t$y}, `t.y` names t$y
//! .reg .b32 %r<3>;      // registers %r0, %r1, %r2
//! $L1: @%p bra $L1;     // block with label $L1, ending in a conditional branch
//! ```

use alloc::borrow::Cow;
use alloc::collections::{BTreeMap, BTreeSet};
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use super::ModuleCx;
use crate::diagnostic::{Diagnostic, Span};
use crate::ir::{Block, Body, BodyPragma, DebugLoc, Handle, Inst, Operand, Prototype, Reg, StateSpace, Symbol, Var};
use crate::ptx::ast::{self, Statement};

/// A `.reg` range larger than this is refused (it would only exhaust memory).
const MAX_REG_RANGE: u32 = 1 << 20;

/// What a name declared in a body scope stands for.
#[derive(Clone, Debug)]
pub(super) enum Local {
    Reg(Handle<Reg>),
    Vector(Vec<Handle<Reg>>),
    Var(Handle<Var>),
    Proto(Handle<Prototype>),
}

pub(super) struct BodyCx<'m, 'a> {
    pub m: &'m mut ModuleCx<'a>,
    pub body: Body,
    pub scopes: Vec<BTreeMap<Cow<'a, str>, Local>>,
    used: BTreeSet<String>,
    next_suffix: BTreeMap<String, u32>,
    pub params: BTreeMap<&'a str, Symbol>,
    pub label_names: BTreeSet<&'a str>,
    pub labels: BTreeMap<&'a str, Handle<Block>>,
    /// Label operands to patch once every label is known: (instruction, operand, element of a
    /// target list, label).
    pub fixups: Vec<(Handle<Inst>, usize, Option<usize>, ast::Name<'a>)>,
    /// Label operands of the instruction being lowered that name a label not defined yet.
    pub pending_labels: Vec<(usize, Option<usize>, ast::Name<'a>)>,
    /// `.branchtargets` (false) and `.calltargets` (true) lists by name.
    pub target_lists: BTreeMap<&'a str, (bool, Vec<ast::Name<'a>>)>,
    current: Option<Handle<Block>>,
    loc: Option<DebugLoc>,
}

/// Lowers the statements of the function declared by `decl`.
pub(super) fn lower_body<'a>(m: &mut ModuleCx<'a>, decl: &ast::FunctionDecl<'a>, stmts: &[Statement<'a>]) -> Body {
    let mut cx = BodyCx {
        m,
        body: Body::default(),
        scopes: alloc::vec![BTreeMap::new()],
        used: BTreeSet::new(),
        next_suffix: BTreeMap::new(),
        params: BTreeMap::new(),
        label_names: BTreeSet::new(),
        labels: BTreeMap::new(),
        fixups: Vec::new(),
        pending_labels: Vec::new(),
        target_lists: BTreeMap::new(),
        current: None,
        loc: None,
    };
    cx.bind_params(decl);
    cx.collect_labels(stmts);
    for stmt in stmts {
        if cx.m.gave_up() {
            break;
        }
        cx.statement(stmt);
    }
    cx.apply_fixups();
    cx.body
}

impl<'a> BodyCx<'_, 'a> {
    fn bind_params(&mut self, decl: &ast::FunctionDecl<'a>) {
        let all = decl.returns.iter().enumerate().map(|(i, p)| (p, Symbol::Return(i as u32)));
        let all = all.chain(decl.params.iter().enumerate().map(|(i, p)| (p, Symbol::Param(i as u32))));
        for (p, sym) in all {
            self.used.insert(p.name.text.into());
            if p.space == StateSpace::Reg {
                let h = self.body.regs.alloc(Reg { name: p.name.text.into(), ty: p.ty, class: p.ty.width_class() });
                self.body.reg_spans.insert(h, p.name.span);
                self.body.param_regs.push(h);
                if let Some(scope) = self.scopes.first_mut() {
                    scope.insert(Cow::Borrowed(p.name.text), Local::Reg(h));
                }
            } else {
                self.params.insert(p.name.text, sym);
            }
        }
    }

    fn collect_labels(&mut self, stmts: &[Statement<'a>]) {
        for stmt in stmts {
            match stmt {
                Statement::Label(name) if !self.label_names.insert(name.text) => {
                    let d = Diagnostic::error(name.span, format!("label '{}' is defined twice", name.text));
                    self.m.diags.push(d);
                }
                Statement::Targets { name, calls, targets }
                    if self.target_lists.insert(name.text, (*calls, targets.clone())).is_some() =>
                {
                    let d = Diagnostic::error(name.span, format!("target list '{}' is defined twice", name.text));
                    self.m.diags.push(d);
                }
                _ => {}
            }
        }
    }

    /// True if `name` is already used in this function or at module level.
    fn taken(&self, name: &str) -> bool {
        self.used.contains(name) || self.m.globals.contains_key(name) || self.m.functions.contains_key(name)
    }

    /// `name`, or `name$k` with the smallest `k` that is free.
    fn unique(&mut self, name: &str) -> String {
        let mut candidate = String::from(name);
        if self.taken(&candidate) {
            // Continue from the last suffix given to this name: shadowing the same name n times
            // stays linear.
            let k = self.next_suffix.entry(String::from(name)).or_insert(1);
            loop {
                candidate = format!("{name}${k}");
                *k += 1;
                if !(self.used.contains(&candidate)
                    || self.m.globals.contains_key(candidate.as_str())
                    || self.m.functions.contains_key(candidate.as_str()))
                {
                    break;
                }
            }
        }
        self.used.insert(candidate.clone());
        candidate
    }

    fn bind(&mut self, name: Cow<'a, str>, span: Span, local: Local) {
        let Some(scope) = self.scopes.last_mut() else { return };
        if scope.contains_key(name.as_ref()) {
            self.m.diags.push(Diagnostic::error(span, format!("'{name}' is declared twice in the same scope")));
            return;
        }
        scope.insert(name, local);
    }

    fn statement(&mut self, stmt: &Statement<'a>) {
        match stmt {
            Statement::Enter(_) => self.scopes.push(BTreeMap::new()),
            Statement::Leave(_) => {
                if self.scopes.len() > 1 {
                    self.scopes.pop();
                }
            }
            Statement::Label(name) => {
                let h = self.body.blocks.alloc(Block { label: Some(name.text.into()), insts: Vec::new() });
                self.labels.entry(name.text).or_insert(h);
                self.current = Some(h);
            }
            Statement::Inst(inst) => self.instruction(inst),
            Statement::Var(decl) if decl.space == StateSpace::Reg => self.declare_regs(decl),
            Statement::Var(decl) => self.declare_vars(decl),
            Statement::Loc(loc, _) => self.loc = Some(*loc),
            Statement::Pragma(p) => self.pragma(p.text),
            Statement::Prototype(p) => self.prototype(p),
            // Target lists were collected before lowering; uses become lists of labels/functions.
            Statement::Targets { .. } => {}
        }
    }

    fn instruction(&mut self, inst: &ast::Instruction<'a>) {
        let Some(lowered) = self.lower_inst(inst) else { return };
        let terminator = lowered.opcode.is_terminator();
        let block = match self.current {
            Some(b) => b,
            None => self.body.blocks.alloc(Block::default()),
        };
        let h = self.body.insts.alloc(lowered);
        self.body.inst_spans.insert(h, inst.span);
        self.body.operand_spans.push(h.index(), inst.operands.iter().map(ast::OperandAst::span));
        self.body.locs.push(self.loc);
        for (i, element, name) in self.pending_labels.drain(..) {
            self.fixups.push((h, i, element, name));
        }
        if let Some(b) = self.body.blocks.get_mut(block) {
            b.insts.push(h);
        }
        self.current = if terminator { None } else { Some(block) };
    }

    fn pragma(&mut self, text: &str) {
        let block = match self.current.or_else(|| self.body.blocks.handles().last()) {
            Some(b) => b,
            None => {
                let b = self.body.blocks.alloc(Block::default());
                self.current = Some(b);
                b
            }
        };
        let index = self.body.blocks.get(block).map_or(0, |b| b.insts.len() as u32);
        self.body.pragmas.push(BodyPragma { block, index, text: text.into() });
    }

    fn declare_regs(&mut self, decl: &ast::VarDecl<'a>) {
        for dn in &decl.names {
            if !dn.dims.is_empty() || dn.init.is_some() {
                self.m.diags.push(Diagnostic::error(dn.name.span, "registers cannot be arrays or have initialisers"));
                continue;
            }
            match dn.count {
                Some(n) if n > MAX_REG_RANGE => self.m.diags.push(Diagnostic::error(
                    dn.name.span,
                    format!("register range <{n}> is larger than RegLab's limit of {MAX_REG_RANGE}"),
                )),
                Some(n) => {
                    for i in 0..n {
                        let name = format!("{}{i}", dn.name.text);
                        let local = self.new_reg(&name, decl, dn.name.span);
                        self.bind(Cow::Owned(name), dn.name.span, local);
                    }
                }
                None => {
                    let local = self.new_reg(dn.name.text, decl, dn.name.span);
                    self.bind(Cow::Borrowed(dn.name.text), dn.name.span, local);
                }
            }
        }
    }

    fn new_reg(&mut self, name: &str, decl: &ast::VarDecl<'a>, span: Span) -> Local {
        let ty = decl.ty;
        match decl.vec {
            None => {
                let unique = self.unique(name);
                let h = self.body.regs.alloc(Reg { name: unique, ty, class: ty.width_class() });
                self.body.reg_spans.insert(h, span);
                Local::Reg(h)
            }
            Some(v) => {
                let elems = ["x", "y", "z", "w", "e4", "e5", "e6", "e7"];
                let regs = elems
                    .iter()
                    .take(v.len())
                    .map(|e| {
                        let unique = self.unique(&format!("{name}${e}"));
                        let h = self.body.regs.alloc(Reg { name: unique, ty, class: ty.width_class() });
                        self.body.reg_spans.insert(h, span);
                        h
                    })
                    .collect();
                Local::Vector(regs)
            }
        }
    }

    fn declare_vars(&mut self, decl: &ast::VarDecl<'a>) {
        for dn in &decl.names {
            if dn.count.is_some() {
                self.m.diags.push(Diagnostic::error(dn.name.span, "'<N>' name ranges are only for .reg declarations"));
                continue;
            }
            let mut var = super::var_from_decl(decl, dn);
            var.name = self.unique(dn.name.text);
            let h = self.body.vars.alloc(var);
            self.body.var_spans.insert(h, dn.name.span);
            self.bind(Cow::Borrowed(dn.name.text), dn.name.span, Local::Var(h));
        }
    }

    fn prototype(&mut self, p: &ast::PrototypeDecl<'a>) {
        let proto = Prototype {
            name: self.unique(p.name.text),
            returns: p.returns.iter().map(super::param_from_decl).collect(),
            params: p.params.iter().map(super::param_from_decl).collect(),
            noreturn: p.noreturn,
        };
        let h = self.body.prototypes.alloc(proto);
        self.bind(Cow::Borrowed(p.name.text), p.name.span, Local::Proto(h));
    }

    fn apply_fixups(&mut self) {
        for (inst, index, element, name) in core::mem::take(&mut self.fixups) {
            let Some(&block) = self.labels.get(name.text) else { continue };
            let op = self.body.insts.get_mut(inst).and_then(|i| i.operands.get_mut(index));
            let op = match (op, element) {
                (Some(Operand::List(items)), Some(j)) => items.get_mut(j),
                (op, None) => op,
                _ => None,
            };
            if let Some(op) = op {
                *op = Operand::Label(block);
            }
        }
    }
}
