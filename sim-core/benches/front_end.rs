//! Front-end benchmarks on the largest corpus file (deal.II/Kokkos matrix-free kernels, 48k lines
//! of PTX 8.3): lexing, parsing, parse + lower, the whole `compile` (parse + lower + verify) and
//! emitting the IR back as PTX.
//!
//! `cargo bench -p sim-core --bench front_end` (the corpus is found through `$REGLAB_CORPUS` or at
//! `../shared/corpus/ptx` beside the repository).

use std::path::PathBuf;

fn main() {
    divan::main();
}

const LARGEST: &str = "ptx-90-parser/matrix_free_device_matrix_vector_04.1.sm_80.ptx";

fn source() -> String {
    let dir = std::env::var_os("REGLAB_CORPUS").map(PathBuf::from).unwrap_or_else(|| {
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..").join("..").join("shared").join("corpus").join("ptx")
    });
    std::fs::read_to_string(dir.join(LARGEST)).unwrap_or_default()
}

#[divan::bench]
fn lex(bencher: divan::Bencher) {
    let src = source();
    bencher.counter(divan::counter::BytesCount::new(src.len())).bench(|| sim_core::ptx::lexer::tokenize(&src));
}

#[divan::bench]
fn parse(bencher: divan::Bencher) {
    let src = source();
    bencher.counter(divan::counter::BytesCount::new(src.len())).bench(|| sim_core::ptx::parse(&src).0.is_some());
}

#[divan::bench]
fn parse_and_lower(bencher: divan::Bencher) {
    let src = source();
    bencher.counter(divan::counter::BytesCount::new(src.len())).bench(|| {
        let (ast, _) = sim_core::ptx::parse(&src);
        ast.map(|ast| sim_core::ptx::lower(&ast).is_ok())
    });
}

#[divan::bench]
fn compile(bencher: divan::Bencher) {
    let src = source();
    bencher.counter(divan::counter::BytesCount::new(src.len())).bench(|| sim_core::ptx::compile(&src).is_ok());
}

#[divan::bench]
fn emit(bencher: divan::Bencher) {
    let module = sim_core::ptx::compile(&source()).ok();
    bencher.bench(|| module.as_ref().map(sim_core::ptx::emit));
}
