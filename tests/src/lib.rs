//! Shared helpers for RegLab's workspace-level tests: where the third-party PTX corpus is, and the
//! file-test convention (`tests/cases/<area>/<name>.ptx` with a sibling `.expected`, `BLESS=1` to
//! regenerate).

pub mod analysis_dump;
pub mod scheme_dump;

use std::path::{Path, PathBuf};

pub mod nvidia_occupancy;

/// The PTX corpus directory: `$REGLAB_CORPUS`, else `../shared/corpus/ptx` beside the repository.
pub fn corpus_dir() -> PathBuf {
    if let Some(dir) = std::env::var_os("REGLAB_CORPUS") {
        return PathBuf::from(dir);
    }
    repo_root().join("..").join("shared").join("corpus").join("ptx")
}

/// The repository root (the workspace directory).
pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The bundled examples (`static/examples/*.ptx`) that have a test launch setup
/// (`tests/cases/exec/examples/NAME.launch.json`): `(name, PTX path, launch path)`, by name.
pub fn bundled_examples() -> Vec<(String, PathBuf, PathBuf)> {
    let root = repo_root();
    let launches = root.join("tests").join("cases").join("exec").join("examples");
    ptx_files(&root.join("static").join("examples"))
        .into_iter()
        .filter_map(|p| {
            let stem = p.file_stem()?.to_str()?.to_string();
            let launch = launches.join(format!("{stem}.launch.json"));
            launch.exists().then_some((stem, p, launch))
        })
        .collect()
}

/// Every `.ptx` file below `dir`, sorted by path.
pub fn ptx_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    collect(dir, &mut out);
    out.sort();
    out
}

fn collect(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            collect(&path, out);
        } else if path.extension().is_some_and(|e| e == "ptx") {
            out.push(path);
        }
    }
}

pub mod bfs;
pub mod exec_case;
pub mod propose_case;
pub mod rng;
pub mod timing_case;
pub mod units;
