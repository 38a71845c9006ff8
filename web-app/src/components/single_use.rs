//! DeMO's baseline measurements in the results (Mohammadpur-Fard et al. Fig. 1 and 2): for the
//! baseline run, the register-file accesses (reads and writes) that belong to single-use memory
//! values and the share of bank conflicts those accesses are involved in, beside the paper's
//! figures, so a user sees what DeMO could remove before choosing it. A plain table
//! (`#single-use`) from the run's [`Comparison`]; nothing when no row counted them (the page asks
//! for them whenever `baseline` is among the schemes).
//!
//! ```text
//! Scheme     RF accesses of single-use values   Bank conflicts involving them   Their own waits
//! baseline   6.6% (512 accesses)                23.9% (1,952 of 8,156)          …
//! paper      ~26%                               > 25%
//! ```

use sim_core::timing::summary::Comparison;
use yew::prelude::*;

use crate::components::chart::format::{grouped, percent};

/// The paper's figures, the last row of the table.
const PAPER: [&str; 4] = ["paper (DeMO Fig. 1, 2)", "~26%", "> 25%", ""];

/// The table's rows: one per run that counted single-use accesses, then the paper's (none without
/// runs).
pub fn rows(cmp: &Comparison) -> Vec<[String; 4]> {
    let mut out: Vec<[String; 4]> = cmp
        .rows
        .iter()
        .filter_map(|r| r.single_use.as_ref().map(|u| (r, u)))
        .map(|(r, u)| {
            [
                r.scheme.clone(),
                format!("{} ({} accesses)", percent(u.access_share), grouped(u.accesses)),
                format!(
                    "{} ({} of {})",
                    percent(u.conflict_share),
                    grouped(u.bank_conflicts),
                    grouped(r.bank_conflicts)
                ),
                grouped(u.waits),
            ]
        })
        .collect();
    if !out.is_empty() {
        out.push(PAPER.map(String::from));
    }
    out
}

/// The single-use table of `cmp` (empty HTML when no run counted them).
pub fn single_use(cmp: &Comparison) -> Html {
    crate::components::paper_figures::paper_figures(
        "single-use",
        "Single-use memory values (DeMO's potential)",
        &["Scheme", "RF accesses of single-use values", "Bank conflicts involving them", "Cycles they waited"],
        rows(cmp).into_iter().map(Vec::from).collect(),
        "A single-use memory value is a loaded register read exactly once, by an instruction DeMO could give it as a \
         direct memory operand. A bank conflict involves such a value when one of its accesses competed for the bank \
         in that cycle (granted or waiting). See docs/fidelity/demo.md.",
    )
}

#[cfg(test)]
mod tests {
    use sim_core::timing::summary::{Comparison, SchemeSummary, SingleUseShare};

    use super::rows;

    fn row(scheme: &str, single_use: Option<SingleUseShare>) -> SchemeSummary {
        SchemeSummary {
            scheme: scheme.to_owned(),
            outcome: "finished".to_owned(),
            cycles: 0,
            warp_ipc: 0.0,
            thread_ipc: 0.0,
            speedup: 1.0,
            registers_per_thread: 8,
            ctas_per_sm: 1,
            occupancy: 0.5,
            stalls: Vec::new(),
            rf_reads: 0,
            rf_writes: 0,
            bank_conflicts: 8156,
            structures: Vec::new(),
            energy_nj: 0.0,
            value_shares: None,
            single_use,
        }
    }

    /// vector_add's baseline on turing-rtx2060, 2 SMs (cli/tests/run_cli.rs): 512 accesses, 6.6%;
    /// 1952 of 8156 conflicts = 23.9%. A row without the figures gets no line; the paper's closes.
    #[test]
    fn the_baseline_row_and_the_paper() {
        let share = SingleUseShare {
            accesses: 512,
            access_share: 512.0 / 7808.0,
            bank_conflicts: 1952,
            conflict_share: 1952.0 / 8156.0,
            waits: 3,
        };
        let cmp = Comparison {
            reference: "baseline".to_owned(),
            rows: vec![row("baseline", Some(share)), row("demo", None)],
        };
        let r = rows(&cmp);
        assert_eq!(r.len(), 2);
        assert_eq!(r[0][0], "baseline");
        assert_eq!(r[0][1], "6.6% (512 accesses)");
        assert_eq!(r[0][2], "23.9% (1,952 of 8,156)");
        assert_eq!(r[1][1], "~26%");
        assert!(rows(&Comparison { reference: "baseline".to_owned(), rows: vec![row("demo", None)] }).is_empty());
    }
}
