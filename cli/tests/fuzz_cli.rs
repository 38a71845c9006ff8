//! Every subcommand of the `reglab` binary fed bad input: missing, empty, binary and truncated
//! files, mutated launch setups, absurd numbers, unknown names and flags. Properties: the process
//! exits with 0, 1 (the input has errors) or 2 (usage error) — never a panic (101) or a signal —
//! within the watchdog's time, and a non-zero exit prints a message on stderr (or a structured
//! error on stdout with `--json`). Deterministic: the mutations come from a fixed seed.

use reglab_tests::rng::Rng;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// One invocation may take at most this long (they are all budget-bound).
const STALL: Duration = Duration::from_secs(60);

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn temp(name: &str, bytes: &[u8]) -> String {
    let path = std::env::temp_dir().join(format!("reglab-fuzz-cli-{}-{name}", std::process::id()));
    let written = std::fs::write(&path, bytes);
    assert!(written.is_ok(), "cannot write {}", path.display());
    path.display().to_string()
}

/// Runs `reglab args…`, killing it after [`STALL`]; returns (exit code, stdout, stderr).
fn reglab(args: &[String]) -> (Option<i32>, String, String) {
    let child = Command::new(env!("CARGO_BIN_EXE_reglab"))
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn();
    assert!(child.is_ok(), "cannot start reglab");
    let Ok(mut child) = child else { return (None, String::new(), String::new()) };
    let start = Instant::now();
    loop {
        match child.try_wait() {
            Ok(Some(_)) => break,
            Ok(None) if start.elapsed() > STALL => {
                let _ = child.kill();
                let _ = child.wait();
                return (None, String::new(), format!("hang: killed after {STALL:?}"));
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(5)),
            Err(e) => return (None, String::new(), e.to_string()),
        }
    }
    match child.wait_with_output() {
        Ok(out) => (
            out.status.code(),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        ),
        Err(e) => (None, String::new(), e.to_string()),
    }
}

/// Checks one invocation's outcome; returns a failure description.
fn check(args: &[String]) -> Option<String> {
    let (code, out, err) = reglab(args);
    let ok = match code {
        Some(0) => true,
        Some(1) | Some(2) => !err.trim().is_empty() || out.contains("\"error\"") || out.contains("error"),
        _ => false,
    };
    if ok && !err.contains("panicked") {
        None
    } else {
        Some(format!("reglab {}: exit {code:?}\nstderr: {}", args.join(" "), err.chars().take(600).collect::<String>()))
    }
}

fn mutate_text(text: &[u8], rng: &mut Rng) -> Vec<u8> {
    let mut b = text.to_vec();
    if b.is_empty() {
        return b;
    }
    match rng.below(4) {
        0 => b.truncate(rng.below(b.len())),
        1 => {
            for _ in 0..1 + rng.below(8) {
                let i = rng.below(b.len());
                b[i] = (rng.next_u64() & 0xff) as u8;
            }
        }
        2 => {
            let i = rng.below(b.len());
            let j = (i + rng.below(200)).min(b.len());
            let piece = b[i..j].to_vec();
            b.splice(i..i, piece);
        }
        _ => {
            let i = rng.below(b.len());
            let numbers: [&[u8]; 6] = [b"0", b"-1", b"4294967296", b"99999999999999999999", b"1e308", b"\"nan\""];
            let n = numbers[rng.below(numbers.len())];
            let end = b[i..].iter().position(|c| !c.is_ascii_digit()).map_or(b.len(), |k| i + k);
            b.splice(i..end, n.iter().copied());
        }
    }
    b
}

fn s(v: &[&str]) -> Vec<String> {
    v.iter().map(|x| x.to_string()).collect()
}

#[test]
#[allow(clippy::print_stdout, reason = "the test reports how many cases ran")]
fn every_subcommand_survives_bad_input() {
    let examples = repo().join("static").join("examples");
    let ptx = std::fs::read(examples.join("reduction.ptx")).unwrap_or_default();
    let launch = std::fs::read(examples.join("reduction.launch.json")).unwrap_or_default();
    assert!(!ptx.is_empty() && !launch.is_empty(), "the reduction example is missing");
    let good_ptx = temp("good.ptx", &ptx);
    let empty = temp("empty", b"");
    let binary = temp("binary", &(0u8..=255).cycle().take(4096).collect::<Vec<u8>>());
    let missing = String::from("/nonexistent/reglab/file.ptx");
    let mut cases: Vec<Vec<String>> = vec![
        s(&["--no-such-flag"]),
        s(&["no-such-subcommand"]),
        s(&["parse"]),
        s(&["parse", &missing]),
        s(&["parse", &empty]),
        s(&["parse", &binary]),
        s(&["analyze", &binary, "--json"]),
        s(&["analyze", &empty]),
        s(&["occupancy", "--gpu", "no-such-gpu", "--regs", "32", "--threads", "256"]),
        s(&["occupancy", "--cc", "9.9", "--regs", "32", "--threads", "256"]),
        s(&["occupancy", "--cc", "8.6", "--regs", "4294967295", "--threads", "0", "--json"]),
        s(&[
            "occupancy",
            "--gpu",
            "fermi-gtx480",
            "--regs",
            "0",
            "--threads",
            "99999999",
            "--smem",
            "18446744073709551615",
        ]),
        s(&["occupancy", "--gpu", "gcn3-cu", "--regs", "300", "--threads", "1025", "--json"]),
        s(&["exec", &good_ptx, "--launch", &missing]),
        s(&["exec", &good_ptx, "--launch", &empty, "--json"]),
        s(&["exec", &binary, "--launch", &empty]),
        s(&["exec", &good_ptx, "--propose"]),
        s(&["run", &good_ptx, "--launch", &empty, "--gpu", "fermi-gtx480"]),
        s(&["run", &good_ptx, "--launch", &binary, "--gpu", "no-such-gpu"]),
        s(&["corpus", &missing]),
        s(&["corpus", &empty, "--json"]),
    ];
    let mut rng = Rng(0xC11_F022);
    for k in 0..24 {
        let mutated_launch = temp(&format!("launch-{k}.json"), &mutate_text(&launch, &mut rng));
        let mutated_ptx = temp(&format!("kernel-{k}.ptx"), &mutate_text(&ptx, &mut rng));
        let (p, l) = if k % 3 == 0 { (&mutated_ptx, &mutated_launch) } else { (&good_ptx, &mutated_launch) };
        cases.push(s(&["exec", p, "--launch", l, "--json", "--budget", "200000"]));
        // `run` has no executor budget flag: mutated kernels with the example's own launch.
        let gpu = ["fermi-gtx480", "volta-v100", "gt200-fx5800", "gcn3-cu"][k % 4];
        let (p, l) = (&mutated_ptx, temp("launch.json", &launch));
        cases.push(s(&["run", p, "--launch", &l, "--gpu", gpu, "--max-cycles", "20000", "--sms", "2", "--json"]));
        cases.push(s(&["parse", &mutated_ptx]));
        cases.push(s(&["analyze", &mutated_ptx, "--json"]));
    }
    let mut failures = Vec::new();
    for args in &cases {
        failures.extend(check(args));
    }
    println!("reglab bad-input cases: {}, failures: {}", cases.len(), failures.len());
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}
