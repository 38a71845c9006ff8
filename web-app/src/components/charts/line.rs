//! Line charts over a numeric x axis (e.g. achieved occupancy over cycles), as the `<svg>` body of
//! a [`super::Chart`].

use yew::prelude::*;

use super::axes::{category_axis_label, color, fmt_num, legend, nice_ticks, value_axis, Frame};
use super::bars::table_num;
use super::Table;

/// One named line.
#[derive(Clone, Debug, PartialEq)]
pub struct LineSeries {
    /// Legend name.
    pub name: String,
    /// `(x, y)` points in x order.
    pub points: Vec<(f64, f64)>,
}

/// What a line chart shows.
#[derive(Clone, Debug, PartialEq)]
pub struct LineData {
    /// The lines.
    pub series: Vec<LineSeries>,
    /// Label of the x axis, with its unit.
    pub x_label: String,
    /// Label of the y axis, with its unit.
    pub y_label: String,
    /// Fixed y maximum (e.g. 100 for percentages).
    pub y_max: Option<f64>,
    /// A base-2 logarithmic x axis from the smallest x to the largest (sizes 2…512), ticks at
    /// powers of two; otherwise linear from 0.
    pub log_x: bool,
}

impl LineData {
    /// The SVG frame (taller when the legend needs several rows).
    pub fn frame(&self) -> Frame {
        Frame::with_legend(&self.series.iter().map(|s| s.name.clone()).collect::<Vec<_>>())
    }

    /// The points as a table: one row per series and x.
    pub fn table(&self) -> Table {
        let headers = vec!["Series".to_owned(), self.x_label.clone(), self.y_label.clone()];
        let rows = self
            .series
            .iter()
            .flat_map(|s| s.points.iter().map(|(x, y)| vec![s.name.clone(), table_num(*x), table_num(*y)]))
            .collect();
        Table { headers, rows }
    }
}

/// The SVG body of a line chart.
pub fn line_chart(data: &LineData) -> Html {
    let f = data.frame();
    let y_data = data.series.iter().flat_map(|s| s.points.iter().map(|p| p.1)).fold(0.0, f64::max);
    let ticks = nice_ticks(data.y_max.unwrap_or(y_data), 4);
    let max = ticks.last().copied().unwrap_or(1.0);
    let xs = || data.series.iter().flat_map(|s| s.points.iter().map(|p| p.0));
    let x_max = xs().fold(0.0, f64::max);
    let x_max = if x_max > 0.0 { x_max } else { 1.0 };
    let x_min = if data.log_x { xs().filter(|v| *v > 0.0).fold(x_max, f64::min) } else { 0.0 };
    let x = |v: f64| {
        let frac = if data.log_x && x_max > x_min {
            (v.max(x_min).log2() - x_min.log2()) / (x_max.log2() - x_min.log2())
        } else if data.log_x {
            0.5
        } else {
            v / x_max
        };
        f.left + f.plot_width() * frac
    };
    let base = f.y(0.0, max);
    let lines = data.series.iter().enumerate().map(|(i, s)| {
        let points: Vec<String> = s.points.iter().map(|&(px, py)| format!("{:.1},{:.1}", x(px), f.y(py, max))).collect();
        html! { <polyline points={points.join(" ")} fill="none" stroke={color(i)} stroke-width="2"><title>{ s.name.clone() }</title></polyline> }
    });
    let x_ticks = if data.log_x {
        let (lo, hi) = (x_min.log2().ceil() as i32, x_max.log2().floor() as i32);
        let step = ((hi - lo) / 6 + 1).max(1) as usize;
        (lo..=hi).step_by(step).map(|k| 2f64.powi(k)).collect()
    } else {
        nice_ticks(x_max, 4)
    };
    let x_labels = x_ticks.iter().filter(|t| **t <= x_max * 1.001).map(|&t| {
        html! { <text x={x(t).to_string()} y={(base + 15.0).to_string()} text-anchor="middle" font-size="11" fill="#333">{ fmt_num(t) }</text> }
    });
    let names: Vec<String> = data.series.iter().map(|s| s.name.clone()).collect();
    html! {
        <>
            { value_axis(&f, &ticks, &data.y_label) }
            <g class="lines">{ for lines }</g>
            <line x1={f.left.to_string()} x2={(f.width - f.right).to_string()} y1={base.to_string()} y2={base.to_string()} stroke="#333" />
            { for x_labels }
            { category_axis_label(&f, &data.x_label) }
            { legend(&f, &names) }
        </>
    }
}
