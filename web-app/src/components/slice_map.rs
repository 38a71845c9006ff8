//! The slice map of a `compression` run (Angerd et al., `SCHEMES.md` §2): how the scheme packed
//! the kernel's values into the 4-bit slices of its physical registers, instruction by
//! instruction. Rows are the kernel's instructions in layout order (labelled with their source
//! line), columns every physical register's slices; each value is a block over the slices it
//! holds from its definition to its last use (a split value draws two blocks with a dashed
//! outline). Hover or focus a block for its name, format and slices; the same data is in a
//! table below (`<details>`). Drawn from the report's `slice_map`
//! (`sim_core::timing::regfile::compression_slices`); kernels longer than [`MAX_ROWS`]
//! instructions show their first ones, with a note.
//!
//! ```text
//!          R0        R1        R2
//! line 8   ██                             %r1: 5-bit integer, R0 slices 0–1
//! line 9   ██▓▓▓▓▓                        %r2: R0 slices 2–6
//! line 10  ██▓▓▓▓▓             ░░░░░      %r3: R2 slices 0–4
//! ```

use std::collections::BTreeMap;

use sim_core::exec::float_formats::FORMATS;
use sim_core::timing::regfile::compression_slices::{FunctionSlices, SliceMap, SlicedValue};
use sim_core::timing::Report;
use yew::prelude::*;

use crate::components::chart::axes::{color, PALETTE};
use crate::components::chart::{table, Table};

/// Instructions drawn at most; a longer kernel shows its first ones (the table lists all).
pub const MAX_ROWS: usize = 400;
/// Height of one instruction's row (two half rows: live into it, live after it), SVG units.
const ROW: f64 = 14.0;
/// Width of one slice.
const SLICE: f64 = 7.0;
/// Space between two registers.
const GAP: f64 = 5.0;
/// Room for the line labels.
const LEFT: f64 = 56.0;
/// Room for the register labels.
const TOP: f64 = 18.0;

/// The slice maps of every `compression` report in `reports` (nothing when there is none).
pub fn slice_maps(reports: &[Report]) -> Html {
    let maps: Vec<(usize, &Report, &SliceMap)> =
        reports.iter().enumerate().filter_map(|(i, r)| r.slice_map.as_ref().map(|m| (i, r, m))).collect();
    if maps.is_empty() {
        return Html::default();
    }
    html! {
        <section class="slice-maps" id="slice-maps" aria-label="Slice maps">
            { for maps.into_iter().flat_map(|(i, r, m)| m.functions.iter().enumerate().map(move |(j, f)| {
                function_map(&format!("slice-map-{i}-{j}"), &r.scheme, m.slice_bits, f)
            })) }
        </section>
    }
}

/// Per source line of kernel `kernel`: `%r2: 20-bit integer in R0 slices 2–6` for every value
/// the first `compression` report in `reports` defines there (the annotated listing's formats).
pub fn formats_by_line(reports: &[Report], kernel: &str) -> BTreeMap<u32, Vec<String>> {
    let mut out: BTreeMap<u32, Vec<String>> = BTreeMap::new();
    let Some(map) = reports.iter().find_map(|r| r.slice_map.as_ref()) else { return out };
    let Some(f) = map.functions.iter().find(|f| f.name == kernel) else { return out };
    let per = per_register(map.slice_bits);
    for v in f.values.iter().filter(|v| v.name != "scratch") {
        let Some(&line) = f.lines.get((v.live.0 / 2) as usize) else { continue };
        let split = if is_split(v, per) { " (split)" } else { "" };
        out.entry(line).or_default().push(format!("{}: {} in {}{split}", v.name, format_text(v), pieces_text(v)));
    }
    out
}

/// Slices per 32-bit register.
fn per_register(slice_bits: u32) -> u32 {
    (32 / slice_bits.clamp(1, 32)).max(1)
}

/// `16-bit float (5/10)`, `5-bit integer`, `scratch register`.
pub fn format_text(v: &SlicedValue) -> String {
    if v.name == "scratch" {
        return "scratch register (32 bits)".to_owned();
    }
    if !v.float {
        return format!("{}-bit integer", v.bits);
    }
    match FORMATS.iter().find(|f| u32::from(f.bits) == v.bits) {
        Some(f) if v.bits < 32 => format!("{}-bit float ({}/{})", v.bits, f.exponent, f.mantissa),
        _ => format!("{}-bit float", v.bits),
    }
}

/// The slices of `mask` as contiguous runs `(first, count)`.
pub fn runs(mask: u8) -> Vec<(u32, u32)> {
    let mut out: Vec<(u32, u32)> = Vec::new();
    for s in (0..8).filter(|s| mask & (1 << s) != 0) {
        match out.last_mut() {
            Some((first, n)) if *first + *n == s => *n += 1,
            _ => out.push((s, 1)),
        }
    }
    out
}

/// `R2 slices 5–7 + R0 slice 0`.
pub fn pieces_text(v: &SlicedValue) -> String {
    let piece = |&(reg, mask): &(u32, u8)| {
        let parts: Vec<String> = runs(mask)
            .into_iter()
            .map(|(a, n)| if n == 1 { format!("slice {a}") } else { format!("slices {a}–{}", a + n - 1) })
            .collect();
        format!("R{reg} {}", parts.join(", "))
    };
    v.pieces.iter().map(piece).collect::<Vec<_>>().join(" + ")
}

/// The source lines of half positions `live` (`lines 11–12`, `line 14`).
pub fn live_text(f: &FunctionSlices, live: (u32, u32)) -> String {
    let line = |h: u32| f.lines.get((h / 2) as usize).copied();
    match (line(live.0), line(live.1)) {
        (Some(a), Some(b)) if a == b => format!("line {a}"),
        (Some(a), Some(b)) => format!("lines {a}–{b}"),
        _ => format!("instructions {}–{}", live.0 / 2, live.1 / 2),
    }
}

/// The hover text of a value.
pub fn value_title(f: &FunctionSlices, v: &SlicedValue, per: u32) -> String {
    let slices: u32 = v.pieces.iter().map(|p| p.1.count_ones()).sum();
    let split = if is_split(v, per) { " (split)" } else { "" };
    format!("{}: {}, {slices} slices: {}{split}; live {}", v.name, format_text(v), pieces_text(v), live_text(f, v.live))
}

/// A value split over two registers, part of one of them at least (not a 64-bit value taking
/// two whole ones); `per`: slices per register.
fn is_split(v: &SlicedValue, per: u32) -> bool {
    v.pieces.len() == 2 && v.name != "scratch" && v.pieces.iter().any(|p| p.1.count_ones() < per)
}

/// The colour of value `i`: the shared palette without its grey (grey is for scratch).
fn value_color(i: usize) -> &'static str {
    let k = i % (PALETTE.len() - 1);
    color(if k >= GREY { k + 1 } else { k })
}

/// The palette's grey.
const GREY: usize = 7;

/// The x of slice `s` of register `reg`.
fn slice_x(reg: u32, s: u32, per: u32) -> f64 {
    LEFT + f64::from(reg) * (f64::from(per) * SLICE + GAP) + f64::from(s) * SLICE
}

/// One value's blocks, clipped to the first `rows` instructions (nothing if it starts later).
fn value_blocks(f: &FunctionSlices, i: usize, v: &SlicedValue, rows: u32, per: u32) -> Html {
    let end = (2 * rows).saturating_sub(1);
    if v.live.0 > end {
        return Html::default();
    }
    let (y0, y1) = (v.live.0, v.live.1.min(end));
    let y = TOP + f64::from(y0) * ROW / 2.0;
    let h = f64::from(y1 - y0 + 1) * ROW / 2.0;
    let scratch = v.name == "scratch";
    let fill = if scratch { "#dddddd" } else { value_color(i) };
    let dash = is_split(v, per).then_some("3 2");
    let title = value_title(f, v, per);
    let pieces: Vec<String> = v.pieces.iter().map(|(r, m)| format!("R{r}:{m:#04x}")).collect();
    html! {
        <g class={classes!("sm-value", is_split(v, per).then_some("split"), scratch.then_some("scratch"))} tabindex="0"
           role="img" aria-label={title.clone()} data-name={v.name.clone()} data-bits={v.bits.to_string()}
           data-pieces={pieces.join(" ")} data-live={format!("{}-{}", v.live.0, v.live.1)}>
            <title>{ title }</title>
            { for v.pieces.iter().flat_map(|&(reg, mask)| runs(mask).into_iter().map(move |(a, n)| (reg, a, n))).map(|(reg, a, n)| html! {
                <rect class="sm-cell" x={format!("{:.1}", slice_x(reg, a, per) + 0.5)} y={format!("{:.1}", y + 0.5)}
                      width={format!("{:.1}", f64::from(n) * SLICE - 1.0)} height={format!("{:.1}", h - 1.0)}
                      fill={fill} fill-opacity="0.85" stroke={if dash.is_some() { "#000000" } else if scratch { "#888888" } else { "#ffffff" }}
                      stroke-width="1" stroke-dasharray={dash} />
            }) }
        </g>
    }
}

/// Register labels and separators, and the line labels of the first `rows` instructions.
fn grid(f: &FunctionSlices, regs: u32, rows: u32, per: u32) -> Html {
    let height = TOP + f64::from(rows) * ROW;
    let every = if rows > 200 { 5 } else { 1 };
    html! {
        <g class="sm-grid" font-size="9" fill="#333333">
            { for (0..regs).map(|r| {
                let x = slice_x(r, 0, per);
                let w = f64::from(per) * SLICE;
                html! { <>
                    <text x={format!("{:.1}", x + w / 2.0)} y="12" text-anchor="middle">{ format!("R{r}") }</text>
                    <rect x={format!("{x:.1}")} y={format!("{TOP:.1}")} width={format!("{w:.1}")} height={format!("{:.1}", height - TOP)}
                          fill="#f4f4f4" stroke="#cccccc" stroke-width="0.5" />
                </> }
            }) }
            { for (0..rows).filter(|p| p % every == 0).map(|p| {
                let line = f.lines.get(p as usize).map_or(String::new(), |l| format!("line {l}"));
                html! { <text x={format!("{:.1}", LEFT - 4.0)} y={format!("{:.1}", TOP + f64::from(p) * ROW + ROW * 0.75)} text-anchor="end">{ line }</text> }
            }) }
        </g>
    }
}

/// The table fallback: every value with its format, slices, pieces and live lines.
pub fn values_table(f: &FunctionSlices, per: u32) -> Table {
    let headers = ["Value", "Format", "Slices", "Registers and slices", "Live"].map(String::from).to_vec();
    let rows = f
        .values
        .iter()
        .map(|v| {
            let slices: u32 = v.pieces.iter().map(|p| p.1.count_ones()).sum();
            let split = if is_split(v, per) { " (split)" } else { "" };
            vec![
                v.name.clone(),
                format_text(v),
                slices.to_string(),
                format!("{}{split}", pieces_text(v)),
                live_text(f, v.live),
            ]
        })
        .collect();
    Table { headers, rows }
}

/// The colour key: one swatch per value (capped), split and scratch.
fn legend(f: &FunctionSlices) -> Html {
    const SHOWN: usize = 48;
    let named: Vec<(usize, &SlicedValue)> = f.values.iter().enumerate().filter(|(_, v)| v.name != "scratch").collect();
    let more = named.len().saturating_sub(SHOWN);
    html! {
        <ul class="sm-legend" aria-label="Slice map legend">
            { for named.iter().take(SHOWN).map(|(i, v)| html! {
                <li><span class="sm-swatch" style={format!("background:{}", value_color(*i))} />{ format!("{} ({})", v.name, format_text(v)) }</li>
            }) }
            if more > 0 { <li>{ format!("… and {more} more (see the table)") }</li> }
            <li><span class="sm-swatch sm-swatch-split" />{ "dashed outline: a value split over two registers" }</li>
            <li><span class="sm-swatch" style="background:#dddddd" />{ "grey: scratch register of a SASS sequence" }</li>
        </ul>
    }
}

/// The note over the map of a kernel of `total` instructions (`None`: all drawn).
pub fn cap_note(total: usize) -> Option<String> {
    (total > MAX_ROWS)
        .then(|| format!("Showing the first {MAX_ROWS} of {total} instructions; the table lists every value."))
}

/// One function's map with its heading, notes, legend and table.
fn function_map(id: &str, scheme: &str, slice_bits: u32, f: &FunctionSlices) -> Html {
    let per = per_register(slice_bits);
    let total = f.offsets.len();
    let rows = total.min(MAX_ROWS) as u32;
    let regs = f.values.iter().flat_map(|v| v.pieces.iter().map(|p| p.0 + 1)).max().unwrap_or(0);
    let width = slice_x(regs, 0, per) + 8.0;
    let height = TOP + f64::from(rows) * ROW + 4.0;
    let title = format!("Slice map of {} ({scheme})", f.name);
    let regs_note = match &f.kept {
        None => format!("{} → {} registers per thread", f.registers_before, f.registers_after),
        Some(why) => format!(
            "{} registers per thread kept (the slices would need {}): {why}",
            f.registers_before, f.registers_slices
        ),
    };
    html! {
        <figure class="slice-map" id={id.to_owned()} data-function={f.name.clone()} data-scheme={scheme.to_owned()}
                data-registers-before={f.registers_before.to_string()} data-registers-after={f.registers_after.to_string()}>
            <figcaption><span class="chart-title">{ title.clone() }</span></figcaption>
            <p class="chart-note">{ format!(
                "{regs_note}. Rows: instructions in layout order (upper half: live into it, lower half: live after it); \
                 columns: {per} slices of {slice_bits} bits per physical register. Hover or focus a block."
            ) }</p>
            if let Some(note) = cap_note(total) {
                <p class="sm-capped" role="note">{ note }</p>
            }
            { legend(f) }
            <div class="sm-scroll" tabindex="0" aria-label={format!("{title}, scrollable")}>
                <svg xmlns="http://www.w3.org/2000/svg" width={format!("{width:.0}")} height={format!("{height:.0}")}
                     viewBox={format!("0 0 {width:.0} {height:.0}")} role="group" aria-label={title.clone()} font-family="system-ui, sans-serif">
                    <title>{ title }</title>
                    { grid(f, regs, rows, per) }
                    { for f.values.iter().enumerate().map(|(i, v)| value_blocks(f, i, v, rows, per)) }
                </svg>
            </div>
            <details class="chart-table sm-table">
                <summary>{ "Table" }</summary>
                { table(&values_table(f, per)) }
            </details>
        </figure>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn value(name: &str, bits: u32, float: bool, pieces: &[(u32, u8)], live: (u32, u32)) -> SlicedValue {
        SlicedValue { name: name.into(), bits, float, pieces: pieces.to_vec(), live }
    }

    #[test]
    fn long_kernels_are_capped_with_a_note() {
        assert_eq!(cap_note(MAX_ROWS), None);
        assert_eq!(
            cap_note(MAX_ROWS + 1).as_deref(),
            Some("Showing the first 400 of 401 instructions; the table lists every value.")
        );
    }

    #[test]
    fn masks_read_as_runs_of_slices() {
        assert_eq!(runs(0x00), []);
        assert_eq!(runs(0xe0), [(5, 3)]);
        // 0b1001_1011: slices 0–1, 3–4, 7.
        assert_eq!(runs(0x9b), [(0, 2), (3, 2), (7, 1)]);
        assert_eq!(runs(0xff), [(0, 8)]);
    }

    /// `compression_split.ptx`'s %r4 (hand-worked there): 16 bits split over R2 slices 5–7 and
    /// R0 slice 0, live from its definition (instruction 3, half position 7) into instruction 4
    /// (8); instructions 3 and 4 are lines 11 and 12.
    #[test]
    fn titles_name_the_format_the_slices_and_the_lines() {
        let f = FunctionSlices { lines: vec![8, 9, 10, 11, 12, 13, 14], ..FunctionSlices::default() };
        let r4 = value("%r4", 16, false, &[(2, 0xe0), (0, 0x01)], (7, 8));
        assert_eq!(
            value_title(&f, &r4, 8),
            "%r4: 16-bit integer, 4 slices: R2 slices 5–7 + R0 slice 0 (split); live lines 11–12"
        );
        let f2 = value("%f2", 16, true, &[(3, 0x0f)], (13, 13));
        assert_eq!(value_title(&f, &f2, 8), "%f2: 16-bit float (5/10), 4 slices: R3 slices 0–3; live line 14");
        // A 64-bit value takes two whole registers: not a split.
        let rd = value("%rd1", 64, false, &[(4, 0xff), (5, 0xff)], (1, 2));
        assert!(!is_split(&rd, 8));
        // A 34-bit value: a whole register and one slice of another is a split.
        let rd5 = value("%rd5", 34, false, &[(2, 0xff), (3, 0x10)], (1, 2));
        assert!(is_split(&rd5, 8));
        assert!(value_title(&f, &rd5, 8).contains("R2 slices 0–7 + R3 slice 4 (split)"));
        // 8-bit slices: four per register, 0x0f is whole.
        assert!(!is_split(&value("%rd2", 64, false, &[(0, 0x0f), (1, 0x0f)], (1, 2)), 4));
        assert_eq!(format_text(&value("%f1", 32, true, &[], (0, 0))), "32-bit float");
    }

    #[test]
    fn the_table_has_a_row_per_value() {
        let f = FunctionSlices {
            lines: vec![8, 9],
            values: vec![
                value("%r1", 5, false, &[(0, 0x03)], (1, 2)),
                value("scratch", 32, false, &[(2, 0xff)], (2, 3)),
            ],
            ..FunctionSlices::default()
        };
        let t = values_table(&f, 8);
        assert_eq!(t.rows.len(), 2);
        assert_eq!(t.rows[0], ["%r1", "5-bit integer", "2", "R0 slices 0–1", "lines 8–9"]);
        assert_eq!(t.rows[1][1], "scratch register (32 bits)");
    }

    /// The worker's run of a `compression` scheme: precision tuning reports its steps before
    /// the simulation's progress (tuning_runs=4: before the reference run, after it, then three
    /// trials: runs 0, 1, 2, 3, 4 of at most 4), and the report carries the slice map drawn here.
    #[test]
    fn a_compression_run_reports_tuning_steps_and_its_slice_map() {
        let (steps, reports) = crate::run_job::saxpy_tuning(&["compression:tuning_runs=4"]);
        assert_eq!(steps, [(0, 4), (1, 4), (2, 4), (3, 4), (4, 4)]);
        let map = reports.first().and_then(|r| r.slice_map.clone()).unwrap_or_default();
        let f = map.functions.first().cloned().unwrap_or_default();
        assert_eq!(f.lines.len(), f.offsets.len(), "the worker locates the lines");
        assert!(f.values.iter().any(|v| v.name == "%r3" && v.bits == 14), "{:?}", f.values);
        // The listing's formats: %r3 on the line that defines it (its first half position).
        let r3 = f.values.iter().find(|v| v.name == "%r3").cloned().unwrap_or_default();
        let line = f.lines.get((r3.live.0 / 2) as usize).copied().unwrap_or(0);
        let formats = formats_by_line(&reports, "_Z5saxpyifPKfPf");
        let want = format!("%r3: 14-bit integer in {}", pieces_text(&r3));
        assert!(formats.get(&line).is_some_and(|l| l.contains(&want)), "{want} on line {line}: {formats:?}");
        assert!(formats_by_line(&reports, "another").is_empty());
    }
}
