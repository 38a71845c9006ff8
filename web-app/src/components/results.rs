//! The results area: what `sim-core` can say about the text so far — size, kernels with their
//! instruction counts, and every diagnostic with its line and column (a button that moves the
//! editor's caret there).
//!
//! ```text
//! Module   58 lines · 214 tokens · 1.9 KB
//! Problems 13:5 error: unexpected character '#'   hint: …
//! ```

use std::rc::Rc;

use yew::prelude::*;

use crate::model::{Analysis, DiagnosticInfo, KernelInfo, Stage};

/// What the results area shows and reports.
#[derive(Properties, PartialEq)]
pub struct ResultsProps {
    /// The analysis to show.
    pub analysis: Rc<Analysis>,
    /// True while the analysis belongs to an older version of the text.
    #[prop_or_default]
    pub stale: bool,
    /// Called with a 1-based line when the user asks to see a diagnostic in the editor.
    pub on_reveal: Callback<u32>,
}

/// The results component.
#[function_component(Results)]
pub fn results(props: &ResultsProps) -> Html {
    let a = &props.analysis;
    html! {
        <section class={classes!("results", props.stale.then_some("stale"))} aria-labelledby="results-title" aria-busy={props.stale.to_string()}>
            <h2 id="results-title">{ "Results" }</h2>
            <dl class="summary">
                <div><dt>{ "Lines" }</dt><dd id="count-lines">{ a.lines }</dd></div>
                <div><dt>{ "Tokens" }</dt><dd id="count-tokens">{ a.tokens }</dd></div>
                <div><dt>{ "Size" }</dt><dd>{ format_bytes(a.bytes) }</dd></div>
                <div><dt>{ "Problems" }</dt><dd id="count-problems">{ a.diagnostics.len() }</dd></div>
            </dl>
            { kernels_section(a) }
            { diagnostics_section(&a.diagnostics, &props.on_reveal) }
        </section>
    }
}

fn kernels_section(a: &Analysis) -> Html {
    let body = if a.stage == Stage::Lexed {
        html! {
            <p class="note">{ "The PTX parser is not wired in yet: for now the text is only tokenised, so kernels and instruction counts are not listed." }</p>
        }
    } else if a.kernels.is_empty() {
        html! { <p class="note">{ "No .entry or .func in this module." }</p> }
    } else {
        html! {
            <table class="kernels">
                <thead><tr><th scope="col">{ "Kernel" }</th><th scope="col">{ "Kind" }</th><th scope="col" class="num">{ "Instructions" }</th><th scope="col" class="num">{ "Line" }</th></tr></thead>
                <tbody>{ for a.kernels.iter().map(kernel_row) }</tbody>
            </table>
        }
    };
    html! {
        <section class="panel" aria-labelledby="kernels-title">
            <h3 id="kernels-title">{ "Kernels" }</h3>
            { body }
        </section>
    }
}

fn kernel_row(k: &KernelInfo) -> Html {
    html! {
        <tr class="kernel">
            <td class="kernel-name"><code title={k.name.clone()}>{ &k.name }</code></td>
            <td>{ k.kind.directive() }</td>
            <td class="num kernel-insts">{ k.instructions }</td>
            <td class="num">{ k.line }</td>
        </tr>
    }
}

fn diagnostics_section(diags: &[DiagnosticInfo], on_reveal: &Callback<u32>) -> Html {
    let body = if diags.is_empty() {
        html! { <p class="ok" id="no-problems">{ "No problems found." }</p> }
    } else {
        html! { <ul class="diagnostics">{ for diags.iter().map(|d| diagnostic_item(d, on_reveal)) }</ul> }
    };
    html! {
        <section class="panel" aria-labelledby="problems-title">
            <h3 id="problems-title">{ "Problems" }</h3>
            { body }
        </section>
    }
}

fn diagnostic_item(d: &DiagnosticInfo, on_reveal: &Callback<u32>) -> Html {
    let line = d.line;
    let onclick = on_reveal.reform(move |_: MouseEvent| line);
    html! {
        <li class={classes!("diag", format!("diag-{}", d.severity.as_str()))} data-line={d.line.to_string()}>
            <button type="button" class="diag-loc" onclick={onclick} title="Show this line in the editor">
                { d.location() }
            </button>
            <span class="diag-sev">{ d.severity.as_str() }</span>
            <span class="diag-msg">{ &d.message }</span>
            if let Some(hint) = &d.hint {
                <div class="diag-hint">{ "hint: " }{ hint }</div>
            }
        </li>
    }
}

/// `1.9 KB`, `12 bytes`, `1.2 MB`.
pub fn format_bytes(n: usize) -> String {
    match n {
        0..1_000 => format!("{n} bytes"),
        1_000..1_000_000 => format!("{:.1} KB", n as f64 / 1e3),
        _ => format!("{:.1} MB", n as f64 / 1e6),
    }
}
