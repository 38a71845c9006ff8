//! Wyse's GCN3 compute unit (`gcn3-cu`, 64-wide wavefronts) on the bundled examples: an example
//! that uses no warp-level operation runs, its outputs identical to the 32-wide run's (one
//! functional run serves both: the wavefronts are replayed from pairs of 32-thread warps), with
//! every thread-instruction of the 32-wide streams and between half and all of their
//! warp-instructions (a wavefront runs both halves' common instructions once); the timing model
//! finishes with the same thread-instructions as on a 32-wide preset. An example that uses one
//! (the warp-shuffle reduction) is refused with the instruction and its line.

use std::path::{Path, PathBuf};

use sim_core::exec::{LaunchSetup, RunResult};
use sim_core::gpu::presets;
use sim_core::timing::report::Outcome;
use sim_core::timing::stream::exec_source::{ExecSource, SourceOptions};
use sim_core::timing::stream::trace::CtaSource;
use sim_core::timing::{Program, Simulation, TimingOptions};

/// The bundled examples with their test launches: `(path, launch JSON)`.
fn examples() -> Vec<(PathBuf, String)> {
    reglab_tests::bundled_examples()
        .into_iter()
        .filter_map(|(_, ptx, launch)| Some((ptx, std::fs::read_to_string(launch).ok()?)))
        .collect()
}

/// Streams every CTA of the run (pieces included); the executor's result and the streams'
/// warp- and thread-instructions.
fn drain(src: &str, launch: &str, gpu: &str) -> Result<(RunResult, u64, u64), String> {
    let module = sim_core::ptx::compile(src).map_err(|d| format!("{d:?}"))?;
    let setup = LaunchSetup::from_json(launch).map_err(|e| format!("{e:?}"))?;
    let gpu = presets::by_name(gpu).ok_or("no such preset")?;
    let program = Program::decode(&module, &gpu);
    let mut source =
        ExecSource::with_options(&module, &setup, &program, SourceOptions::for_gpu(&gpu, false)).map_err(|e| {
            let mut e = e;
            e.locate(src);
            e.to_string()
        })?;
    let (mut warp, mut thread, mut number) = (0u64, 0u64, 0u64);
    let mut count = |s: &sim_core::timing::stream::trace::WarpStream| {
        for d in s.iter() {
            warp += 1;
            thread += u64::from(d.executed.count_ones());
        }
    };
    while let Some(cta) = source.next_cta().map_err(|e| e.to_string())? {
        cta.warps.iter().for_each(&mut count);
        if let Some(more) = cta.more {
            let mut done = more.done.clone();
            while let Some(w) = done.iter().position(|d| !d) {
                for p in source.more(number, w).map_err(|e| e.to_string())? {
                    count(&p.stream);
                    if let Some(d) = done.get_mut(p.warp) {
                        *d |= p.last;
                    }
                }
            }
        }
        number += 1;
    }
    let result = source.run().result().ok_or("the run did not finish")?;
    Ok((result, warp, thread))
}

fn name(p: &Path) -> &str {
    p.file_stem().and_then(|s| s.to_str()).unwrap_or_default()
}

#[test]
fn examples_run_on_64_wide_wavefronts_with_the_32_wide_outputs_or_are_refused_with_the_line() {
    let files = examples();
    assert!(files.len() >= 7, "bundled examples missing");
    let mut ran = 0;
    for (path, launch) in &files {
        let src = std::fs::read_to_string(path).unwrap_or_default();
        let wide = drain(&src, launch, "gcn3-cu");
        // The 32-wide run: the executor alone (its counts are the 32-lane streams').
        let module = sim_core::ptx::compile(&src).unwrap_or_default();
        let narrow = LaunchSetup::from_json(launch)
            .map_err(|e| format!("{e:?}"))
            .and_then(|s| sim_core::exec::run(&module, &s).map_err(|e| e.to_string()));
        let Ok(narrow) = narrow else { unreachable!("{}: {narrow:?}", path.display()) };
        let (warp32, thread32) = (narrow.warp_instructions, narrow.thread_instructions);
        if name(path) == "reduction" {
            // `shfl.sync.down` exchanges values within a 32-lane warp.
            let Err(e) = wide else { unreachable!("the shuffle reduction ran on 64-wide wavefronts") };
            assert!(e.contains("line 165: `shfl.sync.down.b32") && e.contains("32-lane warps"), "{e}");
            continue;
        }
        let Ok((result, warp64, thread64)) = wide else { unreachable!("{}: {wide:?}", path.display()) };
        assert_eq!(result.outputs, narrow.outputs, "{}", path.display());
        assert_eq!(thread64, thread32, "{}", path.display());
        assert!(warp64 * 2 >= warp32 && warp64 <= warp32, "{}: {warp64} of {warp32}", path.display());
        ran += 1;
    }
    assert_eq!(ran, files.len() - 1);
}

#[test]
fn the_timing_model_finishes_on_the_compute_unit_with_every_thread_instruction() {
    for (path, launch) in examples().iter().filter(|(p, _)| ["vector_add", "hotspot"].contains(&name(p))) {
        let src = std::fs::read_to_string(path).unwrap_or_default();
        let module = sim_core::ptx::compile(&src).unwrap_or_default();
        let Ok(setup) = LaunchSetup::from_json(launch) else { unreachable!() };
        let run = |gpu: &str, schemes: &[&str]| {
            let Some(gpu) = presets::by_name(gpu) else { unreachable!() };
            Simulation::from_launch(&module, &setup, &gpu, schemes, TimingOptions::default())
                .and_then(|mut s| s.run_to_end())
                .map_err(|e| e.to_string())
        };
        let Ok(cu) = run("gcn3-cu", &["baseline", "rfc-ob"]) else { unreachable!("{}", path.display()) };
        let Ok(sm) = run("volta-v100", &["baseline"]) else { unreachable!("{}", path.display()) };
        for r in &cu {
            assert_eq!(r.outcome, Outcome::Finished, "{} {}", path.display(), r.scheme);
            assert_eq!(r.thread_instructions, sm[0].thread_instructions, "{} {}", path.display(), r.scheme);
            assert!(r.warp_instructions < sm[0].warp_instructions, "{} {}", path.display(), r.scheme);
            // Two SIMDs issue at most one wavefront instruction each per cycle.
            assert!(r.ipc.warp_instructions_per_cycle <= 2.0, "{} {}", path.display(), r.scheme);
        }
    }
}
