//! Every corpus kernel the executor can run (its proposed setup, at most two CTAs, a small
//! budget) also runs through the timing model with the baseline register file and finishes
//! within the cycle budget, issuing exactly the executor's warp- and thread-instructions. The
//! reads-per-value histogram and producer→consumer distances over all of them are printed (Wyse
//! reports 60–90 % of values read exactly once).

#![allow(clippy::print_stderr, reason = "the test reports the aggregated value statistics")]

use reglab_tests::{corpus_dir, ptx_files};
use sim_core::exec::{propose_launch, Run, RunOptions};
use sim_core::gpu::presets;
use sim_core::timing::report::Outcome;
use sim_core::timing::value_stats::ReadsPerValue;
use sim_core::timing::{Simulation, TimingOptions};

#[test]
fn every_runnable_corpus_kernel_completes_in_the_timing_model() {
    let Some(gpu) = presets::by_name("volta-v100") else { return };
    let options = TimingOptions { sms: Some(4), max_cycles: 50_000_000, ..TimingOptions::default() };
    let (mut ran, mut skipped, mut failures) = (0, 0, Vec::new());
    let mut hist = ReadsPerValue::default();
    let (mut reads, mut within) = (0u64, [0f64; 3]);
    for path in ptx_files(&corpus_dir()) {
        let Ok(src) = std::fs::read_to_string(&path) else { continue };
        let Ok(module) = sim_core::ptx::compile(&src) else { continue };
        for kernel in sim_core::exec::plan::kernel_names(&module) {
            let mut setup = propose_launch(&module, &kernel);
            setup.grid = vec![setup.grid.first().copied().unwrap_or(1).min(2), 1, 1];
            setup.budget = Some(20_000);
            let Ok(functional) = Run::new(&module, &setup, RunOptions::default()).and_then(|mut r| r.run_to_end())
            else {
                skipped += 1;
                continue;
            };
            let name = format!("{}::{kernel}", path.display());
            let result = Simulation::from_launch(&module, &setup, &gpu, &["baseline"], options.clone())
                .and_then(|mut s| s.run_to_end());
            match result.as_deref() {
                Ok([r])
                    if r.outcome == Outcome::Finished
                        && r.warp_instructions == functional.warp_instructions
                        && r.thread_instructions == functional.thread_instructions =>
                {
                    ran += 1;
                    hist.merge(&r.values.reading_counts());
                    reads += r.values.reads;
                    for (acc, p) in within.iter_mut().zip(&r.values.distance_cdf) {
                        *acc += p.cumulative_fraction * r.values.reads as f64;
                    }
                }
                Ok(r) => failures.push(format!(
                    "{name}: {:?}",
                    r.iter().map(|r| (&r.outcome, r.warp_instructions, r.thread_instructions)).collect::<Vec<_>>()
                )),
                Err(e) => failures.push(format!("{name}: {e}")),
            }
        }
    }
    let n = hist.total().max(1) as f64;
    let pct = |x: u64| 100.0 * x as f64 / n;
    let summary = format!(
        "timing corpus: {ran} kernels simulated, {skipped} not runnable by the executor; values produced {}: \
         read 0× {:.1}%, 1× {:.1}%, 2× {:.1}%, >2× {:.1}% (Wyse: 60–90% read once); reads within 1/2/3 \
         instructions {:.1}%/{:.1}%/{:.1}%",
        hist.total(),
        pct(hist.zero),
        pct(hist.one),
        pct(hist.two),
        pct(hist.more_than_two),
        100.0 * within[0] / reads.max(1) as f64,
        100.0 * within[1] / reads.max(1) as f64,
        100.0 * within[2] / reads.max(1) as f64,
    );
    eprintln!("{summary}");
    // Kept for scripts/test.sh, which prints the figures at the end of the run.
    let figures = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("figures");
    let written = std::fs::create_dir_all(&figures)
        .and_then(|()| std::fs::write(figures.join("reads-per-value.txt"), format!("{summary}\n")));
    if let Err(e) = written {
        eprintln!("could not keep the figure in {}: {e}", figures.display());
    }
    assert!(failures.is_empty(), "kernels that did not complete in the timing model: {failures:#?}");
    assert!(ran > 100, "too few kernels simulated: {ran}");
}
