//! The executor in the browser (WebAssembly, headless Chromium): it gives bit for bit the same
//! outputs and instruction counts as natively (the fingerprint below is also checked natively by
//! `tests/exec_examples.rs`), and it reports its throughput in warp-instructions per second on the
//! console. No timed assertion: the figure is for reporting.
//!
//! ```text
//! CHROMEDRIVER=/usr/bin/chromedriver CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUNNER=wasm-bindgen-test-runner \
//!   cargo test -p sim-core --target wasm32-unknown-unknown --release -- --nocapture
//! ```

#![cfg(target_arch = "wasm32")]

use sim_core::exec::{ElemType, LaunchSetup, Run, RunOptions};
use wasm_bindgen_test::{console_log, wasm_bindgen_test, wasm_bindgen_test_configure};

wasm_bindgen_test_configure!(run_in_browser);

const MATMUL: &str = include_str!("../../static/examples/matmul_tiled.ptx");

/// A 128 x 128 tiled matmul (278 016 warp-instructions).
const SETUP: &str = r#"{"kernel": "_Z11matmulTiledPKfS0_Pfi", "grid": [8, 8], "block": [16, 16],
  "params": [{"buffer": {"type": "f32", "len": 16384, "init": "random:1"}},
             {"buffer": {"type": "f32", "len": 16384, "init": "random:2"}},
             {"buffer": {"type": "f32", "len": 16384}}, {"scalar": {"type": "s32", "value": 128}}],
  "outputs": [2]}"#;

/// FNV-1a over the output bits and the instruction counts, as computed natively.
const FINGERPRINT: u64 = 0xc47d_f044_8e78_8d40;

fn now_ms() -> f64 {
    web_sys::window().and_then(|w| w.performance()).map_or(0.0, |p| p.now())
}

/// One run: its fingerprint and warp-instructions.
fn run_once(module: &sim_core::ir::Module, setup: &LaunchSetup) -> (u64, u64) {
    let run = Run::new(module, setup, RunOptions::default());
    assert!(run.is_ok());
    let Ok(mut run) = run else { return (0, 0) };
    let result = run.run_to_end();
    assert!(result.is_ok());
    let Ok(result) = result else { return (0, 0) };
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    let mut mix = |v: u64| {
        for b in v.to_le_bytes() {
            h = (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3);
        }
    };
    for v in result.outputs.values().flatten() {
        mix(v.to_bits(ElemType::F32).unwrap_or(0));
    }
    mix(result.warp_instructions);
    mix(result.thread_instructions);
    (h, result.warp_instructions)
}

#[wasm_bindgen_test]
fn executor_throughput_and_identical_results() {
    let module = sim_core::ptx::compile(MATMUL);
    assert!(module.is_ok());
    let setup = LaunchSetup::from_json(SETUP);
    assert!(setup.is_ok());
    let (Ok(module), Ok(setup)) = (module, setup) else { return };
    let (runs, mut total) = (5, 0u64);
    let start = now_ms();
    for _ in 0..runs {
        let (h, n) = run_once(&module, &setup);
        assert_eq!(h, FINGERPRINT, "WebAssembly results differ from native ones");
        total += n;
    }
    let ms = now_ms() - start;
    console_log!(
        "RegLab executor in WebAssembly: {runs} runs, {total} warp-instructions in {ms:.1} ms = {:.2} M warp-instructions/s (set-up included)",
        total as f64 / ms.max(1e-3) / 1000.0
    );
}
