//! NVIDIA's ptxas as an oracle for the emitter: for every corpus file ptxas accepts, the PTX that
//! RegLab emits from its IR is accepted too and gets exactly the same register count per kernel.
//!
//! Runs only when `REGLAB_PTXAS` names a ptxas binary (see SETUP.md: the PyPI wheel
//! `nvidia-cuda-nvcc-cu12==12.6.85` carries one; it is never committed). Old files are assembled
//! for sm_52 with `.version` raised to 6.0 (ptxas 12.6 accepts sm_50…sm_90, PTX ≤ 8.5), the same
//! rewrite applied to the original and the emitted text. File tests under `tests/cases` whose
//! header has a `// ptxas: sm_XX` line are checked the same way, unchanged, for that target (they
//! are the synthetic instruction-coverage files; ptxas must accept them as written too).

use std::path::Path;
use std::process::Command;

use reglab_tests::{corpus_dir, ptx_files, repo_root};

/// The target ptxas is asked for, and the rewritten text.
fn prepare(src: &str) -> (String, String) {
    let mut gpu = String::from("sm_52");
    let mut out = String::new();
    for line in src.lines() {
        let t = line.trim_start();
        if let Some(rest) = t.strip_prefix(".target") {
            let arch = rest.trim().split([',', ' ', '\t']).next().unwrap_or("");
            let num: u32 = arch.trim_start_matches("sm_").trim_end_matches('a').parse().unwrap_or(0);
            if (50..=90).contains(&num) {
                gpu = arch.to_string();
            }
            out.push_str(&format!(".target {gpu}\n"));
        } else if let Some(v) = t.strip_prefix(".version") {
            let major: u32 = v.trim().split('.').next().and_then(|m| m.parse().ok()).unwrap_or(0);
            out.push_str(if major < 6 { ".version 6.0\n" } else { line });
            if major >= 6 {
                out.push('\n');
            }
        } else {
            out.push_str(line);
            out.push('\n');
        }
    }
    (gpu, out)
}

/// `Ok(register counts)` if ptxas accepts `text`.
fn assemble(ptxas: &Path, gpu: &str, text: &str, scratch: &Path) -> Result<Vec<String>, String> {
    std::fs::write(scratch, text).map_err(|e| e.to_string())?;
    let out = Command::new(ptxas)
        .args(["-v", "--gpu-name", gpu])
        .arg(scratch)
        .args(["-o", "/dev/null"])
        .output()
        .map_err(|e| e.to_string())?;
    let log = String::from_utf8_lossy(&out.stderr).into_owned() + &String::from_utf8_lossy(&out.stdout);
    if !out.status.success() {
        return Err(log.lines().find(|l| l.contains("error") || l.contains("fatal")).unwrap_or("").to_string());
    }
    Ok(log
        .lines()
        .filter_map(|l| l.split("Used ").nth(1))
        .map(|s| s.split(',').next().unwrap_or("").to_string())
        .collect())
}

#[test]
fn ptxas_accepts_emitted_ptx_with_the_same_register_counts() {
    let Some(ptxas) = std::env::var_os("REGLAB_PTXAS") else { return };
    let ptxas = Path::new(&ptxas);
    let dir = std::env::temp_dir().join(format!("reglab-ptxas-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap_or_default();
    let (mut compared, mut failures) = (0, Vec::new());
    for path in ptx_files(&corpus_dir()) {
        let Ok(src) = std::fs::read_to_string(&path) else { continue };
        let Ok(module) = sim_core::ptx::compile(&src) else {
            failures.push(format!("{}: does not compile", path.display()));
            continue;
        };
        let (gpu, original) = prepare(&src);
        let (_, emitted) = prepare(&sim_core::ptx::emit(&module));
        let Ok(want) = assemble(ptxas, &gpu, &original, &dir.join("original.ptx")) else { continue };
        compared += 1;
        match assemble(ptxas, &gpu, &emitted, &dir.join("emitted.ptx")) {
            Ok(got) if got == want => {}
            Ok(got) => failures.push(format!("{}: registers {want:?} became {got:?}", path.display())),
            Err(e) => failures.push(format!("{}: ptxas rejects the emitted PTX: {e}", path.display())),
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    assert!(compared > 0, "ptxas at {} accepted no corpus file", ptxas.display());
    assert!(failures.is_empty(), "{} of {compared} files:\n{}", failures.len(), failures.join("\n"));
}

#[test]
fn ptxas_accepts_the_coverage_cases_and_their_emitted_ptx() {
    let Some(ptxas) = std::env::var_os("REGLAB_PTXAS") else { return };
    let ptxas = Path::new(&ptxas);
    let dir = std::env::temp_dir().join(format!("reglab-ptxas-cases-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap_or_default();
    let (mut checked, mut failures) = (0, Vec::new());
    for path in ptx_files(&repo_root().join("tests").join("cases")) {
        let Ok(src) = std::fs::read_to_string(&path) else { continue };
        let Some(gpu) = src.lines().take(3).find_map(|l| l.strip_prefix("// ptxas:")).map(str::trim) else { continue };
        checked += 1;
        let want = match assemble(ptxas, gpu, &src, &dir.join("case.ptx")) {
            Ok(w) => w,
            Err(e) => {
                failures.push(format!("{}: ptxas rejects the case itself: {e}", path.display()));
                continue;
            }
        };
        let Ok(module) = sim_core::ptx::compile(&src) else {
            failures.push(format!("{}: does not compile", path.display()));
            continue;
        };
        match assemble(ptxas, gpu, &sim_core::ptx::emit(&module), &dir.join("emitted.ptx")) {
            Ok(got) if got == want => {}
            Ok(got) => failures.push(format!("{}: registers {want:?} became {got:?}", path.display())),
            Err(e) => failures.push(format!("{}: ptxas rejects the emitted PTX: {e}", path.display())),
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    assert!(checked > 0, "no case has a `// ptxas:` header");
    assert!(failures.is_empty(), "{} of {checked} cases:\n{}", failures.len(), failures.join("\n"));
}
