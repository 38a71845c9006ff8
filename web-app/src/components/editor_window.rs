//! Which part of the text the editor's textarea holds. A browser lays out a textarea's whole value on
//! every keystroke (about 150 ms for 1 MB, seconds for 10 MB), so a long text is held by whole lines
//! around the viewport, and the page keeps the full text: an input replaces the held lines in it,
//! scrolling moves the window (the caret and selection keep their place in the full text), and a
//! large paste, select-all, Ctrl+Home/End and "show line" are done on the full text here.
//!
//! ```text
//! full text  ┌──────────────────────────────────────────────┐
//!            │ …  lines 0..first        (gutter + overlay only) │
//!            │ ┌ textarea: lines first..last (start..end bytes) ┐ │  ← viewport inside, with margin
//!            │ └───────────────────────────────────────────────┘ │
//!            │ …  lines last..                                   │
//!            └──────────────────────────────────────────────┘
//! input: full = text[..start] + textarea.value + text[end..]; end = start + value.len()
//! ```
//!
//! Pure functions over byte offsets; `editor.rs` does the DOM side.

use yew::AttrValue;

use crate::highlight::{self, LineMetrics};

/// Texts with more lines than this are held by windows (the textarea holds the whole of shorter ones).
pub const WINDOW_ABOVE_LINES: usize = 2_000;
/// Windows are whole chunks of this many lines, one chunk of margin on each side of the viewport.
pub const CHUNK: usize = 100;
/// A held window with more lines than this (after typing or pasting into it) is re-cut.
pub const MAX_HELD_LINES: usize = 1_000;

/// True if `a` and `b` are the same text; the same shared string is recognised without reading it
/// (a 10 MB text is compared many times per keystroke otherwise).
pub fn same_text(a: &AttrValue, b: &AttrValue) -> bool {
    std::ptr::eq(a.as_str(), b.as_str()) || a == b
}

/// A text as a hook dependency: compared with [`same_text`].
#[derive(Clone, Debug)]
pub struct TextKey(pub AttrValue);

impl PartialEq for TextKey {
    fn eq(&self, other: &Self) -> bool {
        same_text(&self.0, &other.0)
    }
}

/// What the textarea holds: bytes `[start, end)` of `text`, whole lines, without the last line's
/// break (so the textarea shows no extra empty line).
#[derive(Clone, Debug)]
pub struct Held {
    /// The full text the window is cut from.
    pub text: AttrValue,
    /// Byte offset of the window's first line.
    pub start: usize,
    /// Byte offset just past the window's last character.
    pub end: usize,
    /// True if the user asked for the whole text (select all): kept until the text changes.
    pub whole_by_request: bool,
}

impl PartialEq for Held {
    fn eq(&self, other: &Self) -> bool {
        (self.start, self.end, self.whole_by_request) == (other.start, other.end, other.whole_by_request)
            && same_text(&self.text, &other.text)
    }
}

impl Held {
    /// The whole of `text`.
    pub fn whole(text: &AttrValue, by_request: bool) -> Self {
        Held { text: text.clone(), start: 0, end: text.len(), whole_by_request: by_request }
    }

    /// Lines `[first, last)` of `text`.
    pub fn lines(text: &AttrValue, metrics: &LineMetrics, first: usize, last: usize) -> Self {
        let (start, end) = line_range(metrics, text.len(), first, last);
        Held { text: text.clone(), start, end, whole_by_request: false }
    }

    /// The held text.
    pub fn window(&self) -> &str {
        self.text.get(self.start..self.end).unwrap_or("")
    }

    /// True if the textarea holds all of the text.
    pub fn is_whole(&self) -> bool {
        self.start == 0 && self.end == self.text.len()
    }
}

/// Byte range of lines `[first, last)` of a text of `len` bytes, without the break ending line
/// `last - 1` (a window that reaches the end of the text ends with it).
pub fn line_range(metrics: &LineMetrics, len: usize, first: usize, last: usize) -> (usize, usize) {
    let start = metrics.line_start(first, len);
    let end = if last >= metrics.line_count() { len } else { metrics.line_start(last, len).saturating_sub(1) };
    (start, end.max(start))
}

/// The lines `[first, last)` that bytes `[start, end)` span (`end` on a line counts that line).
pub fn lines_of(metrics: &LineMetrics, start: usize, end: usize) -> (usize, usize) {
    let first = metrics.starts.partition_point(|&s| s <= start).saturating_sub(1);
    let last = metrics.starts.partition_point(|&s| s <= end).max(first + 1);
    (first, last)
}

/// The window for a viewport showing lines `[top, top + height)`.
pub fn window_for(text: &AttrValue, metrics: &LineMetrics, top: usize, height: usize) -> Held {
    let count = metrics.line_count();
    if count <= WINDOW_ABOVE_LINES {
        return Held::whole(text, false);
    }
    let (first, last) = highlight::window_for_viewport(top, height, count, CHUNK);
    Held::lines(text, metrics, first, last.max(first + 1))
}

/// Whether `held` can stay in the textarea for `text` with lines `[top, top + height)` on screen.
pub fn keeps(held: &Held, text: &AttrValue, metrics: &LineMetrics, top: usize, height: usize) -> bool {
    if !same_text(&held.text, text) {
        return false;
    }
    let count = metrics.line_count();
    if count <= WINDOW_ABOVE_LINES || held.whole_by_request {
        return held.is_whole();
    }
    let (first, last) = lines_of(metrics, held.start, held.end);
    let bottom = (top + height).min(count);
    first <= top.min(count) && last >= bottom && last - first <= MAX_HELD_LINES
}

/// `text` with bytes `[start, end)` replaced by `insert`.
pub fn splice(text: &str, start: usize, end: usize, insert: &str) -> String {
    let (start, end) = (start.min(text.len()), end.min(text.len()).max(start.min(text.len())));
    let mut out = String::with_capacity(text.len() - (end - start) + insert.len());
    out.push_str(text.get(..start).unwrap_or(""));
    out.push_str(insert);
    out.push_str(text.get(end..).unwrap_or(""));
    out
}

/// The byte offset in `s` of UTF-16 offset `units` (what `selectionStart` counts), clamped to `s`.
pub fn byte_of_utf16(s: &str, units: u32) -> usize {
    let mut counted = 0u32;
    for (i, c) in s.char_indices() {
        if counted >= units {
            return i;
        }
        counted += c.len_utf16() as u32;
    }
    s.len()
}

/// The textarea selection (UTF-16, within the window) for full-text bytes `[from, to)`, clamped
/// to the window.
pub fn selection_in(held: &Held, from: usize, to: usize) -> (u32, u32) {
    let window = held.window();
    let clamp = |b: usize| b.clamp(held.start, held.end) - held.start;
    (highlight::utf16_offset(window, clamp(from)), highlight::utf16_offset(window, clamp(to)))
}

/// The full-text bytes of a textarea selection (UTF-16, within the window).
pub fn selection_of(held: &Held, from: u32, to: u32) -> (usize, usize) {
    let window = held.window();
    (held.start + byte_of_utf16(window, from), held.start + byte_of_utf16(window, to))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn numbered(lines: usize) -> AttrValue {
        AttrValue::from((0..lines).map(|i| format!("l{i}\n")).collect::<String>())
    }

    #[test]
    fn a_window_is_whole_lines_without_the_last_break() {
        let text = numbered(3_000);
        let m = LineMetrics::new(&text);
        // Viewport at line 1000, 40 lines: chunks of 100 with one of margin → lines 900..1200.
        let held = window_for(&text, &m, 1_000, 40);
        assert_eq!(lines_of(&m, held.start, held.end), (900, 1_200));
        assert!(held.window().starts_with("l900\n") && held.window().ends_with("\nl1199"));
        assert!(keeps(&held, &text, &m, 1_050, 40));
        assert!(!keeps(&held, &text, &m, 1_190, 40), "the viewport left the window");
        // A short text is held whole.
        let short = numbered(10);
        let whole = window_for(&short, &LineMetrics::new(&short), 0, 40);
        assert!(whole.is_whole() && keeps(&whole, &short, &LineMetrics::new(&short), 5, 40));
    }

    #[test]
    fn typing_in_the_window_splices_the_full_text() {
        let text = numbered(3_000);
        let m = LineMetrics::new(&text);
        let held = window_for(&text, &m, 0, 40);
        assert_eq!(lines_of(&m, held.start, held.end), (0, 200));
        // "X" typed at the start of line 1 (UTF-16 offset 3: after "l0\n").
        let typed = format!("l0\nX{}", &held.window()[3..]);
        let full = splice(&text, held.start, held.end, &typed);
        assert!(full.starts_with("l0\nXl1\nl2\n") && full.len() == text.len() + 1);
        assert!(full.ends_with("l2999\n"));
    }

    #[test]
    fn selections_map_between_window_and_full_text() {
        let text = AttrValue::from("aé\n😀b\nc\n".repeat(1_000));
        let m = LineMetrics::new(&text);
        // Lines 3..6: "aé", "😀b", "c" (bytes 3 + 5 + 1 + 3 line breaks per repetition = 12).
        let held = Held::lines(&text, &m, 3, 6);
        assert_eq!(held.window(), "aé\n😀b\nc");
        assert_eq!(held.start, 12);
        // UTF-16: a=1, é=1, \n=1, 😀=2 → "b" starts at unit 5, byte 12 + 3 + 1 + 4 = 20.
        assert_eq!(selection_of(&held, 5, 6), (20, 21));
        assert_eq!(selection_in(&held, 20, 21), (5, 6));
        // Outside the window: clamped to its ends.
        assert_eq!(selection_in(&held, 0, 10_000), (0, 8));
        assert_eq!(byte_of_utf16("😀", 1), 4, "inside a surrogate pair: after the character");
    }
}
