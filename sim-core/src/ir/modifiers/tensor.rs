//! Modifier values of tensor-core instructions (the shape is `Shape`).
//!
//! ```text
//! wmma.load.a.sync.aligned.row.m16n16k16.f16 ...; ldmatrix.sync.aligned.m8n8.x4.trans ...;
//! ```

use crate::ir::types::keyword_enum;

keyword_enum! {
    /// Matrix layout of a tensor-core operand.
    Layout {
        /// Row major.
        Row = ".row",
        /// Column major.
        Col = ".col",
    }
}

keyword_enum! {
    /// Which matrix fragment a `wmma.load`/`wmma.store` moves.
    Frag {
        /// Multiplicand A.
        A = ".a",
        /// Multiplicand B.
        B = ".b",
        /// Accumulator C.
        C = ".c",
        /// Result D.
        D = ".d",
    }
}

keyword_enum! {
    /// Number of 8x8 matrices `ldmatrix`/`stmatrix` move.
    MatrixCount {
        /// One.
        X1 = ".x1",
        /// Two.
        X2 = ".x2",
        /// Four.
        X4 = ".x4",
    }
}
