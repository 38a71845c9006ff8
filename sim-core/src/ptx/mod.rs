//! The PTX front end: text → tokens → AST with spans → IR, and IR → PTX text.
//!
//! ```text
//! .version 7.0
//! .target sm_80
//! .address_size 64
//! .visible .entry add(.param .u64 a) { .reg .b64 %rd<2>; ld.param.u64 %rd1, [a]; ret; }
//! ```
//!
//! [`lexer`] turns text into tokens (it never fails: bad characters become error tokens) and also
//! classifies them for syntax highlighting, so the web editor highlights exactly what the parser
//! sees. [`parser`] builds the [`ast`], reporting every error with a span and recovering at `;` and
//! `}`. [`lower()`] resolves names and decodes modifiers into the [`ir`]. [`emit`] writes
//! the IR back as PTX that parses to the same IR.
//!
//! The usual entry points are [`compile`] (text → verified IR or diagnostics) and [`check`] (the
//! same, keeping warnings, for an editor).

pub mod ast;
pub mod lexer;
pub mod lower;
pub mod parser;

use alloc::string::String;
use alloc::vec::Vec;

use serde::{Deserialize, Serialize};

use crate::diagnostic::{Diagnostic, Severity};
use crate::ir;

pub use lower::lower;
pub use parser::parse;

/// The result of [`check`]: the IR if there was no error, and every diagnostic (errors and
/// warnings) in source order.
#[derive(Clone, Debug)]
pub struct Checked {
    /// The verified IR, `None` if any error was found.
    pub module: Option<ir::Module>,
    /// Errors and warnings, sorted by position.
    pub diagnostics: Vec<Diagnostic>,
}

/// Parses, lowers and verifies `src`, keeping warnings. This is what an editor calls on every
/// change: it never panics, and its time is linear in the input.
pub fn check(src: &str) -> Checked {
    let (ast, mut diagnostics) = parse(src);
    let mut module = None;
    if let Some(ast) = ast {
        match lower::lower_with_warnings(&ast) {
            Ok((m, warnings)) => {
                diagnostics.extend(warnings);
                let problems = ir::verify::verify(&m);
                let failed = problems.iter().any(|d| d.severity == Severity::Error);
                diagnostics.extend(problems);
                if !failed {
                    module = Some(m);
                }
            }
            Err(d) => diagnostics.extend(d),
        }
    }
    crate::sorting::sort_by_key(&mut diagnostics, |d| (d.span.start, d.span.end));
    Checked { module, diagnostics }
}

/// Parses, lowers and verifies `src`: the IR, or every error (warnings are dropped; use
/// [`check`] to keep them).
pub fn compile(src: &str) -> Result<ir::Module, Vec<Diagnostic>> {
    let checked = check(src);
    match checked.module {
        Some(m) => Ok(m),
        None => Err(checked.diagnostics.into_iter().filter(|d| d.severity == Severity::Error).collect()),
    }
}

/// Writes `module` as PTX text. Parsing and lowering the text gives the same IR.
pub fn emit(module: &ir::Module) -> String {
    let mut out = String::new();
    // Writing to a String cannot fail.
    let _ = ir::display::write_module(&mut out, module);
    out
}

/// One kernel or function in a [`Summary`].
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FunctionSummary {
    /// Name.
    pub name: String,
    /// `.entry` (a kernel) rather than `.func`.
    pub entry: bool,
    /// Number of instructions (0 for a declaration).
    pub instructions: usize,
    /// Number of virtual registers.
    pub registers: usize,
    /// Number of basic blocks.
    pub blocks: usize,
}

/// What a module contains, for listings and the CLI.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Summary {
    /// Every defined function, entries first in source order, then `.func`s.
    pub functions: Vec<FunctionSummary>,
}

impl Summary {
    /// Names of the kernels (`.entry` functions).
    pub fn kernel_names(&self) -> Vec<&str> {
        self.functions.iter().filter(|f| f.entry).map(|f| f.name.as_str()).collect()
    }

    /// Total number of instructions in all defined functions.
    pub fn instructions(&self) -> usize {
        self.functions.iter().map(|f| f.instructions).sum()
    }
}

/// Summarises `module`: its defined functions with instruction, register and block counts.
pub fn summary(module: &ir::Module) -> Summary {
    let mut functions: Vec<FunctionSummary> = module
        .functions
        .values()
        .filter_map(|f| {
            let body = f.body.as_ref()?;
            Some(FunctionSummary {
                name: f.name.clone(),
                entry: f.is_entry(),
                instructions: body.insts.len(),
                registers: body.regs.len(),
                blocks: body.blocks.len(),
            })
        })
        .collect();
    crate::sorting::sort_by_key(&mut functions, |f| !f.entry);
    Summary { functions }
}
