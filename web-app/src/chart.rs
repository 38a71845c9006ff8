//! Line charts as standalone SVG text: the same markup is shown on the page and offered as a
//! download, so an exported chart looks exactly like the one on screen. A chart has a title, axis
//! labels with units, ticks, a (step) line, and an optional marked point with a label. Colours
//! and fonts are attributes, not page CSS, so the file renders the same anywhere.
//!
//! ```text
//! Occupancy vs registers per thread
//! 100 ┤━━━━━━━┓
//!  50 ┤       ┗━━━━━● 52 registers: 20.8 %
//!   0 ┼────┬────┬────┬──
//!     0   16   32   48   Registers per thread
//! ```

use std::fmt::Write as _;

use sim_core::diagnostic::escape_html;

/// Width of the drawing in SVG user units (it scales to its box).
pub const WIDTH: f64 = 480.0;
/// Height of the drawing in SVG user units.
pub const HEIGHT: f64 = 270.0;
const LEFT: f64 = 54.0;
const RIGHT: f64 = 18.0;
const TOP: f64 = 38.0;
const BOTTOM: f64 = 48.0;
const FONT: &str = "system-ui, -apple-system, 'Segoe UI', Roboto, 'Noto Sans', 'Liberation Sans', sans-serif";

/// One chart.
#[derive(Clone, Debug, PartialEq)]
pub struct ChartSpec {
    /// Prefix for element ids (unique on the page).
    pub id: String,
    /// The title drawn above the plot (also the SVG's accessible name).
    pub title: String,
    /// The x axis label with its unit.
    pub x_label: String,
    /// The y axis label with its unit.
    pub y_label: String,
    /// The series, ascending in x.
    pub points: Vec<(f64, f64)>,
    /// The x range shown.
    pub x_range: (f64, f64),
    /// The y range shown.
    pub y_range: (f64, f64),
    /// Draw the series as steps (each value holds until the next x).
    pub step: bool,
    /// Put x ticks at powers of two (block sizes, KiB).
    pub x_binary: bool,
    /// A point to mark, with its label.
    pub marker: Option<Marker>,
    /// A sentence describing the chart for screen readers.
    pub description: String,
}

/// A marked point.
#[derive(Clone, Debug, PartialEq)]
pub struct Marker {
    /// x in data units.
    pub x: f64,
    /// y in data units.
    pub y: f64,
    /// Text beside it.
    pub label: String,
}

/// The plot area in user units: (left, top, right, bottom).
fn plot_box() -> (f64, f64, f64, f64) {
    (LEFT, TOP, WIDTH - RIGHT, HEIGHT - BOTTOM)
}

/// Maps data to user units.
struct Scale {
    x: (f64, f64),
    y: (f64, f64),
}

impl Scale {
    fn px(&self, x: f64) -> f64 {
        let (l, _, r, _) = plot_box();
        let span = (self.x.1 - self.x.0).max(f64::EPSILON);
        l + (x.clamp(self.x.0, self.x.1) - self.x.0) / span * (r - l)
    }

    fn py(&self, y: f64) -> f64 {
        let (_, t, _, b) = plot_box();
        let span = (self.y.1 - self.y.0).max(f64::EPSILON);
        b - (y.clamp(self.y.0, self.y.1) - self.y.0) / span * (b - t)
    }
}

/// About `count` round tick values covering `[min, max]` (steps of 1, 2 or 5 × 10ⁿ, or powers of
/// two when `binary`).
pub fn ticks(min: f64, max: f64, count: usize, binary: bool) -> Vec<f64> {
    let span = max - min;
    if span.is_nan() || span <= 0.0 || count == 0 {
        return vec![min];
    }
    let raw = span / count as f64;
    let step = if binary { 2f64.powf(raw.log2().ceil()).max(1.0) } else { nice_step(raw) };
    let first = (min / step).ceil() as i64;
    let last = (max / step + 1e-9).floor() as i64;
    (first..=last).map(|i| i as f64 * step).collect()
}

/// The smallest step of 1, 2, 2.5 or 5 × 10ⁿ at least `raw`: the one tick rule of every chart
/// (also [`crate::components::charts::axes::nice_ticks`]).
pub fn nice_step(raw: f64) -> f64 {
    let mag = 10f64.powf(raw.log10().floor());
    [1.0, 2.0, 2.5, 5.0, 10.0].iter().map(|m| m * mag).find(|s| *s >= raw).unwrap_or(10.0 * mag)
}

/// A number as an axis or bar label, the one formatter of every chart: integers without
/// decimals, others with two significant decimals below 10 and one below 100, and k / M / G from
/// 10 000 up (1234567 → "1.23M", 0.5 → "0.5", 12 000 → "12k"). Tables keep full precision
/// ([`crate::components::charts::bars::table_num`]).
pub fn format_number(v: f64) -> String {
    let a = v.abs();
    let (x, suffix) = if a >= 1e9 {
        (v / 1e9, "G")
    } else if a >= 1e6 {
        (v / 1e6, "M")
    } else if a >= 1e4 {
        (v / 1e3, "k")
    } else {
        (v, "")
    };
    let text = if (x - x.round()).abs() < 1e-9 || x.abs() >= 100.0 {
        format!("{x:.0}")
    } else if x.abs() >= 10.0 {
        format!("{x:.1}")
    } else {
        format!("{x:.2}")
    };
    let text = if text.contains('.') { text.trim_end_matches('0').trim_end_matches('.').to_owned() } else { text };
    format!("{text}{suffix}")
}

/// The chart as a standalone SVG document fragment (`<svg xmlns=…>…</svg>`).
pub fn svg(spec: &ChartSpec) -> String {
    let scale = Scale { x: spec.x_range, y: spec.y_range };
    let (l, t, r, b) = plot_box();
    let id = escape_html(&spec.id);
    let mut s = String::new();
    let _ = write!(
        s,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 {WIDTH} {HEIGHT}\" width=\"{WIDTH}\" height=\"{HEIGHT}\" \
         role=\"img\" aria-labelledby=\"{id}-title {id}-desc\" class=\"chart-svg\" font-family=\"{FONT}\" font-size=\"11\">\
         <title id=\"{id}-title\">{}</title><desc id=\"{id}-desc\">{}</desc>\
         <rect width=\"{WIDTH}\" height=\"{HEIGHT}\" fill=\"#ffffff\"/>\
         <text x=\"{}\" y=\"20\" text-anchor=\"middle\" font-size=\"13\" font-weight=\"600\" fill=\"#1f2328\">{}</text>",
        escape_html(&spec.title),
        escape_html(&spec.description),
        WIDTH / 2.0,
        escape_html(&spec.title),
    );
    axes(&mut s, spec, &scale);
    series(&mut s, spec, &scale);
    if let Some(m) = &spec.marker {
        marker(&mut s, m, &scale);
    }
    let _ = write!(
        s,
        "<text x=\"{}\" y=\"{}\" text-anchor=\"middle\" fill=\"#1f2328\" class=\"x-label\">{}</text>\
         <text transform=\"translate(14 {}) rotate(-90)\" text-anchor=\"middle\" fill=\"#1f2328\" class=\"y-label\">{}</text></svg>",
        (l + r) / 2.0,
        HEIGHT - 10.0,
        escape_html(&spec.x_label),
        (t + b) / 2.0,
        escape_html(&spec.y_label),
    );
    s
}

fn axes(s: &mut String, spec: &ChartSpec, scale: &Scale) {
    let (l, t, r, b) = plot_box();
    s.push_str("<g class=\"y-ticks\">");
    for y in ticks(spec.y_range.0, spec.y_range.1, 4, false) {
        let py = scale.py(y);
        let _ = write!(
            s,
            "<line x1=\"{l}\" x2=\"{r}\" y1=\"{py:.1}\" y2=\"{py:.1}\" stroke=\"#d1d9e0\" stroke-width=\"1\"/>\
             <text x=\"{}\" y=\"{:.1}\" text-anchor=\"end\" fill=\"#59636e\">{}</text>",
            l - 6.0,
            py + 4.0,
            format_number(y)
        );
    }
    s.push_str("</g><g class=\"x-ticks\">");
    for x in ticks(spec.x_range.0, spec.x_range.1, 6, spec.x_binary) {
        let px = scale.px(x);
        let _ = write!(
            s,
            "<line x1=\"{px:.1}\" x2=\"{px:.1}\" y1=\"{b}\" y2=\"{}\" stroke=\"#59636e\" stroke-width=\"1\"/>\
             <text x=\"{px:.1}\" y=\"{}\" text-anchor=\"middle\" fill=\"#59636e\">{}</text>",
            b + 5.0,
            b + 17.0,
            format_number(x)
        );
    }
    let _ = write!(
        s,
        "</g><path d=\"M{l} {t} V{b} H{r}\" fill=\"none\" stroke=\"#59636e\" stroke-width=\"1\" class=\"axes\"/>"
    );
}

fn series(s: &mut String, spec: &ChartSpec, scale: &Scale) {
    let mut d = String::new();
    for (i, &(x, y)) in spec.points.iter().enumerate() {
        let (px, py) = (scale.px(x), scale.py(y));
        if i == 0 {
            let _ = write!(d, "M{px:.1} {py:.1}");
        } else if spec.step {
            let _ = write!(d, "H{px:.1}V{py:.1}");
        } else {
            let _ = write!(d, "L{px:.1} {py:.1}");
        }
    }
    if spec.step {
        if let Some(&(x, _)) = spec.points.last() {
            let end = scale.px(spec.x_range.1.max(x));
            let _ = write!(d, "H{end:.1}");
        }
    }
    let _ = write!(
        s,
        "<path d=\"{d}\" fill=\"none\" stroke=\"#0969da\" stroke-width=\"2\" stroke-linejoin=\"round\" class=\"series\"/>"
    );
}

fn marker(s: &mut String, m: &Marker, scale: &Scale) {
    let (l, t, r, _) = plot_box();
    let (px, py) = (scale.px(m.x), scale.py(m.y));
    let right_side = px < l + (r - l) * 0.6;
    let (dx, anchor) = if right_side { (8.0, "start") } else { (-8.0, "end") };
    let dy = if py < t + 18.0 { 16.0 } else { -8.0 };
    let _ = write!(
        s,
        "<g class=\"kernel-point\"><circle cx=\"{px:.1}\" cy=\"{py:.1}\" r=\"5\" fill=\"#cf222e\" stroke=\"#ffffff\" stroke-width=\"1.5\"/>\
         <text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"{anchor}\" font-weight=\"600\" fill=\"#cf222e\" stroke=\"#ffffff\" \
         stroke-width=\"3\" paint-order=\"stroke\">{}</text></g>",
        px + dx,
        py + dy,
        escape_html(&m.label)
    );
}

/// A `data:` URL of the SVG, for a download link.
pub fn data_url(svg: &str) -> String {
    let mut out = String::from("data:image/svg+xml;charset=utf-8,");
    for b in svg.bytes() {
        if b.is_ascii_alphanumeric() || b"-_.~ =:/;,()'!*".contains(&b) {
            if b == b' ' {
                out.push_str("%20");
            } else {
                out.push(char::from(b));
            }
        } else {
            let _ = write!(out, "%{b:02X}");
        }
    }
    out
}

/// Consecutive points with the same value merged into `(first x, last x, value)` rows.
pub fn runs<T: PartialEq + Copy>(points: impl IntoIterator<Item = (u64, T)>) -> Vec<(u64, u64, T)> {
    let mut rows: Vec<(u64, u64, T)> = Vec::new();
    for (x, v) in points {
        match rows.last_mut() {
            Some(last) if last.2 == v => last.1 = x,
            _ => rows.push((x, x, v)),
        }
    }
    rows
}
