//! Values in launch files and outputs, by the JSON conventions of RegLab: a value is a JSON
//! number, or a string — `"nan"`, `"inf"`, `"-inf"`, `"0x…"` (the raw bits of the element type) or
//! a decimal number. Outputs never lose bits: integers (`u64` included) print exactly, finite
//! floats print as the shortest decimal that reads back to the same float of their type, and
//! non-finite values print as strings (`"nan"` only for the canonical NaN, other NaNs as raw bits).
//!
//! ```text
//! {"buffer": {"type": "f32", "data": [1.5, "nan", "-inf", "0x7f800001"]}}
//! ld.global.f32 %f1, [%rd1];     // reads 1.5, canonical NaN, -inf, a signalling NaN
//! ```

use alloc::format;
use alloc::string::{String, ToString};

use serde::{Deserialize, Serialize};

use super::semantics::round::{self, Mode};

/// The element type of a buffer or scalar in a launch setup.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ElemType {
    /// Unsigned 8-bit (also spelled `b8`).
    #[serde(alias = "b8")]
    U8,
    /// Signed 8-bit.
    S8,
    /// Unsigned 16-bit (also `b16`).
    #[serde(alias = "b16")]
    U16,
    /// Signed 16-bit.
    S16,
    /// Unsigned 32-bit (also `b32`).
    #[serde(alias = "b32")]
    U32,
    /// Signed 32-bit.
    S32,
    /// Unsigned 64-bit (also `b64`).
    #[serde(alias = "b64")]
    U64,
    /// Signed 64-bit.
    S64,
    /// IEEE half precision.
    F16,
    /// bfloat16.
    Bf16,
    /// IEEE single precision.
    F32,
    /// IEEE double precision.
    F64,
}

impl ElemType {
    /// Every element type.
    pub const ALL: [ElemType; 12] = [
        ElemType::U8,
        ElemType::S8,
        ElemType::U16,
        ElemType::S16,
        ElemType::U32,
        ElemType::S32,
        ElemType::U64,
        ElemType::S64,
        ElemType::F16,
        ElemType::Bf16,
        ElemType::F32,
        ElemType::F64,
    ];

    /// Size in bytes.
    pub fn size(self) -> usize {
        match self {
            ElemType::U8 | ElemType::S8 => 1,
            ElemType::U16 | ElemType::S16 | ElemType::F16 | ElemType::Bf16 => 2,
            ElemType::U32 | ElemType::S32 | ElemType::F32 => 4,
            ElemType::U64 | ElemType::S64 | ElemType::F64 => 8,
        }
    }

    /// The launch-file spelling (`"u32"`).
    pub fn name(self) -> &'static str {
        match self {
            ElemType::U8 => "u8",
            ElemType::S8 => "s8",
            ElemType::U16 => "u16",
            ElemType::S16 => "s16",
            ElemType::U32 => "u32",
            ElemType::S32 => "s32",
            ElemType::U64 => "u64",
            ElemType::S64 => "s64",
            ElemType::F16 => "f16",
            ElemType::Bf16 => "bf16",
            ElemType::F32 => "f32",
            ElemType::F64 => "f64",
        }
    }

    /// The type spelled `name` (`"u32"`, `"b32"`, …).
    pub fn from_name(name: &str) -> Option<ElemType> {
        let name = name.trim().trim_start_matches('.');
        let alias = match name {
            "b8" => "u8",
            "b16" => "u16",
            "b32" => "u32",
            "b64" => "u64",
            other => other,
        };
        ElemType::ALL.iter().copied().find(|t| t.name() == alias)
    }

    /// The element type of a PTX scalar type, if it has one.
    pub fn from_ptx(ty: crate::ir::Type) -> Option<ElemType> {
        use crate::ir::Type as T;
        Some(match ty {
            T::U8 | T::B8 => ElemType::U8,
            T::S8 => ElemType::S8,
            T::U16 | T::B16 => ElemType::U16,
            T::S16 => ElemType::S16,
            T::U32 | T::B32 => ElemType::U32,
            T::S32 => ElemType::S32,
            T::U64 | T::B64 => ElemType::U64,
            T::S64 => ElemType::S64,
            T::F16 => ElemType::F16,
            T::Bf16 => ElemType::Bf16,
            T::F32 => ElemType::F32,
            T::F64 => ElemType::F64,
            _ => return None,
        })
    }

    /// True for the float types.
    pub fn is_float(self) -> bool {
        matches!(self, ElemType::F16 | ElemType::Bf16 | ElemType::F32 | ElemType::F64)
    }

    /// True for the signed integer types.
    pub fn is_signed(self) -> bool {
        matches!(self, ElemType::S8 | ElemType::S16 | ElemType::S32 | ElemType::S64)
    }

    fn bits(self) -> u32 {
        self.size() as u32 * 8
    }

    fn mask(self) -> u64 {
        u64::MAX >> (64 - self.bits())
    }

    /// The canonical NaN of a float type (`0x7FFFFFFF` for `f32`).
    pub fn canonical_nan(self) -> u64 {
        match self {
            ElemType::F64 => 0x7FFF_FFFF_FFFF_FFFF,
            _ => self.mask() >> 1,
        }
    }

    /// The bits of `x` in this float type, rounded to nearest even (integers: truncated toward
    /// zero and wrapped; callers check ranges first).
    pub fn float_bits(self, x: f64) -> u64 {
        match self {
            ElemType::F64 => x.to_bits(),
            ElemType::F32 => u64::from(round::round(x, 0.0, round::F32, Mode::NearestEven, false) as u32),
            ElemType::F16 => round::round(x, 0.0, round::F16, Mode::NearestEven, false),
            ElemType::Bf16 => round::round(x, 0.0, round::BF16, Mode::NearestEven, false),
            _ => (x as i64 as u64) & self.mask(),
        }
    }

    /// The value of float bits as an `f64` (exact).
    pub fn float_value(self, bits: u64) -> f64 {
        match self {
            ElemType::F64 => f64::from_bits(bits),
            ElemType::F32 => f64::from(f32::from_bits(bits as u32)),
            ElemType::F16 => round::F16.decode(bits),
            ElemType::Bf16 => round::BF16.decode(bits),
            _ => bits as f64,
        }
    }
}

impl core::fmt::Display for ElemType {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(self.name())
    }
}

/// One value of a launch file or an output.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Value {
    /// A non-negative JSON integer (exact up to `u64::MAX`).
    UInt(u64),
    /// A negative JSON integer.
    Int(i64),
    /// A JSON number with a fraction or exponent, or an `f64` output.
    Float(f64),
    /// An `f32` (or narrower float) output: printed as the shortest decimal that reads back to the
    /// same `f32`.
    #[serde(skip_deserializing)]
    Single(f32),
    /// `"nan"`, `"inf"`, `"-inf"`, `"0x…"` raw bits, or a decimal number in a string.
    Text(String),
}

/// Parses a string value for `ty`.
fn text_bits(text: &str, ty: ElemType) -> Result<u64, String> {
    let t = text.trim();
    let lower = t.to_ascii_lowercase();
    if let Some(hex) = lower.strip_prefix("0x") {
        let v = u64::from_str_radix(hex, 16).map_err(|_| format!("'{t}' is not a hexadecimal bit pattern"))?;
        if v & !ty.mask() != 0 {
            return Err(format!("'{t}' has more bits than {ty} ({} bits)", ty.bits()));
        }
        return Ok(v);
    }
    if ty.is_float() {
        let special = match lower.as_str() {
            "nan" | "+nan" | "-nan" => Some(f64::NAN),
            "inf" | "+inf" | "infinity" | "+infinity" => Some(f64::INFINITY),
            "-inf" | "-infinity" => Some(f64::NEG_INFINITY),
            _ => None,
        };
        if let Some(x) = special {
            return Ok(if x.is_nan() { ty.canonical_nan() } else { ty.float_bits(x) });
        }
        return match ty {
            ElemType::F32 => t.parse::<f32>().map(|x| u64::from(x.to_bits())),
            _ => t.parse::<f64>().map(|x| ty.float_bits(x)),
        }
        .map_err(|_| format!("'{t}' is not a number, \"nan\", \"inf\", \"-inf\" or \"0x…\" bits"));
    }
    if let Ok(v) = t.parse::<i128>() {
        return int_bits(v, ty);
    }
    Err(format!("'{t}' is not an integer or \"0x…\" bits for {ty}"))
}

fn int_bits(v: i128, ty: ElemType) -> Result<u64, String> {
    let bits = ty.bits();
    let (lo, hi) =
        if ty.is_signed() { (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1) } else { (0, (1i128 << bits) - 1) };
    if v < lo || v > hi {
        return Err(format!("{v} is out of range for {ty} ({lo} to {hi}); use \"0x…\" for raw bits"));
    }
    Ok((v as u64) & ty.mask())
}

impl Value {
    /// The bits of this value as an element of type `ty` (zero-extended to 64 bits).
    pub fn to_bits(&self, ty: ElemType) -> Result<u64, String> {
        match self {
            Value::Text(t) => text_bits(t, ty),
            Value::UInt(u) if ty.is_float() => Ok(ty.float_bits(*u as f64)),
            Value::Int(i) if ty.is_float() => Ok(ty.float_bits(*i as f64)),
            Value::UInt(u) => int_bits(i128::from(*u), ty),
            Value::Int(i) => int_bits(i128::from(*i), ty),
            Value::Float(x) if ty.is_float() => Ok(if x.is_nan() { ty.canonical_nan() } else { ty.float_bits(*x) }),
            Value::Single(x) if ty.is_float() => {
                let x = f64::from(*x);
                Ok(if x.is_nan() { ty.canonical_nan() } else { ty.float_bits(x) })
            }
            Value::Float(x) => {
                if !x.is_finite() || libm::trunc(*x) != *x {
                    return Err(format!("{x} is not an integer; {ty} needs one"));
                }
                int_bits(*x as i128, ty)
            }
            Value::Single(x) => Err(format!("{x} is not an integer; {ty} needs one")),
        }
    }

    /// The output value of `bits` (the low bits of an element of type `ty`).
    pub fn from_bits(bits: u64, ty: ElemType) -> Value {
        let bits = bits & ty.mask();
        match ty {
            ElemType::U8 | ElemType::U16 | ElemType::U32 | ElemType::U64 => Value::UInt(bits),
            ElemType::S8 | ElemType::S16 | ElemType::S32 | ElemType::S64 => {
                let shift = 64 - ty.bits();
                let v = ((bits << shift) as i64) >> shift;
                if v < 0 {
                    Value::Int(v)
                } else {
                    Value::UInt(v as u64)
                }
            }
            _ => float_output(bits, ty),
        }
    }

    /// A short human-readable form (what the CLI prints without `--json`).
    pub fn to_text(&self) -> String {
        match self {
            Value::UInt(v) => v.to_string(),
            Value::Int(v) => v.to_string(),
            Value::Float(v) => format!("{v:?}"),
            Value::Single(v) => format!("{v:?}"),
            Value::Text(t) => t.clone(),
        }
    }
}

fn float_output(bits: u64, ty: ElemType) -> Value {
    let x = ty.float_value(bits);
    if x.is_nan() {
        if bits == ty.canonical_nan() {
            return Value::Text("nan".into());
        }
        let digits = ty.size() * 2;
        return Value::Text(format!("0x{bits:0digits$x}"));
    }
    if x.is_infinite() {
        return Value::Text(if x > 0.0 { "inf" } else { "-inf" }.into());
    }
    match ty {
        ElemType::F64 => Value::Float(x),
        // f16 and bf16 values are exact f32 values: their shortest f32 decimal reads back exactly.
        _ => Value::Single(x as f32),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::vec;

    #[test]
    fn parses_the_conventions() {
        assert_eq!(Value::Text("nan".into()).to_bits(ElemType::F32), Ok(0x7FFF_FFFF));
        assert_eq!(Value::Text("-inf".into()).to_bits(ElemType::F32), Ok(0xFF80_0000));
        assert_eq!(Value::Text("0x7f800001".into()).to_bits(ElemType::F32), Ok(0x7F80_0001));
        assert_eq!(Value::Text("12.9".into()).to_bits(ElemType::F32), Ok(u64::from(12.9f32.to_bits())));
        assert_eq!(Value::UInt(u64::MAX).to_bits(ElemType::U64), Ok(u64::MAX));
        assert_eq!(Value::Int(-1).to_bits(ElemType::S8), Ok(0xFF));
        assert!(Value::Int(-1).to_bits(ElemType::U8).is_err());
        assert!(Value::UInt(256).to_bits(ElemType::U8).is_err());
        assert_eq!(Value::Float(1.5).to_bits(ElemType::F16), Ok(0x3E00));
        assert_eq!(Value::Text("18446744073709551615".into()).to_bits(ElemType::U64), Ok(u64::MAX));
        assert!(Value::Float(1.5).to_bits(ElemType::S32).is_err());
    }

    #[test]
    fn outputs_round_trip() {
        let cases = vec![
            (ElemType::F32, 0x7FFF_FFFFu64),
            (ElemType::F32, 0x7FC0_0000),
            (ElemType::F32, 0xFF80_0000),
            (ElemType::F32, u64::from(1.000_000_1f32.to_bits())),
            (ElemType::F16, 0x3555),
            (ElemType::F64, 0.1f64.to_bits()),
            (ElemType::S32, 0xFFFF_FFFF),
            (ElemType::U64, u64::MAX),
        ];
        for (ty, bits) in cases {
            let v = Value::from_bits(bits, ty);
            assert_eq!(v.to_bits(ty), Ok(bits), "{ty} {bits:#x} -> {v:?}");
        }
        assert_eq!(Value::from_bits(0xFFFF_FFFF, ElemType::S32), Value::Int(-1));
    }
}
