//! Source spans, line/column mapping and the one `Diagnostic` type every stage reports with.
//!
//! A [`Span`] is a half-open byte range into the source text. [`LineIndex`] turns byte offsets into
//! 1-based line and column numbers (columns count characters, not bytes, so a caret lines up in an
//! editor). A [`Diagnostic`] renders as plain text for the CLI
//! (`kernel.ptx:12:5: error: unknown instruction 'fma.rx.f32'`) and as HTML for the web app.
//!
//! ```text
//! add.s32 %r1, %r2;      // parse error at 1:17 — "expected ',' after operand"
//! ```

use alloc::string::String;
use alloc::vec::Vec;
use core::fmt::Write as _;

use serde::{Deserialize, Serialize};

/// A half-open byte range `[start, end)` into one source text.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct Span {
    /// First byte of the range.
    pub start: u32,
    /// One past the last byte of the range.
    pub end: u32,
}

impl Span {
    /// A span from byte offsets; offsets past `u32::MAX` saturate.
    pub fn new(start: usize, end: usize) -> Self {
        let clamp = |v: usize| u32::try_from(v).unwrap_or(u32::MAX);
        Span { start: clamp(start), end: clamp(end.max(start)) }
    }

    /// The smallest span covering both.
    pub fn join(self, other: Span) -> Span {
        Span { start: self.start.min(other.start), end: self.end.max(other.end) }
    }

    /// Length in bytes.
    pub fn len(self) -> usize {
        (self.end - self.start) as usize
    }

    /// True for an empty range.
    pub fn is_empty(self) -> bool {
        self.end == self.start
    }

    /// The text this span covers, or `""` if it does not lie on character boundaries of `src`.
    pub fn text(self, src: &str) -> &str {
        src.get(self.start as usize..self.end as usize).unwrap_or("")
    }
}

/// A 1-based line and column (columns count Unicode scalar values).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct LineCol {
    /// Line number, starting at 1.
    pub line: u32,
    /// Column number, starting at 1.
    pub column: u32,
}

/// Maps byte offsets of one source text to lines and columns.
#[derive(Clone, Debug)]
pub struct LineIndex {
    /// Byte offset at which each line starts; `line_starts[0] == 0`.
    line_starts: Vec<u32>,
}

impl LineIndex {
    /// Indexes the line starts of `src` (`\n`, with `\r\n` treated as one line break).
    pub fn new(src: &str) -> Self {
        let mut line_starts = Vec::with_capacity(src.len() / 32 + 1);
        line_starts.push(0);
        for (i, b) in src.bytes().enumerate() {
            if b == b'\n' {
                line_starts.push(u32::try_from(i + 1).unwrap_or(u32::MAX));
            }
        }
        LineIndex { line_starts }
    }

    /// Number of lines in the text.
    pub fn line_count(&self) -> usize {
        self.line_starts.len()
    }

    /// The 1-based line and column of byte `offset` in `src` (clamped to the text).
    pub fn line_col(&self, src: &str, offset: u32) -> LineCol {
        let offset = offset.min(u32::try_from(src.len()).unwrap_or(u32::MAX));
        let line = match self.line_starts.binary_search(&offset) {
            Ok(i) => i,
            Err(i) => i.saturating_sub(1),
        };
        let start = self.line_starts.get(line).copied().unwrap_or(0) as usize;
        let prefix = src.get(start..offset as usize).unwrap_or("");
        LineCol {
            line: u32::try_from(line + 1).unwrap_or(u32::MAX),
            column: u32::try_from(prefix.chars().count() + 1).unwrap_or(u32::MAX),
        }
    }

    /// The text of 1-based line `line` without its line break, or `""` past the end.
    pub fn line_text<'a>(&self, src: &'a str, line: u32) -> &'a str {
        let i = (line as usize).saturating_sub(1);
        let Some(&start) = self.line_starts.get(i) else {
            return "";
        };
        let end = self.line_starts.get(i + 1).map_or(src.len(), |&e| e as usize);
        src.get(start as usize..end).unwrap_or("").trim_end_matches(['\n', '\r'])
    }
}

/// How bad a diagnostic is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// The input cannot be used; the stage that reported it produced no result.
    Error,
    /// The input was used, but something in it is suspicious or was approximated.
    Warning,
}

impl Severity {
    /// `"error"` or `"warning"`.
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
        }
    }
}

/// One message about the input, tied to the place in the source it is about.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Diagnostic {
    /// Error or warning.
    pub severity: Severity,
    /// Where in the source (byte range).
    pub span: Span,
    /// What is wrong, in one sentence.
    pub message: String,
    /// How to fix it, when there is something useful to say.
    pub hint: Option<String>,
}

impl Diagnostic {
    /// An error at `span`.
    pub fn error(span: Span, message: impl Into<String>) -> Self {
        Diagnostic { severity: Severity::Error, span, message: message.into(), hint: None }
    }

    /// A warning at `span`.
    pub fn warning(span: Span, message: impl Into<String>) -> Self {
        Diagnostic { severity: Severity::Warning, span, message: message.into(), hint: None }
    }

    /// The same diagnostic with a hint attached.
    #[must_use]
    pub fn with_hint(mut self, hint: impl Into<String>) -> Self {
        self.hint = Some(hint.into());
        self
    }

    /// Where it starts, as line and column.
    pub fn location(&self, src: &str, index: &LineIndex) -> LineCol {
        index.line_col(src, self.span.start)
    }

    /// `file:line:col: error: message`, the offending line with a caret, and the hint.
    pub fn render_text(&self, file: &str, src: &str, index: &LineIndex) -> String {
        let at = self.location(src, index);
        let mut out = String::new();
        let _ = writeln!(out, "{file}:{}:{}: {}: {}", at.line, at.column, self.severity.as_str(), self.message);
        let line = index.line_text(src, at.line);
        if !line.is_empty() {
            let width = self.span_width_on_line(src, index, at);
            let _ = writeln!(out, "{:>5} | {line}", at.line);
            let pad: String =
                line.chars().take(at.column as usize - 1).map(|c| if c == '\t' { '\t' } else { ' ' }).collect();
            let _ = writeln!(out, "      | {pad}{}", "^".repeat(width));
        }
        if let Some(hint) = &self.hint {
            let _ = writeln!(out, "      = hint: {hint}");
        }
        out
    }

    /// The diagnostic as an HTML fragment (escaped), for the web app's diagnostics list.
    pub fn render_html(&self, src: &str, index: &LineIndex) -> String {
        let at = self.location(src, index);
        let mut out = String::new();
        let _ = write!(
            out,
            "<div class=\"diag diag-{sev}\" data-line=\"{line}\"><span class=\"diag-loc\">{line}:{col}</span> \
             <span class=\"diag-sev\">{sev}</span>: <span class=\"diag-msg\">{msg}</span>",
            sev = self.severity.as_str(),
            line = at.line,
            col = at.column,
            msg = escape_html(&self.message),
        );
        if let Some(hint) = &self.hint {
            let _ = write!(out, "<div class=\"diag-hint\">hint: {}</div>", escape_html(hint));
        }
        out.push_str("</div>");
        out
    }

    fn span_width_on_line(&self, src: &str, index: &LineIndex, at: LineCol) -> usize {
        let end = index.line_col(src, self.span.end);
        if end.line == at.line && end.column > at.column {
            (end.column - at.column) as usize
        } else {
            1
        }
    }
}

/// Levenshtein distance between two short ASCII names (case-insensitive), for "did you mean"
/// hints; inputs over 64 bytes get their longer length.
pub fn edit_distance(a: &str, b: &str) -> usize {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() > 64 || b.len() > 64 {
        return a.len().max(b.len());
    }
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    let mut cur = alloc::vec![0; b.len() + 1];
    for (i, &ca) in a.iter().enumerate() {
        cur[0] = i + 1;
        for (j, &cb) in b.iter().enumerate() {
            let cost = usize::from(!ca.eq_ignore_ascii_case(&cb));
            cur[j + 1] = (prev[j] + cost).min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        core::mem::swap(&mut prev, &mut cur);
    }
    prev[b.len()]
}

/// Escapes `&`, `<`, `>`, `"` and `'` for HTML text and attribute values.
pub fn escape_html(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            _ => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_col_counts_from_one_and_handles_crlf() {
        let src = "ab\r\ncd\nxé z";
        let idx = LineIndex::new(src);
        assert_eq!(idx.line_col(src, 0), LineCol { line: 1, column: 1 });
        assert_eq!(idx.line_col(src, 5), LineCol { line: 2, column: 2 });
        // 'z' is after a two-byte 'é': byte 11, column 4.
        assert_eq!(idx.line_col(src, 11), LineCol { line: 3, column: 4 });
        assert_eq!(idx.line_text(src, 1), "ab");
        assert_eq!(idx.line_text(src, 9), "");
    }

    #[test]
    fn text_rendering_points_at_the_span() {
        let src = ".version 7.0\n  bogus.op %r1;\n";
        let idx = LineIndex::new(src);
        let d = Diagnostic::error(Span::new(15, 23), "unknown instruction 'bogus.op'").with_hint("check the spelling");
        let text = d.render_text("k.ptx", src, &idx);
        assert!(text.starts_with("k.ptx:2:3: error: unknown instruction 'bogus.op'\n"), "{text}");
        assert!(text.contains("      |   ^^^^^^^^\n"), "{text}");
        assert!(text.contains("hint: check the spelling"));
    }

    #[test]
    fn html_rendering_escapes() {
        let src = "a<b";
        let idx = LineIndex::new(src);
        let html = Diagnostic::error(Span::new(1, 2), "bad '<'").render_html(src, &idx);
        assert!(html.contains("bad &#39;&lt;&#39;"), "{html}");
        assert!(html.contains("data-line=\"1\""));
    }
}
