//! Resident and active CTAs over time, every scheme in one line chart (issue 19's CTA timeline):
//! two lines per scheme from the report's occupancy samples (`resident_ctas`, `active_ctas`,
//! summed over the SMs), in the scheme's colour: resident solid, active dashed. Where a scheme
//! never parks a CTA its two lines coincide.
//!
//! ```text
//! baseline resident ──── 4 4 4 3 …     finereg resident ──── 8 8 7 …
//! baseline active   ──── 4 4 4 3 …     finereg active   ──── 2 2 2 …
//! ```

use sim_core::timing::report::OccupancySample;
use sim_core::timing::Report;

use crate::components::chart::{ChartSpec, LineData, LineSeries, Plot};

/// The chart's data: per scheme a "resident" (solid) and an "active" (dashed) line over core
/// cycles, both in the scheme's colour (its position in the run).
pub fn cta_timeline_data(reports: &[Report]) -> LineData {
    let series =
        reports.iter().enumerate().flat_map(|(i, r)| lines(&r.scheme, i, &r.occupancy_over_time.samples)).collect();
    LineData { series, x_label: "core cycle".into(), y_label: "CTAs (all SMs)".into(), ..LineData::default() }
}

/// Scheme `name`'s two lines (colour `colour`) from its occupancy samples.
fn lines(name: &str, colour: usize, samples: &[OccupancySample]) -> [LineSeries; 2] {
    let line = |what: &str, dashed: bool, f: fn(&OccupancySample) -> u32| LineSeries {
        name: format!("{name} {what}"),
        points: samples.iter().map(|s| (s.cycle as f64, f64::from(f(s)))).collect(),
        colour,
        dashed,
    };
    [line("resident", false, |s| s.resident_ctas), line("active", true, |s| s.active_ctas)]
}

/// The titled chart, for the results panel.
pub fn cta_timeline(reports: &[Report]) -> ChartSpec {
    let note = format!(
        "Resident CTAs (holding registers or parked, solid) and active CTAs (allowed to issue, dashed), sampled every {} cycles.",
        reports.first().map_or(0, |r| r.occupancy_over_time.interval_cycles)
    );
    ChartSpec::new("cta-timeline", "Resident and active CTAs over time", Plot::Lines(cta_timeline_data(reports)))
        .with_note(note)
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
        let [resident, active] = lines("finereg", 3, &[sample(0, 0, 0), sample(1000, 6, 2)]);
        assert_eq!((resident.name.as_str(), active.name.as_str()), ("finereg resident", "finereg active"));
        assert_eq!(resident.points, [(0.0, 0.0), (1000.0, 6.0)]);
        assert_eq!(active.points, [(0.0, 0.0), (1000.0, 2.0)]);
        // Both in the scheme's colour; the active line dashed.
        assert_eq!((resident.colour, active.colour, resident.dashed, active.dashed), (3, 3, false, true));
    }
}
