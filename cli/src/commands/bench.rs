//! `reglab bench [--json] [--gpu PRESET] [--only NAME] [--quick] [--repeat N] [--corpus DIR]`:
//! throughput of the simulator, single threaded (build with `--release`), in simulated
//! warp-instructions per host second: the cycle-level timing model with the baseline register file
//! on the bundled examples (`warp_instructions_per_second`, the executor's time taken out; also per
//! CPU second, which other processes on the machine do not inflate), and the functional executor
//! alone (`executor_warp_instructions_per_second`; its workloads add Rodinia BFS and the ZLUDA unit
//! kernels when the corpus is found). Numbers depend on the host; nothing asserts them.
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

/// Runs the subcommand.
pub fn run(args: &Args) -> ExitCode {
    let Some(gpu) = presets::by_name(&args.gpu) else {
        eprintln!("reglab bench: unknown GPU preset '{}'", args.gpu);
        return ExitCode::from(2);
    };
    let repeat = args.repeat.max(1) as usize;
    // Per repetition, every example's measurement.
    let mut rounds: Vec<Vec<Measured>> = Vec::with_capacity(repeat);
    for _ in 0..repeat {
        let mut round = Vec::new();
        for &(name, ptx, launch) in EXAMPLES {
            if args.only.as_deref().is_some_and(|o| !name.contains(o)) {
                continue;
            }
            match timing::measure(name, ptx, launch, &gpu, args.quick) {
                Ok(m) => round.push(m),
                Err(e) => {
                    eprintln!("reglab bench: {e}");
                    return ExitCode::from(1);
                }
            }
        }
        rounds.push(round);
    }
    let results = match fastest(&rounds) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("reglab bench: {e}");
            return ExitCode::from(1);
        }
    };
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
    print(args.json, &gpu.name, &results, &rounds, executor);
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
            if m.total.sub(m.executor).wall < b.total.sub(b.executor).wall {
                *b = m.clone();
            }
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

fn print(json: bool, gpu: &str, results: &[Measured], rounds: &[Vec<Measured>], executor: serde_json::Value) {
    let per_round: Vec<f64> = rounds.iter().map(|r| round_rate(r)).collect();
    let insts: u64 = results.iter().map(|m| m.warp_instructions).sum();
    let total = results.iter().fold(Clock::default(), |a, m| a.add(m.total));
    let exec = results.iter().fold(Clock::default(), |a, m| a.add(m.executor));
    let model = total.sub(exec);
    let executor_rate = executor.get("warp_instructions_per_second").cloned().unwrap_or(serde_json::Value::Null);
    if json {
        let kernels: Vec<serde_json::Value> = results.iter().map(kernel_json).collect();
        let doc = serde_json::json!({
            "warp_instructions_per_second": rate(insts, model.wall),
            "warp_instructions_per_cpu_second": rate(insts, model.cpu),
            "end_to_end_warp_instructions_per_second": rate(insts, total.wall),
            "executor_warp_instructions_per_second": executor_rate,
            "gpu": gpu,
            "scheme": "baseline",
            "warp_instructions": insts,
            "repetitions": per_round,
            "kernels": kernels,
            "executor": executor,
        });
        println!("{doc}");
        return;
    }
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
    println!(
        "timing model ({gpu}, baseline): {:.0} warp-instructions/s ({:.0} per CPU second) · end to end: {:.0} · executor alone (its own workloads): {executor_rate}",
        rate(insts, model.wall),
        rate(insts, model.cpu),
        rate(insts, total.wall),
    );
    let each: Vec<String> = per_round.iter().map(|r| format!("{r:.0}")).collect();
    println!("fastest of {} repetitions per example; each repetition: {}", rounds.len(), each.join(", "));
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
        Measured { name: "k", warp_instructions: 1000, cycles, total, executor }
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
    fn repetitions_that_disagree_are_an_error() {
        let rounds = vec![vec![measured(70, 30)], vec![measured(71, 20)]];
        let err = fastest(&rounds).err().unwrap_or_default();
        assert!(err.contains("not deterministic"), "{err}");
    }
}
