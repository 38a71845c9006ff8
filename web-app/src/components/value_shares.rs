//! Gilani's value statistics in the results (paper Fig. 1): per scheme that records value
//! summaries (`composite`, `scalar-unit`, `sliced`, `gilani`), the share of register-writing
//! instructions whose result is the same in every lane (redundant across the warp) and the share
//! of integer register values that fit 16 bits, beside the paper's ranges. A plain table
//! (`#value-shares`) from the run's [`Comparison`]; nothing when no run has the figures.
//!
//! ```text
//! Scheme     Redundant across the warp   Integer values fitting 16 bits
//! gilani     57.1% (4 of 7)              50.0% (2 of 4)
//! paper      10–50%                      80–90% (many INT benchmarks)
//! ```

use sim_core::timing::summary::{Comparison, ValueShares};
use yew::prelude::*;

/// The paper's figures, the last row of the table.
const PAPER: [&str; 3] = ["paper (Gilani et al. Fig. 1)", "10–50%", "80–90% (many INT benchmarks)"];

fn cell(share: f64, of: u64) -> String {
    let n = (share * of as f64).round();
    format!("{:.1}% ({n} of {of})", 100.0 * share)
}

/// The table's rows: one per run with value shares, then the paper's (none without runs).
pub fn rows(cmp: &Comparison) -> Vec<[String; 3]> {
    let mut out: Vec<[String; 3]> = cmp
        .rows
        .iter()
        .filter_map(|r| r.value_shares.map(|v: ValueShares| (r, v)))
        .map(|(r, v)| [r.scheme.clone(), cell(v.redundant, v.redundant_of), cell(v.integer_16bit, v.integer_values)])
        .collect();
    if !out.is_empty() {
        out.push(PAPER.map(String::from));
    }
    out
}

/// The value-shares table of `cmp` (empty HTML when no run reports them).
pub fn value_shares(cmp: &Comparison) -> Html {
    crate::components::paper_figures::paper_figures(
        "value-shares",
        "Value statistics (Gilani et al.)",
        &["Scheme", "Redundant across the warp", "Integer values fitting 16 bits"],
        rows(cmp).into_iter().map(Vec::from).collect(),
        "Redundant: instructions whose result is the same in every executed lane, of those that wrote a register. \
         16-bit: integer register values (32-bit units) that fit 16 bits signed, of the integer values written; \
         floats are not counted.",
    )
}

#[cfg(test)]
mod tests {
    use sim_core::timing::summary::{Comparison, SchemeSummary, ValueShares};

    use super::rows;

    fn row(scheme: &str, shares: Option<ValueShares>) -> SchemeSummary {
        SchemeSummary {
            scheme: scheme.to_owned(),
            outcome: "finished".to_owned(),
            cycles: 37,
            warp_ipc: 0.0,
            thread_ipc: 0.0,
            speedup: 1.0,
            registers_per_thread: 8,
            ctas_per_sm: 1,
            occupancy: 0.5,
            stalls: Vec::new(),
            rf_reads: 0,
            rf_writes: 0,
            bank_conflicts: 0,
            structures: Vec::new(),
            energy_nj: 0.0,
            value_shares: shares,
            single_use: None,
        }
    }

    /// The baseline has no shares (no row); gilani_int_share.ptx's composite run: 4 of 7
    /// instructions uniform (57.1%), 2 of 4 integer values within 16 bits (50.0%); then the paper.
    #[test]
    fn one_row_per_run_with_shares_then_the_paper() {
        let shares = ValueShares { redundant: 4.0 / 7.0, redundant_of: 7, integer_16bit: 0.5, integer_values: 4 };
        let cmp = Comparison {
            reference: "baseline".to_owned(),
            rows: vec![row("baseline", None), row("composite", Some(shares))],
        };
        let got = rows(&cmp);
        assert_eq!(got.len(), 2);
        assert_eq!(got[0], ["composite", "57.1% (4 of 7)", "50.0% (2 of 4)"].map(String::from));
        assert_eq!(got[1][1], "10–50%");
        assert!(rows(&Comparison { reference: String::new(), rows: vec![row("baseline", None)] }).is_empty());
    }
}
