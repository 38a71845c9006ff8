//! Exports of a run: the reports as CSV (one row per scheme, from the same comparison the charts
//! and the CLI table use, `sim_core::timing::summary`), and a browser download of any text (report
//! JSON, CSV, a chart's SVG) through a Blob URL.
//!
//! ```text
//! scheme,gpu,outcome,cycles,…,reference,speedup_vs_reference,…,stall_structural,…,main_rf_energy_nj
//! baseline,turing-rtx2060,finished,5120,…,baseline,1.000000,…
//! ```
//!
//! The stall columns are every cause a run lists (`stall_NAME`, scheduler-cycles; the scheme
//! causes only when some run has them), and each structure any run has gets `NAME_reads`,
//! `NAME_writes` and `NAME_energy_nj` (0 for runs without it). When some run has them, the
//! papers' statistics follow: Gilani's value shares ([`VALUE_SHARE_COLUMNS`]) and DeMO's
//! single-use figures ([`SINGLE_USE_COLUMNS`]); a run without them leaves those cells empty.

use sim_core::timing::summary::compare;
use sim_core::timing::Report;

/// The columns every CSV starts with, in order.
pub const CSV_COLUMNS: [&str; 18] = [
    "scheme",
    "gpu",
    "outcome",
    "cycles",
    "ctas",
    "warp_instructions",
    "thread_instructions",
    "ipc_warp_instructions_per_cycle",
    "ipc_thread_instructions_per_cycle",
    "reference",
    "speedup_vs_reference",
    "registers_per_thread",
    "ctas_per_sm",
    "theoretical_occupancy",
    "rf_reads",
    "rf_writes",
    "rf_bank_conflicts",
    "rf_energy_nj",
];

/// Gilani's value shares (Fig. 1), when some run recorded them.
pub const VALUE_SHARE_COLUMNS: [&str; 4] =
    ["redundant_across_warp_share", "value_instructions", "integer_16bit_share", "integer_values"];

/// DeMO's single-use memory values (Fig. 1, 2), when some run counted them.
pub const SINGLE_USE_COLUMNS: [&str; 5] = [
    "single_use_rf_accesses",
    "single_use_access_share",
    "single_use_bank_conflicts",
    "single_use_conflict_share",
    "single_use_waits",
];

fn quote(c: &str) -> String {
    if c.contains([',', '"', '\n']) {
        format!("\"{}\"", c.replace('"', "\"\""))
    } else {
        c.to_owned()
    }
}

/// The reports as CSV, one row per scheme; the speed-up is over `reference` (a run's label;
/// `None` or absent: the baseline if run, else the first run).
pub fn reports_csv(reports: &[Report], reference: Option<&str>) -> String {
    let cmp = compare(reports, reference);
    let causes = cmp.stall_causes();
    let structures = cmp.structure_names();
    let mut header: Vec<String> = CSV_COLUMNS.iter().map(|c| (*c).to_owned()).collect();
    header.extend(causes.iter().map(|c| format!("stall_{}", c.name())));
    for s in &structures {
        header.extend([format!("{s}_reads"), format!("{s}_writes"), format!("{s}_energy_nj")]);
    }
    let shares = cmp.rows.iter().any(|r| r.value_shares.is_some());
    let single_use = cmp.rows.iter().any(|r| r.single_use.is_some());
    if shares {
        header.extend(VALUE_SHARE_COLUMNS.iter().map(|c| (*c).to_owned()));
    }
    if single_use {
        header.extend(SINGLE_USE_COLUMNS.iter().map(|c| (*c).to_owned()));
    }
    let mut out = header.iter().map(|h| quote(h)).collect::<Vec<_>>().join(",");
    out.push('\n');
    for (r, row) in reports.iter().zip(&cmp.rows) {
        let mut cells = vec![
            row.scheme.clone(),
            r.gpu.clone(),
            row.outcome.clone(),
            row.cycles.to_string(),
            r.ctas.to_string(),
            r.warp_instructions.to_string(),
            r.thread_instructions.to_string(),
            format!("{:.6}", row.warp_ipc),
            format!("{:.6}", row.thread_ipc),
            cmp.reference.clone(),
            format!("{:.6}", row.speedup),
            row.registers_per_thread.to_string(),
            row.ctas_per_sm.to_string(),
            format!("{:.6}", row.occupancy),
            row.rf_reads.to_string(),
            row.rf_writes.to_string(),
            row.bank_conflicts.to_string(),
            format!("{:.6}", row.energy_nj),
        ];
        cells.extend(causes.iter().map(|&c| r.stalls.get(c).to_string()));
        for name in &structures {
            match row.structures.iter().find(|s| &s.name == name) {
                Some(s) => cells.extend([s.reads.to_string(), s.writes.to_string(), format!("{:.6}", s.energy_nj)]),
                None => cells.extend(["0".to_owned(), "0".to_owned(), format!("{:.6}", 0.0)]),
            }
        }
        if shares {
            match row.value_shares {
                Some(v) => cells.extend([
                    format!("{:.6}", v.redundant),
                    v.redundant_of.to_string(),
                    format!("{:.6}", v.integer_16bit),
                    v.integer_values.to_string(),
                ]),
                None => cells.extend(VALUE_SHARE_COLUMNS.map(|_| String::new())),
            }
        }
        if single_use {
            match &row.single_use {
                Some(u) => cells.extend([
                    u.accesses.to_string(),
                    format!("{:.6}", u.access_share),
                    u.bank_conflicts.to_string(),
                    format!("{:.6}", u.conflict_share),
                    u.waits.to_string(),
                ]),
                None => cells.extend(SINGLE_USE_COLUMNS.map(|_| String::new())),
            }
        }
        out.push_str(&cells.iter().map(|c| quote(c)).collect::<Vec<_>>().join(","));
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

#[cfg(test)]
#[path = "export_tests.rs"]
mod tests;
