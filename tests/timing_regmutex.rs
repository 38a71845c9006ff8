//! RegMutex (`SCHEMES.md` §4, `docs/fidelity/finereg.md`) end to end: its pass on every corpus
//! kernel verifies and reads back through the parser, and never changes its input; on the bundled
//! saxpy (maxwell-gtx980, one SM, memory-bound and slot-limited) the run is deterministic, does
//! the baseline's work plus the inserted acquire/release, and a smaller shared register pool waits
//! longer for it.

use reglab_tests::{corpus_dir, ptx_files};
use sim_core::exec::LaunchSetup;
use sim_core::gpu::presets;
use sim_core::ir::Opcode;
use sim_core::timing::regfile::regmutex_program::transform;
use sim_core::timing::report::{Outcome, Report};
use sim_core::timing::{Simulation, StallCause, TimingOptions};

#[test]
fn the_pass_verifies_and_round_trips_on_every_corpus_kernel() {
    let files = ptx_files(&corpus_dir());
    assert!(files.len() >= 85, "corpus not found at {}", corpus_dir().display());
    let (mut rewritten, mut failures) = (0, Vec::new());
    for path in &files {
        let src = std::fs::read_to_string(path).unwrap_or_default();
        let Ok(m) = sim_core::ptx::compile(&src) else { continue };
        let before = m.clone();
        match transform(&m) {
            Ok((t, _)) => {
                assert_eq!(m, before, "{}: input mutated", path.display());
                let problems = sim_core::ir::verify::verify(&t);
                if !problems.is_empty() {
                    failures.push(format!("{}: {:?}", path.display(), problems.first()));
                }
                let text = t.to_string();
                if sim_core::ptx::compile(&text).map(|b| b.to_string()).ok().as_deref() != Some(text.as_str()) {
                    failures.push(format!("{}: the printed kernel does not read back", path.display()));
                }
                let inserted = t.functions.iter().filter_map(|(_, f)| f.body.as_ref()).any(|b| {
                    b.insts.iter().any(|(_, i)| matches!(i.opcode, Opcode::RegmutexAcquire | Opcode::RegmutexRelease))
                });
                rewritten += usize::from(inserted);
            }
            Err(e) => failures.push(format!("{}: {e}", path.display())),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(rewritten > files.len() / 2, "most kernels have a region: {rewritten} of {}", files.len());
}

fn simulate(schemes: &[&str]) -> Vec<Report> {
    let root = reglab_tests::repo_root().join("static").join("examples");
    let src = std::fs::read_to_string(root.join("saxpy.ptx")).unwrap_or_default();
    let launch = std::fs::read_to_string(root.join("saxpy.launch.json")).unwrap_or_default();
    let module = sim_core::ptx::compile(&src).unwrap_or_default();
    let Some(gpu) = presets::by_name("maxwell-gtx980") else { return Vec::new() };
    let options = TimingOptions { sms: Some(1), ..TimingOptions::default() };
    let result = LaunchSetup::from_json(&launch)
        .map_err(|e| format!("{e:?}"))
        .and_then(|s| Simulation::from_launch(&module, &s, &gpu, schemes, options).map_err(|e| e.to_string()))
        .and_then(|mut sim| sim.run_to_end().map_err(|e| e.to_string()));
    assert!(result.is_ok(), "{result:?}");
    result.unwrap_or_default()
}

fn counter(r: &Report, name: &str) -> u64 {
    r.register_file.scheme.counters.iter().find(|c| c.name == name).map_or(0, |c| c.value)
}

#[test]
fn saxpy_deterministic_same_work_and_a_smaller_pool_waits_longer() {
    let schemes = ["baseline", "regmutex:srp_fraction=0.5", "regmutex:srp_fraction=0.1"];
    let first = simulate(&schemes);
    let second = simulate(&schemes);
    let json = |r: &[Report]| serde_json::to_string(r).unwrap_or_default();
    assert_eq!(json(&first), json(&second), "reports differ between two runs");
    let (base, big, small) = (&first[0], &first[1], &first[2]);
    for r in &first {
        assert_eq!(r.outcome, Outcome::Finished, "{}", r.scheme);
        assert_eq!(r.ctas, base.ctas);
        assert_eq!(r.stalls.total(), r.cycles * u64::from(r.schedulers_per_sm));
    }
    // Every acquire is released, one acquire + one release per region entry: the warp count
    // grows by exactly twice the acquires.
    for r in [big, small] {
        assert_eq!(counter(r, "acquires"), counter(r, "releases"), "{}", r.scheme);
        assert_eq!(r.warp_instructions, base.warp_instructions + 2 * counter(r, "acquires"), "{}", r.scheme);
        assert!(r.kernels[0].registers_per_thread < base.kernels[0].registers_per_thread);
    }
    // Pools of 1024 and 204 warp-registers (0.5 and 0.1 × 65536 / 32).
    assert_eq!((counter(big, "srp_warp_registers"), counter(small, "srp_warp_registers")), (1024, 204));
    assert!(small.stalls.get(StallCause::AcquireWait) > big.stalls.get(StallCause::AcquireWait));
    assert!(small.cycles > big.cycles);
}
