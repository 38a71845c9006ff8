//! `reglab schemes [--gpu PRESET] [--json]`: every register-file scheme with its description,
//! source, parameters (type, default, unit, range, doc, source, assumption flag) and model notes,
//! the defaults taken from the GPU preset. The app builds its forms from the same listing.
//!
//! ```text
//! $ reglab schemes
//! baseline — Banked register file with operand collector units (GPGPU-Sim)
//!   source: SCHEMES.md §0; GPGPU-Sim operand collector
//!   parameters (defaults for fermi-gtx480):
//!     banks            int    16   banks per SM   1 ..= 1024   Register-file banks per SM, …
//! ```

use std::fmt::Write as _;
use std::process::ExitCode;

use clap::builder::PossibleValuesParser;
use serde::Serialize;
use sim_core::gpu::presets;
use sim_core::timing::regfile::{describe, EnergyModel, NoteKind, ParamKind, SchemeDescription};

/// Arguments of `reglab schemes`.
#[derive(clap::Args)]
pub struct Args {
    /// GPU preset whose banks and collectors give the defaults.
    #[arg(long, value_name = "PRESET", default_value = "fermi-gtx480",
          value_parser = PossibleValuesParser::new(presets::names()))]
    pub gpu: String,
    /// Print the listing as JSON: `{"gpu": …, "schemes": [{name, description, source, params, notes}]}`.
    #[arg(long)]
    pub json: bool,
}

/// The JSON document (fields in this order).
#[derive(Serialize)]
struct Listing<'a> {
    gpu: &'a str,
    schemes: &'a [SchemeDescription],
}

/// Runs the subcommand.
pub fn run(args: &Args) -> ExitCode {
    let Some(gpu) = presets::by_name(&args.gpu) else {
        eprintln!("reglab schemes: unknown GPU preset '{}'", args.gpu);
        return ExitCode::from(2);
    };
    let list = describe(&gpu, &EnergyModel::default());
    if args.json {
        let doc = Listing { gpu: &gpu.name, schemes: &list };
        println!("{}", serde_json::to_string_pretty(&doc).unwrap_or_default());
    } else {
        print!("{}", render(&list, &gpu.name));
    }
    ExitCode::SUCCESS
}

/// The text listing.
pub fn render(list: &[SchemeDescription], gpu: &str) -> String {
    let mut out = String::new();
    for (i, s) in list.iter().enumerate() {
        if i > 0 {
            out.push('\n');
        }
        let _ = writeln!(out, "{} — {}\n  source: {}", s.name, s.description, s.source);
        let _ = writeln!(out, "  parameters (defaults for {gpu}; A = RegLab's assumption):");
        for p in &s.params {
            let kind = match &p.kind {
                ParamKind::Int => String::from("int"),
                ParamKind::Float => String::from("float"),
                ParamKind::Bool => String::from("bool"),
                ParamKind::Enum { choices } => format!("enum [{}]", choices.join("|")),
            };
            let range = p.range_text();
            let flag = if p.assumption { "A " } else { "" };
            let _ = writeln!(out, "    {:<20} {:<24} default {} {}", p.name, kind, p.default, p.unit);
            let _ = writeln!(
                out,
                "      {flag}{}{}",
                p.doc,
                if range.is_empty() { String::new() } else { format!(" (range {range})") }
            );
            let _ = writeln!(out, "      source: {}", p.source);
        }
        let _ = writeln!(out, "  model notes:");
        for n in s.notes {
            let tag = match n.kind {
                NoteKind::Modelled => "modelled",
                NoteKind::NotModelled => "not modelled",
                NoteKind::Assumption => "assumption (A)",
            };
            let _ = writeln!(out, "    - {tag}: {}", n.text);
        }
    }
    out
}
