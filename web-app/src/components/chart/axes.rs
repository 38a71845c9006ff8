//! The geometry every chart shares: the colour-blind-safe palette, the frame (title band, plot
//! area, axis labels, legend rows), the one tick generator ("nice" 1-2-2.5-5 × 10ⁿ steps, or
//! powers of two), the value axis with grid lines, the x ticks, the axis labels and the legend.
//! Everything is written as SVG text with inline colours, so the exported file looks like the
//! chart on screen.
//!
//! ```text
//!            Title (class chart-title)
//!  y label │100 ┤─────────────   ← value axis: grid + ticks from ticks(0, round_up(max), 4)
//!          │  0 ┼──┬──┬──┬──
//!                  x ticks, x label
//!            ■ series A  ■ series B   ← legend rows (wrapped)
//! ```

use std::fmt::Write as _;

use sim_core::diagnostic::escape_html;

use super::format::short;

/// Series colours, colour-blind friendly: Okabe–Ito's eight (yellow last, it is faint on white)
/// then four of Paul Tol's "muted" set, so a stall breakdown's dozen causes stay distinct. A
/// scheme's colour is the colour of its position in the run, in every chart and on its card.
pub const PALETTE: [&str; 12] = [
    "#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#000000", "#999999", "#882255", "#44AA99",
    "#332288", "#F0E442",
];

/// The colour of series (or scheme) `i`.
pub fn color(i: usize) -> &'static str {
    PALETTE.get(i % PALETTE.len()).copied().unwrap_or("#000000")
}

/// Text colour of labels and ticks.
pub const INK: &str = "#333333";
/// Grid line colour.
const GRID: &str = "#d0d4da";
/// Width of every chart in SVG units (it scales to its box).
pub const WIDTH: f64 = 480.0;
const TOP: f64 = 34.0;
const LEFT: f64 = 58.0;
const RIGHT: f64 = 16.0;
const PLOT_HEIGHT: f64 = 190.0;
/// Below the plot: tick labels and the axis label.
const BELOW: f64 = 44.0;
const LEGEND_ROW: f64 = 15.0;

/// One legend entry: a name, its colour, and whether its line is dashed.
#[derive(Clone, Debug, PartialEq)]
pub struct Key {
    /// The series' name.
    pub name: String,
    /// Its colour.
    pub colour: &'static str,
    /// Drawn dashed (a second line of the same scheme).
    pub dashed: bool,
}

/// The SVG's size and the margins around the plot area, in SVG units.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Frame {
    /// Total height (legend included).
    pub height: f64,
    /// Rows of legend under the axis label (0: no legend).
    pub legend_rows: usize,
}

impl Frame {
    /// The frame of a chart with `keys` in its legend (none: no legend).
    pub fn new(keys: &[Key]) -> Frame {
        let legend_rows = legend_layout(keys).last().map_or(0, |(_, row)| row + 1);
        let legend = if legend_rows == 0 { 0.0 } else { 8.0 + LEGEND_ROW * legend_rows as f64 };
        Frame { height: TOP + PLOT_HEIGHT + BELOW + legend, legend_rows }
    }

    /// Left edge of the plot area.
    pub fn left(&self) -> f64 {
        LEFT
    }

    /// Right edge of the plot area.
    pub fn right(&self) -> f64 {
        WIDTH - RIGHT
    }

    /// Top of the plot area.
    pub fn top(&self) -> f64 {
        TOP
    }

    /// Bottom of the plot area (the zero line of a value axis).
    pub fn bottom(&self) -> f64 {
        TOP + PLOT_HEIGHT
    }

    /// Width of the plot area.
    pub fn plot_width(&self) -> f64 {
        self.right() - self.left()
    }

    /// The y coordinate of value `v` on a 0..`max` axis.
    pub fn y(&self, v: f64, max: f64) -> f64 {
        let f = if max > 0.0 { (v / max).clamp(0.0, 1.0) } else { 0.0 };
        self.bottom() - PLOT_HEIGHT * f
    }

    /// The `viewBox` attribute.
    pub fn view_box(&self) -> String {
        format!("0 0 {WIDTH} {}", self.height)
    }
}

/// How tick values are spaced.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Spacing {
    /// Linear, steps of 1, 2, 2.5 or 5 × 10ⁿ.
    #[default]
    Decimal,
    /// Linear, steps of a power of two (block sizes, KiB).
    Binary,
    /// Powers of two on a logarithmic axis (sizes 2…512), thinned to about `count`.
    Log2,
}

/// The smallest step of 1, 2, 2.5 or 5 × 10ⁿ at least `raw`.
fn nice_step(raw: f64) -> f64 {
    let mag = 10f64.powf(raw.log10().floor());
    [1.0, 2.0, 2.5, 5.0, 10.0].iter().map(|m| m * mag).find(|s| *s >= raw).unwrap_or(10.0 * mag)
}

/// The step of about `count` ticks over `span`.
fn step(span: f64, count: usize, spacing: Spacing) -> f64 {
    let raw = span / count.max(1) as f64;
    match spacing {
        Spacing::Binary => 2f64.powf(raw.log2().ceil()).max(1.0),
        _ => nice_step(raw),
    }
}

/// The top of a value axis from 0 showing `max`: the first nice tick at or above it (1 when
/// there is nothing to show). `round_up(0.9, 4) = 1` (step 0.25), `round_up(7, 4) = 8` (step 2).
pub fn round_up(max: f64, count: usize) -> f64 {
    let max = if max.is_finite() && max > 0.0 { max } else { 1.0 };
    let s = step(max, count, Spacing::Decimal);
    (max / s - 1e-9).ceil() * s
}

/// The one tick generator: about `count` round values in `[lo, hi]`.
pub fn ticks(lo: f64, hi: f64, count: usize, spacing: Spacing) -> Vec<f64> {
    let span = hi - lo;
    if span.is_nan() || span <= 0.0 || count == 0 {
        return vec![lo];
    }
    if spacing == Spacing::Log2 {
        let (a, b) = (lo.max(f64::MIN_POSITIVE).log2().ceil() as i32, hi.log2().floor() as i32);
        let every = ((b - a) / count as i32 + 1).max(1) as usize;
        return (a..=b).step_by(every).map(|k| 2f64.powi(k)).collect();
    }
    let s = step(span, count, spacing);
    let (first, last) = ((lo / s - 1e-9).ceil() as i64, (hi / s + 1e-9).floor() as i64);
    (first..=last).map(|i| i as f64 * s).collect()
}

/// The value axis: grid lines and labels for `ticks` on a 0..`max` scale (`<g class="y-ticks">`).
pub fn value_axis(s: &mut String, f: &Frame, ticks: &[f64], max: f64) {
    let (l, r) = (f.left(), f.right());
    s.push_str("<g class=\"y-ticks\">");
    for &t in ticks {
        let y = f.y(t, max);
        let _ = write!(
            s,
            "<line x1=\"{l}\" x2=\"{r}\" y1=\"{y:.1}\" y2=\"{y:.1}\" stroke=\"{GRID}\" stroke-width=\"1\"/>\
             <text x=\"{}\" y=\"{:.1}\" text-anchor=\"end\" fill=\"{INK}\">{}</text>",
            l - 5.0,
            y + 4.0,
            short(t)
        );
    }
    s.push_str("</g>");
}

/// Labels under the plot at x positions (`<g class="x-ticks">`), with a tick mark when `marks`.
pub fn x_ticks(s: &mut String, f: &Frame, labels: &[(f64, String)], marks: bool) {
    let b = f.bottom();
    s.push_str("<g class=\"x-ticks\">");
    for (x, label) in labels {
        if marks {
            let _ = write!(s, "<line x1=\"{x:.1}\" x2=\"{x:.1}\" y1=\"{b}\" y2=\"{}\" stroke=\"{INK}\"/>", b + 4.0);
        }
        let _ = write!(
            s,
            "<text x=\"{x:.1}\" y=\"{}\" text-anchor=\"middle\" fill=\"{INK}\">{}</text>",
            b + 15.0,
            escape_html(label)
        );
    }
    s.push_str("</g>");
}

/// The title above the plot, the axis lines, and the two axis labels (with their units).
pub fn frame_texts(s: &mut String, f: &Frame, title: &str, x_label: &str, y_label: &str) {
    let (l, t, r, b) = (f.left(), f.top(), f.right(), f.bottom());
    let _ = write!(
        s,
        "<text class=\"chart-title\" x=\"{}\" y=\"20\" text-anchor=\"middle\" font-size=\"13\" font-weight=\"600\" \
         fill=\"#1f2328\">{}</text>\
         <path class=\"axes\" d=\"M{l} {t} V{b} H{r}\" fill=\"none\" stroke=\"{INK}\" stroke-width=\"1\"/>\
         <text class=\"x-label\" x=\"{}\" y=\"{}\" text-anchor=\"middle\" fill=\"{INK}\">{}</text>\
         <text class=\"y-label\" transform=\"translate(13 {}) rotate(-90)\" text-anchor=\"middle\" fill=\"{INK}\">{}</text>",
        WIDTH / 2.0,
        escape_html(title),
        (l + r) / 2.0,
        b + 34.0,
        escape_html(x_label),
        (t + b) / 2.0,
        escape_html(y_label),
    );
}

/// Where each legend entry goes: `(x, row)`, wrapping at the chart's width.
fn legend_layout(keys: &[Key]) -> Vec<(f64, usize)> {
    let (mut x, mut row) = (8.0, 0);
    keys.iter()
        .map(|k| {
            let w = 28.0 + 7.0 * k.name.chars().count() as f64;
            if x + w > WIDTH && x > 8.0 {
                x = 8.0;
                row += 1;
            }
            let at = (x, row);
            x += w;
            at
        })
        .collect()
}

/// The legend under the axis label (`<g class="legend">`): a swatch (a short line, dashed where
/// the series is) and the name of each key.
pub fn legend(s: &mut String, f: &Frame, keys: &[Key]) {
    if keys.is_empty() {
        return;
    }
    s.push_str("<g class=\"legend\">");
    for (k, (x, row)) in keys.iter().zip(legend_layout(keys)) {
        let y = f.bottom() + BELOW + 8.0 + LEGEND_ROW * row as f64;
        let dash = if k.dashed { " stroke-dasharray=\"4 3\"" } else { "" };
        let _ = write!(
            s,
            "<line x1=\"{x}\" x2=\"{}\" y1=\"{}\" y2=\"{}\" stroke=\"{}\" stroke-width=\"4\"{dash}/>\
             <text x=\"{}\" y=\"{}\" fill=\"{INK}\">{}</text>",
            x + 18.0,
            y - 4.0,
            y - 4.0,
            k.colour,
            x + 22.0,
            y,
            escape_html(&k.name)
        );
    }
    s.push_str("</g>");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn value_axes_end_on_a_round_tick() {
        // 0.9 / 4 = 0.225 → step 0.25 → 0.9 rounds up to 1.0.
        assert_eq!(round_up(0.9, 4), 1.0);
        assert_eq!(ticks(0.0, round_up(0.9, 4), 4, Spacing::Decimal), vec![0.0, 0.25, 0.5, 0.75, 1.0]);
        // 7 / 4 = 1.75 → step 2 → 8.
        assert_eq!(ticks(0.0, round_up(7.0, 4), 4, Spacing::Decimal), vec![0.0, 2.0, 4.0, 6.0, 8.0]);
        assert_eq!(round_up(0.0, 4), 1.0);
        // 100 / 4 = 25 exactly: the axis ends at 100, not 125.
        assert_eq!(round_up(100.0, 4), 100.0);
    }

    #[test]
    fn binary_and_logarithmic_ticks() {
        // 1024 / 6 ≈ 171 → next power of two 256.
        assert_eq!(ticks(0.0, 1024.0, 6, Spacing::Binary), vec![0.0, 256.0, 512.0, 768.0, 1024.0]);
        // 2…512 on a log axis: 2¹…2⁹, (9 - 1) / 6 + 1 = 2 → every second power.
        assert_eq!(ticks(2.0, 512.0, 6, Spacing::Log2), vec![2.0, 8.0, 32.0, 128.0, 512.0]);
        assert_eq!(ticks(3.0, 3.0, 6, Spacing::Decimal), vec![3.0]);
    }

    #[test]
    fn a_long_legend_wraps_and_grows_the_frame() {
        let key = |n: &str| Key { name: n.repeat(10), colour: color(0), dashed: false };
        assert_eq!(Frame::new(&[]).legend_rows, 0);
        let wide = Frame::new(&[key("a"), key("b"), key("c"), key("d"), key("e")]);
        // Each key is 28 + 70 = 98 units wide: four end at 8 + 392 = 400, a fifth would end at 498.
        assert_eq!(wide.legend_rows, 2);
        assert_eq!(wide.height, Frame::new(&[key("a")]).height + LEGEND_ROW);
    }
}
