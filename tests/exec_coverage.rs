//! Which corpus instructions the executor gives meaning to: every instruction of every function
//! of the corpus is decoded; those left unsupported are listed with their reason, and must be
//! only the ones that need hardware RegLab does not model.

#![allow(clippy::print_stderr, reason = "the test reports what stays unsupported")]

use std::collections::BTreeMap;

use reglab_tests::{corpus_dir, ptx_files};
use sim_core::exec::program::Op;

#[test]
fn corpus_instructions_have_meaning_unless_they_need_special_hardware() {
    let mut unsupported: BTreeMap<String, usize> = BTreeMap::new();
    for path in ptx_files(&corpus_dir()) {
        let Ok(src) = std::fs::read_to_string(&path) else { continue };
        let Ok(module) = sim_core::ptx::compile(&src) else { continue };
        let mut global = sim_core::exec::memory::GlobalMemory::new(1 << 33);
        let Ok(image) =
            sim_core::exec::image::build(&module, &mut global, sim_core::exec::memory::AddressLayout::bits64())
        else {
            continue;
        };
        for (h, f) in module.functions.iter() {
            if f.body.is_none() {
                continue;
            }
            let prog = sim_core::exec::decode::build_program(&module, &image, h);
            for func in prog.funcs.iter().take(1) {
                for di in &func.code {
                    if let Op::Unsupported(reason) = &di.op {
                        *unsupported.entry(reason.clone()).or_default() += 1;
                    }
                }
            }
        }
    }
    for (reason, n) in &unsupported {
        eprintln!("{n:5}  {reason}");
    }
    let allowed = ["texture", "wgmma"];
    let unexpected: Vec<&String> = unsupported.keys().filter(|r| !allowed.iter().any(|a| r.contains(a))).collect();
    assert!(unexpected.is_empty(), "unexpectedly unsupported: {unexpected:?}");
}
