//! `cvt` in all its combinations: integer ↔ integer (wrapping or `.sat`), integer ↔ float (with
//! rounding; float → integer always saturates, NaN → 0), float ↔ float among `f64`, `f32`, `tf32`,
//! `f16`, `bf16`, `e4m3`, `e5m2` (`.rn/.rz/.rm/.rp/.rna`, `.ftz`, `.sat`, `.satfinite`, `.relu`,
//! and round-to-integer `.rni/.rzi/.rmi/.rpi`), and the packed forms (`f16x2`, `bf16x2`,
//! `e4m3x2`, `e5m2x2`).
//!
//! ```text
//! cvt.rn.satfinite.e4m3x2.f32 %h1, %f1, %f2;   // %f1 → high byte, %f2 → low byte
//! cvt.rn.f16x2.f32 %r1, %f1, %f2;              // %f1 → high half, %f2 → low half
//! cvt.rzi.s32.f32 %r1, %f1;                    // truncate, saturate, NaN → 0
//! ```

use super::super::program::Dst;
use super::super::program::Src;
use super::super::warp::{Env, Warp, ZERO};
use super::round::{self, Format, Mode};
use crate::ir::Type;

/// The modifiers of one `cvt`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CvtMode {
    /// Rounding direction.
    pub round: Mode,
    /// The rounding is to an integer (`.rni` …).
    pub int_round: bool,
    /// `.ftz`.
    pub ftz: bool,
    /// `.sat`.
    pub sat: bool,
    /// `.satfinite`.
    pub satfinite: bool,
    /// `.relu`.
    pub relu: bool,
}

enum Kind {
    Int { bits: u32, signed: bool },
    Float(Format),
    F64,
    Tf32,
}

fn kind(t: Type) -> Option<Kind> {
    Some(match t {
        Type::U8 | Type::B8 => Kind::Int { bits: 8, signed: false },
        Type::S8 => Kind::Int { bits: 8, signed: true },
        Type::U16 | Type::B16 => Kind::Int { bits: 16, signed: false },
        Type::S16 => Kind::Int { bits: 16, signed: true },
        Type::U32 | Type::B32 => Kind::Int { bits: 32, signed: false },
        Type::S32 => Kind::Int { bits: 32, signed: true },
        Type::U64 | Type::B64 => Kind::Int { bits: 64, signed: false },
        Type::S64 => Kind::Int { bits: 64, signed: true },
        Type::F16 => Kind::Float(round::F16),
        Type::Bf16 => Kind::Float(round::BF16),
        Type::F32 => Kind::Float(round::F32),
        Type::E4m3 => Kind::Float(round::E4M3),
        Type::E5m2 => Kind::Float(round::E5M2),
        Type::F64 => Kind::F64,
        Type::Tf32 => Kind::Tf32,
        _ => return None,
    })
}

/// The element type and width of a packed pair type.
pub fn packed_element(t: Type) -> Option<(Type, u32)> {
    match t {
        Type::F16x2 => Some((Type::F16, 16)),
        Type::Bf16x2 => Some((Type::Bf16, 16)),
        Type::E4m3x2 => Some((Type::E4m3, 8)),
        Type::E5m2x2 => Some((Type::E5m2, 8)),
        _ => None,
    }
}

enum Val {
    Int(i128),
    Float(f64),
}

fn read(k: &Kind, bits: u64, ftz: bool) -> Val {
    match *k {
        Kind::Int { bits: n, signed } => {
            let sh = 128 - n;
            let v = i128::from(bits);
            Val::Int(if signed { (v << sh) >> sh } else { ((v << sh) as u128 >> sh) as i128 })
        }
        Kind::Float(fmt) => {
            let b = bits & ((fmt.sign_bit() << 1) - 1);
            let mag = b & (fmt.sign_bit() - 1);
            if ftz && fmt == round::F32 && mag != 0 && mag < (1 << fmt.man_bits) {
                Val::Float(if b & fmt.sign_bit() != 0 { -0.0 } else { 0.0 })
            } else {
                Val::Float(fmt.decode(b))
            }
        }
        Kind::F64 => Val::Float(f64::from_bits(bits)),
        Kind::Tf32 => Val::Float(round::F32.decode(bits & 0xFFFF_FFFF)),
    }
}

fn round_integral(x: f64, mode: Mode) -> f64 {
    match mode {
        Mode::NearestEven => libm::rint(x),
        Mode::NearestAway => libm::round(x),
        Mode::Zero => libm::trunc(x),
        Mode::Down => libm::floor(x),
        Mode::Up => libm::ceil(x),
    }
}

fn int_range(bits: u32, signed: bool) -> (i128, i128) {
    if signed {
        (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1)
    } else {
        (0, (1i128 << bits) - 1)
    }
}

fn encode_float(x: f64, lo: f64, k: &Kind, m: CvtMode) -> u64 {
    let (x, lo) = if m.int_round && x.is_finite() { (round_integral(x, m.round), 0.0) } else { (x, lo) };
    let fmt = match *k {
        Kind::Float(f) => f,
        Kind::Tf32 => round::TF32,
        Kind::Int { .. } => return 0,
        Kind::F64 => {
            let r = round::round_f64(x, lo, m.round);
            let r = if m.sat { sat(r) } else { r };
            let r = if m.relu && r < 0.0 { 0.0 } else { r };
            return if r.is_nan() { 0x7FFF_FFFF_FFFF_FFFF } else { r.to_bits() };
        }
    };
    let v = if m.sat { sat(x) } else { x };
    let v = if m.relu && v < 0.0 { 0.0 } else { v };
    let lo = if v == x { lo } else { 0.0 };
    let mode = if m.int_round { Mode::NearestEven } else { m.round };
    let mut r = round::round(v, lo, fmt, mode, m.satfinite);
    if m.ftz && fmt == round::F32 && r & 0x7FFF_FFFF != 0 && r & 0x7FFF_FFFF < 0x80_0000 {
        r &= 0x8000_0000;
    }
    if matches!(k, Kind::Tf32) {
        r << 13
    } else {
        r
    }
}

fn sat(x: f64) -> f64 {
    if x.is_nan() {
        0.0
    } else {
        x.clamp(0.0, 1.0)
    }
}

/// Converts one value of type `from` (its bits) to type `to`.
pub fn convert(to: Type, from: Type, m: CvtMode, bits: u64) -> u64 {
    let (Some(tk), Some(fk)) = (kind(to), kind(from)) else { return 0 };
    match (read(&fk, bits, m.ftz), &tk) {
        (Val::Int(v), Kind::Int { bits: n, signed }) => {
            let v = if m.sat {
                let (lo, hi) = int_range(*n, *signed);
                v.clamp(lo, hi)
            } else {
                v
            };
            let sh = 128 - n;
            let v = if *signed { (v << sh) >> sh } else { ((v << sh) as u128 >> sh) as i128 };
            v as u64
        }
        (Val::Int(v), _) => {
            let hi = v as f64;
            let lo = (v - hi as i128) as f64;
            encode_float(hi, lo, &tk, m)
        }
        (Val::Float(x), Kind::Int { bits: n, signed }) => {
            if x.is_nan() {
                return 0;
            }
            let mode = if m.int_round { m.round } else { Mode::Zero };
            let r = round_integral(x, mode);
            let (lo, hi) = int_range(*n, *signed);
            let v = if r <= lo as f64 {
                lo
            } else if r >= hi as f64 {
                hi
            } else {
                r as i128
            };
            let sh = 128 - n;
            (if *signed { (v << sh) >> sh } else { v }) as u64
        }
        (Val::Float(x), _) => encode_float(x, 0.0, &tk, m),
    }
}

/// Executes `cvt` (two sources for the packing forms).
#[allow(clippy::too_many_arguments, reason = "the operands of one PTX instruction")]
pub fn exec(w: &mut Warp, env: &Env, to: Type, from: Type, m: CvtMode, d: Dst, a: Src, b: Option<Src>, mask: u32) {
    let mut out = ZERO;
    for (lane, o) in out.iter_mut().enumerate() {
        if (mask >> lane) & 1 == 0 {
            continue;
        }
        let x = w.read_lane(a, lane, env);
        *o = match (packed_element(to), packed_element(from), b) {
            (Some((te, tw)), None, Some(b)) => {
                let y = w.read_lane(b, lane, env);
                (convert(te, from, m, x) << tw) | convert(te, from, m, y)
            }
            (Some((te, tw)), Some((fe, fw)), _) => {
                let lo = convert(te, fe, m, x & ((1 << fw) - 1));
                let hi = convert(te, fe, m, (x >> fw) & ((1 << fw) - 1));
                (hi << tw) | lo
            }
            (None, None, _) => convert(to, from, m, x),
            _ => 0,
        };
    }
    w.write(d, &out, mask);
}

/// `cvt.pack.sat`: `a` and `b` (signed 32-bit) clamped to the `bits`-wide integer type, `a` above
/// `b` in the low `2·bits` bits; below 16 bits the rest of `d` is the low bits of `c`.
pub fn pack_sat(bits: u32, signed: bool, a: u32, b: u32, c: u32) -> u32 {
    let (lo, hi) = if signed { (-(1i64 << (bits - 1)), (1i64 << (bits - 1)) - 1) } else { (0, (1i64 << bits) - 1) };
    let mask = (1u64 << bits) - 1;
    let sat = |v: u32| (i64::from(v as i32).clamp(lo, hi) as u64) & mask;
    let packed = (sat(a) << bits) | sat(b);
    let rest = if bits >= 16 { 0 } else { u64::from(c) << (2 * bits) };
    (packed | rest) as u32
}

/// Executes `cvt.pack.sat` (`c` is `Src::Imm(0)` in the 16-bit form).
#[allow(clippy::too_many_arguments, reason = "the operands of one PTX instruction")]
pub fn exec_pack_sat(w: &mut Warp, env: &Env, bits: u32, signed: bool, d: Dst, a: Src, b: Src, c: Src, mask: u32) {
    let mut out = ZERO;
    for (lane, o) in out.iter_mut().enumerate() {
        if (mask >> lane) & 1 == 0 {
            continue;
        }
        let (x, y, z) = (w.read_lane(a, lane, env), w.read_lane(b, lane, env), w.read_lane(c, lane, env));
        *o = u64::from(pack_sat(bits, signed, x as u32, y as u32, z as u32));
    }
    w.write(d, &out, mask);
}

#[cfg(test)]
mod tests {
    use super::*;

    const RN: CvtMode =
        CvtMode { round: Mode::NearestEven, int_round: false, ftz: false, sat: false, satfinite: false, relu: false };

    #[test]
    fn conversions() {
        assert_eq!(convert(Type::S32, Type::S16, RN, 0x8000), 0xFFFF_FFFF_FFFF_8000);
        assert_eq!(convert(Type::U16, Type::U32, RN, 0x1_2345), 0x2345);
        let sat = CvtMode { sat: true, ..RN };
        assert_eq!(convert(Type::U8, Type::S32, sat, (-5i64) as u64), 0);
        assert_eq!(convert(Type::F32, Type::U32, RN, 16_777_217), u64::from(16_777_216f32.to_bits()));
        let up = CvtMode { round: Mode::Up, ..RN };
        assert_eq!(convert(Type::F32, Type::U32, up, 16_777_217), u64::from(16_777_218f32.to_bits()));
        let rzi = CvtMode { round: Mode::Zero, int_round: true, ..RN };
        assert_eq!(convert(Type::S32, Type::F32, rzi, u64::from((-2.7f32).to_bits())), (-2i64) as u64);
        assert_eq!(convert(Type::S32, Type::F32, rzi, u64::from(f32::NAN.to_bits())), 0);
        assert_eq!(convert(Type::S32, Type::F32, rzi, u64::from(1e20f32.to_bits())), 0x7FFF_FFFF);
        assert_eq!(convert(Type::F16, Type::F32, RN, u64::from(1.0f32.to_bits())), 0x3C00);
        assert_eq!(convert(Type::F32, Type::F16, RN, 0x3C00), u64::from(1.0f32.to_bits()));
        let rni = CvtMode { int_round: true, ..RN };
        assert_eq!(convert(Type::F32, Type::F32, rni, u64::from(2.5f32.to_bits())), u64::from(2.0f32.to_bits()));
        let sf = CvtMode { satfinite: true, ..RN };
        assert_eq!(convert(Type::E4m3, Type::F32, sf, u64::from(0.40625f32.to_bits())), 0x2D);
        assert_eq!(convert(Type::U64, Type::F64, rzi, 1e300f64.to_bits()), u64::MAX);
    }

    #[test]
    fn pack_sat_clamps_and_fills_from_c() {
        // s4: 9 → 7, −9 → −8 = 0b1000; packed 0x78, then c's low 24 bits above.
        assert_eq!(pack_sat(4, true, 9, (-9i32) as u32, 0x00AB_CDEF), 0xABCD_EF78);
        assert_eq!(pack_sat(16, false, 70_000, (-5i32) as u32, 0xFFFF_FFFF), 0xFFFF_0000);
    }
}
