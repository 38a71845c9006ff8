//! Bar charts: grouped (one bar per series in each category) or stacked (series on top of each
//! other), as the `<svg>` body of a [`super::Chart`].
//!
//! ```text
//! BarData { categories: ["baseline", "no-bank-conflicts"], series: [IPC], y_label: "IPC (…)" }
//! ```

use yew::prelude::*;

use super::axes::{category_axis_label, color, fmt_num, legend, nice_ticks, value_axis, Frame};
use super::Table;

/// One named series of values, one per category.
#[derive(Clone, Debug, PartialEq)]
pub struct Series {
    /// Legend name.
    pub name: String,
    /// Values, one per category.
    pub values: Vec<f64>,
}

/// What a bar chart shows.
#[derive(Clone, Debug, PartialEq)]
pub struct BarData {
    /// Category labels (x axis).
    pub categories: Vec<String>,
    /// Series (bars per category, or stacked segments).
    pub series: Vec<Series>,
    /// Label of the category axis.
    pub x_label: String,
    /// Label of the value axis, with its unit.
    pub y_label: String,
    /// Stack the series instead of placing them side by side.
    pub stacked: bool,
    /// Fixed axis maximum (e.g. 100 for percentages).
    pub y_max: Option<f64>,
    /// Colour each category's bars by the category's position (one bar per scheme, each scheme
    /// in its own colour in every chart) instead of by series.
    pub category_colours: bool,
}

impl BarData {
    /// The largest bar (or stack).
    fn max(&self) -> f64 {
        (0..self.categories.len())
            .map(|c| {
                let vals = self.series.iter().filter_map(|s| s.values.get(c).copied());
                if self.stacked {
                    vals.sum::<f64>()
                } else {
                    vals.fold(0.0, f64::max)
                }
            })
            .fold(0.0, f64::max)
    }

    /// The SVG frame (taller when the legend needs several rows).
    pub fn frame(&self) -> Frame {
        if self.series.len() > 1 {
            Frame::with_legend(&self.series.iter().map(|s| s.name.clone()).collect::<Vec<_>>())
        } else {
            Frame::default()
        }
    }

    /// The same numbers as a table.
    pub fn table(&self) -> Table {
        let mut headers = vec![self.x_label.clone()];
        headers.extend(self.series.iter().map(|s| s.name.clone()));
        let rows = self
            .categories
            .iter()
            .enumerate()
            .map(|(c, cat)| {
                let mut row = vec![cat.clone()];
                row.extend(self.series.iter().map(|s| s.values.get(c).map_or(String::new(), |v| table_num(*v))));
                row
            })
            .collect();
        Table { headers, rows }
    }
}

/// A number for a table cell: up to four significant decimals.
pub fn table_num(v: f64) -> String {
    if v.fract() == 0.0 && v.abs() < 1e15 {
        format!("{v:.0}")
    } else {
        let t = format!("{v:.4}");
        t.trim_end_matches('0').trim_end_matches('.').to_owned()
    }
}

/// The SVG body of a bar chart.
pub fn bar_chart(data: &BarData) -> Html {
    let f = data.frame();
    let ticks = nice_ticks(data.y_max.unwrap_or_else(|| data.max()), 4);
    let max = ticks.last().copied().unwrap_or(1.0);
    let n = data.categories.len().max(1) as f64;
    let slot = f.plot_width() / n;
    let group = slot * 0.7;
    let per = if data.stacked { 1.0 } else { data.series.len().max(1) as f64 };
    let bar_w = group / per;
    let base = f.y(0.0, max);
    let mut bars = Vec::new();
    for (c, cat) in data.categories.iter().enumerate() {
        let x_group = f.left + slot * c as f64 + (slot - group) / 2.0;
        let mut acc = 0.0;
        for (s, series) in data.series.iter().enumerate() {
            let v = series.values.get(c).copied().unwrap_or(0.0);
            let (x, y0, y1) = if data.stacked {
                let lo = acc;
                acc += v;
                (x_group, f.y(lo, max), f.y(acc, max))
            } else {
                (x_group + bar_w * s as f64, base, f.y(v, max))
            };
            let title = format!("{cat} · {}: {}", series.name, table_num(v));
            bars.push(html! {
                <rect x={x.to_string()} y={y1.to_string()} width={(bar_w - 1.0).max(1.0).to_string()}
                      height={(y0 - y1).max(0.0).to_string()} fill={color(if data.category_colours { c } else { s })}><title>{ title }</title></rect>
            });
            if !data.stacked && data.series.len() == 1 {
                bars.push(html! {
                    <text class="bar-value" x={(x + bar_w / 2.0).to_string()} y={(y1 - 3.0).to_string()} text-anchor="middle" font-size="11" fill="#111">{ fmt_num(v) }</text>
                });
            }
        }
        let label_x = f.left + slot * (c as f64 + 0.5);
        bars.push(html! {
            <text x={label_x.to_string()} y={(base + 15.0).to_string()} text-anchor="middle" font-size="11" fill="#333">{ cat.clone() }</text>
        });
    }
    let names: Vec<String> = data.series.iter().map(|s| s.name.clone()).collect();
    html! {
        <>
            { value_axis(&f, &ticks, &data.y_label) }
            <g class="bars">{ for bars }</g>
            <line x1={f.left.to_string()} x2={(f.width - f.right).to_string()} y1={base.to_string()} y2={base.to_string()} stroke="#333" />
            { category_axis_label(&f, &data.x_label) }
            if data.series.len() > 1 { { legend(&f, &names) } }
        </>
    }
}
