//! The editor's highlight markup and line metrics. Runs natively and in the browser.

use sim_core::ptx::lexer::HighlightClass;
use wasm_bindgen_test::wasm_bindgen_test;
use web_app::highlight::{push_token, utf16_offset, window_for_viewport, window_markup, LineMetrics};

#[cfg(target_arch = "wasm32")]
wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);

/// The text the markup displays: tags dropped, entities decoded.
fn displayed_text(markup: &str) -> String {
    let mut out = String::new();
    let mut in_tag = false;
    for c in markup.chars() {
        match c {
            '<' => in_tag = true,
            '>' => in_tag = false,
            _ if !in_tag => out.push(c),
            _ => {}
        }
    }
    out.replace("&lt;", "<").replace("&gt;", ">").replace("&quot;", "\"").replace("&#39;", "'").replace("&amp;", "&")
}

const KERNEL: &str = ".reg .b32 %r<4>;\n$L1:\n@%p1 bra $L1; // back <edge> & \"more\"\nadd.s32 %r1, %r2, 1;\n";

#[wasm_bindgen_test(unsupported = test)]
fn full_markup_colours_tokens_and_escapes_html() {
    let m = LineMetrics::new(KERNEL);
    let html = window_markup(KERNEL, &m, 0, m.line_count());
    assert!(html.contains("<span class=\"tok-directive\">.reg</span>"), "{html}");
    assert!(html.contains("<span class=\"tok-opcode\">add</span><span class=\"tok-modifier\">.s32</span>"), "{html}");
    assert!(html.contains("<span class=\"tok-register\">%r1</span>"), "{html}");
    assert!(html.contains("<span class=\"tok-label\">$L1</span>"), "{html}");
    assert!(html.contains("<span class=\"tok-comment\">// back &lt;edge&gt; &amp; &quot;more&quot;</span>"), "{html}");
    assert!(!html.contains("<edge>"));
    assert_eq!(displayed_text(&html), KERNEL);
}

#[wasm_bindgen_test(unsupported = test)]
fn a_window_shows_exactly_its_lines() {
    let m = LineMetrics::new(KERNEL);
    let html = window_markup(KERNEL, &m, 1, 3);
    assert_eq!(displayed_text(&html), "$L1:\n@%p1 bra $L1; // back <edge> & \"more\"\n");
    assert_eq!(window_markup(KERNEL, &m, 9, 12), "");
}

#[wasm_bindgen_test(unsupported = test)]
fn windows_inside_block_comments_stay_comments() {
    let src = "ret;\n/* a comment\nadd.s32 %r1, %r2, %r3;\nstill */ ret;\nmov.u32 %r1, 0;\n";
    let m = LineMetrics::new(src);
    // Starts inside the comment: lexing begins at the comment's line.
    let html = window_markup(src, &m, 2, 4);
    assert!(html.starts_with("<span class=\"tok-comment\">add.s32 %r1, %r2, %r3;\nstill */</span>"), "{html}");
    assert!(html.contains("<span class=\"tok-opcode\">ret</span>"), "{html}");
    // Ends inside the comment: the clipped comment is not an error.
    let html = window_markup(src, &m, 0, 3);
    assert!(!html.contains("tok-error"), "{html}");
    assert_eq!(displayed_text(&html), "ret;\n/* a comment\nadd.s32 %r1, %r2, %r3;\n");
}

#[wasm_bindgen_test(unsupported = test)]
fn lexical_errors_are_marked() {
    let mut out = String::new();
    push_token(&mut out, "#", HighlightClass::Error);
    assert_eq!(out, "<span class=\"tok-error\">#</span>");
    let src = "ret; # stray\n";
    let m = LineMetrics::new(src);
    assert!(window_markup(src, &m, 0, 1).contains("<span class=\"tok-error\">#</span>"));
}

#[wasm_bindgen_test(unsupported = test)]
fn metrics_count_lines_and_expand_tabs() {
    let m = LineMetrics::new("\tld.param.u64 \t%rd1;\nab\r\n");
    assert_eq!(m.starts, [0, 21, 25]);
    assert_eq!(m.line_count(), 3);
    // 8 (tab) + 13 + tab to 24 + 5.
    assert_eq!(m.max_columns, 29);
    assert_eq!(m.line_start(7, 25), 25);
}

#[wasm_bindgen_test(unsupported = test)]
fn viewport_windows_are_chunk_aligned_with_margin() {
    assert_eq!(window_for_viewport(0, 40, 10_000, 100), (0, 200));
    assert_eq!(window_for_viewport(250, 40, 10_000, 100), (100, 400));
    assert_eq!(window_for_viewport(9_990, 40, 10_000, 100), (9_800, 10_000));
    // Small scrolls inside a chunk give the same window (no re-render).
    assert_eq!(window_for_viewport(251, 40, 10_000, 100), window_for_viewport(299, 0, 10_000, 100));
}

#[wasm_bindgen_test(unsupported = test)]
fn utf16_offsets_count_code_units() {
    let src = "é😀x\nnext";
    assert_eq!(utf16_offset(src, 0), 0);
    assert_eq!(utf16_offset(src, "é😀x\n".len()), 5);
    assert_eq!(utf16_offset(src, 999), 9);
}
