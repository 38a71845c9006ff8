//! The parser on every real PTX file of the corpus: no diagnostics.

use reglab_tests::{corpus_dir, ptx_files};
use sim_core::diagnostic::LineIndex;

#[test]
fn every_corpus_file_parses() {
    let files = ptx_files(&corpus_dir());
    assert!(files.len() >= 85, "corpus not found at {}", corpus_dir().display());
    let mut failures = Vec::new();
    for path in &files {
        let Ok(src) = std::fs::read_to_string(path) else {
            failures.push(format!("{}: unreadable", path.display()));
            continue;
        };
        let (_, diags) = sim_core::ptx::parse(&src);
        let index = LineIndex::new(&src);
        for d in diags.iter().take(5) {
            failures.push(d.render_text(&path.display().to_string(), &src, &index));
        }
    }
    assert!(failures.is_empty(), "{} problems:\n{}", failures.len(), failures.join("\n"));
}
