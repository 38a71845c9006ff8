//! Small SVG charts with no JavaScript library: a [`Chart`] frame (title, the `<svg>` — focusable,
//! named by the title and described by the note —, SVG and PNG download buttons, and a
//! `<details>` table with the same numbers) around a body drawn by
//! [`bars::bar_chart`] or [`line::line_chart`]. [`axes`] holds the shared geometry.
//!
//! ```text
//! <figure class="chart"><figcaption>IPC</figcaption><svg role="img" aria-label="IPC">…</svg>
//!   <button>Download SVG</button><details><summary>Table</summary><table>…</table></details></figure>
//! ```

pub mod axes;
pub mod bars;
pub mod line;

use yew::prelude::*;

pub use bars::{bar_chart, BarData, Series};
pub use line::{line_chart, LineData, LineSeries};

/// The numbers of a chart as a table (the accessible fallback).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Table {
    /// Column headers.
    pub headers: Vec<String>,
    /// Rows of cells.
    pub rows: Vec<Vec<String>>,
}

/// Properties of [`Chart`].
#[derive(Properties, Clone, PartialEq)]
pub struct ChartProps {
    /// Title (also the SVG's accessible name).
    pub title: AttrValue,
    /// Stable id (used for the element id and the download's file name).
    pub id: AttrValue,
    /// The SVG body.
    pub body: Html,
    /// The same data as a table.
    pub table: Table,
    /// The SVG's size (from `BarData::frame` / `LineData::frame`).
    #[prop_or_default]
    pub frame: axes::Frame,
    /// A sentence under the title (what the unit means).
    #[prop_or_default]
    pub note: Option<AttrValue>,
}

/// A titled chart with an SVG download and a table fallback.
#[function_component(Chart)]
pub fn chart(props: &ChartProps) -> Html {
    let svg_ref = use_node_ref();
    let download = {
        let (svg_ref, id) = (svg_ref.clone(), props.id.clone());
        Callback::from(move |_: MouseEvent| {
            if let Some(el) = svg_ref.cast::<web_sys::Element>() {
                crate::export::download(&format!("reglab-{id}.svg"), "image/svg+xml", &el.outer_html());
            }
        })
    };
    let png = {
        let (svg_ref, id) = (svg_ref.clone(), props.id.clone());
        Callback::from(move |_: MouseEvent| {
            if let Some(el) = svg_ref.cast::<web_sys::Element>() {
                crate::export_png::download_png(&format!("reglab-{id}.png"), &el.outer_html());
            }
        })
    };
    let f = props.frame;
    html! {
        <figure class="chart" id={format!("chart-{}", props.id)}>
            <figcaption>
                <span class="chart-title">{ props.title.clone() }</span>
                <button type="button" class="chart-download" onclick={download} title="Download this chart as SVG">{ "SVG" }</button>
                <button type="button" class="chart-download-png" onclick={png} title="Download this chart as PNG (2×)">{ "PNG" }</button>
            </figcaption>
            if let Some(note) = &props.note { <p class="chart-note">{ note.clone() }</p> }
            <svg ref={svg_ref} xmlns="http://www.w3.org/2000/svg" viewBox={f.view_box()} role="img" tabindex="0"
                 aria-label={props.title.clone()} aria-description={props.note.clone()} font-family="system-ui, sans-serif">
                <title>{ props.title.clone() }</title>
                { props.body.clone() }
            </svg>
            <details class="chart-table">
                <summary>{ "Table" }</summary>
                { table(&props.table) }
            </details>
        </figure>
    }
}

/// A plain HTML table.
pub fn table(t: &Table) -> Html {
    html! {
        <table>
            <thead><tr>{ for t.headers.iter().map(|h| html! { <th scope="col">{ h.clone() }</th> }) }</tr></thead>
            <tbody>{ for t.rows.iter().map(|r| html! { <tr>{ for r.iter().map(|c| html! { <td>{ c.clone() }</td> }) }</tr> }) }</tbody>
        </table>
    }
}
