//! Editor markup: the highlighted overlay for a window of lines, built from the classes
//! `sim_core::ptx::lexer::highlight` assigns, plus the line metrics the editor sizes itself with.
//!
//! ```text
//! "add.s32 %r1;"  →  <span class="tok-opcode">add</span><span class="tok-modifier">.s32</span> …
//! ```
//!
//! Only the window of lines on screen is lexed and marked up, so a 48k-line module costs no more per
//! keystroke than a screenful. Lexing starts at the window's first line, or earlier when that line
//! is inside a block comment, so comments stay comments.

use sim_core::diagnostic::escape_html;
use sim_core::ptx::lexer::{highlight, HighlightClass};

/// Columns a tab advances to (the editor's CSS `tab-size` must match).
pub const TAB_SIZE: usize = 8;

/// Byte offsets of line starts and the widest line, for one text.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LineMetrics {
    /// Byte offset at which each line starts; `starts[0] == 0`.
    pub starts: Vec<usize>,
    /// Width of the widest line in columns (tabs expanded to `TAB_SIZE`).
    pub max_columns: usize,
}

impl LineMetrics {
    /// Measures `src` in one pass over its bytes (no decoding: this runs on every keystroke, and a
    /// 10 MB text must cost milliseconds). A character is a byte that does not continue a UTF-8
    /// sequence; tabs advance to the next multiple of `TAB_SIZE`.
    pub fn new(src: &str) -> Self {
        let mut starts = Vec::with_capacity(src.len() / 24 + 1);
        starts.push(0);
        let mut max_columns = 0;
        let mut column = 0;
        for (i, &b) in src.as_bytes().iter().enumerate() {
            match b {
                b'\n' => {
                    starts.push(i + 1);
                    max_columns = max_columns.max(column);
                    column = 0;
                }
                b'\t' => column += TAB_SIZE - column % TAB_SIZE,
                b'\r' => {}
                _ if b & 0xC0 == 0x80 => {}
                _ => column += 1,
            }
        }
        LineMetrics { starts, max_columns: max_columns.max(column) }
    }

    /// Number of lines (a trailing line break starts one more, empty, line).
    pub fn line_count(&self) -> usize {
        self.starts.len()
    }

    /// Byte offset where 0-based line `line` starts, or `len` past the end.
    pub fn line_start(&self, line: usize, len: usize) -> usize {
        self.starts.get(line).copied().unwrap_or(len)
    }
}

/// Width of `text` in columns, tabs expanded to `TAB_SIZE` (the widest line if it has several).
pub fn display_width(text: &str) -> usize {
    LineMetrics::new(text).max_columns
}

/// The lines `[first, last)` (0-based) of `src` as highlighted HTML (escaped; one `<span>` per
/// coloured token, white space as plain text). Lines end with `\n` except the text's last line.
pub fn window_markup(src: &str, metrics: &LineMetrics, first: usize, last: usize) -> String {
    let begin = metrics.line_start(first, src.len());
    let end = metrics.line_start(last, src.len()).max(begin);
    let lex_from = lexing_start(src, metrics, begin);
    let (Some(lexed), Some(window)) = (src.get(lex_from..end), src.get(begin..end)) else {
        return String::new();
    };
    let clipped = end < src.len();
    let mut out = String::with_capacity(window.len() * 3);
    for (span, class) in highlight(lexed) {
        let (start, stop) = (span.start as usize + lex_from, span.end as usize + lex_from);
        if stop <= begin {
            continue;
        }
        let Some(text) = src.get(start.max(begin)..stop) else {
            continue;
        };
        // A block comment running past the window is unterminated only in the window's slice.
        let opens_comment = lexed.get(span.start as usize..).is_some_and(|t| t.starts_with("/*"));
        let class = if clipped && stop == end && class == HighlightClass::Error && opens_comment {
            HighlightClass::Comment
        } else {
            class
        };
        push_token(&mut out, text, class);
    }
    out
}

/// Appends `text` coloured as `class`.
pub fn push_token(out: &mut String, text: &str, class: HighlightClass) {
    if class == HighlightClass::Plain {
        out.push_str(&escape_html(text));
    } else {
        out.push_str("<span class=\"tok-");
        out.push_str(class.css_name());
        out.push_str("\">");
        out.push_str(&escape_html(text));
        out.push_str("</span>");
    }
}

/// Where to start lexing so that `begin` is lexed in context: the start of the line holding the
/// last `/*` before `begin` if no `*/` follows it, else `begin` itself.
fn lexing_start(src: &str, metrics: &LineMetrics, begin: usize) -> usize {
    let Some(before) = src.get(..begin) else {
        return begin;
    };
    match before.rfind("/*") {
        Some(open) if !before.get(open..).is_some_and(|rest| rest.contains("*/")) => {
            let line = metrics.starts.partition_point(|&s| s <= open).saturating_sub(1);
            metrics.line_start(line, begin)
        }
        _ => begin,
    }
}

/// The window of lines to render for a viewport showing lines `[top, top + height)`: whole chunks
/// of `chunk` lines with one chunk of margin on each side, so small scrolls render nothing new.
pub fn window_for_viewport(top: usize, height: usize, line_count: usize, chunk: usize) -> (usize, usize) {
    let chunk = chunk.max(1);
    let first = (top / chunk).saturating_sub(1) * chunk;
    let last = ((top + height) / chunk + 2) * chunk;
    (first.min(line_count), last.min(line_count))
}

/// The UTF-16 offset of byte `offset` in `src` (what `setSelectionRange` counts in).
pub fn utf16_offset(src: &str, offset: usize) -> u32 {
    let prefix = src.get(..offset.min(src.len())).unwrap_or(src);
    u32::try_from(prefix.encode_utf16().count()).unwrap_or(u32::MAX)
}
