//! The PTX front end on every real file of the corpus: each parses, lowers and verifies, and
//! parse → lower → emit → parse → lower gives the same IR (compared structurally, spans aside,
//! and by text form).

use reglab_tests::{corpus_dir, ptx_files};
use sim_core::diagnostic::LineIndex;

fn render(path: &str, src: &str, diags: &[sim_core::diagnostic::Diagnostic]) -> String {
    let index = LineIndex::new(src);
    diags.iter().take(5).map(|d| d.render_text(path, src, &index)).collect()
}

#[test]
fn every_corpus_file_compiles_and_round_trips() {
    let files = ptx_files(&corpus_dir());
    assert!(files.len() >= 85, "corpus not found at {} ({} files)", corpus_dir().display(), files.len());
    let mut failures = Vec::new();
    for path in &files {
        let name = path.display().to_string();
        let Ok(src) = std::fs::read_to_string(path) else {
            failures.push(format!("{name}: unreadable"));
            continue;
        };
        let module = match sim_core::ptx::compile(&src) {
            Ok(m) => m,
            Err(diags) => {
                failures.push(render(&name, &src, &diags));
                continue;
            }
        };
        let emitted = sim_core::ptx::emit(&module);
        let again = match sim_core::ptx::compile(&emitted) {
            Ok(m) => m,
            Err(diags) => {
                failures
                    .push(format!("{name}: emitted PTX does not compile:\n{}", render("emitted", &emitted, &diags)));
                continue;
            }
        };
        if again.to_string() != module.to_string() {
            let first = module.to_string().lines().zip(again.to_string().lines()).position(|(a, b)| a != b);
            failures.push(format!("{name}: text form differs after the round trip (first at line {first:?})"));
        } else if again != module {
            failures.push(format!("{name}: IR differs structurally after the round trip"));
        }
    }
    assert!(failures.is_empty(), "{} of {} files failed:\n{}", failures.len(), files.len(), failures.join("\n"));
}
