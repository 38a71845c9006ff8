//! `reglab merge [FILE…] [--csv | --json]`: joins the JSON lines of `reglab sweep` shards (files,
//! or standard input when none or `-`) into one table in point order: an aligned text table by
//! default, CSV with `--csv`, or the lines themselves with `--json` (then the output equals the
//! unsharded sweep's, byte for byte).
//!
//! ```text
//! $ cat shard-*.jsonl | reglab merge
//! index  scheme                 rfc_entries  cycles  warp IPC  relative IPC  reads saved  RF reads  RF writes  conflicts  RF nJ
//!     0  rfc-ob:rfc_entries=2             2   18304     1.790         0.970        0.210     …
//! ```
//!
//! A point given twice with different lines, a line that is not a sweep point, or points missing
//! (each line says how many points the sweep has) are errors: the table is still printed, the
//! problem goes to standard error and the exit code is 1. Unreadable files exit 2.

use std::collections::BTreeMap;
use std::io::Read as _;
use std::path::PathBuf;
use std::process::ExitCode;

use serde_json::Value;

/// Arguments of `reglab merge`.
#[derive(clap::Args)]
pub struct Args {
    /// Files of sweep lines (`-` or none: standard input).
    pub files: Vec<PathBuf>,
    /// Print CSV instead of an aligned table.
    #[arg(long, conflicts_with = "json")]
    pub csv: bool,
    /// Print the points' JSON lines in point order.
    #[arg(long)]
    pub json: bool,
}

/// The columns: header and how to read the cell from a point line.
const COLUMNS: [(&str, &str); 10] = [
    ("index", "index"),
    ("scheme", "scheme"),
    ("value", "value"),
    ("cycles", "cycles"),
    ("warp IPC", "ipc"),
    ("relative IPC", "relative_ipc"),
    ("reads saved", "reads_saved"),
    ("RF reads", "rf_reads"),
    ("RF writes", "rf_writes"),
    ("RF nJ", "energy_nj"),
];

fn read_all(files: &[PathBuf]) -> Result<String, String> {
    let mut text = String::new();
    if files.is_empty() || files.iter().any(|f| f.as_os_str() == "-") {
        std::io::stdin().read_to_string(&mut text).map_err(|e| format!("cannot read standard input: {e}"))?;
    }
    for f in files.iter().filter(|f| f.as_os_str() != "-") {
        let t = std::fs::read_to_string(f).map_err(|e| format!("cannot read {}: {e}", f.display()))?;
        text.push_str(&t);
        text.push('\n');
    }
    Ok(text)
}

/// The points by index (with their line text) and the problems found.
fn collect(text: &str) -> (BTreeMap<u64, (String, Value)>, Vec<String>) {
    let (mut points, mut problems) = (BTreeMap::new(), Vec::new());
    let mut expected = None;
    for (n, line) in text.lines().map(str::trim).enumerate().filter(|(_, l)| !l.is_empty()) {
        let parsed: Option<Value> = serde_json::from_str(line).ok();
        let Some((p, index)) = parsed.and_then(|p| p["index"].as_u64().map(|i| (p, i))) else {
            problems.push(format!("line {}: not a `reglab sweep` point (no \"index\")", n + 1));
            continue;
        };
        expected = expected.or(p["points"].as_u64());
        match points.get(&index) {
            Some((seen, _)) if seen != line => problems.push(format!("point {index} is given twice, differently")),
            Some(_) => {}
            None => {
                points.insert(index, (line.to_owned(), p));
            }
        }
    }
    if let Some(total) = expected {
        let missing: Vec<String> = (0..total).filter(|i| !points.contains_key(i)).map(|i| i.to_string()).collect();
        if !missing.is_empty() {
            problems.push(format!("{} of {total} points missing: {}", missing.len(), missing.join(", ")));
        }
    }
    (points, problems)
}

/// A cell's text: numbers as JSON writes them (floats to 6 decimals in the aligned table).
fn cell(v: &Value, aligned: bool) -> String {
    match v {
        Value::Null => String::new(),
        Value::String(s) => s.clone(),
        Value::Number(n) if aligned && n.is_f64() => format!("{:.6}", n.as_f64().unwrap_or(0.0)),
        other => other.to_string(),
    }
}

fn csv_cell(text: String) -> String {
    if text.contains([',', '"', '\n']) {
        format!("\"{}\"", text.replace('"', "\"\""))
    } else {
        text
    }
}

/// The table as text: CSV, or columns padded to their widest cell.
pub fn table(points: &[Value], csv: bool) -> String {
    let param = points.first().and_then(|p| p["param"].as_str()).unwrap_or("value");
    let headers: Vec<String> =
        COLUMNS.iter().map(|(h, key)| if *key == "value" { param.to_owned() } else { (*h).to_owned() }).collect();
    let rows: Vec<Vec<String>> =
        points.iter().map(|p| COLUMNS.iter().map(|(_, key)| cell(&p[*key], !csv)).collect()).collect();
    let mut out = String::new();
    if csv {
        for row in std::iter::once(&headers).chain(&rows) {
            let cells: Vec<String> = row.iter().cloned().map(csv_cell).collect();
            out.push_str(&cells.join(","));
            out.push('\n');
        }
        return out;
    }
    let widths: Vec<usize> = (0..headers.len())
        .map(|c| {
            std::iter::once(&headers).chain(&rows).map(|r| r.get(c).map_or(0, |s| s.chars().count())).max().unwrap_or(0)
        })
        .collect();
    for row in std::iter::once(&headers).chain(&rows) {
        let cells: Vec<String> = row
            .iter()
            .zip(&widths)
            .enumerate()
            .map(|(c, (s, w))| if c == 1 { format!("{s:<w$}") } else { format!("{s:>w$}") })
            .collect();
        out.push_str(cells.join("  ").trim_end());
        out.push('\n');
    }
    out
}

/// Runs the subcommand.
pub fn run(args: &Args) -> ExitCode {
    let text = match read_all(&args.files) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("reglab merge: {e}");
            return ExitCode::from(2);
        }
    };
    let (points, problems) = collect(&text);
    if args.json {
        for (line, _) in points.values() {
            println!("{line}");
        }
    } else {
        let values: Vec<Value> = points.into_values().map(|(_, v)| v).collect();
        print!("{}", table(&values, args.csv));
    }
    for p in &problems {
        eprintln!("reglab merge: {p}");
    }
    if problems.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}
