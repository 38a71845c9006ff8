//! Bar charts: grouped (one bar per series in each category) or stacked (series on top of each
//! other), drawn as the body of a chart's SVG (see [`super::ChartSpec::svg`]).
//!
//! ```text
//! BarData { categories: ["baseline", "no-bank-conflicts"], series: [IPC], y_label: "IPC (…)" }
//! ```

use std::fmt::Write as _;

use sim_core::diagnostic::escape_html;

use super::axes::{color, round_up, ticks, value_axis, x_ticks, Frame, Key, Spacing, INK};
use super::format::{cell, short};
use super::Table;

/// One named series of values, one per category.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Series {
    /// Legend name.
    pub name: String,
    /// Values, one per category.
    pub values: Vec<f64>,
    /// Palette index of its colour.
    pub colour: usize,
}

/// What a bar chart shows.
#[derive(Clone, Debug, Default, PartialEq)]
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

    /// The legend: the series when there are several.
    pub fn keys(&self) -> Vec<Key> {
        if self.series.len() < 2 {
            return Vec::new();
        }
        self.series.iter().map(|s| Key { name: s.name.clone(), colour: color(s.colour), dashed: false }).collect()
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
                row.extend(self.series.iter().map(|s| s.values.get(c).map_or(String::new(), |v| cell(*v))));
                row
            })
            .collect();
        Table { headers, rows }
    }

    /// The bars, the value axis and the category labels, into `s`.
    pub fn draw(&self, s: &mut String, f: &Frame) {
        let max = round_up(self.y_max.unwrap_or_else(|| self.max()), 4);
        value_axis(s, f, &ticks(0.0, max, 4, Spacing::Decimal), max);
        let slot = f.plot_width() / self.categories.len().max(1) as f64;
        let group = slot * 0.7;
        let bar_w = group / if self.stacked { 1.0 } else { self.series.len().max(1) as f64 };
        s.push_str("<g class=\"bars\">");
        for (c, cat) in self.categories.iter().enumerate() {
            let x_group = f.left() + slot * c as f64 + (slot - group) / 2.0;
            let mut acc = 0.0;
            for (i, series) in self.series.iter().enumerate() {
                let v = series.values.get(c).copied().unwrap_or(0.0);
                let (x, y0, y1) = if self.stacked {
                    let lo = acc;
                    acc += v;
                    (x_group, f.y(lo, max), f.y(acc, max))
                } else {
                    (x_group + bar_w * i as f64, f.bottom(), f.y(v, max))
                };
                let fill = color(if self.category_colours { c } else { series.colour });
                let _ = write!(
                    s,
                    "<rect x=\"{x:.1}\" y=\"{y1:.1}\" width=\"{:.1}\" height=\"{:.1}\" fill=\"{fill}\"><title>{} · {}: {}</title></rect>",
                    (bar_w - 1.0).max(1.0),
                    (y0 - y1).max(0.0),
                    escape_html(cat),
                    escape_html(&series.name),
                    cell(v)
                );
                if !self.stacked && self.series.len() == 1 {
                    let _ = write!(
                        s,
                        "<text class=\"bar-value\" x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\" fill=\"{INK}\">{}</text>",
                        x + bar_w / 2.0,
                        y1 - 3.0,
                        short(v)
                    );
                }
            }
        }
        s.push_str("</g>");
        let labels: Vec<(f64, String)> = self
            .categories
            .iter()
            .enumerate()
            .map(|(c, cat)| (f.left() + slot * (c as f64 + 0.5), cat.clone()))
            .collect();
        x_ticks(s, f, &labels, false);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ipc() -> BarData {
        BarData {
            categories: vec!["baseline".into(), "rfc-ob".into()],
            series: vec![Series { name: "IPC".into(), values: vec![1.5, 2.0], colour: 0 }],
            y_label: "warp-instructions / cycle".into(),
            category_colours: true,
            ..BarData::default()
        }
    }

    #[test]
    fn one_bar_per_scheme_in_the_scheme_colour_with_its_value() {
        let mut s = String::new();
        let data = ipc();
        data.draw(&mut s, &Frame::new(&data.keys()));
        assert_eq!(s.matches("<rect").count(), 2);
        // Category colours: scheme 0 blue, scheme 1 orange.
        assert!(s.contains(&format!("fill=\"{}\"><title>baseline · IPC: 1.5", color(0))));
        assert!(s.contains(&format!("fill=\"{}\"><title>rfc-ob · IPC: 2", color(1))));
        // max 2 → step 0.5 → ticks 0, 0.5, 1, 1.5, 2; values on the bars.
        assert_eq!(s.matches("class=\"bar-value\"").count(), 2);
        assert!(s.contains(">0.5</text>") && s.contains(">1.5</text>"));
        assert!(data.keys().is_empty());
    }

    #[test]
    fn stacks_are_as_tall_as_their_sum() {
        let data = BarData {
            categories: vec!["a".into()],
            series: vec![
                Series { name: "x".into(), values: vec![30.0], colour: 0 },
                Series { name: "y".into(), values: vec![70.0], colour: 1 },
            ],
            stacked: true,
            y_max: Some(100.0),
            ..BarData::default()
        };
        let mut s = String::new();
        let f = Frame::new(&data.keys());
        data.draw(&mut s, &f);
        // 30 of 100 on a 190-unit plot: 57 units; 70: 133.
        assert!(s.contains("height=\"57.0\"") && s.contains("height=\"133.0\""), "{s}");
        assert_eq!(data.table().rows, vec![vec!["a".to_owned(), "30".to_owned(), "70".to_owned()]]);
    }
}
