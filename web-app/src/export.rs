//! Exports of a run: the reports as CSV (one row per scheme), and a browser download of any text
//! (report JSON, CSV, a chart's SVG) through a Blob URL.
//!
//! ```text
//! scheme,gpu,cycles,warp_instructions,…
//! baseline,turing-rtx2060,5120,1728,…
//! ```

use sim_core::timing::{Report, StallCause};

/// The CSV columns, in order.
pub const CSV_COLUMNS: [&str; 19] = [
    "scheme",
    "gpu",
    "outcome",
    "cycles",
    "ctas",
    "warp_instructions",
    "thread_instructions",
    "ipc_warp_instructions_per_cycle",
    "ipc_thread_instructions_per_cycle",
    "speedup_vs_first",
    "rf_reads",
    "rf_writes",
    "rf_bank_conflicts",
    "stall_issued",
    "stall_operand_collection",
    "stall_scoreboard",
    "stall_memory",
    "stall_barrier",
    "stall_other",
];

/// The reports as CSV, one row per scheme; the speed-up is relative to the first report.
pub fn reports_csv(reports: &[Report]) -> String {
    let mut out = CSV_COLUMNS.join(",");
    out.push('\n');
    let first = reports.first().map_or(0, |r| r.cycles);
    for r in reports {
        let s = &r.stalls;
        let other = [StallCause::SchemeSpecific, StallCause::Structural, StallCause::NoEligibleWarp, StallCause::Idle]
            .iter()
            .map(|&c| s.get(c))
            .sum::<u64>();
        let speedup = if r.cycles > 0 { first as f64 / r.cycles as f64 } else { 0.0 };
        let outcome = match r.outcome {
            sim_core::timing::report::Outcome::Finished => "finished",
            sim_core::timing::report::Outcome::BudgetExceeded { .. } => "budget_exceeded",
            sim_core::timing::report::Outcome::Running => "running",
        };
        let cells = [
            r.scheme.clone(),
            r.gpu.clone(),
            outcome.to_owned(),
            r.cycles.to_string(),
            r.ctas.to_string(),
            r.warp_instructions.to_string(),
            r.thread_instructions.to_string(),
            format!("{:.6}", r.ipc.warp_instructions_per_cycle),
            format!("{:.6}", r.ipc.thread_instructions_per_cycle),
            format!("{speedup:.6}"),
            r.register_file.reads.to_string(),
            r.register_file.writes.to_string(),
            r.register_file.bank_conflicts.to_string(),
            s.get(StallCause::Issued).to_string(),
            s.get(StallCause::OperandCollection).to_string(),
            s.get(StallCause::Scoreboard).to_string(),
            s.get(StallCause::Memory).to_string(),
            s.get(StallCause::Barrier).to_string(),
            other.to_string(),
        ];
        let quoted: Vec<String> = cells
            .iter()
            .map(|c| if c.contains([',', '"']) { format!("\"{}\"", c.replace('"', "\"\"")) } else { c.clone() })
            .collect();
        out.push_str(&quoted.join(","));
        out.push('\n');
    }
    out
}

/// Offers `text` as a file download called `name`; does nothing off the browser.
pub fn download(name: &str, mime: &str, text: &str) {
    #[cfg(target_arch = "wasm32")]
    {
        use wasm_bindgen::JsCast;
        let parts = js_sys::Array::of1(&wasm_bindgen::JsValue::from_str(text));
        let bag = web_sys::BlobPropertyBag::new();
        bag.set_type(mime);
        let Ok(blob) = web_sys::Blob::new_with_str_sequence_and_options(&parts, &bag) else { return };
        let Ok(url) = web_sys::Url::create_object_url_with_blob(&blob) else { return };
        let anchor = web_sys::window()
            .and_then(|w| w.document())
            .and_then(|d| d.create_element("a").ok())
            .and_then(|e| e.dyn_into::<web_sys::HtmlAnchorElement>().ok());
        if let Some(a) = anchor {
            a.set_href(&url);
            a.set_download(name);
            a.click();
        }
        let _ = web_sys::Url::revoke_object_url(&url);
    }
    #[cfg(not(target_arch = "wasm32"))]
    let _ = (name, mime, text);
}
