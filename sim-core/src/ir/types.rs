//! PTX data types, register width classes, state spaces and vector widths.
//!
//! ```text
//! .reg .f64 %fd<4>;          // Type::F64, WidthClass::B64
//! ld.shared.v2.f32 ...;      // StateSpace::Shared, VecWidth::V2, Type::F32
//! ```

macro_rules! keyword_enum {
    ($(#[$meta:meta])* $name:ident { $($(#[$vmeta:meta])* $variant:ident = $text:literal,)* }) => {
        $(#[$meta])*
        #[derive(
            Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize,
        )]
        pub enum $name {
            $($(#[$vmeta])* $variant,)*
        }

        impl $name {
            /// Every value, in declaration order.
            pub const ALL: &'static [$name] = &[$($name::$variant,)*];

            /// The PTX spelling, with its leading dot where it has one.
            pub fn as_str(self) -> &'static str {
                match self {
                    $($name::$variant => $text,)*
                }
            }

            /// The value spelled `text` (with its leading dot where it has one).
            pub fn from_keyword(text: &str) -> Option<Self> {
                match text {
                    $($text => Some($name::$variant),)*
                    _ => None,
                }
            }
        }

        impl core::fmt::Display for $name {
            fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
                f.write_str(self.as_str())
            }
        }
    };
}
pub(crate) use keyword_enum;

keyword_enum! {
    /// A PTX fundamental type (also the opaque texture, sampler and surface reference types).
    Type {
        /// Predicate (1 bit).
        Pred = ".pred",
        /// Untyped bits.
        B8 = ".b8",
        /// Untyped bits.
        B16 = ".b16",
        /// Untyped bits.
        B32 = ".b32",
        /// Untyped bits.
        B64 = ".b64",
        /// Untyped bits (ld/st/mov of 128-bit values, PTX 8.3+).
        B128 = ".b128",
        /// Unsigned integer.
        U8 = ".u8",
        /// Unsigned integer.
        U16 = ".u16",
        /// Unsigned integer.
        U32 = ".u32",
        /// Unsigned integer.
        U64 = ".u64",
        /// Signed integer.
        S8 = ".s8",
        /// Signed integer.
        S16 = ".s16",
        /// Signed integer.
        S32 = ".s32",
        /// Signed integer.
        S64 = ".s64",
        /// IEEE half precision.
        F16 = ".f16",
        /// Two packed halves in 32 bits.
        F16x2 = ".f16x2",
        /// bfloat16.
        Bf16 = ".bf16",
        /// Two packed bfloat16 in 32 bits.
        Bf16x2 = ".bf16x2",
        /// IEEE single precision.
        F32 = ".f32",
        /// IEEE double precision.
        F64 = ".f64",
        /// TensorFloat-32 (stored in 32 bits).
        Tf32 = ".tf32",
        /// FP8 with 4 exponent and 3 mantissa bits.
        E4m3 = ".e4m3",
        /// FP8 with 5 exponent and 2 mantissa bits.
        E5m2 = ".e5m2",
        /// Two packed e4m3 in 16 bits.
        E4m3x2 = ".e4m3x2",
        /// Two packed e5m2 in 16 bits.
        E5m2x2 = ".e5m2x2",
        /// FP6 (e2m3), tensor-core operand type.
        E2m3 = ".e2m3",
        /// FP6 (e3m2), tensor-core operand type.
        E3m2 = ".e3m2",
        /// FP4 (e2m1), tensor-core operand type.
        E2m1 = ".e2m1",
        /// Two packed e2m1 in 8 bits.
        E2m1x2 = ".e2m1x2",
        /// Two packed e2m3 in 16 bits.
        E2m3x2 = ".e2m3x2",
        /// Two packed e3m2 in 16 bits.
        E3m2x2 = ".e3m2x2",
        /// Two packed ue8m0 scale factors in 16 bits.
        Ue8m0x2 = ".ue8m0x2",
        /// Four-bit signed integer (tensor-core operand type).
        S4 = ".s4",
        /// Four-bit unsigned integer (tensor-core operand type).
        U4 = ".u4",
        /// Single bit (tensor-core operand type).
        B1 = ".b1",
        /// Opaque texture reference (`.texref`).
        TexRef = ".texref",
        /// Opaque sampler reference (`.samplerref`).
        SamplerRef = ".samplerref",
        /// Opaque surface reference (`.surfref`).
        SurfRef = ".surfref",
    }
}

impl Type {
    /// Size in bits (predicates count 1; sub-byte tensor types their packed width; opaque
    /// references 64).
    pub fn bits(self) -> u32 {
        use Type::*;
        match self {
            Pred | B1 => 1,
            S4 | U4 | E2m1 => 4,
            E2m3 | E3m2 => 6,
            B8 | U8 | S8 | E4m3 | E5m2 | E2m1x2 => 8,
            B16 | U16 | S16 | F16 | Bf16 | E4m3x2 | E5m2x2 | E2m3x2 | E3m2x2 | Ue8m0x2 => 16,
            B32 | U32 | S32 | F32 | F16x2 | Bf16x2 | Tf32 => 32,
            B64 | U64 | S64 | F64 | TexRef | SamplerRef | SurfRef => 64,
            B128 => 128,
        }
    }

    /// Size in bytes when stored in memory (at least 1).
    pub fn size_bytes(self) -> u32 {
        self.bits().div_ceil(8)
    }

    /// Signed integer types.
    pub fn is_signed_int(self) -> bool {
        matches!(self, Type::S8 | Type::S16 | Type::S32 | Type::S64 | Type::S4)
    }

    /// Unsigned integer types.
    pub fn is_unsigned_int(self) -> bool {
        matches!(self, Type::U8 | Type::U16 | Type::U32 | Type::U64 | Type::U4)
    }

    /// Untyped bit types.
    pub fn is_bits(self) -> bool {
        matches!(self, Type::B1 | Type::B8 | Type::B16 | Type::B32 | Type::B64 | Type::B128)
    }

    /// Integer or bit types (anything an integer instruction may operate on).
    pub fn is_integer(self) -> bool {
        self.is_signed_int() || self.is_unsigned_int() || self.is_bits()
    }

    /// Floating-point types, packed or not, including the narrow tensor-core formats.
    pub fn is_float(self) -> bool {
        use Type::*;
        matches!(
            self,
            F16 | F16x2
                | Bf16
                | Bf16x2
                | F32
                | F64
                | Tf32
                | E4m3
                | E5m2
                | E4m3x2
                | E5m2x2
                | E2m3
                | E3m2
                | E2m1
                | E2m1x2
                | E2m3x2
                | E3m2x2
                | Ue8m0x2
        )
    }

    /// The opaque reference types (`.texref`, `.samplerref`, `.surfref`).
    pub fn is_opaque(self) -> bool {
        matches!(self, Type::TexRef | Type::SamplerRef | Type::SurfRef)
    }

    /// The register width class a register of this type occupies.
    pub fn width_class(self) -> WidthClass {
        match self.bits() {
            1 => WidthClass::Pred,
            0..=16 => WidthClass::B16,
            17..=32 => WidthClass::B32,
            33..=64 => WidthClass::B64,
            _ => WidthClass::B128,
        }
    }
}

keyword_enum! {
    /// How much of the register file a register occupies: the unit of allocation is a 32-bit
    /// register, 64-bit values take an aligned pair and 128-bit values an aligned quad; predicates
    /// live in the separate predicate file; 8- and 16-bit registers take a 32-bit register
    /// (class `B16` keeps the distinction for packing schemes).
    WidthClass {
        /// Predicate register (separate file).
        Pred = "pred",
        /// 8- or 16-bit value.
        B16 = "b16",
        /// 32-bit value: one register.
        B32 = "b32",
        /// 64-bit value: an aligned register pair.
        B64 = "b64",
        /// 128-bit value: an aligned group of four registers.
        B128 = "b128",
    }
}

impl WidthClass {
    /// Number of 32-bit register units (predicates: 0, they live in their own file).
    pub fn units32(self) -> u32 {
        match self {
            WidthClass::Pred => 0,
            WidthClass::B16 | WidthClass::B32 => 1,
            WidthClass::B64 => 2,
            WidthClass::B128 => 4,
        }
    }
}

keyword_enum! {
    /// A PTX state space (where a variable lives or which memory an access targets). The generic
    /// address space is the absence of a state space (`Option<StateSpace>::None`).
    StateSpace {
        /// Registers.
        Reg = ".reg",
        /// Special registers.
        Sreg = ".sreg",
        /// Constant memory.
        Const = ".const",
        /// Global memory.
        Global = ".global",
        /// Per-thread local memory.
        Local = ".local",
        /// Kernel or function parameters.
        Param = ".param",
        /// Kernel parameters (`.param::entry`).
        ParamEntry = ".param::entry",
        /// Function parameters (`.param::func`).
        ParamFunc = ".param::func",
        /// Shared memory of the executing CTA (plain `.shared`).
        Shared = ".shared",
        /// Shared memory of the executing CTA, spelled `.shared::cta`.
        SharedCta = ".shared::cta",
        /// Shared memory of any CTA in the cluster (`.shared::cluster`).
        SharedCluster = ".shared::cluster",
        /// Texture memory (old `.tex` variables).
        Tex = ".tex",
    }
}

impl StateSpace {
    /// True for the three spellings of shared memory.
    pub fn is_shared(self) -> bool {
        matches!(self, StateSpace::Shared | StateSpace::SharedCta | StateSpace::SharedCluster)
    }

    /// True for the three spellings of parameter space.
    pub fn is_param(self) -> bool {
        matches!(self, StateSpace::Param | StateSpace::ParamEntry | StateSpace::ParamFunc)
    }
}

keyword_enum! {
    /// Vector width of a memory access or variable (`.v2`, `.v4`, `.v8`).
    VecWidth {
        /// Two elements.
        V2 = ".v2",
        /// Four elements.
        V4 = ".v4",
        /// Eight elements (256-bit loads on sm_100+).
        V8 = ".v8",
    }
}

impl VecWidth {
    /// Number of elements.
    pub fn len(self) -> usize {
        match self {
            VecWidth::V2 => 2,
            VecWidth::V4 => 4,
            VecWidth::V8 => 8,
        }
    }

    /// Never empty (for symmetry with `len`).
    pub fn is_empty(self) -> bool {
        false
    }

    /// The width with `n` elements.
    pub fn from_len(n: usize) -> Option<Self> {
        match n {
            2 => Some(VecWidth::V2),
            4 => Some(VecWidth::V4),
            8 => Some(VecWidth::V8),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spelling_round_trips() {
        for t in Type::ALL {
            assert_eq!(Type::from_keyword(t.as_str()), Some(*t));
        }
        for s in StateSpace::ALL {
            assert_eq!(StateSpace::from_keyword(s.as_str()), Some(*s));
        }
        assert_eq!(Type::from_keyword(".u33"), None);
    }

    #[test]
    fn widths() {
        assert_eq!(Type::F64.width_class(), WidthClass::B64);
        assert_eq!(Type::U16.width_class(), WidthClass::B16);
        assert_eq!(Type::Pred.width_class(), WidthClass::Pred);
        assert_eq!(Type::F16x2.width_class(), WidthClass::B32);
        assert_eq!(WidthClass::B64.units32(), 2);
        assert_eq!(Type::E4m3.size_bytes(), 1);
    }
}
