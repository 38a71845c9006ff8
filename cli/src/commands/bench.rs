//! `reglab bench [--json] [--gpu PRESET] [--only NAME] [--quick] [--repeat N] [--corpus DIR]
//! [--scheme NAME]… [--all-schemes]`: throughput of the simulator, single threaded (build with
//! `--release`), in simulated warp-instructions per host second: the cycle-level timing model with
//! the baseline register file on the bundled examples (`warp_instructions_per_second`, the
//! executor's time taken out; also per CPU second, which other processes on the machine do not
//! inflate), and the functional executor alone (`executor_warp_instructions_per_second`; its
//! workloads add Rodinia BFS and the ZLUDA unit kernels when the corpus is found). Numbers depend
//! on the host; nothing asserts them.
//!
//! With `--scheme` (repeatable) or `--all-schemes` every scheme named is timed the same way and
//! `schemes` lists, per scheme, the timing model's rate, the end-to-end rate (executor and timing
//! model) and the peak resident memory of its largest run (`peak_rss_kib`, Linux `VmHWM`); the
//! top-level figures are the first scheme's. Without them, `schemes` holds baseline alone.
//!
//! Each example is simulated `--repeat` times (3 by default) and its fastest repetition counts:
//! other load on a shared machine only ever slows a run down, so the fastest is the closest to the
//! simulator's own speed. Every repetition's figure is printed too (`repetitions`), and the
//! repetitions must agree on cycles and warp-instructions (a difference is reported as an error).
//!
//! ```text
//! $ reglab bench --json
//! {"warp_instructions_per_second": 2.0e6, "warp_instructions_per_cpu_second": 2.1e6,
//!  "end_to_end_warp_instructions_per_second": 1.4e6, "executor_warp_instructions_per_second": 5.5e6,
//!  "gpu": "fermi-gtx480", "scheme": "baseline", "repetitions": [2.0e6, 1.8e6, 1.9e6],
//!  "kernels": [{"name": "vector_add", …}, …],
//!  "executor": {"warp_instructions_per_second": …, "kernels": […]}}
//! ```

mod executor;
mod timing;

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use sim_core::gpu::presets;
use timing::{Clock, Measured};

/// Arguments of `reglab bench`.
#[derive(clap::Args)]
pub struct Args {
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
    /// GPU preset the timing model simulates.
    #[arg(long, default_value = "fermi-gtx480")]
    pub gpu: String,
    /// Only the examples whose name contains this (timing model only).
    #[arg(long)]
    pub only: Option<String>,
    /// Smaller problem sizes (a quick smoke run).
    #[arg(long)]
    pub quick: bool,
    /// Simulations of each example (1 to 100); the fastest counts.
    #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u32).range(1..=100))]
    pub repeat: u32,
    /// The PTX corpus (for the executor's BFS and unit-kernel workloads); default
    /// `$REGLAB_CORPUS` or `../shared/corpus/ptx`.
    #[arg(long)]
    pub corpus: Option<PathBuf>,
    /// Register-file schemes to time (repeatable; default baseline), `NAME` or `NAME:k=v,…`.
    #[arg(long = "scheme")]
    pub schemes: Vec<String>,
    /// Time every registered scheme.
    #[arg(long, conflicts_with = "schemes")]
    pub all_schemes: bool,
    /// Also time each example end to end with the executor on a thread of its own, ahead of
    /// the timing model (as `reglab run` does with a thread to spare).
    #[arg(long)]
    pub pipelined: bool,
    /// Stop every SM at each run-ahead window's end, as before SMs ran past it (the same
    /// reports, slower: for measuring what the run-ahead gains).
    #[arg(long)]
    pub lockstep_windows: bool,
}

/// The bundled examples (`static/examples`) with their launch setups (`tests/cases/exec/examples`),
/// the same files the tests check.
const EXAMPLES: &[(&str, &str, &str)] = &[
    (
        "vector_add",
        include_str!("../../../static/examples/vector_add.ptx"),
        include_str!("../../../tests/cases/exec/examples/vector_add.launch.json"),
    ),
    (
        "matmul_tiled",
        include_str!("../../../static/examples/matmul_tiled.ptx"),
        include_str!("../../../tests/cases/exec/examples/matmul_tiled.launch.json"),
    ),
    (
        "reduction",
        include_str!("../../../static/examples/reduction.ptx"),
        include_str!("../../../tests/cases/exec/examples/reduction.launch.json"),
    ),
    (
        "hotspot",
        include_str!("../../../static/examples/hotspot.ptx"),
        include_str!("../../../tests/cases/exec/examples/hotspot.launch.json"),
    ),
    (
        "imgvf",
        include_str!("../../../static/examples/imgvf.ptx"),
        include_str!("../../../tests/cases/exec/examples/imgvf.launch.json"),
    ),
    (
        "histogram",
        include_str!("../../../static/examples/histogram.ptx"),
        include_str!("../../../tests/cases/exec/examples/histogram.launch.json"),
    ),
    (
        "saxpy",
        include_str!("../../../static/examples/saxpy.ptx"),
        include_str!("../../../tests/cases/exec/examples/saxpy.launch.json"),
    ),
];

fn rate(n: u64, d: Duration) -> f64 {
    let s = d.as_secs_f64();
    if s > 0.0 {
        n as f64 / s
    } else {
        0.0
    }
}

/// The schemes `args` asks for, in order.
fn schemes(args: &Args) -> Vec<String> {
    if args.all_schemes {
        sim_core::timing::regfile::SCHEMES.iter().map(|e| String::from(e.name)).collect()
    } else if args.schemes.is_empty() {
        vec![String::from("baseline")]
    } else {
        args.schemes.clone()
    }
}

/// Every example `args` selects, `repeat` times under `scheme`: per repetition, every example's
/// measurement.
fn rounds(args: &Args, scheme: &str, gpu: &sim_core::gpu::GpuConfig) -> Result<Vec<Vec<Measured>>, String> {
    let repeat = args.repeat.max(1) as usize;
    let mut rounds: Vec<Vec<Measured>> = Vec::with_capacity(repeat);
    for _ in 0..repeat {
        let mut round = Vec::new();
        for &example in EXAMPLES {
            if args.only.as_deref().is_some_and(|o| !example.0.contains(o)) {
                continue;
            }
            let mode = timing::Mode { quick: args.quick, lockstep_windows: args.lockstep_windows };
            round.push(timing::measure(example, scheme, gpu, mode, args.pipelined)?);
        }
        rounds.push(round);
    }
    Ok(rounds)
}

/// Runs the subcommand.
pub fn run(args: &Args) -> ExitCode {
    let Some(gpu) = presets::by_name(&args.gpu) else {
        eprintln!("reglab bench: unknown GPU preset '{}'", args.gpu);
        return ExitCode::from(2);
    };
    // Per scheme: its rounds and each example's fastest repetition.
    let mut timed = Vec::new();
    for scheme in schemes(args) {
        let measured = rounds(args, &scheme, &gpu).and_then(|r| fastest(&r).map(|best| (best, r)));
        match measured {
            Ok((best, rounds)) => timed.push((scheme, best, rounds)),
            Err(e) => {
                eprintln!("reglab bench: {e}");
                return ExitCode::from(1);
            }
        }
    }
    let executor = if args.only.is_some() {
        serde_json::Value::Null
    } else {
        let corpus = args
            .corpus
            .clone()
            .or_else(|| std::env::var_os("REGLAB_CORPUS").map(PathBuf::from))
            .unwrap_or_else(|| PathBuf::from("../shared/corpus/ptx"));
        match executor::bench(&corpus, args.quick) {
            Ok(v) => v,
            Err(e) => {
                eprintln!("reglab bench: {e}");
                return ExitCode::from(1);
            }
        }
    };
    print(args.json, &gpu.name, &timed, executor);
    ExitCode::SUCCESS
}

/// Each example's fastest repetition (least timing-model wall time), after checking that every
/// repetition simulated the same cycles and warp-instructions.
fn fastest(rounds: &[Vec<Measured>]) -> Result<Vec<Measured>, String> {
    let Some((first, rest)) = rounds.split_first() else { return Ok(Vec::new()) };
    let mut best = first.clone();
    for round in rest {
        for (b, m) in best.iter_mut().zip(round) {
            if (m.cycles, m.warp_instructions) != (b.cycles, b.warp_instructions) {
                return Err(format!(
                    "{}: repetitions differ ({} cycles and {} warp-instructions, then {} and {}): the simulation is not deterministic",
                    m.name, b.cycles, b.warp_instructions, m.cycles, m.warp_instructions
                ));
            }
            let pipelined = match (b.pipelined, m.pipelined) {
                (Some(x), Some(y)) => Some(x.min(y)),
                (x, y) => x.or(y),
            };
            if m.total.sub(m.executor).wall < b.total.sub(b.executor).wall {
                *b = m.clone();
            }
            b.pipelined = pipelined;
        }
    }
    Ok(best)
}

/// The timing model's warp-instructions per second over one repetition of every example.
fn round_rate(round: &[Measured]) -> f64 {
    let insts: u64 = round.iter().map(|m| m.warp_instructions).sum();
    let model = round.iter().fold(Clock::default(), |a, m| a.add(m.total.sub(m.executor)));
    rate(insts, model.wall)
}

/// One scheme's measurements: its name, each example's fastest repetition, every repetition.
type Timed = (String, Vec<Measured>, Vec<Vec<Measured>>);

/// One scheme's figures over the examples.
struct SchemeFigures<'a> {
    scheme: &'a str,
    results: &'a [Measured],
    /// Each repetition's timing-model rate.
    per_round: Vec<f64>,
    insts: u64,
    /// Timing model alone, and executor plus timing model.
    model: Clock,
    total: Clock,
    /// The largest peak resident memory of any run (KiB).
    peak_rss_kib: Option<u64>,
    /// Executor on its own thread: the examples' fastest wall times, summed (`--pipelined`).
    pipelined: Option<Duration>,
}

impl<'a> SchemeFigures<'a> {
    fn of((scheme, results, rounds): &'a Timed) -> Self {
        let total = results.iter().fold(Clock::default(), |a, m| a.add(m.total));
        let exec = results.iter().fold(Clock::default(), |a, m| a.add(m.executor));
        SchemeFigures {
            scheme,
            results,
            per_round: rounds.iter().map(|r| round_rate(r)).collect(),
            insts: results.iter().map(|m| m.warp_instructions).sum(),
            model: total.sub(exec),
            total,
            peak_rss_kib: rounds.iter().flatten().filter_map(|m| m.peak_rss_kib).max(),
            pipelined: results.iter().map(|m| m.pipelined).sum(),
        }
    }

    /// End to end with the executor on its own thread, when measured.
    fn pipelined_rate(&self) -> Option<f64> {
        self.pipelined.map(|d| rate(self.insts, d))
    }

    fn json(&self) -> serde_json::Value {
        serde_json::json!({
            "scheme": self.scheme,
            "warp_instructions": self.insts,
            "warp_instructions_per_second": rate(self.insts, self.model.wall),
            "warp_instructions_per_cpu_second": rate(self.insts, self.model.cpu),
            "end_to_end_warp_instructions_per_second": rate(self.insts, self.total.wall),
            "end_to_end_warp_instructions_per_cpu_second": rate(self.insts, self.total.cpu),
            "end_to_end_pipelined_warp_instructions_per_second": self.pipelined_rate(),
            "peak_rss_kib": self.peak_rss_kib,
            "repetitions": self.per_round,
        })
    }
}

fn print(json: bool, gpu: &str, timed: &[Timed], executor: serde_json::Value) {
    let figures: Vec<SchemeFigures<'_>> = timed.iter().map(SchemeFigures::of).collect();
    let Some(first) = figures.first() else { return };
    let executor_rate = executor.get("warp_instructions_per_second").cloned().unwrap_or(serde_json::Value::Null);
    if json {
        let kernels: Vec<serde_json::Value> = first.results.iter().map(kernel_json).collect();
        let doc = serde_json::json!({
            "warp_instructions_per_second": rate(first.insts, first.model.wall),
            "warp_instructions_per_cpu_second": rate(first.insts, first.model.cpu),
            "end_to_end_warp_instructions_per_second": rate(first.insts, first.total.wall),
            "end_to_end_pipelined_warp_instructions_per_second": first.pipelined_rate(),
            "executor_warp_instructions_per_second": executor_rate,
            "gpu": gpu,
            "scheme": first.scheme,
            "warp_instructions": first.insts,
            "repetitions": first.per_round,
            "kernels": kernels,
            "schemes": figures.iter().map(SchemeFigures::json).collect::<Vec<_>>(),
            "executor": executor,
        });
        println!("{doc}");
        return;
    }
    print_kernels(first.results);
    for f in &figures {
        let peak = f.peak_rss_kib.map_or_else(|| String::from("unknown"), |k| format!("{:.1} MiB", k as f64 / 1024.0));
        let pipelined = f
            .pipelined_rate()
            .map_or_else(String::new, |r| format!(" · pipelined (executor on its own thread): {r:.0}"));
        println!(
            "timing model ({gpu}, {}): {:.0} warp-instructions/s ({:.0} per CPU second) · end to end: {:.0} ({:.0} per CPU second){pipelined} · peak memory {peak}",
            f.scheme,
            rate(f.insts, f.model.wall),
            rate(f.insts, f.model.cpu),
            rate(f.insts, f.total.wall),
            rate(f.insts, f.total.cpu),
        );
    }
    println!("executor alone (its own workloads): {executor_rate}");
    let each: Vec<String> = first.per_round.iter().map(|r| format!("{r:.0}")).collect();
    println!(
        "fastest of {} repetitions per example; each repetition ({}): {}",
        first.per_round.len(),
        first.scheme,
        each.join(", ")
    );
}

/// The per-example table.
fn print_kernels(results: &[Measured]) {
    println!(
        "{:<14} {:>12} {:>10} {:>9} {:>9} {:>9} {:>13} {:>13}",
        "kernel", "warp insts", "cycles", "timing s", "cpu s", "exec s", "insts/s", "insts/cpu-s"
    );
    for m in results {
        let t = m.total.sub(m.executor);
        println!(
            "{:<14} {:>12} {:>10} {:>9.3} {:>9.3} {:>9.3} {:>13.0} {:>13.0}",
            m.name,
            m.warp_instructions,
            m.cycles,
            t.wall.as_secs_f64(),
            t.cpu.as_secs_f64(),
            m.executor.wall.as_secs_f64(),
            rate(m.warp_instructions, t.wall),
            rate(m.warp_instructions, t.cpu)
        );
    }
}

fn kernel_json(m: &Measured) -> serde_json::Value {
    let t = m.total.sub(m.executor);
    serde_json::json!({
        "name": m.name,
        "warp_instructions": m.warp_instructions,
        "cycles": m.cycles,
        "timing_seconds": t.wall.as_secs_f64(),
        "timing_cpu_seconds": t.cpu.as_secs_f64(),
        "warp_instructions_per_second": rate(m.warp_instructions, t.wall),
        "warp_instructions_per_cpu_second": rate(m.warp_instructions, t.cpu),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn measured(cycles: u64, model_ms: u64) -> Measured {
        let total = Clock { wall: Duration::from_millis(model_ms + 5), cpu: Duration::from_millis(model_ms + 5) };
        let executor = Clock { wall: Duration::from_millis(5), cpu: Duration::from_millis(5) };
        Measured { name: "k", warp_instructions: 1000, cycles, total, executor, peak_rss_kib: None, pipelined: None }
    }

    #[test]
    fn the_fastest_repetition_counts() {
        let rounds = vec![vec![measured(70, 30)], vec![measured(70, 20)], vec![measured(70, 40)]];
        let best = fastest(&rounds).unwrap_or_default();
        assert_eq!(best.len(), 1);
        assert_eq!(best.first().map(|m| m.total.sub(m.executor).wall), Some(Duration::from_millis(20)));
        // 1000 warp-instructions in 30, 20 and 40 ms.
        let per_round: Vec<f64> = rounds.iter().map(|r| round_rate(r)).collect();
        assert_eq!(per_round, vec![1000.0 / 0.030, 1000.0 / 0.020, 1000.0 / 0.040]);
    }

    #[test]
    fn a_scheme_reports_its_rates_and_its_largest_peak_memory() {
        let mut a = measured(70, 30);
        a.peak_rss_kib = Some(2048);
        let mut b = measured(70, 20);
        b.peak_rss_kib = Some(4096);
        let rounds = vec![vec![a], vec![b]];
        let best = fastest(&rounds).unwrap_or_default();
        let timed = (String::from("rfc-ob"), best, rounds);
        let doc = SchemeFigures::of(&timed).json();
        // The fastest repetition: 1000 warp-instructions in 20 ms of timing model, 25 ms in all.
        assert_eq!(doc["scheme"], "rfc-ob");
        assert_eq!(doc["warp_instructions_per_second"], 1000.0 / 0.020);
        assert_eq!(doc["end_to_end_warp_instructions_per_second"], 1000.0 / 0.025);
        // The peak is the largest of every repetition's, not the fastest one's.
        assert_eq!(doc["peak_rss_kib"], 4096);
        assert_eq!(doc["repetitions"], serde_json::json!([1000.0 / 0.030, 1000.0 / 0.020]));
        // Not measured pipelined: null, not zero.
        assert!(doc["end_to_end_pipelined_warp_instructions_per_second"].is_null());
    }

    #[test]
    fn the_pipelined_figure_is_the_fastest_pipelined_run_of_each_example() {
        // Two repetitions: the pipelined wall times are 16 and 10 ms, each repetition's other
        // figures as above; the fastest pipelined run counts even when its repetition is not
        // the fastest for the timing model (the first: 20 ms of timing model against 40).
        let mut a = measured(70, 20);
        a.pipelined = Some(Duration::from_millis(16));
        let mut b = measured(70, 40);
        b.pipelined = Some(Duration::from_millis(10));
        let rounds = vec![vec![a], vec![b]];
        let best = fastest(&rounds).unwrap_or_default();
        let timed = (String::from("baseline"), best, rounds);
        let doc = SchemeFigures::of(&timed).json();
        assert_eq!(doc["warp_instructions_per_second"], 1000.0 / 0.020);
        assert_eq!(doc["end_to_end_pipelined_warp_instructions_per_second"], 1000.0 / 0.010);
    }

    #[test]
    fn repetitions_that_disagree_are_an_error() {
        let rounds = vec![vec![measured(70, 30)], vec![measured(71, 20)]];
        let err = fastest(&rounds).err().unwrap_or_default();
        assert!(err.contains("not deterministic"), "{err}");
    }
}
