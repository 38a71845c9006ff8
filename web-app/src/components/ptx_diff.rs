//! The PTX diff panel: for a chosen scheme that transforms code (DeMO's memory operands,
//! composite instructions, …), the original kernel and the scheme's rewrite side by side, in
//! the IR's text form, changed rows highlighted and the rewrite's reason on hover
//! ([`sim_core::diff::rewrite`]). Shown only when a selected scheme transforms code.
//!
//! ```text
//! Scheme: [demo ▾]   2 lines differ
//!  12 ld.global.f32 %f2, [%rd7];        │                                  (removed, tooltip)
//!  13 add.f32 %f3, %f2, %f1;            │ 12 add.f32 %f3, %g[%rd7], %f1;   (changed, tooltip)
//! ```
//!
//! The diff is computed by a worker (`diff_job.rs`: the page's wasm does not link the schemes'
//! passes) from the analysed module's text (the editor's analysis is already deferred while
//! typing), once per module and scheme; above [`AUTO_LINES`] lines of source it waits for a
//! click. Every line is inserted as text (Yew escapes it).

use std::rc::Rc;

use yew::prelude::*;

use sim_core::diff::rewrite::RewriteDiff;
use sim_core::diff::RowKind;
use sim_core::gpu::GpuConfig;
use sim_core::timing::regfile::registry::transforms_code;
use sim_core::timing::regfile::ResolvedScheme;
use sim_core::timing::{EnergyModel, SchemeSpec};
use wasm_bindgen::JsCast;

use crate::diff_job::{use_rewrite_diff, DiffRequest, DiffResult};
use crate::model::Compiled;

/// Largest source (lines) whose diff is computed without being asked.
pub const AUTO_LINES: usize = 4_000;

/// Properties of [`PtxDiff`].
#[derive(Properties, Clone, PartialEq)]
pub struct PtxDiffProps {
    /// The analysed module (`None`: the text does not compile yet).
    pub compiled: Option<Compiled>,
    /// Lines of the analysed source.
    pub lines: usize,
    /// The selected scheme specs (`NAME` or `NAME:k=v,…`).
    pub schemes: Vec<String>,
    /// The GPU the schemes' defaults come from.
    pub gpu: Option<Rc<GpuConfig>>,
}

/// The selected schemes that transform code, resolved (spec, scheme).
pub fn transforming(schemes: &[String], gpu: Option<&GpuConfig>) -> Vec<(String, ResolvedScheme)> {
    let Some(gpu) = gpu else { return Vec::new() };
    schemes
        .iter()
        .filter_map(|s| {
            let r = SchemeSpec::parse(s).and_then(|x| x.resolve(gpu, &EnergyModel::default())).ok()?;
            transforms_code(&r).then(|| (s.clone(), r))
        })
        .collect()
}

/// The PTX diff panel (renders nothing when no selected scheme transforms code).
#[function_component(PtxDiff)]
pub fn ptx_diff(props: &PtxDiffProps) -> Html {
    let chosen = use_state(|| None::<String>);
    let asked = use_state(|| None::<Compiled>);
    let list = use_memo((props.schemes.clone(), props.gpu.clone()), |(s, g)| transforming(s, g.as_deref()));
    let pick = chosen.as_ref().and_then(|c| list.iter().position(|(s, _)| s == c)).unwrap_or(0);
    let selected = list.get(pick).cloned();
    let allowed = props.lines <= AUTO_LINES || (asked.is_some() && *asked == props.compiled);
    let key = (props.compiled.clone(), selected.map(|s| s.0), props.gpu.clone(), allowed);
    let request = use_memo(key, |(compiled, spec, gpu, allowed)| match (compiled, spec, gpu, allowed) {
        (Some(c), Some(spec), Some(gpu), true) => {
            Some(DiffRequest { ptx: c.get().source.clone(), gpu: (**gpu).clone(), scheme: spec.clone() })
        }
        _ => None,
    });
    let result = use_rewrite_diff(request);
    if list.is_empty() {
        return Html::default();
    }
    let onchange = {
        let chosen = chosen.clone();
        Callback::from(move |e: Event| {
            let value = e.target().and_then(|t| t.dyn_into::<web_sys::HtmlSelectElement>().ok()).map(|s| s.value());
            chosen.set(value);
        })
    };
    let current = list.get(pick).map(|(s, _)| s.clone()).unwrap_or_default();
    let ask = {
        let (asked, compiled) = (asked.clone(), props.compiled.clone());
        Callback::from(move |_: MouseEvent| asked.set(compiled.clone()))
    };
    let body = panel_body(props, allowed, result.as_deref(), ask);
    html! {
        <section class="ptx-diff" id="ptx-diff" aria-labelledby="diff-heading">
            <div class="lab-head"><h2 id="diff-heading">{ "PTX diff" }</h2></div>
            <label class="diff-scheme">{ "Scheme: " }
                <select id="diff-scheme" onchange={onchange}>
                    { for list.iter().map(|(s, _)| html! { <option value={s.clone()} selected={*s == current}>{ s.clone() }</option> }) }
                </select>
            </label>
            { body }
        </section>
    }
}

/// Below the selector: the table, or why there is none yet.
fn panel_body(props: &PtxDiffProps, allowed: bool, result: Option<&DiffResult>, ask: Callback<MouseEvent>) -> Html {
    match (&props.compiled, result) {
        (None, _) => html! { <p class="diff-note">{ "The kernel does not compile yet." }</p> },
        (Some(_), None) if allowed => html! { <p class="diff-note" id="diff-computing">{ "Computing the diff…" }</p> },
        (Some(_), None) => html! {
            <p class="diff-note">{ format!("{} lines: the diff is computed on request. ", props.lines) }
                <button type="button" id="diff-compute" onclick={ask}>{ "Compute the diff" }</button></p>
        },
        (Some(_), Some(Err(e))) => html! { <p class="field-error" id="diff-error" role="alert">{ e.clone() }</p> },
        (Some(_), Some(Ok(None))) => Html::default(),
        (Some(_), Some(Ok(Some(d)))) => diff_table(d),
    }
}

/// The summary line and the two-column table.
fn diff_table(d: &RewriteDiff) -> Html {
    let edits = d.diff.edits();
    let summary = if edits == 0 {
        "No change: the scheme rewrites nothing in this kernel.".to_owned()
    } else {
        format!("{edits} rows differ (original left, rewritten right; hover a highlighted row for why).")
    };
    html! {
        <>
            <p class="diff-summary" id="diff-summary">{ summary }</p>
            if let Some(f) = &d.diff.fallback { <p class="diff-note" id="diff-fallback">{ f.clone() }</p> }
            if edits > 0 {
                <div class="diff-scroll">
                    <table class="diff-table" id="diff-table">
                        <thead><tr><th>{ "#" }</th><th>{ "Original" }</th><th>{ "#" }</th><th>{ "Rewritten" }</th></tr></thead>
                        <tbody>{ rows_with_context(d) }</tbody>
                    </table>
                </div>
            }
        </>
    }
}

/// Unchanged rows more than this far from an edit fold into one "⋯ N unchanged lines" row.
const CONTEXT: usize = 3;

/// The rows near an edit, the rest folded.
fn rows_with_context(d: &RewriteDiff) -> Html {
    let rows = &d.diff.rows;
    let edit: Vec<usize> = rows.iter().enumerate().filter(|(_, r)| r.kind != RowKind::Same).map(|(i, _)| i).collect();
    let near = |i: usize| {
        let at = edit.partition_point(|&e| e + CONTEXT < i);
        edit.get(at).is_some_and(|&e| e <= i + CONTEXT)
    };
    let mut out = Vec::new();
    let mut folded = 0;
    for (i, r) in rows.iter().enumerate() {
        if near(i) {
            out.push(fold_row(folded));
            folded = 0;
            out.push(diff_row(d, r));
        } else {
            folded += 1;
        }
    }
    out.push(fold_row(folded));
    out.into_iter().collect()
}

fn fold_row(n: usize) -> Html {
    if n == 0 {
        return Html::default();
    }
    html! { <tr class="diff-row fold"><td colspan="4">{ format!("⋯ {n} unchanged lines") }</td></tr> }
}

fn diff_row(d: &RewriteDiff, r: &sim_core::diff::DiffRow) -> Html {
    let class = match r.kind {
        RowKind::Same => "same",
        RowKind::Changed => "changed",
        RowKind::Added => "added",
        RowKind::Removed => "removed",
    };
    let cell = |at: Option<usize>, lines: &[String]| {
        let text = at.and_then(|i| lines.get(i)).map(|s| s.replace('\t', "    ")).unwrap_or_default();
        let num = at.map(|i| (i + 1).to_string()).unwrap_or_default();
        html! { <><td class="diff-num">{ num }</td><td class="diff-code">{ text }</td></> }
    };
    html! {
        <tr class={classes!("diff-row", class)} title={r.reason.clone()}>
            { cell(r.old, &d.original) }
            { cell(r.new, &d.rewritten) }
        </tr>
    }
}
