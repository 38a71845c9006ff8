//! The order ptxas issues a block's instructions in, as far as it matters for registers: loads
//! (and the address arithmetic they need) as early as their operands allow, under a register
//! budget. The register estimate colours this order (see [`super::kernel`]); nothing else reads
//! it, and the IR is not changed (the schedule is a copy of the function with each block's
//! instructions permuted).
//!
//! ```text
//! // PTX order (2 values live at most)           // issued (3 live: both loads in flight)
//! ld.global.f32 %f1, [%rd1];                     ld.global.f32 %f1, [%rd1];
//! add.f32 %f2, %f1, 1.0;                          ld.global.f32 %f3, [%rd2];
//! ld.global.f32 %f3, [%rd2];                     add.f32 %f2, %f1, 1.0;
//! add.f32 %f4, %f3, %f2;                          add.f32 %f4, %f3, %f2;
//! ```
//!
//! Why: ptxas hides memory latency by issuing independent loads early, so it holds more values
//! at once than the PTX order has live (in ptxas 12.6's SASS of the file test
//! `timing/demo_registers`, sixteen shared loads issue before the first add: 22 registers where
//! the PTX order needs 13). It does so while the kernel still fits the registers that allow the
//! target's full occupancy (registers per SM over its most threads per SM): on sm_52 its counts
//! in the corpus pile up just under 32.
//!
//! The model, every part an assumption (**A**) about ptxas's scheduler, which is not documented:
//! - Dependences: a register read after its write, a write after a read or a write of the same
//!   register; memory by state space: a load does not cross a write that may touch the same
//!   space (shared, global, local; a generic address may be any), writes keep their order per
//!   space; `.const` and kernel-parameter loads move freely; barriers, fences, calls and anything
//!   not known to be free of side effects keep their place among every memory operation; a
//!   block's terminator stays last.
//! - Priority: before sm_70, a ready `setp` that frees registers (the last read of a value)
//!   first, as in ptxas 12.6's sm_52 code of zluda's `setp_nan` (each `FSETP.NAN` issues as soon
//!   as its two loads land, before the earlier compare's select and store), where it brings that
//!   kernel from 13 to 11 registers, ptxas's count, and moves no other corpus kernel (freeing
//!   registers first for every pure instruction instead takes the sm_52 `matrixMul` kernels from
//!   31 to 24, under ptxas's 31–32, as it undoes their hoisted loads). From sm_70 on ptxas issues
//!   all eight loads of `setp_nan` before its first `FSETP.NAN` (sm_75 code: `LD.E.SYS R0 … R9`
//!   first), and reports 14 on sm_70 … sm_90, which the plain priority gives (12 with the
//!   compare first); it moves no other corpus kernel on any target. Then a ready load, or an instruction whose
//!   result a load of the block needs;
//!   then an instruction whose result a store needs (its address or data; the stores keep their
//!   order); otherwise PTX order. Within the first two classes the instruction farthest (in
//!   dependent steps) from the access it feeds goes first, so a block's addresses are formed
//!   before its loads issue, as in ptxas 12.6's sm_75 SASS of the bundled `hotspot` example (all
//!   six 64-bit addresses computed before the six loads' values are used); ties in PTX order. Measured with ptxas 12.6: six stores,
//!   each of a value and an address computed from the one before, need 19 registers on sm_52
//!   (28 on sm_70) where the PTX order needs 6: ptxas computes the later stores' addresses and
//!   data before the earlier stores issue (this model: 20 on sm_52, 22 on sm_70). Not modelled: before sm_70 ptxas hoists shared
//!   loads only in some kernels (measured: the sixteen shared loads of `timing/demo_registers`
//!   give 12 registers on sm_52 and sm_61, 22 from sm_70 on, and `convolutionRowGPU` in the
//!   corpus 12 on sm_52, 24 on sm_70, while the corpus's sm_52 `matrixMul` kernels need their
//!   shared loads hoisted to reach ptxas's 31–32; sixteen global loads in place of demo's give 19
//!   on sm_52 and 21 on sm_70, as modelled). Leaving shared loads in place before sm_70 moves 12
//!   more kernels out of ±15% than it brings in, so every load is hoisted on every target.
//! - Budget: an instruction that adds live register units issues only while the block's live
//!   units stay within the full-occupancy budget (less the stack pointer and, from sm_70 on,
//!   the two registers ptxas reports more); when nothing fits, the ready instruction that frees
//!   the most units issues. The count of this order is then held to the budget, or to the PTX
//!   order's count where that is higher ([`super::KernelAnalysis::compute_for`]): the budget
//!   bounds live units, while the colouring adds aligned pairs, scratch registers and bank
//!   spacing on top, which ptxas's scheduler, working on registers, keeps within it (measured:
//!   Rodinia's `lud_diagonal` and `lud_perimeter` and streamcluster's `kernel_compute_cost`
//!   came out at 34–36 on sm_52 where ptxas reports 32).
//! - Each block is scheduled alone: branches are not if-converted. Loops are unrolled first
//!   ([`super::ptxas_unroll`]).

use alloc::vec;
use alloc::vec::Vec;

use super::alloc_target::AllocTarget;
use super::liveness::Liveness;
use crate::gpu::compute_capability::SmVersion;
use crate::gpu::ComputeCapability;
use crate::ir::{Block, Function, Handle, Inst, Opcode, StateSpace};

/// Memory that may be touched: shared, global (and texture, surface), local; a generic address may
/// be any of them.
type Spaces = u8;
const SHARED: Spaces = 1;
const GLOBAL: Spaces = 2;
const LOCAL: Spaces = 4;
const ANY: Spaces = SHARED | GLOBAL | LOCAL;

/// How an instruction may move relative to memory operations.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum MemKind {
    /// No memory access and no side effect, or a read of memory nothing writes (`.const`,
    /// `.param` of a kernel).
    Pure,
    /// A read of these spaces: reorders with other reads and with writes to other spaces.
    Load(Spaces),
    /// A write to these spaces (a store, atomic or reduction).
    Store(Spaces),
    /// A barrier, fence, call or anything else with an effect: keeps its place among every
    /// memory operation.
    Barrier,
}

/// The spaces an access with state space `space` may touch.
fn spaces(space: Option<StateSpace>) -> Spaces {
    match space {
        Some(s) if s.is_shared() => SHARED,
        Some(StateSpace::Global | StateSpace::Tex) => GLOBAL,
        Some(StateSpace::Local) => LOCAL,
        _ => ANY,
    }
}

fn mem_kind(inst: &Inst) -> MemKind {
    use Opcode::*;
    match inst.opcode {
        Ld | Ldu if inst.mods.space == Some(StateSpace::Const) => MemKind::Pure,
        Ld | Ldu if inst.mods.space == Some(StateSpace::ParamEntry) => MemKind::Pure,
        Ld | Ldu if inst.mods.space.is_some_and(StateSpace::is_param) => MemKind::Load(LOCAL),
        Ld | Ldu => MemKind::Load(spaces(inst.mods.space)),
        Tex | Tld4 | Suld | Txq | Suq => MemKind::Load(GLOBAL),
        St | Atom | Red if inst.mods.space.is_some_and(StateSpace::is_param) => MemKind::Store(LOCAL),
        St | Atom | Red => MemKind::Store(spaces(inst.mods.space)),
        Sust | Sured => MemKind::Store(GLOBAL),
        Add | Sub | Mul | Mad | Mul24 | Mad24 | Sad | Div | Rem | Abs | Neg | Min | Max | Popc | Clz | Bfind | Fns
        | Brev | Bfe | Bfi | Bmsk | Szext | Dp4a | Dp2a | Addc | Subc | Madc | Testp | Copysign | Fma | Rcp | Sqrt
        | Rsqrt | Sin | Cos | Lg2 | Ex2 | Tanh | Set | Setp | Selp | Slct | And | Or | Xor | Not | Cnot | Lop3
        | Shf | Shl | Shr | Prmt | Mov | Isspacep | Cvta | Cvt | CvtPack | Vadd | Vsub | Vabsdiff | Vmin | Vmax
        | Vshl | Vshr | Vmad | Vset => MemKind::Pure,
        _ => MemKind::Barrier,
    }
}

/// Whether `inst` only computes its results (no memory access, no synchronisation).
pub fn is_pure(inst: &Inst) -> bool {
    mem_kind(inst) == MemKind::Pure
}

/// Whether `inst` writes memory other than shared memory, synchronises, calls or has any other
/// effect (ptxas unrolls loops that store to shared memory only, not ones that store to global
/// memory or synchronise: measured with ptxas 12.6 on sm_52 … sm_80).
pub fn blocks_unrolling(inst: &Inst) -> bool {
    match mem_kind(inst) {
        MemKind::Pure | MemKind::Load(_) => false,
        MemKind::Store(s) => s != SHARED || inst.opcode != Opcode::St,
        MemKind::Barrier => true,
    }
}

/// How far past the first unscheduled instruction of a block the schedule looks (**A**: ptxas's
/// window is not known; this one only bounds the work on huge blocks).
const WINDOW: usize = 512;

/// Registers per thread that still allow the target's most threads per SM.
/// (NVIDIA's limits for the compute capability; 65 536 / 2 048 for targets not in that table).
pub(super) fn full_occupancy_registers(target: AllocTarget) -> u32 {
    let (Ok(major), Ok(minor)) = (u8::try_from(target.sm / 10), u8::try_from(target.sm % 10)) else { return 32 };
    let limits = SmVersion::from_compute_capability(ComputeCapability::new(major, minor)).map(SmVersion::limits);
    limits.map_or(32, |l| l.registers_per_sm.checked_div(l.max_threads_per_sm).unwrap_or(32))
}

/// `kernel` with each block's instructions in the order ptxas would issue them, or `None` when
/// that is the PTX order everywhere. `live` is the liveness of `kernel` as written.
pub fn schedule(kernel: &Function, live: &Liveness, target: AllocTarget) -> Option<Function> {
    let body = kernel.body.as_ref()?;
    // Units the allocation may use under the budget: the reported count less what ptxas adds.
    let overhead = target.reported_overhead();
    let budget = full_occupancy_registers(target).saturating_sub(overhead) as usize;
    let mut orders: Vec<(Handle<Block>, Vec<Handle<Inst>>)> = Vec::new();
    for (b, block) in body.blocks.iter() {
        let order = schedule_block(body, b, block, live, budget, target.issues_compares_first());
        if order != block.insts {
            orders.push((b, order));
        }
    }
    if orders.is_empty() {
        return None;
    }
    let mut scheduled = kernel.clone();
    if let Some(sb) = scheduled.body.as_mut() {
        for (b, order) in orders {
            if let Some(block) = sb.blocks.get_mut(b) {
                block.insts = order;
            }
        }
    }
    Some(scheduled)
}

/// The dependence graph of one block: predecessors per instruction, and successors with whether
/// the successor reads a register the instruction writes.
struct Dag {
    preds: Vec<Vec<u32>>,
    succs: Vec<Vec<(u32, bool)>>,
}

fn build_dag(insts: &[&Inst], regs: usize) -> Dag {
    let n = insts.len();
    let mut preds: Vec<Vec<u32>> = vec![Vec::new(); n];
    let mut succs: Vec<Vec<(u32, bool)>> = vec![Vec::new(); n];
    let mut last_def: Vec<Option<u32>> = vec![None; regs];
    let mut reads_since: Vec<Vec<u32>> = vec![Vec::new(); regs];
    // Per space (shared, global, local): the last write or barrier, and the reads since.
    let mut last_write: [Option<u32>; 3] = [None; 3];
    let mut reads_since_write: [Vec<u32>; 3] = [Vec::new(), Vec::new(), Vec::new()];
    // `data`: `to` reads a register `from` writes.
    let mut edge = |from: u32, to: u32, data: bool, preds: &mut Vec<Vec<u32>>| {
        if from == to {
            return;
        }
        if let Some(k) = succs[from as usize].iter().position(|&(t, _)| t == to) {
            succs[from as usize][k].1 |= data;
        } else {
            preds[to as usize].push(from);
            succs[from as usize].push((to, data));
        }
    };
    for (j, inst) in insts.iter().enumerate() {
        let j = j as u32;
        inst.for_each_use(|r| {
            if let Some(d) = last_def.get(r.index()).copied().flatten() {
                edge(d, j, true, &mut preds);
            }
        });
        inst.for_each_def(|r| {
            if let Some(d) = last_def.get(r.index()).copied().flatten() {
                edge(d, j, false, &mut preds);
            }
            for &u in reads_since.get(r.index()).map_or(&[][..], Vec::as_slice) {
                edge(u, j, false, &mut preds);
            }
        });
        let (reads, writes) = match mem_kind(inst) {
            MemKind::Pure => (0, 0),
            MemKind::Load(sp) => (sp, 0),
            MemKind::Store(sp) => (sp, sp),
            MemKind::Barrier => (ANY, ANY),
        };
        for k in 0..3 {
            if (reads | writes) & (1 << k) == 0 {
                continue;
            }
            if let Some(w) = last_write[k] {
                edge(w, j, false, &mut preds);
            }
            if writes & (1 << k) != 0 {
                for &l in &reads_since_write[k] {
                    edge(l, j, false, &mut preds);
                }
                reads_since_write[k].clear();
                last_write[k] = Some(j);
            } else {
                reads_since_write[k].push(j);
            }
        }
        inst.for_each_use(|r| {
            if let Some(v) = reads_since.get_mut(r.index()) {
                v.push(j);
            }
        });
        inst.for_each_def(|r| {
            if let Some(d) = last_def.get_mut(r.index()) {
                *d = Some(j);
            }
            if let Some(v) = reads_since.get_mut(r.index()) {
                v.clear();
            }
        });
    }
    Dag { preds, succs }
}

fn schedule_block(
    body: &crate::ir::Body,
    b: Handle<Block>,
    block: &Block,
    live: &Liveness,
    budget: usize,
    setp_first: bool,
) -> Vec<Handle<Inst>> {
    let pinned_last = block
        .insts
        .last()
        .filter(|&&ih| body.insts.get(ih).is_some_and(|i| i.opcode.is_terminator() || mem_kind(i) == MemKind::Barrier))
        .copied();
    let movable: &[Handle<Inst>] = match pinned_last {
        Some(_) => &block.insts[..block.insts.len() - 1],
        None => &block.insts,
    };
    let insts: Vec<&Inst> = movable.iter().filter_map(|&ih| body.insts.get(ih)).collect();
    if insts.len() != movable.len() || insts.len() < 3 {
        return block.insts.clone();
    }
    let n = insts.len();
    let dag = build_dag(&insts, body.regs.len());
    // Urgency: 2 for a load and what a load of the block needs (its address), 1 for what a
    // store needs (its address and data), 0 for the rest (stores themselves included).
    let mut urgency = vec![0u8; n];
    for j in (0..n).rev() {
        let own = u8::from(matches!(mem_kind(insts[j]), MemKind::Load(_))) * 2;
        let fed = dag.succs[j]
            .iter()
            .filter(|&&(_, data)| data)
            .map(|&(s, _)| {
                let s = s as usize;
                let store = matches!(mem_kind(insts[s]), MemKind::Store(_));
                if store {
                    urgency[s].max(1)
                } else {
                    urgency[s]
                }
            })
            .max()
            .unwrap_or(0);
        urgency[j] = own.max(fed);
    }
    // Depth: data edges from an instruction to the farthest memory access it feeds (address
    // arithmetic deeper in the chain issues first).
    let mut depth = vec![0u32; n];
    for j in (0..n).rev() {
        depth[j] = dag.succs[j]
            .iter()
            .filter(|&&(s, data)| data && urgency[s as usize] > 0)
            .map(|&(s, _)| depth[s as usize] + 1)
            .max()
            .unwrap_or(0);
    }
    // Register pressure: units live now, and in-block reads still to come per register.
    let units = live.unit_map();
    let width = |r: Handle<crate::ir::Reg>| units.units_of(r).len();
    let mut remaining = vec![0u32; body.regs.len()];
    for inst in &insts {
        inst.for_each_use(|r| {
            if let Some(c) = remaining.get_mut(r.index()) {
                *c += 1;
            }
        });
    }
    let live_out = live.block_live_out(b);
    let mut live_now = vec![false; body.regs.len()];
    let mut pressure = 0usize;
    if let Some(li) = live.block_live_in(b) {
        for u in li.iter() {
            if let Some(r) = units.reg_of_unit(u) {
                if let Some(l) = live_now.get_mut(r.index()) {
                    if !*l {
                        *l = true;
                        pressure += width(r);
                    }
                }
            }
        }
    }
    let keeps = |r: Handle<crate::ir::Reg>, rem: u32| {
        rem > 0 || live_out.is_some_and(|lo| units.units_of(r).any(|u| lo.contains(u)))
    };
    let mut waiting: Vec<u32> = dag.preds.iter().map(|p| p.len() as u32).collect();
    // The window: only instructions fewer than WINDOW places after the first unscheduled one
    // may issue (bounds the work on huge blocks; no corpus block reaches it).
    let mut done = vec![false; n];
    let (mut low, mut window_end) = (0usize, WINDOW.min(n));
    let mut ready: Vec<u32> = (0..window_end as u32).filter(|&j| waiting[j as usize] == 0).collect();
    let mut order = Vec::with_capacity(block.insts.len());
    while !ready.is_empty() {
        let delta = |j: u32, remaining: &[u32], live_now: &[bool]| -> isize {
            let inst = insts[j as usize];
            let mut d = 0isize;
            inst.for_each_def(|r| {
                if !live_now.get(r.index()).copied().unwrap_or(true) {
                    d += width(r) as isize;
                }
            });
            inst.for_each_use(|r| {
                let rem = remaining.get(r.index()).copied().unwrap_or(0);
                if rem == 1 && !keeps(r, 0) && live_now.get(r.index()).copied().unwrap_or(false) {
                    d -= width(r) as isize;
                }
            });
            d
        };
        let fits = |j: u32| {
            delta(j, &remaining, &live_now) <= 0
                || pressure as isize + delta(j, &remaining, &live_now) <= budget as isize
        };
        let pick = ready
            .iter()
            .enumerate()
            .filter(|&(_, &j)| fits(j))
            .max_by_key(|&(_, &j)| {
                let kills =
                    setp_first && insts[j as usize].opcode == Opcode::Setp && delta(j, &remaining, &live_now) < 0;
                (kills, urgency[j as usize], depth[j as usize], core::cmp::Reverse(j))
            })
            .or_else(|| ready.iter().enumerate().min_by_key(|&(_, &j)| (delta(j, &remaining, &live_now), j)))
            .map(|(k, _)| k);
        let Some(k) = pick else { break };
        let j = ready.swap_remove(k);
        let inst = insts[j as usize];
        inst.for_each_use(|r| {
            if let Some(c) = remaining.get_mut(r.index()) {
                *c = c.saturating_sub(1);
                if *c == 0 && !keeps(r, 0) && live_now.get(r.index()).copied().unwrap_or(false) {
                    live_now[r.index()] = false;
                    pressure = pressure.saturating_sub(width(r));
                }
            }
        });
        inst.for_each_def(|r| {
            let rem = remaining.get(r.index()).copied().unwrap_or(0);
            if let Some(l) = live_now.get_mut(r.index()) {
                if !*l && keeps(r, rem) {
                    *l = true;
                    pressure += width(r);
                }
            }
        });
        order.push(movable[j as usize]);
        for &(s, _) in &dag.succs[j as usize] {
            waiting[s as usize] -= 1;
            if waiting[s as usize] == 0 && (s as usize) < window_end {
                ready.push(s);
            }
        }
        done[j as usize] = true;
        while low < n && done[low] {
            low += 1;
        }
        let end = (low + WINDOW).min(n);
        ready.extend((window_end..end).filter(|&k| waiting[k] == 0 && !done[k]).map(|k| k as u32));
        window_end = window_end.max(end);
    }
    if order.len() != movable.len() {
        return block.insts.clone();
    }
    order.extend(pinned_last);
    order
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::cfg::Cfg;
    use crate::analysis::test_util::kernel;
    use crate::analysis::KernelAnalysis;
    use alloc::string::{String, ToString};

    /// The opcode and first operand text of each instruction of the scheduled entry block.
    fn issued(body: &str, sm: u32) -> Vec<String> {
        let m = kernel(body);
        let Some(f) = m.functions.values().next() else { return Vec::new() };
        let live = Liveness::compute(f, &Cfg::compute(f));
        let scheduled = schedule(f, &live, AllocTarget::sm(sm)).unwrap_or_else(|| f.clone());
        let mut module = m.clone();
        if let Some(slot) = module.functions.get_mut(Handle::from_index(0)) {
            *slot = scheduled;
        }
        module
            .to_string()
            .lines()
            .map(str::trim)
            .filter(|l| l.ends_with(';') && !l.starts_with('.'))
            .map(String::from)
            .collect()
    }

    fn position(lines: &[String], prefix: &str) -> usize {
        lines.iter().position(|l| l.starts_with(prefix)).unwrap_or(usize::MAX)
    }

    #[test]
    fn a_load_issues_before_independent_arithmetic() {
        let lines = issued(
            ".reg .f32 %f<5>; .reg .b64 %rd<3>;
             ld.param.u64 %rd1, [k_p0];
             ld.global.f32 %f1, [%rd1];
             add.f32 %f2, %f1, 0f3f800000;
             ld.global.f32 %f3, [%rd1+4];
             add.f32 %f4, %f3, %f2;
             st.global.f32 [%rd1], %f4;
             ret;",
            52,
        );
        assert!(position(&lines, "ld.global.f32 %f3") < position(&lines, "add.f32 %f2"), "{lines:?}");
    }

    #[test]
    fn a_compare_that_frees_registers_issues_as_soon_as_its_operands_are_ready() {
        // Four loads; the first two summed and stored, the last two compared for the block's
        // branch. The compare reads %f3 and %f4 for the last time: it issues as soon as they
        // land, ahead of the sum and its store (ptxas 12.6's sm_52 code of zluda's `setp_nan`:
        // each `FSETP.NAN` right after its loads). By urgency alone it would wait behind them.
        let src = ".reg .pred %p<2>; .reg .f32 %f<6>; .reg .b64 %rd<3>;
             ld.param.u64 %rd1, [k_p0];
             ld.global.f32 %f1, [%rd1];
             ld.global.f32 %f2, [%rd1+4];
             ld.global.f32 %f3, [%rd1+8];
             ld.global.f32 %f4, [%rd1+12];
             add.f32 %f5, %f1, %f2;
             st.global.f32 [%rd1+16], %f5;
             setp.lt.f32 %p1, %f3, %f4;
             @%p1 bra DONE;
             st.global.f32 [%rd1+20], %f5;
             DONE:
             ret;";
        let lines = issued(src, 52);
        assert!(position(&lines, "setp.lt.f32 %p1") < position(&lines, "add.f32 %f5"), "{lines:?}");
        // A compare whose operands stay live keeps its place.
        let lines = issued(
            &src.replace(
                "@%p1 bra DONE;",
                "@%p1 bra DONE;\nst.global.f32 [%rd1+24], %f3;\nst.global.f32 [%rd1+28], %f4;",
            ),
            52,
        );
        assert!(position(&lines, "st.global.f32 [%rd1+16]") < position(&lines, "setp.lt.f32 %p1"), "{lines:?}");
        // From sm_70 on the compare waits its turn, behind the sum that feeds the store.
        let lines = issued(src, 80);
        assert!(position(&lines, "add.f32 %f5") < position(&lines, "setp.lt.f32 %p1"), "{lines:?}");
    }

    #[test]
    fn loads_cross_writes_to_other_spaces_only() {
        let lines = issued(
            ".shared .align 4 .f32 sh[4]; .reg .f32 %f<5>; .reg .b64 %rd<3>;
             ld.param.u64 %rd1, [k_p0];
             ld.global.f32 %f1, [%rd1];
             st.shared.f32 [sh], %f1;
             st.global.f32 [%rd1+8], %f1;
             ld.global.f32 %f2, [%rd1+4];
             ld.shared.f32 %f3, [sh+4];
             add.f32 %f4, %f2, %f3;
             st.global.f32 [%rd1], %f4;
             ret;",
            52,
        );
        // The shared load moves above the global store, not above the shared one; the global
        // load stays after the global store.
        let (sts, stg) = (position(&lines, "st.shared"), position(&lines, "st.global.f32 [%rd1+8]"));
        let (lds, ldg) = (position(&lines, "ld.shared"), position(&lines, "ld.global.f32 %f2"));
        assert!(sts < lds && lds < stg && stg < ldg, "{lines:?}");
    }

    #[test]
    fn loads_are_hoisted_only_within_the_full_occupancy_budget() {
        // Forty loads, each summed as it arrives: 3 values live in PTX order. Hoisting every load
        // would hold 40; sm_52's budget is 65 536 / 2 048 = 32 registers, less the stack pointer.
        let mut body =
            String::from(".reg .f32 %f<90>; .reg .b64 %rd<3>;\nld.param.u64 %rd1, [k_p0];\nmov.f32 %f0, 0f00000000;\n");
        for i in 1..=40 {
            body.push_str(&alloc::format!("ld.global.f32 %f{i}, [%rd1+{}];\n", 4 * i));
            let previous = if i == 1 { 0 } else { 40 + i - 1 };
            body.push_str(&alloc::format!("add.f32 %f{}, %f{previous}, %f{i};\n", 40 + i));
        }
        body.push_str("st.global.f32 [%rd1], %f80;\nret;");
        let m = kernel(&body);
        let Some((_, f)) = m.functions.iter().next() else { return };
        let a = KernelAnalysis::compute_for(f, Default::default(), AllocTarget::sm(52));
        assert!(a.liveness.max_pressure() <= 5, "PTX order: {}", a.liveness.max_pressure());
        assert_eq!(a.allocation.registers(), 32, "hoisted up to the budget");
    }

    #[test]
    fn store_addresses_and_data_are_computed_ahead_of_earlier_stores() {
        // Six stores, each of a value and an address computed from the one before (the synthetic
        // kernel of the module docs, measured with ptxas 12.6: 19 registers on sm_52). PTX order
        // needs 6; issued: the six values and six 64-bit addresses are ready before the first
        // store: 6 + 12 units, plus the counter %r2 and R1 = 20 (the pointer stays a
        // constant-bank operand of the 64-bit adds).
        let mut body = String::from(
            ".reg .b32 %r<20>; .reg .b64 %rd<40>;
             ld.param.u64 %rd1, [k_p0];
             cvta.to.global.u64 %rd3, %rd1;
             mov.u32 %r2, %tid.x;
             mov.u32 %r1, %ntid.x;\n",
        );
        for i in 1..=6 {
            body.push_str(&alloc::format!(
                "add.s32 %r1{i}, %r2, %r1;\nmul.lo.s32 %r2, %r1{i}, 3;\nmul.wide.s32 %rd1{i}, %r1{i}, 4;\n\
                 add.s64 %rd2{i}, %rd3, %rd1{i};\nst.global.u32 [%rd2{i}], %r1{i};\n"
            ));
        }
        body.push_str("ret;");
        let m = kernel(&body);
        let Some((_, f)) = m.functions.iter().next() else { return };
        let a = KernelAnalysis::compute_for(f, Default::default(), AllocTarget::sm(52));
        assert_eq!(a.allocation.ptx_order_registers(), 6);
        assert_eq!(a.allocation.registers(), 20);
    }
}
