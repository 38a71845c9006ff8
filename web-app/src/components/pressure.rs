//! The "Register pressure" panel of the results: the selected kernel's peak of live registers
//! (with a link to its line), the allocation estimate, what the listing's markers mean and which
//! analyses they come from, and the listing as a table (the accessible form of the editor column).
//!
//! ```text
//! Register pressure — _Z9imgvfStepPKfS0_Pfiifffff
//! Peak live 41 (line 97) · Estimate 38 registers (sm_75) · Predicates 3
//! ▸ Listing as a table (58 lines)
//! ```

use yew::prelude::*;

use super::listing::{def_text, pressure_level};
use crate::model::kernel::{KernelStatus, KernelView, LineFacts, ANALYSIS_INSTRUCTION_LIMIT};

/// Table rows shown at most (the editor column has them all).
pub const TABLE_ROWS: usize = 600;

/// The panel for `view`; `stale` when it belongs to an older text.
pub fn pressure_section(view: &KernelView, stale: bool, on_reveal: &Callback<u32>) -> Html {
    let title = match &view.kernel {
        Some(k) => html! { <>{ "Register pressure — " }<code class="kernel-ref">{ k }</code></> },
        None => html! { { "Register pressure" } },
    };
    let body = match &view.status {
        KernelStatus::Analysed => analysed(view, stale, on_reveal),
        KernelStatus::NotCompiled => html! { <p class="note">{ "The listing appears once the module compiles." }</p> },
        KernelStatus::NoKernel => html! { <p class="note">{ "No kernel to analyse in this module." }</p> },
        KernelStatus::Skipped { instructions } => html! {
            <p class="note" id="analysis-skipped">
                { format!("Not analysed while typing: this kernel has {instructions} instructions (the limit is {ANALYSIS_INSTRUCTION_LIMIT}). Occupancy uses the register override or an assumed count.") }
            </p>
        },
        KernelStatus::Failed(why) => html! {
            <p class="field-error" id="analysis-failed" role="alert">{ format!("The analyses of this kernel stopped: {why}") }</p>
        },
    };
    html! {
        <section class="panel pressure" aria-labelledby="pressure-title">
            <h3 id="pressure-title">{ title }</h3>
            { body }
        </section>
    }
}

fn analysed(view: &KernelView, stale: bool, on_reveal: &Callback<u32>) -> Html {
    let peak = match view.max_live_line {
        Some(line) => {
            let onclick = on_reveal.reform(move |_: MouseEvent| line);
            html! { <> { " at line " }<button type="button" class="line-link" onclick={onclick} title="Show this line in the editor">{ line }</button></> }
        }
        None => Html::default(),
    };
    let estimate = view.registers.map(|r| {
        let calls = match r.callees_included {
            None => "",
            Some(true) => ", callees included",
            Some(false) => ", callees not included (module too large)",
        };
        let mode = if r.debug { " (debug code, unoptimised as with nvcc -G)" } else { "" };
        html! {
            <div><dt>{ "Allocation estimate" }</dt><dd id="register-estimate">{ r.allocated }</dd>
            <dd class="sub">{ format!("registers per thread for sm_{}{mode}{calls}; {} predicate{} live at most", r.target_sm, r.predicates, if r.predicates == 1 { "" } else { "s" }) }</dd></div>
        }
    });
    html! {
        <>
            if stale {
                <p class="note stale-note">{ "Showing the last version that compiled." }</p>
            }
            <dl class="facts">
                <div><dt>{ "Peak live registers" }</dt><dd id="peak-live">{ view.max_live }</dd>
                <dd class="sub">{ "32-bit registers live at once" }{ peak }</dd></div>
                { estimate }
            </dl>
            { legend(view) }
            { table(view) }
        </>
    }
}

fn legend(view: &KernelView) -> Html {
    let f = view.facts;
    let missing = |known: bool| if known { "" } else { " (analysis not available yet: none marked)" };
    let widths = if f.bitwidths {
        "needed bitwidths from range analysis"
    } else {
        "declared widths (range analysis not available yet)"
    };
    html! {
        <ul class="legend" aria-label="What the listing beside the editor shows">
            <li><span class="legend-bar"><span class="ann-fill p2" /><span class="ann-fill p4" /></span>
                { "Live 32-bit registers after each line; bar length and colour relative to the kernel's peak." }</li>
            <li><span class="mk mk-u">{ "U" }</span>{ "uniform value (same in every thread of a warp)" }</li>
            <li><span class="mk mk-l">{ "L" }</span>{ format!("single-use load (DeMO){}", missing(f.single_use_loads)) }</li>
            <li><span class="mk mk-c">{ "C" }</span>{ format!("composite pair (Gilani){}", missing(f.composite_pairs)) }</li>
            <li>{ format!("Hover a line for the values it defines: {widths}.") }</li>
        </ul>
    }
}

fn table(view: &KernelView) -> Html {
    let max = view.max_live.max(1);
    let total = view.lines.len();
    html! {
        <details class="listing-table">
            <summary>{ format!("Listing as a table ({total} lines with instructions)") }</summary>
            <table class="kernels">
                <thead>
                    <tr>
                        <th scope="col" class="num">{ "Line" }</th>
                        <th scope="col" class="num">{ "Live" }</th>
                        <th scope="col">{ "Defines (width)" }</th>
                        <th scope="col">{ "Markers" }</th>
                    </tr>
                </thead>
                <tbody>
                    { for view.lines.iter().take(TABLE_ROWS).map(|(&line, facts)| row(line, facts, max, view)) }
                </tbody>
            </table>
            if total > TABLE_ROWS {
                <p class="note">{ format!("First {TABLE_ROWS} of {total} lines; the column beside the editor shows all.") }</p>
            }
        </details>
    }
}

fn row(line: u32, facts: &LineFacts, max: u32, view: &KernelView) -> Html {
    let defs: Vec<String> = facts.defs.iter().map(|d| def_text(d, view.facts)).collect();
    let marks: Vec<&str> = [
        (facts.uniform, "uniform"),
        (facts.single_use_load, "single-use load"),
        (facts.composite_pair, "composite pair"),
    ]
    .iter()
    .filter(|(on, _)| *on)
    .map(|(_, name)| *name)
    .collect();
    html! {
        <tr data-line={line.to_string()}>
            <td class="num">{ line }</td>
            <td class={classes!("num", format!("lvl{}", pressure_level(facts.live, max)))}>{ facts.live }</td>
            <td class="defs">{ defs.join(" ") }</td>
            <td>{ marks.join(", ") }</td>
        </tr>
    }
}
