//! Register allocation estimate: how many 32-bit registers per thread a real allocator (ptxas)
//! would assign, by colouring the interference graph of allocation values.
//!
//! ```text
//! ld.param.u64 %rd1, [p];          // rematerialised: a constant-bank operand, no register
//! mov.u32 %r1, %tid.x;             // R0
//! mul.wide.u32 %rd2, %r1, 4;       // R2:R3 (64-bit values take an aligned pair)
//! add.s64 %rd3, %rd1, %rd2;        // R2:R3 again (%rd2 dies here); %rd1 needs a pair here only
//! ld.global.f32 %f1, [%rd3];       // R0 — 4 registers in all
//! ```
//!
//! Steps: webs and rematerialisable values ([`super::alloc_values`]); liveness of webs; the
//! interference graph (a definition interferes with everything live after it, except the source
//! of a copy); aggressive coalescing of copies whose ends do not interfere, innermost loops first;
//! then greedy colouring in dominator-tree order of the first definition (optimal for the chordal
//! graphs of SSA-like code), each value taking the lowest free run of 1, 2 or 4 units aligned to
//! its size, R1 excepted (the stack pointer). Predicates live in their own file and are only
//! counted. Target facts (scratch registers of multi-instruction SASS sequences, what ptxas
//! reports on Volta and later) are in [`AllocTarget`].
//!
//! The result is an estimate: ptxas also schedules, unrolls, folds and spills. The committed
//! comparison with ptxas over the corpus is `docs/fidelity/registers.md`.

use alloc::vec;
use alloc::vec::Vec;

use super::alloc_target::AllocTarget;
use super::alloc_uniform::uniform_webs;
use super::alloc_values::{Values, Web};
use super::cfg::Cfg;
use super::def_use::{DefId, DefUse};
use super::dominators::Dominators;
use super::interference::{Graph, Groups};
use super::liveness::Liveness;
use super::loops::Loops;
use super::uniformity::Uniformity;
use crate::ir::{Block, Function, Handle, Inst};

/// A register assignment for one function.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Allocation {
    registers: u32,
    ptx_order_registers: u32,
    spill_bytes: u32,
    predicates: u32,
    start: Vec<Option<u32>>,
    web_of_def: Vec<u32>,
    units: Vec<u32>,
    across_calls: Vec<(Handle<Inst>, u32)>,
}

impl Allocation {
    /// Allocates registers for `kernel`, without uniform registers ([`Self::compute_uniform`] with
    /// no uniformity).
    pub fn compute(
        kernel: &Function,
        cfg: &Cfg,
        dom: &Dominators,
        loops: &Loops,
        du: &DefUse,
        live: &Liveness,
        target: AllocTarget,
    ) -> Allocation {
        Allocation::compute_uniform(kernel, cfg, dom, loops, du, live, None, target)
    }

    /// Allocates registers for `kernel`; with `uniformity`, on targets that have them, warp-uniform
    /// integer values take uniform registers, which the count leaves out (as
    /// [`super::KernelAnalysis`] does). The count also follows ptxas's early loads of parameters
    /// (`AllocTarget::hoists_constants`) and, before Volta, its register-bank spacing of one
    /// instruction's operands (`AllocTarget::avoids_bank_conflicts`). The physical registers
    /// ([`Self::physical`], which the timing model's banks see) stay those of the allocation
    /// without these refinements, so that they change occupancy only, not which bank a value
    /// sits in.
    #[allow(clippy::too_many_arguments, reason = "the analyses the allocation reads, as in compute")]
    pub fn compute_uniform(
        kernel: &Function,
        cfg: &Cfg,
        dom: &Dominators,
        loops: &Loops,
        du: &DefUse,
        live: &Liveness,
        uniformity: Option<&Uniformity>,
        target: AllocTarget,
    ) -> Allocation {
        let plain = Allocation::assign(kernel, cfg, dom, loops, du, live, None, target, false);
        if uniformity.is_none() && !target.hoists_constants() {
            return plain;
        }
        let model = Allocation::assign(kernel, cfg, dom, loops, du, live, uniformity, target, true);
        Allocation {
            registers: model.registers,
            ptx_order_registers: model.registers,
            spill_bytes: model.spill_bytes,
            across_calls: model.across_calls,
            ..plain
        }
    }

    /// One colouring: with `uniformity`, uniform registers; with `hoist`, parameters loaded early.
    #[allow(clippy::too_many_arguments, reason = "the analyses the allocation reads, and two switches")]
    fn assign(
        kernel: &Function,
        cfg: &Cfg,
        dom: &Dominators,
        loops: &Loops,
        du: &DefUse,
        live: &Liveness,
        uniformity: Option<&Uniformity>,
        target: AllocTarget,
        hoist: bool,
    ) -> Allocation {
        let Some(body) = &kernel.body else { return Allocation::default() };
        let mut values = Values::compute(kernel, du);
        if target.debug() {
            // Debug code keeps every value in a register from its definition on, parameters
            // and constants included (see AllocTarget::debug).
            values.remat.iter_mut().for_each(|r| *r = false);
        }
        if let Some(u) = uniformity.filter(|_| target.has_uniform_registers()) {
            values.uniform_addresses = target.uniform_addresses();
            values.uniform = uniform_webs(body, du, &values, u);
            for (w, &ur) in values.uniform.iter().enumerate() {
                values.remat[w] |= ur;
            }
        }
        let sinks = values.sink_points(body, cfg, dom, loops, du, hoist && target.hoists_constants());
        let graph = Graph::build(body, cfg, du, &values, &sinks, target);
        let mut groups = Groups::new(graph.adj.clone(), graph.units.clone());
        groups.aligned = target.aligns_wide_values();
        groups.coalesce(&values, loops, cfg);
        let order = colour_order(cfg, dom, du, &values, &groups, &sinks, &graph.scratch);
        // Register banks refine the count only, like the two switches (see compute_uniform).
        let banks = (hoist && target.avoids_bank_conflicts()).then_some(graph.co_read.as_slice());
        let start = groups.colour(&order, target.reserved_register(), banks);
        let units: Vec<u32> = (0..groups.n).map(|w| groups.units[w]).collect();
        let used =
            (0..groups.n).filter_map(|w| start[w].map(|s| s + units[w])).max().unwrap_or(0) + target.debug_reserved();
        let trivial = body.insts.values().all(|i| i.opcode.is_terminator());
        let (registers, spill_bytes) = target.reported_with_spill(used, trivial);
        let predicates = body.insts.handles().map(|ih| live.pred_live_in(ih).count() as u32).max().unwrap_or(0);
        let across_calls =
            cfg.call_sites().iter().map(|c| (c.inst, graph.live_across(c.inst, &groups, &start))).collect();
        // Each web takes its coalesced group's registers.
        let start = (0..groups.n as u32).map(|w| start[groups.find_const(w) as usize]).collect();
        Allocation {
            registers,
            ptx_order_registers: registers,
            spill_bytes,
            predicates,
            start,
            web_of_def: values.web_of_def,
            units,
            across_calls,
        }
    }

    /// This allocation's physical registers with the count (registers, spill, registers live
    /// across calls) of `model`, an allocation of the same function in another instruction order
    /// (see [`super::latency_schedule`]).
    pub(super) fn with_count_of(self, model: Allocation, limit: u32) -> Allocation {
        let capped = model.registers > limit;
        Allocation {
            registers: model.registers.min(limit),
            ptx_order_registers: self.registers,
            spill_bytes: if capped { self.spill_bytes } else { model.spill_bytes },
            across_calls: model.across_calls,
            predicates: model.predicates.max(self.predicates),
            ..self
        }
    }

    /// 32-bit registers per thread for this function alone (callees not included).
    pub fn registers(&self) -> u32 {
        self.registers
    }

    /// Registers per thread of the same estimate with the instructions in PTX order (no loop
    /// unrolled, no load issued early): what a pass that allocates in PTX order compares with.
    pub fn ptx_order_registers(&self) -> u32 {
        self.ptx_order_registers
    }

    /// Bytes per thread spilled to local memory because the estimate exceeds the target's
    /// maximum registers per thread (0 almost always; `registers` is then that maximum).
    pub fn spill_bytes(&self) -> u32 {
        self.spill_bytes
    }

    /// Predicate registers live at once (at most 7 exist per thread on NVIDIA GPUs).
    pub fn predicates(&self) -> u32 {
        self.predicates
    }

    /// The physical registers of definition `d` (`None` if rematerialised or unknown).
    pub fn physical(&self, d: DefId) -> Option<core::ops::Range<u32>> {
        let w = *self.web_of_def.get(d as usize)? as usize;
        let s = self.start.get(w).copied().flatten()?;
        Some(s..s + self.units.get(w).copied().unwrap_or(1))
    }

    /// For each `call`, the registers holding values live across it.
    pub fn live_across_calls(&self) -> &[(Handle<Inst>, u32)] {
        &self.across_calls
    }
}

/// Groups in dominator-tree preorder of their first definition (address temporaries at their
/// instruction), so every value is coloured after the values live where it is defined.
fn colour_order(
    cfg: &Cfg,
    dom: &Dominators,
    du: &DefUse,
    values: &Values,
    groups: &Groups,
    sinks: &[(Handle<Inst>, Web)],
    scratch: &[Handle<Inst>],
) -> Vec<u32> {
    let mut block_rank = vec![u32::MAX; cfg.len()];
    let mut stack: Vec<Handle<Block>> = cfg.entry().into_iter().collect();
    let mut next = 0u32;
    while let Some(b) = stack.pop() {
        block_rank[b.index()] = next;
        next += 1;
        let mut kids: Vec<Handle<Block>> = dom.children(b).collect();
        kids.reverse();
        stack.extend(kids);
    }
    let key = |ih: Handle<Inst>| cfg.position(ih).map_or((u32::MAX, 0), |(b, i)| (block_rank[b.index()], i as u32));
    let mut first: Vec<(u32, u32)> = vec![(u32::MAX, u32::MAX); groups.n];
    for (d, def) in du.defs().iter().enumerate() {
        let w = groups.find_const(values.web_of_def[d]) as usize;
        first[w] = first[w].min(key(def.inst));
    }
    for (i, &ih) in scratch.iter().enumerate() {
        first[values.len() + i] = key(ih);
    }
    for &(ih, w) in sinks {
        let g = groups.find_const(w) as usize;
        first[g] = first[g].min(key(ih));
    }
    let mut order: Vec<u32> = (0..groups.n as u32).collect();
    crate::sorting::sort_by_key(&mut order, |&g| (first[g as usize], g));
    order
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::test_util::kernel;
    use alloc::format;
    use alloc::string::String;

    #[test]
    fn a_schedule_count_over_its_limit_is_held_there_without_spill() {
        let ptx_order = Allocation { registers: 30, ..Allocation::default() };
        let scheduled = Allocation { registers: 36, ..Allocation::default() };
        let held = ptx_order.clone().with_count_of(scheduled.clone(), 32);
        assert_eq!((held.registers(), held.ptx_order_registers(), held.spill_bytes()), (32, 30, 0));
        // Under the limit the schedule's count stands, and the physical registers stay the PTX
        // order's.
        let kept = ptx_order.clone().with_count_of(scheduled, 40);
        assert_eq!((kept.registers(), kept.ptx_order_registers()), (36, 30));
        assert_eq!(kept.start, ptx_order.start);
    }

    fn allocate(body: &str, sm: u32) -> Allocation {
        allocate_first(&kernel(body), sm)
    }

    fn allocate_first(m: &crate::ir::Module, sm: u32) -> Allocation {
        let f = &m.functions[Handle::from_index(0)];
        let cfg = Cfg::compute(f);
        let dom = Dominators::compute(&cfg);
        let pdom = crate::analysis::dominators::PostDominators::compute(&cfg);
        let loops = Loops::compute(&cfg, &dom);
        let du = DefUse::compute(f, &cfg);
        let live = Liveness::compute(f, &cfg);
        let uni = Uniformity::compute(f, &cfg, &pdom, &du, Default::default());
        Allocation::compute_uniform(f, &cfg, &dom, &loops, &du, &live, Some(&uni), AllocTarget::sm(sm))
    }

    #[test]
    fn constant_memory_values_are_operands_not_registers() {
        // `ld.const` of a `.const` variable is a constant-bank operand in SASS (`FFMA R0, R0,
        // c[0x3][0x0], c[0x3][0x4]`, as in ptxas 12.6's sm_52 code of the SDK's `updateGridD`):
        // no register. Left: %rd1 (R2:R3, the load's and the store's address), %f1 → %f5 → %f6
        // (R0), and R1 reserved: 4. Were the three constants in registers, all live at the fma
        // with %f1 and %rd1: 7.
        let src = ".version 7.0\n.target sm_52\n.address_size 64\n.const .align 4 .f32 coef[4];\n\
            .visible .entry k(.param .u64 k_p0)\n{\n.reg .f32 %f<8>; .reg .b64 %rd<3>;\n\
            ld.param.u64 %rd1, [k_p0];\n\
            ld.global.f32 %f1, [%rd1];\n\
            ld.const.f32 %f2, [coef];\n\
            ld.const.f32 %f3, [coef+4];\n\
            ld.const.f32 %f4, [coef+8];\n\
            fma.rn.f32 %f5, %f1, %f2, %f3;\n\
            mul.f32 %f6, %f5, %f4;\n\
            st.global.f32 [%rd1], %f6;\n\
            ret;\n}\n";
        let m = crate::ptx::compile(src).unwrap_or_default();
        assert_eq!(allocate_first(&m, 52).registers(), 4);
    }

    #[test]
    fn the_generic_stack_address_is_uniform_on_turing_and_later() {
        // `cvta.local` of the local depot is the stack pointer plus the local window's base, the
        // same for every thread: ptxas 12.6 keeps it in uniform registers on sm_75 (`ULDC.64
        // UR4, c[0x0][0x20]`, then `ST.E.SYS [R1.U32+UR4]`; in the corpus's Kokkos kernels for
        // sm_80 `R2UR UR13, R1; UIADD3 UR6, UP0, UR13, c[0x0][0x20]`), so %SP takes no register
        // while the loads are in flight. R1 reserved; %r1 (tid) R0 dies at the multiply;
        // %rd2, then %rd1, R2:R3; the four loads R0, R4, R5, R6 (issued together) → R0…R6, 7
        // used, + 2 = 9, as ptxas reports for this kernel. With %SP in a regular pair from the
        // start: 11.
        let src = ".version 7.0\n.target sm_75\n.address_size 64\n\
            .visible .entry k(.param .u64 k_p)\n{\n.local .align 8 .b8 depot[16];\n\
            .reg .b64 %SP; .reg .b64 %SPL; .reg .b32 %r<8>; .reg .b64 %rd<4>;\n\
            mov.u64 %SPL, depot;\n\
            cvta.local.u64 %SP, %SPL;\n\
            ld.param.u64 %rd3, [k_p];\n\
            mov.u32 %r1, %tid.x;\n\
            mul.wide.u32 %rd2, %r1, 16;\n\
            add.s64 %rd1, %rd3, %rd2;\n\
            ld.global.u32 %r2, [%rd1];\n\
            ld.global.u32 %r3, [%rd1+4];\n\
            ld.global.u32 %r4, [%rd1+8];\n\
            ld.global.u32 %r5, [%rd1+12];\n\
            xor.b32 %r6, %r2, %r3;\n\
            xor.b32 %r6, %r6, %r4;\n\
            xor.b32 %r6, %r6, %r5;\n\
            st.u32 [%SP], %r6;\n\
            ld.u32 %r7, [%SP];\n\
            st.global.u32 [%rd1], %r7;\n\
            ret;\n}\n";
        let m = crate::ptx::compile(src).unwrap_or_default();
        assert_eq!(allocate_first(&m, 75).registers(), 9);
    }

    #[test]
    fn turing_takes_uniform_addresses_from_uniform_registers() {
        // Every address here is the same for the whole warp: the global element `p[%ctaid.x]`,
        // the shared word `sh[%ctaid.x]` and the output `q + 4`. ptxas 12.6 on sm_75 forms them
        // in uniform registers and addresses memory from there (`S2UR UR6, SR_CTAID.X;
        // UIMAD.WIDE.U32 UR4, UR6, UR7, UR4; LDG.E.SYS R0, [UR4]; STS [UR4], R0; STG.E.SYS
        // [UR6+0x4], R0`): the loaded value in R0 is the only regular register besides R1 → 2
        // used, + 2 = 4, ptxas's count. On sm_80 the memory instructions' uniform operand holds
        // the memory descriptor, so the addresses sit in registers (`S2R R0, SR_CTAID.X;
        // IMAD.WIDE.U32 R2, R0, R3, c[0x0][0x160]; LDG.E R3, [R2.64]; STG.E [R4.64+0x4], R3;
        // STS [R0], R3`): %r2 (ctaid) R0, %rd5 R2:R3, the value R3 once %rd5 dies, %rd6 R4:R5
        // → 6 used, + 2 = 8, ptxas's count on sm_80.
        let kernel = |sm: u32| {
            format!(
                ".version 7.0\n.target sm_{sm}\n.address_size 64\n\
                 .visible .entry k(.param .u64 p, .param .u64 q)\n{{\n\
                 .shared .align 4 .b8 sh[1024];\n\
                 .reg .b32 %r<6>; .reg .b64 %rd<7>; .reg .f32 %f<2>;\n\
                 ld.param.u64 %rd1, [p];\n\
                 ld.param.u64 %rd2, [q];\n\
                 cvta.to.global.u64 %rd3, %rd1;\n\
                 mov.u32 %r2, %ctaid.x;\n\
                 mul.wide.u32 %rd4, %r2, 4;\n\
                 add.s64 %rd5, %rd3, %rd4;\n\
                 ld.global.f32 %f1, [%rd5];\n\
                 mov.u32 %r3, sh;\n\
                 shl.b32 %r4, %r2, 2;\n\
                 add.s32 %r5, %r3, %r4;\n\
                 st.shared.f32 [%r5], %f1;\n\
                 cvta.to.global.u64 %rd6, %rd2;\n\
                 st.global.f32 [%rd6+4], %f1;\n\
                 ret;\n}}\n"
            )
        };
        let turing = crate::ptx::compile(&kernel(75)).unwrap_or_default();
        assert_eq!(allocate_first(&turing, 75).registers(), 4);
        let ampere = crate::ptx::compile(&kernel(80)).unwrap_or_default();
        assert_eq!(allocate_first(&ampere, 80).registers(), 8);
    }

    #[test]
    fn turing_reports_two_more_without_the_volta_minimum() {
        // Same code as below: 2 registers on sm_52, 2 + 2 = 4 on sm_75 (ptxas 12.6), 8 on sm_80.
        let body = ".reg .b32 %r<3>;
             mov.u32 %r1, %tid.x;
             add.s32 %r2, %r1, 1;
             st.global.u32 [0], %r2;
             ret;";
        assert_eq!(allocate(body, 75).registers(), 4);
    }

    #[test]
    fn uniform_integer_values_take_no_register_on_turing_and_later() {
        // %r1 (ctaid) and %r2 = %r1 * 4 are warp-uniform integer values that only uniform
        // instructions and a store read: uniform registers on sm_75+ (S2UR, UIMAD), copied to a
        // register only as the stored data. sm_52: %r1 in R0 dies at the mul, %r2 takes R0 and
        // lives to the last store, %r3 (tid) takes R2 → 3 registers.
        let body = ".reg .b32 %r<4>;
             mov.u32 %r1, %ctaid.x;
             mul.lo.u32 %r2, %r1, 4;
             mov.u32 %r3, %tid.x;
             st.global.u32 [0], %r3;
             st.global.u32 [8], %r2;
             ret;";
        assert_eq!(allocate(body, 52).registers(), 3);
        // sm_75: %r3 in R0 dies at the first store; %r2 is copied from its uniform register into
        // R0 just before the second → 1, at least 2, + 2 = 4.
        assert_eq!(allocate(body, 75).registers(), 4);
    }

    #[test]
    fn grid_index_arithmetic_read_per_thread_stays_in_regular_registers() {
        // ctaid × 4 feeds the per-thread add with tid: ptxas reads ctaid with S2R and computes
        // in regular registers (IMAD R0, R0, 0x4, R3), so %r1 and %r2 are not uniform even on
        // sm_75. Live at the add: %r2 (R0, read again by the last store) and %r3 (R2) → 3
        // registers on sm_52; the same 3 + 2 = 5 on sm_75 (4 if they were uniform, as above).
        let body = ".reg .b32 %r<4>;
             mov.u32 %r1, %ctaid.x;
             mul.lo.u32 %r2, %r1, 4;
             mov.u32 %r3, %tid.x;
             add.s32 %r3, %r3, %r2;
             st.global.u32 [0], %r3;
             st.global.u32 [8], %r2;
             ret;";
        assert_eq!(allocate(body, 52).registers(), 3);
        assert_eq!(allocate(body, 75).registers(), 5);
    }

    #[test]
    fn launch_constants_read_per_thread_stay_in_regular_registers() {
        // %r2 = ctaid × ntid feeds the per-thread add, and %r1 (ctaid) is stored at the end:
        // both regular on sm_75. Live at the add: %r1, %r2, %r3 → R0, R2, R3 → 4, + 2 = 6.
        // Were they uniform (the estimate before this rule), only %r3 and then the copy of %r1
        // would need R0 → 2 + 2 = 4.
        let body = ".reg .b32 %r<5>;
             mov.u32 %r1, %ctaid.x;
             mov.u32 %r4, %ntid.x;
             mul.lo.u32 %r2, %r1, %r4;
             mov.u32 %r3, %tid.x;
             add.s32 %r3, %r3, %r2;
             st.global.u32 [0], %r3;
             st.global.u32 [8], %r1;
             ret;";
        assert_eq!(allocate(body, 75).registers(), 6);
    }

    #[test]
    fn an_estimate_over_the_limit_is_capped_and_spills() {
        // 130 64-bit values loaded, then all stored: all live at once. With R1 reserved the
        // aligned pairs take R2…R261 (R0 stays free: a pair cannot start there), so 262 are
        // wanted on sm_52, where at most 255 exist: 255 reported, (262 − 255) × 4 = 28 bytes spilled.
        let mut body = String::from(".reg .b64 %rd<200>;\n");
        for i in 0..130 {
            body.push_str(&format!("ld.global.u64 %rd{i}, [{}];\n", 8 * i));
        }
        for i in 0..130 {
            body.push_str(&format!("st.global.u64 [{}], %rd{i};\n", 8 * i + 4096));
        }
        body.push_str("ret;");
        let a = allocate(&body, 52);
        assert_eq!(a.registers(), 255);
        assert_eq!(a.spill_bytes(), 28);
        assert_eq!(allocate("ret;", 52).spill_bytes(), 0);
    }

    #[test]
    fn pairs_are_aligned_and_r1_is_reserved() {
        // %r1 → R0, then the 64-bit product needs an even pair: R2:R3 (R1 is the stack pointer).
        let a = allocate(
            ".reg .b32 %r<3>; .reg .b64 %rd<3>;
             mov.u32 %r1, %tid.x;
             mul.wide.u32 %rd1, %r1, 4;
             ld.global.u32 %r2, [%rd1];
             add.s32 %r2, %r2, %r1;
             st.global.u32 [%rd1], %r2;
             ret;",
            52,
        );
        // Definitions are numbered by register: %r1, %r2 (load), %r2 (add), %rd1.
        assert_eq!(a.physical(0), Some(0..1));
        assert_eq!(a.physical(1), Some(4..5));
        assert_eq!(a.physical(3), Some(2..4));
        // The count keeps one instruction's operands in different register banks (index mod 4):
        // the loaded %r2 is added to %r1 (R0, bank 0), so it is counted in R5 rather than R4: 6
        // registers, what ptxas 12.6 reports for this kernel on sm_52 (its code: tid in R5, the
        // address in R2:R3, the loaded word in R0 — banks apart the same way). The physical
        // registers above stay those of the plain colouring (the timing model's banks see them).
        assert_eq!(a.registers(), 6);
        assert_eq!(a.predicates(), 0);
    }

    #[test]
    fn generic_accesses_before_volta_take_one_more_register() {
        // ZLUDA's `prmt` test kernel (zluda/unit_prmt.ptx), compiled with ptxas 12.6: 8
        // registers on sm_52 with its generic accesses, 7 with `.global` ones. The estimate:
        // `.global` — out_addr and in_addr pairs R2:R3 and R4:R5 (R1 reserved), the loaded words
        // R0 and one more register in a bank other than R0's: 6 (one under ptxas, which also
        // keeps the registers a load reads out of the next instructions' results); generic —
        // the address conversion's scratch register beside them: 7, one more, as with ptxas.
        let module = |space: &str, sm: u32| {
            let src = format!(
                ".version 7.0\n.target sm_{sm}\n.address_size 64\n
                 .visible .entry prmt(.param .u64 input, .param .u64 output)\n{{
                 .reg .u64 in_addr; .reg .u64 out_addr; .reg .u32 temp1; .reg .u32 temp2;
                 ld.param.u64 in_addr, [input];
                 ld.param.u64 out_addr, [output];
                 ld{space}.u32 temp1, [in_addr];
                 ld{space}.u32 temp2, [in_addr+4];
                 prmt.b32 temp2, temp1, temp2, 30212;
                 st{space}.u32 [out_addr], temp2;
                 ret;\n}}\n"
            );
            crate::ptx::compile(&src).unwrap_or_default()
        };
        let count = |space: &str, sm: u32| {
            let m = module(space, sm);
            let f = &m.functions[Handle::from_index(0)];
            let cfg = Cfg::compute(f);
            let dom = Dominators::compute(&cfg);
            let loops = Loops::compute(&cfg, &dom);
            let du = DefUse::compute(f, &cfg);
            let live = Liveness::compute(f, &cfg);
            Allocation::compute(f, &cfg, &dom, &loops, &du, &live, AllocTarget::sm(sm)).registers()
        };
        assert_eq!((count(".global", 52), count("", 52)), (6, 7));
        // sm_80 loads generic addresses as they are (`LD.E`): the space changes nothing.
        assert_eq!(count("", 80), count(".global", 80));
    }

    #[test]
    fn operands_of_one_instruction_sit_in_different_banks_before_volta() {
        // ptxas 12.6 on sm_52 (read with nvdisasm 11.8): the pointer parameter in R2:R3, the
        // first word loaded into R0, the second into R5 although R4 is free, because `PRMT R0,
        // R0, 0x7604, R5` then reads two different banks (R0 and R4 are both bank 0): 6
        // registers, as `ptxas -v` reports. The count places them the same way; the physical
        // registers (plain colouring, which the timing model's banks see) pack %r2 into R4.
        let body = ".reg .b32 %r<3>; .reg .b64 %rd<2>;
             ld.param.u64 %rd1, [k_p0];
             ld.global.u32 %r1, [%rd1];
             ld.global.u32 %r2, [%rd1+4];
             prmt.b32 %r2, %r1, %r2, 30212;
             st.global.u32 [%rd1+8], %r2;
             ret;";
        let a = allocate(body, 52);
        // Definitions by register: %r1, %r2 (load), %r2 (prmt), %rd1.
        assert_eq!(a.physical(1), Some(4..5));
        assert_eq!(a.registers(), 6);
        // Without bank avoidance (sm_75: two banks, not modelled; it also reports two more, and
        // takes the pointer from a uniform register) the same code counts R0 and R2: 3 + 2. ptxas
        // reports 6 there, the second word in R3, the other bank from R0's (zluda's generic
        // `prmt` kernel: `LD.E.SYS R0, [UR4]; LD.E.SYS R3, [UR4+0x4]; PRMT R0, R0, 0x7604, R3`).
        assert_eq!(allocate(body, 75).registers(), 5);
    }

    #[test]
    fn volta_reports_two_more_and_at_least_eight() {
        let body = ".reg .b32 %r<3>;
             mov.u32 %r1, %tid.x;
             add.s32 %r2, %r1, 1;
             st.global.u32 [0], %r2;
             ret;";
        assert_eq!(allocate(body, 52).registers(), 2);
        assert_eq!(allocate(body, 80).registers(), 8);
        // An empty kernel: the minimum 2 on sm_52; 2 + 2 = 4 on sm_70 and later (ptxas 12.6
        // reports 4 for `ret;` on sm_70, sm_75, sm_80, sm_86, sm_89 and sm_90).
        assert_eq!(allocate("ret;", 52).registers(), 2);
        assert_eq!(allocate("ret;", 80).registers(), 4);
        assert_eq!(allocate("ret;", 75).registers(), 4);
    }

    #[test]
    fn debug_code_keeps_parameters_in_registers_unaligned_and_in_ptx_order() {
        // `nvcc -G` code: each thread adds two floats through three pointer parameters. ptxas
        // 12.6 reports 11 registers for it on sm_52 and 15 on sm_80 (this is the corpus's
        // `vectorAdd_kernel64`, whose sm_52 code loads all four parameters into R0 … R10 first).
        let src = |target: &str| {
            format!(
                ".version 7.0\n.target {target}\n.address_size 64\n\
                 .visible .entry add(.param .u64 a, .param .u64 b, .param .u64 c, .param .u32 n)\n{{\n\
                 .reg .pred %p<3>; .reg .f32 %f<4>; .reg .b32 %r<7>; .reg .b64 %rd<13>;\n\
                 ld.param.u64 %rd1, [a]; ld.param.u64 %rd2, [b]; ld.param.u64 %rd3, [c];\n\
                 ld.param.u32 %r2, [n];\n\
                 mov.u32 %r3, %ntid.x; mov.u32 %r4, %ctaid.x; mul.lo.s32 %r5, %r3, %r4;\n\
                 mov.u32 %r6, %tid.x; add.s32 %r1, %r5, %r6;\n\
                 setp.lt.s32 %p1, %r1, %r2; not.pred %p2, %p1; @%p2 bra DONE;\n\
                 cvt.s64.s32 %rd4, %r1; shl.b64 %rd5, %rd4, 2; add.s64 %rd6, %rd1, %rd5;\n\
                 ld.f32 %f1, [%rd6];\n\
                 cvt.s64.s32 %rd7, %r1; shl.b64 %rd8, %rd7, 2; add.s64 %rd9, %rd2, %rd8;\n\
                 ld.f32 %f2, [%rd9];\n\
                 add.f32 %f3, %f1, %f2;\n\
                 cvt.s64.s32 %rd10, %r1; shl.b64 %rd11, %rd10, 2; add.s64 %rd12, %rd3, %rd11;\n\
                 st.f32 [%rd12], %f3;\n\
                 DONE: ret;\n}}\n"
            )
        };
        let count = |target: &str, sm: u32| {
            let m = crate::ptx::compile(&src(target)).unwrap_or_default();
            let opts = crate::analysis::AnalysisOptions { target: Some(AllocTarget::sm(sm)), ..Default::default() };
            crate::analysis::ModuleAnalysis::compute(&m, &opts).registers_per_thread(Handle::from_index(0))
        };
        // Debug, sm_52: all four parameters are live from the start, the three pointers in
        // R2:R3, R4:R5, R6:R7 (n in R0, R1 reserved); %ntid.x sits in a register (no
        // constant-bank operand) in R8 and %ctaid.x in R9 at `mul.lo` (the XMAD sequence's
        // scratch register in R10), %r1 ends in R9 (R8 still held %r5 when it was placed); at
        // the first `cvt.s64.s32` the sign-extended pair keeps %r1 as its low half (R9:R10, as
        // ptxas's `SHF.R.S32.HI` writes only the high half) beside the pointers: R0 … R10, 11
        // registers = ptxas.
        assert_eq!(count("sm_52, debug", 52), 11);
        // Debug, sm_80: the same placement without the multiply scratch (IMAD), 11; the memory
        // descriptor pair (R10:R11 in ptxas's code) for the whole kernel and two more reported:
        // 11 + 2 + 2 = 15 = ptxas.
        assert_eq!(count("sm_80, debug", 80), 15);
        // The GPU chosen for the estimate does not change the compile mode: the sm_80 module
        // estimated for sm_52 is still debug code.
        assert_eq!(count("sm_80, debug", 52), 11);
        // Optimised, the parameters are constant-bank operands until an address needs them,
        // %ntid.x is one too, pairs are aligned and the loads issue early: 7.
        assert_eq!(count("sm_52", 52), 7);
    }
}
