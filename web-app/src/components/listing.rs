//! The annotated listing beside the editor: for each source line with instructions of the selected
//! kernel, the live 32-bit register count, a pressure strip (bar length and colour relative to
//! the kernel's peak) and markers — `U` uniform value, `L` single-use load (DeMO), `C` composite
//! pair (Gilani). Hovering a line shows the values it defines with their bitwidth and signedness,
//! and after a `compression` run the format and slices that run gave each of them.
//! The column sits in the editor's scrolling box, so it scrolls with the text without syncing.
//!
//! ```text
//!  14 ▇▇▇▇▁  U     │ add.s32 %r5, %r3, 1;
//!  15 ▇▇▇▇▇    L   │ ld.global.f32 %f2, [%rd7];
//! ```

use std::collections::BTreeMap;

use yew::prelude::*;

use crate::model::kernel::{DefFact, KernelView, LineFacts, SchemeFacts};

/// Width of the column, in characters of the editor font (the CSS uses the same value).
pub const COLUMN_CH: usize = 12;

/// The annotation rows for lines `first..last` (0-based, end exclusive); `formats`: per line,
/// the formats a `compression` run gave the values defined there (`slice_map::formats_by_line`).
pub fn annotation_rows(view: &KernelView, first: usize, last: usize, formats: &BTreeMap<u32, Vec<String>>) -> Html {
    let max = view.max_live.max(1);
    html! {
        { for (first..last).map(|i| {
            let line = u32::try_from(i + 1).unwrap_or(u32::MAX);
            match view.lines.get(&line) {
                Some(facts) => annotation_row(line, facts, max, view.facts, formats.get(&line)),
                None => html! { <div class="ann" /> },
            }
        }) }
    }
}

/// One row: live count, pressure bar, markers, and the tooltip.
fn annotation_row(line: u32, facts: &LineFacts, max: u32, known: SchemeFacts, formats: Option<&Vec<String>>) -> Html {
    let level = pressure_level(facts.live, max);
    let width = format!("width: {:.0}%", f64::from(facts.live.min(max)) * 100.0 / f64::from(max));
    let mut title = tooltip(line, facts, max, known);
    if let Some(f) = formats {
        title.push_str("\nCompression (last run): ");
        title.push_str(&f.join("; "));
    }
    html! {
        <div class="ann has-facts" data-line={line.to_string()} data-live={facts.live.to_string()} title={title}
             data-formats={formats.map(|f| f.join("; "))}>
            <span class="ann-live">{ facts.live }</span>
            <span class="ann-bar"><span class={classes!("ann-fill", format!("p{level}"))} style={width} /></span>
            <span class="ann-marks">
                <span class={classes!("mk", "mk-u", (!facts.uniform).then_some("off"))}>{ "U" }</span>
                <span class={classes!("mk", "mk-l", (!facts.single_use_load).then_some("off"))}>{ "L" }</span>
                <span class={classes!("mk", "mk-c", (!facts.composite_pair).then_some("off"))}>{ "C" }</span>
            </span>
        </div>
    }
}

/// The colour of the pressure bar, relative to the kernel's peak: 4 at 90 % of it or more, 3 from
/// 75 %, 2 from 50 %, 1 below; 0 for no live register.
pub fn pressure_level(live: u32, max: u32) -> u32 {
    let (live, max) = (u64::from(live), u64::from(max));
    match live * 100 {
        0 => 0,
        p if max == 0 || p >= 90 * max => 4,
        p if p >= 75 * max => 3,
        p if p >= 50 * max => 2,
        _ => 1,
    }
}

/// The hover text of a line.
pub fn tooltip(line: u32, facts: &LineFacts, max: u32, known: SchemeFacts) -> String {
    let mut parts = vec![format!(
        "Line {line}: {} × 32-bit registers live after it (kernel peak {max}); {} live before it.",
        facts.live, facts.live_in
    )];
    parts.extend(facts.defs.iter().map(|d| def_text(d, known)));
    if facts.uniform {
        parts.push("U — uniform value: the same in every thread of a warp.".to_owned());
    }
    if facts.single_use_load {
        parts.push(
            "L — single-use load (DeMO): its value is read exactly once; it can be a direct memory operand.".to_owned(),
        );
    }
    if facts.composite_pair {
        parts.push("C — composite pair (Gilani): fused with its partner instruction.".to_owned());
    }
    parts.join("\n")
}

/// `%r5: 6 bits, unsigned (declared 32 bits, signed); read 2×`.
pub fn def_text(d: &DefFact, known: SchemeFacts) -> String {
    let sign = |s: bool| if s { "signed" } else { "unsigned" };
    let width = if known.bitwidths {
        format!(
            "needs {} bits, {} (declared {} bits, {})",
            d.bits,
            sign(d.signed),
            d.declared_bits,
            sign(d.declared_signed)
        )
    } else {
        format!("{} bits, {} (declared width)", d.bits, sign(d.signed))
    };
    format!("Defines {}: {width}; read {}×.", d.register, d.uses)
}
