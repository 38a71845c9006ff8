//! Scheme specs (`NAME` or `NAME:key=value,key=value`, or JSON `{scheme, params}`), their
//! resolution against the registry's schemas, and the listing of every scheme the CLI and the
//! app render. A spec's label names it in reports: the bare name for the defaults, the name with
//! its overrides (keys sorted) otherwise, so the same scheme twice with different values is two
//! distinct columns.
//!
//! ```text
//! "baseline:collector_units=2"  → SchemeSpec { scheme: "baseline", params: {collector_units: 2} }
//!   resolved on fermi-gtx480    → label "baseline:collector_units=2",
//!                                 config {bank_mapping: "reg_plus_warp", banks: 16, collector_units: 2, …}
//! "baseline:banks=0"            → "baseline: banks = 0 is out of range 1 ..= 1024 (banks per SM)"
//! ```

use alloc::collections::BTreeMap;
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use serde::{Deserialize, Serialize};

use super::params::{resolve, ModelNote, ParamSpec, ParamValue, SchemeConfig};
use super::registry::{self, SchemeEntry};
use super::EnergyModel;
use crate::gpu::GpuConfig;

/// A scheme and the parameters set for it (the others take their defaults). Also the form of
/// `--scheme-file` entries and of the config a report echoes (there with every parameter).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct SchemeSpec {
    /// Registry name.
    pub scheme: String,
    /// Parameters by name.
    #[serde(default)]
    pub params: BTreeMap<String, ParamValue>,
}

/// Why a scheme spec cannot be used.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "error", rename_all = "snake_case")]
pub enum SchemeConfigError {
    /// No scheme has this name.
    UnknownScheme {
        /// The name given.
        scheme: String,
    },
    /// The spec text is malformed.
    Syntax {
        /// The spec as given.
        spec: String,
        /// What is wrong.
        message: String,
    },
    /// The scheme has no such parameter.
    UnknownParam {
        /// The scheme.
        scheme: String,
        /// The parameter given.
        param: String,
        /// Its parameters.
        known: Vec<String>,
    },
    /// The value has the wrong type.
    WrongType {
        /// The scheme.
        scheme: String,
        /// The parameter.
        param: String,
        /// What it takes.
        expected: String,
        /// The value given.
        got: String,
    },
    /// The value is outside the parameter's range.
    OutOfRange {
        /// The scheme.
        scheme: String,
        /// The parameter.
        param: String,
        /// The value given.
        value: String,
        /// The valid range (`min ..= max`).
        range: String,
        /// The parameter's unit.
        unit: String,
    },
    /// Two specs of one simulation have the same label.
    Duplicate {
        /// The label.
        label: String,
    },
}

impl core::fmt::Display for SchemeConfigError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            SchemeConfigError::UnknownScheme { scheme } => {
                let known: Vec<&str> = registry::names().collect();
                write!(f, "unknown register-file scheme '{scheme}' (known: {})", known.join(", "))
            }
            SchemeConfigError::Syntax { spec, message } => {
                write!(f, "bad scheme spec '{spec}': {message} (expected NAME or NAME:key=value,key=value)")
            }
            SchemeConfigError::UnknownParam { scheme, param, known } => {
                write!(f, "{scheme}: unknown parameter '{param}' (parameters: {})", known.join(", "))
            }
            SchemeConfigError::WrongType { scheme, param, expected, got } => {
                write!(f, "{scheme}: {param} must be {expected}, not '{got}'")
            }
            SchemeConfigError::OutOfRange { scheme, param, value, range, unit } => {
                write!(f, "{scheme}: {param} = {value} is out of range {range}")?;
                if !unit.is_empty() {
                    write!(f, " ({unit})")?;
                }
                Ok(())
            }
            SchemeConfigError::Duplicate { label } => write!(f, "scheme '{label}' is given twice"),
        }
    }
}

impl SchemeSpec {
    /// A spec of `scheme` with its defaults.
    pub fn named(scheme: &str) -> SchemeSpec {
        SchemeSpec { scheme: String::from(scheme), params: BTreeMap::new() }
    }

    /// Parses `NAME` or `NAME:key=value,key=value` (values: integers, numbers, `true`/`false`
    /// or enum choices; each key at most once).
    pub fn parse(text: &str) -> Result<SchemeSpec, SchemeConfigError> {
        let syntax =
            |message: &str| SchemeConfigError::Syntax { spec: String::from(text), message: String::from(message) };
        let (name, rest) = match text.split_once(':') {
            Some((n, r)) => (n.trim(), Some(r)),
            None => (text.trim(), None),
        };
        if name.is_empty() {
            return Err(syntax("no scheme name"));
        }
        let mut spec = SchemeSpec::named(name);
        let Some(rest) = rest else { return Ok(spec) };
        for pair in rest.split(',') {
            let (k, v) = pair.split_once('=').ok_or_else(|| syntax(&format!("'{}' is not key=value", pair.trim())))?;
            let (k, v) = (k.trim(), v.trim());
            if k.is_empty() || v.is_empty() {
                return Err(syntax(&format!("'{}' needs both a key and a value", pair.trim())));
            }
            if spec.params.insert(String::from(k), ParamValue::parse_text(v)).is_some() {
                return Err(syntax(&format!("'{k}' is set twice")));
            }
        }
        Ok(spec)
    }

    /// The label reports use: the name alone without parameters, else `NAME:k=v,…` (keys sorted).
    pub fn label(&self) -> String {
        let mut label = self.scheme.clone();
        for (i, (k, v)) in self.params.iter().enumerate() {
            label.push(if i == 0 { ':' } else { ',' });
            label.push_str(&format!("{k}={v}"));
        }
        label
    }

    /// This spec checked against its scheme's schema on `gpu` (energy defaults from `energy`).
    pub fn resolve(&self, gpu: &GpuConfig, energy: &EnergyModel) -> Result<ResolvedScheme, SchemeConfigError> {
        let entry = registry::by_name(&self.scheme)
            .ok_or_else(|| SchemeConfigError::UnknownScheme { scheme: self.scheme.clone() })?;
        let specs = (entry.params)(gpu, energy);
        let config = resolve(entry.name, &specs, &self.params)?;
        Ok(ResolvedScheme { entry, label: self.label(), config })
    }
}

/// A scheme given to a simulation: a [`SchemeSpec`], or its text form (`&str`, `String`), so
/// plain names keep working everywhere a list of schemes is taken.
pub trait IntoSchemeSpec {
    /// The spec.
    fn to_spec(&self) -> Result<SchemeSpec, SchemeConfigError>;
}

impl IntoSchemeSpec for SchemeSpec {
    fn to_spec(&self) -> Result<SchemeSpec, SchemeConfigError> {
        Ok(self.clone())
    }
}

impl IntoSchemeSpec for &str {
    fn to_spec(&self) -> Result<SchemeSpec, SchemeConfigError> {
        SchemeSpec::parse(self)
    }
}

impl IntoSchemeSpec for String {
    fn to_spec(&self) -> Result<SchemeSpec, SchemeConfigError> {
        SchemeSpec::parse(self)
    }
}

/// A spec checked against its scheme: the registry entry, the report label and every parameter.
#[derive(Clone, Debug)]
pub struct ResolvedScheme {
    /// The scheme.
    pub entry: &'static SchemeEntry,
    /// Its label in reports.
    pub label: String,
    /// Every parameter, defaults included.
    pub config: SchemeConfig,
}

impl ResolvedScheme {
    /// The full config as a spec (what a report echoes; a `--scheme-file` entry reproduces it).
    pub fn echo(&self) -> SchemeSpec {
        SchemeSpec { scheme: String::from(self.entry.name), params: self.config.clone() }
    }
}

/// `specs` resolved, in order, with distinct labels.
pub fn resolve_all<S: IntoSchemeSpec>(
    specs: &[S],
    gpu: &GpuConfig,
    energy: &EnergyModel,
) -> Result<Vec<ResolvedScheme>, SchemeConfigError> {
    let mut out: Vec<ResolvedScheme> = Vec::with_capacity(specs.len());
    for s in specs {
        let r = s.to_spec()?.resolve(gpu, energy)?;
        if out.iter().any(|o| o.label == r.label) {
            return Err(SchemeConfigError::Duplicate { label: r.label });
        }
        out.push(r);
    }
    Ok(out)
}

/// One scheme as the CLI's `reglab schemes` and the app list it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SchemeDescription {
    /// Registry name.
    pub name: &'static str,
    /// One line.
    pub description: &'static str,
    /// Paper and section.
    pub source: &'static str,
    /// Its parameters with the defaults for the GPU listed.
    pub params: Vec<ParamSpec>,
    /// What is modelled, what is not, and the assumptions.
    pub notes: &'static [ModelNote],
}

/// Every scheme, in registry order, with its parameters' defaults for `gpu`.
pub fn describe(gpu: &GpuConfig, energy: &EnergyModel) -> Vec<SchemeDescription> {
    registry::SCHEMES
        .iter()
        .map(|e| SchemeDescription {
            name: e.name,
            description: e.description,
            source: e.source,
            params: (e.params)(gpu, energy),
            notes: e.notes,
        })
        .collect()
}
