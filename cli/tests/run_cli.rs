//! `reglab run` end to end: a bundled example through two schemes gives one report each (same
//! functional run, so the same instruction counts; only the baseline has bank conflicts), and a
//! GPU the model cannot simulate is a structured error (exit 1, JSON on stdout), never a crash;
//! `--virtual-banks` changes the bank side only (conflicts, hence timing; not the accesses).

use std::process::Command;

use serde_json::Value as Json;

const ROOT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/..");

/// Runs `reglab run` and returns (exit code, parsed stdout, stderr).
fn run(args: &[&str]) -> (i32, Json, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_reglab")).arg("run").args(args).current_dir(ROOT).output();
    assert!(out.is_ok(), "cannot run reglab");
    let Ok(out) = out else { return (-1, Json::Null, String::new()) };
    let json = serde_json::from_slice(&out.stdout).unwrap_or(Json::Null);
    (out.status.code().unwrap_or(-1), json, String::from_utf8_lossy(&out.stderr).into_owned())
}

#[test]
fn schemes_share_one_functional_run() {
    let (code, json, err) = run(&[
        "static/examples/imgvf.ptx",
        "--launch",
        "static/examples/imgvf.launch.json",
        "--gpu",
        "fermi-gtx480",
        "--scheme",
        "baseline",
        "--scheme",
        "no-bank-conflicts",
        "--json",
    ]);
    assert_eq!(code, 0, "{err}");
    let reports = json["reports"].as_array().cloned().unwrap_or_default();
    assert_eq!(reports.len(), 2);
    assert_eq!(reports[0]["scheme"], "baseline");
    assert_eq!(reports[1]["scheme"], "no-bank-conflicts");
    assert!(reports[0]["warp_instructions"].as_u64().unwrap_or(0) > 0);
    assert_eq!(reports[0]["warp_instructions"], reports[1]["warp_instructions"]);
    // The variant removes every bank conflict the baseline has (cycles may still differ either
    // way by a little: scheduling order changes with the timing).
    assert!(reports[0]["register_file"]["bank_conflicts"].as_u64().unwrap_or(0) > 0, "{}", reports[0]);
    assert_eq!(reports[1]["register_file"]["bank_conflicts"], 0);
}

#[test]
fn the_gcn3_compute_unit_runs_64_wide_wavefronts_and_refuses_warp_shuffles_with_their_line() {
    // imgvf uses no warp-level operation: it runs, each wavefront holding 64 threads.
    let (code, json, err) = run(&[
        "static/examples/imgvf.ptx",
        "--launch",
        "static/examples/imgvf.launch.json",
        "--gpu",
        "gcn3-cu",
        "--json",
    ]);
    assert_eq!(code, 0, "stderr: {err}");
    let r = &json["reports"][0];
    let (warp, thread) = (r["warp_instructions"].as_u64().unwrap_or(0), r["thread_instructions"].as_u64().unwrap_or(0));
    assert!(warp > 0 && thread > 32 * warp && thread <= 64 * warp, "{r}");
    // The reduction's `shfl.sync.down` exchanges values within a 32-lane warp: refused, with
    // the instruction and its line.
    let (code, json, err) = run(&[
        "static/examples/reduction.ptx",
        "--launch",
        "static/examples/reduction.launch.json",
        "--gpu",
        "gcn3-cu",
        "--json",
    ]);
    assert_eq!(code, 1, "stderr: {err}");
    assert!(!err.contains("panicked"), "{err}");
    assert_eq!(json["error"]["detail"]["detail"]["kind"], "unsupported", "{json}");
    assert_eq!(json["error"]["detail"]["detail"]["line"], 165, "{json}");
    assert!(json["message"].as_str().unwrap_or("").contains("depends on 32-lane warps"), "{json}");
}

#[test]
fn an_endless_loop_ends_with_where_it_loops_and_how_to_raise_the_budget() {
    // Issue 16's kernel: its only block loops forever. Lines: 8 `add` (the loop's head), 9 `bra`.
    let dir = std::env::temp_dir().join(format!("reglab-run-endless-{}", std::process::id()));
    let _ = std::fs::create_dir_all(&dir);
    let ptx = dir.join("endless.ptx");
    let launch = dir.join("endless.json");
    let src = ".version 7.0\n.target sm_80\n.address_size 64\n.visible .entry k()\n{\n.reg .b32 %r<2>;\nL:\n\
               add.s32 %r1, %r1, 1;\nbra L;\n}\n";
    assert!(std::fs::write(&ptx, src).is_ok() && std::fs::write(&launch, r#"{"kernel": "k", "params": []}"#).is_ok());
    let (ptx_arg, launch_arg) = (ptx.display().to_string(), launch.display().to_string());
    let (code, _, err) = run(&[&ptx_arg, "--launch", &launch_arg, "--gpu", "turing-rtx2060", "--budget", "100000"]);
    assert_eq!(code, 1, "{err}");
    for part in ["kernel k, CTA [0, 0, 0], warp 0", "after 100000 warp-instructions", "lines 8-9", "--budget N"] {
        assert!(err.contains(part), "{part:?} in {err}");
    }
    let (code, json, _) =
        run(&[&ptx_arg, "--launch", &launch_arg, "--gpu", "turing-rtx2060", "--budget", "100000", "--json"]);
    assert_eq!(code, 1);
    let detail = &json["error"]["detail"]["detail"];
    assert_eq!(detail["kind"], "budget_exceeded", "{json}");
    assert_eq!(detail["hot_loop"]["head"]["line"], 8, "{json}");
    assert_eq!(detail["hot_loop"]["back_edge"]["line"], 9, "{json}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// `--virtual-banks` puts the banks on PTX virtual units (the study): the same functional run and
/// register-file accesses, other conflicts (measured in docs/fidelity/physical-registers.md:
/// saxpy on Fermi, baseline 6835 conflicts on virtual units, 5887 on allocated registers).
#[test]
fn virtual_banks_change_only_the_bank_side() {
    let args = ["static/examples/saxpy.ptx", "--launch", "static/examples/saxpy.launch.json", "--gpu", "fermi-gtx480"];
    let (code, allocated, err) = run(&[&args[..], &["--json"]].concat());
    assert_eq!(code, 0, "{err}");
    let (code, virt, err) = run(&[&args[..], &["--virtual-banks", "--json"]].concat());
    assert_eq!(code, 0, "{err}");
    let (a, v) = (&allocated["reports"][0], &virt["reports"][0]);
    assert_eq!(a["warp_instructions"], v["warp_instructions"]);
    assert_eq!(a["register_file"]["reads"], v["register_file"]["reads"]);
    assert_eq!(a["register_file"]["bank_conflicts"], 5887, "{a}");
    assert_eq!(v["register_file"]["bank_conflicts"], 6835, "{v}");
}

/// Gilani's value shares are report figures of every run: in the JSON summary row of every scheme
/// (the baseline's too; none with `--no-values`) and on the table's `values` line. The kernel is
/// `tests/cases/timing/gilani_int_share.ptx` (hand-worked there): 4 of 7 register-writing
/// instructions uniform, 2 of 4 integer values within 16 bits.
#[test]
fn gilani_value_shares_are_summary_figures() {
    let dir = std::env::temp_dir().join(format!("reglab-run-shares-{}", std::process::id()));
    let _ = std::fs::create_dir_all(&dir);
    let launch = dir.join("shares.json");
    let spec = r#"{"kernel": "gilani_int_share", "block": [32], "params": [{"buffer": {"type": "u32", "len": 32}}]}"#;
    assert!(std::fs::write(&launch, spec).is_ok());
    let launch_arg = launch.display().to_string();
    let args = [
        "tests/cases/timing/gilani_int_share.ptx",
        "--launch",
        &launch_arg,
        "--gpu",
        "hopper-h100",
        "--scheme",
        "baseline",
    ];
    let (code, json, err) = run(&[&args[..], &["--scheme", "composite", "--json"]].concat());
    assert_eq!(code, 0, "{err}");
    for row in 0..2 {
        let shares = &json["summary"]["rows"][row]["value_shares"];
        assert_eq!((shares["redundant_of"].as_u64(), shares["integer_values"].as_u64()), (Some(7), Some(4)), "{json}");
        assert_eq!(shares["integer_16bit"].as_f64(), Some(0.5), "{json}");
    }
    let (code, json, err) = run(&[&args[..], &["--no-values", "--json"]].concat());
    assert_eq!(code, 0, "{err}");
    assert!(json["summary"]["rows"][0].get("value_shares").is_none(), "{json}");
    let out = Command::new(env!("CARGO_BIN_EXE_reglab")).arg("run").args(args).current_dir(ROOT).output();
    let table = out.map(|o| String::from_utf8_lossy(&o.stdout).into_owned()).unwrap_or_default();
    let line = "values: redundant across the warp 57.1% of 7 instructions; integer values fitting 16 bits 50.0% of 4";
    assert!(table.contains(line), "{table}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// `--single-use` (DeMO's baseline measurements): the baseline's line under the table gives the
/// single-use memory values' RF accesses and the bank conflicts they are involved in. vector_add
/// on turing-rtx2060, 2 SMs: each thread's two loaded elements are single-use values (a write and
/// a read each): 4 accesses per warp × 128 warps = 512 of 7808 (6.6 %); 1952 of 8156 conflicts
/// involve them (as measured). Without the flag the JSON report has no counters.
#[test]
fn single_use_attribution_is_printed_for_the_baseline() {
    let args = [
        "run",
        "static/examples/vector_add.ptx",
        "--launch",
        "static/examples/vector_add.launch.json",
        "--gpu",
        "turing-rtx2060",
        "--sms",
        "2",
    ];
    let out = Command::new(env!("CARGO_BIN_EXE_reglab")).args(args).arg("--single-use").current_dir(ROOT).output();
    let text = out.map(|o| String::from_utf8_lossy(&o.stdout).into_owned()).unwrap_or_default();
    let line = text.lines().find(|l| l.starts_with("single-use memory values baseline:")).unwrap_or_default();
    assert!(line.contains("512 RF accesses (6.6% of all"), "{text}");
    assert!(line.contains("involved in 1952 bank conflicts (23.9% of all"), "{text}");
    let (code, json, err) = run(&[&args[1..], &["--json"]].concat());
    assert_eq!(code, 0, "{err}");
    assert!(json["reports"][0]["register_file"]["scheme"].get("counters").is_none(), "{}", json["reports"][0]);
}

/// `run` and `sweep` show a text that does not compile as `parse` and `exec` do: every error with
/// its file, line and column, the source line and the hint, then how many errors; `run --json`
/// also gives them as objects on stdout. The saxpy example without its `.reg .f32` declaration:
/// each use of `%f1` … `%f4` is an error, the first where `%f1` is loaded from its parameter.
#[test]
fn a_kernel_that_does_not_compile_is_shown_with_each_error_line_and_column() {
    let text = std::fs::read_to_string(format!("{ROOT}/static/examples/saxpy.ptx")).unwrap_or_default();
    let broken: Vec<&str> = text.lines().filter(|l| !l.contains(".reg .f32")).collect();
    assert_eq!(broken.len() + 1, text.lines().count(), "one declaration removed");
    // Where `%f1` is first used (1-based line and column).
    let (line, column) = broken
        .iter()
        .enumerate()
        .find_map(|(i, l)| l.find("%f1").map(|c| (i + 1, l[..c].chars().count() + 1)))
        .unwrap_or((0, 0));
    assert!(line > 0);
    let dir = std::path::Path::new(ROOT).join("target").join("tmp");
    let _ = std::fs::create_dir_all(&dir);
    let path = dir.join(format!("run_cli_undeclared_{}.ptx", std::process::id()));
    assert!(std::fs::write(&path, broken.join("\n")).is_ok());
    let file = path.display().to_string();
    let launch = ["--launch", "static/examples/saxpy.launch.json", "--gpu", "fermi-gtx480"];

    let (code, _, err) = run(&[&[file.as_str()][..], &launch[..]].concat());
    assert_eq!(code, 1, "{err}");
    let first = format!("{file}:{line}:{column}: error: register '%f1' is not declared");
    assert!(err.starts_with(&first), "{err}");
    assert!(err.contains("= hint: declare it with .reg"), "{err}");
    let errors = err.lines().filter(|l| l.contains(": error: register '%f")).count();
    assert!(errors >= 4, "{err}");
    assert!(err.ends_with(&format!("does not compile ({errors} errors)\n")), "{err}");

    let (code, json, err) = run(&[&[file.as_str(), "--json"][..], &launch[..]].concat());
    assert_eq!(code, 1, "{err}");
    let listed = json["error"]["diagnostics"].as_array().cloned().unwrap_or_default();
    assert_eq!(listed.len(), errors, "{json}");
    assert_eq!((listed[0]["line"].as_u64(), listed[0]["column"].as_u64()), (Some(line as u64), Some(column as u64)));
    assert_eq!(json["error"]["kind"], "compile_error");
    assert_eq!(json["message"], "register '%f1' is not declared");

    let sweep = ["sweep", &file, "--scheme", "rfc-ob", "--param", "rfc_entries", "--values", "2,4"];
    let rewrite = ["rewrite", &file, "--scheme", "demo"];
    for args in [&[&sweep[..], &launch[..]].concat()[..], &rewrite[..]] {
        let out = Command::new(env!("CARGO_BIN_EXE_reglab")).args(args).current_dir(ROOT).output();
        assert!(out.is_ok(), "cannot run reglab {}", args[0]);
        let Ok(out) = out else { return };
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{err}");
        assert!(err.starts_with(&first), "{}: {err}", args[0]);
        assert!(err.ends_with(&format!("does not compile ({errors} errors)\n")), "{}: {err}", args[0]);
    }
    let _ = std::fs::remove_file(&path);
}

/// A kernel of which not one CTA fits says why in words, in the message and in the JSON's
/// reasons (they were the calculator's debug form, `RegistersPerThread { registers: 64, max: 63 }`):
/// Fermi allows 63 registers per thread, and "ptxas says 64".
#[test]
fn a_kernel_of_which_no_cta_fits_says_why_in_words() {
    let args = ["static/examples/saxpy.ptx", "--launch", "static/examples/saxpy.launch.json", "--gpu", "fermi-gtx480"];
    let (code, json, err) = run(&[&args[..], &["--registers", "64", "--json"][..]].concat());
    assert_eq!(code, 1, "{err}");
    let why = "registers: 64 registers per thread exceed the maximum of 63";
    assert_eq!(json["error"]["error"], "does_not_fit", "{json}");
    assert_eq!(json["error"]["detail"]["reasons"][0], why, "{json}");
    assert!(json["message"].as_str().is_some_and(|m| m.ends_with(&format!("not one CTA fits on an SM ({why})"))));
    assert!(err.contains(why) && !err.contains('{'), "{err}");
}

/// An operand of a kind its position does not take is a compile error at the operand, in words
/// (the executor used to refuse it only when the kernel ran, naming it in the IR's debug form,
/// `Address(Address { base: Reg(#20), offset: 0 })`): an address as a source of `add`, inserted
/// before the saxpy example's first `ld.param`.
#[test]
fn an_operand_out_of_place_is_an_error_at_its_line_and_column() {
    let text = std::fs::read_to_string(format!("{ROOT}/static/examples/saxpy.ptx")).unwrap_or_default();
    let at = text.lines().position(|l| l.contains("ld.param.u32")).unwrap_or(0);
    let mut lines: Vec<&str> = text.lines().collect();
    lines.insert(at, "\tadd.s32 %r5, [%rd3], 1;");
    let dir = std::path::Path::new(ROOT).join("target").join("tmp");
    let _ = std::fs::create_dir_all(&dir);
    let path = dir.join(format!("run_cli_operand_{}.ptx", std::process::id()));
    assert!(std::fs::write(&path, lines.join("\n")).is_ok());
    let file = path.display().to_string();
    let (code, _, err) = run(&[&file, "--launch", "static/examples/saxpy.launch.json", "--gpu", "fermi-gtx480"]);
    let _ = std::fs::remove_file(&path);
    assert_eq!(code, 1, "{err}");
    // The tab and `add.s32 ` take columns 1-9 and `%r5, ` 10-14: the address starts at 15.
    let line = at + 1;
    let first = format!(
        "{file}:{line}:15: error: operand 2 of 'add.s32' is a memory address `[…]`, where it takes a register or an \
         immediate"
    );
    assert!(err.starts_with(&first), "{err}");
}
