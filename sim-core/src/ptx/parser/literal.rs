//! Numeric literals with their exact values: integers in every base (64-bit two's complement,
//! negation included) and floats as exact bits.
//!
//! ```text
//! 0xFFFFFFFFU → Int(4294967295)     -9223372036854775808 → Int(0x8000000000000000)
//! 0f3F800000  → F32(0x3F800000)     1.5 → F64(0x3FF8000000000000)     017 → Int(15)
//! ```

use crate::ptx::ast::Literal;

/// The value of an integer token, or why it has none.
pub fn parse_int(text: &str) -> Result<u64, &'static str> {
    let t = text.strip_suffix(['U', 'u']).unwrap_or(text);
    let (digits, radix) = if let Some(h) = t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
        (h, 16)
    } else if let Some(b) = t.strip_prefix("0b").or_else(|| t.strip_prefix("0B")) {
        (b, 2)
    } else if t.len() > 1 && t.starts_with('0') {
        (&t[1..], 8)
    } else {
        (t, 10)
    };
    if digits.is_empty() {
        return Err("integer literal has no digits");
    }
    u64::from_str_radix(digits, radix).map_err(|e| match e.kind() {
        core::num::IntErrorKind::PosOverflow => "integer literal does not fit in 64 bits",
        _ if radix == 8 => "invalid digit in octal literal (a leading 0 means octal)",
        _ => "invalid integer literal",
    })
}

/// The value of a float token (`0f…`, `0d…` or decimal), or why it has none.
pub fn parse_float(text: &str) -> Result<Literal, &'static str> {
    let bytes = text.as_bytes();
    if bytes.len() > 2 && bytes[0] == b'0' {
        match bytes[1] {
            b'f' | b'F' => {
                let hex = &text[2..];
                if hex.len() != 8 {
                    return Err("a 0f literal has exactly 8 hex digits");
                }
                return u32::from_str_radix(hex, 16).map(Literal::F32).map_err(|_| "invalid 0f literal");
            }
            b'd' | b'D' => {
                let hex = &text[2..];
                if hex.len() != 16 {
                    return Err("a 0d literal has exactly 16 hex digits");
                }
                return u64::from_str_radix(hex, 16).map(Literal::F64).map_err(|_| "invalid 0d literal");
            }
            _ => {}
        }
    }
    text.parse::<f64>().map(|v| Literal::F64(v.to_bits())).map_err(|_| "invalid floating-point literal")
}

/// `-lit`: integer two's-complement negation, float sign flip.
pub fn negate(lit: Literal) -> Literal {
    match lit {
        Literal::Int(v) => Literal::Int(v.wrapping_neg()),
        Literal::F32(b) => Literal::F32(b ^ 0x8000_0000),
        Literal::F64(b) => Literal::F64(b ^ 0x8000_0000_0000_0000),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integers() {
        assert_eq!(parse_int("42"), Ok(42));
        assert_eq!(parse_int("0xFFFFFFFFU"), Ok(0xFFFF_FFFF));
        assert_eq!(parse_int("017"), Ok(15));
        assert_eq!(parse_int("0"), Ok(0));
        assert_eq!(parse_int("0b101"), Ok(5));
        assert_eq!(parse_int("18446744073709551615"), Ok(u64::MAX));
        assert!(parse_int("18446744073709551616").is_err());
        assert!(parse_int("09").is_err());
        assert!(parse_int("0x").is_err());
        assert_eq!(negate(Literal::Int(parse_int("9223372036854775808").unwrap_or(0))), Literal::Int(1 << 63));
    }

    #[test]
    fn floats() {
        assert_eq!(parse_float("0f3F800000"), Ok(Literal::F32(0x3F80_0000)));
        assert_eq!(parse_float("0d3FF0000000000000"), Ok(Literal::F64(0x3FF0_0000_0000_0000)));
        assert_eq!(parse_float("1.5"), Ok(Literal::F64(1.5f64.to_bits())));
        assert_eq!(parse_float("2."), Ok(Literal::F64(2.0f64.to_bits())));
        assert!(parse_float("0f3F80").is_err());
        assert_eq!(negate(Literal::F32(0x3F80_0000)), Literal::F32(0xBF80_0000));
    }
}
