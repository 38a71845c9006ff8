//! `reglab bench [--json] [--gpu PRESET]`: throughput of the simulator on the bundled examples
//! (with their launch setups): each runs once through the executor and the cycle-level timing
//! model with the baseline register file, single threaded.
//!
//! ```text
//! $ reglab bench --json
//! {"warp_instructions_per_second": 4.1e6, "end_to_end_warp_instructions_per_second": …,
//!  "executor_warp_instructions_per_second": …, "kernels": [{"name": "saxpy", …}, …]}
//! ```
//!
//! `warp_instructions_per_second` is the timing model's own figure: simulated warp-instructions
//! per host second spent in the timing model, the executor's time (measured around every CTA it
//! hands over) taken out. `end_to_end_…` includes the executor; `executor_…` is the executor
//! alone (with stream recording). Numbers depend on the host and its load; nothing asserts them.

use std::cell::Cell;
use std::process::ExitCode;
use std::rc::Rc;
use std::time::{Duration, Instant};

use sim_core::exec::LaunchSetup;
use sim_core::gpu::presets;
use sim_core::timing::exec_source::ExecSource;
use sim_core::timing::{CtaSource, CtaStream, Program, Simulation, TimingOptions};

/// Arguments of `reglab bench`.
#[derive(clap::Args)]
pub struct Args {
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
    /// GPU preset to simulate.
    #[arg(long, default_value = "fermi-gtx480")]
    pub gpu: String,
    /// Only the examples whose name contains this.
    #[arg(long)]
    pub only: Option<String>,
}

macro_rules! example {
    ($name:literal) => {
        (
            $name,
            include_str!(concat!("../../../static/examples/", $name, ".ptx")),
            include_str!(concat!("../../../tests/cases/exec/examples/", $name, ".launch.json")),
        )
    };
}

/// The bundled examples with their launch setups.
const EXAMPLES: &[(&str, &str, &str)] = &[
    example!("vector_add"),
    example!("saxpy"),
    example!("matmul_tiled"),
    example!("reduction"),
    example!("hotspot"),
    example!("imgvf"),
    example!("histogram"),
];

/// Host time: wall clock and this thread's CPU time (Linux `schedstat`, nanoseconds; zero
/// elsewhere).
#[derive(Clone, Copy, Default)]
struct Clock {
    wall: Duration,
    cpu: Duration,
}

impl Clock {
    fn add(self, o: Clock) -> Clock {
        Clock { wall: self.wall + o.wall, cpu: self.cpu + o.cpu }
    }

    fn sub(self, o: Clock) -> Clock {
        Clock { wall: self.wall.saturating_sub(o.wall), cpu: self.cpu.saturating_sub(o.cpu) }
    }
}

fn thread_cpu() -> Duration {
    std::fs::read_to_string("/proc/thread-self/schedstat")
        .ok()
        .and_then(|s| s.split_whitespace().next().and_then(|n| n.parse::<u64>().ok()))
        .map_or(Duration::ZERO, Duration::from_nanos)
}

/// A running stopwatch.
struct Stopwatch {
    wall: Instant,
    cpu: Duration,
}

impl Stopwatch {
    fn start() -> Self {
        Stopwatch { wall: Instant::now(), cpu: thread_cpu() }
    }

    fn elapsed(&self) -> Clock {
        Clock { wall: self.wall.elapsed(), cpu: thread_cpu().saturating_sub(self.cpu) }
    }
}

/// A source that measures the wall time spent producing CTAs (the CPU share is estimated from
/// the whole run's CPU/wall ratio: reading CPU time around every CTA would cost more than a CTA).
struct Timed {
    inner: ExecSource,
    spent: Rc<Cell<Duration>>,
}

impl CtaSource for Timed {
    fn next_cta(&mut self) -> Result<Option<CtaStream>, String> {
        let start = Instant::now();
        let r = self.inner.next_cta();
        self.spent.set(self.spent.get() + start.elapsed());
        r
    }

    fn total_ctas(&self) -> Option<u64> {
        self.inner.total_ctas()
    }
}

struct Measured {
    name: &'static str,
    warp_instructions: u64,
    cycles: u64,
    total: Clock,
    executor: Clock,
}

fn measure(name: &'static str, ptx: &str, launch: &str, gpu: &sim_core::gpu::GpuConfig) -> Result<Measured, String> {
    let module = sim_core::ptx::compile(ptx).map_err(|d| format!("{name}: {d:?}"))?;
    let setup = LaunchSetup::from_json(launch).map_err(|e| format!("{name}: {e:?}"))?;
    let program = Program::decode(&module, &gpu.execution);
    let spent = Rc::new(Cell::new(Duration::ZERO));
    let inner = ExecSource::new(&module, &setup, &program).map_err(|e| format!("{name}: {e}"))?;
    let source = Box::new(Timed { inner, spent: spent.clone() });
    let watch = Stopwatch::start();
    let mut sim = Simulation::new(program, source, gpu, &["baseline"], TimingOptions::default())
        .map_err(|e| format!("{name}: {e}"))?;
    let reports = sim.run_to_end().map_err(|e| format!("{name}: {e}"))?;
    let total = watch.elapsed();
    let r = reports.first().ok_or_else(|| format!("{name}: no report"))?;
    let wall = spent.get();
    let share = if total.wall.is_zero() { 0.0 } else { wall.as_secs_f64() / total.wall.as_secs_f64() };
    let executor = Clock { wall, cpu: total.cpu.mul_f64(share.min(1.0)) };
    Ok(Measured { name, warp_instructions: r.warp_instructions, cycles: r.cycles, total, executor })
}

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
    let mut results = Vec::new();
    for &(name, ptx, launch) in EXAMPLES {
        if args.only.as_deref().is_some_and(|o| !name.contains(o)) {
            continue;
        }
        match measure(name, ptx, launch, &gpu) {
            Ok(m) => results.push(m),
            Err(e) => {
                eprintln!("reglab bench: {e}");
                return ExitCode::from(1);
            }
        }
    }
    let insts: u64 = results.iter().map(|m| m.warp_instructions).sum();
    let total = results.iter().fold(Clock::default(), |a, m| a.add(m.total));
    let executor = results.iter().fold(Clock::default(), |a, m| a.add(m.executor));
    let timing = total.sub(executor);
    let kernels: Vec<serde_json::Value> = results
        .iter()
        .map(|m| {
            let t = m.total.sub(m.executor);
            serde_json::json!({
                "name": m.name,
                "warp_instructions": m.warp_instructions,
                "cycles": m.cycles,
                "timing_seconds": t.wall.as_secs_f64(),
                "timing_cpu_seconds": t.cpu.as_secs_f64(),
                "executor_seconds": m.executor.wall.as_secs_f64(),
                "warp_instructions_per_second": rate(m.warp_instructions, t.wall),
                "warp_instructions_per_cpu_second": rate(m.warp_instructions, t.cpu),
            })
        })
        .collect();
    let doc = serde_json::json!({
        "gpu": gpu.name,
        "scheme": "baseline",
        "warp_instructions_per_second": rate(insts, timing.wall),
        "warp_instructions_per_cpu_second": rate(insts, timing.cpu),
        "end_to_end_warp_instructions_per_second": rate(insts, total.wall),
        "executor_warp_instructions_per_second": rate(insts, executor.wall),
        "executor_warp_instructions_per_cpu_second": rate(insts, executor.cpu),
        "warp_instructions": insts,
        "kernels": kernels,
    });
    if args.json {
        println!("{doc}");
    } else {
        println!(
            "{:<14} {:>12} {:>10} {:>9} {:>9} {:>9} {:>13} {:>13}",
            "kernel", "warp insts", "cycles", "timing s", "cpu s", "exec s", "insts/s", "insts/cpu-s"
        );
        for m in &results {
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
            "timing model: {:.0} warp-instructions/s ({:.0} per CPU second) · end to end: {:.0} · executor: {:.0}",
            rate(insts, timing.wall),
            rate(insts, timing.cpu),
            rate(insts, total.wall),
            rate(insts, executor.wall)
        );
    }
    ExitCode::SUCCESS
}
