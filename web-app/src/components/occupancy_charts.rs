//! The occupancy calculator's three curves as charts — occupancy against registers per thread,
//! against block size and against shared memory per block — with the kernel's point marked and
//! each curve's data as a table of ranges with equal occupancy.
//!
//! ```text
//! registers 1–20 → 100.0 % │ 21–24 → 83.3 % │ … (the table); ● 52 registers: 20.8 % (the marker)
//! ```

use std::rc::Rc;

use sim_core::occupancy::curves::{Curve, OccupancyCurves};
use yew::prelude::*;

use super::chart::Chart;
use super::occupancy::{format_bytes_exact, format_percent};
use crate::chart::{runs, ChartSpec, Marker};
use crate::model::occupancy::OccupancyView;

/// What the charts show.
#[derive(Properties, PartialEq)]
pub struct OccupancyChartsProps {
    /// The occupancy and its curves.
    pub view: Rc<OccupancyView>,
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
    let charts = use_memo(props.view.clone(), |view| build(view));
    html! {
        <div class="charts">
            { for charts.iter().map(|(spec, columns, rows, file)| html! {
                <Chart spec={spec.clone()} columns={columns.clone()} rows={rows.clone()} file_name={file.clone()} />
            }) }
        </div>
    }
}

type Built = (Rc<ChartSpec>, Vec<AttrValue>, Rc<Vec<Vec<String>>>, AttrValue);

fn build(view: &OccupancyView) -> Vec<Built> {
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
            let spec = spec(curve, &axis, y_label);
            let columns = [axis.x_column, blocks, warps, "Occupancy"].map(AttrValue::from).to_vec();
            let rows = table(curve, axis.unit);
            (Rc::new(spec), columns, Rc::new(rows), AttrValue::from(format!("{}.svg", axis.id)))
        })
        .collect()
}

fn axes(gcn3: bool) -> [Axis; 3] {
    let count: fn(u64) -> String = |x| x.to_string();
    let bytes: fn(u64) -> String = |x| format!("{} B", format_bytes_exact(x));
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
    let x_max = points.last().map_or(1.0, |p| p.0).max(curve.kernel.x as f64 * axis.scale);
    let k = curve.kernel;
    let label = format!("{}: {}", kernel_x(k.x, axis), format_percent(k.occupancy));
    ChartSpec {
        id: axis.id.to_owned(),
        title: axis.title.to_owned(),
        x_label: axis.x_label.to_owned(),
        y_label: y_label.to_owned(),
        x_range: (0.0, x_max),
        y_range: (0.0, 100.0),
        step: true,
        x_binary: axis.binary,
        description: format!(
            "{} from {} to {}; this kernel: {label}, {} resident blocks per SM.",
            axis.title,
            (axis.unit)(curve.points.first().map_or(0, |p| p.x)),
            (axis.unit)(curve.points.last().map_or(0, |p| p.x)),
            k.blocks_per_sm
        ),
        marker: Some(Marker { x: k.x as f64 * axis.scale, y: k.occupancy * 100.0, label }),
        points,
    }
}

fn kernel_x(x: u64, axis: &Axis) -> String {
    match axis.point_unit {
        "" => format!("{} B", format_bytes_exact(x)),
        unit => format!("{x} {unit}"),
    }
}

fn table(curve: &Curve, unit: fn(u64) -> String) -> Vec<Vec<String>> {
    let points = curve.points.iter().map(|p| (p.x, (p.blocks_per_sm, p.warps_per_sm, p.occupancy.to_bits())));
    runs(points)
        .into_iter()
        .map(|(from, to, (blocks, warps, occ))| {
            let range = if from == to { unit(from) } else { format!("{}–{}", unit(from), unit(to)) };
            vec![range, blocks.to_string(), warps.to_string(), format_percent(f64::from_bits(occ))]
        })
        .collect()
}
