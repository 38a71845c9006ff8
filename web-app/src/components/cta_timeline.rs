//! Resident and active CTAs over time, every scheme in one line chart (issue 19's CTA timeline):
//! two lines per scheme from the report's occupancy samples (`resident_ctas`, `active_ctas`,
//! summed over the SMs), drawn with the shared [`line_chart`]. Where a scheme never parks a CTA
//! its two lines coincide.
//!
//! ```text
//! baseline resident ──── 4 4 4 3 …     finereg resident ──── 8 8 7 …
//! baseline active   ──── 4 4 4 3 …     finereg active   ──── 2 2 2 …
//! ```

use sim_core::timing::report::OccupancySample;
use sim_core::timing::Report;
use yew::prelude::*;

use crate::components::charts::{line_chart, Chart, LineData, LineSeries};

/// The chart's data: per scheme a "resident" and an "active" line over core cycles.
pub fn cta_timeline_data(reports: &[Report]) -> LineData {
    let series = reports.iter().flat_map(|r| lines(&r.scheme, &r.occupancy_over_time.samples)).collect();
    LineData { series, x_label: "core cycle".into(), y_label: "CTAs (all SMs)".into(), y_max: None, log_x: false }
}

/// Scheme `name`'s two lines from its occupancy samples.
fn lines(name: &str, samples: &[OccupancySample]) -> [LineSeries; 2] {
    let line = |what: &str, f: fn(&OccupancySample) -> u32| LineSeries {
        name: format!("{name} {what}"),
        points: samples.iter().map(|s| (s.cycle as f64, f64::from(f(s)))).collect(),
    };
    [line("resident", |s| s.resident_ctas), line("active", |s| s.active_ctas)]
}

/// The titled chart, for the results panel.
pub fn cta_timeline(reports: &[Report]) -> Html {
    let data = cta_timeline_data(reports);
    let note = format!(
        "Resident CTAs (holding registers or parked) and active CTAs (allowed to issue), sampled every {} cycles.",
        reports.first().map_or(0, |r| r.occupancy_over_time.interval_cycles)
    );
    html! {
        <Chart id="cta-timeline" title="Resident and active CTAs over time" body={line_chart(&data)}
               table={data.table()} frame={data.frame()} note={AttrValue::from(note)} />
    }
}

#[cfg(test)]
mod tests {
    use sim_core::timing::report::OccupancySample;

    use super::lines;

    #[test]
    fn two_lines_per_scheme_from_the_samples() {
        let sample = |cycle, resident_ctas, active_ctas| OccupancySample {
            cycle,
            resident_ctas,
            active_ctas,
            ..OccupancySample::default()
        };
        let [resident, active] = lines("finereg", &[sample(0, 0, 0), sample(1000, 6, 2)]);
        assert_eq!((resident.name.as_str(), active.name.as_str()), ("finereg resident", "finereg active"));
        assert_eq!(resident.points, [(0.0, 0.0), (1000.0, 6.0)]);
        assert_eq!(active.points, [(0.0, 0.0), (1000.0, 2.0)]);
    }
}
