//! One vocabulary for comparing schemes, computed once from their reports and used by the CLI
//! table, the CSV export and the page's charts: the speed-up over a chosen reference (the run
//! labelled `baseline` by default, else the first run, never silently "the first" when a
//! baseline exists), the fraction of scheduler cycles of every stall cause (structural stalls
//! named, nothing lumped into "other"), and accesses and energy per register-file structure.
//!
//! ```text
//! compare(&reports, None)          // reference: "baseline" if present, else reports[0]
//! rows[i].speedup   = reference.cycles / reports[i].cycles   (1.25 = 25 % fewer cycles)
//! rows[i].stalls    = [("issued", 0.41), ("scheme_specific", 0.0), …, ("structural", 0.07), …]
//! rows[i].structures= [{ name: "main_rf", reads, writes, energy_nj }, { name: "rfc", … }]
//! rows[i].value_shares = Some({ redundant: 0.31, integer_16bit: 0.84, … })  // Gilani's family
//! rows[i].single_use= { accesses, access_share, bank_conflicts, conflict_share, waits }  // asked for
//! ```
//!
//! The value shares are the statistics Gilani et al. report (Fig. 1): instructions whose result
//! is the same in every lane, and integer register values that fit 16 bits. They describe the
//! original kernel, not a scheme, and come from the value statistics of the streams
//! ([`crate::timing::value_stats::ValueReport::lane_values`]): every row of a run that recorded
//! the functional run's value summaries has them (the CLI and the page record them for every run;
//! the library when [`crate::timing::TimingOptions::values`] is set or a scheme models values).
//! The family's scheme counters of the same names ([`VALUE_INSTRUCTIONS`], …) count what that
//! scheme issued: the same figures, except that a fused pair of `composite` counts once.
//!
//! A quick-mode run ([`crate::timing::TimingOptions::quick_waves`]) is summarised by its
//! estimates: `cycles`, the IPCs and the speed-up are the whole sequence's as its
//! [`crate::timing::report::CtaSample`] estimates them, `outcome` is `"estimate"`; every count
//! (register-file accesses, energy, stalls) is the sample's, the same CTAs in every run.
//!
//! `single_use` (DeMO's Fig. 1 and 2) is present only for a run that counted it: the baseline
//! under [`crate::timing::TimingOptions::single_use_attribution`].

use alloc::string::String;
use alloc::vec::Vec;

use serde::{Deserialize, Serialize};

use crate::timing::report::{Outcome, Report, StallCause};

/// The label of the default reference.
pub const DEFAULT_REFERENCE: &str = "baseline";

/// Scheme counter: issued instructions that wrote at least one summarised register unit.
pub const VALUE_INSTRUCTIONS: &str = "value_instructions";
/// Scheme counter: of those, instructions whose every written unit was uniform across the lanes.
pub const UNIFORM_RESULT_INSTRUCTIONS: &str = "uniform_result_instructions";
/// Scheme counter: register units written by instructions that write integers.
pub const INTEGER_VALUES: &str = "integer_values";
/// Scheme counter: of those, units whose values all fit 16 bits signed.
pub const INTEGER_16BIT_VALUES: &str = "integer_16bit_values";

/// Gilani et al.'s value statistics of one run's kernel (Fig. 1), from its streams' value summaries.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct ValueShares {
    /// Instructions whose result was the same in every executed lane, of the instructions that
    /// wrote a register (`redundant_of`), 0 to 1 (paper: 10–50 %).
    pub redundant: f64,
    /// The denominator of `redundant`: instructions that wrote a summarised register.
    pub redundant_of: u64,
    /// Integer register values (32-bit units) that fit 16 bits signed, of the integer values
    /// written (`integer_values`), 0 to 1 (paper: 80–90 % for many INT benchmarks).
    pub integer_16bit: f64,
    /// The denominator of `integer_16bit`.
    pub integer_values: u64,
}

/// Accesses and energy of one register-file structure in one run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct StructureTotal {
    /// Structure name (`main_rf`, `rfc`, `ob`, …), as the scheme reports it.
    pub name: String,
    /// Warp-register reads.
    pub reads: u64,
    /// Warp-register writes.
    pub writes: u64,
    /// Energy of its accesses in nJ.
    pub energy_nj: f64,
}

/// One stall cause's share of a run's scheduler cycles.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct StallShare {
    /// The cause's report name (`operand_collection`, `structural`, …).
    pub cause: String,
    /// The label charts and tables show (`operand collection`, …).
    pub label: String,
    /// Scheduler-cycles of the cause.
    pub cycles: u64,
    /// Fraction of all scheduler-cycles, 0 to 1.
    pub fraction: f64,
}

/// The headline figures of one run beside the reference.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SchemeSummary {
    /// The run's label (`rfc-ob:rfc_entries=4`).
    pub scheme: String,
    /// `finished`, `budget_exceeded` or `running`.
    pub outcome: String,
    /// Core cycles.
    pub cycles: u64,
    /// Warp-instructions per core cycle.
    pub warp_ipc: f64,
    /// Thread-instructions per core cycle.
    pub thread_ipc: f64,
    /// Reference cycles / this run's cycles (0 when either is 0); equal to the IPC ratio when
    /// both runs issue the same instructions.
    pub speedup: f64,
    /// Registers per thread of the first kernel.
    pub registers_per_thread: u32,
    /// Resident CTAs per SM of the first kernel.
    pub ctas_per_sm: u32,
    /// Theoretical occupancy of the first kernel, 0 to 1.
    pub occupancy: f64,
    /// Every stall cause the report lists, in report order.
    pub stalls: Vec<StallShare>,
    /// Register-file warp-register reads, all structures.
    pub rf_reads: u64,
    /// Register-file warp-register writes, all structures.
    pub rf_writes: u64,
    /// Bank conflicts (request cycles lost).
    pub bank_conflicts: u64,
    /// Accesses and energy per structure, in the scheme's order.
    pub structures: Vec<StructureTotal>,
    /// Register-file energy in nJ, all structures.
    pub energy_nj: f64,
    /// Gilani's value statistics, for schemes that report their counters (others: none).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value_shares: Option<ValueShares>,
    /// The accesses of single-use memory values and the bank conflicts they are involved in,
    /// when the run counted them (absent from the JSON otherwise).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub single_use: Option<SingleUseShare>,
}

/// DeMO's baseline measurements (Mohammadpur-Fard et al. Fig. 1 and 2) of one run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SingleUseShare {
    /// Register-file accesses (warp-register reads + writes) of single-use memory values.
    pub accesses: u64,
    /// Their share of all register-file accesses, 0 to 1 (paper: ~26 %).
    pub access_share: f64,
    /// Bank conflicts a single-use access was involved in (same unit as `bank_conflicts`).
    pub bank_conflicts: u64,
    /// Their share of all bank conflicts, 0 to 1 (paper: > 25 %).
    pub conflict_share: f64,
    /// Request cycles the single-use accesses themselves waited (a part of `bank_conflicts`).
    pub waits: u64,
}

/// The single-use figures of `r`, if it counted them (its `single_use_bank_conflicts` counter).
pub fn single_use_share(r: &Report) -> Option<SingleUseShare> {
    let get = |name: &str| counter(r, name);
    let conflicts = get("single_use_bank_conflicts")?;
    let accesses = get("single_use_reads").unwrap_or(0) + get("single_use_writes").unwrap_or(0);
    let rf = &r.register_file;
    Some(SingleUseShare {
        accesses,
        access_share: share(accesses, rf.reads + rf.writes),
        bank_conflicts: conflicts,
        conflict_share: share(conflicts, rf.bank_conflicts),
        waits: get("single_use_waits").unwrap_or(0),
    })
}

/// The runs of one comparison, summarised against one reference.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Comparison {
    /// Label of the reference run.
    pub reference: String,
    /// One summary per report, in report order.
    pub rows: Vec<SchemeSummary>,
}

/// The index of the reference: the run labelled `chosen` if given and present, else the one
/// labelled `baseline`, else the first.
pub fn reference_index(reports: &[Report], chosen: Option<&str>) -> usize {
    let find = |label: &str| reports.iter().position(|r| r.scheme == label);
    chosen.and_then(find).or_else(|| find(DEFAULT_REFERENCE)).unwrap_or(0)
}

/// The outcome's short name.
pub fn outcome_name(o: &Outcome) -> &'static str {
    match o {
        Outcome::Finished => "finished",
        Outcome::BudgetExceeded { .. } => "budget_exceeded",
        Outcome::Running => "running",
    }
}

/// The stall causes of a run with their shares: every cause the report lists (the scheme causes
/// only when non-zero, as in the JSON).
pub fn stall_shares(r: &Report) -> Vec<StallShare> {
    let total = r.stalls.total();
    r.stalls
        .iter()
        .filter(|&(c, n)| n > 0 || !c.is_scheme_cause())
        .map(|(c, n)| StallShare {
            cause: String::from(c.name()),
            label: String::from(c.label()),
            cycles: n,
            fraction: share(n, total),
        })
        .collect()
}

/// Accesses and energy per structure.
pub fn structure_totals(r: &Report) -> Vec<StructureTotal> {
    r.register_file
        .scheme
        .structures
        .iter()
        .map(|s| StructureTotal { name: s.name.clone(), reads: s.reads, writes: s.writes, energy_nj: s.energy_nj() })
        .collect()
}

/// The value of `r`'s scheme counter `name`, if it reports one.
fn counter(r: &Report, name: &str) -> Option<u64> {
    r.register_file.scheme.counters.iter().find(|c| c.name == name).map(|c| c.value)
}

/// `n / of`, 0 when `of` is 0 (a share of nothing is no share, not NaN).
fn share(n: u64, of: u64) -> f64 {
    if of == 0 {
        0.0
    } else {
        n as f64 / of as f64
    }
}

/// Gilani's value statistics of `r`'s kernel, when its run recorded value summaries.
pub fn value_shares(r: &Report) -> Option<ValueShares> {
    let v = r.values.lane_values?;
    Some(ValueShares {
        redundant: share(v.uniform_result_instructions, v.value_instructions),
        redundant_of: v.value_instructions,
        integer_16bit: share(v.integer_16bit_values, v.integer_values),
        integer_values: v.integer_values,
    })
}

/// Speed-up of a run of `cycles` over a reference of `reference_cycles`.
pub fn speedup(reference_cycles: u64, cycles: u64) -> f64 {
    if cycles == 0 || reference_cycles == 0 {
        0.0
    } else {
        reference_cycles as f64 / cycles as f64
    }
}

/// One run's summary against a reference of `reference_cycles`.
pub fn summarise(r: &Report, reference_cycles: u64) -> SchemeSummary {
    let k = r.kernels.first();
    let (cycles, warp_ipc, thread_ipc) = headline(r);
    SchemeSummary {
        scheme: r.scheme.clone(),
        outcome: String::from(if r.sample.is_some() { "estimate" } else { outcome_name(&r.outcome) }),
        cycles,
        warp_ipc,
        thread_ipc,
        speedup: speedup(reference_cycles, cycles),
        registers_per_thread: k.map_or(0, |k| k.registers_per_thread),
        ctas_per_sm: k.map_or(0, |k| k.ctas_per_sm),
        occupancy: k.map_or(0.0, |k| k.theoretical_occupancy),
        stalls: stall_shares(r),
        rf_reads: r.register_file.reads,
        rf_writes: r.register_file.writes,
        bank_conflicts: r.register_file.bank_conflicts,
        structures: structure_totals(r),
        energy_nj: r.register_file.energy_total_nj,
        value_shares: value_shares(r),
        single_use: single_use_share(r),
    }
}

/// Cycles, warp-IPC and thread-IPC of the whole run: the report's, or a quick run's estimates
/// (thread-IPC scaled as the warp-IPC is: the sample's lanes per warp-instruction).
pub fn headline(r: &Report) -> (u64, f64, f64) {
    let (warp, thread) = (r.ipc.warp_instructions_per_cycle, r.ipc.thread_instructions_per_cycle);
    match &r.sample {
        Some(q) => {
            let lanes = if warp > 0.0 { thread / warp } else { 0.0 };
            (q.estimated_cycles, q.estimated_ipc, q.estimated_ipc * lanes)
        }
        None => (r.cycles, warp, thread),
    }
}

/// One line on a quick run's sample, as the CLI and the app print it (`None` for a full run):
/// `timed every 15th wave of CTAs (316 of 4096, 4 waves); whole run ≈ 271307 cycles, warp IPC ≈
/// 17.890; wave IPC 17.379, 17.483, 17.512, 12.092; spread 0.6%`; a refined sample adds
/// ` (the sample of 4 times the waves asked for: the smaller ones spread 10% or more)`.
pub fn sample_line(r: &Report) -> Option<String> {
    let q = r.sample.as_ref()?;
    let waves: Vec<String> = q.wave_ipc.iter().map(|w| alloc::format!("{w:.3}")).collect();
    Some(alloc::format!(
        "timed every {} wave of CTAs ({} of {}, {} waves); whole run ≈ {} cycles, warp IPC ≈ {:.3}; wave IPC {}; spread {:.1}%",
        ordinal(q.every),
        q.simulated_ctas,
        q.total_ctas,
        q.wave_ipc.len(),
        q.estimated_cycles,
        q.estimated_ipc,
        waves.join(", "),
        100.0 * q.spread,
    ) + &match q.refinements {
        0 => String::new(),
        n => alloc::format!(
            " (the sample of {} times the waves asked for: the smaller one{} spread {:.0}% or more)",
            1u64 << n.min(16),
            if n > 1 { "s" } else { "" },
            100.0 * crate::timing::quick_sample::SETTLED_SPREAD
        ),
    })
}

/// A quick run's lines, one per report as (scheme, line), for the CLI and the app: none when no
/// report has a sample (the grid was too small to sample: every figure is exact); else
/// [`sample_line`] for each sampled report and, for one quick mode timed in full after its
/// sample did not settle ([`crate::timing::quick_sample::refine`]), a line saying so.
pub fn quick_lines(reports: &[Report]) -> Vec<(String, String)> {
    if reports.iter().all(|r| r.sample.is_none()) {
        return Vec::new();
    }
    let full = |ctas: u64| {
        alloc::format!(
            "all {ctas} CTAs timed (exact): its sample spread {:.0}% or more, and the larger sample it was given covered the whole grid",
            100.0 * crate::timing::quick_sample::SETTLED_SPREAD
        )
    };
    reports.iter().map(|r| (r.scheme.clone(), sample_line(r).unwrap_or_else(|| full(r.ctas)))).collect()
}

/// `2nd`, `3rd`, `11th`, `21st`, …
fn ordinal(n: u64) -> String {
    let suffix = match (n % 10, n % 100) {
        (_, 11..=13) => "th",
        (1, _) => "st",
        (2, _) => "nd",
        (3, _) => "rd",
        _ => "th",
    };
    alloc::format!("{n}{suffix}")
}

/// Every run summarised against the reference ([`reference_index`] of `chosen`).
pub fn compare(reports: &[Report], chosen: Option<&str>) -> Comparison {
    let reference = reports.get(reference_index(reports, chosen));
    let cycles = reference.map_or(0, |r| headline(r).0);
    Comparison {
        reference: reference.map(|r| r.scheme.clone()).unwrap_or_default(),
        rows: reports.iter().map(|r| summarise(r, cycles)).collect(),
    }
}

impl SchemeSummary {
    /// The share of `cause` (0 when the report does not list it).
    pub fn stall(&self, cause: StallCause) -> f64 {
        self.stalls.iter().find(|s| s.cause == cause.name()).map_or(0.0, |s| s.fraction)
    }
}

impl Comparison {
    /// Every stall cause listed by any row, in report order (the columns of a table).
    pub fn stall_causes(&self) -> Vec<StallCause> {
        StallCause::ALL
            .iter()
            .copied()
            .filter(|c| self.rows.iter().any(|r| r.stalls.iter().any(|s| s.cause == c.name())))
            .collect()
    }

    /// Every structure named by any row, in first-seen order (the segments of a stacked bar).
    pub fn structure_names(&self) -> Vec<String> {
        let mut names: Vec<String> = Vec::new();
        for s in self.rows.iter().flat_map(|r| r.structures.iter()) {
            if !names.contains(&s.name) {
                names.push(s.name.clone());
            }
        }
        names
    }
}

#[cfg(test)]
#[path = "summary_tests.rs"]
mod tests;
