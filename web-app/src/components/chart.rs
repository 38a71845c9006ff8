//! A chart figure: the SVG from [`crate::chart::svg`] (focusable), an "Export SVG" download link
//! of the same markup, "Export PNG" (`export_png.rs`, as the results' charts), and the data as a
//! table in a `<details>` (the accessible fallback).
//!
//! ```text
//! <figure class="chart"> <svg role="img" …>…</svg>
//!   <figcaption> Export SVG </figcaption>
//!   <details> Data table: x range │ blocks/SM │ warps/SM │ occupancy </details>
//! </figure>
//! ```

use std::rc::Rc;

use yew::prelude::*;

use crate::chart::{data_url, svg, ChartSpec};

/// What a chart figure shows.
#[derive(Properties, PartialEq)]
pub struct ChartProps {
    /// The chart.
    pub spec: Rc<ChartSpec>,
    /// Header cells of the data table.
    pub columns: Vec<AttrValue>,
    /// Rows of the data table (cells as text).
    pub rows: Rc<Vec<Vec<String>>>,
    /// The file name offered for the SVG download.
    pub file_name: AttrValue,
}

/// The chart component.
#[function_component(Chart)]
pub fn chart(props: &ChartProps) -> Html {
    let markup = use_memo(props.spec.clone(), |spec| AttrValue::from(svg(spec)));
    let href = use_memo(markup.clone(), |m| AttrValue::from(data_url(m)));
    let id = props.spec.id.clone();
    let png = {
        let (markup, name) = (markup.clone(), props.file_name.to_string().replace(".svg", ".png"));
        Callback::from(move |_: MouseEvent| crate::export_png::download_png(&name, &markup))
    };
    html! {
        <figure class="chart" id={id.clone()}>
            <div class="chart-box" tabindex="0" aria-label={props.spec.title.clone()}>{ Html::from_html_unchecked((*markup).clone()) }</div>
            <figcaption class="chart-caption">
                <a class="chart-export" href={(*href).clone()} download={props.file_name.clone()}
                   aria-label={format!("Export “{}” as SVG", props.spec.title)}>
                    { "Export SVG" }
                </a>
                <button type="button" class="chart-export-png" onclick={png}
                        aria-label={format!("Export “{}” as PNG", props.spec.title)}>{ "Export PNG" }</button>
                <details class="chart-table">
                    <summary>{ "Data table" }</summary>
                    <table>
                        <caption class="visually-hidden">{ format!("Data of “{}”", props.spec.title) }</caption>
                        <thead>
                            <tr>{ for props.columns.iter().map(|c| html! { <th scope="col">{ c.clone() }</th> }) }</tr>
                        </thead>
                        <tbody>
                            { for props.rows.iter().map(|row| html! {
                                <tr>{ for row.iter().map(|cell| html! { <td>{ cell }</td> }) }</tr>
                            }) }
                        </tbody>
                    </table>
                </details>
            </figcaption>
        </figure>
    }
}
