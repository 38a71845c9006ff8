//! Gilani's value statistics in the results (paper Fig. 1): the share of register-writing
//! instructions whose result is the same in every lane (redundant across the warp) and the share
//! of integer register values that fit 16 bits, beside the paper's ranges. They describe the
//! kernel, not a scheme (`sim_core::timing::summary::value_shares`): every run the page starts
//! records them, and its schemes agree, so the table has one row for the kernel (a row per scheme
//! should they ever differ). A plain table (`#value-shares`) from the run's [`Comparison`];
//! nothing when no run has the figures (a sweep's points).
//!
//! ```text
//! Run                       Redundant across the warp   Integer values fitting 16 bits
//! this kernel (3 schemes)   57.1% (4 of 7)              50.0% (2 of 4)
//! paper                     10–50%                      80–90% (many INT benchmarks)
//! ```

use sim_core::timing::summary::{Comparison, ValueShares};
use yew::prelude::*;

/// The paper's figures, the last row of the table.
const PAPER: [&str; 3] = ["paper (Gilani et al. Fig. 1)", "10–50%", "80–90% (many INT benchmarks)"];

fn cell(share: f64, of: u64) -> String {
    let n = (share * of as f64).round();
    format!("{:.1}% ({n} of {of})", 100.0 * share)
}

/// The table's rows: the kernel's (or one per run should the runs differ), then the paper's
/// (none without runs that have shares).
pub fn rows(cmp: &Comparison) -> Vec<[String; 3]> {
    let runs: Vec<(&str, ValueShares)> =
        cmp.rows.iter().filter_map(|r| r.value_shares.map(|v: ValueShares| (r.scheme.as_str(), v))).collect();
    let Some(&(_, first)) = runs.first() else { return Vec::new() };
    let row = |name: String, v: ValueShares| {
        [name, cell(v.redundant, v.redundant_of), cell(v.integer_16bit, v.integer_values)]
    };
    let mut out = if runs.iter().all(|&(_, v)| v == first) {
        let n = runs.len();
        vec![row(format!("this kernel ({n} scheme{})", if n == 1 { "" } else { "s" }), first)]
    } else {
        runs.iter().map(|&(name, v)| row(name.to_owned(), v)).collect()
    };
    out.push(PAPER.map(String::from));
    out
}

/// The value-shares table of `cmp` (empty HTML when no run reports them).
pub fn value_shares(cmp: &Comparison) -> Html {
    crate::components::paper_figures::paper_figures(
        "value-shares",
        "Value statistics (Gilani et al.)",
        &["Run", "Redundant across the warp", "Integer values fitting 16 bits"],
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

    /// gilani_int_share.ptx: 4 of 7 instructions uniform (57.1%), 2 of 4 integer values within
    /// 16 bits (50.0%). Two runs that agree give one kernel row, then the paper; a run without
    /// shares (a sweep point) adds nothing; runs that disagree get a row each.
    #[test]
    fn one_row_for_the_kernel_then_the_paper() {
        let shares = ValueShares { redundant: 4.0 / 7.0, redundant_of: 7, integer_16bit: 0.5, integer_values: 4 };
        let cmp = Comparison {
            reference: "baseline".to_owned(),
            rows: vec![row("baseline", Some(shares)), row("composite", Some(shares)), row("sweep", None)],
        };
        let got = rows(&cmp);
        assert_eq!(got.len(), 2);
        assert_eq!(got[0], ["this kernel (2 schemes)", "57.1% (4 of 7)", "50.0% (2 of 4)"].map(String::from));
        assert_eq!(got[1][1], "10–50%");
        assert!(rows(&Comparison { reference: String::new(), rows: vec![row("baseline", None)] }).is_empty());
        let other = ValueShares { redundant: 0.5, redundant_of: 8, ..shares };
        let split = Comparison { reference: String::new(), rows: vec![row("a", Some(shares)), row("b", Some(other))] };
        let got = rows(&split);
        assert_eq!((got.len(), got[0][0].as_str(), got[1][1].as_str()), (3, "a", "50.0% (4 of 8)"));
    }
}
