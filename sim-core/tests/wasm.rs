//! sim-core compiled to WebAssembly and run in headless Chromium (`wasm-bindgen-test`): the same
//! results as natively, bit for bit. Natively this file is empty.
#![cfg(target_arch = "wasm32")]

use sim_core::diagnostic::{LineIndex, Span};
use sim_core::ptx::lexer::{highlight, tokenize, TokenKind};
use wasm_bindgen_test::{wasm_bindgen_test, wasm_bindgen_test_configure};

wasm_bindgen_test_configure!(run_in_browser);

const KERNEL: &str = ".version 7.0\n.target sm_75\n.address_size 64\n\n.visible .entry k(.param .u64 p)\n{\n\
    .reg .b32 %r<3>;\n\tmov.u32 %r1, %tid.x; // lane\n\t@%p1 bra $L__BB0_2;\n\tmov.f32 %f1, 0f3F800000;\n}\n";

#[wasm_bindgen_test]
fn lexer_covers_every_byte_in_the_browser() {
    let tokens = tokenize(KERNEL);
    let covered: usize = tokens.iter().map(|t| t.span.len()).sum();
    assert_eq!(covered, KERNEL.len());
    assert!(tokens.iter().all(|t| t.kind != TokenKind::Error));
    assert_eq!(tokens.iter().filter(|t| t.kind == TokenKind::Float).count(), 2, "7.0 and 0f3F800000");
}

#[wasm_bindgen_test]
fn highlight_and_line_index_match_native_expectations() {
    let classes = highlight(KERNEL);
    let opcode_count = classes.iter().filter(|(_, c)| c.css_name() == "opcode").count();
    assert_eq!(opcode_count, 3, "mov, bra, mov");
    let index = LineIndex::new(KERNEL);
    let at = index.line_col(KERNEL, KERNEL.find("bra").map_or(0, |i| i as u32));
    assert_eq!((at.line, at.column), (9, 7));
    assert_eq!(Span::new(0, 8).text(KERNEL), ".version");
}
