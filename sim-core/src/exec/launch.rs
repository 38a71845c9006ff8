//! The launch setup: which kernel, grid and block dimensions, dynamic shared memory, a value for
//! every parameter (device buffers are synthesized), which buffers to report, and optionally a
//! sequence of launches repeated until a flag buffer stays zero. One JSON format shared by the CLI
//! and the app (documented in `docs/launch-format.md`).
//!
//! ```text
//! .visible .entry add(.param .u64 a, .param .u64 out, .param .u32 n)
//! {"kernel": "add", "grid": [4,1,1], "block": [256,1,1], "dynamic_smem": 0,
//!  "params": [{"buffer": {"type": "f32", "len": 1024, "init": "random:7"}},
//!             {"buffer": {"type": "f32", "len": 1024, "init": "zeros"}},
//!             {"scalar": {"type": "u32", "value": 1024}}],
//!  "outputs": [1]}
//! ```

use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;

use alloc::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::texture::TextureSpec;
use super::value::{ElemType, Value};

/// A complete launch setup (one launch, or a sequence of launches sharing the same parameters).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LaunchSetup {
    /// The kernel (`.entry` name) of a single launch; optional when `launches` is given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kernel: Option<String>,
    /// Grid dimensions in CTAs (1 to 3 numbers; missing ones are 1).
    #[serde(default = "one")]
    pub grid: Vec<u32>,
    /// CTA dimensions in threads (1 to 3 numbers; missing ones are 1).
    #[serde(default = "one")]
    pub block: Vec<u32>,
    /// Dynamic shared memory per CTA in bytes.
    #[serde(default)]
    pub dynamic_smem: u32,
    /// The parameter pool: one entry per kernel parameter, in order (with `launches`, each launch
    /// picks its arguments from this pool with `args`).
    pub params: Vec<ParamSpec>,
    /// Indices into `params` of the buffers to report (default: every buffer).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub outputs: Option<Vec<usize>>,
    /// A sequence of launches run in order on the same buffers.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub launches: Vec<LaunchStep>,
    /// Repeat the sequence until a flag buffer stays zero.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub repeat: Option<Repeat>,
    /// Instruction budget in warp-instructions (default [`DEFAULT_BUDGET`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub budget: Option<u64>,
    /// Textures bound to the module's texture references (`.global .texref NAME`), by name.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub textures: BTreeMap<String, TextureSpec>,
}

fn one() -> Vec<u32> {
    alloc::vec![1, 1, 1]
}

/// The budget when a setup names none, in the CLI, the browser and the library alike: 20 million
/// warp-instructions. Sized so that an endless loop ends with its message within a few seconds
/// wherever it runs (the timing model replays about 5 M warp-instructions a second on one core,
/// the functional executor alone about 40 M), while every bundled example (the largest runs
/// 127 104) and the scaled real-GPU launches (up to 16.8 M) fit. A longer kernel states its own
/// `budget` in the launch setup, or takes `--budget N` in the CLI; the budget message says so.
pub const DEFAULT_BUDGET: u64 = 20_000_000;

/// One launch of a sequence.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LaunchStep {
    /// The kernel.
    pub kernel: String,
    /// Grid dimensions (default: the setup's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub grid: Option<Vec<u32>>,
    /// CTA dimensions (default: the setup's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub block: Option<Vec<u32>>,
    /// Dynamic shared memory (default: the setup's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dynamic_smem: Option<u32>,
    /// Indices into the parameter pool, one per kernel parameter (default: `0, 1, 2, …`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub args: Option<Vec<usize>>,
}

/// Repetition of a launch sequence: before each round the flag buffer is zeroed; after it, if the
/// flag buffer is still all zeros, the run stops.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Repeat {
    /// At most this many rounds.
    pub max: u32,
    /// Index into `params` of the flag buffer.
    pub until_zero: usize,
}

/// A kernel parameter's value.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ParamSpec {
    /// A device buffer; the parameter receives its address.
    Buffer(BufferSpec),
    /// A value passed directly.
    Scalar(ScalarSpec),
    /// A table of device pointers, for `T**` parameters: each entry is its own buffer; the table
    /// holds their addresses (one address-width integer each) and the parameter receives the
    /// table's address (`exec::pointer_table`).
    Pointers(Vec<BufferSpec>),
    /// A texture object: the parameter receives its handle (`exec::texture`).
    Texture(TextureSpec),
}

/// A synthesized device buffer.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BufferSpec {
    /// Element type.
    #[serde(rename = "type")]
    pub ty: ElemType,
    /// Number of elements (default: the length of `data`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub len: Option<u64>,
    /// Initial contents (default `zeros`); elements past `data` also get it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub init: Option<Init>,
    /// Explicit initial values.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data: Option<Vec<Value>>,
}

/// A scalar argument (or, with a list, the bytes of an array parameter such as a struct passed
/// by value).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScalarSpec {
    /// Element type.
    #[serde(rename = "type")]
    pub ty: ElemType,
    /// The value, or a list of values laid out one after another.
    pub value: ScalarValue,
}

/// One value or several.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum ScalarValue {
    /// A single value.
    One(Value),
    /// Consecutive values (array parameters).
    Many(Vec<Value>),
}

/// An initial-contents pattern.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub enum Init {
    /// All zero bytes.
    Zeros,
    /// Element `i` is `i` (converted to the element type, wrapping for narrow integers).
    Iota,
    /// Every element is the value.
    Const(Value),
    /// Seeded pseudo-random: integers get uniformly random bits, floats uniform values in [0, 1).
    Random(u64),
}

impl TryFrom<String> for Init {
    type Error = String;

    fn try_from(s: String) -> Result<Self, String> {
        let t = s.trim();
        if t == "zeros" {
            return Ok(Init::Zeros);
        }
        if t == "iota" {
            return Ok(Init::Iota);
        }
        if let Some(v) = t.strip_prefix("const:") {
            let v = v.trim();
            let value = match v.parse::<u64>() {
                Ok(u) => Value::UInt(u),
                Err(_) => match v.parse::<i64>() {
                    Ok(i) => Value::Int(i),
                    Err(_) => Value::Text(v.into()),
                },
            };
            return Ok(Init::Const(value));
        }
        if let Some(seed) = t.strip_prefix("random:") {
            let seed = seed.trim();
            let parsed = match seed.strip_prefix("0x") {
                Some(hex) => u64::from_str_radix(hex, 16).ok(),
                None => seed.parse().ok(),
            };
            return parsed.map(Init::Random).ok_or_else(|| format!("'random:{seed}': the seed must be a u64"));
        }
        Err(format!("unknown init '{t}': expected zeros, iota, const:V or random:SEED"))
    }
}

impl From<Init> for String {
    fn from(init: Init) -> String {
        match init {
            Init::Zeros => "zeros".into(),
            Init::Iota => "iota".into(),
            Init::Const(v) => format!("const:{}", v.to_text()),
            Init::Random(seed) => format!("random:{seed}"),
        }
    }
}

impl LaunchSetup {
    /// Reads a setup from JSON text; the error names the line and column.
    pub fn from_json(text: &str) -> Result<LaunchSetup, super::LaunchError> {
        serde_json::from_str(text).map_err(|e| super::LaunchError::new(format!("launch setup JSON: {e}")))
    }

    /// The setup as pretty-printed JSON.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_default()
    }
}

/// A tiny deterministic generator (splitmix64) for `random:SEED` buffers.
#[derive(Clone, Debug)]
pub struct SplitMix64(u64);

impl SplitMix64 {
    /// A generator with `seed`.
    pub fn new(seed: u64) -> Self {
        SplitMix64(seed)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
}

/// The initial bytes of a buffer (little-endian elements).
pub fn buffer_bytes(spec: &BufferSpec, len: u64) -> Result<Vec<u8>, String> {
    let size = spec.ty.size();
    let n = usize::try_from(len).map_err(|_| "buffer too large".to_string())?;
    let mut out = Vec::new();
    out.try_reserve_exact(n.saturating_mul(size)).map_err(|_| "buffer too large to allocate".to_string())?;
    let data = spec.data.as_deref().unwrap_or(&[]);
    let init = spec.init.clone().unwrap_or(Init::Zeros);
    if data.is_empty() && init == Init::Zeros {
        out.resize(n.saturating_mul(size), 0);
        return Ok(out);
    }
    if let (true, Init::Random(seed)) = (data.is_empty(), &init) {
        // The common case of a proposed buffer, in one pass over preallocated bytes.
        out.resize(n.saturating_mul(size), 0);
        let mut rng = SplitMix64::new(*seed);
        for chunk in out.chunks_exact_mut(size) {
            chunk.copy_from_slice(&random_bits(&mut rng, spec.ty).to_le_bytes()[..size]);
        }
        return Ok(out);
    }
    let fill = match &init {
        Init::Const(v) => v.to_bits(spec.ty).map_err(|e| format!("init const: {e}"))?,
        _ => 0,
    };
    let mut rng = SplitMix64::new(match init {
        Init::Random(seed) => seed,
        _ => 0,
    });
    for i in 0..n {
        let bits = match data.get(i) {
            Some(v) => v.to_bits(spec.ty).map_err(|e| format!("data[{i}]: {e}"))?,
            None => match init {
                Init::Zeros => 0,
                Init::Const(_) => fill,
                Init::Iota if spec.ty.is_float() => spec.ty.float_bits(i as f64),
                Init::Iota => i as u64,
                Init::Random(_) => random_bits(&mut rng, spec.ty),
            },
        };
        out.extend_from_slice(&bits.to_le_bytes()[..size]);
    }
    Ok(out)
}

fn random_bits(rng: &mut SplitMix64, ty: ElemType) -> u64 {
    let r = rng.next_u64();
    match ty {
        // Uniform in [0, 1) with the type's precision.
        ElemType::F64 => ((r >> 11) as f64 * super::semantics::round::pow2(-53)).to_bits(),
        ElemType::F32 => u64::from(((r >> 40) as f32 * (1.0 / 16_777_216.0)).to_bits()),
        ElemType::F16 | ElemType::Bf16 => ty.float_bits((r >> 53) as f64 / 2048.0),
        _ => r,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn init_patterns() {
        let spec = BufferSpec { ty: ElemType::U16, len: Some(3), init: Some(Init::Iota), data: None };
        assert_eq!(buffer_bytes(&spec, 3), Ok(alloc::vec![0, 0, 1, 0, 2, 0]));
        let spec = BufferSpec {
            ty: ElemType::F32,
            len: Some(2),
            init: Some(Init::Const(Value::Text("inf".into()))),
            data: Some(alloc::vec![Value::Float(1.0)]),
        };
        assert_eq!(buffer_bytes(&spec, 2), Ok(alloc::vec![0, 0, 0x80, 0x3F, 0, 0, 0x80, 0x7F]));
        assert_eq!(Init::try_from(String::from("random:42")), Ok(Init::Random(42)));
        assert!(Init::try_from(String::from("ones")).is_err());
        let a = buffer_bytes(&BufferSpec { ty: ElemType::F32, len: None, init: Some(Init::Random(1)), data: None }, 8);
        let b = buffer_bytes(&BufferSpec { ty: ElemType::F32, len: None, init: Some(Init::Random(1)), data: None }, 8);
        assert_eq!(a, b);
    }
}
