//! Per-instruction facts for listings (the CLI's `analyze --json` and the web app's listing),
//! filled in by each analysis. Facts from analyses that have not run yet keep their neutral value
//! and are plugged in with one call each: [`Annotations::set_widths`] (range analysis → needed
//! bitwidths), [`Annotations::mark_single_use_loads`] (DeMO), [`Annotations::mark_composite_pairs`]
//! (composite instructions).
//!
//! ```text
//! ld.global.u32 %r2, [%rd4];   // { live: 5, live_in: 4, defs: [{ %r2, bits: 32, signed: false,
//!                              //   uses: 1 }], uniform: false, single_use_load: false, … }
//! ```

use alloc::collections::BTreeSet;
use alloc::vec::Vec;

use serde::{Deserialize, Serialize};

use super::kernel::KernelAnalysis;
use crate::ir::{Function, Handle, Inst, Reg};

/// How wide a value is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Width {
    /// Bits the value needs.
    pub bits: u32,
    /// Whether it is signed.
    pub signed: bool,
}

/// The declared width of a register: its type's size and signedness (`.s32` → 32, signed).
pub fn declared_width(reg: &Reg) -> Width {
    Width { bits: reg.ty.bits(), signed: reg.ty.is_signed_int() }
}

/// One register an instruction writes.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct DefInfo {
    /// The register.
    pub reg: Handle<Reg>,
    /// Its width (declared until range analysis provides better).
    pub width: Width,
    /// Static uses of this definition.
    pub uses: u32,
}

/// What the analyses say about one instruction.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct InstInfo {
    /// The instruction.
    pub inst: Handle<Inst>,
    /// 32-bit units occupied right after it issues ([`super::liveness::Liveness::pressure`]).
    pub live: u32,
    /// 32-bit units live before it: FineReg's live vector at this PC, counted.
    pub live_in: u32,
    /// Registers it writes.
    pub defs: Vec<DefInfo>,
    /// Its results (or, without results, its operands) are uniform across the warp.
    pub uniform: bool,
    /// It is a load whose value is read exactly once and can become a direct memory operand.
    pub single_use_load: bool,
    /// It belongs to a composite-instruction pair.
    pub composite_pair: bool,
}

/// Per-instruction facts of one function, in layout order.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Annotations {
    /// One entry per instruction, in layout order.
    pub insts: Vec<InstInfo>,
}

impl Annotations {
    /// Collects what `analysis` knows about each instruction of `kernel`.
    pub fn compute(kernel: &Function, analysis: &KernelAnalysis) -> Annotations {
        let Some(body) = &kernel.body else { return Annotations::default() };
        let du = &analysis.def_use;
        let insts = body
            .insts_in_order()
            .map(|ih| InstInfo {
                inst: ih,
                live: analysis.liveness.pressure(ih),
                live_in: analysis.liveness.live_in(ih).count() as u32,
                defs: analysis
                    .use_counts
                    .at(du, ih)
                    .into_iter()
                    .filter_map(|(reg, uses)| {
                        body.regs.get(reg).map(|r| DefInfo { reg, width: declared_width(r), uses })
                    })
                    .collect(),
                uniform: analysis.uniformity.is_uniform(ih),
                single_use_load: false,
                composite_pair: false,
            })
            .collect();
        Annotations { insts }
    }

    /// Replaces definition widths where `width(inst, reg)` knows better (range analysis).
    pub fn set_widths(&mut self, width: impl Fn(Handle<Inst>, Handle<Reg>) -> Option<Width>) {
        for info in &mut self.insts {
            for d in &mut info.defs {
                if let Some(w) = width(info.inst, d.reg) {
                    d.width = w;
                }
            }
        }
    }

    /// Marks single-use loads (DeMO).
    pub fn mark_single_use_loads(&mut self, loads: impl IntoIterator<Item = Handle<Inst>>) {
        let loads: BTreeSet<Handle<Inst>> = loads.into_iter().collect();
        self.insts.iter_mut().filter(|i| loads.contains(&i.inst)).for_each(|i| i.single_use_load = true);
    }

    /// Marks both instructions of each composite pair.
    pub fn mark_composite_pairs(&mut self, pairs: impl IntoIterator<Item = (Handle<Inst>, Handle<Inst>)>) {
        let members: BTreeSet<Handle<Inst>> = pairs.into_iter().flat_map(|(a, b)| [a, b]).collect();
        self.insts.iter_mut().filter(|i| members.contains(&i.inst)).for_each(|i| i.composite_pair = true);
    }
}
