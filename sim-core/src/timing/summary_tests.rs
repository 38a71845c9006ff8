//! Tests of the comparison vocabulary on hand-made reports.

use alloc::string::String;
use alloc::vec;
use alloc::vec::Vec;

use super::*;
use crate::timing::regfile::StructureStats;
use crate::timing::report::{Ipc, KernelPlacement, OccupancyTimeline, RegisterFileReport, StallBreakdown};

fn report(scheme: &str, cycles: u64, stalls: &[(StallCause, u64)], structures: &[(&str, u64, u64, f64)]) -> Report {
    let mut breakdown = StallBreakdown::default();
    stalls.iter().for_each(|&(c, n)| breakdown.add(c, n));
    let mut rf = RegisterFileReport::default();
    rf.scheme.structures = structures
        .iter()
        .map(|&(name, reads, writes, nj)| StructureStats { name: String::from(name), reads, writes, nj_per_access: nj })
        .collect();
    rf.energy_total_nj = rf.scheme.structures.iter().map(|s| s.energy_nj()).sum();
    Report {
        scheme: String::from(scheme),
        gpu: String::from("test"),
        sms: 1,
        schedulers_per_sm: 2,
        outcome: Outcome::Finished,
        kernels: vec![KernelPlacement {
            kernel: String::from("k"),
            threads_per_cta: 64,
            registers_per_thread: 20,
            max_live_registers: 18,
            ctas_per_sm: 4,
            warps_per_sm: 8,
            theoretical_occupancy: 0.25,
            limited_by: Vec::new(),
        }],
        ctas: 1,
        cycles,
        warp_instructions: 100,
        thread_instructions: 3200,
        ipc: Ipc { warp_instructions_per_cycle: 100.0 / cycles as f64, thread_instructions_per_cycle: 0.0 },
        stalls: breakdown,
        register_file: rf,
        values: Default::default(),
        occupancy_over_time: OccupancyTimeline::default(),
        memory: Default::default(),
        cta_park_requests: 0,
        residency: Default::default(),
        notices: Vec::new(),
        slice_map: None,
        sample: None,
        config: Default::default(),
    }
}

/// The baseline is the default reference even when it is not first; a chosen label wins; with
/// neither, the first run. Speed-up = reference cycles / cycles: 200 / 160 = 1.25.
#[test]
fn the_reference_is_the_baseline_unless_chosen() {
    let runs = [report("rfc-ob", 160, &[], &[]), report("baseline", 200, &[], &[]), report("x", 400, &[], &[])];
    let c = compare(&runs, None);
    assert_eq!(c.reference, "baseline");
    let speedups: Vec<f64> = c.rows.iter().map(|r| r.speedup).collect();
    assert_eq!(speedups, [1.25, 1.0, 0.5]);
    assert_eq!(compare(&runs, Some("x")).rows[0].speedup, 2.5);
    assert_eq!(compare(&runs, Some("absent")).reference, "baseline");
    assert_eq!(reference_index(&runs[2..], None), 0);
    assert_eq!(speedup(100, 0), 0.0);
}

/// 10 scheduler-cycles: 4 issued, 3 structural, 2 scoreboard, 1 acquire wait. Structural is its
/// own share (0.3), the scheme cause appears because it is non-zero, the other scheme causes do
/// not; the shares add up to 1.
#[test]
fn stall_shares_name_every_cause() {
    let stalls = [
        (StallCause::Issued, 4),
        (StallCause::Structural, 3),
        (StallCause::Scoreboard, 2),
        (StallCause::AcquireWait, 1),
    ];
    let row = summarise(&report("a", 5, &stalls, &[]), 5);
    assert_eq!(row.stall(StallCause::Structural), 0.3);
    assert_eq!(row.stall(StallCause::AcquireWait), 0.1);
    assert!(row.stalls.iter().all(|s| s.cause != "cta_switch"));
    assert_eq!(row.stalls.len(), 10, "nine base causes and acquire wait");
    let sum: f64 = row.stalls.iter().map(|s| s.fraction).sum();
    assert!((sum - 1.0).abs() < 1e-12);
    let c = compare(&[report("b", 5, &[(StallCause::Issued, 1)], &[]), report("a", 5, &stalls, &[])], None);
    assert_eq!(c.stall_causes().last(), Some(&StallCause::AcquireWait));
}

/// main_rf: (10 + 5) × 2 nJ = 30 nJ; rfc: (4 + 0) × 0.5 = 2 nJ; total 32 nJ. Structure names
/// over runs keep first-seen order.
#[test]
fn structures_carry_accesses_and_energy() {
    let a = report("baseline", 10, &[], &[("main_rf", 10, 5, 2.0)]);
    let b = report("rfc", 10, &[], &[("main_rf", 10, 5, 2.0), ("rfc", 4, 0, 0.5)]);
    let c = compare(&[a, b], None);
    let rfc = &c.rows[1];
    assert_eq!(rfc.structures[1], StructureTotal { name: String::from("rfc"), reads: 4, writes: 0, energy_nj: 2.0 });
    assert_eq!(rfc.energy_nj, 32.0);
    assert_eq!(c.structure_names(), ["main_rf", "rfc"]);
    assert_eq!((rfc.registers_per_thread, rfc.ctas_per_sm, rfc.occupancy), (20, 4, 0.25));
}

/// Gilani's shares come from the streams' value counts: 3 uniform of 12 value-writing
/// instructions = 0.25; 15 of 20 integer values fit 16 bits = 0.75. A run that recorded no value
/// summaries has none, whatever its scheme, and a run with no integer value reads 0, not NaN.
#[test]
fn value_shares_come_from_the_streams_value_counts() {
    use crate::timing::regfile::gilani_values::ValueCounts;
    let counts = ValueCounts {
        value_instructions: 12,
        uniform_result_instructions: 3,
        integer_values: 20,
        integer_16bit_values: 15,
    };
    let mut baseline = report("baseline", 100, &[], &[]);
    baseline.values.lane_values = Some(counts);
    let mut floats = report("sliced", 100, &[], &[]);
    floats.values.lane_values = Some(ValueCounts { integer_values: 0, integer_16bit_values: 0, ..counts });
    let c = compare(&[baseline, floats, report("gilani", 100, &[], &[])], None);
    let expected = ValueShares { redundant: 0.25, redundant_of: 12, integer_16bit: 0.75, integer_values: 20 };
    assert_eq!(c.rows[0].value_shares, Some(expected));
    assert_eq!(c.rows[1].value_shares.map(|v| (v.integer_16bit, v.integer_values)), Some((0.0, 0)));
    assert_eq!(c.rows[2].value_shares, None);
}

/// DeMO's baseline figures come from the counters of a run that counted them: 30 of the
/// 100 + 50 accesses (0.2), 6 of the 24 conflicts (0.25); a run without them has none.
#[test]
fn single_use_share_is_read_from_the_counters() {
    use crate::timing::regfile::SchemeCounter;
    let mut r = report("baseline", 10, &[], &[("main_rf", 100, 50, 1.0)]);
    assert_eq!(summarise(&r, 10).single_use, None);
    (r.register_file.reads, r.register_file.writes, r.register_file.bank_conflicts) = (100, 50, 24);
    for (name, value) in
        [("single_use_reads", 15), ("single_use_writes", 15), ("single_use_bank_conflicts", 6), ("single_use_waits", 2)]
    {
        r.register_file.scheme.counters.push(SchemeCounter { name: String::from(name), value, unit: String::new() });
    }
    let s = summarise(&r, 10).single_use;
    let want = SingleUseShare { accesses: 30, access_share: 0.2, bank_conflicts: 6, conflict_share: 0.25, waits: 2 };
    assert_eq!(s, Some(want));
}
