//! Sweeps in the page: one scheme instance, one numeric parameter, a list or range of values (the
//! CLI's syntax, `sim_core::timing::sweep_values`: `2,4,8` or `2..512*2`); every point is one
//! scheme of one run, dealt to the page's workers (`run_pool.rs`: one functional run feeds the
//! points of each worker, as `reglab sweep` feeds all of them), and the results add line charts against the parameter: IPC, IPC relative to the reference point, reads saved
//! (schemes that count RFC hits and misses), register-file energy, registers per thread and
//! occupancy. The one-click studies are fixed plans (Wyse's RFC size sweep, 2..512 entries,
//! relative to 8). While the sweep runs, [`SweepPlan::charts_so_far`] draws the points whose
//! worker has finished.
//!
//! ```text
//! SweepPlan { base: "rfc-ob", param: "rfc_entries", values: ["2", …, "512"], reference: 2 }
//!   .specs() → ["rfc-ob:rfc_entries=2", …]   .charts(&reports) → [("sweep-ipc", "IPC vs rfc_entries", LineData), …]
//! ```

use sim_core::timing::sweep_values::values_of;
use sim_core::timing::{Report, SchemeSpec};

use crate::components::chart::axes::Spacing;
use crate::components::chart::{LineData, LineSeries};

/// A sweep: the instance swept, the parameter, its values and the reference point.
#[derive(Clone, Debug, PartialEq)]
pub struct SweepPlan {
    /// The instance's spec (its other parameters hold for every point).
    pub base: String,
    /// The parameter swept.
    pub param: String,
    /// The values, in order.
    pub values: Vec<String>,
    /// Index of the reference point (relative IPC).
    pub reference: usize,
}

impl SweepPlan {
    /// A plan from the form's texts: the values parsed (list or range); the reference is the
    /// value given, else the first.
    pub fn new(base: &str, param: &str, values: &str, reference: &str) -> Result<SweepPlan, String> {
        let values = values_of(values)?;
        if values.len() < 2 {
            return Err("A sweep needs at least two values.".to_owned());
        }
        if values.len() > 64 {
            return Err(format!("{} points: the page runs at most 64 (use reglab sweep --shard).", values.len()));
        }
        let reference = values.iter().position(|v| v == reference.trim()).unwrap_or(0);
        Ok(SweepPlan { base: base.to_owned(), param: param.to_owned(), values, reference })
    }

    /// Wyse's RFC size study: `rfc-ob` with 2, 4, …, 512 entries, relative to 8.
    pub fn wyse_rfc_sizes() -> SweepPlan {
        let values: Vec<String> = (1..=9).map(|k| (1u32 << k).to_string()).collect();
        SweepPlan { base: "rfc-ob".to_owned(), param: "rfc_entries".to_owned(), values, reference: 2 }
    }

    /// The points' specs, in value order.
    pub fn specs(&self) -> Result<Vec<SchemeSpec>, String> {
        self.values
            .iter()
            .map(|v| {
                let mut spec = SchemeSpec::parse(&self.base).map_err(|e| e.to_string())?;
                spec.params.insert(self.param.clone(), sim_core::timing::regfile::ParamValue::parse_text(v));
                Ok(spec)
            })
            .collect()
    }

    /// The values are positive numbers each at least 1.5 × the one before (2, 4, 8, …): drawn on
    /// a log₂ axis.
    fn geometric(&self) -> bool {
        let xs: Vec<f64> = self.values.iter().filter_map(|v| v.parse::<f64>().ok()).collect();
        xs.len() == self.values.len() && xs.iter().all(|v| *v > 0.0) && xs.windows(2).all(|w| w[1] >= 1.5 * w[0])
    }

    /// The x value of point `i` (its position when the value is not a number).
    fn x(&self, i: usize) -> f64 {
        self.values.get(i).and_then(|v| v.parse::<f64>().ok()).unwrap_or(i as f64)
    }

    /// A line over the points of `reports` (in value order; `None`: not finished yet) of `y`,
    /// skipping points without one.
    fn line(&self, reports: &[Option<&Report>], name: &str, y: impl Fn(&Report) -> Option<f64>) -> LineSeries {
        let points = reports.iter().enumerate().filter_map(|(i, r)| r.and_then(&y).map(|v| (self.x(i), v))).collect();
        LineSeries { name: name.to_owned(), points, ..LineSeries::default() }
    }

    /// The points' labels (`rfc-ob:rfc_entries=2`, …), as the reports name them.
    pub fn labels(&self) -> Vec<String> {
        self.specs().map(|s| s.iter().map(SchemeSpec::label).collect()).unwrap_or_default()
    }

    /// The charts of a finished sweep: `(id, title, data)`; reads saved only when some point
    /// counts RFC hits and misses.
    pub fn charts(&self, reports: &[Report]) -> Vec<(&'static str, String, LineData)> {
        self.charts_so_far(&reports.iter().map(Some).collect::<Vec<_>>())
    }

    /// The charts of the points finished so far (`None`: not yet), as [`SweepPlan::charts`]; the
    /// relative IPC has no points until the reference point is in.
    pub fn charts_so_far(&self, reports: &[Option<&Report>]) -> Vec<(&'static str, String, LineData)> {
        let p = &self.param;
        let reference =
            reports.get(self.reference).copied().flatten().map_or(0.0, |r| r.ipc.warp_instructions_per_cycle);
        let x_spacing = if self.geometric() { Spacing::Log2 } else { Spacing::Decimal };
        let chart = |id, title: &str, y_label: &str, y_max, series: LineSeries| {
            let data = LineData {
                series: vec![series],
                x_label: p.clone(),
                y_label: y_label.into(),
                y_max,
                x_spacing,
                ..LineData::default()
            };
            (id, format!("{title} vs {p}"), data)
        };
        let mut out = vec![
            chart(
                "sweep-ipc",
                "IPC",
                "warp-instructions / cycle",
                None,
                self.line(reports, "IPC", |r| Some(r.ipc.warp_instructions_per_cycle)),
            ),
            chart(
                "sweep-relative-ipc",
                "Relative IPC",
                &format!("IPC / IPC at {p} = {}", self.values.get(self.reference).map_or("", String::as_str)),
                None,
                self.line(reports, "relative IPC", |r| {
                    (reference > 0.0).then(|| r.ipc.warp_instructions_per_cycle / reference)
                }),
            ),
        ];
        let saved = self.line(reports, "reads saved", reads_saved);
        if !saved.points.is_empty() {
            out.push(chart("sweep-reads-saved", "Reads saved", "% of OB reads from the RFC", Some(100.0), saved));
        }
        out.push(chart(
            "sweep-energy",
            "Register-file energy",
            "register-file energy (nJ)",
            None,
            self.line(reports, "energy", |r| Some(r.register_file.energy_total_nj)),
        ));
        let regs = |r: &Report| r.kernels.first().map(|k| f64::from(k.registers_per_thread));
        out.push(chart(
            "sweep-registers",
            "Registers per thread",
            "registers / thread",
            None,
            self.line(reports, "registers", regs),
        ));
        let occ = |r: &Report| r.kernels.first().map(|k| 100.0 * k.theoretical_occupancy);
        out.push(chart(
            "sweep-occupancy",
            "Occupancy",
            "theoretical occupancy (%)",
            Some(100.0),
            self.line(reports, "occupancy", occ),
        ));
        out
    }
}

/// `rfc_hits / (rfc_hits + rfc_misses)` in %, as `reglab sweep`'s `reads_saved` (Wyse Fig. 5).
pub fn reads_saved(r: &Report) -> Option<f64> {
    let counter = |n: &str| r.register_file.scheme.counters.iter().find(|c| c.name == n).map(|c| c.value);
    match (counter("rfc_hits"), counter("rfc_misses")) {
        (Some(h), Some(m)) if h + m > 0 => Some(100.0 * h as f64 / (h + m) as f64),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plans_parse_lists_and_ranges() {
        let plan = SweepPlan::new("baseline:banks=8", "collector_units", "2..8*2", "4");
        let plan = plan.unwrap_or_else(|e| unreachable!("{e}"));
        assert_eq!((plan.values.clone(), plan.reference), (vec!["2".into(), "4".into(), "8".into()], 1));
        let labels: Vec<String> = plan.specs().unwrap_or_default().iter().map(SchemeSpec::label).collect();
        assert_eq!(
            labels,
            [
                "baseline:banks=8,collector_units=2",
                "baseline:banks=8,collector_units=4",
                "baseline:banks=8,collector_units=8"
            ]
        );
        assert!(SweepPlan::new("baseline", "banks", "4", "").is_err());
        assert!(SweepPlan::new("baseline", "banks", "1..100", "").is_err());
        let wyse = SweepPlan::wyse_rfc_sizes();
        assert_eq!(
            (wyse.values.first().cloned(), wyse.values.last().cloned(), wyse.values[wyse.reference].clone()),
            (Some("2".into()), Some("512".into()), "8".into())
        );
    }

    /// While a sweep runs, its charts draw the points finished so far: with the middle point of
    /// three missing, the IPC line has the first and last x (2 and 8); relative IPC is over the
    /// reference point (the first, 2), so that point sits at exactly 1.
    #[test]
    fn charts_so_far_draw_the_finished_points_only() {
        let plan = SweepPlan::new("baseline", "collector_units", "2,4,8", "").unwrap_or_else(|e| unreachable!("{e}"));
        assert_eq!(
            plan.labels(),
            ["baseline:collector_units=2", "baseline:collector_units=4", "baseline:collector_units=8"]
        );
        let launch =
            crate::examples::launch_for("vector_add").and_then(|t| sim_core::exec::LaunchSetup::from_json(t).ok());
        let req = crate::run_job::RunRequest {
            ptx: crate::examples::find("vector_add").map_or(String::new(), |e| e.source.into()),
            launch: launch.unwrap_or_else(|| unreachable!()),
            gpu: sim_core::gpu::presets::by_name("fermi-gtx480").unwrap_or_else(|| unreachable!()),
            schemes: plan.specs().unwrap_or_default(),
            registers_per_thread: None,
            record_values: false,
            quick: false,
            searches: Default::default(),
        };
        let reports = crate::run_job::execute(&req, |_| {}).map(|o| o.reports).unwrap_or_default();
        assert_eq!(reports.len(), 3);
        let so_far = [reports.first(), None, reports.get(2)];
        let charts = plan.charts_so_far(&so_far);
        let xs = |id: &str| -> Vec<f64> {
            let c = charts.iter().find(|c| c.0 == id);
            c.map(|c| c.2.series[0].points.iter().map(|p| p.0).collect()).unwrap_or_default()
        };
        assert_eq!(xs("sweep-ipc"), [2.0, 8.0]);
        let rel = charts.iter().find(|c| c.0 == "sweep-relative-ipc").map(|c| c.2.series[0].points[0].1);
        assert_eq!(rel, Some(1.0));
        // Before the reference point is in, relative IPC has no points.
        let late = plan.charts_so_far(&[None, reports.get(1), None]);
        assert!(late.iter().any(|c| c.0 == "sweep-relative-ipc" && c.2.series[0].points.is_empty()));
        assert_eq!(plan.charts(&reports)[0].2.series[0].points.len(), 3);
    }
}
