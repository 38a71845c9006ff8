//! Static data compression (Angerd et al.) over the corpus:
//! - Rodinia leukocyte IMGVF (`track_ellipse_kernel`) on fermi-gtx480, 320 threads per CTA and
//!   its 14 568 bytes of static shared memory: registers and CTAs per SM before and after (the
//!   compile-time part; `docs/fidelity/compression.md`);
//! - every corpus function: the compressed allocation never needs more registers than the
//!   allocator's;
//! - every corpus kernel the executor runs: every integer value written fits the width the range
//!   analysis gave it (for that launch), lane by lane (the executor's value summaries).
//!
//! Run with `--nocapture` to see the figures.

#![allow(clippy::print_stderr, reason = "the test reports the figures it measured")]

use reglab_tests::{corpus_dir, ptx_files};
use sim_core::analysis::{AnalysisOptions, Cfg, Dominators, Liveness, ModuleAnalysis, RangeAnalysis, RangeSeeds};
use sim_core::exec::{propose_launch, Run, RunOptions};
use sim_core::gpu::presets;
use sim_core::ir::{Module, Type};
use sim_core::occupancy::{compute, OccupancyInput};
use sim_core::timing::program_regs::AssignInputs;
use sim_core::timing::regfile::compression_program::{launch_seeds, plan, FunctionPlan};

/// The compression plans of `module` for `seeds` (the module's allocation target: sm_52 for
/// sm_20 code).
fn plans(module: &Module, seeds: Option<RangeSeeds>) -> Vec<FunctionPlan> {
    plans_sliced(module, seeds, 4)
}

fn plans_sliced(module: &Module, seeds: Option<RangeSeeds>, slice_bits: u32) -> Vec<FunctionPlan> {
    let analysis = ModuleAnalysis::compute(module, &AnalysisOptions::default());
    plan(module, &analysis, &AssignInputs { seeds, ..AssignInputs::default() }, slice_bits)
}

#[test]
fn imgvf_needs_fewer_registers_and_fits_more_ctas_on_fermi() {
    let path = corpus_dir().join("gpuocelot/rodinia__track_ellipse_kernel.ptx");
    let Ok(src) = std::fs::read_to_string(&path) else {
        eprintln!("skipped: {} not found (set REGLAB_CORPUS)", path.display());
        return;
    };
    let module = sim_core::ptx::compile(&src);
    assert!(module.is_ok(), "IMGVF does not compile");
    let gpu = presets::by_name("fermi-gtx480");
    assert!(gpu.is_some(), "no fermi-gtx480 preset");
    let (Ok(module), Some(gpu)) = (module, gpu) else { return };
    // Rodinia leukocyte: 320 threads per CTA, one CTA per cell (**A**: 36 cells).
    let p = plans(&module, Some(RangeSeeds::launch([36, 1, 1], [320, 1, 1])));
    let imgvf = p.iter().find(|f| f.name.contains("IMGVF"));
    assert!(imgvf.is_some(), "no IMGVF kernel");
    let Some(imgvf) = imgvf else { return };
    let ctas = |regs: u32| {
        let input = OccupancyInput::new(320, regs).with_static_shared_memory(13284 + 1280 + 4);
        compute(&gpu.limits, &input).map(|o| (o.blocks_per_sm, o.occupancy)).unwrap_or((0, 0.0))
    };
    let (before, after) = (imgvf.registers_before, imgvf.registers_after);
    let narrow = imgvf.values.iter().filter(|v| v.bits < 32 * v.pieces.len().max(1) as u32).count();
    eprintln!(
        "IMGVF fermi-gtx480: registers {before} → {after} ({:?}); CTAs/SM {:?} → {:?}; values {}, narrow {narrow}, fits {}, splits {}",
        imgvf.kept,
        ctas(before),
        ctas(after),
        imgvf.values.len(),
        imgvf.fits,
        imgvf.splits
    );
    // What-if (not a tuning result): every f32 register of IMGVF in one narrower format.
    let body = module.functions.iter().find(|(_, f)| f.name.contains("IMGVF"));
    if let Some((h, f)) = body {
        let regs_of = |ty: &[Type]| -> Vec<u32> {
            f.body
                .iter()
                .flat_map(|b| b.regs.iter())
                .filter(|(_, r)| ty.contains(&r.ty))
                .map(|(r, _)| r.raw())
                .collect()
        };
        let (f32_only, all_floats) = (regs_of(&[Type::F32]), regs_of(&[Type::F32, Type::F64]));
        // The paper tunes f32 only ("none of our benchmarks use double precision"); this PTX has
        // .f64 values too, so the last what-if lowers them as well (beyond the model, for scale).
        for (what, regs, bits) in
            [("f32", &f32_only, 24u8), ("f32", &f32_only, 16), ("f32", &f32_only, 12), ("f32 and f64", &all_floats, 12)]
        {
            let float_bits = regs.iter().map(|&r| ((h.raw(), r), bits)).collect();
            let seeds = Some(RangeSeeds::launch([36, 1, 1], [320, 1, 1]));
            let analysis = ModuleAnalysis::compute(&module, &AnalysisOptions::default());
            let inputs = AssignInputs { seeds, float_bits, ..AssignInputs::default() };
            let after =
                plan(&module, &analysis, &inputs, 4).iter().find(|p| p.name == f.name).map(|p| p.registers_after);
            eprintln!("IMGVF what-if, every {what} at {bits} bits: registers {after:?}, CTAs/SM {:?}", after.map(ctas));
        }
        // The linear scan with whole-register slices (no packing): what its intervals cost
        // against the allocator's colouring.
        let whole = plans_sliced(&module, Some(RangeSeeds::launch([36, 1, 1], [320, 1, 1])), 32);
        let w = whole.iter().find(|p| p.name == f.name).map(|p| p.registers_slices);
        eprintln!("IMGVF linear scan with 32-bit slices (no packing): {w:?} registers");
    }
    // The paper's direction: fewer registers, at least as many CTAs.
    assert!(after < before, "no fewer registers: {before} → {after} ({:?})", imgvf.kept);
    assert!(ctas(after).0 >= ctas(before).0);
}

#[test]
fn compression_never_needs_more_registers_than_the_allocator() {
    let (mut functions, mut fewer, mut saved) = (0usize, 0usize, 0u64);
    for path in ptx_files(&corpus_dir()) {
        let Ok(src) = std::fs::read_to_string(&path) else { continue };
        let Ok(module) = sim_core::ptx::compile(&src) else { continue };
        for f in plans(&module, None) {
            functions += 1;
            assert!(
                f.registers_after <= f.registers_before,
                "{}::{}: {} → {}",
                path.display(),
                f.name,
                f.registers_before,
                f.registers_after
            );
            if f.registers_after < f.registers_before {
                fewer += 1;
                saved += u64::from(f.registers_before - f.registers_after);
            }
        }
    }
    eprintln!("compression over the corpus: {functions} functions, {fewer} need fewer registers ({saved} saved)");
}

/// Whether a value of `unsigned`/`signed` significant bits fits `bits` (unsigned when not signed).
fn fits(unsigned: u32, signed_bits: u32, bits: u32, signed: bool) -> bool {
    if signed {
        signed_bits <= bits
    } else {
        unsigned <= bits
    }
}

#[test]
fn every_integer_write_fits_its_range_width() {
    let (mut checked, mut misfits) = (0u64, Vec::new());
    for path in ptx_files(&corpus_dir()) {
        let Ok(src) = std::fs::read_to_string(&path) else { continue };
        let Ok(module) = sim_core::ptx::compile(&src) else { continue };
        for kernel in sim_core::exec::plan::kernel_names(&module) {
            let mut setup = propose_launch(&module, &kernel);
            setup.grid = vec![setup.grid.first().copied().unwrap_or(1).min(2), 1, 1];
            setup.budget = Some(20_000);
            let seeds = launch_seeds(&setup).unwrap_or_else(RangeSeeds::architectural);
            let trace = sim_core::exec::stream::TraceOptions { enabled: true, values: true, first_values: false };
            let Ok(mut run) = Run::new(&module, &setup, RunOptions { trace, ..RunOptions::default() }) else {
                continue;
            };
            let ranges: Vec<Option<RangeAnalysis>> = module
                .functions
                .values()
                .map(|f| {
                    f.body.as_ref()?;
                    let cfg = Cfg::compute(f);
                    let dom = Dominators::compute(&cfg);
                    let live = Liveness::compute(f, &cfg);
                    Some(RangeAnalysis::compute(f, &cfg, &dom, &live, &seeds))
                })
                .collect();
            while let Ok(Some(cta)) = run.next_cta() {
                check_cta(&module, &ranges, &cta, &mut checked, &mut misfits, &path.display().to_string());
            }
        }
    }
    eprintln!("integer writes checked against their range widths: {checked} unit summaries");
    misfits.sort();
    misfits.dedup();
    assert!(misfits.is_empty(), "{} writes exceed their width:\n{}", misfits.len(), misfits.join("\n"));
}

fn check_cta(
    module: &Module,
    ranges: &[Option<RangeAnalysis>],
    cta: &sim_core::exec::stream::CtaTrace,
    checked: &mut u64,
    misfits: &mut Vec<String>,
    file: &str,
) {
    for w in &cta.warps {
        for r in &w.records {
            if r.value_units == 0 || r.value_start == u32::MAX {
                continue;
            }
            let Some(&fh) = cta.functions.get(usize::from(r.func)) else { continue };
            let (Some(func), Some(Some(ra))) = (module.functions.get(fh), ranges.get(fh.index())) else { continue };
            let Some(body) = &func.body else { continue };
            let Some(inst) = body.insts.get(r.inst) else { continue };
            let mut at = r.value_start as usize;
            let mut defs = Vec::new();
            inst.for_each_def(|reg| defs.push(reg));
            for reg in defs {
                let Some(decl) = body.regs.get(reg) else { continue };
                let units = decl.class.units32() as usize;
                let sums = w.values.get(at..at + units).unwrap_or(&[]);
                at += units;
                let Some(bw) = ra.bitwidth(r.inst, reg) else { continue };
                if bw.bits >= decl.ty.bits() || sums.len() != units {
                    continue;
                }
                *checked += 1;
                let ok = match (units, sums) {
                    (1, [s]) => fits(s.unsigned_bits(), s.signed_bits(), bw.bits, bw.signed),
                    (2, [lo, hi]) if !bw.signed => {
                        let high = hi.unsigned_bits();
                        if bw.bits <= 32 {
                            high == 0 && lo.unsigned_bits() <= bw.bits
                        } else {
                            high <= bw.bits - 32
                        }
                    }
                    _ => true,
                };
                if !ok {
                    misfits.push(format!(
                        "{file}: {} {}: width {:?}, written unsigned {:?} signed {:?}",
                        func.name,
                        decl.name,
                        bw,
                        sums.iter().map(|s| s.unsigned_bits()).collect::<Vec<_>>(),
                        sums.iter().map(|s| s.signed_bits()).collect::<Vec<_>>()
                    ));
                }
            }
        }
    }
}

/// The bundled examples (`static/examples/`) with their launches.
fn examples() -> Vec<(String, Module, sim_core::exec::LaunchSetup)> {
    let dir = reglab_tests::repo_root().join("static").join("examples");
    let mut out = Vec::new();
    for name in ["saxpy", "vector_add", "reduction", "histogram", "matmul_tiled", "hotspot", "imgvf"] {
        let src = std::fs::read_to_string(dir.join(format!("{name}.ptx")));
        let launch = std::fs::read_to_string(dir.join(format!("{name}.launch.json")));
        let (Ok(src), Ok(launch)) = (src, launch) else { continue };
        let (Ok(m), Ok(s)) = (sim_core::ptx::compile(&src), sim_core::exec::LaunchSetup::from_json(&launch)) else {
            continue;
        };
        out.push((String::from(name), m, s));
    }
    out
}

/// At "perfect" quality (0 % max relative deviation) the tuned outputs are bit-identical to the
/// untuned ones on every bundled example, and the compressed allocation never needs more
/// registers; the integer widths fit there too.
#[test]
fn bundled_examples_at_perfect_quality_are_bit_identical() {
    use sim_core::exec::float_tuning::{exact_match, tune, QualityMetric};
    let all = examples();
    assert!(all.len() >= 5, "bundled examples missing");
    let (mut checked, mut misfits) = (0u64, Vec::new());
    for (name, module, setup) in &all {
        let reference = Run::new(module, setup, RunOptions::default()).and_then(|mut r| r.run_to_end());
        let tuned = tune(module, setup, QualityMetric::MaxRelative(0.0), 64);
        assert!(reference.is_ok() && tuned.is_ok(), "{name}: {tuned:?}");
        let (Ok(reference), Ok(tuned)) = (reference, tuned) else { continue };
        let mut run = Run::new(module, setup, RunOptions::default());
        if let Ok(r) = run.as_mut() {
            r.round_float_registers(module, &tuned.formats);
        }
        let outputs = run.and_then(|mut r| r.run_to_end()).map(|r| r.outputs);
        assert!(outputs.as_ref().is_ok_and(|o| exact_match(&reference.outputs, o)), "{name}: outputs differ");
        let seeds = launch_seeds(setup);
        let inputs =
            AssignInputs { seeds: seeds.clone(), float_bits: tuned.formats.clone(), ..AssignInputs::default() };
        let analysis = ModuleAnalysis::compute(module, &AnalysisOptions::default());
        for f in plan(module, &analysis, &inputs, 4) {
            assert!(f.registers_after <= f.registers_before, "{name}: {} → {}", f.registers_before, f.registers_after);
            eprintln!(
                "{name}: {} float registers lowered of {} in {} runs ({} trials proved); registers {} → {}",
                tuned.formats.len(),
                tuned.candidates,
                tuned.runs,
                tuned.proved,
                f.registers_before,
                f.registers_after
            );
        }
        let ranges: Vec<Option<RangeAnalysis>> = module
            .functions
            .values()
            .map(|f| {
                f.body.as_ref()?;
                let cfg = Cfg::compute(f);
                let dom = Dominators::compute(&cfg);
                let live = Liveness::compute(f, &cfg);
                Some(RangeAnalysis::compute(
                    f,
                    &cfg,
                    &dom,
                    &live,
                    &seeds.clone().unwrap_or_else(RangeSeeds::architectural),
                ))
            })
            .collect();
        let trace = sim_core::exec::stream::TraceOptions { enabled: true, values: true, first_values: false };
        if let Ok(mut run) = Run::new(module, setup, RunOptions { trace, ..RunOptions::default() }) {
            while let Ok(Some(cta)) = run.next_cta() {
                check_cta(module, &ranges, &cta, &mut checked, &mut misfits, name);
            }
        }
    }
    eprintln!("bundled examples: integer writes checked {checked}");
    assert!(misfits.is_empty(), "{}", misfits.join("\n"));
}

/// The tuning result reaches the report: the `compression` run's scheme counters carry the
/// search's runs, candidates and lowered registers (the same search `tune` makes on its own),
/// once per run whatever the SM count, with one `float_bits:FUNCTION:REG` per lowered register;
/// the baseline's report has none of them.
#[test]
fn the_tuning_result_is_in_the_compression_report() {
    use sim_core::exec::float_tuning::{tune, QualityMetric};
    use sim_core::timing::{Simulation, TimingOptions};
    let all = examples();
    let saxpy = all.iter().find(|(n, _, _)| n == "saxpy");
    let gpu = presets::by_name("fermi-gtx480");
    assert!(saxpy.is_some() && gpu.is_some(), "saxpy example or fermi-gtx480 missing");
    let (Some((_, module, setup)), Some(gpu)) = (saxpy, gpu) else { return };
    let tuned = tune(module, setup, QualityMetric::MaxRelative(0.0), 64);
    assert!(tuned.is_ok(), "{tuned:?}");
    let Ok(tuned) = tuned else { return };
    // Four SMs: a counter summed over SMs would read four times the search's runs.
    let options = TimingOptions { sms: Some(4), ..TimingOptions::default() };
    let reports = Simulation::from_launch(module, setup, &gpu, &["baseline", "compression"], options)
        .and_then(|mut s| s.run_to_end());
    assert!(reports.is_ok(), "{:?}", reports.err().map(|e| e.to_string()));
    let Ok(reports) = reports else { return };
    let counters = |i: usize| reports[i].register_file.scheme.counters.clone();
    assert!(counters(0).iter().all(|c| !c.name.starts_with("tuning_") && !c.name.starts_with("float_bits:")));
    let c = counters(1);
    let get = |n: &str| c.iter().find(|x| x.name == n).map(|x| x.value);
    assert_eq!(get("tuning_runs"), Some(u64::from(tuned.runs)));
    assert_eq!(get("tuning_candidates"), Some(u64::from(tuned.candidates)));
    assert_eq!(get("tuning_lowered"), Some(tuned.formats.len() as u64));
    assert_eq!(get("tuning_capped"), Some(u64::from(tuned.capped)));
    // At 0 % the accepted combination deviates by nothing.
    assert_eq!(get("tuning_deviation_ppm"), Some(0));
    let formats: Vec<u64> = c.iter().filter(|x| x.name.starts_with("float_bits:")).map(|x| x.value).collect();
    assert_eq!(formats.len(), tuned.formats.len());
    // saxpy lowers one of its four f32 registers at 0 % (docs/fidelity/compression.md).
    assert!(!formats.is_empty() && formats.iter().all(|&b| (8..32).contains(&b)), "{c:?}");
}
