//! The results area: what `sim-core` can say about the text so far — the kernels found with their
//! instruction, register and block counts, and every diagnostic with its line and column (a button
//! that moves the editor's caret there).
//!
//! ```text
//! Lines 58 · Kernels 1 · Instructions 22 · Problems 0
//! _Z6vecAddPKfS0_Pfi   .entry   22 instructions   23 registers   line 19
//! ```

use std::rc::Rc;

use yew::prelude::*;

use super::pressure::pressure_section;
use crate::model::kernel::KernelView;
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
    /// The analyses of the selected kernel.
    #[prop_or_default]
    pub kernel: Rc<KernelView>,
    /// True while the kernel's analyses belong to an older version of the text.
    #[prop_or_default]
    pub kernel_stale: bool,
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
                <div><dt>{ "Kernels" }</dt><dd id="count-kernels">{ compiled(a, a.kernels.len()) }</dd></div>
                <div><dt>{ "Instructions" }</dt><dd id="count-instructions">{ compiled(a, a.instructions()) }</dd></div>
                <div><dt>{ "Problems" }</dt><dd id="count-problems">{ a.diagnostics.len() }</dd></div>
            </dl>
            { kernels_section(a, props.kernel.kernel.as_deref(), &props.on_reveal) }
            { diagnostics_section(&a.diagnostics, &props.on_reveal) }
            { pressure_section(&props.kernel, props.kernel_stale, &props.on_reveal) }
        </section>
    }
}

fn kernels_section(a: &Analysis, selected: Option<&str>, on_reveal: &Callback<u32>) -> Html {
    let body = if a.stage == Stage::Failed {
        html! { <p class="note">{ format!("The module does not compile yet ({}): fix the problems below to see its kernels.", plural(a.errors(), "error")) }</p> }
    } else if a.kernels.is_empty() {
        html! { <p class="note">{ "No .entry or .func in this module." }</p> }
    } else {
        html! {
            <table class="kernels">
                <thead>
                    <tr>
                        <th scope="col">{ "Name" }</th>
                        <th scope="col">{ "Kind" }</th>
                        <th scope="col" class="num" title="PTX instructions in the body">{ "Instr." }</th>
                        <th scope="col" class="num" title="Virtual registers declared (before allocation)">{ "Virt. regs" }</th>
                        <th scope="col" class="num" title="Basic blocks">{ "Blocks" }</th>
                        <th scope="col" class="num">{ "Line" }</th>
                    </tr>
                </thead>
                <tbody>{ for a.kernels.iter().map(|k| kernel_row(k, selected == Some(k.name.as_str()), on_reveal)) }</tbody>
            </table>
        }
    };
    html! {
        <section class="panel" aria-labelledby="kernels-title">
            <h3 id="kernels-title">
                { "Kernels" }
                <span class="panel-meta" id="module-target">
                    { a.target.iter().map(|t| format!("{t} · ")).collect::<String>() }{ format_bytes(a.bytes) }
                </span>
            </h3>
            { body }
        </section>
    }
}

fn kernel_row(k: &KernelInfo, selected: bool, on_reveal: &Callback<u32>) -> Html {
    let line = k.line;
    let onclick = on_reveal.reform(move |_: MouseEvent| line);
    html! {
        <tr class={classes!("kernel", selected.then_some("selected"))} aria-current={selected.then_some("true")}>
            <td class="kernel-name"><code title={k.name.clone()}>{ &k.name }</code></td>
            <td>{ k.kind.directive() }</td>
            <td class="num kernel-insts">{ k.instructions }</td>
            <td class="num">{ k.registers }</td>
            <td class="num">{ k.blocks }</td>
            <td class="num">
                <button type="button" class="line-link" onclick={onclick} title="Show this kernel in the editor">{ k.line }</button>
            </td>
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

/// A count that is known only once the module compiled: `—` before.
fn compiled(a: &Analysis, n: usize) -> String {
    if a.stage == Stage::Compiled {
        n.to_string()
    } else {
        "—".to_owned()
    }
}

/// `1 error`, `3 errors`.
fn plural(n: usize, what: &str) -> String {
    if n == 1 {
        format!("1 {what}")
    } else {
        format!("{n} {what}s")
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
