//! The executor half of `reglab bench`: executor throughput in simulated warp-instructions per
//! host second (one thread; build with `--release`). Workloads: the bundled examples at their suggested sizes
//! (vector add of 1M elements, a 512×512 tiled matmul, reductions, stencils, a histogram,
//! SAXPY), and — when the corpus is found — Rodinia BFS and the 20 ZLUDA unit kernels. Only
//! execution is timed (decoding and buffer initialisation are not).
//!
//! ```text
//! $ reglab bench --quick --json   # this half is the "executor" object
//! "executor": {"warp_instructions_per_second": 7.9e6, "thread_instructions_per_second": 2.5e8,
//!  "kernels": [{"name": "vector_add", "warp_instructions": 720896, "seconds": 0.09, …}, …]}
//! ```

use std::path::PathBuf;
use std::time::Instant;

use serde::Serialize;
use sim_core::exec::{LaunchSetup, Run, RunOptions};

/// One workload's measurement.
#[derive(Serialize)]
struct Measured {
    name: String,
    warp_instructions: u64,
    thread_instructions: u64,
    /// Wall-clock seconds of execution.
    seconds: f64,
    warp_instructions_per_second: f64,
    /// Process CPU seconds of execution (Linux `/proc/self/stat`, 10 ms resolution): unlike the
    /// wall clock, not inflated when other processes share the machine.
    #[serde(skip_serializing_if = "Option::is_none")]
    cpu_seconds: Option<f64>,
}

/// CPU time of this process so far, from `/proc/self/stat` (user + system, 100 ticks per second).
fn cpu_seconds() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    let rest = stat.rsplit_once(')')?.1;
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let ticks: u64 = fields.get(11)?.parse::<u64>().ok()? + fields.get(12)?.parse::<u64>().ok()?;
    Some(ticks as f64 / 100.0)
}

#[derive(Serialize)]
struct Report {
    warp_instructions_per_second: f64,
    thread_instructions_per_second: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    warp_instructions_per_cpu_second: Option<f64>,
    warp_instructions: u64,
    seconds: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    cpu_seconds: Option<f64>,
    kernels: Vec<Measured>,
    note: &'static str,
}

/// Runs `setups` (each a module and a setup) once and times the execution only.
fn measure(name: &str, runs: Vec<(sim_core::ir::Module, LaunchSetup)>) -> Result<Measured, String> {
    let (mut warp, mut thread, mut seconds, mut cpu) = (0u64, 0u64, 0f64, Some(0f64));
    for (module, setup) in runs {
        let mut run = Run::new(&module, &setup, RunOptions::default()).map_err(|e| format!("{name}: {e}"))?;
        let (start, cpu0) = (Instant::now(), cpu_seconds());
        let result = run.run_to_end().map_err(|e| format!("{name}: {e}"))?;
        seconds += start.elapsed().as_secs_f64();
        cpu = cpu.zip(cpu0.zip(cpu_seconds())).map(|(c, (a, b))| ((c + (b - a)) * 100.0).round() / 100.0);
        warp += result.warp_instructions;
        thread += result.thread_instructions;
    }
    Ok(Measured {
        name: name.into(),
        warp_instructions: warp,
        thread_instructions: thread,
        seconds,
        warp_instructions_per_second: warp as f64 / seconds.max(1e-9),
        cpu_seconds: cpu,
    })
}

fn compile(src: &str, what: &str) -> Result<sim_core::ir::Module, String> {
    sim_core::ptx::compile(src).map_err(|d| format!("{what}: does not compile ({} errors)", d.len()))
}

/// A smaller grid for `--quick` (one-dimensional single launches only).
pub fn quick(mut s: LaunchSetup) -> LaunchSetup {
    if s.launches.is_empty() && s.grid.iter().skip(1).all(|&g| g == 1) {
        s.grid = vec![s.grid.first().copied().unwrap_or(1).div_ceil(16), 1, 1];
    }
    s
}

fn examples(quick_mode: bool) -> Result<Vec<Measured>, String> {
    super::EXAMPLES
        .iter()
        .map(|(name, ptx, launch)| {
            let module = compile(ptx, name)?;
            let setup = LaunchSetup::from_json(launch).map_err(|e| format!("{name}: {e}"))?;
            let setup = if quick_mode { quick(setup) } else { setup };
            measure(name, vec![(module, setup)])
        })
        .collect()
}

fn corpus_workloads(dir: &std::path::Path) -> Result<Vec<Measured>, String> {
    let mut out = Vec::new();
    let bfs_src = std::fs::read_to_string(dir.join("gpgpu-sim/pr219_bfs.1.sm_20.ptx")).map_err(|e| e.to_string())?;
    let graph = std::fs::read_to_string(dir.join("gpgpu-sim/pr219_bfs.SampleGraph.txt")).map_err(|e| e.to_string())?;
    if let Some(setup) = reglab_bfs_setup(&graph) {
        out.push(measure("rodinia_bfs_sample_graph", vec![(compile(&bfs_src, "bfs")?, setup)])?);
    }
    Ok(out)
}

/// The BFS setup (the same as the tests'): see `tests/src/bfs.rs`.
fn reglab_bfs_setup(graph: &str) -> Option<LaunchSetup> {
    let nums: Vec<i64> = graph.split_whitespace().filter_map(|t| t.parse().ok()).collect();
    let n = *nums.first()? as usize;
    let nodes = nums.get(1..1 + 2 * n)?;
    let source = *nums.get(1 + 2 * n)? as usize;
    let m = *nums.get(2 + 2 * n)? as usize;
    let edges: Vec<i64> = (0..m).filter_map(|i| nums.get(3 + 2 * n + 2 * i).copied()).collect();
    let list = |v: &[i64]| v.iter().map(i64::to_string).collect::<Vec<_>>().join(", ");
    let mark = |v: i64| (0..n).map(|i| if i == source { v } else { 0 }).collect::<Vec<_>>();
    let cost: Vec<i64> = (0..n).map(|i| if i == source { 0 } else { -1 }).collect();
    let json = format!(
        r#"{{"block": [{n}], "params": [
          {{"buffer": {{"type": "s32", "data": [{}]}}}}, {{"buffer": {{"type": "s32", "data": [{}]}}}},
          {{"buffer": {{"type": "u8", "data": [{}]}}}}, {{"buffer": {{"type": "u8", "len": {n}}}}},
          {{"buffer": {{"type": "u8", "data": [{}]}}}}, {{"buffer": {{"type": "s32", "data": [{}]}}}},
          {{"scalar": {{"type": "s32", "value": {n}}}}}, {{"buffer": {{"type": "u8", "len": 1}}}}],
         "launches": [{{"kernel": "_Z6KernelP4NodePiPbS2_S2_S1_i", "args": [0, 1, 2, 3, 4, 5, 6]}},
                      {{"kernel": "_Z7Kernel2PbS_S_S_i", "args": [2, 3, 4, 7, 6]}}],
         "repeat": {{"max": 10000, "until_zero": 7}}, "outputs": [5]}}"#,
        list(nodes),
        list(&edges),
        list(&mark(1)),
        list(&mark(1)),
        list(&cost)
    );
    LaunchSetup::from_json(&json).ok()
}

fn unit_kernels(dir: &std::path::Path) -> Result<Measured, String> {
    let mut runs = Vec::new();
    let zluda = dir.join("zluda");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&zluda)
        .map_err(|e| format!("{}: {e}", zluda.display()))?
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            p.file_name().and_then(|f| f.to_str()).is_some_and(|f| f.starts_with("unit_") && f.ends_with(".ptx"))
        })
        .collect();
    files.sort();
    for path in files {
        let src = std::fs::read_to_string(&path).map_err(|e| e.to_string())?;
        let module = compile(&src, &path.display().to_string())?;
        for kernel in sim_core::exec::plan::kernel_names(&module) {
            let mut setup = sim_core::exec::propose_launch(&module, &kernel);
            setup.grid = vec![1, 1, 1];
            setup.block = vec![64, 1, 1];
            setup.dynamic_smem = 1024;
            runs.push((module.clone(), setup));
        }
    }
    let mut m = measure_lenient("zluda_unit_kernels", runs);
    m.name = "zluda_unit_kernels (20, 64 threads each)".into();
    Ok(m)
}

/// Like [`measure`] but skips setups that fail (a unit kernel faulting on proposed inputs).
fn measure_lenient(name: &str, runs: Vec<(sim_core::ir::Module, LaunchSetup)>) -> Measured {
    let (mut warp, mut thread, mut seconds) = (0u64, 0u64, 0f64);
    for (module, setup) in runs {
        let Ok(mut run) = Run::new(&module, &setup, RunOptions::default()) else { continue };
        let start = Instant::now();
        let _ = run.run_to_end();
        seconds += start.elapsed().as_secs_f64();
        warp += run.counters().warp;
        thread += run.counters().thread;
    }
    Measured {
        name: name.into(),
        warp_instructions: warp,
        thread_instructions: thread,
        seconds,
        warp_instructions_per_second: warp as f64 / seconds.max(1e-9),
        cpu_seconds: None,
    }
}

/// Measures the executor: the bundled examples and, when `corpus` is a directory, Rodinia BFS
/// and the ZLUDA unit kernels. Returns the report as JSON.
pub fn bench(corpus: &std::path::Path, quick_mode: bool) -> Result<serde_json::Value, String> {
    let mut kernels = examples(quick_mode)?;
    if corpus.is_dir() {
        match corpus_workloads(corpus).and_then(|mut w| {
            w.push(unit_kernels(corpus)?);
            Ok(w)
        }) {
            Ok(w) => kernels.extend(w),
            Err(e) => eprintln!("reglab bench: corpus workloads skipped: {e}"),
        }
    } else {
        eprintln!("reglab bench: no corpus at {} (use --corpus); BFS and unit kernels skipped", corpus.display());
    }
    let warp: u64 = kernels.iter().map(|k| k.warp_instructions).sum();
    let thread: u64 = kernels.iter().map(|k| k.thread_instructions).sum();
    let seconds: f64 = kernels.iter().map(|k| k.seconds).sum();
    let timed: Vec<&Measured> = kernels.iter().filter(|k| k.cpu_seconds.is_some()).collect();
    let cpu: f64 = timed.iter().filter_map(|k| k.cpu_seconds).sum();
    let cpu_warp: u64 = timed.iter().map(|k| k.warp_instructions).sum();
    let report = Report {
        warp_instructions_per_second: warp as f64 / seconds.max(1e-9),
        thread_instructions_per_second: thread as f64 / seconds.max(1e-9),
        warp_instructions_per_cpu_second: (cpu > 0.0).then(|| cpu_warp as f64 / cpu),
        warp_instructions: warp,
        seconds,
        cpu_seconds: (cpu > 0.0).then_some(cpu),
        kernels,
        note: "functional executor only, one host thread, execution time (decode and buffer set-up excluded); build with --release",
    };
    serde_json::to_value(&report).map_err(|e| e.to_string())
}
