//! A generator-based property test of the PTX front end: thousands of seeded mutations of real
//! corpus files and of the file-test cases (truncations, byte flips, deleted and duplicated ranges,
//! inserted tokens, swapped lines, lines spliced in from other files) plus hand-made pathological
//! inputs (deep `{` nesting, huge ranges and literals).
//!
//! Properties: `check` never panics and returns (a watchdog aborts the run if one input takes
//! longer than [`STALL`]); every diagnostic span lies inside the input; and whatever compiles
//! round-trips: emit → compile gives the same IR. The run is bounded by [`BUDGET`] and a fixed
//! number of cases, and is deterministic (fixed seed). For a longer hunt:
//! `REGLAB_FUZZ_SECS=300 REGLAB_FUZZ_SEED=7 cargo test --release -p reglab-tests --test fuzz_front_end`.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use reglab_tests::rng::Rng;
use reglab_tests::{corpus_dir, ptx_files, repo_root};

/// Wall-clock budget of the mutation loop.
const BUDGET: Duration = Duration::from_secs(12);
/// Maximum time one input may take before the watchdog declares a hang.
const STALL: Duration = Duration::from_secs(20);
/// Upper bound on generated cases (the budget usually ends the loop first in debug builds).
const MAX_CASES: usize = 20_000;

const TOKENS: &[&str] = &[
    "{",
    "}",
    ";",
    ",",
    "[",
    "]",
    "(",
    ")",
    "<",
    ">",
    "@",
    "!",
    "|",
    "_",
    "+",
    "-",
    ":",
    "::",
    ".",
    "%",
    "\"",
    "/*",
    "*/",
    "//",
    "\n",
    ".reg",
    ".b32",
    ".pred",
    ".v4",
    ".v2",
    ".global",
    ".shared::cta",
    ".param",
    ".entry",
    ".func",
    ".loc 1 2 3",
    ".pragma \"x\";",
    ".section",
    ".b8",
    ".align",
    "%r<",
    "%r1",
    "%p1",
    "%tid.x",
    "0f3F800000",
    "0d3FF0000000000000",
    "0x",
    "0xFFFFFFFFFFFFFFFFFF",
    "-9223372036854775808",
    "99999999999999999999",
    "1.5e400",
    "$L__BB0_1",
    "bra",
    "ld.global.v4.f32",
    "setp.lt.and.ftz.f32",
    "call.uni",
    ".callprototype",
    "mov.b64",
    "wmma.load.a.sync.row.m16n16k16.f16",
    "cvt.rn.satfinite.e4m3x2.f32",
    "é",
    "\u{1F600}",
    "\0",
];

/// A random line of a random seed, to splice valid statements from one file into another.
fn donor_line<'s>(rng: &mut Rng, seeds: &'s [String]) -> &'s str {
    let seed = &seeds[rng.below(seeds.len())];
    let lines: Vec<&str> = seed.lines().collect();
    lines.get(rng.below(lines.len())).copied().unwrap_or("")
}

fn mutate(rng: &mut Rng, src: &str, seeds: &[String]) -> String {
    let mut bytes = src.as_bytes().to_vec();
    for _ in 0..1 + rng.below(4) {
        let len = bytes.len();
        let at = rng.below(len + 1);
        match rng.below(8) {
            7 => {
                let line_start = bytes[..at].iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
                let donor = donor_line(rng, seeds);
                bytes.splice(line_start..line_start, donor.bytes().chain(std::iter::once(b'\n')));
            }
            0 => bytes.truncate(at),
            1 if len > 0 => {
                let i = rng.below(len);
                bytes[i] = (rng.next_u64() & 0x7F) as u8;
            }
            2 => {
                let end = (at + rng.below(64)).min(len);
                bytes.drain(at..end);
            }
            3 => {
                let end = (at + rng.below(256)).min(len);
                let chunk = bytes[at..end].to_vec();
                bytes.splice(at..at, chunk);
            }
            4 | 5 => {
                let tok = TOKENS[rng.below(TOKENS.len())];
                bytes.splice(at..at, tok.bytes().chain(std::iter::once(b' ')));
            }
            _ => {
                let text = String::from_utf8_lossy(&bytes).into_owned();
                let mut lines: Vec<&str> = text.lines().collect();
                if lines.len() > 1 {
                    let (a, b) = (rng.below(lines.len()), rng.below(lines.len()));
                    lines.swap(a, b);
                }
                bytes = lines.join("\n").into_bytes();
            }
        }
    }
    String::from_utf8_lossy(&bytes).into_owned()
}

fn pathological() -> Vec<String> {
    let head = ".version 7.0\n.target sm_80\n.address_size 64\n.visible .entry k()\n{\n";
    vec![
        format!("{head}{}", "{".repeat(200_000)),
        format!("{head}{}{}}}", "{ .reg .b32 %r; ".repeat(20_000), "}".repeat(20_000)),
        format!("{head}.reg .b32 %r<4000000000>;\n}}"),
        format!(".version 7.0\n.target sm_80\n.global .b32 x[1] = {};", "{".repeat(100_000)),
        format!("{head}mov.b32 %r1, {};\n}}", "-".repeat(100_000)),
        format!("{head}{}\n}}", "add".repeat(100_000)),
        format!("{head}{}\n}}", "call.uni f, (a);\n".repeat(5_000)),
        format!("{head}mov.b32 {{{}}}, 1;\n}}", "%r1, ".repeat(50_000)),
        "\"".repeat(10_000),
        "/*".repeat(10_000),
        String::new(),
        "}".repeat(10_000),
        ".entry".repeat(10_000),
    ]
}

/// Checks one input: no panic, spans in range, and round trip if it compiled.
fn check_case(src: &str) -> Result<(), String> {
    let outcome = std::panic::catch_unwind(|| sim_core::ptx::check(src));
    let checked = outcome.map_err(|_| "check panicked".to_string())?;
    if let Some(d) = checked.diagnostics.iter().find(|d| d.span.end as usize > src.len() || d.span.start > d.span.end) {
        return Err(format!("diagnostic span {:?} outside the input ({} bytes)", d.span, src.len()));
    }
    let Some(module) = checked.module else { return Ok(()) };
    let emitted = sim_core::ptx::emit(&module);
    match sim_core::ptx::compile(&emitted) {
        Ok(again) if again.to_string() == module.to_string() && again == module => Ok(()),
        Ok(_) => Err("emitted PTX compiles to a different IR".into()),
        Err(d) => Err(format!("emitted PTX does not compile: {:?}", d.first().map(|d| &d.message))),
    }
}

/// Aborts the whole test process if no case finishes within [`STALL`] (a hang is a failure we
/// cannot otherwise observe).
#[allow(clippy::print_stderr, reason = "the watchdog must say why it aborts the process")]
fn watchdog(progress: Arc<AtomicU64>, done: Arc<AtomicBool>, start: Instant) {
    std::thread::spawn(move || {
        while !done.load(Ordering::Relaxed) {
            std::thread::sleep(Duration::from_millis(200));
            let last = Duration::from_millis(progress.load(Ordering::Relaxed));
            if start.elapsed().saturating_sub(last) > STALL {
                eprintln!("fuzz_front_end: one input took longer than {STALL:?}: the front end hangs");
                std::process::abort();
            }
        }
    });
}

#[test]
fn front_end_survives_mutated_and_pathological_inputs() {
    let start = Instant::now();
    let progress = Arc::new(AtomicU64::new(0));
    let done = Arc::new(AtomicBool::new(false));
    watchdog(progress.clone(), done.clone(), start);
    let mut files = ptx_files(&corpus_dir());
    files.extend(ptx_files(&repo_root().join("tests").join("cases")));
    let mut seeds: Vec<String> = files
        .iter()
        .filter_map(|p| std::fs::read_to_string(p).ok())
        .map(|s| if s.len() > 24_000 { s[..s.floor_char_boundary(24_000)].to_string() } else { s })
        .collect();
    assert!(!seeds.is_empty(), "corpus not found at {}", corpus_dir().display());
    seeds.sort();
    let mut failures = Vec::new();
    let mark = |p: &AtomicU64| p.store(start.elapsed().as_millis() as u64, Ordering::Relaxed);
    for case in pathological() {
        if let Err(e) = check_case(&case) {
            failures.push(format!("pathological input starting {:?}: {e}", &case[..case.floor_char_boundary(60)]));
        }
        mark(&progress);
    }
    let env = |k: &str| std::env::var(k).ok().and_then(|v| v.parse::<u64>().ok());
    let budget = env("REGLAB_FUZZ_SECS").map_or(BUDGET, Duration::from_secs);
    let max_cases = if env("REGLAB_FUZZ_SECS").is_some() { usize::MAX } else { MAX_CASES };
    let mut rng = Rng(0x5EED_1234_ABCD_0001 ^ env("REGLAB_FUZZ_SEED").unwrap_or(0).wrapping_mul(0x9E37_79B9_7F4A_7C15));
    let mut cases = 0;
    while cases < max_cases && start.elapsed() < budget {
        let seed = &seeds[rng.below(seeds.len())];
        let input = mutate(&mut rng, seed, &seeds);
        if let Err(e) = check_case(&input) {
            failures.push(format!("case {cases}: {e}\n--- input ---\n{}", &input[..input.floor_char_boundary(2000)]));
            if failures.len() >= 3 {
                break;
            }
        }
        cases += 1;
        mark(&progress);
    }
    done.store(true, Ordering::Relaxed);
    assert!(cases > 50 || !failures.is_empty(), "only {cases} cases ran in {budget:?}");
    assert!(failures.is_empty(), "{} failures after {cases} cases:\n{}", failures.len(), failures.join("\n\n"));
}
