//! The IR verifier (placeholder until the checks land: accepts everything).

use alloc::vec::Vec;

use crate::diagnostic::Diagnostic;

use super::Module;

/// Checks the IR invariants; returns the problems found.
pub fn verify(module: &Module) -> Vec<Diagnostic> {
    let _ = module;
    Vec::new()
}
