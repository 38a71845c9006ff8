//! ptxas's dead-code removal, as far as it matters for registers: a copy of a function without
//! the computations whose results nothing reads, so that their sources are not held for them.
//! Only the register estimate reads the copy; the IR is not changed.
//!
//! ```text
//! $L: cvt.u64.u32 %rd3, %r13;        // copied:
//!     mul.wide.u32 %rd4, %r13, 4;    // $L: mul.wide.u32 %rd4, %r13, 4;
//!     add.u64 %rd5, %rd2, %rd4;      //     add.u64 %rd5, %rd2, %rd4;
//!     ld.global.u32 %r16, [%rd5];    //     ld.global.u32 %r16, [%rd5];
//!     …                              //     …   (%rd3 is read nowhere)
//! ```
//!
//! Why: the old nvcc front end (Open64) left widening conversions nothing reads in front of
//! every address computation (`cvt.u64.u32 %rd3, %r13` above, from the SDK's
//! `mergeHistogram64Kernel`, `gpuocelot/sdk2.2__histogram64.ptx`). ptxas 12.6's sm_52 code of
//! that kernel has no instruction for them; in our unrolled loop ([`super::ptxas_unroll`]) the
//! latency schedule issues the four loads first and the dead conversions after them, which held
//! each copy of the index across the loads: 18 registers where ptxas has 15.
//!
//! Measured against ptxas 12.6 over the corpus (each file's own target): 282 of 358 kernels
//! within ±15% before, 291 after (nine in, none out); on the other targets the count within
//! ±15% rises on sm_52, sm_61, sm_70, sm_80, sm_86, sm_89 and sm_90 and falls by one on sm_75
//! (kernels whose dead conversion made up for an immediate ptxas holds in a register).
//!
//! The model (**A** beyond the kernel read above): an instruction is removed when it only
//! computes (arithmetic, logic, comparison, `mov`, conversions; no memory access, no carry
//! flag, no control), and no instruction that stays reads any register it writes; removal
//! repeats until nothing more goes. A function with no effect at all (no store, atomic, call,
//! barrier or other instruction beyond computations, loads and branches) is taken as written:
//! ptxas would delete all of it, while RegLab simulates its instructions, so its count is that of
//! the code as written (the hand-worked test kernels of `tests/cases/timing` are such functions).

use alloc::vec;
use alloc::vec::Vec;

use super::cfg::Cfg;
use super::def_use::DefUse;
use super::rebuild::{rebuild, Slot};
use crate::ir::{Function, Inst, Opcode};

/// `kernel` without its dead computations (module docs), or `None` when it has none.
pub fn without_dead_code(kernel: &Function) -> Option<Function> {
    let body = kernel.body.as_ref()?;
    if !body.insts.values().any(has_effect) {
        // Nothing it computes leaves the thread: taken as written (module docs).
        return None;
    }
    let cfg = Cfg::compute(kernel);
    let du = DefUse::compute(kernel, &cfg);
    // Mark what stays: every instruction that is not a pure computation, then, backwards through
    // the reaching definitions of what stays reads, every instruction that feeds it.
    let mut keep = vec![false; body.insts.len()];
    let mut work = Vec::new();
    for (h, inst) in body.insts.iter() {
        if !removable(inst) || du.defs_at(h).is_empty() {
            if let Some(k) = keep.get_mut(h.index()) {
                *k = true;
            }
            work.push(h);
        }
    }
    while let Some(h) = work.pop() {
        for &u in du.uses_at(h) {
            for &d in du.reaching(u) {
                let Some(def) = du.defs().get(d as usize) else { continue };
                if let Some(k) = keep.get_mut(def.inst.index()) {
                    if !*k {
                        *k = true;
                        work.push(def.inst);
                    }
                }
            }
        }
    }
    if keep.iter().all(|&k| k) {
        return None;
    }
    let new_body = rebuild(body, |_, insts| {
        insts
            .iter()
            .filter(|h| keep.get(h.index()).copied().unwrap_or(true))
            .filter_map(|&h| body.insts.get(h).map(|i| Slot { origin: h, inst: i.clone() }))
            .collect()
    });
    let mut out = kernel.clone();
    out.body = Some(new_body);
    Some(out)
}

/// Whether `inst` leaves something behind when the thread ends: a store, atomic, call, barrier,
/// … — not a computation, a load or a branch.
fn has_effect(inst: &Inst) -> bool {
    !removable(inst) && !matches!(inst.opcode, Opcode::Ld | Opcode::Ldu) && !inst.opcode.is_terminator()
}

/// Whether `inst` only computes registers from registers, so that it can go when nothing reads
/// what it writes.
fn removable(inst: &Inst) -> bool {
    inst.opcode.computes_registers_only() && !inst.mods.cc
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::alloc_target::AllocTarget;
    use crate::analysis::kernel::KernelAnalysis;
    use crate::analysis::test_util::passed;
    use alloc::string::String;

    fn cleaned(src: &str) -> Option<String> {
        passed(src, without_dead_code)
    }

    #[test]
    fn a_dead_chain_goes_and_loads_carry_writes_and_what_stores_read_stay() {
        let text = cleaned(
            ".reg .b32 %r<9>; .reg .b64 %rd<9>;
             mov.u32 %r1, %tid.x;
             cvt.u64.u32 %rd3, %r1;
             add.u64 %rd4, %rd3, 1;
             ld.param.u64 %rd1, [k_p0];
             ld.global.u32 %r2, [%rd1];
             add.cc.u32 %r3, %r1, 1;
             addc.u32 %r4, %r1, 0;
             mul.wide.u32 %rd5, %r1, 4;
             add.u64 %rd6, %rd1, %rd5;
             st.global.u32 [%rd6], %r4;
             ret;",
        )
        .unwrap_or_default();
        // %rd4 is read nowhere, so its add goes, and then %rd3's cvt, which only it read.
        assert!(!text.contains("cvt.u64.u32") && !text.contains("add.u64 %rd4"), "{text}");
        // The unread load (memory), the unread add.cc (carry flag) and the stored chain stay.
        for kept in ["ld.global.u32 %r2", "add.cc.u32 %r3", "addc.u32 %r4", "mul.wide.u32 %rd5", "st.global.u32"] {
            assert!(text.contains(kept), "{kept} missing in {text}");
        }
    }

    #[test]
    fn a_function_without_any_effect_is_taken_as_written() {
        // Only computations and a load: nothing leaves the thread, so nothing is removed.
        let src = ".reg .b32 %r<4>; .reg .b64 %rd<3>; ld.param.u64 %rd1, [k_p0]; mov.u32 %r1, %tid.x;
                   ld.global.u32 %r2, [%rd1]; add.u32 %r3, %r1, %r2; ret;";
        assert!(cleaned(src).is_none());
        // The same with a barrier: the add goes.
        let text = cleaned(&src.replace("ret;", "bar.sync 0; ret;")).unwrap_or_default();
        assert!(!text.contains("add.u32") && text.contains("ld.global.u32"), "{text}");
    }

    #[test]
    fn a_function_without_dead_code_is_not_copied() {
        assert!(cleaned(".reg .b32 %r<3>; .reg .b64 %rd<3>; ld.param.u64 %rd1, [k_p0]; mov.u32 %r1, %tid.x; st.global.u32 [%rd1], %r1; ret;").is_none());
    }

    /// `mergeHistogram64Kernel`'s summing loop (module docs), with or without the unread widening
    /// of the index in front of its address computation.
    fn merge_loop(dead: &str) -> String {
        alloc::format!(
            ".version 7.0\n.target sm_52\n.address_size 64\n
             .visible .entry merge(.param .u64 merge_partial, .param .u32 merge_n)
             {{
             .reg .pred %p<3>; .reg .b32 %r<20>; .reg .b64 %rd<12>;
             mov.u32 %r1, %tid.x;
             ld.param.u32 %r2, [merge_n];
             mul.lo.u32 %r11, %r1, 64;
             mul.lo.u32 %r12, %r2, 64;
             mov.u32 %r10, %ctaid.x;
             add.u32 %r13, %r10, %r11;
             ld.param.u64 %rd2, [merge_partial];
             mov.u32 %r14, 0;
             LOOP:
             {dead}
             mul.wide.u32 %rd4, %r13, 4;
             add.u64 %rd5, %rd2, %rd4;
             ld.global.u32 %r16, [%rd5];
             add.u32 %r14, %r16, %r14;
             add.u32 %r11, %r11, 16384;
             add.u32 %r13, %r13, 16384;
             setp.lt.u32 %p2, %r11, %r12;
             @%p2 bra LOOP;
             mul.wide.u32 %rd8, %r1, 4;
             add.u64 %rd9, %rd2, %rd8;
             st.global.u32 [%rd9], %r14;
             ret;
             }}"
        )
    }

    #[test]
    fn an_unread_conversion_holds_no_index_across_the_unrolled_loads() {
        let registers = |src: &str| {
            let m = crate::ptx::compile(src).unwrap_or_default();
            m.functions
                .values()
                .next()
                .map(|f| KernelAnalysis::compute_for(f, Default::default(), AllocTarget::sm(52)).allocation.registers())
        };
        // The loop is unrolled four times and its four loads issued first (ptxas_unroll,
        // latency_schedule): the three index copies are made, then the four 64-bit offsets.
        // After the last `mul.wide`: %r1 (R0, read after the loop), R1 (stack), %r11 and %r12
        // (R2, R3), %r14 (R5) and the last index copy (R8, stepped again at the loop's end) and
        // four aligned pairs R6:R7, R10:R11, R12:R13, R14:R15 (R4 and R9 free, but no aligned
        // pair fits there): 16; the parameters stay constant-bank operands. With the cvt kept,
        // each index copy lives on until its cvt, issued after the loads: 18.
        let clean = registers(&merge_loop(""));
        let with_dead = registers(&merge_loop("cvt.u64.u32 %rd3, %r13;"));
        assert_eq!(clean, with_dead);
        assert_eq!(clean, Some(16));
    }
}
