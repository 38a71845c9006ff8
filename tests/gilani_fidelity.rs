//! Gilani's three techniques (`composite`, `scalar-unit`, `sliced`, `gilani`) on the bundled
//! examples and on the corpus kernels from the paper's suites (Rodinia, CUDA SDK), on the paper's
//! GPU (`gt200-fx5800`), beside the baseline: every run finishes; composite fusion only removes
//! warp-instructions, the run-time techniques issue exactly the baseline's; the statistics are
//! printed as the table of `docs/fidelity/gilani.md` (the value shares as the report vocabulary
//! computes them: [`sim_core::timing::summary::value_shares`]).
//!
//! The full table takes minutes in a debug build:
//! `cargo test --release -p reglab-tests --test gilani_fidelity -- --ignored --nocapture`.

#![allow(clippy::print_stderr, reason = "the test prints the fidelity table")]

use std::path::Path;

use sim_core::exec::{propose_launch, LaunchSetup};
use sim_core::gpu::presets;
use sim_core::timing::report::{Outcome, Report};
use sim_core::timing::summary::{value_shares, ValueShares};
use sim_core::timing::{Simulation, TimingOptions};

const SCHEMES: [&str; 5] = ["baseline", "composite", "scalar-unit", "sliced", "gilani"];

/// Corpus kernels from the paper's suites (Table 3): Rodinia BP, NW, SR, HSP; SDK BLK, HST, MM.
const CORPUS: [&str; 8] = [
    "gpuocelot/rodinia__backprop_cuda_kernel.ptx",
    "gpuocelot/rodinia__needle_kernel.ptx",
    "gpuocelot/rodinia__srad_kernel.ptx",
    "gpuocelot/rodinia__hotspot.ptx",
    "gpuocelot/sdk2.2__BlackScholes.ptx",
    "gpuocelot/sdk2.2__histogram64.ptx",
    "gpuocelot/sdk2.2__matrixMul_kernel.ptx",
    "gpgpu-sim/pr146_backprop.1.sm_30.ptx",
];

fn counter(r: &Report, name: &str) -> u64 {
    r.register_file.scheme.counters.iter().find(|c| c.name == name).map_or(0, |c| c.value)
}

fn run(module: &sim_core::ir::Module, setup: &LaunchSetup, sms: u32) -> Result<Vec<Report>, String> {
    let gpu = presets::by_name("gt200-fx5800").ok_or("no gt200-fx5800 preset")?;
    let options = TimingOptions { sms: Some(sms), max_cycles: 50_000_000, ..TimingOptions::default() };
    let mut sim = Simulation::from_launch(module, setup, &gpu, &SCHEMES, options).map_err(|e| e.to_string())?;
    sim.run_to_end().map_err(|e| e.to_string())
}

/// Checks one kernel's five reports and returns its table row.
fn row(name: &str, reports: &[Report]) -> String {
    assert_eq!(reports.len(), SCHEMES.len(), "{name}");
    let base = &reports[0];
    for r in reports {
        assert_eq!(r.outcome, Outcome::Finished, "{name} {}", r.scheme);
        assert_eq!(r.stalls.total(), r.cycles * u64::from(r.schedulers_per_sm) * u64::from(r.sms), "{name}");
    }
    for r in [&reports[2], &reports[3]] {
        assert_eq!(r.warp_instructions, base.warp_instructions, "{name} {}", r.scheme);
    }
    for r in [&reports[1], &reports[4]] {
        assert_eq!(r.warp_instructions + counter(r, "fused_pairs"), base.warp_instructions, "{name} {}", r.scheme);
    }
    let g = &reports[4];
    let shares = value_shares(g);
    assert!(shares.is_some(), "{name}: gilani reports its value shares");
    let shares =
        shares.unwrap_or(ValueShares { redundant: 0.0, redundant_of: 0, integer_16bit: 0.0, integer_values: 0 });
    let pct = |a: u64, b: u64| 100.0 * a as f64 / b.max(1) as f64;
    let speedup = |r: &Report| 100.0 * (base.cycles as f64 / r.cycles.max(1) as f64 - 1.0);
    let energy = |r: &Report| {
        r.register_file.energy_nj.iter().map(|(k, v)| format!("{k} {v:.0}")).collect::<Vec<_>>().join(", ")
    };
    format!(
        "| {name} | {:.1}% | {:.1}% | {:.1}% | {:.1}% | {:.1}% | {:.1}% | {:.1}% | {:.1}% | {:.1}% | {:.0} → {:.0} ({}) |",
        100.0 * shares.redundant,
        100.0 * shares.integer_16bit,
        pct(counter(&reports[1], "fused_pairs"), base.warp_instructions),
        pct(counter(&reports[2], "scalar_instructions"), base.warp_instructions),
        pct(counter(&reports[3], "paired_issues"), base.warp_instructions),
        speedup(&reports[1]),
        speedup(&reports[2]),
        speedup(&reports[3]),
        speedup(g),
        base.register_file.energy_total_nj,
        g.register_file.energy_total_nj,
        energy(g),
    )
}

/// The row of a bundled example on `sms` SMs, its grid capped at `max_ctas` CTAs if given.
fn example_row(name: &str, ptx: &Path, launch: &Path, sms: u32, max_ctas: Option<u32>) -> String {
    let module = sim_core::ptx::compile(&std::fs::read_to_string(ptx).unwrap_or_default()).unwrap_or_default();
    let setup = LaunchSetup::from_json(&std::fs::read_to_string(launch).unwrap_or_default());
    assert!(setup.is_ok(), "{name}: {setup:?}");
    let Ok(mut setup) = setup else { return String::new() };
    if let Some(cap) = max_ctas {
        setup.grid = vec![setup.grid.first().copied().unwrap_or(1).min(cap), 1, 1];
    }
    let reports = run(&module, &setup, sms);
    assert!(reports.is_ok(), "{name}: {reports:?}");
    row(name, &reports.unwrap_or_default())
}

const HEADER: &str = "| kernel | uniform results | 16-bit integer values | fused | scalar | paired | composite | scalar-unit | sliced | gilani | RF energy nJ baseline → gilani (by structure) |\n|---|---|---|---|---|---|---|---|---|---|---|";

/// Hotspot (4 CTAs, 2 SMs) under the family: the instruction-count invariants of [`row`], the
/// techniques do something (scalar instructions and pairs), and a second simulation gives the same
/// reports bit for bit.
#[test]
fn a_small_example_under_the_family_keeps_its_instruction_counts() {
    let found: Vec<_> = reglab_tests::bundled_examples().into_iter().filter(|(n, _, _)| n == "hotspot").collect();
    assert_eq!(found.len(), 1, "the hotspot example and its launch");
    for (name, ptx, launch) in &found {
        let first = example_row(name, ptx, launch, 2, Some(4));
        assert_eq!(first, example_row(name, ptx, launch, 2, Some(4)), "two runs differ");
        let cells: Vec<&str> = first.split('|').map(str::trim).collect();
        // Cells 5 and 6 (after the empty one before the first bar): scalar and paired shares of the baseline's instructions.
        assert!(cells.get(5).zip(cells.get(6)).is_some_and(|(s, p)| *s != "0.0%" && *p != "0.0%"), "{first}");
        eprintln!("{HEADER}\n{first}");
    }
}

/// The value shares describe the kernel: every run that records the lanes' values has them, the
/// baseline's as the family's (whose own counters, learning the types from `prepare` or from the
/// fused program, agree: nothing fuses here). `gilani_int_share.ptx`, hand-worked in its header:
/// 7 register-writing instructions, 4 uniform; integer values 4, of which 2 fit 16 bits.
#[test]
fn every_scheme_of_the_family_counts_integer_values_alike() {
    let root = reglab_tests::repo_root();
    let src = std::fs::read_to_string(root.join("tests/cases/timing/gilani_int_share.ptx")).unwrap_or_default();
    let module = sim_core::ptx::compile(&src).unwrap_or_default();
    let spec = r#"{"kernel": "gilani_int_share", "block": [32], "params": [{"buffer": {"type": "u32", "len": 32}}]}"#;
    let setup = LaunchSetup::from_json(spec);
    let gpu = presets::by_name("hopper-h100");
    assert!(setup.is_ok() && gpu.is_some());
    let (Ok(setup), Some(gpu)) = (setup, gpu) else { return };
    let options = TimingOptions { sms: Some(1), values: true, ..TimingOptions::default() };
    let reports = Simulation::from_launch(&module, &setup, &gpu, &SCHEMES, options).and_then(|mut s| s.run_to_end());
    assert!(reports.is_ok(), "{reports:?}");
    let reports = reports.unwrap_or_default();
    assert_eq!(reports.len(), SCHEMES.len());
    for r in &reports {
        let expected = ValueShares { redundant: 4.0 / 7.0, redundant_of: 7, integer_16bit: 0.5, integer_values: 4 };
        assert_eq!(value_shares(r), Some(expected), "{}", r.scheme);
        if r.scheme != "baseline" {
            let counted = (counter(r, "value_instructions"), counter(r, "uniform_result_instructions"));
            assert_eq!(counted, (7, 4), "{}", r.scheme);
        }
    }
}

#[test]
#[ignore = "minutes in a debug build; the table of docs/fidelity/gilani.md (run with --release)"]
fn the_fidelity_table() {
    let mut rows = vec![String::from(HEADER)];
    for (name, ptx, launch) in reglab_tests::bundled_examples() {
        rows.push(example_row(&name, &ptx, &launch, 30, None));
    }
    let corpus = reglab_tests::corpus_dir();
    for rel in CORPUS {
        let Ok(src) = std::fs::read_to_string(corpus.join(rel)) else { continue };
        let Ok(module) = sim_core::ptx::compile(&src) else { continue };
        for kernel in sim_core::exec::plan::kernel_names(&module) {
            let mut setup = propose_launch(&module, &kernel);
            setup.grid = vec![setup.grid.first().copied().unwrap_or(1).min(60), 1, 1];
            setup.budget = Some(2_000_000);
            match run(&module, &setup, 30) {
                Ok(r) => rows.push(row(&format!("{rel}::{kernel}"), &r)),
                Err(e) => eprintln!("{rel}::{kernel}: not run ({e})"),
            }
        }
    }
    eprintln!("{}", rows.join("\n"));
}
