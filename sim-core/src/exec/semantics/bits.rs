//! Bit manipulation: `popc`, `clz`, `brev`, `bfind`, `bfe`, `bfi`, `fns`, `bmsk`, `szext`, `prmt`,
//! `lop3`, `shf`, and the byte/half dot products `dp4a`, `dp2a`.
//!
//! ```text
//! bfe.u32 %r1, %r2, 16, 8;             // bits 16..23 of %r2
//! prmt.b32 %r1, %r2, %r3, 0x7604;      // bytes {b3, b2, a0, b0} of {%r3, %r2}
//! shf.l.clamp.b32 %r1, %r2, %r3, 12;   // high word of ({%r3, %r2} << 12)
//! dp4a.s32.s32 %r1, %r2, %r3, %r4;     // %r4 + Σ signed bytes of %r2 × %r3
//! ```

use super::super::program::{Dst, IntOp, IntTy, Src};
use super::super::warp::{Env, Lanes, Warp, ZERO};
use super::int::Ext;
use crate::ir::PrmtMode;

fn bfind(k: Ext, bits: u32, x: u64, shift_amount: bool) -> u64 {
    let v = if k.signed() && k.sx(x) < 0 { !k.zx(x) } else { k.zx(x) };
    let v = (v << (64 - bits)) >> (64 - bits);
    if v == 0 {
        return 0xFFFF_FFFF;
    }
    let pos = 63 - u64::from(v.leading_zeros());
    if shift_amount {
        u64::from(bits) - 1 - pos
    } else {
        pos
    }
}

fn bfe(k: Ext, bits: u32, x: u64, pos: u64, len: u64) -> u64 {
    let (pos, len) = ((pos & 0xFF) as u32, (len & 0xFF) as u32);
    let msb = bits - 1;
    let v = k.zx(x);
    let sbit = if k.signed() && len > 0 { (v >> (pos + len - 1).min(msb)) & 1 } else { 0 };
    let mut out = 0u64;
    for i in 0..bits {
        let bit = if i < len && pos + i <= msb { (v >> (pos + i)) & 1 } else { sbit };
        out |= bit << i;
    }
    k.ext(out)
}

fn bfi(bits: u32, insert: u64, base: u64, pos: u64, len: u64) -> u64 {
    let (pos, len) = ((pos & 0xFF) as u32, (len & 0xFF) as u32);
    let mut out = base;
    for i in 0..len {
        if pos + i >= bits {
            break;
        }
        out = (out & !(1 << (pos + i))) | (((insert >> i) & 1) << (pos + i));
    }
    out
}

fn fns(mask: u64, base: u64, offset: u64) -> u64 {
    let (mask, base, offset) = (mask as u32, base as u32, offset as u32 as i32);
    if offset == 0 {
        return if base < 32 && (mask >> base) & 1 == 1 { u64::from(base) } else { 0xFFFF_FFFF };
    }
    let step: i64 = if offset > 0 { 1 } else { -1 };
    let mut count = offset.unsigned_abs() - 1;
    let mut pos = i64::from(base);
    while (0..32).contains(&pos) {
        if (mask >> pos) & 1 == 1 {
            if count == 0 {
                return pos as u64;
            }
            count -= 1;
        }
        pos += step;
    }
    0xFFFF_FFFF
}

fn bmsk(pos: u64, width: u64, clamp: bool) -> u64 {
    let (p, wd) = if clamp { (pos.min(32), width.min(32)) } else { (pos & 31, width & 31) };
    let m = if wd >= 32 { u64::MAX } else { (1u64 << wd) - 1 };
    (m << p) & 0xFFFF_FFFF
}

fn szext(k: Ext, x: u64, n: u64, clamp: bool) -> u64 {
    let n = if clamp { n.min(32) } else { n & 31 };
    if n == 0 {
        return 0;
    }
    if n >= 32 {
        return k.ext(x);
    }
    let sh = 64 - n;
    if k.signed() {
        ((((x << sh) as i64) >> sh) as u64) & 0xFFFF_FFFF
    } else {
        (x << sh) >> sh
    }
}

/// Operations that take the value in `a` and parameters in `b` and `c`.
pub fn exec_unary(out: &mut Lanes, k: Ext, op: IntOp, a: &Lanes, b: &Lanes, c: &Lanes) {
    let bits = 64 - (k.zx(u64::MAX).leading_zeros());
    for (((o, &x), &y), &z) in out.iter_mut().zip(a).zip(b).zip(c) {
        *o = match op {
            IntOp::Popc => u64::from(k.zx(x).count_ones()),
            IntOp::Clz => u64::from(k.zx(x).leading_zeros() - (64 - bits)),
            IntOp::Brev => k.zx(x).reverse_bits() >> (64 - bits),
            IntOp::Bfind => bfind(k, bits, x, false),
            IntOp::BfindShiftAmt => bfind(k, bits, x, true),
            IntOp::Bfe => bfe(k, bits, x, y, z),
            IntOp::Fns => fns(x, y, z),
            IntOp::Bmsk => bmsk(x, y, false),
            IntOp::BmskClamp => bmsk(x, y, true),
            IntOp::Szext => szext(k, x, y, false),
            IntOp::SzextClamp => szext(k, x, y, true),
            _ => 0,
        };
    }
}

/// `bfi`: inserts the low `e` bits of `a` into `b` at bit `c`.
#[allow(clippy::too_many_arguments, reason = "the operands of one PTX instruction")]
pub fn exec_bfi(w: &mut Warp, env: &Env, ty: IntTy, d: Dst, a: Src, b: Src, c: Src, e: Src, mask: u32) {
    let k = Ext::new(ty);
    let mut out = ZERO;
    for (lane, o) in out.iter_mut().enumerate() {
        let v = bfi(
            ty.bits,
            w.read_lane(a, lane, env),
            w.read_lane(b, lane, env),
            w.read_lane(c, lane, env),
            w.read_lane(e, lane, env),
        );
        *o = k.ext(v);
    }
    w.write(d, &out, mask);
}

fn prmt(a: u64, b: u64, c: u64, mode: Option<PrmtMode>) -> u64 {
    let bytes = (a & 0xFFFF_FFFF) | ((b & 0xFFFF_FFFF) << 32);
    let byte = |i: u64| (bytes >> ((i & 7) * 8)) & 0xFF;
    let n = c & 3;
    let mut out = 0u64;
    for i in 0..4u64 {
        let v = match mode {
            None => {
                let sel = (c >> (4 * i)) & 0xF;
                let v = byte(sel & 7);
                if sel & 8 != 0 {
                    if v & 0x80 != 0 {
                        0xFF
                    } else {
                        0
                    }
                } else {
                    v
                }
            }
            Some(PrmtMode::F4e) => byte(n + i),
            Some(PrmtMode::B4e) => byte((n + 8 - i) & 7),
            Some(PrmtMode::Rc8) => byte(n),
            Some(PrmtMode::Ecl) => byte(i.max(n)),
            Some(PrmtMode::Ecr) => byte(i.min(n)),
            Some(PrmtMode::Rc16) => byte((n & 1) * 2 + (i & 1)),
        };
        out |= v << (8 * i);
    }
    out
}

fn lop3(a: u64, b: u64, c: u64, lut: u64) -> u64 {
    let mut r = 0u64;
    for i in 0..8 {
        if (lut >> i) & 1 == 1 {
            let fa = if i & 4 != 0 { a } else { !a };
            let fb = if i & 2 != 0 { b } else { !b };
            let fc = if i & 1 != 0 { c } else { !c };
            r |= fa & fb & fc;
        }
    }
    r & 0xFFFF_FFFF
}

fn shf(a: u64, b: u64, c: u64, left: bool, clamp: bool) -> u64 {
    let n = if clamp { (c & 0xFFFF_FFFF).min(32) } else { c & 31 };
    let v = (a & 0xFFFF_FFFF) | ((b & 0xFFFF_FFFF) << 32);
    if left {
        ((u128::from(v) << n) >> 32) as u64 & 0xFFFF_FFFF
    } else {
        (v >> n) & 0xFFFF_FFFF
    }
}

fn sbyte(v: u64, i: u64, signed: bool) -> i64 {
    let b = (v >> (8 * i)) & 0xFF;
    if signed {
        i64::from(b as u8 as i8)
    } else {
        b as i64
    }
}

fn shalf(v: u64, i: u64, signed: bool) -> i64 {
    let h = (v >> (16 * i)) & 0xFFFF;
    if signed {
        i64::from(h as u16 as i16)
    } else {
        h as i64
    }
}

/// A three-source bit operation, one lane at a time.
pub enum Bits3 {
    /// `prmt` with its mode.
    Prmt(Option<PrmtMode>),
    /// `lop3` with its look-up table operand.
    Lop3(Src),
    /// `shf`: left, clamp.
    Shf(bool, bool),
    /// `dp4a`: signedness of a and b.
    Dp4a(bool, bool),
    /// `dp2a`: signedness of a and b, high half of b.
    Dp2a(bool, bool, bool),
}

/// Executes a [`Bits3`] operation.
#[allow(clippy::too_many_arguments, reason = "the operands of one PTX instruction")]
pub fn exec3(w: &mut Warp, env: &Env, kind: Bits3, d: Dst, a: Src, b: Src, c: Src, mask: u32) {
    let mut out = ZERO;
    for (lane, o) in out.iter_mut().enumerate() {
        if (mask >> lane) & 1 == 0 {
            continue;
        }
        let (x, y, z) = (w.read_lane(a, lane, env), w.read_lane(b, lane, env), w.read_lane(c, lane, env));
        *o = match kind {
            Bits3::Prmt(mode) => prmt(x, y, z, mode),
            Bits3::Lop3(lut) => lop3(x, y, z, w.read_lane(lut, lane, env)),
            Bits3::Shf(left, clamp) => shf(x, y, z, left, clamp),
            Bits3::Dp4a(sa, sb) => {
                let dot: i64 = (0..4).map(|i| sbyte(x, i, sa) * sbyte(y, i, sb)).sum();
                (z as u32).wrapping_add(dot as u32) as u64
            }
            Bits3::Dp2a(sa, sb, hi) => {
                let off = if hi { 2 } else { 0 };
                let dot: i64 = (0..2).map(|i| shalf(x, i, sa) * sbyte(y, i + off, sb)).sum();
                (z as u32).wrapping_add(dot as u32) as u64
            }
        };
    }
    w.write(d, &out, mask);
}

/// `mov` of a vector into one wide register: element 0 in the low bits.
pub fn exec_pack(w: &mut Warp, env: &Env, d: Dst, parts: &[Src], part_bits: u32, mask: u32) {
    let m = if part_bits >= 64 { u64::MAX } else { (1u64 << part_bits) - 1 };
    let mut out = ZERO;
    for (lane, o) in out.iter_mut().enumerate() {
        *o = parts
            .iter()
            .enumerate()
            .fold(0u64, |acc, (i, p)| acc | ((w.read_lane(*p, lane, env) & m) << (part_bits as usize * i)));
    }
    w.write(d, &out, mask);
}

/// `mov` of one wide register into a vector: element 0 from the low bits.
pub fn exec_unpack(w: &mut Warp, env: &Env, ds: &[Dst], a: Src, part_bits: u32, mask: u32) {
    let mut vals = alloc::vec![ZERO; ds.len()];
    for lane in 0..32 {
        let v = w.read_lane(a, lane, env);
        for (i, out) in vals.iter_mut().enumerate() {
            let sh = part_bits as usize * i;
            out[lane] = if sh >= 64 { 0 } else { v >> sh };
        }
    }
    for (d, v) in ds.iter().zip(&vals) {
        w.write(*d, v, mask);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn corpus_values() {
        let u32t = Ext::new(IntTy { bits: 32, signed: false });
        assert_eq!(bfe(u32t, 32, 0b11111000_11000001_00100010_10100000, 16, 8), 0b11000001);
        assert_eq!(prmt(0x70c5_07d6, 0x6fbd_4b5c, 30212, None), 0x6fbd_d65c);
        assert_eq!(shf(0x1234_5678, 0x9abc_def0, 12, true, true), 0xcdef_0123);
        let dot: i64 = (0..4).map(|i| sbyte(0x8e2d_a590, i, true) * sbyte(0xedea_ee14, i, true)).sum();
        assert_eq!((0x248a_9f70u32).wrapping_add(dot as u32), 613_065_134);
        assert_eq!(bfind(Ext::new(IntTy { bits: 32, signed: true }), 32, 0xFFFF_FFFF, false), 0xFFFF_FFFF);
        assert_eq!(bfind(u32t, 32, 0x10, true), 27);
        assert_eq!(lop3(0xF0, 0xCC, 0xAA, 0x80), 0x80);
        assert_eq!(fns(0b1011, 0, 2), 1);
        assert_eq!(bfi(32, 0xF, 0, 4, 4), 0xF0);
        assert_eq!(bmsk(4, 4, false), 0xF0);
    }
}
