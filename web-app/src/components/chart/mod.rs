//! The app's one chart family, with no JavaScript library. A [`ChartSpec`] (id, title, a note on
//! the units, a [`bars::BarData`] or [`line::LineData`] plot, optionally its own table) becomes
//! one standalone SVG document ([`ChartSpec::svg`]: title, axes with labels and units, ticks from
//! [`axes::ticks`], the colour-blind-safe palette and legend of [`axes`], numbers from
//! [`format`]); the [`Chart`] component shows that markup (focusable, named by its title,
//! described by the note), offers the same markup as the SVG download and as a PNG
//! ([`export`]), and the data as a table in a `<details>` (the accessible fallback). Every chart
//! of the page — occupancy curves, run results, sweeps, the CTA timeline — is one of these.
//!
//! ```text
//! <figure class="chart" id="chart-ID">
//!   <div class="chart-box"><svg role="img" tabindex="0"><title/><desc/><text class="chart-title"/>…</svg></div>
//!   <figcaption> note · <a class="chart-download">SVG</a> <button class="chart-download-png">PNG</button>
//!   <details class="chart-table"><summary>Data table</summary><table>…</table></details></figure>
//! ```

pub mod axes;
pub mod bars;
pub mod export;
pub mod format;
pub mod line;

use std::fmt::Write as _;
use std::rc::Rc;

use sim_core::diagnostic::escape_html;
use yew::prelude::*;

pub use bars::{BarData, Series};
pub use line::{LineData, LineSeries, Marker};

/// The numbers of a chart as a table (the accessible fallback).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Table {
    /// Column headers.
    pub headers: Vec<String>,
    /// Rows of cells.
    pub rows: Vec<Vec<String>>,
}

/// What a chart draws.
#[derive(Clone, Debug, PartialEq)]
pub enum Plot {
    /// Bars per category.
    Bars(BarData),
    /// Lines over a numeric x.
    Lines(LineData),
}

impl Plot {
    fn keys(&self) -> Vec<axes::Key> {
        match self {
            Plot::Bars(b) => b.keys(),
            Plot::Lines(l) => l.keys(),
        }
    }

    fn labels(&self) -> (&str, &str) {
        match self {
            Plot::Bars(b) => (&b.x_label, &b.y_label),
            Plot::Lines(l) => (&l.x_label, &l.y_label),
        }
    }
}

/// One chart: what it shows and how it is named.
#[derive(Clone, Debug, PartialEq)]
pub struct ChartSpec {
    /// Stable id: the figure is `chart-ID`, the downloads `reglab-ID.svg` / `.png`.
    pub id: String,
    /// The title, drawn above the plot and the SVG's accessible name.
    pub title: String,
    /// A sentence on what is drawn and its units (under the chart, and the SVG's description).
    pub note: Option<String>,
    /// The plot.
    pub plot: Plot,
    /// The data table, when the plot's own (one row per point) is not the best fallback.
    pub table: Option<Table>,
}

impl ChartSpec {
    /// A chart of `plot` with no note and the plot's table.
    pub fn new(id: impl Into<String>, title: impl Into<String>, plot: Plot) -> ChartSpec {
        ChartSpec { id: id.into(), title: title.into(), note: None, plot, table: None }
    }

    /// The same with a note.
    pub fn with_note(self, note: impl Into<String>) -> ChartSpec {
        ChartSpec { note: Some(note.into()), ..self }
    }

    /// The data table.
    pub fn table(&self) -> Table {
        match (&self.table, &self.plot) {
            (Some(t), _) => t.clone(),
            (None, Plot::Bars(b)) => b.table(),
            (None, Plot::Lines(l)) => l.table(),
        }
    }

    /// The chart as a standalone SVG document (`<svg xmlns=…>…</svg>`): shown on the page and
    /// downloaded as it is.
    pub fn svg(&self) -> String {
        let keys = self.plot.keys();
        let f = axes::Frame::new(&keys);
        let id = escape_html(&format!("chart-{}", self.id));
        let mut s = String::new();
        let _ = write!(
            s,
            "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"{}\" width=\"{}\" height=\"{}\" role=\"img\" tabindex=\"0\" \
             aria-labelledby=\"{id}-title {id}-desc\" class=\"chart-svg\" font-family=\"system-ui, -apple-system, 'Segoe UI', \
             Roboto, 'Noto Sans', 'Liberation Sans', sans-serif\" font-size=\"11\">\
             <title id=\"{id}-title\">{}</title><desc id=\"{id}-desc\">{}</desc>\
             <rect width=\"100%\" height=\"100%\" fill=\"#ffffff\"/>",
            f.view_box(),
            axes::WIDTH,
            f.height,
            escape_html(&self.title),
            escape_html(self.note.as_deref().unwrap_or_default()),
        );
        match &self.plot {
            Plot::Bars(b) => b.draw(&mut s, &f),
            Plot::Lines(l) => l.draw(&mut s, &f),
        }
        let (x_label, y_label) = self.plot.labels();
        axes::frame_texts(&mut s, &f, &self.title, x_label, y_label);
        axes::legend(&mut s, &f, &keys);
        s.push_str("</svg>");
        s
    }
}

/// Properties of [`Chart`].
#[derive(Properties, Clone, PartialEq)]
pub struct ChartProps {
    /// The chart.
    pub spec: Rc<ChartSpec>,
}

/// A chart figure: the SVG, its note, SVG and PNG downloads of the same markup, the table.
#[function_component(Chart)]
pub fn chart(props: &ChartProps) -> Html {
    let markup = use_memo(props.spec.clone(), |spec| AttrValue::from(spec.svg()));
    let href = use_memo(markup.clone(), |m| AttrValue::from(export::data_url(m)));
    let spec = &props.spec;
    let png = {
        let (markup, name) = (markup.clone(), format!("reglab-{}.png", spec.id));
        Callback::from(move |_: MouseEvent| export::download_png(&name, &markup))
    };
    html! {
        <figure class="chart" id={format!("chart-{}", spec.id)}>
            <div class="chart-box">{ Html::from_html_unchecked((*markup).clone()) }</div>
            <figcaption class="chart-caption">
                if let Some(note) = &spec.note { <span class="chart-note">{ note.clone() }</span> }
                <a class="chart-download" href={(*href).clone()} download={format!("reglab-{}.svg", spec.id)}
                   aria-label={format!("Download “{}” as SVG", spec.title)}>{ "SVG" }</a>
                <button type="button" class="chart-download-png" onclick={png}
                        aria-label={format!("Download “{}” as PNG (2×)", spec.title)}>{ "PNG" }</button>
            </figcaption>
            <details class="chart-table">
                <summary>{ "Data table" }</summary>
                { table_with_caption(&spec.table(), Some(&format!("Data of “{}”", spec.title))) }
            </details>
        </figure>
    }
}

/// A chart per spec.
pub fn charts(specs: impl IntoIterator<Item = ChartSpec>) -> Html {
    specs.into_iter().map(|spec| html! { <Chart spec={Rc::new(spec)} /> }).collect()
}

/// A plain HTML table (chart fallbacks, the results' summary and counters).
pub fn table(t: &Table) -> Html {
    table_with_caption(t, None)
}

fn table_with_caption(t: &Table, caption: Option<&str>) -> Html {
    html! {
        <table>
            if let Some(c) = caption { <caption class="visually-hidden">{ c.to_owned() }</caption> }
            <thead><tr>{ for t.headers.iter().map(|h| html! { <th scope="col">{ h.clone() }</th> }) }</tr></thead>
            <tbody>{ for t.rows.iter().map(|r| html! { <tr>{ for r.iter().map(|c| html! { <td>{ c.clone() }</td> }) }</tr> }) }</tbody>
        </table>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_svg_has_title_description_labels_and_one_root() {
        let plot = Plot::Bars(BarData {
            categories: vec!["a<b".into()],
            series: vec![Series { name: "IPC".into(), values: vec![2.0], colour: 0 }],
            x_label: "Register-file scheme".into(),
            y_label: "warp-instructions / cycle".into(),
            ..BarData::default()
        });
        let svg = ChartSpec::new("ipc", "IPC & co", plot).with_note("Per cycle.").svg();
        assert!(svg.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 480 268\""), "{svg}");
        assert!(svg.contains("aria-labelledby=\"chart-ipc-title chart-ipc-desc\""));
        assert!(svg.contains(
            "<title id=\"chart-ipc-title\">IPC &amp; co</title><desc id=\"chart-ipc-desc\">Per cycle.</desc>"
        ));
        assert!(svg.contains("class=\"x-label\"") && svg.contains(">warp-instructions / cycle</text>"));
        assert!(svg.contains(">a&lt;b</text>"));
        assert_eq!((svg.matches("<svg").count(), svg.matches("</svg>").count()), (1, 1));
        assert!(svg.ends_with("</svg>"));
    }
}
