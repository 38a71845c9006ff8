//! Cycles and thread-instruction counts beside GPGPU-Sim's logs in the corpus
//! (`gpgpu-sim/*.gpgpusim_log_excerpt.txt`): each kernel at the log's launch, on a preset with
//! the log's configuration applied (SM count = clusters × cores per cluster, warp schedulers per
//! SM, core clock) and the log's register count per thread ("ptxas says N").
//!
//! The launch files are `docs/fidelity/gpgpu-sim/*.launch.json`. Rodinia BFS on the SampleGraph
//! (six threads, a few hundred instructions) runs in the ordinary suite; backprop (32768 CTAs of
//! 256 threads, 1.3 billion thread-instructions) is `#[ignore]`d and run in release by
//! `scripts/fidelity.sh`, which passes `REGLAB_GPGPUSIM_PAGE` to have the table written to
//! `docs/fidelity/gpgpu-sim.md`.

#![allow(clippy::print_stderr, reason = "the test reports its figures beside GPGPU-Sim's")]

use std::fmt::Write as _;

use reglab_tests::{corpus_dir, repo_root};
use sim_core::exec::LaunchSetup;
use sim_core::gpu::{presets, GpuConfig};
use sim_core::timing::{Simulation, TimingOptions};

/// What a log excerpt says: configuration, per-kernel registers, and each launch's figures.
#[derive(Default)]
struct Log {
    sms: u32,
    schedulers: u32,
    clock_mhz: f64,
    registers: Vec<(String, u32)>,
    /// `(kernel, gpu_sim_cycle, gpu_sim_insn)` per launch.
    launches: Vec<(String, u64, u64)>,
}

fn number<T: std::str::FromStr>(line: &str, key: &str) -> Option<T> {
    line.strip_prefix(key)?.split_whitespace().next()?.parse().ok()
}

fn parse(text: &str) -> Log {
    let mut log = Log::default();
    let (mut clusters, mut per_cluster, mut kernel, mut cycles) = (0u32, 0u32, String::new(), 0u64);
    for line in text.lines() {
        clusters = number(line, "-gpgpu_n_clusters").unwrap_or(clusters);
        per_cluster = number(line, "-gpgpu_n_cores_per_cluster").unwrap_or(per_cluster);
        log.schedulers = number(line, "-gpgpu_num_sched_per_core").unwrap_or(log.schedulers);
        if let Some(rest) = line.strip_prefix("-gpgpu_clock_domains") {
            log.clock_mhz = rest.split(':').next().and_then(|c| c.trim().parse().ok()).unwrap_or(0.0);
        }
        if let (Some(k), Some(r)) = (line.split("Kernel '").nth(1), line.split("regs=").nth(1)) {
            let regs = r.split(',').next().and_then(|n| n.parse().ok()).unwrap_or(0);
            log.registers.push((k.split('\'').next().unwrap_or("").to_string(), regs));
        }
        if let Some(k) = line.strip_prefix("kernel_name = ") {
            kernel = k.trim().to_string();
        }
        cycles = number(line, "gpu_sim_cycle = ").unwrap_or(cycles);
        if let Some(insn) = number::<u64>(line, "gpu_sim_insn = ") {
            log.launches.push((kernel.clone(), cycles, insn));
        }
    }
    log.sms = clusters * per_cluster;
    log
}

/// `preset` with the log's SM count, schedulers (and as many sub-cores at most) and clock.
fn mirrored(preset: &str, log: &Log) -> Option<GpuConfig> {
    let mut gpu = presets::by_name(preset)?;
    gpu.core.sm_count = log.sms;
    gpu.core.core_clock_mhz = log.clock_mhz;
    gpu.scheduler.schedulers_per_sm = log.schedulers;
    gpu.core.sub_cores = gpu.core.sub_cores.min(log.schedulers);
    Some(gpu)
}

/// Our `(cycles, thread-instructions)` for `ptx` at `launch` on `gpu`, with `regs` per thread.
fn simulate(ptx: &str, launch: &str, gpu: &GpuConfig, regs: Option<u32>) -> Result<(u64, u64), String> {
    let src = std::fs::read_to_string(corpus_dir().join("gpgpu-sim").join(ptx)).map_err(|e| e.to_string())?;
    let module = sim_core::ptx::compile(&src).map_err(|_| format!("{ptx} does not compile"))?;
    let path = repo_root().join("docs/fidelity/gpgpu-sim").join(launch);
    let json = std::fs::read_to_string(path).map_err(|e| e.to_string())?;
    let setup = LaunchSetup::from_json(&json).map_err(|e| e.to_string())?;
    let options = TimingOptions { registers_per_thread: regs, ..TimingOptions::default() };
    let mut sim = Simulation::from_launch(&module, &setup, gpu, &["baseline"], options).map_err(|e| e.to_string())?;
    let reports = sim.run_to_end().map_err(|e| e.to_string())?;
    let r = reports.first().ok_or("no report")?;
    Ok((r.cycles, r.thread_instructions))
}

/// One row of the page: ours beside GPGPU-Sim's (`launches`: which of the log's launches).
fn row(out: &mut String, what: &str, ours: (u64, u64), theirs: (u64, u64)) {
    let ratio = ours.0 as f64 / theirs.0.max(1) as f64;
    let _ = writeln!(out, "| {what} | {} | {} | {ratio:.2} | {} | {} |", ours.0, theirs.0, ours.1, theirs.1);
    eprintln!(
        "{what}: cycles {} vs GPGPU-Sim {} ({ratio:.2}x), thread-instructions {} vs {}",
        ours.0, theirs.0, ours.1, theirs.1
    );
}

fn log(name: &str) -> Log {
    parse(&std::fs::read_to_string(corpus_dir().join("gpgpu-sim").join(name)).unwrap_or_default())
}

fn regs(log: &Log, kernel: &str) -> Option<u32> {
    log.registers.iter().find(|(k, _)| k == kernel).map(|r| r.1)
}

/// BFS: the launches the log excerpt has figures for (the first round: Kernel, then Kernel2),
/// summed; `bfs_sample.launch.json` runs every round to the end.
fn bfs(out: &mut String) {
    let log = log("pr219_bfs.gpgpusim_log_excerpt.txt");
    let gpu = mirrored("fermi-gtx480", &log);
    assert!(gpu.is_some(), "no fermi-gtx480 preset");
    let Some(gpu) = gpu else { return };
    let ours = simulate(
        "pr219_bfs.1.sm_20.ptx",
        "bfs_sample_first_round.launch.json",
        &gpu,
        regs(&log, "_Z6KernelP4NodePiPbS2_S2_S1_i"),
    );
    assert!(ours.is_ok(), "BFS: {:?}", ours.err());
    let ours = ours.unwrap_or_default();
    assert!(!log.launches.is_empty(), "no launches in the BFS log excerpt");
    let theirs = log.launches.iter().fold((0, 0), |(c, i), l| (c + l.1, i + l.2));
    row(out, "BFS SampleGraph, first round: Kernel + Kernel2 (fermi-gtx480 as the log)", ours, theirs);
    assert_eq!(ours.1, theirs.1, "BFS thread-instructions differ from GPGPU-Sim's");
    let ratio = ours.0 as f64 / theirs.0 as f64;
    assert!((0.1..10.0).contains(&ratio), "BFS cycles {ratio:.2}x GPGPU-Sim's");
}

#[test]
fn bfs_sample_graph_beside_gpgpusim() {
    bfs(&mut String::new());
}

#[test]
#[ignore = "1.3 billion thread-instructions: run in release by scripts/fidelity.sh"]
fn backprop_and_bfs_beside_gpgpusim() {
    let mut out = String::from(HEADER);
    let log = log("pr146_backprop.gpgpusim_log_excerpt.txt");
    let gpu = mirrored("volta-v100", &log);
    assert!(gpu.is_some(), "no volta-v100 preset");
    let Some(gpu) = gpu else { return };
    for (kernel, launch) in [
        ("_Z22bpnn_layerforward_CUDAPfS_S_S_ii", "backprop_layerforward.launch.json"),
        ("_Z24bpnn_adjust_weights_cudaPfiS_iS_S_", "backprop_adjust_weights.launch.json"),
    ] {
        let theirs = log.launches.iter().find(|l| l.0 == kernel).map_or((0, 0), |l| (l.1, l.2));
        let ours = simulate("pr146_backprop.1.sm_30.ptx", launch, &gpu, regs(&log, kernel));
        assert!(ours.is_ok(), "{kernel}: {:?}", ours.err());
        let ours = ours.unwrap_or_default();
        row(&mut out, &format!("backprop {kernel} (volta-v100 as the log)"), ours, theirs);
        assert_eq!(ours.1, theirs.1, "{kernel}: thread-instructions differ from GPGPU-Sim's");
    }
    bfs(&mut out);
    out.push_str(FOOTER);
    if let Some(path) = std::env::var_os("REGLAB_GPGPUSIM_PAGE") {
        assert!(std::fs::write(path, out).is_ok(), "page not written");
    }
}

const HEADER: &str = "# Cycles against GPGPU-Sim

Generated by `scripts/fidelity.sh` (`cargo test --release -p reglab-tests --test gpgpusim_cycles
-- --ignored`; do not edit). Each kernel runs at the launch of the GPGPU-Sim log excerpt in the
corpus (`gpgpu-sim/*.gpgpusim_log_excerpt.txt`; launch files in `docs/fidelity/gpgpu-sim/`) under
the `baseline` scheme, on a preset with the log's configuration applied: SM count (clusters ×
cores per cluster), warp schedulers per SM, core clock, and the log's registers per thread.
Backprop: `volta-v100` (the log is GPGPU-Sim's V100 config: 80 SMs, 4 schedulers, 1455 MHz),
grid 1 × 32768, 16 × 16 threads, 524,288 inputs, 16 hidden units. BFS: `fermi-gtx480` (the
PTX is sm_20; the log's regression config has 28 SMs, 2 schedulers, 1481 MHz) on the
SampleGraph, the first round (`Kernel`, then `Kernel2`: the two launches the excerpt has figures
for) summed. Thread-instructions count active lanes whose
guard holds, as GPGPU-Sim's `gpu_sim_insn` does. GPGPU-Sim's cycles are simulated, not measured.

| kernel | our cycles | GPGPU-Sim cycles | ours / GPGPU-Sim | our thread-instructions | GPGPU-Sim's |
|---|---|---|---|---|---|
";

const FOOTER: &str = "
## The main difference on layerforward

Thread-instruction counts agree exactly, so the difference is timing alone. `bpnn_layerforward`
is latency-bound, not bandwidth-bound, in RegLab: moving the core clock from the preset's
1132 MHz to the log's 1455 MHz (22% fewer DRAM bytes per core cycle) changed its cycles by 0.1%
(191,833 → 192,027, measured before the L2 MSHR fix below), while `adjust_weights`, which streams
the weight matrices, slowed by 5%. Each layerforward CTA waits on two global loads in sequence
(the input element before the first barrier, its weight after it), then a reduction over four
barriers (with `lg2`/`ex2` for `pow`) and the store; with 8 CTAs of 256 threads resident per SM
(the thread limit, whatever the register count, 14 or 23) the 32768 CTAs run in about 51 waves
over 80 SMs, so each wave's time is set by loaded memory latency: about 3,750 cycles per wave in
RegLab against 4,420 in GPGPU-Sim. RegLab's memory path is a fixed L2 latency (160) plus DRAM
latency (100) plus a bandwidth queue per channel; GPGPU-Sim adds the interconnect and detailed
HBM2 scheduling (row-buffer misses, read/write turnarounds, FR-FCFS queues), which lengthen a
round trip under load — the likeliest main difference, not isolated further here (RegLab has no
interconnect model to switch on).

## adjust_weights, before and after the L2 MSHR fix

Until 2026-11-25 the presets gave the whole chip's L2 192 MSHRs, where GPGPU-Sim's
`-gpgpu_cache:dl2 …,A:192:4` gives 192 to each of the V100 config's 64 L2 slices (see
[hardware.md](hardware.md), where a real H200 showed streaming kernels 4–11× too slow). With the
cap, at most 192 lines were in flight to DRAM and `adjust_weights` came out 1.07× GPGPU-Sim's
cycles (318,911); with the V100 config's own 192 × 64 it comes out 0.76× (the table). The
earlier agreement was the cap standing in for DRAM effects RegLab does not model: its DRAM is
an ideal server at peak bandwidth per channel, while GPGPU-Sim's HBM2 model loses bandwidth to
row-buffer misses, bank conflicts and read/write turnarounds. The real H200 points the same way:
RegLab's streaming kernels take 0.65–0.68× the measured time. A DRAM timing model is the next
step for cycle fidelity on bandwidth-bound kernels; no constant was changed to close the gap.
";
