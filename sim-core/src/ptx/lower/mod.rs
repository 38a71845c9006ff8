//! Lowering: AST → IR. Names are resolved (registers, variables, parameters, labels, functions,
//! special registers), nested scopes are flattened with unique names, modifiers are decoded into
//! typed fields, and basic blocks are formed at labels and after terminators.
//!
//! ```text
//! { .reg .b32 %r1; { .reg .b32 %r1; mov.b32 %r1, 1; } }
//! // two registers: %r1 and %r1$1 (the inner declaration shadows the outer one)
//! ```
//!
//! Lowering reports every error it finds (unknown names, modifiers an instruction does not take,
//! wrong operand counts, …) and returns the IR only if there were none.

mod function;
mod inst;
mod mods;
mod mods_info;
mod operand;
mod opspec;
mod video;

use alloc::collections::BTreeMap;
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use crate::diagnostic::{Diagnostic, Severity, Span};
use crate::ir::{self, FileEntry, Function, Handle, Initializer, Item, Param, PtrAttr, Var};
use crate::ptx::ast::{self, Init, Literal, TopItem};

/// Lowers a parsed module to IR, or returns every error found (warnings are dropped; see
/// [`lower_with_warnings`]).
pub fn lower(ast: &ast::Module<'_>) -> Result<ir::Module, Vec<Diagnostic>> {
    lower_with_warnings(ast).map(|(m, _)| m)
}

/// Lowers a parsed module to IR with its warnings, or returns every diagnostic (errors and
/// warnings) if there was an error.
pub fn lower_with_warnings(ast: &ast::Module<'_>) -> Result<(ir::Module, Vec<Diagnostic>), Vec<Diagnostic>> {
    let mut cx = ModuleCx::default();
    cx.declare_all(ast);
    cx.lower_items(ast);
    if cx.module.version == ir::Version::default() && !cx.saw_version {
        cx.diags.push(
            Diagnostic::error(Span::default(), "missing .version directive")
                .with_hint("PTX starts with `.version 7.0` (or the ISA version it was written for)"),
        );
    }
    if cx.module.target.arch.is_empty() {
        cx.diags.push(
            Diagnostic::error(Span::default(), "missing .target directive")
                .with_hint("PTX names its target after .version, for example `.target sm_80`"),
        );
    }
    if cx.diags.iter().any(|d| d.severity == Severity::Error) {
        Err(cx.diags)
    } else {
        Ok((cx.module, cx.diags))
    }
}

/// Module-level state shared with function lowering.
#[derive(Default)]
pub(crate) struct ModuleCx<'a> {
    pub module: ir::Module,
    pub globals: BTreeMap<&'a str, Handle<Var>>,
    pub functions: BTreeMap<&'a str, Handle<Function>>,
    pub diags: Vec<Diagnostic>,
    /// Index of each external call target in `module.externals`.
    pub externals: BTreeMap<&'a str, u32>,
    /// Errors among `diags[..counted]`, kept incrementally (see `error_count`).
    errors: usize,
    counted: usize,
    saw_version: bool,
    /// Global handles of the `Var` items, by item index, to keep source order.
    item_globals: Vec<Vec<Handle<Var>>>,
}

/// Lowering stops looking for more problems after this many diagnostics.
pub const MAX_DIAGNOSTICS: usize = 200;

impl<'a> ModuleCx<'a> {
    /// Number of errors reported so far (amortised constant time).
    pub fn error_count(&mut self) -> usize {
        let new = self.diags.get(self.counted..).unwrap_or(&[]);
        self.errors += new.iter().filter(|d| d.severity == Severity::Error).count();
        self.counted = self.diags.len();
        self.errors
    }

    /// True once so many problems were found that lowering stops.
    pub fn gave_up(&self) -> bool {
        self.diags.len() >= MAX_DIAGNOSTICS
    }

    /// Pass 1: allocate every global and function, so any item may refer to any other.
    fn declare_all(&mut self, ast: &ast::Module<'a>) {
        for item in &ast.items {
            let mut handles = Vec::new();
            match item {
                TopItem::Var(decl) => {
                    for name in &decl.names {
                        if let Some(h) = self.declare_global(decl, name) {
                            handles.push(h);
                        }
                    }
                }
                TopItem::Function(f) => self.declare_function(f),
                _ => {}
            }
            self.item_globals.push(handles);
        }
    }

    fn declare_global(&mut self, decl: &ast::VarDecl<'a>, name: &ast::DeclName<'a>) -> Option<Handle<Var>> {
        if self.globals.contains_key(name.name.text) || self.functions.contains_key(name.name.text) {
            self.diags.push(Diagnostic::error(name.name.span, format!("'{}' is declared twice", name.name.text)));
            return None;
        }
        if name.count.is_some() {
            self.diags.push(Diagnostic::error(name.name.span, "'<N>' name ranges are only for .reg declarations"));
        }
        if matches!(decl.space, ir::StateSpace::Reg | ir::StateSpace::Param | ir::StateSpace::Local) {
            self.diags.push(Diagnostic::error(
                decl.span,
                format!("{} variables cannot be declared at module level", decl.space),
            ));
        }
        let var = var_from_decl(decl, name);
        let h = self.module.globals.alloc(var);
        self.module.global_spans.insert(h, name.name.span);
        self.globals.insert(name.name.text, h);
        Some(h)
    }

    fn declare_function(&mut self, f: &ast::FunctionDecl<'a>) {
        if self.globals.contains_key(f.name.text) {
            self.diags.push(Diagnostic::error(f.name.span, format!("'{}' is already a variable", f.name.text)));
            return;
        }
        if self.functions.contains_key(f.name.text) {
            return;
        }
        let func = Function {
            name: f.name.text.into(),
            kind: f.kind,
            linkage: f.linkage,
            returns: f.returns.iter().map(param_from_decl).collect(),
            params: f.params.iter().map(param_from_decl).collect(),
            perf: f.perf.clone(),
            body: None,
        };
        let h = self.module.functions.alloc(func);
        self.module.function_spans.insert(h, f.name.span);
        self.functions.insert(f.name.text, h);
    }

    /// Pass 2: directives, initialisers, bodies, in source order.
    fn lower_items(&mut self, ast: &ast::Module<'a>) {
        let item_globals = core::mem::take(&mut self.item_globals);
        for (item, globals) in ast.items.iter().zip(item_globals) {
            if self.gave_up() {
                self.diags.push(Diagnostic::error(
                    Span::default(),
                    format!("too many problems ({MAX_DIAGNOSTICS}); the rest of the file was not checked"),
                ));
                break;
            }
            match item {
                TopItem::Version { major, minor, .. } => {
                    self.saw_version = true;
                    self.module.version = ir::Version { major: *major, minor: *minor };
                }
                TopItem::Target { arch, options, .. } => {
                    self.module.target =
                        ir::Target { arch: arch.text.into(), options: options.iter().map(|(o, _)| *o).collect() };
                }
                TopItem::AddressSize { bits, .. } => self.module.address_size = Some(*bits),
                TopItem::File { index, name, stamp, .. } => {
                    self.module.files.insert(*index, FileEntry { name: (*name).into(), stamp: *stamp });
                }
                TopItem::Var(decl) => {
                    for (h, name) in globals.iter().zip(&decl.names) {
                        self.check_init(name);
                        self.module.items.push(Item::Global(*h));
                    }
                }
                TopItem::Function(f) => self.lower_function(f),
                TopItem::Section(s) => self.lower_section(s),
                TopItem::Pragma(p) => {
                    self.module.items.push(Item::Pragma(self.module.pragmas.len() as u32));
                    self.module.pragmas.push(p.text.into());
                }
            }
        }
    }

    /// Reports initialiser symbols that name nothing.
    fn check_init(&mut self, name: &ast::DeclName<'a>) {
        let mut stack: Vec<&Init<'a>> = name.init.iter().collect();
        while let Some(init) = stack.pop() {
            match init {
                Init::List(items, _) => stack.extend(items.iter()),
                Init::Symbol { name, .. } => {
                    if !self.globals.contains_key(name.text) && !self.functions.contains_key(name.text) {
                        self.diags.push(Diagnostic::error(
                            name.span,
                            format!("'{}' in an initialiser is not a declared variable or function", name.text),
                        ));
                    }
                }
                Init::Literal(..) => {}
            }
        }
    }

    fn lower_function(&mut self, f: &ast::FunctionDecl<'a>) {
        let Some(&h) = self.functions.get(f.name.text) else { return };
        let Some(stmts) = &f.body else {
            self.module.items.push(Item::Declaration(h));
            return;
        };
        if self.module.functions.get(h).is_some_and(|func| func.body.is_some()) {
            self.diags.push(Diagnostic::error(f.name.span, format!("function '{}' is defined twice", f.name.text)));
            return;
        }
        if let Some(func) = self.module.functions.get_mut(h) {
            func.returns = f.returns.iter().map(param_from_decl).collect();
            func.params = f.params.iter().map(param_from_decl).collect();
            func.perf = f.perf.clone();
            func.linkage = f.linkage;
        }
        let body = function::lower_body(self, f, stmts);
        if let Some(func) = self.module.functions.get_mut(h) {
            func.body = Some(body);
        }
        self.module.items.push(Item::Definition(h));
    }

    fn lower_section(&mut self, s: &ast::SectionDecl<'a>) {
        let lines = s
            .lines
            .iter()
            .map(|l| ir::SectionLine {
                ty: l.ty,
                values: l
                    .values
                    .iter()
                    .map(|v| match v {
                        ast::SectionValueAst::Int(n) => ir::SectionValue::Int(*n),
                        ast::SectionValueAst::Symbol(name, offset) => {
                            ir::SectionValue::Symbol { name: name.text.into(), offset: *offset }
                        }
                    })
                    .collect(),
            })
            .collect();
        self.module.items.push(Item::Section(self.module.sections.len() as u32));
        self.module.sections.push(ir::Section { name: s.name.text.into(), lines });
    }
}

/// An IR variable from one name of a declaration.
pub(crate) fn var_from_decl(decl: &ast::VarDecl<'_>, name: &ast::DeclName<'_>) -> Var {
    Var {
        name: name.name.text.into(),
        space: decl.space,
        linkage: decl.linkage,
        align: decl.align,
        vec: decl.vec,
        ty: decl.ty,
        dims: name.dims.clone(),
        init: name.init.as_ref().map(lower_init),
    }
}

fn lower_init(init: &Init<'_>) -> Initializer {
    match init {
        Init::Literal(Literal::Int(v), _) => Initializer::Int(*v),
        Init::Literal(Literal::F32(v), _) => Initializer::F32(*v),
        Init::Literal(Literal::F64(v), _) => Initializer::F64(*v),
        Init::Symbol { name, offset, generic } => {
            Initializer::Address { name: String::from(name.text), offset: *offset, generic: *generic }
        }
        Init::List(items, _) => Initializer::List(items.iter().map(lower_init).collect()),
    }
}

pub(crate) fn param_from_decl(p: &ast::ParamDecl<'_>) -> Param {
    Param {
        name: p.name.text.into(),
        space: p.space,
        align: p.align,
        vec: p.vec,
        ty: p.ty,
        ptr: p.ptr.map(|(space, align)| PtrAttr { space, align }),
        dims: p.dims.clone(),
    }
}

#[cfg(test)]
#[allow(clippy::panic, reason = "a failing test panics")]
mod tests {
    use alloc::string::String;
    use alloc::vec::Vec;

    use crate::diagnostic::Severity;
    use crate::ir::{Module, Operand};

    const HEAD: &str = ".version 7.0\n.target sm_80\n.address_size 64\n";

    fn lower_src(
        src: &str,
    ) -> Result<(Module, Vec<crate::diagnostic::Diagnostic>), Vec<crate::diagnostic::Diagnostic>> {
        let full = alloc::format!("{HEAD}{src}");
        let (ast, diags) = crate::ptx::parse(&full);
        match ast {
            Some(ast) => super::lower_with_warnings(&ast),
            None => Err(diags),
        }
    }

    fn reg_names(m: &Module) -> Vec<String> {
        m.functions
            .values()
            .filter_map(|f| f.body.as_ref())
            .flat_map(|b| b.regs.values().map(|r| r.name.clone()))
            .collect()
    }

    #[test]
    fn shadowing_vector_and_range_registers_get_unique_names() {
        let src = ".entry k() { .reg .b32 %r<2>; .reg .v2 .f32 v; { .reg .b32 %r1; { .reg .b32 %r1; } } \
                   { .reg .b32 %r1; } ret; }";
        let Ok((m, _)) = lower_src(src) else { panic!("did not lower") };
        assert_eq!(reg_names(&m), ["%r0", "%r1", "v$x", "v$y", "%r1$1", "%r1$2", "%r1$3"]);
    }

    #[test]
    fn forward_labels_resolve_to_blocks() {
        let src = ".entry k() { .reg .pred %p; @%p bra $L2; bra.uni $L1; $L1: ret; $L2: exit; }";
        let Ok((m, _)) = lower_src(src) else { panic!("did not lower") };
        let Some(body) = m.functions.values().next().and_then(|f| f.body.as_ref()) else { return };
        let labels: Vec<Option<&str>> = body.blocks.values().map(|b| b.label.as_deref()).collect();
        assert_eq!(labels, [None, None, Some("$L1"), Some("$L2")]);
        let targets: Vec<usize> =
            body.insts.values().flat_map(|i| i.branch_targets().collect::<Vec<_>>()).map(|b| b.index()).collect();
        assert_eq!(targets, [3, 2]);
    }

    #[test]
    fn undeclared_call_targets_are_external_with_a_warning() {
        let src = ".entry k() { .reg .b32 %r<2>; call (%r1), _rt_thing, (%r0); ret; }";
        let Ok((m, warnings)) = lower_src(src) else { panic!("did not lower") };
        assert_eq!(m.externals, ["_rt_thing"]);
        assert_eq!(warnings.len(), 1);
        assert_eq!(warnings[0].severity, Severity::Warning);
        let Some(body) = m.functions.values().next().and_then(|f| f.body.as_ref()) else { return };
        assert!(body.insts.values().any(|i| matches!(i.operands.get(1), Some(Operand::Symbol { .. }))));
    }

    #[test]
    fn every_lowering_error_is_reported() {
        let src = ".entry k() { .reg .b32 %r<2>; add.s32 %r1, %r9, %r0; fma.rx.f32 %r0, %r0, %r0, %r0; \
                   mov.u32 %r1; ret; }";
        let Err(diags) = lower_src(src) else { panic!("lowered") };
        assert_eq!(diags.len(), 3, "{diags:?}");
    }
}
