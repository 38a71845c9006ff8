//! What the register allocation estimate knows about the machine code ptxas generates for a
//! target: registers it reserves, and the scratch registers of PTX instructions that become
//! multi-instruction sequences in SASS.
//!
//! ```text
//! div.rn.f32 %f3, %f1, %f2;    // sm_52: a Newton–Raphson sequence with a slow path: +8 registers
//! mul.wide.u32 %rd1, %r1, %r2; // sm_52: four XMADs with partial products: +5; sm_80: one IMAD.WIDE
//! ```
//!
//! Every number here was measured with ptxas 12.6 (`-v`) on one-instruction kernels (load two
//! operands through a pointer, apply the instruction, store the result), as the difference from
//! the same kernel with a plain `add` of the same type; see `docs/fidelity/registers.md`. Facts
//! measured the same way: R1 is the stack pointer in every kernel (so it is never allocated), and
//! on sm_70 and later except sm_75 ptxas reports two registers more than on sm_52 for the same
//! code and at least 8 for any kernel that computes something; sm_75 reports two more without
//! that minimum, and every target from sm_70 on reports 2 + 2 = 4 for a kernel that computes
//! nothing (`ret;` alone: 2 registers on sm_52 and sm_61, 4 on sm_70 … sm_90). Turing and later keep warp-uniform integer values in uniform registers, which
//! the count leaves out (see `alloc_uniform`).
//!
//! Read in sm_52 machine code (ptxas 12.6, disassembled with nvdisasm 11.8 from Debian's
//! `nvidia-cuda-toolkit`, the newest that still reads Maxwell): a generic load or store (no state
//! space) through a pointer converts the pointer first (`LEA R2.CC, R0, RZ; LEA.HI.X P0, R3, R0,
//! RZ, R3`: a new pair beside the old high half) and then uses `LD.E`/`ST.E`; ZLUDA's `prmt` test
//! kernel takes 8 registers with generic accesses and 7 with `.global` ones.

use crate::ir::{Address, AddressBase, Inst, Module, Opcode, Operand, Precision, TargetOption, Type};

/// The GPU generation the estimate is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AllocTarget {
    /// The compute capability as written in `sm_XY` (52, 80, 90).
    pub sm: u32,
    /// The module is compiled for debugging (`.target sm_XY, debug`): ptxas then translates each
    /// PTX instruction on its own (see [`Self::debug`]).
    pub debug: bool,
}

impl Default for AllocTarget {
    fn default() -> Self {
        AllocTarget::sm(52)
    }
}

impl AllocTarget {
    /// Optimised code for `sm_XY` = `sm`.
    pub const fn sm(sm: u32) -> AllocTarget {
        AllocTarget { sm, debug: false }
    }

    /// The target of a module's `.target sm_XY` (sm_52 if it cannot be read; targets older than
    /// sm_50, which today's ptxas no longer accepts, are estimated as sm_52), debug code if the
    /// module says `debug`.
    pub fn of_module(module: &Module) -> AllocTarget {
        let digits: alloc::string::String =
            module.target.arch.trim_start_matches("sm_").chars().take_while(char::is_ascii_digit).collect();
        let sm = digits.parse().unwrap_or(52);
        AllocTarget::sm(if sm < 50 { 52 } else { sm }).compiling(module)
    }

    /// This target for `module`'s code: debug code if its `.target` says `debug` (whatever GPU
    /// the estimate is for, the compile mode is the module's).
    pub fn compiling(self, module: &Module) -> AllocTarget {
        AllocTarget { debug: self.debug || module.target.options.contains(&TargetOption::Debug), ..self }
    }

    /// Whether ptxas compiles without optimisation, as it does for a `debug` module (the code
    /// `nvcc -G` generates). Read in ptxas 12.6's code of the corpus's three debug kernels
    /// (sm_52, sm_80, sm_89): every parameter is loaded into registers at the kernel's start
    /// (`LDC.64 R2, c[0x0][R2+0x160]`, then copied to its home `MOV R9, R2`), launch constants
    /// are moved into a register before use (`MOV R5, c[0x0][0x0]`), instructions stay in PTX
    /// order, no loop is unrolled, no uniform register holds a value, and from sm_80 on the
    /// memory descriptor sits in a regular pair (`MOV R10, c[0x0][0x118]`, read by `R2UR UR4,
    /// R10` before each access). Registers are still reused once a value is dead.
    pub fn debug(self) -> bool {
        self.debug
    }

    /// Registers a debug kernel keeps for the whole kernel besides its values: the memory
    /// descriptor pair from sm_80 on (see [`Self::debug`]).
    pub fn debug_reserved(self) -> u32 {
        if self.debug && self.sm >= 80 {
            2
        } else {
            0
        }
    }

    /// Volta and later, Turing aside: integer multiply in one IMAD, two registers reported more.
    fn volta_like(self) -> bool {
        self.sm >= 70 && self.sm != 75
    }

    /// Integer multiplies are single instructions (IMAD) from sm_70 on; XMAD sequences before.
    fn has_imad(self) -> bool {
        self.sm >= 70
    }

    /// Whether ptxas loads constant-bank operands that must sit in registers (pointer
    /// parameters used as addresses) at the top of the block, scheduled ahead of the loads whose
    /// latency they hide, rather than just before their first use.
    pub fn hoists_constants(self) -> bool {
        true
    }

    /// Turing and later have uniform registers, which `ptxas -v` does not count (debug code
    /// does not use them).
    pub fn has_uniform_registers(self) -> bool {
        self.sm >= 75 && !self.debug
    }

    /// Whether memory instructions read their address from a uniform register (`[UR4+0x8]`), so
    /// a warp-uniform address needs no regular register: Turing only. ptxas 12.6's sm_75 code of
    /// a kernel whose every access is at a uniform address (parameter, `%ctaid`-indexed global
    /// and shared elements) forms the addresses in uniform registers and takes them there in
    /// `LDG`, `STG`, `LDS`, `STS`, `ATOMG` and `RED` alike (7 registers); its sm_80 code of the
    /// same kernel moves them into register pairs (`LDG.E R0, [R2.64]`, 14 registers), the
    /// uniform slot of sm_80's memory instructions holding the memory descriptor
    /// (`ULDC.64 UR6, c[0x0][0x118]`), as on sm_86, sm_89 and sm_90. ZLUDA's one-instruction
    /// test kernels, which load and store through their pointer parameters, take 6 registers
    /// on sm_75 and 10 on sm_70 and sm_80.
    pub fn uniform_addresses(self) -> bool {
        self.sm == 75
    }

    /// Whether ptxas places the operands of one instruction in different register banks where
    /// it can (Maxwell and Pascal: four banks, register index mod 4). Read in sm_52 code: ZLUDA's
    /// `prmt` kernel with `.global` accesses loads its second operand into R5 with R4 free, as
    /// `PRMT R0, R0, 0x7604, R5` then reads R0 and R5 from different banks; a grid-stride vector
    /// add keeps `%nctaid.x` in R9 with R8 free, beside R0 in `XMAD R0, R9, c[0x0][0x8], R0`.
    /// Not modelled from Volta on (two banks there, not read).
    pub fn avoids_bank_conflicts(self) -> bool {
        self.sm < 70 && !self.debug
    }

    /// Whether a 64- or 128-bit value starts at a multiple of its size (optimised code; debug
    /// code places it at any register, see [`Self::debug`]).
    pub fn aligns_wide_values(self) -> bool {
        !self.debug
    }

    /// Whether ptxas issues a `setp` that reads a value for the last time as soon as its operands
    /// are ready, ahead of other ready instructions: before sm_70 (sm_52 code of ZLUDA's
    /// `setp_nan`: each `FSETP.NAN` right after its two loads; from sm_70 on all eight loads
    /// issue before the first compare).
    pub fn issues_compares_first(self) -> bool {
        self.sm < 70
    }

    /// Whether ptxas copies a 64-bit store pointer that a one-block loop steps in place, storing
    /// through the copy (before sm_70; see `ptxas_pointer_copy`).
    pub fn copies_stepped_pointers(self) -> bool {
        self.sm < 70
    }

    /// What the reported count adds to the registers an allocation uses: the reserved stack
    /// pointer, and from sm_70 on the two more ptxas reports (see [`Self::reported_with_spill`]).
    pub fn reported_overhead(self) -> u32 {
        self.reserved_register() + if self.sm >= 70 { 2 } else { 0 }
    }

    /// The register reserved in every kernel (the stack pointer R1).
    pub fn reserved_register(self) -> u32 {
        1
    }

    /// The most registers a thread may have on this target (255 from sm_35 on, 63 before).
    pub fn max_registers(self) -> u32 {
        if self.sm >= 35 {
            255
        } else {
            63
        }
    }

    /// The count ptxas reports for a kernel whose allocation uses registers `0..used`, and the
    /// bytes per thread it would spill to local memory (`ptxas -v`'s "spill stores") when that
    /// exceeds [`Self::max_registers`]: 4 bytes for each register over the limit.
    pub fn reported_with_spill(self, used: u32, trivial: bool) -> (u32, u32) {
        let wanted = self.reported(used, trivial);
        let cap = self.max_registers();
        (wanted.min(cap), wanted.saturating_sub(cap) * 4)
    }

    /// The count ptxas would report for registers `0..used` without the per-thread limit.
    fn reported(self, used: u32, trivial: bool) -> u32 {
        let used = used.max(2);
        if self.volta_like() && !trivial {
            (used + 2).max(8)
        } else if self.sm >= 70 {
            // sm_75, and a kernel that computes nothing on any target from sm_70 on (4 registers
            // for `ret;` with ptxas 12.6 on sm_70 … sm_90; 2 on sm_52 and sm_61).
            used + 2
        } else {
            used
        }
    }

    /// Scratch registers the SASS sequence for `inst` needs besides its operands.
    pub fn scratch(self, inst: &Inst) -> u32 {
        let ty = inst.ty();
        let imm = inst.uses().iter().any(|op| matches!(op, Operand::Imm(_)));
        let approx = inst.mods.precision == Some(Precision::Approx);
        let f64 = ty == Some(Type::F64);
        let wide = ty.is_some_and(|t| t.bits() == 64);
        let signed = ty.is_some_and(Type::is_signed_int);
        let old = !self.has_imad();
        use Opcode::*;
        match inst.opcode {
            Div if ty == Some(Type::F32) && inst.mods.rounding.is_some() => 8,
            Div if f64 => 14,
            Rcp if f64 && !approx => 4,
            Rcp if ty == Some(Type::F32) && !approx => 8,
            Sqrt if f64 => 10,
            Sqrt if ty == Some(Type::F32) && !approx => 4,
            Rsqrt if f64 => 5,
            Div | Rem if wide && !imm => 13 + 2 * u32::from(signed),
            Div | Rem if !imm && ty.is_some_and(Type::is_integer) => {
                if old {
                    7 + 2 * u32::from(signed)
                } else {
                    4 + 2 * u32::from(signed)
                }
            }
            Mul | Mad if wide && !imm && inst.mods.mul_mode == Some(crate::ir::MulMode::Hi) => {
                if old {
                    14
                } else {
                    6
                }
            }
            Mul | Mad if wide && !imm && inst.mods.mul_mode != Some(crate::ir::MulMode::Wide) => {
                if old {
                    10
                } else {
                    2
                }
            }
            Mul | Mad if old && !imm && inst.mods.mul_mode == Some(crate::ir::MulMode::Hi) => 2,
            Mul | Mad if old && !imm && inst.mods.mul_mode == Some(crate::ir::MulMode::Wide) => 5,
            Mul | Mad | Mul24 | Mad24 if old && !imm && ty.is_some_and(Type::is_integer) => 1,
            Cvt if old && inst.types.iter().any(|t| t == Type::F64) && inst.types.iter().any(|t| t != Type::F64) => 2,
            // Generic (no state space) access before sm_70: ptxas converts the 64-bit address
            // with `LEA Rlo.CC, Rsrc, RZ; LEA.HI.X P0, Rhi, Rsrc, RZ, Rsrc_hi` into a new aligned
            // pair while the source's high half is still held: one register more.
            Ld | Ldu | St | Atom | Red if old && inst.mods.space.is_none() && register_address(inst) => 1,
            _ => 0,
        }
    }
}

/// Whether `inst` reads memory at an address held in a register.
fn register_address(inst: &Inst) -> bool {
    inst.uses().iter().any(|op| matches!(op, Operand::Address(Address { base: AddressBase::Reg(_), .. })))
}
