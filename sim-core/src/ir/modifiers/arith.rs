//! Modifier values of arithmetic, comparison and logic instructions.
//!
//! ```text
//! setp.ltu.and.ftz.f32 ...; cvt.rni.s32.f32 ...; shf.l.clamp.b32 ...;
//! ```

use crate::ir::types::keyword_enum;

keyword_enum! {
    /// Rounding modes: floating-point (`.rn` …) and round-to-integer (`.rni` …) for `cvt`.
    Rounding {
        /// Round to nearest even.
        Rn = ".rn",
        /// Round towards zero.
        Rz = ".rz",
        /// Round towards minus infinity.
        Rm = ".rm",
        /// Round towards plus infinity.
        Rp = ".rp",
        /// Round to nearest, ties away from zero (`cvt.rna.tf32.f32`).
        Rna = ".rna",
        /// Stochastic rounding (`cvt.rs`).
        Rs = ".rs",
        /// Round to nearest even integer.
        Rni = ".rni",
        /// Round towards zero to an integer.
        Rzi = ".rzi",
        /// Round towards minus infinity to an integer.
        Rmi = ".rmi",
        /// Round towards plus infinity to an integer.
        Rpi = ".rpi",
    }
}

keyword_enum! {
    /// Precision of a floating-point operation that has an approximate form.
    Precision {
        /// Fast approximation (`.approx`).
        Approx = ".approx",
        /// Full-range approximation (`div.full.f32`).
        Full = ".full",
    }
}

keyword_enum! {
    /// Which half of a double-width product an integer multiply keeps.
    MulMode {
        /// High half.
        Hi = ".hi",
        /// Low half.
        Lo = ".lo",
        /// The whole double-width product.
        Wide = ".wide",
    }
}

keyword_enum! {
    /// Comparison operators of `set`, `setp`, `vset` (unsigned `lo/ls/hi/hs`, unordered `…u`).
    CmpOp {
        /// Equal.
        Eq = ".eq",
        /// Not equal.
        Ne = ".ne",
        /// Less than.
        Lt = ".lt",
        /// Less or equal.
        Le = ".le",
        /// Greater than.
        Gt = ".gt",
        /// Greater or equal.
        Ge = ".ge",
        /// Unsigned lower.
        Lo = ".lo",
        /// Unsigned lower or same.
        Ls = ".ls",
        /// Unsigned higher.
        Hi = ".hi",
        /// Unsigned higher or same.
        Hs = ".hs",
        /// Equal or unordered.
        Equ = ".equ",
        /// Not equal or unordered.
        Neu = ".neu",
        /// Less than or unordered.
        Ltu = ".ltu",
        /// Less or equal or unordered.
        Leu = ".leu",
        /// Greater than or unordered.
        Gtu = ".gtu",
        /// Greater or equal or unordered.
        Geu = ".geu",
        /// Both numbers (ordered).
        Num = ".num",
        /// Either is NaN (unordered).
        Nan = ".nan",
    }
}

keyword_enum! {
    /// Boolean combination of `set`/`setp` with a predicate, and `lop3`'s predicate form.
    BoolOp {
        /// And.
        And = ".and",
        /// Or.
        Or = ".or",
        /// Exclusive or.
        Xor = ".xor",
    }
}

keyword_enum! {
    /// Properties `testp` tests.
    TestpOp {
        /// Not infinite and not NaN.
        Finite = ".finite",
        /// Infinite.
        Infinite = ".infinite",
        /// Not NaN.
        Number = ".number",
        /// NaN.
        NotANumber = ".notanumber",
        /// Normal.
        Normal = ".normal",
        /// Subnormal.
        Subnormal = ".subnormal",
    }
}

keyword_enum! {
    /// Special modes of `prmt`.
    PrmtMode {
        /// Forward 4 extract.
        F4e = ".f4e",
        /// Backward 4 extract.
        B4e = ".b4e",
        /// Replicate 8.
        Rc8 = ".rc8",
        /// Edge clamp left.
        Ecl = ".ecl",
        /// Edge clamp right.
        Ecr = ".ecr",
        /// Replicate 16.
        Rc16 = ".rc16",
    }
}

keyword_enum! {
    /// Direction of `shf`.
    ShiftDir {
        /// Left.
        L = ".l",
        /// Right.
        R = ".r",
    }
}

keyword_enum! {
    /// Shift-amount handling of `shf`.
    FunnelMode {
        /// Amount taken modulo 32.
        Wrap = ".wrap",
        /// Amount clamped to 32.
        Clamp = ".clamp",
    }
}
