//! Entry point of the web app: installs the panic hook and mounts [`web_app::App`] on `<body>`.

fn main() {
    console_error_panic_hook::set_once();
    yew::Renderer::<web_app::App>::new().render();
}

/// In-browser benchmarks, exported to JavaScript (`window.wasmBindings.*` in the Trunk build) so
/// the end-to-end tests can report how fast `sim-core` runs in the browser. Nothing here asserts a
/// time: the figures are printed, not tested.
#[cfg(target_arch = "wasm32")]
mod bench {
    use wasm_bindgen::prelude::wasm_bindgen;

    /// Median wall time in milliseconds of `sim_core::ptx::check` (parse + lower + verify) on
    /// `src`, over `iterations` runs (at least one). Returns a negative value if `src` has errors.
    #[wasm_bindgen]
    pub fn bench_front_end(src: &str, iterations: u32) -> f64 {
        let mut times = Vec::new();
        for _ in 0..iterations.max(1) {
            let start = js_sys::Date::now();
            let checked = sim_core::ptx::check(src);
            let elapsed = js_sys::Date::now() - start;
            if checked.module.is_none() {
                return -1.0;
            }
            times.push(elapsed);
        }
        sim_core::sorting::sort_by(&mut times, f64::total_cmp);
        times.get(times.len() / 2).copied().unwrap_or(0.0)
    }
}
