//! The lexer on every real PTX file of the corpus: full coverage of the text and no error token.

use reglab_tests::{corpus_dir, ptx_files};
use sim_core::ptx::lexer::{tokenize, TokenKind};

#[test]
fn every_corpus_file_lexes_without_error_tokens() {
    let files = ptx_files(&corpus_dir());
    assert!(files.len() >= 85, "corpus not found at {} ({} files)", corpus_dir().display(), files.len());
    let mut failures = Vec::new();
    for path in &files {
        let Ok(src) = std::fs::read_to_string(path) else {
            failures.push(format!("{}: unreadable", path.display()));
            continue;
        };
        let tokens = tokenize(&src);
        let covered: usize = tokens.iter().map(|t| t.span.len()).sum();
        assert_eq!(covered, src.len(), "{}", path.display());
        if let Some(bad) = tokens.iter().find(|t| t.kind == TokenKind::Error) {
            failures.push(format!(
                "{}: error token {:?} at byte {}",
                path.display(),
                bad.span.text(&src),
                bad.span.start
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
