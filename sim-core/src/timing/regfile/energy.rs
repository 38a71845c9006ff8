//! Energy per register-file access, shared by every scheme (SCHEMES.md §5, Gilani et al. Table 4).
//!
//! ```text
//! main RF: 2.8e-2 nJ per 32-bit register access → one warp-register access on a 32-wide warp
//!          = 32 × 2.8e-2 = 0.896 nJ
//! ```
//!
//! Definition: a bank entry is one warp register (all lanes), and a bank reads or writes the whole
//! entry whatever the active mask, so a warp-register access costs `warp size ×` the per-32-bit
//! figure. Schemes report accesses in warp registers and their energy with this model.

use serde::{Deserialize, Serialize};

/// Energy of one 32-bit register access per structure, in nJ.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct EnergyModel {
    /// Main register file (Gilani Table 4: 2.8e-2 nJ).
    pub main_rf_nj: f64,
    /// Register-file cache (SCHEMES.md §5 **A**: 0.1 × main RF).
    pub rfc_nj: f64,
    /// Composite register file (Gilani Table 4: 7.1e-4 nJ).
    pub composite_rf_nj: f64,
    /// Scalar register file (Gilani Table 4: 1.4e-3 nJ).
    pub scalar_rf_nj: f64,
    /// Sliced main register file, half width (Gilani Table 4: 1.4e-2 nJ).
    pub sliced_rf_nj: f64,
}

impl Default for EnergyModel {
    fn default() -> Self {
        EnergyModel {
            main_rf_nj: 2.8e-2,
            rfc_nj: 2.8e-3,
            composite_rf_nj: 7.1e-4,
            scalar_rf_nj: 1.4e-3,
            sliced_rf_nj: 1.4e-2,
        }
    }
}

impl EnergyModel {
    /// Energy of one warp-register access of a structure whose 32-bit access costs `per_32bit_nj`.
    pub fn per_warp_register(per_32bit_nj: f64, warp_size: u32) -> f64 {
        per_32bit_nj * f64::from(warp_size)
    }
}
