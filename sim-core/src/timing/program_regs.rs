//! Register assignment: the physical registers — and, for packing schemes, the 4-bit slices of
//! them — that each register operand of an instruction occupies. The bank side of the timing
//! model (banks, collectors, caches) sees these; the scoreboard and the value statistics keep the
//! PTX virtual register units, because dependences and reads per value are properties of values,
//! not of where they are stored.
//!
//! ```text
//! add.s32 %r3, %r1, %r2;   // scoreboard: units [1, 2] → [3] · banks: allocator's R0, R2 → R0
//! ```
//!
//! The banks see the allocator's assignment ([`crate::analysis::Allocation::physical`] of the
//! definitions reaching each use). A unit the allocator gives no register — a rematerialised value
//! (kernel parameter, immediate, launch constant) or the high half of a zero-extended 64-bit value —
//! keeps its access, under the id [`UNALLOCATED`] + its virtual unit, so register-file access
//! counts do not depend on the assignment. With
//! [`crate::timing::TimingOptions::virtual_register_banks`] (a study) the banks see the virtual
//! units, as before register assignment. A scheme may override where any value lives
//! ([`RegisterAssignment`]): a value in two physical registers then costs two bank accesses.

use alloc::collections::BTreeMap;
use alloc::string::String;
use alloc::vec::Vec;

use crate::analysis::{AllocTarget, KernelAnalysis, ModuleAnalysis, RangeSeeds};
use crate::ir::{Handle, Inst, Module, Reg};

/// One physical register of a value and the 4-bit slices of it the value occupies (bit `i`:
/// bits `4i..4i + 4`; [`WHOLE`] for a full 32-bit register).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct PhysSlice {
    /// Physical register number.
    pub reg: u32,
    /// Occupied slices.
    pub slices: u8,
}

/// All eight slices of a 32-bit register.
pub const WHOLE: u8 = 0xff;

/// Bank-side id base of a unit without an allocated register (its virtual unit is added; a power
/// of two, so bank = id mod banks is the virtual unit's bank, as before assignment).
pub const UNALLOCATED: u32 = 1 << 24;

/// A scheme's changes to the allocator's assignment.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RegisterAssignment {
    /// Per (function raw handle, definition id in its [`crate::analysis::DefUse`]): where the
    /// value that definition belongs to lives. Values not named keep the allocator's registers.
    pub values: BTreeMap<(u32, u32), Vec<PhysSlice>>,
    /// Per function raw handle: registers per thread under this assignment (not named: the
    /// allocator's estimate). The user's "ptxas says N" still wins for occupancy.
    pub registers: BTreeMap<u32, u32>,
    /// What the pass may know besides the module (filled in before it runs).
    pub inputs: AssignInputs,
}

/// What a register assignment pass knows of the launch and the target besides the module:
/// filled in by the simulation before the pass runs (a pass that needs none ignores them).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct AssignInputs {
    /// Launch facts for the range analysis (grid and CTA dimensions, user-given parameter
    /// ranges); `None`: architectural limits only.
    pub seeds: Option<RangeSeeds>,
    /// The GPU generation the register estimate is for (`None`: the module's `.target`).
    pub target: Option<AllocTarget>,
    /// Per (function raw handle, register raw handle): the total bits of a reduced float format
    /// chosen for that register (precision tuning); not named: full width.
    pub float_bits: BTreeMap<(u32, u32), u8>,
}

/// A scheme's register assignment pass: given the module and its analyses (the allocator's
/// assignment included), fills in the changes, or says why it cannot.
pub type AssignRegisters = fn(&Module, &ModuleAnalysis, &mut RegisterAssignment) -> Result<(), String>;

/// Places the register operands of one function's instructions.
pub(crate) struct Placer<'a> {
    /// The function's raw handle.
    pub func: u32,
    /// Its analyses (`None`: no allocation, every unit unallocated).
    pub analysis: Option<&'a KernelAnalysis>,
    /// The scheme's changes.
    pub changes: &'a RegisterAssignment,
    /// Banks see the allocator's registers (the default; off with
    /// [`crate::timing::TimingOptions::virtual_register_banks`]); else the virtual units, as
    /// before register assignment (the scheme's changes still apply).
    pub physical: bool,
}

impl Placer<'_> {
    /// Appends the bank-side ids and slices of register `r` (virtual units `units`) as `inst`
    /// reads it (`read`) or writes it.
    pub fn place(&self, inst: Handle<Inst>, r: Handle<Reg>, units: &[u32], read: bool, out: &mut Vec<(u32, u8)>) {
        let fallback = |u: u32| (UNALLOCATED.saturating_add(u), WHOLE);
        let Some(a) = self.analysis.filter(|_| self.physical || !self.changes.values.is_empty()) else {
            let base = if self.physical { UNALLOCATED } else { 0 };
            out.extend(units.iter().map(|&u| (base.saturating_add(u), WHOLE)));
            return;
        };
        let du = &a.def_use;
        let is_r = |d: &u32| du.defs().get(*d as usize).is_some_and(|x| x.reg == r);
        let defs: &[u32] = if read {
            let u = du.uses_at(inst).iter().find(|&&u| du.uses().get(u as usize).is_some_and(|x| x.reg == r));
            u.map_or(&[], |&u| du.reaching(u))
        } else {
            du.defs_at(inst).iter().position(is_r).and_then(|i| du.defs_at(inst).get(i..=i)).unwrap_or(&[])
        };
        if let Some(v) = defs.iter().find_map(|d| self.changes.values.get(&(self.func, *d))) {
            out.extend(v.iter().map(|p| (p.reg, p.slices)));
            return;
        }
        if !self.physical {
            out.extend(units.iter().map(|&u| (u, WHOLE)));
            return;
        }
        let phys = defs.iter().find_map(|&d| a.allocation.physical(d));
        for (k, &u) in units.iter().enumerate() {
            let reg = phys.clone().and_then(|p| p.clone().nth(k));
            out.push(reg.map_or_else(|| fallback(u), |x| (x, WHOLE)));
        }
    }
}

/// Runs `assign` over `module` and its analyses: the scheme's changes.
pub fn scheme_assignment(
    module: &Module,
    analysis: &ModuleAnalysis,
    assign: Option<AssignRegisters>,
) -> Result<RegisterAssignment, String> {
    scheme_assignment_with(module, analysis, assign, AssignInputs::default())
}

/// Runs `assign` over `module` and its analyses, telling it `inputs`: the scheme's changes.
pub fn scheme_assignment_with(
    module: &Module,
    analysis: &ModuleAnalysis,
    assign: Option<AssignRegisters>,
    inputs: AssignInputs,
) -> Result<RegisterAssignment, String> {
    let mut changes = RegisterAssignment { inputs, ..RegisterAssignment::default() };
    if let Some(f) = assign {
        f(module, analysis, &mut changes)?;
    }
    Ok(changes)
}

#[cfg(test)]
mod tests {
    use super::{PhysSlice, RegisterAssignment, UNALLOCATED, WHOLE};
    use crate::analysis::ModuleAnalysis;
    use crate::gpu::presets;
    use crate::ir::{Function, Handle, Module};
    use crate::timing::Program;
    use alloc::string::String;
    use alloc::vec;
    use alloc::vec::Vec;

    /// Three chains x (%f0 → %f4 → %f8 → %f12), y (%f1 → …), z (%f2 → …), from
    /// `tests/cases/timing/independent_warps.ptx`; units %f0..%f15 → 0..15.
    const CHAINS: &str = ".version 7.0\n.target sm_90\n.address_size 64\n\
        .visible .entry k(.param .u64 out)\n{\n.reg .f32 %f<16>;\nmov.f32 %f0, 0f3F800000;\n\
        mov.f32 %f1, 0f3F800000;\nmov.f32 %f2, 0f3F800000;\nadd.f32 %f4, %f0, 0f3F800000;\n\
        add.f32 %f5, %f1, 0f3F800000;\nadd.f32 %f6, %f2, 0f3F800000;\nadd.f32 %f8, %f4, 0f3F800000;\n\
        add.f32 %f9, %f5, 0f3F800000;\nadd.f32 %f10, %f6, 0f3F800000;\nadd.f32 %f12, %f8, 0f3F800000;\n\
        add.f32 %f13, %f9, 0f3F800000;\nadd.f32 %f14, %f10, 0f3F800000;\nret;\n}\n";

    fn decoded(physical: bool, assign: Option<super::AssignRegisters>) -> Option<Program> {
        let module = crate::ptx::compile(CHAINS).ok()?;
        Program::decode_assigned(&module, &presets::hopper_h100(), physical, assign).ok()
    }

    /// (bank reads, bank writes) of instructions 3..=11 (the adds).
    fn banks(p: &Program) -> Vec<(Vec<u32>, Vec<u32>)> {
        (3..12).map(|s| (p.bank_reads(s).to_vec(), p.bank_writes(s).to_vec())).collect()
    }

    #[test]
    fn banks_see_the_allocators_registers_and_the_scoreboard_the_units() {
        let (virt, phys) = (decoded(false, None), decoded(true, None));
        assert!(virt.is_some() && phys.is_some(), "decoding failed");
        let (Some(virt), Some(phys)) = (virt, phys) else { return };
        // Virtual: the units as before (%f0 → 0 …).
        assert_eq!(banks(&virt).first(), Some(&(vec![0], vec![4])));
        // Allocated (R1 is the stack pointer): x's %f4, %f8 → R0 (each dies where the next is
        // defined), y → R2, z → R3; %f12..%f14 are never read and share R0. The movs of an
        // immediate are rematerialised: their reads keep an access, as UNALLOCATED + unit.
        let u = |k: u32| UNALLOCATED + k;
        let expected: Vec<(Vec<u32>, Vec<u32>)> =
            [(u(0), 0), (u(1), 2), (u(2), 3), (0, 0), (2, 2), (3, 3), (0, 0), (2, 0), (3, 0)]
                .iter()
                .map(|&(r, w)| (vec![r], vec![w]))
                .collect();
        assert_eq!(banks(&phys), expected);
        // The scoreboard's ids and the access counts do not change.
        assert!(virt.insts.iter().zip(&phys.insts).all(|(a, b)| virt.reads_of(a) == phys.reads_of(b)));
        assert_eq!(virt.bank_regs.len(), phys.bank_regs.len());
    }

    /// Packs %f4 (written by instruction 3) into slices 0–3 of R5 and 4–7 of R6.
    fn split_f4(m: &Module, a: &ModuleAnalysis, out: &mut RegisterAssignment) -> Result<(), String> {
        let f = Handle::<Function>::from_index(0);
        let _ = m;
        let du = &a.get(f).ok_or("no analysis")?.def_use;
        let d = *du.defs_at(Handle::from_index(3)).first().ok_or("no definition")?;
        out.values.insert((0, d), vec![PhysSlice { reg: 5, slices: 0x0f }, PhysSlice { reg: 6, slices: 0xf0 }]);
        out.registers.insert(0, 7);
        Ok(())
    }

    #[test]
    fn a_scheme_places_a_value_in_two_registers_and_it_costs_two_bank_accesses() {
        let p = decoded(true, Some(split_f4));
        assert!(p.is_some(), "decoding failed");
        let Some(p) = p else { return };
        // Instruction 3 writes %f4 into R5 and R6; instruction 6 reads it from both: two bank
        // accesses each, with their slices; the kernel's registers are the scheme's 7.
        assert_eq!((p.bank_reads(3), p.bank_writes(3)), (&[UNALLOCATED][..], &[5, 6][..]));
        assert_eq!(p.bank_reads(6), &[5, 6]);
        let (a, r, _) = p.bank_at.get(6).copied().unwrap_or_default();
        assert_eq!(r, 2);
        assert_eq!(p.bank_slices.get(a as usize..a as usize + 2), Some(&[0x0f, 0xf0][..]));
        assert_eq!(p.kernels.first().map(|k| k.allocated_registers), Some(7));
        // The same change applies with banks on virtual units (the scheme's own values move).
        let v = decoded(false, Some(split_f4));
        assert!(v.is_some(), "decoding failed");
        let Some(v) = v else { return };
        assert_eq!((v.bank_reads(6), v.bank_writes(6)), (&[5, 6][..], &[8][..]));
        assert_eq!(v.bank_slices.first(), Some(&WHOLE));
    }
}
