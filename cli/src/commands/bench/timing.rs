//! The timing half of `reglab bench`: the bundled examples through the executor and the
//! cycle-level timing model under one register-file scheme (baseline unless asked), single
//! threaded. The timing model's own time is the run's time minus the executor's (measured around
//! every CTA it hands over); the peak resident memory of the simulation is read from
//! `/proc/self/status` (`VmHWM`, reset before each run through `/proc/self/clear_refs`; Linux).
//!
//! ```text
//! vector_add  720896 warp-insts  97201 cycles  timing 0.35 s  → 2.0e6 warp-instructions/s
//! ```

use std::time::{Duration, Instant};

use sim_core::exec::LaunchSetup;
use sim_core::gpu::GpuConfig;
use sim_core::ir::Module;
use sim_core::timing::stream::exec_source::{ExecSource, SourceOptions};
use sim_core::timing::stream::timed_source::TimedSource;
use sim_core::timing::{Program, Simulation, TimingOptions};

/// Host time: wall clock and this thread's CPU time (Linux `schedstat`, nanoseconds; zero
/// elsewhere).
#[derive(Clone, Copy, Default)]
pub struct Clock {
    /// Wall clock.
    pub wall: Duration,
    /// This thread's CPU time.
    pub cpu: Duration,
}

impl Clock {
    /// The sum.
    pub fn add(self, o: Clock) -> Clock {
        Clock { wall: self.wall + o.wall, cpu: self.cpu + o.cpu }
    }

    /// The difference (saturating).
    pub fn sub(self, o: Clock) -> Clock {
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

/// Milliseconds of wall clock since the first call, for [`TimedSource`] (the executor's CPU share
/// is estimated from the whole run's CPU/wall ratio: reading CPU time around every CTA would cost
/// more than a CTA).
fn wall_ms() -> f64 {
    static ORIGIN: std::sync::OnceLock<Instant> = std::sync::OnceLock::new();
    ORIGIN.get_or_init(Instant::now).elapsed().as_secs_f64() * 1000.0
}

#[derive(Clone, Default)]
pub struct Measured {
    /// Example name.
    pub name: &'static str,
    /// Warp-instructions simulated.
    pub warp_instructions: u64,
    /// Simulated cycles.
    pub cycles: u64,
    /// Host time of the whole simulation.
    pub total: Clock,
    /// Host time the executor took.
    pub executor: Clock,
    /// Peak resident memory of the process during the simulation in KiB (`None`: unknown).
    pub peak_rss_kib: Option<u64>,
    /// Wall time of the same simulation with the executor on a thread of its own
    /// (`--pipelined`; `reglab run` with a spare thread).
    pub pipelined: Option<Duration>,
}

/// Resets the process's peak resident memory (`VmHWM`) to its current resident memory; false
/// where that is not possible (not Linux, or an old kernel).
fn reset_peak_rss() -> bool {
    std::fs::write("/proc/self/clear_refs", "5").is_ok()
}

/// The process's peak resident memory in KiB since the last reset (`VmHWM`, Linux).
fn peak_rss_kib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// One example to simulate: its name, PTX and launch setup (JSON).
pub type Example<'a> = (&'static str, &'a str, &'a str);

/// How the examples are simulated.
#[derive(Clone, Copy, Debug, Default)]
pub struct Mode {
    /// A smaller grid.
    pub quick: bool,
    /// [`TimingOptions::lockstep_windows`]: every SM stops at each window's end.
    pub lockstep_windows: bool,
}

/// Simulates one example (as `mode` says) under `scheme` and times it; with
/// `pipelined`, simulates it again with the executor on its own thread and times that too
/// (the two must agree on cycles and warp-instructions).
pub fn measure(
    example: Example<'_>,
    scheme: &str,
    gpu: &GpuConfig,
    mode: Mode,
    pipelined: bool,
) -> Result<Measured, String> {
    let mut m = measure_once(example, scheme, gpu, mode)?;
    if pipelined {
        let (insts, cycles, wall) = measure_pipelined(example, scheme, gpu, mode)?;
        if (insts, cycles) != (m.warp_instructions, m.cycles) {
            return Err(format!(
                "{}: the pipelined executor gave {cycles} cycles and {insts} warp-instructions, not {} and {}",
                m.name, m.cycles, m.warp_instructions
            ));
        }
        m.pipelined = Some(wall);
    }
    Ok(m)
}

/// The executor on its own thread, ahead of the timing model: (warp-instructions, cycles, wall).
fn measure_pipelined(
    example: Example<'_>,
    scheme: &str,
    gpu: &GpuConfig,
    mode: Mode,
) -> Result<(u64, u64, Duration), String> {
    let name = example.0;
    let (module, program, inner, options) = prepare(example, scheme, gpu, mode)?;
    let watch = Instant::now();
    let source = crate::commands::pipelined_source::Pipelined::start(inner);
    let mut sim = Simulation::from_module_source(&module, program, source, gpu, &[scheme], options)
        .map_err(|e| format!("{name} ({scheme}): {e}"))?;
    let reports = sim.run_to_end().map_err(|e| format!("{name} ({scheme}): {e}"))?;
    let wall = watch.elapsed();
    let r = reports.first().ok_or_else(|| format!("{name}: no report"))?;
    Ok((r.warp_instructions, r.cycles, wall))
}

/// `example` compiled and decoded for `gpu`, with the executor started on its launch (a smaller
/// grid in `mode.quick`) as `scheme`'s timing run needs it, and the timing options.
fn prepare(
    example: Example<'_>,
    scheme: &str,
    gpu: &GpuConfig,
    mode: Mode,
) -> Result<(Module, Program, ExecSource, TimingOptions), String> {
    let (name, ptx, launch) = example;
    let module = sim_core::ptx::compile(ptx).map_err(|d| format!("{name}: {d:?}"))?;
    let setup = LaunchSetup::from_json(launch).map_err(|e| format!("{name}: {e:?}"))?;
    let setup = if mode.quick { super::executor::quick(setup) } else { setup };
    let options = TimingOptions { lockstep_windows: mode.lockstep_windows, ..TimingOptions::default() };
    let program = Program::decode_for(&module, gpu, &options).map_err(|e| format!("{name}: {e}"))?;
    let values = Simulation::wants_values(&[scheme], &options);
    let source = ExecSource::with_options(&module, &setup, &program, SourceOptions::for_gpu(gpu, values))
        .map_err(|e| format!("{name}: {e}"))?;
    Ok((module, program, source, options))
}

/// One simulation of `example`, the executor's time measured around every CTA it hands over.
fn measure_once(example: Example<'_>, scheme: &str, gpu: &GpuConfig, mode: Mode) -> Result<Measured, String> {
    let name = example.0;
    let (module, program, inner, options) = prepare(example, scheme, gpu, mode)?;
    let (source, spent) = TimedSource::new(inner, wall_ms);
    let source = Box::new(source);
    let reset = reset_peak_rss();
    let watch = Stopwatch::start();
    let mut sim = Simulation::from_module_source(&module, program, source, gpu, &[scheme], options)
        .map_err(|e| format!("{name} ({scheme}): {e}"))?;
    let reports = sim.run_to_end().map_err(|e| format!("{name} ({scheme}): {e}"))?;
    let total = watch.elapsed();
    let peak_rss_kib = if reset { peak_rss_kib() } else { None };
    let r = reports.first().ok_or_else(|| format!("{name}: no report"))?;
    let wall = Duration::from_secs_f64(spent.get().ms / 1000.0);
    let share = if total.wall.is_zero() { 0.0 } else { wall.as_secs_f64() / total.wall.as_secs_f64() };
    let executor = Clock { wall, cpu: total.cpu.mul_f64(share.min(1.0)) };
    Ok(Measured {
        name,
        warp_instructions: r.warp_instructions,
        cycles: r.cycles,
        total,
        executor,
        peak_rss_kib,
        pipelined: None,
    })
}
