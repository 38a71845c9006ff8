//! The parameter schema every register-file scheme states, and the resolved configuration checked
//! against it: a [`ParamSpec`] per field (kind, default, unit, range, doc, source, whether it is an
//! assumption **A**), a [`SchemeConfig`] of name → [`ParamValue`] holding every field once resolved.
//! The CLI and the app render schemes from these alone.
//!
//! ```text
//! ParamSpec { name: "collector_units", kind: Int, default: Int(16), unit: "per SM", min: 0, max: 1024, … }
//! resolve(specs, {"collector_units": Int(2)}) → {"banks": 16, "collector_units": 2, …}
//! resolve(specs, {"collector_units": Int(-1)}) → "collector_units = -1 is out of range 0 ..= 1024 (per SM)"
//! ```

use alloc::collections::BTreeMap;
use alloc::format;
use alloc::string::{String, ToString};

use serde::{Deserialize, Serialize};

use super::config::SchemeConfigError;

/// The type of one parameter.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ParamKind {
    /// A whole number.
    Int,
    /// A real number (integers are accepted).
    Float,
    /// `true` or `false`.
    Bool,
    /// One of the listed choices.
    Enum {
        /// The accepted values.
        choices: &'static [&'static str],
    },
}

impl ParamKind {
    /// What a value of this kind is, for error messages.
    pub fn describe(&self) -> String {
        match self {
            ParamKind::Int => String::from("an integer"),
            ParamKind::Float => String::from("a number"),
            ParamKind::Bool => String::from("true or false"),
            ParamKind::Enum { choices } => format!("one of {}", choices.join(", ")),
        }
    }
}

/// One parameter value. In JSON a plain number, boolean or string.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum ParamValue {
    /// `true` / `false`.
    Bool(bool),
    /// A whole number.
    Int(i64),
    /// A real number.
    Float(f64),
    /// An enum choice (or unparsed text).
    Text(String),
}

impl ParamValue {
    /// The value as command-line text would write it: `true`, `2`, `0.028`, `reg_plus_warp`.
    pub fn parse_text(text: &str) -> ParamValue {
        match text {
            "true" => ParamValue::Bool(true),
            "false" => ParamValue::Bool(false),
            _ => {
                if let Ok(i) = text.parse::<i64>() {
                    ParamValue::Int(i)
                } else if let Ok(f) = text.parse::<f64>() {
                    ParamValue::Float(f)
                } else {
                    ParamValue::Text(String::from(text))
                }
            }
        }
    }

    /// The value as a number, if it is one.
    pub fn as_f64(&self) -> Option<f64> {
        match self {
            ParamValue::Int(i) => Some(*i as f64),
            ParamValue::Float(f) => Some(*f),
            _ => None,
        }
    }
}

impl core::fmt::Display for ParamValue {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            ParamValue::Bool(b) => write!(f, "{b}"),
            ParamValue::Int(i) => write!(f, "{i}"),
            ParamValue::Float(x) => write!(f, "{x}"),
            ParamValue::Text(s) => f.write_str(s),
        }
    }
}

/// One field of a scheme's configuration.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ParamSpec {
    /// Field name, as written in `NAME:key=value`.
    pub name: &'static str,
    /// Its type (and, for an enum, the choices).
    #[serde(flatten)]
    pub kind: ParamKind,
    /// The value used when the spec does not set it (may come from the GPU preset).
    pub default: ParamValue,
    /// Unit (`count`, `nJ per 32-bit access`, …; empty for enums and booleans).
    pub unit: &'static str,
    /// Smallest accepted value (numbers only).
    pub min: Option<f64>,
    /// Largest accepted value (numbers only).
    pub max: Option<f64>,
    /// One line saying what it is.
    pub doc: &'static str,
    /// Where the default comes from (paper and section, or the preset).
    pub source: &'static str,
    /// The value is RegLab's assumption (**A**), not the paper's.
    pub assumption: bool,
}

impl ParamSpec {
    /// An integer field in `min ..= max`.
    pub fn int(name: &'static str, default: i64, min: i64, max: i64, unit: &'static str) -> ParamSpec {
        ParamSpec {
            name,
            kind: ParamKind::Int,
            default: ParamValue::Int(default),
            unit,
            min: Some(min as f64),
            max: Some(max as f64),
            doc: "",
            source: "",
            assumption: false,
        }
    }

    /// A real field in `min ..= max`.
    pub fn float(name: &'static str, default: f64, min: f64, max: f64, unit: &'static str) -> ParamSpec {
        ParamSpec {
            kind: ParamKind::Float,
            default: ParamValue::Float(default),
            min: Some(min),
            max: Some(max),
            ..ParamSpec::int(name, 0, 0, 0, unit)
        }
    }

    /// An enum field.
    pub fn choice(name: &'static str, default: &'static str, choices: &'static [&'static str]) -> ParamSpec {
        ParamSpec {
            kind: ParamKind::Enum { choices },
            default: ParamValue::Text(String::from(default)),
            min: None,
            max: None,
            ..ParamSpec::int(name, 0, 0, 0, "")
        }
    }

    /// A boolean field.
    pub fn flag(name: &'static str, default: bool) -> ParamSpec {
        ParamSpec {
            kind: ParamKind::Bool,
            default: ParamValue::Bool(default),
            min: None,
            max: None,
            ..ParamSpec::int(name, 0, 0, 0, "")
        }
    }

    /// With its one-line doc and source.
    pub fn doc(mut self, doc: &'static str, source: &'static str) -> ParamSpec {
        self.doc = doc;
        self.source = source;
        self
    }

    /// Marked as RegLab's assumption (**A**).
    pub fn assumed(mut self) -> ParamSpec {
        self.assumption = true;
        self
    }

    /// The range as text: `0 ..= 1024`, or empty without one.
    pub fn range_text(&self) -> String {
        match (self.min, self.max) {
            (Some(lo), Some(hi)) => format!("{} ..= {}", number_text(&self.kind, lo), number_text(&self.kind, hi)),
            _ => String::new(),
        }
    }

    /// `value` checked and converted to this field's kind (an integer given for a real field
    /// becomes real).
    pub fn check(&self, scheme: &str, value: &ParamValue) -> Result<ParamValue, SchemeConfigError> {
        let wrong = || SchemeConfigError::WrongType {
            scheme: String::from(scheme),
            param: String::from(self.name),
            expected: self.kind.describe(),
            got: value.to_string(),
        };
        let checked = match (&self.kind, value) {
            (ParamKind::Int, ParamValue::Int(i)) => ParamValue::Int(*i),
            (ParamKind::Float, v) => ParamValue::Float(v.as_f64().ok_or_else(wrong)?),
            (ParamKind::Bool, ParamValue::Bool(b)) => ParamValue::Bool(*b),
            (ParamKind::Enum { choices }, ParamValue::Text(s)) if choices.contains(&s.as_str()) => value.clone(),
            _ => return Err(wrong()),
        };
        let n = checked.as_f64();
        let below = matches!((n, self.min), (Some(x), Some(lo)) if x < lo);
        let above = matches!((n, self.max), (Some(x), Some(hi)) if x > hi);
        if below || above || n.is_some_and(f64::is_nan) {
            return Err(SchemeConfigError::OutOfRange {
                scheme: String::from(scheme),
                param: String::from(self.name),
                value: checked.to_string(),
                range: self.range_text(),
                unit: String::from(self.unit),
            });
        }
        Ok(checked)
    }
}

fn number_text(kind: &ParamKind, x: f64) -> String {
    match kind {
        ParamKind::Int => format!("{}", x as i64),
        _ => format!("{x}"),
    }
}

/// A scheme's resolved configuration: every field of its schema, by name (sorted, so the JSON
/// echo has a fixed order).
pub type SchemeConfig = BTreeMap<String, ParamValue>;

/// `overrides` checked against `specs` and completed with their defaults: an unknown field, a
/// value of the wrong type and a value out of range are each an error naming the field.
pub fn resolve(
    scheme: &str,
    specs: &[ParamSpec],
    overrides: &BTreeMap<String, ParamValue>,
) -> Result<SchemeConfig, SchemeConfigError> {
    for key in overrides.keys() {
        if !specs.iter().any(|s| s.name == key) {
            return Err(SchemeConfigError::UnknownParam {
                scheme: String::from(scheme),
                param: key.clone(),
                known: specs.iter().map(|s| String::from(s.name)).collect(),
            });
        }
    }
    let mut config = SchemeConfig::new();
    for spec in specs {
        let value = match overrides.get(spec.name) {
            Some(v) => spec.check(scheme, v)?,
            None => spec.default.clone(),
        };
        config.insert(String::from(spec.name), value);
    }
    Ok(config)
}

/// Typed reads of a resolved [`SchemeConfig`]; a missing or mistyped field (a scheme reading a
/// field its schema lacks) is an error naming it.
pub struct ConfigReader<'a> {
    scheme: &'a str,
    config: &'a SchemeConfig,
}

impl<'a> ConfigReader<'a> {
    /// Reads `config` of `scheme`.
    pub fn new(scheme: &'a str, config: &'a SchemeConfig) -> Self {
        ConfigReader { scheme, config }
    }

    fn missing(&self, name: &str, expected: &str) -> SchemeConfigError {
        SchemeConfigError::WrongType {
            scheme: String::from(self.scheme),
            param: String::from(name),
            expected: String::from(expected),
            got: self.config.get(name).map_or_else(|| String::from("nothing"), ToString::to_string),
        }
    }

    /// A non-negative integer field that fits 32 bits.
    pub fn u32(&self, name: &str) -> Result<u32, SchemeConfigError> {
        match self.config.get(name) {
            Some(ParamValue::Int(i)) => u32::try_from(*i).map_err(|_| self.missing(name, "a 32-bit count")),
            _ => Err(self.missing(name, "an integer")),
        }
    }

    /// A real field.
    pub fn f64(&self, name: &str) -> Result<f64, SchemeConfigError> {
        self.config.get(name).and_then(ParamValue::as_f64).ok_or_else(|| self.missing(name, "a number"))
    }

    /// A boolean field.
    pub fn bool(&self, name: &str) -> Result<bool, SchemeConfigError> {
        match self.config.get(name) {
            Some(ParamValue::Bool(b)) => Ok(*b),
            _ => Err(self.missing(name, "true or false")),
        }
    }

    /// An enum field's choice.
    pub fn choice(&self, name: &str) -> Result<&'a str, SchemeConfigError> {
        match self.config.get(name) {
            Some(ParamValue::Text(s)) => Ok(s.as_str()),
            _ => Err(self.missing(name, "a choice")),
        }
    }
}

/// What a scheme's model covers, for the "model notes" of the CLI and the app.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum NoteKind {
    /// Modelled as described.
    Modelled,
    /// Deliberately left out.
    NotModelled,
    /// RegLab's assumption where the paper leaves a detail open (**A**), with its value.
    Assumption,
}

/// One model note.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct ModelNote {
    /// What kind of note.
    pub kind: NoteKind,
    /// The note, one or two sentences.
    pub text: &'static str,
}

impl ModelNote {
    /// A "modelled" note.
    pub const fn modelled(text: &'static str) -> ModelNote {
        ModelNote { kind: NoteKind::Modelled, text }
    }

    /// A "not modelled" note.
    pub const fn not_modelled(text: &'static str) -> ModelNote {
        ModelNote { kind: NoteKind::NotModelled, text }
    }

    /// An assumption note.
    pub const fn assumption(text: &'static str) -> ModelNote {
        ModelNote { kind: NoteKind::Assumption, text }
    }
}
