//! Every kernel of the corpus, launched with the setup RegLab proposes for it (one or two CTAs,
//! a small budget), ends with a defined outcome — outputs, a fault, an exhausted budget, an
//! unsupported instruction, a trap or a deadlock — and never panics. The tally is printed.

#![allow(clippy::print_stderr, reason = "the test reports each kernel's outcome and the tally")]

use std::collections::BTreeMap;

use reglab_tests::{corpus_dir, ptx_files};
use sim_core::exec::{propose_launch, Run, RunOptions};

#[test]
fn every_corpus_kernel_ends_with_a_defined_outcome() {
    let mut tally: BTreeMap<String, usize> = BTreeMap::new();
    let mut panics = Vec::new();
    for path in ptx_files(&corpus_dir()) {
        let Ok(src) = std::fs::read_to_string(&path) else { continue };
        let Ok(module) = sim_core::ptx::compile(&src) else { continue };
        for kernel in sim_core::exec::plan::kernel_names(&module) {
            let mut setup = propose_launch(&module, &kernel);
            setup.grid = vec![setup.grid.first().copied().unwrap_or(1).min(2), 1, 1];
            let outcome = std::panic::catch_unwind(|| {
                let options = RunOptions { budget: Some(20_000), ..RunOptions::default() };
                match Run::new(&module, &setup, options).and_then(|mut r| r.run_to_end()) {
                    Ok(_) => "ok".to_string(),
                    Err(e) => {
                        let detail = match &e {
                            sim_core::exec::ExecError::Unsupported { reason, .. } => format!(": {reason}"),
                            sim_core::exec::ExecError::InvalidLaunch { message } => format!(": {message}"),
                            sim_core::exec::ExecError::Fault(f) => {
                                format!(": {:?} {} {} `{}`", f.reason, f.space.name(), f.address, f.site.instruction)
                            }
                            _ => String::new(),
                        };
                        format!("{}{detail}", e.kind())
                    }
                }
            });
            match outcome {
                Ok(kind) => {
                    eprintln!("{}::{kernel}: {kind}", path.display());
                    let key = kind.split(':').next().unwrap_or_default().to_string();
                    *tally.entry(key).or_default() += 1;
                }
                Err(_) => panics.push(format!("{}::{kernel}", path.display())),
            }
        }
    }
    eprintln!("outcomes: {tally:?}");
    assert!(panics.is_empty(), "the executor panicked on: {panics:#?}");
    assert!(tally.values().sum::<usize>() > 100, "too few kernels ran: {tally:?}");
}
