//! A shared experiment: everything a run needs besides the simulator — kernel text (or the name of
//! a bundled example when its text is unchanged), selected kernel, launch setup, GPU preset and
//! edited fields, register-file schemes with their parameters, and the panels a page shows. The
//! web app carries it in a link's fragment (compressed, `web-app/src/share.rs`) and in
//! `.reglab.json` files; `reglab run --experiment F` reads the same file.
//!
//! ```text
//! {"reglab":1,"example":"matmul_tiled","gpu":{"preset":"fermi-gtx480"},
//!  "schemes":["baseline","baseline:collector_units=2"]}
//! ```
//!
//! `reglab` is the format version: a document without it is not an experiment, one with a higher
//! version was written by a newer RegLab and is refused with a message (never half-read). Unknown
//! fields are ignored, so additions within version 1 stay readable. Reading checks sizes and
//! every name (example, GPU preset, scheme spec syntax) and returns an error value, never panics.

use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;

use serde::{Deserialize, Serialize};

use crate::exec::LaunchSetup;
use crate::timing::SchemeSpec;

/// The format version this build writes and reads.
pub const FORMAT_VERSION: u32 = 1;

/// Largest kernel text an experiment may carry: 8 MiB (the page checks texts over 2 MB only on
/// request; a text this large is far beyond any real kernel).
pub const MAX_SOURCE_BYTES: usize = 8 << 20;

/// Largest experiment document (JSON): the text plus room for a launch setup with inline data.
pub const MAX_DOCUMENT_BYTES: usize = 16 << 20;

/// Most schemes and panels an experiment may name.
pub const MAX_SCHEMES: usize = 32;

/// The experiment (see the module documentation for the JSON form).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Experiment {
    /// Format version ([`FORMAT_VERSION`]).
    pub reglab: u32,
    /// The bundled example the text is (by id, e.g. `matmul_tiled`); with no `source`, the text
    /// is that example's unchanged.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub example: Option<String>,
    /// The PTX text (absent: the example's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
    /// The selected kernel (absent: the first `.entry`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kernel: Option<String>,
    /// The launch setup (absent: the example's shipped one, else the one proposed for the kernel).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub launch: Option<LaunchSetup>,
    /// The GPU.
    pub gpu: ExperimentGpu,
    /// Registers per thread as ptxas reports them ("ptxas says N"; absent: the estimate).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ptxas_registers: Option<u32>,
    /// GCN3 only: SGPRs per wavefront (absent: assumed).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sgprs: Option<u32>,
    /// Register-file schemes as `NAME` or `NAME:key=value,…` specs, in the order shown.
    #[serde(default)]
    pub schemes: Vec<String>,
    /// Panels a page shows (`editor`, `listing`, `occupancy`, `launch`, `run`; empty: the page's
    /// default).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub panels: Vec<String>,
}

/// The GPU of an experiment: a preset and the fields edited on it (absent: the preset's value).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ExperimentGpu {
    /// Preset name (`sim_core::gpu::presets`).
    pub preset: String,
    /// SMs (CUs) on the chip.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sm_count: Option<u32>,
    /// Registers per SM (VGPRs per SIMD on GCN3).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub registers: Option<u32>,
    /// Maximum warps per SM (wave slots per SIMD on GCN3).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub warps: Option<u32>,
}

impl ExperimentGpu {
    /// The preset with the edited fields applied (`None`: unknown preset). Registers per SM also
    /// cap registers per block; warps per SM set threads per SM (warps × warp size); on GCN3
    /// the fields are VGPRs and wave slots per SIMD.
    pub fn config(&self) -> Option<crate::gpu::GpuConfig> {
        use crate::gpu::ResidencyLimits;
        let mut gpu = crate::gpu::presets::by_name(&self.preset)?;
        if let Some(n) = self.sm_count {
            gpu.core.sm_count = n;
        }
        match &mut gpu.limits {
            ResidencyLimits::Nvidia(sm) => {
                if let Some(regs) = self.registers {
                    sm.registers_per_sm = regs;
                    sm.registers_per_block = sm.registers_per_block.min(regs);
                }
                if let Some(warps) = self.warps {
                    sm.max_threads_per_sm = warps.saturating_mul(sm.warp_size);
                }
            }
            ResidencyLimits::Gcn3(cu) => {
                if let Some(vgprs) = self.registers {
                    cu.vgprs_per_simd = vgprs;
                }
                if let Some(slots) = self.warps {
                    cu.wave_slots_per_simd = slots;
                }
            }
        }
        Some(gpu)
    }
}

/// Why a document is not a usable experiment (the message says it in plain words).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ExperimentError {
    /// Not JSON, or JSON of the wrong shape.
    Malformed(String),
    /// JSON, but not a RegLab experiment (no `reglab` version).
    Foreign,
    /// Written by a newer RegLab.
    TooNew(u64),
    /// Over a size limit: what, its size and the limit, in bytes.
    TooLarge(&'static str, usize, usize),
    /// A name or value this build does not know.
    Invalid(String),
}

impl core::fmt::Display for ExperimentError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            ExperimentError::Malformed(why) => write!(f, "it is not a readable RegLab experiment ({why})"),
            ExperimentError::Foreign => write!(f, "it is not a RegLab experiment (no \"reglab\" format version)"),
            ExperimentError::TooNew(v) => write!(
                f,
                "it was made by a newer RegLab (format {v}; this page reads format {FORMAT_VERSION}): open it there"
            ),
            ExperimentError::TooLarge(what, size, limit) => {
                write!(f, "its {what} is {size} bytes, over the limit of {limit} bytes")
            }
            ExperimentError::Invalid(why) => write!(f, "{why}"),
        }
    }
}

impl Experiment {
    /// An experiment of the defaults on `preset`: no text (the page's default example), no schemes.
    pub fn new(preset: &str) -> Self {
        Experiment {
            reglab: FORMAT_VERSION,
            example: None,
            source: None,
            kernel: None,
            launch: None,
            gpu: ExperimentGpu { preset: preset.to_string(), ..ExperimentGpu::default() },
            ptxas_registers: None,
            sgprs: None,
            schemes: Vec::new(),
            panels: Vec::new(),
        }
    }

    /// The compact JSON form (what links compress).
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).unwrap_or_default()
    }

    /// The indented JSON form (what `.reglab.json` files hold).
    pub fn to_json_pretty(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_default()
    }

    /// Reads and checks a document (see [`Experiment::check`]); `examples` are the bundled
    /// examples' ids the reader knows.
    pub fn from_json(text: &str, examples: &[&str]) -> Result<Experiment, ExperimentError> {
        if text.len() > MAX_DOCUMENT_BYTES {
            return Err(ExperimentError::TooLarge("document", text.len(), MAX_DOCUMENT_BYTES));
        }
        let value: serde_json::Value =
            serde_json::from_str(text).map_err(|e| ExperimentError::Malformed(e.to_string()))?;
        let version = match value.get("reglab") {
            Some(v) => v.as_u64().ok_or_else(|| ExperimentError::Malformed("\"reglab\" is not a number".into()))?,
            None => return Err(ExperimentError::Foreign),
        };
        if version > u64::from(FORMAT_VERSION) {
            return Err(ExperimentError::TooNew(version));
        }
        let value = migrate(version, value)?;
        let experiment: Experiment =
            serde_json::from_value(value).map_err(|e| ExperimentError::Malformed(e.to_string()))?;
        experiment.check(examples)?;
        Ok(experiment)
    }

    /// Checks sizes and names: a text or an example this reader knows, a known GPU preset,
    /// scheme specs that parse and name known schemes, at most [`MAX_SCHEMES`] schemes and panels.
    pub fn check(&self, examples: &[&str]) -> Result<(), ExperimentError> {
        let invalid = |why: String| Err(ExperimentError::Invalid(why));
        if let Some(s) = &self.source {
            if s.len() > MAX_SOURCE_BYTES {
                return Err(ExperimentError::TooLarge("kernel text", s.len(), MAX_SOURCE_BYTES));
            }
        }
        match (&self.source, &self.example) {
            (None, None) => return invalid("it has neither a kernel text nor an example".into()),
            (None, Some(e)) if !examples.contains(&e.as_str()) => {
                return invalid(format!("it names the example '{e}', which this RegLab does not bundle"));
            }
            _ => {}
        }
        if crate::gpu::presets::by_name(&self.gpu.preset).is_none() {
            return invalid(format!("it names the GPU preset '{}', which this RegLab does not know", self.gpu.preset));
        }
        if self.schemes.len() > MAX_SCHEMES || self.panels.len() > MAX_SCHEMES {
            return invalid(format!("it names more than {MAX_SCHEMES} schemes or panels"));
        }
        self.scheme_specs().map(|_| ())
    }

    /// The schemes as specs (syntax checked, names known; values are checked when run on a GPU).
    pub fn scheme_specs(&self) -> Result<Vec<SchemeSpec>, ExperimentError> {
        let mut specs = Vec::new();
        for text in &self.schemes {
            let spec = SchemeSpec::parse(text).map_err(|e| ExperimentError::Invalid(e.to_string()))?;
            if crate::timing::regfile::registry::by_name(&spec.scheme).is_none() {
                return Err(ExperimentError::Invalid(format!(
                    "it names the scheme '{}', which this RegLab does not have",
                    spec.scheme
                )));
            }
            specs.push(spec);
        }
        Ok(specs)
    }
}

/// Brings a document of an older format `version` to the current one (there is only version 1
/// so far; version 0 never existed).
fn migrate(version: u64, value: serde_json::Value) -> Result<serde_json::Value, ExperimentError> {
    match version {
        1 => Ok(value),
        v => Err(ExperimentError::Malformed(format!("format version {v} does not exist"))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const EXAMPLES: &[&str] = &["matmul_tiled"];

    #[test]
    fn an_example_experiment_reads_back_and_bad_documents_say_why() {
        let mut e = Experiment::new("fermi-gtx480");
        e.example = Some("matmul_tiled".into());
        e.schemes = alloc::vec!["baseline".into(), "baseline:collector_units=2".into()];
        let json = e.to_json();
        assert_eq!(
            json,
            r#"{"reglab":1,"example":"matmul_tiled","gpu":{"preset":"fermi-gtx480"},"schemes":["baseline","baseline:collector_units=2"]}"#
        );
        assert_eq!(Experiment::from_json(&json, EXAMPLES), Ok(e.clone()));
        let err = |t: &str| Experiment::from_json(t, EXAMPLES).map_err(|e| e.to_string()).err().unwrap_or_default();
        assert!(err("{not json").starts_with("it is not a readable RegLab experiment"));
        assert!(err(r#"{"hello":1}"#).contains("no \"reglab\" format version"));
        assert!(err(&json.replace("\"reglab\":1", "\"reglab\":2")).contains("newer RegLab (format 2"));
        assert!(err(&json.replace("matmul_tiled", "nbody")).contains("example 'nbody'"));
        assert!(err(&json.replace("fermi-gtx480", "gtx9999")).contains("GPU preset 'gtx9999'"));
        assert!(err(&json.replace("\"baseline\"", "\"warp-drive\"")).contains("scheme 'warp-drive'"));
        assert!(err(&json.replace("\"baseline\"", "\"baseline:x\"")).contains("bad scheme spec"));
        assert!(err(r#"{"reglab":1,"gpu":{"preset":"fermi-gtx480"}}"#).contains("neither a kernel text"));
        // Unknown fields (a later addition within format 1) are ignored.
        assert!(Experiment::from_json(&json.replace("{\"reglab\":1", "{\"reglab\":1,\"later\":true"), EXAMPLES).is_ok());
    }
}
