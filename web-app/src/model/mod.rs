//! The one module that calls `sim-core` for the page. [`analyze`] runs `sim_core::ptx::check`
//! (parse, lower, verify; warnings kept) on the editor text and turns the result into what the
//! results area and the editor's gutter show: kernels with their instruction counts and every
//! diagnostic with line and column. [`kernel`] runs the static analyses of the selected kernel
//! (the annotated listing, the register estimate, static shared memory) and [`occupancy`] the
//! occupancy calculator and its curves for a GPU preset and launch. Everything else in the app
//! works on these views, so richer analyses change only this module.
//!
//! ```text
//! addx.f32 %f3, %f2, %f1;   → Analysis { diagnostics: [50:2 error: unknown instruction 'addx'], .. }
//! ```

pub mod kernel;
pub mod occupancy;

use std::rc::Rc;

use sim_core::diagnostic::{Diagnostic, LineIndex, Severity};
use sim_core::ir::{FunctionKind, Module};
use sim_core::ptx;

/// What the page knows about one version of the editor text.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Analysis {
    /// The editor revision this was computed from (see `AppState::revision`).
    pub revision: u64,
    /// Number of lines of the text.
    pub lines: usize,
    /// Size of the text in bytes (UTF-8).
    pub bytes: usize,
    /// Kernels (`.entry`) and device functions (`.func`) defined, in source order; empty unless
    /// the module compiled.
    pub kernels: Vec<KernelInfo>,
    /// Every problem found (errors and warnings), sorted by position.
    pub diagnostics: Vec<DiagnosticInfo>,
    /// Whether the text compiled to verified IR.
    pub stage: Stage,
    /// `PTX 8.5 · sm_75` once the module compiled.
    pub target: Option<String>,
    /// The module itself (with its text), for the analyses of a kernel.
    pub compiled: Option<Compiled>,
}

/// A compiled module with the text it came from, shared by every view of one revision; two are
/// equal only if they are the same compilation.
#[derive(Clone)]
pub struct Compiled(Rc<CompiledModule>);

/// What [`Compiled`] shares.
pub struct CompiledModule {
    /// The verified IR.
    pub module: Module,
    /// The text it was compiled from.
    pub source: String,
    /// Line starts of `source`.
    pub index: LineIndex,
}

impl Compiled {
    /// The shared module.
    pub fn get(&self) -> &CompiledModule {
        &self.0
    }

    /// 1-based line of a byte offset into the source.
    pub fn line_of(&self, offset: u32) -> u32 {
        self.0.index.line_col(&self.0.source, offset).line
    }
}

impl PartialEq for Compiled {
    fn eq(&self, other: &Self) -> bool {
        Rc::ptr_eq(&self.0, &other.0)
    }
}

impl Eq for Compiled {}

impl std::fmt::Debug for Compiled {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Compiled({} functions)", self.0.module.functions.len())
    }
}

impl Analysis {
    /// Number of errors (warnings not counted).
    pub fn errors(&self) -> usize {
        self.diagnostics.iter().filter(|d| d.severity == Severity::Error).count()
    }

    /// Instructions in all kernels and functions.
    pub fn instructions(&self) -> usize {
        self.kernels.iter().map(|k| k.instructions).sum()
    }
}

/// How far the front end got.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Stage {
    /// Parsed, lowered and verified: the kernels are known.
    Compiled,
    /// Errors stopped the front end; the diagnostics say where.
    #[default]
    Failed,
}

/// One `.entry` or `.func` of the module.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KernelInfo {
    /// Its name as written in the PTX.
    pub name: String,
    /// `.entry` (launchable kernel) or `.func` (device function).
    pub kind: KernelKind,
    /// Number of instructions in its body.
    pub instructions: usize,
    /// Number of virtual registers it declares.
    pub registers: usize,
    /// Number of basic blocks.
    pub blocks: usize,
    /// 1-based line of its declaration.
    pub line: u32,
}

/// Kernel or device function.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KernelKind {
    /// `.entry`: launchable from the host.
    Entry,
    /// `.func`: callable from device code.
    Func,
}

impl KernelKind {
    /// The PTX directive, `.entry` or `.func`.
    pub fn directive(self) -> &'static str {
        match self {
            KernelKind::Entry => ".entry",
            KernelKind::Func => ".func",
        }
    }
}

/// A diagnostic resolved to line and column, ready to show.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DiagnosticInfo {
    /// Error or warning.
    pub severity: Severity,
    /// 1-based line where it starts.
    pub line: u32,
    /// 1-based column (in characters) where it starts.
    pub column: u32,
    /// What is wrong.
    pub message: String,
    /// How to fix it, if there is something useful to say.
    pub hint: Option<String>,
}

impl DiagnosticInfo {
    /// Resolves `d` against `src`.
    pub fn new(d: &Diagnostic, src: &str, index: &LineIndex) -> Self {
        let at = d.location(src, index);
        DiagnosticInfo {
            severity: d.severity,
            line: at.line,
            column: at.column,
            message: d.message.clone(),
            hint: d.hint.clone(),
        }
    }

    /// `line:column`, as editors and compilers print it.
    pub fn location(&self) -> String {
        format!("{}:{}", self.line, self.column)
    }

    /// One line for a tooltip: `3:5 error: message (hint: …)`.
    pub fn summary(&self) -> String {
        let mut text = format!("{} {}: {}", self.location(), self.severity.as_str(), self.message);
        if let Some(hint) = &self.hint {
            text.push_str(" (hint: ");
            text.push_str(hint);
            text.push(')');
        }
        text
    }
}

/// Everything the page shows about `src`, tagged with `revision`.
pub fn analyze(src: &str, revision: u64) -> Analysis {
    let index = LineIndex::new(src);
    let checked = ptx::check(src);
    let diagnostics = checked.diagnostics.iter().map(|d| DiagnosticInfo::new(d, src, &index)).collect();
    let lines = index.line_count();
    let (kernels, stage, target, compiled) = match checked.module {
        Some(m) => {
            let target = format!("PTX {}.{} · {}", m.version.major, m.version.minor, m.target.arch);
            let kernels = kernels(&m, src, &index);
            let compiled = Compiled(Rc::new(CompiledModule { module: m, source: src.to_owned(), index }));
            (kernels, Stage::Compiled, Some(target), Some(compiled))
        }
        None => (Vec::new(), Stage::Failed, None, None),
    };
    Analysis { revision, lines, bytes: src.len(), kernels, diagnostics, stage, target, compiled }
}

/// The defined kernels and functions of `module`, in source order.
fn kernels(module: &Module, src: &str, index: &LineIndex) -> Vec<KernelInfo> {
    let mut found: Vec<(u32, KernelInfo)> = module
        .functions
        .iter()
        .filter_map(|(handle, f)| {
            let body = f.body.as_ref()?;
            let span = module.function_spans.get(handle);
            let kind = match f.kind {
                FunctionKind::Entry => KernelKind::Entry,
                FunctionKind::Func => KernelKind::Func,
            };
            let info = KernelInfo {
                name: f.name.clone(),
                kind,
                instructions: body.insts.len(),
                registers: body.regs.len(),
                blocks: body.blocks.len(),
                line: index.line_col(src, span.start).line,
            };
            Some((span.start, info))
        })
        .collect();
    sim_core::sorting::sort_by_key(&mut found, |(start, _)| *start);
    found.into_iter().map(|(_, k)| k).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const KERNEL: &str = ".version 8.5\n.target sm_75\n.address_size 64\n\n.visible .entry k(.param .u64 p)\n{\n\t.reg .b64 %rd<2>;\n\tld.param.u64 %rd1, [p];\n\tret;\n}\n";

    #[test]
    fn a_clean_module_lists_its_kernels() {
        let a = analyze(KERNEL, 3);
        assert_eq!((a.revision, a.lines, a.stage), (3, 11, Stage::Compiled));
        assert!(a.diagnostics.is_empty(), "{:?}", a.diagnostics);
        assert_eq!(a.kernels.len(), 1);
        let k = &a.kernels[0];
        assert_eq!((k.name.as_str(), k.kind, k.instructions, k.line), ("k", KernelKind::Entry, 2, 5));
        assert_eq!(a.instructions(), 2);
        assert_eq!(a.target.as_deref(), Some("PTX 8.5 · sm_75"));
    }

    #[test]
    fn errors_become_diagnostics_with_line_and_column() {
        let src = KERNEL.replace("\tret;", "\tbogus.op %rd1;");
        let a = analyze(&src, 0);
        assert_eq!(a.stage, Stage::Failed);
        assert!(a.kernels.is_empty());
        let d = &a.diagnostics[0];
        assert_eq!((d.line, d.column, d.severity), (9, 2, Severity::Error));
        assert!(d.message.contains("bogus"), "{}", d.message);
        assert!(d.summary().starts_with("9:2 error: "));
        assert_eq!(a.errors(), a.diagnostics.len());
    }
}
