//! Shared chart geometry: the plot frame, "nice" ticks, number formatting, the value axis with
//! grid lines, axis labels and the legend. SVG only, inline colours (so a downloaded SVG looks
//! the same on its own).

use yew::prelude::*;

/// Series colours, colour-blind friendly: Okabe–Ito's eight (yellow last, it is faint on white)
/// then four of Paul Tol's "muted" set, so a stall breakdown's dozen causes stay distinct.
pub const PALETTE: [&str; 12] = [
    "#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#000000", "#999999", "#882255", "#44AA99",
    "#332288", "#F0E442",
];

/// The colour of series `i`.
pub fn color(i: usize) -> &'static str {
    PALETTE.get(i % PALETTE.len()).copied().unwrap_or("#000000")
}

/// Size of the SVG and the margins around the plot area, in SVG units.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Frame {
    /// Total width.
    pub width: f64,
    /// Total height (legend included).
    pub height: f64,
    /// Left margin (value axis).
    pub left: f64,
    /// Right margin.
    pub right: f64,
    /// Top margin.
    pub top: f64,
    /// Bottom margin (category labels, axis label, legend).
    pub bottom: f64,
}

impl Default for Frame {
    fn default() -> Self {
        Frame { width: 380.0, height: 250.0, left: 58.0, right: 14.0, top: 12.0, bottom: 70.0 }
    }
}

impl Frame {
    /// Width of the plot area.
    pub fn plot_width(&self) -> f64 {
        self.width - self.left - self.right
    }

    /// Height of the plot area.
    pub fn plot_height(&self) -> f64 {
        self.height - self.top - self.bottom
    }

    /// The y coordinate of value `v` on a 0..`max` axis.
    pub fn y(&self, v: f64, max: f64) -> f64 {
        let f = if max > 0.0 { (v / max).clamp(0.0, 1.0) } else { 0.0 };
        self.top + self.plot_height() * (1.0 - f)
    }

    /// The default frame grown by enough rows for a legend of `names` (one row per ~360 units).
    pub fn with_legend(names: &[String]) -> Frame {
        let f = Frame::default();
        let rows = legend_layout(&f, names).last().map_or(1, |(_, row)| row + 1);
        let extra = 15.0 * rows.saturating_sub(1) as f64;
        Frame { height: f.height + extra, bottom: f.bottom + extra, ..f }
    }

    /// The `viewBox` attribute.
    pub fn view_box(&self) -> String {
        format!("0 0 {} {}", self.width, self.height)
    }
}

/// Ticks from 0 to at least `max` at a 1-2-5 step, about `n` of them; the last tick is the axis
/// maximum.
pub fn nice_ticks(max: f64, n: usize) -> Vec<f64> {
    let max = if max.is_finite() && max > 0.0 { max } else { 1.0 };
    let step = crate::chart::nice_step(max / n.max(1) as f64);
    let count = (max / step).ceil() as usize;
    (0..=count).map(|i| i as f64 * step).collect()
}

/// A short label for a value: the one chart formatter, [`crate::chart::format_number`].
pub use crate::chart::format_number as fmt_num;

/// The value axis: grid lines and tick labels for `ticks`, and the rotated axis label.
pub fn value_axis(f: &Frame, ticks: &[f64], label: &str) -> Html {
    let max = ticks.last().copied().unwrap_or(1.0);
    let x0 = f.left;
    let x1 = f.width - f.right;
    let mid = f.top + f.plot_height() / 2.0;
    html! {
        <g class="axis axis-y">
            { for ticks.iter().map(|&t| {
                let y = f.y(t, max);
                html! { <g>
                    <line x1={x0.to_string()} x2={x1.to_string()} y1={y.to_string()} y2={y.to_string()} stroke="#d0d4da" stroke-width="1" />
                    <text x={(x0 - 5.0).to_string()} y={(y + 4.0).to_string()} text-anchor="end" font-size="11" fill="#333">{ fmt_num(t) }</text>
                </g> }
            }) }
            <text transform={format!("translate(13 {mid}) rotate(-90)")} text-anchor="middle" font-size="11" fill="#333">{ label }</text>
        </g>
    }
}

/// The label under the plot area.
pub fn category_axis_label(f: &Frame, label: &str) -> Html {
    let x = f.left + f.plot_width() / 2.0;
    let y = f.height - f.bottom + 34.0;
    html! { <text class="axis-label" x={x.to_string()} y={y.to_string()} text-anchor="middle" font-size="11" fill="#333">{ label }</text> }
}

/// Where each legend entry goes: `(x, row)`, wrapping at the frame's width.
fn legend_layout(f: &Frame, names: &[String]) -> Vec<(f64, usize)> {
    let (mut x, mut row) = (8.0, 0);
    names
        .iter()
        .map(|name| {
            let w = 24.0 + 7.0 * name.chars().count() as f64;
            if x + w > f.width && x > 8.0 {
                x = 8.0;
                row += 1;
            }
            let at = (x, row);
            x += w;
            at
        })
        .collect()
}

/// The legend at the bottom of the SVG, wrapped into rows (see [`Frame::with_legend`]).
pub fn legend(f: &Frame, names: &[String]) -> Html {
    let layout = legend_layout(f, names);
    let rows = layout.last().map_or(1, |(_, r)| r + 1);
    let items: Vec<Html> = names
        .iter()
        .zip(layout)
        .enumerate()
        .map(|(i, (name, (at, row)))| {
            let y = f.height - 6.0 - 15.0 * (rows - 1 - row) as f64;
            html! { <g>
                <rect x={at.to_string()} y={(y - 9.0).to_string()} width="10" height="10" fill={color(i)} />
                <text x={(at + 14.0).to_string()} y={y.to_string()} font-size="11" fill="#333">{ name.clone() }</text>
            </g> }
        })
        .collect();
    html! { <g class="legend">{ for items }</g> }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ticks_cover_the_maximum_with_round_steps() {
        assert_eq!(nice_ticks(0.9, 4), vec![0.0, 0.25, 0.5, 0.75, 1.0]);
        assert_eq!(nice_ticks(7.0, 4), vec![0.0, 2.0, 4.0, 6.0, 8.0]);
        assert_eq!(nice_ticks(0.0, 4).last(), Some(&1.0));
    }

    #[test]
    fn numbers_are_short() {
        assert_eq!(fmt_num(1_234_567.0), "1.23M");
        assert_eq!(fmt_num(0.5), "0.5");
        assert_eq!(fmt_num(40.0), "40");
        assert_eq!(fmt_num(12_000.0), "12k");
    }
}
