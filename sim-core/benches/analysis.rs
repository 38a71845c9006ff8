//! Static analyses of the corpus's largest file (48k lines of deal.II/Kokkos PTX for sm_80, 94
//! functions): compiling it, and running every analysis on every function.
//!
//! `cargo bench -p sim-core --bench analysis` (the corpus is `$REGLAB_CORPUS` or
//! `../shared/corpus/ptx` beside the repository).

use std::path::PathBuf;

use sim_core::analysis::{AnalysisOptions, Annotations, ModuleAnalysis};

const FILE: &str = "ptx-90-parser/matrix_free_device_matrix_vector_04.1.sm_80.ptx";

fn main() {
    divan::main();
}

fn source() -> String {
    let dir = std::env::var_os("REGLAB_CORPUS")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/corpus/ptx"));
    std::fs::read_to_string(dir.join(FILE)).unwrap_or_default()
}

#[divan::bench(sample_count = 10)]
fn compile_48k_lines(bencher: divan::Bencher) {
    let src = source();
    bencher.bench(|| sim_core::ptx::compile(divan::black_box(&src)).is_ok());
}

#[divan::bench(sample_count = 10)]
fn analyze_48k_lines(bencher: divan::Bencher) {
    let Ok(module) = sim_core::ptx::compile(&source()) else { return };
    bencher.bench(|| {
        let analysis = ModuleAnalysis::compute(divan::black_box(&module), &AnalysisOptions::default());
        module
            .functions
            .iter()
            .filter_map(|(h, f)| analysis.get(h).map(|a| Annotations::compute(f, a).insts.len()))
            .sum::<usize>()
    });
}
