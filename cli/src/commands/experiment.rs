//! `reglab run --experiment F.reglab.json`: the inputs of a run from an experiment file saved by
//! the web app ("Save experiment"; the same content as its share links, `sim_core::experiment`).
//! The kernel text is the file's, or the bundled example it names; the launch setup is the file's,
//! or the one the page would use (the example's shipped setup, else a proposal for the kernel);
//! the GPU is the preset with the page's edits; the schemes and "ptxas says N" are the page's.
//!
//! ```text
//! $ reglab run --experiment experiment.reglab.json
//! scheme                      regs  CTAs/SM  cycles  warp IPC …
//! ```

use std::path::Path;

use sim_core::exec::{propose_launch, LaunchSetup};
use sim_core::experiment::{Experiment, MAX_DOCUMENT_BYTES};
use sim_core::gpu::GpuConfig;
use sim_core::timing::SchemeSpec;

/// The bundled examples as the web app ships them: id, PTX text, launch setup.
const EXAMPLES: &[(&str, &str, &str)] = &[
    (
        "vector_add",
        include_str!("../../../static/examples/vector_add.ptx"),
        include_str!("../../../static/examples/vector_add.launch.json"),
    ),
    (
        "matmul_tiled",
        include_str!("../../../static/examples/matmul_tiled.ptx"),
        include_str!("../../../static/examples/matmul_tiled.launch.json"),
    ),
    (
        "reduction",
        include_str!("../../../static/examples/reduction.ptx"),
        include_str!("../../../static/examples/reduction.launch.json"),
    ),
    (
        "hotspot",
        include_str!("../../../static/examples/hotspot.ptx"),
        include_str!("../../../static/examples/hotspot.launch.json"),
    ),
    (
        "imgvf",
        include_str!("../../../static/examples/imgvf.ptx"),
        include_str!("../../../static/examples/imgvf.launch.json"),
    ),
    (
        "histogram",
        include_str!("../../../static/examples/histogram.ptx"),
        include_str!("../../../static/examples/histogram.launch.json"),
    ),
    (
        "saxpy",
        include_str!("../../../static/examples/saxpy.ptx"),
        include_str!("../../../static/examples/saxpy.launch.json"),
    ),
];

/// What a run needs, read from an experiment.
pub struct Inputs {
    /// The PTX text.
    pub source: String,
    /// The launch setup.
    pub launch: LaunchSetup,
    /// The GPU with the page's edits.
    pub gpu: GpuConfig,
    /// The schemes (empty: the caller's default).
    pub schemes: Vec<SchemeSpec>,
    /// "ptxas says N" registers per thread.
    pub registers: Option<u32>,
}

/// Reads `path` and resolves it into run inputs; the error says what is wrong in plain words.
pub fn read(path: &Path) -> Result<Inputs, String> {
    let size = std::fs::metadata(path).map(|m| m.len()).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    if size > MAX_DOCUMENT_BYTES as u64 {
        return Err(format!("{} is {size} bytes, over the limit of {MAX_DOCUMENT_BYTES} bytes", path.display()));
    }
    let text = std::fs::read_to_string(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let ids: Vec<&str> = EXAMPLES.iter().map(|e| e.0).collect();
    let e = Experiment::from_json(&text, &ids).map_err(|e| format!("{}: {e}", path.display()))?;
    resolve(&e).map_err(|why| format!("{}: {why}", path.display()))
}

/// The run inputs of a checked experiment.
pub fn resolve(e: &Experiment) -> Result<Inputs, String> {
    let example = e.example.as_deref().and_then(|id| EXAMPLES.iter().find(|x| x.0 == id));
    let source = match (&e.source, example) {
        (Some(s), _) => s.clone(),
        (None, Some(x)) => x.1.to_owned(),
        (None, None) => return Err("it has no kernel text".to_owned()),
    };
    let gpu = e.gpu.config().ok_or_else(|| format!("unknown GPU preset '{}'", e.gpu.preset))?;
    let schemes = e.scheme_specs().map_err(|e| e.to_string())?;
    let launch = match &e.launch {
        Some(l) => l.clone(),
        None => derived_launch(&source, e.kernel.as_deref(), example.map(|x| x.2))?,
    };
    Ok(Inputs { source, launch, gpu, schemes, registers: e.ptxas_registers })
}

/// The launch the page uses when an experiment has none: the example's shipped setup when it
/// launches the selected kernel (or none is selected), else a proposal for the selected kernel
/// (or the first `.entry`).
fn derived_launch(source: &str, kernel: Option<&str>, shipped: Option<&str>) -> Result<LaunchSetup, String> {
    let module = sim_core::ptx::compile(source).map_err(|diags| {
        let shown = super::diagnostics::render("kernel", source, &diags);
        format!("the kernel does not compile ({}):\n{}", super::diagnostics::count(&diags), shown.trim_end())
    })?;
    let names = sim_core::exec::plan::kernel_names(&module);
    if let Some(setup) = shipped.and_then(|t| LaunchSetup::from_json(t).ok()) {
        let k = setup.kernel.as_deref().or_else(|| setup.launches.first().map(|l| l.kernel.as_str()));
        if k.is_some_and(|k| names.iter().any(|n| n == k)) && (kernel.is_none() || kernel == k) {
            return Ok(setup);
        }
    }
    let kernel = kernel.or(names.first().map(String::as_str)).ok_or("the module has no .entry kernel")?;
    Ok(propose_launch(&module, kernel))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_example_experiment_runs_with_the_shipped_launch_and_the_edited_gpu() {
        let json = r#"{"reglab":1,"example":"matmul_tiled","gpu":{"preset":"fermi-gtx480","sm_count":2},
                       "schemes":["baseline","baseline:collector_units=2"],"ptxas_registers":30}"#;
        let e = Experiment::from_json(json, &["matmul_tiled"]).map_err(|e| e.to_string());
        let inputs = e.and_then(|e| resolve(&e));
        let Ok(i) = inputs else { return assert!(inputs.is_ok(), "{:?}", inputs.err()) };
        assert_eq!(i.launch.grid, vec![4, 4, 1], "matmul_tiled.launch.json");
        assert_eq!((i.gpu.core.sm_count, i.registers, i.schemes.len()), (2, Some(30), 2));
        assert!(i.source.contains("matmulTiled"));
    }
}
