//! Running a timing file test: `tests/cases/timing/<name>.ptx` starts with `// run: timing`, carries
//! a `// launch: {…}` line (the executor's launch format) and a
//! `// timing: PRESET [sms=N] [schemes=a,b | schemes=a:x=1,y=2;b] [scheme=NAME:k=v,k=v]… [registers=N] [single_use=true]`
//! line; the key figures of each scheme's
//! report, as text, must equal `<name>.expected` (`tests/file_tests.rs`).
//!
//! ```text
//! // run: timing
//! // timing: hopper-h100 sms=1 schemes=baseline,no-bank-conflicts
//! == baseline
//! cycles 47 · warp instructions 10 · thread instructions 320 …
//! ```

use std::fmt::Write as _;

use sim_core::exec::LaunchSetup;
use sim_core::gpu::presets;
use sim_core::timing::report::Report;
use sim_core::timing::{Simulation, StallCause, TimingOptions};

use crate::exec_case::launch_header;

/// The `// timing:` header: preset, options and schemes.
pub fn timing_header(src: &str) -> Result<(String, TimingOptions, Vec<String>), String> {
    let words: Vec<&str> = src
        .lines()
        .find_map(|l| l.trim().strip_prefix("// timing:"))
        .map(|rest| rest.split_whitespace().collect())
        .unwrap_or_default();
    let preset = words.first().ok_or("no '// timing:' header")?.to_string();
    let mut options = TimingOptions::default();
    let mut schemes = vec![String::from("baseline")];
    let mut own = false;
    for w in words.iter().skip(1) {
        let (k, v) = w.split_once('=').ok_or_else(|| format!("bad header word {w}"))?;
        match k {
            "sms" => options.sms = Some(v.parse().map_err(|_| format!("bad sms {v}"))?),
            // DeMO's baseline measurements (`single_use=true`: TimingOptions::single_use_attribution).
            "single_use" => options.single_use_attribution = v == "true",
            "registers" => options.registers_per_thread = Some(v.parse().map_err(|_| format!("bad registers {v}"))?),
            // `;` separates schemes when a spec has several parameters (`a:x=1,y=2;b`).
            "schemes" => schemes = v.split(if v.contains(';') { ';' } else { ',' }).map(String::from).collect(),
            // One spec with parameters (`scheme=rfc-ob:rfc_entries=2,ob_entries=4`), repeatable;
            // the first replaces the default list.
            "scheme" => {
                if !own {
                    schemes.clear();
                    own = true;
                }
                schemes.push(String::from(v));
            }
            _ => return Err(format!("unknown header key {k}")),
        }
    }
    Ok((preset, options, schemes))
}

/// The reports of the file test `src` (one per scheme of its header).
pub fn simulate(src: &str) -> Result<Vec<Report>, String> {
    let (preset, options, schemes) = timing_header(src)?;
    let gpu = presets::by_name(&preset).ok_or_else(|| format!("unknown preset {preset}"))?;
    let module = sim_core::ptx::compile(src).map_err(|d| format!("{d:?}"))?;
    let setup = LaunchSetup::from_json(launch_header(src).unwrap_or("{}")).map_err(|e| format!("{e:?}"))?;
    let names: Vec<&str> = schemes.iter().map(String::as_str).collect();
    let mut sim = Simulation::from_launch(&module, &setup, &gpu, &names, options).map_err(|e| e.to_string())?;
    sim.run_to_end().map_err(|e| e.to_string())
}

/// The text the `.expected` file holds: the figures a reader can check by hand.
pub fn render(reports: &[Report]) -> String {
    let mut out = String::new();
    for r in reports {
        render_one(r, &mut out);
    }
    out
}

fn render_one(r: &Report, out: &mut String) {
    let _ = writeln!(out, "== {}", r.scheme);
    let _ = writeln!(out, "outcome {:?} · ctas {} · cycles {}", r.outcome, r.ctas, r.cycles);
    for k in &r.kernels {
        let _ = writeln!(
            out,
            "kernel {} · {} threads/CTA · {} registers/thread · {} CTAs/SM ({} warps, occupancy {:.4}) · limited by {}",
            k.kernel,
            k.threads_per_cta,
            k.registers_per_thread,
            k.ctas_per_sm,
            k.warps_per_sm,
            k.theoretical_occupancy,
            k.limited_by.join("+")
        );
    }
    let _ = writeln!(
        out,
        "instructions: warp {} · thread {} · IPC warp {:.4}/cycle · thread {:.4}/cycle",
        r.warp_instructions,
        r.thread_instructions,
        r.ipc.warp_instructions_per_cycle,
        r.ipc.thread_instructions_per_cycle
    );
    let s = &r.stalls;
    let _ = writeln!(
        out,
        "scheduler cycles: issued {} · scheme {} · operand collection {} · structural {} · scoreboard {} · memory {} · barrier {} · no eligible {} · idle {} · total {}",
        s.get(StallCause::Issued),
        s.get(StallCause::SchemeSpecific),
        s.get(StallCause::OperandCollection),
        s.get(StallCause::Structural),
        s.get(StallCause::Scoreboard),
        s.get(StallCause::Memory),
        s.get(StallCause::Barrier),
        s.get(StallCause::NoEligibleWarp),
        s.get(StallCause::Idle),
        s.total()
    );
    let rf = &r.register_file;
    let _ = writeln!(
        out,
        "register file: reads {} · writes {} · bank conflicts {} (read-read {}, read-write {}, write-write {}) · energy {:.3} nJ",
        rf.reads,
        rf.writes,
        rf.bank_conflicts,
        rf.scheme.bank_conflicts_read_read,
        rf.scheme.bank_conflicts_read_write,
        rf.scheme.bank_conflicts_write_write,
        rf.energy_total_nj
    );
    render_memory_and_values(r, out);
    render_scheme_extras(r, out);
}

/// What only some schemes have, printed only when present (so the files of schemes without them
/// stay as they were): the stall causes the platform added, structures beside the main register
/// file, the scheme's counters and its residency moves.
fn render_scheme_extras(r: &Report, out: &mut String) {
    let s = &r.stalls;
    let extra = [StallCause::CtaSwitch, StallCause::AcquireWait, StallCause::SchemeBufferFull];
    if extra.iter().any(|c| s.get(*c) > 0) {
        let _ = writeln!(
            out,
            "scheme stalls: cta switch {} · acquire wait {} · scheme buffer full {}",
            s.get(StallCause::CtaSwitch),
            s.get(StallCause::AcquireWait),
            s.get(StallCause::SchemeBufferFull)
        );
    }
    let structures = &r.register_file.scheme.structures;
    if structures.len() > 1 || structures.iter().any(|t| t.name != "main_rf") {
        let list: Vec<String> = structures.iter().map(|t| format!("{} {}r/{}w", t.name, t.reads, t.writes)).collect();
        let _ = writeln!(out, "structures: {}", list.join(" · "));
    }
    let counters = &r.register_file.scheme.counters;
    if !counters.is_empty() {
        let list: Vec<String> = counters.iter().map(|c| format!("{} {} {}", c.name, c.value, c.unit)).collect();
        let _ = writeln!(out, "counters: {}", list.join(" · "));
    }
    if let Some(v) = sim_core::timing::summary::value_shares(r) {
        let _ = writeln!(
            out,
            "value shares: redundant {:.1}% of {} instructions · 16-bit integer values {:.1}% of {}",
            100.0 * v.redundant,
            v.redundant_of,
            100.0 * v.integer_16bit,
            v.integer_values
        );
    }
    let mem = &r.memory;
    if mem.scheme_reads + mem.scheme_writes > 0 {
        let _ = writeln!(
            out,
            "scheme memory: reads {} · writes {} · bytes {} · transactions {}",
            mem.scheme_reads, mem.scheme_writes, mem.scheme_bytes, mem.scheme_transactions
        );
    }
    let m = &r.residency;
    if !m.is_empty() {
        let _ = writeln!(
            out,
            "residency: parks {} · switches {} · move cycles {} · moved reads {} · moved writes {}",
            m.parks, m.cta_switches, m.move_cycles, m.moved_register_reads, m.moved_register_writes
        );
    }
}

fn render_memory_and_values(r: &Report, out: &mut String) {
    let m = &r.memory;
    let _ = writeln!(
        out,
        "memory: loads {} · stores {} · shared {} · const {} · transactions {} · L1 {}/{} · L2 {}/{} · DRAM reads {} writes {}",
        m.global_loads, m.global_stores, m.shared_accesses, m.const_accesses, m.transactions, m.l1_hits, m.l1_misses,
        m.l2_hits, m.l2_misses, m.dram_reads, m.dram_writes
    );
    let v = &r.values.reads_per_value;
    let _ = writeln!(
        out,
        "values: read 0× {} · 1× {} · 2× {} · >2× {} · reads {}",
        v.zero, v.one, v.two, v.more_than_two, r.values.reads
    );
}

/// The whole rendering of the test `src`, or its error.
pub fn run_case(src: &str) -> String {
    match simulate(src) {
        Ok(r) => render(&r),
        Err(e) => format!("error: {e}\n"),
    }
}
