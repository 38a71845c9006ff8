//! How long a timing run took on the host (the student's browser tab, or the test machine), and
//! the simulator's throughput that follows: warp-instructions simulated per host second. Kept out
//! of `sim-core`'s `Report` on purpose: reports are deterministic and identical natively and in
//! wasm; host time is neither. The worker measures it the way `reglab bench` does: the executor's
//! share is the time spent inside [`sim_core::timing::stream::timed_source::TimedSource`], the timing model's is the rest.
//!
//! ```text
//! Simulated 1,048,576 warp-instructions in 0.52 s of host time — timing model 2.4 M
//! warp-instructions per host second, functional executor 9.1 M/s
//! ```

use serde::{Deserialize, Serialize};

/// Host time of one run and the warp-instructions it covered.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct HostTiming {
    /// Host milliseconds the simulation computed: building it and stepping it (not compiling the
    /// PTX, not the progress messages between chunks).
    pub total_ms: f64,
    /// Of `total_ms`, the milliseconds the functional executor spent producing CTAs.
    pub executor_ms: f64,
    /// Warp-instructions the timing model simulated, summed over the schemes.
    pub timing_warp_instructions: u64,
    /// Warp-instructions the executor produced (once per worker, `run_pool.rs`; the schemes of a
    /// worker replay the same streams), summed over the workers.
    pub executor_warp_instructions: u64,
    /// Precision searches (`compression`) the run took from the page's earlier runs of the same
    /// kernel and launch instead of making them (summed over the workers).
    #[serde(default)]
    pub kept_searches: u32,
}

impl HostTiming {
    /// Adds `other`'s time and counts (runs one after another, or workers' CPU time).
    pub fn add(&mut self, other: &HostTiming) {
        self.total_ms += other.total_ms;
        self.executor_ms += other.executor_ms;
        self.timing_warp_instructions += other.timing_warp_instructions;
        self.executor_warp_instructions += other.executor_warp_instructions;
        self.kept_searches += other.kept_searches;
    }

    /// Host milliseconds of the timing model alone (total minus executor).
    pub fn timing_model_ms(&self) -> f64 {
        (self.total_ms - self.executor_ms).max(0.0)
    }

    /// Timing-model warp-instructions per host second (`None` when too fast to measure).
    pub fn timing_model_rate(&self) -> Option<f64> {
        rate(self.timing_warp_instructions, self.timing_model_ms())
    }

    /// Executor warp-instructions per host second.
    pub fn executor_rate(&self) -> Option<f64> {
        rate(self.executor_warp_instructions, self.executor_ms)
    }

    /// Timing-model warp-instructions per host second of the whole run (executor included).
    pub fn end_to_end_rate(&self) -> Option<f64> {
        rate(self.timing_warp_instructions, self.total_ms)
    }

    /// The sentence the results panel shows.
    pub fn summary(&self) -> String {
        let per_second = |r: Option<f64>| r.map_or_else(|| "too fast to measure".to_owned(), format_rate);
        let kept = if self.kept_searches > 0 {
            " The precision search was taken from an earlier run of this kernel and launch: no functional runs for it this time."
        } else {
            ""
        };
        format!(
            "Simulated {} warp-instructions in {} of host time — timing model {} warp-instructions \
             per host second, functional executor {} warp-instructions per host second.{kept}",
            crate::components::chart::format::grouped(self.timing_warp_instructions),
            format_seconds(self.total_ms),
            per_second(self.timing_model_rate()),
            per_second(self.executor_rate()),
        )
    }
}

fn rate(n: u64, ms: f64) -> Option<f64> {
    (ms > 0.0).then(|| n as f64 / (ms / 1000.0))
}

/// `1.9 M`, `640 k`, `12`: a rate with an SI prefix and two or three significant digits.
pub fn format_rate(r: f64) -> String {
    let (v, unit) = if r >= 1e9 {
        (r / 1e9, " G")
    } else if r >= 1e6 {
        (r / 1e6, " M")
    } else if r >= 1e3 {
        (r / 1e3, " k")
    } else {
        (r, "")
    };
    if v >= 100.0 {
        format!("{v:.0}{unit}")
    } else {
        format!("{v:.1}{unit}")
    }
}

/// `9.1 s`, `350 ms`.
pub fn format_seconds(ms: f64) -> String {
    if ms >= 1000.0 {
        format!("{:.1} s", ms / 1000.0)
    } else {
        format!("{ms:.0} ms")
    }
}

/// Milliseconds on the host's monotonic clock from an arbitrary origin: `performance.now()` in the
/// browser (page or worker), `Instant` natively.
pub fn now_ms() -> f64 {
    #[cfg(target_arch = "wasm32")]
    {
        use wasm_bindgen::JsCast;
        let performance = js_sys::Reflect::get(&js_sys::global(), &"performance".into())
            .ok()
            .and_then(|p| p.dyn_into::<web_sys::Performance>().ok());
        performance.map_or_else(js_sys::Date::now, |p| p.now())
    }
    #[cfg(not(target_arch = "wasm32"))]
    {
        static ORIGIN: std::sync::OnceLock<std::time::Instant> = std::sync::OnceLock::new();
        ORIGIN.get_or_init(std::time::Instant::now).elapsed().as_secs_f64() * 1000.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rates_and_the_summary_state_their_units() {
        let t = HostTiming {
            total_ms: 9100.0,
            executor_ms: 2600.0,
            timing_warp_instructions: 16_834_560,
            executor_warp_instructions: 16_834_560,
            kept_searches: 0,
        };
        assert_eq!(t.timing_model_ms(), 6500.0);
        assert_eq!(format_rate(t.timing_model_rate().unwrap_or(0.0)), "2.6 M");
        assert_eq!(format_rate(t.executor_rate().unwrap_or(0.0)), "6.5 M");
        let s = t.summary();
        assert!(s.starts_with("Simulated 16,834,560 warp-instructions in 9.1 s of host time"), "{s}");
        assert!(s.contains("per host second"), "{s}");
        assert!(!s.contains("precision search"), "{s}");
        let kept = HostTiming { kept_searches: 1, ..t }.summary();
        assert!(
            kept.ends_with("taken from an earlier run of this kernel and launch: no functional runs for it this time."),
            "{kept}"
        );
        assert_eq!(HostTiming::default().timing_model_rate(), None);
        assert_eq!(
            (format_rate(640_000.0), format_rate(12.0), format_seconds(350.0)),
            ("640 k".into(), "12.0".into(), "350 ms".into())
        );
    }

    #[test]
    fn the_clock_does_not_go_back() {
        let a = now_ms();
        let b = now_ms();
        assert!(b >= a);
    }
}
