//! The occupancy calculator's three curves as charts — occupancy against registers per thread,
//! against block size and against shared memory per block — with the kernel's point marked and
//! each curve's data as a table of ranges with equal occupancy.
//!
//! ```text
//! registers 1–20 → 100.0 % │ 21–24 → 83.3 % │ … (the table); ● 52 registers: 20.8 % (the marker)
//! ```

use sim_core::occupancy::curves::{Curve, OccupancyCurves};
use yew::prelude::*;

use super::chart::axes::Spacing;
use super::chart::format::{grouped, percent};
use super::chart::{charts, ChartSpec, LineData, LineSeries, Marker, Plot, Table};
use crate::model::occupancy::OccupancyView;

/// What the charts show.
#[derive(Properties, PartialEq)]
pub struct OccupancyChartsProps {
    /// The occupancy and its curves.
    pub view: std::rc::Rc<OccupancyView>,
}

/// One chart's texts.
struct Axis {
    id: &'static str,
    title: &'static str,
    x_label: &'static str,
    x_column: &'static str,
    /// Data x → chart x (bytes → KiB).
    scale: f64,
    binary: bool,
    unit: fn(u64) -> String,
    /// What the kernel's x counts (`registers`, `threads`), empty for bytes.
    point_unit: &'static str,
}

/// The three charts.
#[function_component(OccupancyCharts)]
pub fn occupancy_charts(props: &OccupancyChartsProps) -> Html {
    let specs = use_memo(props.view.clone(), |view| build(view));
    html! { <div class="charts">{ charts(specs.iter().cloned()) }</div> }
}

fn build(view: &OccupancyView) -> Vec<ChartSpec> {
    let Some(curves) = &view.curves else { return Vec::new() };
    let gcn3 = view.gpu.as_ref().is_some_and(|g| g.gcn3);
    let axes = axes(gcn3);
    let y_label = if gcn3 { "Occupancy (% of wave slots)" } else { "Occupancy (% of max warps per SM)" };
    let blocks = if gcn3 { "Workgroups per CU" } else { "Blocks per SM" };
    let warps = if gcn3 { "Wavefronts per CU" } else { "Warps per SM" };
    let OccupancyCurves { registers, block_size, shared_memory } = curves;
    [registers, block_size, shared_memory]
        .into_iter()
        .zip(axes)
        .map(|(curve, axis)| {
            let headers = [axis.x_column, blocks, warps, "Occupancy"].map(str::to_owned).to_vec();
            ChartSpec { table: Some(Table { headers, rows: table(curve, axis.unit) }), ..spec(curve, &axis, y_label) }
        })
        .collect()
}

fn axes(gcn3: bool) -> [Axis; 3] {
    let count: fn(u64) -> String = |x| x.to_string();
    let bytes: fn(u64) -> String = |x| format!("{} B", grouped(x));
    [
        Axis {
            id: "occupancy-vs-registers",
            title: if gcn3 { "Occupancy vs VGPRs per work-item" } else { "Occupancy vs registers per thread" },
            x_label: if gcn3 { "VGPRs per work-item (32-bit)" } else { "Registers per thread (32-bit)" },
            x_column: if gcn3 { "VGPRs" } else { "Registers" },
            scale: 1.0,
            binary: false,
            unit: count,
            point_unit: if gcn3 { "VGPRs" } else { "registers" },
        },
        Axis {
            id: "occupancy-vs-block-size",
            title: if gcn3 { "Occupancy vs workgroup size" } else { "Occupancy vs block size" },
            x_label: if gcn3 { "Work-items per workgroup (threads)" } else { "Threads per block (threads)" },
            x_column: "Threads",
            scale: 1.0,
            binary: true,
            unit: count,
            point_unit: if gcn3 { "work-items" } else { "threads" },
        },
        Axis {
            id: "occupancy-vs-shared-memory",
            title: if gcn3 { "Occupancy vs LDS per workgroup" } else { "Occupancy vs shared memory per block" },
            x_label: if gcn3 { "LDS per workgroup (KiB)" } else { "Shared memory per block (KiB)" },
            x_column: "Bytes",
            scale: 1.0 / 1024.0,
            binary: true,
            unit: bytes,
            point_unit: "",
        },
    ]
}

fn spec(curve: &Curve, axis: &Axis, y_label: &str) -> ChartSpec {
    let points: Vec<(f64, f64)> = curve.points.iter().map(|p| (p.x as f64 * axis.scale, p.occupancy * 100.0)).collect();
    let k = curve.kernel;
    let label = format!("{}: {}", kernel_x(k.x, axis), percent(k.occupancy));
    let note = format!(
        "{} from {} to {}; this kernel: {label}, {} resident blocks per SM.",
        axis.title,
        (axis.unit)(curve.points.first().map_or(0, |p| p.x)),
        (axis.unit)(curve.points.last().map_or(0, |p| p.x)),
        k.blocks_per_sm
    );
    let data = LineData {
        series: vec![LineSeries { name: "Occupancy".into(), points, ..LineSeries::default() }],
        x_label: axis.x_label.to_owned(),
        y_label: y_label.to_owned(),
        y_max: Some(100.0),
        x_spacing: if axis.binary { Spacing::Binary } else { Spacing::Decimal },
        x_max: Some(k.x as f64 * axis.scale),
        step: true,
        marker: Some(Marker { x: k.x as f64 * axis.scale, y: k.occupancy * 100.0, label }),
    };
    ChartSpec::new(axis.id, axis.title, Plot::Lines(data)).with_note(note)
}

fn kernel_x(x: u64, axis: &Axis) -> String {
    match axis.point_unit {
        "" => format!("{} B", grouped(x)),
        unit => format!("{x} {unit}"),
    }
}

fn table(curve: &Curve, unit: fn(u64) -> String) -> Vec<Vec<String>> {
    let points = curve.points.iter().map(|p| (p.x, (p.blocks_per_sm, p.warps_per_sm, p.occupancy.to_bits())));
    runs(points)
        .into_iter()
        .map(|(from, to, (blocks, warps, occ))| {
            let range = if from == to { unit(from) } else { format!("{}–{}", unit(from), unit(to)) };
            vec![range, blocks.to_string(), warps.to_string(), percent(f64::from_bits(occ))]
        })
        .collect()
}

/// Consecutive points with the same value merged into `(first x, last x, value)` rows.
fn runs<T: PartialEq + Copy>(points: impl IntoIterator<Item = (u64, T)>) -> Vec<(u64, u64, T)> {
    let mut rows: Vec<(u64, u64, T)> = Vec::new();
    for (x, v) in points {
        match rows.last_mut() {
            Some(last) if last.2 == v => last.1 = x,
            _ => rows.push((x, x, v)),
        }
    }
    rows
}

#[cfg(test)]
mod tests {
    use super::runs;

    #[test]
    fn equal_neighbours_merge_into_ranges() {
        // 1..=2 hold 'a', 3 'b', 4..=5 'a' again: three rows, the second 'a' a new range.
        let rows = runs([(1, 'a'), (2, 'a'), (3, 'b'), (4, 'a'), (5, 'a')]);
        assert_eq!(rows, vec![(1, 2, 'a'), (3, 3, 'b'), (4, 5, 'a')]);
    }
}
