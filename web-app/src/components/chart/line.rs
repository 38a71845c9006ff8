//! Line charts over a numeric x axis (occupancy over cycles, sweeps, occupancy curves), drawn as
//! the body of a chart's SVG (see [`super::ChartSpec::svg`]): a `<polyline class="series">` per
//! line (straight or as steps), x ticks linear, by powers of two, or on a log₂ axis, and an
//! optional marked point with its label (the kernel on an occupancy curve).
//!
//! ```text
//! 100 ┤━━━━━━━┓
//!  50 ┤       ┗━━━━━● 52 registers: 20.8%     (step line + marker)
//!   0 ┼────┬────┬────┬──
//! ```

use std::fmt::Write as _;

use sim_core::diagnostic::escape_html;

use super::axes::{color, round_up, ticks, value_axis, x_ticks, Frame, Key, Spacing};
use super::format::{cell, short};
use super::Table;

/// One named line.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LineSeries {
    /// Legend name.
    pub name: String,
    /// `(x, y)` points in x order.
    pub points: Vec<(f64, f64)>,
    /// Palette index of its colour (a scheme's position in the run).
    pub colour: usize,
    /// Drawn dashed (a second line of the same scheme).
    pub dashed: bool,
}

/// A point to mark, with its label.
#[derive(Clone, Debug, PartialEq)]
pub struct Marker {
    /// x in data units.
    pub x: f64,
    /// y in data units.
    pub y: f64,
    /// Text beside it.
    pub label: String,
}

/// What a line chart shows.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LineData {
    /// The lines.
    pub series: Vec<LineSeries>,
    /// Label of the x axis, with its unit.
    pub x_label: String,
    /// Label of the y axis, with its unit.
    pub y_label: String,
    /// Fixed y maximum (e.g. 100 for percentages).
    pub y_max: Option<f64>,
    /// The x ticks: [`Spacing::Log2`] draws a base-2 logarithmic x axis from the smallest x to
    /// the largest (sizes 2…512); otherwise the axis is linear from 0.
    pub x_spacing: Spacing,
    /// The x axis reaches at least this far (the kernel's point beyond the curve).
    pub x_max: Option<f64>,
    /// Draw each line as steps (a value holds until the next x, the last to the axis' end).
    pub step: bool,
    /// A point to mark.
    pub marker: Option<Marker>,
}

/// Data x → SVG x.
struct XScale {
    lo: f64,
    hi: f64,
    log: bool,
    left: f64,
    width: f64,
}

impl XScale {
    fn px(&self, v: f64) -> f64 {
        let frac = if self.hi <= self.lo {
            if self.log {
                0.5
            } else {
                0.0
            }
        } else if self.log {
            (v.max(self.lo).log2() - self.lo.log2()) / (self.hi.log2() - self.lo.log2())
        } else {
            (v.clamp(self.lo, self.hi) - self.lo) / (self.hi - self.lo)
        };
        self.left + self.width * frac
    }
}

impl LineData {
    /// The legend: every line when there are several.
    pub fn keys(&self) -> Vec<Key> {
        if self.series.len() < 2 {
            return Vec::new();
        }
        let key = |s: &LineSeries| Key { name: s.name.clone(), colour: color(s.colour), dashed: s.dashed };
        self.series.iter().map(key).collect()
    }

    /// The points as a table: one row per series and x.
    pub fn table(&self) -> Table {
        let headers = vec!["Series".to_owned(), self.x_label.clone(), self.y_label.clone()];
        let rows = self
            .series
            .iter()
            .flat_map(|s| s.points.iter().map(|(x, y)| vec![s.name.clone(), cell(*x), cell(*y)]))
            .collect();
        Table { headers, rows }
    }

    fn x_scale(&self, f: &Frame) -> XScale {
        let xs = || self.series.iter().flat_map(|s| s.points.iter().map(|p| p.0));
        let hi = xs().fold(self.x_max.unwrap_or(0.0), f64::max);
        let hi = if hi > 0.0 { hi } else { 1.0 };
        let log = self.x_spacing == Spacing::Log2;
        let lo = if log { xs().filter(|v| *v > 0.0).fold(hi, f64::min) } else { 0.0 };
        XScale { lo, hi, log, left: f.left(), width: f.plot_width() }
    }

    /// The lines, the axes' ticks and the marker, into `s`.
    pub fn draw(&self, s: &mut String, f: &Frame) {
        let y_data = self.series.iter().flat_map(|l| l.points.iter().map(|p| p.1)).fold(0.0, f64::max);
        let max = round_up(self.y_max.unwrap_or(y_data), 4);
        value_axis(s, f, &ticks(0.0, max, 4, Spacing::Decimal), max);
        let x = self.x_scale(f);
        let labels: Vec<(f64, String)> =
            ticks(x.lo, x.hi, 6, self.x_spacing).into_iter().map(|t| (x.px(t), short(t))).collect();
        x_ticks(s, f, &labels, true);
        s.push_str("<g class=\"lines\">");
        for line in &self.series {
            let mut points = String::new();
            let mut last_y = None;
            for &(px, py) in &line.points {
                let (sx, sy) = (x.px(px), f.y(py, max));
                if let (true, Some(prev)) = (self.step, last_y) {
                    let _ = write!(points, "{sx:.1},{prev:.1} ");
                }
                let _ = write!(points, "{sx:.1},{sy:.1} ");
                last_y = Some(sy);
            }
            if let (true, Some(y)) = (self.step, last_y) {
                let _ = write!(points, "{:.1},{y:.1}", x.px(x.hi));
            }
            let dash = if line.dashed { " stroke-dasharray=\"6 4\"" } else { "" };
            let _ = write!(
                s,
                "<polyline class=\"series\" points=\"{}\" fill=\"none\" stroke=\"{}\" stroke-width=\"2\" stroke-linejoin=\"round\"{dash}/>",
                points.trim_end(),
                color(line.colour)
            );
        }
        s.push_str("</g>");
        if let Some(m) = &self.marker {
            marker(s, f, m, x.px(m.x), f.y(m.y, max));
        }
    }
}

/// The marked point: a red dot and its label, on the side with room.
fn marker(s: &mut String, f: &Frame, m: &Marker, px: f64, py: f64) {
    let right_side = px < f.left() + f.plot_width() * 0.6;
    let (dx, anchor) = if right_side { (8.0, "start") } else { (-8.0, "end") };
    let dy = if py < f.top() + 18.0 { 16.0 } else { -8.0 };
    let _ = write!(
        s,
        "<g class=\"kernel-point\"><circle cx=\"{px:.1}\" cy=\"{py:.1}\" r=\"5\" fill=\"#D55E00\" stroke=\"#ffffff\" stroke-width=\"1.5\"/>\
         <text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"{anchor}\" font-weight=\"600\" fill=\"#D55E00\" stroke=\"#ffffff\" \
         stroke-width=\"3\" paint-order=\"stroke\">{}</text></g>",
        px + dx,
        py + dy,
        escape_html(&m.label)
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    fn curve() -> LineData {
        LineData {
            series: vec![LineSeries { points: vec![(0.0, 100.0), (32.0, 50.0)], ..LineSeries::default() }],
            y_max: Some(100.0),
            x_max: Some(64.0),
            step: true,
            marker: Some(Marker { x: 40.0, y: 50.0, label: "40 registers: 50.0% <&>".into() }),
            ..LineData::default()
        }
    }

    #[test]
    fn a_step_line_holds_each_value_to_the_axis_end() {
        let data = curve();
        let f = Frame::new(&data.keys());
        let mut s = String::new();
        data.draw(&mut s, &f);
        // x 0..64 over 58..464 (406 units): 32 → 261; y 100 → 34, 50 → 129; the end is x 464.
        assert!(s.contains("points=\"58.0,34.0 261.0,34.0 261.0,129.0 464.0,129.0\""), "{s}");
        // 40 → 58 + 406 × 40 / 64 = 311.75; its label escaped.
        assert!(s.contains("cx=\"311.8\" cy=\"129.0\""));
        assert!(s.contains("50.0% &lt;&amp;&gt;"));
        assert_eq!(s.matches("<polyline").count(), 1);
    }

    #[test]
    fn scheme_lines_keep_their_colour_and_dash() {
        let line = |colour, dashed| LineSeries { name: "s".into(), points: vec![(1.0, 1.0)], colour, dashed };
        let data = LineData { series: vec![line(2, false), line(2, true)], ..LineData::default() };
        let keys = data.keys();
        assert_eq!((keys[0].colour, keys[1].colour, keys[1].dashed), (color(2), color(2), true));
        let mut s = String::new();
        data.draw(&mut s, &Frame::new(&keys));
        assert_eq!(s.matches(&format!("stroke=\"{}\"", color(2))).count(), 2);
        assert_eq!(s.matches("stroke-dasharray=\"6 4\"").count(), 1);
    }
}
