//! A generator-based property test of everything a user types besides the kernel: launch setups
//! and GPU edits. Seeded mutations of the bundled examples' launch files (numbers replaced by
//! extremes, keys deleted, values retyped, arrays truncated or grown, text cut or flipped) and of
//! every GPU preset (each numeric field set to 0, 1, a huge value or a random one) go through the
//! library the way the CLI and the app use it: parse the setup, plan the launch, run the executor
//! under a small budget, compute occupancy, build and step a timing simulation under a small
//! cycle budget.
//!
//! Properties: nothing panics (each case runs under `catch_unwind`; a panic names the example,
//! the case number and the mutated input), nothing hangs (budgets bound every run and a watchdog
//! aborts the test if one case takes longer than [`STALL`]), and every refusal is an error value
//! with a non-empty message. Deterministic (fixed seed), bounded by [`BUDGET`] per part. For a
//! longer hunt: `REGLAB_FUZZ_SECS=300 REGLAB_FUZZ_SEED=7 cargo test --release -p reglab-tests
//! --test fuzz_inputs`.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use reglab_tests::repo_root;
use reglab_tests::rng::Rng;
use serde_json::Value as Json;
use sim_core::exec::{LaunchSetup, Run, RunOptions};
use sim_core::gpu::{presets, GpuConfig};
use sim_core::timing::{Simulation, TimingOptions};

/// Wall-clock budget of each mutation loop.
const BUDGET: Duration = Duration::from_secs(8);
/// Maximum time one input may take before the watchdog declares a hang.
const STALL: Duration = Duration::from_secs(30);
/// Warp-instruction budget of each functional run.
const EXEC_BUDGET: u64 = 20_000;
/// Cycle budget of each timing run.
const CYCLE_BUDGET: u64 = 20_000;

fn seed() -> u64 {
    std::env::var("REGLAB_FUZZ_SEED").ok().and_then(|s| s.parse().ok()).unwrap_or(0x5EED_1A0C)
}

fn budget() -> Duration {
    std::env::var("REGLAB_FUZZ_SECS").ok().and_then(|s| s.parse().ok()).map_or(BUDGET, Duration::from_secs)
}

/// The bundled examples: (name, PTX text, launch JSON).
fn examples() -> Vec<(String, String, String)> {
    let dir = repo_root().join("static").join("examples");
    let mut out = Vec::new();
    for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
        let path = entry.path();
        let Some(name) = path.file_name().and_then(|n| n.to_str()).and_then(|n| n.strip_suffix(".launch.json")) else {
            continue;
        };
        let ptx = std::fs::read_to_string(dir.join(format!("{name}.ptx"))).unwrap_or_default();
        let launch = std::fs::read_to_string(&path).unwrap_or_default();
        out.push((name.to_string(), ptx, launch));
    }
    out.sort();
    out
}

/// Values a field may be replaced with.
fn extreme(rng: &mut Rng) -> Json {
    let picks = [
        Json::from(0),
        Json::from(1),
        Json::from(-1),
        Json::from(u32::MAX),
        Json::from(u64::MAX),
        Json::from(i64::MIN),
        Json::from(1e300),
        Json::from(0.5),
        Json::from("nan"),
        Json::from("0xffffffff"),
        Json::from("iota"),
        Json::from("random:7"),
        Json::from(""),
        Json::Null,
        Json::Bool(true),
        Json::Array(vec![]),
        Json::Array(vec![Json::from(1 << 20), Json::from(1 << 20), Json::from(64)]),
        Json::Object(serde_json::Map::new()),
    ];
    picks[rng.below(picks.len())].clone()
}

/// One structural mutation somewhere in `v`.
fn mutate(v: &mut Json, rng: &mut Rng) {
    match v {
        Json::Object(map) if !map.is_empty() => {
            let keys: Vec<String> = map.keys().cloned().collect();
            let key = &keys[rng.below(keys.len())];
            match rng.below(5) {
                0 => {
                    map.remove(key);
                }
                1 => {
                    map.insert(key.clone(), extreme(rng));
                }
                2 => {
                    map.insert(format!("unknown_{}", rng.below(9)), extreme(rng));
                }
                _ => {
                    if let Some(inner) = map.get_mut(key) {
                        mutate(inner, rng);
                    }
                }
            }
        }
        Json::Array(items) if !items.is_empty() => {
            let i = rng.below(items.len());
            match rng.below(5) {
                0 => {
                    items.remove(i);
                }
                1 => {
                    let copy = items[i].clone();
                    items.push(copy);
                }
                2 => items[i] = extreme(rng),
                _ => mutate(&mut items[i], rng),
            }
        }
        _ => *v = extreme(rng),
    }
}

/// A byte-level mutation of JSON text (cut, flipped byte, duplicated range).
fn mutate_text(text: &str, rng: &mut Rng) -> String {
    let mut b = text.as_bytes().to_vec();
    if b.is_empty() {
        return String::new();
    }
    match rng.below(3) {
        0 => b.truncate(rng.below(b.len())),
        1 => {
            let i = rng.below(b.len());
            b[i] = b"{}[],:\"0-9e.\\"[rng.below(13)];
        }
        _ => {
            let i = rng.below(b.len());
            let j = (i + rng.below(40)).min(b.len());
            let piece = b[i..j].to_vec();
            b.splice(i..i, piece);
        }
    }
    String::from_utf8_lossy(&b).into_owned()
}

/// Runs `case` on another thread and aborts the whole test if it takes longer than [`STALL`].
struct Watchdog {
    started: Arc<AtomicU64>,
    done: Arc<AtomicBool>,
    current: Arc<Mutex<String>>,
    epoch: Instant,
}

impl Watchdog {
    #[allow(clippy::print_stderr, reason = "the watchdog must say why it aborts the process")]
    fn new(what: &'static str) -> Self {
        let started = Arc::new(AtomicU64::new(0));
        let done = Arc::new(AtomicBool::new(false));
        let current = Arc::new(Mutex::new(String::new()));
        let epoch = Instant::now();
        let (s, d, c) = (started.clone(), done.clone(), current.clone());
        std::thread::spawn(move || {
            while !d.load(Ordering::Relaxed) {
                std::thread::sleep(Duration::from_millis(200));
                let at = s.load(Ordering::Relaxed);
                if at > 0 && epoch.elapsed().as_millis() as u64 > at + STALL.as_millis() as u64 {
                    let input = c.lock().map(|g| g.clone()).unwrap_or_default();
                    eprintln!("{what}: one input ran longer than {STALL:?}: a hang\n{input}");
                    std::process::abort();
                }
            }
        });
        Watchdog { started, done, current, epoch }
    }
    fn tick(&self, input: &str) {
        if let Ok(mut g) = self.current.lock() {
            g.clear();
            g.push_str(input);
        }
        self.started.store(self.epoch.elapsed().as_millis() as u64 + 1, Ordering::Relaxed);
    }
}

impl Drop for Watchdog {
    fn drop(&mut self) {
        self.done.store(true, Ordering::Relaxed);
    }
}

/// Parses, plans and runs `launch` against `ptx`: every refusal must carry a message.
fn exercise_launch(ptx: &str, launch: &str) -> Result<(), String> {
    let module = sim_core::ptx::compile(ptx).map_err(|_| "example does not compile".to_string())?;
    let setup = match LaunchSetup::from_json(launch) {
        Ok(s) => s,
        Err(e) if !e.message.is_empty() => return Ok(()),
        Err(_) => return Err("empty launch error".into()),
    };
    let options = RunOptions { budget: Some(EXEC_BUDGET), ..RunOptions::default() };
    match Run::new(&module, &setup, options).and_then(|mut r| r.run_to_end()) {
        Ok(_) => {}
        Err(e) if e.to_string().trim().is_empty() => return Err("empty executor error".into()),
        Err(_) => {}
    }
    let gpu = presets::by_name("fermi-gtx480").ok_or("no fermi preset")?;
    time(&module, &setup, &gpu)
}

/// A short timing run: must end in a report or an error with a message.
fn time(module: &sim_core::ir::Module, setup: &LaunchSetup, gpu: &GpuConfig) -> Result<(), String> {
    let mut setup = setup.clone();
    setup.budget = Some(EXEC_BUDGET);
    let options = TimingOptions { max_cycles: CYCLE_BUDGET, sms: Some(2), ..TimingOptions::default() };
    match Simulation::from_launch(module, &setup, gpu, &["baseline", "no-bank-conflicts"], options) {
        Ok(mut sim) => match sim.run_to_end() {
            Ok(reports) if reports.len() == 2 => Ok(()),
            Ok(r) => Err(format!("{} reports for 2 schemes", r.len())),
            Err(e) if e.to_string().trim().is_empty() => Err("empty timing error".into()),
            Err(_) => Ok(()),
        },
        Err(e) if e.to_string().trim().is_empty() => Err("empty timing error".into()),
        Err(_) => Ok(()),
    }
}

/// Runs `case` under `catch_unwind`; a panic becomes an error naming the input.
fn guarded(label: &str, input: &str, case: impl FnOnce() -> Result<(), String>) -> Option<String> {
    match catch_unwind(AssertUnwindSafe(case)) {
        Ok(Ok(())) => None,
        Ok(Err(e)) => Some(format!("{label}: {e}\ninput: {input}")),
        Err(p) => {
            let msg = p
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_default();
            Some(format!("{label}: panicked: {msg}\ninput: {input}"))
        }
    }
}

#[test]
#[allow(clippy::print_stdout, reason = "the test reports how many cases ran")]
fn mutated_launch_setups_never_panic_or_hang() {
    let examples = examples();
    assert!(examples.len() >= 7, "bundled examples not found under static/examples");
    let dog = Watchdog::new("mutated launch setups");
    let mut rng = Rng(seed());
    let start = Instant::now();
    let (mut cases, mut failures) = (0usize, Vec::new());
    while start.elapsed() < budget() && cases < 5_000 {
        let (name, ptx, launch) = &examples[cases % examples.len()];
        let text = if rng.below(4) == 0 {
            mutate_text(launch, &mut rng)
        } else {
            let mut v: Json = serde_json::from_str(launch).unwrap_or(Json::Null);
            for _ in 0..1 + rng.below(3) {
                mutate(&mut v, &mut rng);
            }
            v.to_string()
        };
        dog.tick(&format!("{name} case {cases}: {text}"));
        if let Some(f) = guarded(&format!("{name} case {cases}"), &text, || exercise_launch(ptx, &text)) {
            failures.push(f);
        }
        cases += 1;
    }
    println!("mutated launch setups: {cases} cases, {} failures", failures.len());
    assert!(cases >= examples.len(), "too few cases ran");
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// Every numeric leaf of `v`, as a JSON pointer.
fn numeric_paths(v: &Json, at: String, out: &mut Vec<String>) {
    match v {
        Json::Number(_) => out.push(at),
        Json::Object(m) => m.iter().for_each(|(k, x)| numeric_paths(x, format!("{at}/{k}"), out)),
        Json::Array(a) => a.iter().enumerate().for_each(|(i, x)| numeric_paths(x, format!("{at}/{i}"), out)),
        _ => {}
    }
}

#[test]
#[allow(clippy::print_stdout, reason = "the test reports how many cases ran")]
fn edited_gpus_never_panic_or_hang() {
    let examples = examples();
    let found = examples.iter().find(|(n, _, _)| n == "reduction").cloned();
    assert!(found.is_some(), "the reduction example is missing");
    let (_, ptx, launch) = found.unwrap_or_default();
    let module = sim_core::ptx::compile(&ptx).unwrap_or_default();
    let parsed = LaunchSetup::from_json(&launch);
    assert!(parsed.is_ok(), "the reduction example's launch does not parse");
    let Ok(setup) = parsed else { return };
    let dog = Watchdog::new("edited GPUs");
    let mut rng = Rng(seed() ^ 0x6B0);
    let presets: Vec<GpuConfig> = presets::names().filter_map(presets::by_name).collect();
    let start = Instant::now();
    let (mut cases, mut failures) = (0usize, Vec::new());
    while start.elapsed() < budget() && cases < 2_000 {
        let gpu = &presets[cases % presets.len()];
        let mut v = serde_json::to_value(gpu).unwrap_or(Json::Null);
        let mut paths = Vec::new();
        numeric_paths(&v, String::new(), &mut paths);
        let mut edits = Vec::new();
        for _ in 0..1 + rng.below(3) {
            let path = &paths[rng.below(paths.len())];
            let value = match rng.below(5) {
                0 => Json::from(0),
                1 => Json::from(1),
                2 => Json::from(u32::MAX),
                3 => Json::from(rng.below(200)),
                _ => Json::from(1u64 << 40),
            };
            if let Some(slot) = v.pointer_mut(path) {
                *slot = value.clone();
            }
            edits.push(format!("{path} = {value}"));
        }
        let label = format!("{} case {cases}", gpu.name);
        let input = edits.join(", ");
        dog.tick(&format!("{label}: {input}"));
        if let Ok(edited) = serde_json::from_value::<GpuConfig>(v) {
            let failure = guarded(&label, &input, || time(&module, &setup, &edited));
            failures.extend(failure);
        }
        cases += 1;
    }
    println!("edited GPUs: {cases} cases, {} failures", failures.len());
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}
