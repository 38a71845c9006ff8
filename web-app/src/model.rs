//! The one module that calls `sim-core`'s PTX front end for the page: [`analyze`] turns the editor
//! text into what the results area and the editor's gutter show (counts, kernels, diagnostics with
//! line and column). Everything else in the app works on [`Analysis`], so switching to a richer
//! front end changes only this file.
//!
//! ```text
//! .version 8.5 #oops   → Analysis { diagnostics: [1:14 error: unexpected character '#'], .. }
//! ```

use sim_core::diagnostic::{Diagnostic, LineIndex, Severity, Span};
use sim_core::ptx::lexer::{tokenize, TokenKind};

/// What the page knows about one version of the editor text.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Analysis {
    /// The editor revision this was computed from (see `AppState::revision`).
    pub revision: u64,
    /// Number of lines of the text.
    pub lines: usize,
    /// Size of the text in bytes (UTF-8).
    pub bytes: usize,
    /// Tokens other than white space and comments.
    pub tokens: usize,
    /// Kernels (`.entry`) and device functions (`.func`) found, in source order.
    pub kernels: Vec<KernelInfo>,
    /// Every problem found, sorted by position.
    pub diagnostics: Vec<DiagnosticInfo>,
    /// What the front end could do with this text, for the results heading.
    pub stage: Stage,
}

/// How far the front end got.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Stage {
    /// Only the lexer ran (the parser is not wired in yet).
    #[default]
    Lexed,
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
    let tokens = tokenize(src);
    let mut diagnostics: Vec<DiagnosticInfo> = tokens
        .iter()
        .filter(|t| t.kind == TokenKind::Error)
        .map(|t| DiagnosticInfo::new(&lexical_diagnostic(t.span, src), src, &index))
        .collect();
    diagnostics.sort_by_key(|d| (d.line, d.column));
    Analysis {
        revision,
        lines: index.line_count(),
        bytes: src.len(),
        tokens: tokens.iter().filter(|t| !t.is_trivia()).count(),
        kernels: Vec::new(),
        diagnostics,
        stage: Stage::Lexed,
    }
}

/// A diagnostic for a lexer error token (unterminated comment or string, bad number, stray byte).
fn lexical_diagnostic(span: Span, src: &str) -> Diagnostic {
    let text = span.text(src);
    if text.starts_with("/*") {
        Diagnostic::error(Span::new(span.start as usize, span.start as usize + 2), "unterminated block comment")
            .with_hint("close the comment with */")
    } else if text.starts_with('"') {
        Diagnostic::error(span, "unterminated string").with_hint("close the string with \" on the same line")
    } else if text.starts_with(|c: char| c.is_ascii_digit()) {
        Diagnostic::error(span, format!("malformed number '{text}'"))
            .with_hint("a number cannot run into letters; separate them or fix the digits")
    } else if text == "#" {
        Diagnostic::error(span, "unexpected character '#'")
            .with_hint("PTX has no preprocessor: run the C preprocessor first, or remove the line")
    } else {
        Diagnostic::error(span, format!("unexpected character '{text}'"))
            .with_hint("PTX does not use this character here; remove it")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clean_text_has_counts_and_no_diagnostics() {
        let a = analyze(".version 8.5\n.target sm_75\n", 3);
        assert_eq!((a.revision, a.lines, a.tokens), (3, 3, 4));
        assert!(a.diagnostics.is_empty());
    }

    #[test]
    fn lexical_errors_become_diagnostics_with_line_and_column() {
        let a = analyze(".version 8.5\n  #define X\nret; /* open", 0);
        let found: Vec<(u32, u32, &str)> =
            a.diagnostics.iter().map(|d| (d.line, d.column, d.message.as_str())).collect();
        assert_eq!(found, [(2, 3, "unexpected character '#'"), (3, 6, "unterminated block comment")]);
        assert!(a.diagnostics[0].summary().starts_with("2:3 error: unexpected character '#' (hint: "));
    }
}
