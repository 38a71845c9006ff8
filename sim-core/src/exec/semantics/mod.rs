//! The meaning of each instruction family, lane by lane. Every function here takes the warp, the
//! CTA's special-register values and the lanes that execute (active and guard true), reads its
//! sources, and writes its destinations only in those lanes.
//!
//! ```text
//! add.rz.f32 %f1, %f2, %f3;   // float::exec → round::round(two_sum(a, b), F32, Zero)
//! ```
//!
//! | module | instructions |
//! |---|---|
//! | [`access`] | checked loads and stores in every space, one-window fast path |
//! | [`int`] | integer arithmetic, logic, shifts, carry chains |
//! | [`bits`] | popc/clz/brev/bfind/bfe/bfi/fns/bmsk/szext, prmt, lop3, shf, dp4a/dp2a, vector moves |
//! | [`round`] | correctly rounded conversion of exact values into any small float format |
//! | [`float`] | f32/f64/f16/bf16 (and x2) arithmetic with rounding modes, ftz, sat, relu |
//! | [`compare`] | setp, set, selp, slct, testp, predicate logic |
//! | [`convert`] | cvt in all combinations, f16/bf16/fp8 packing |
//! | [`memory_ops`] | ld/st/atom/red/cp.async |
//! | [`warp_ops`] | vote, shfl, activemask, redux, match, elect |
//! | [`tensor`] | mma (m16n8k8/k16, f16/bf16), ldmatrix |
//! | [`wmma`] | wmma.load/mma/store (m16n16k16, m32n8k16, m8n32k16; f16/bf16 → f16/f32) |
//! | [`tensor_int`] | integer mma (s8/u8 m8n8k16, m16n8k16/k32; s4/u4 m8n8k32, m16n8k32/k64) |
//! | [`video`] | scalar video instructions: vadd/vsub/vabsdiff/vmin/vmax/vshl/vshr/vmad/vset |
//! | [`texture`] | tex and tld4 on 1D and 2D textures (references and objects) |

pub mod access;
pub mod bits;
pub mod compare;
pub mod convert;
pub mod float;
pub mod int;
pub mod memory_ops;
pub mod round;
pub mod tensor;
pub mod tensor_int;
pub mod texture;
pub mod video;
pub mod warp_ops;
pub mod wmma;
