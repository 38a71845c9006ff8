//! Tests of RegMutex's region pass ([`super::regmutex_program`]) and pool operations: peaks,
//! |BRS| and the extension worked out by hand, acquire/release placement across blocks, loops and
//! barriers, the input left untouched, the printed form read back by the parser, and the scheme's
//! registers per thread and pool stalls.

use alloc::string::{String, ToString};
use alloc::vec::Vec;

use super::regmutex_program::{pool_ops, regions, transform, PoolOp};
use crate::gpu::presets;
use crate::ir::{Module, Opcode};
use crate::timing::program_map::SchemeProgram;
use crate::timing::Program;

fn module(body: &str, regs: &str) -> Module {
    let src = format!(
        ".version 7.0\n.target sm_90\n.address_size 64\n.visible .entry k(.param .u64 out)\n{{\n{regs}\n{body}\n}}\n"
    );
    let m = crate::ptx::compile(&src);
    assert!(m.is_ok(), "{m:?}");
    m.unwrap_or_default()
}

/// The pass's output for `m` (asserted to succeed).
fn rewritten(m: &Module) -> Module {
    let r = transform(m);
    assert!(r.is_ok(), "{r:?}");
    r.map(|x| x.0).unwrap_or_default()
}

/// The file test's kernel (tests/cases/timing/regmutex_acquire_wait.ptx).
const CHAIN: &str = "mov.f32 %f1, 0f3F800000;\nadd.f32 %f2, %f1, 0f3F800000;\nadd.f32 %f3, %f1, 0f40000000;\n\
    add.f32 %f4, %f1, %f2;\nadd.f32 %f5, %f3, %f4;\nadd.f32 %f6, %f5, 0f3F800000;\n\
    add.f32 %f7, %f6, 0f3F800000;\nadd.f32 %f8, %f7, 0f3F800000;\nret;";
const F9: &str = ".reg .f32 %f<9>;";

/// Opcode names of the transformed kernel's instructions in layout order, `acq`/`rel` for the
/// inserted ones.
fn shape(m: &Module) -> Vec<String> {
    let mut out = Vec::new();
    for (_, f) in m.functions.iter() {
        let Some(body) = &f.body else { continue };
        for (_, b) in body.blocks.iter() {
            for &ih in &b.insts {
                let Some(i) = body.insts.get(ih) else { continue };
                out.push(match i.opcode {
                    Opcode::RegmutexAcquire => "acq".to_string(),
                    Opcode::RegmutexRelease => "rel".to_string(),
                    o => o.name().to_string(),
                });
            }
        }
    }
    out
}

#[test]
fn peaks_base_and_extension_of_the_chain() {
    let m = module(CHAIN, F9);
    let r = m.functions.iter().next().map(|(_, f)| regions(f)).unwrap_or_default();
    // mov {f1} 1 · add f2: in {f1}, out {f1, f2} 2 · add f3: out {f1, f2, f3} 3 · add f4: in
    // {f1, f2, f3} 3 · add f5: in {f3, f4} 2 · f6, f7, f8: 1 · ret 0.
    assert_eq!(r.peak, [1, 2, 3, 3, 2, 1, 1, 1, 0]);
    // Sorted 0 1 1 1 1 2 2 3 3: lower median (index 4) = 1; E = 3 − 1.
    assert_eq!((r.base, r.extension), (1, 2));
    assert_eq!(r.need, [false, true, true, true, true, false, false, false, false]);
}

#[test]
fn the_pass_brackets_the_region_and_leaves_its_input_alone() {
    let m = module(CHAIN, F9);
    let before = m.clone();
    let out = transform(&m);
    assert!(out.is_ok(), "{out:?}");
    let Ok((t, map)) = out else { return };
    assert_eq!(m, before, "the input module is not mutated");
    assert_eq!(shape(&t), ["mov", "acq", "add", "add", "add", "add", "rel", "add", "add", "add", "ret"]);
    assert!(crate::ir::verify::verify(&t).is_empty());
    // Original 1 (add f2) issues after the acquire (new 1) as new 2; original 5 (add f6) after
    // the release (new 6) as new 7; the others keep their order.
    let (fh, _) = m.functions.iter().next().unzip();
    let fh = fh.unwrap_or(crate::ir::Handle::from_index(0));
    let fate = |i: u32| map.fate(fh, crate::ir::Handle::from_index(i)).cloned().unwrap_or_default();
    assert_eq!(fate(1).before.iter().map(|h| h.raw()).collect::<Vec<_>>(), [1]);
    assert_eq!(fate(1).main.map(|h| h.raw()), Some(2));
    assert_eq!(fate(5).before.iter().map(|h| h.raw()).collect::<Vec<_>>(), [6]);
    assert_eq!(fate(8).main.map(|h| h.raw()), Some(10));
}

#[test]
fn the_printed_kernel_parses_back_to_the_same_text() {
    let m = module(CHAIN, F9);
    let t = rewritten(&m);
    let text = t.to_string();
    assert!(text.contains("regmutex.acquire 2;") && text.contains("regmutex.release 2;"), "{text}");
    let back = crate::ptx::compile(&text);
    assert!(back.is_ok(), "{back:?}");
    assert_eq!(back.map(|b| b.to_string()).unwrap_or_default(), text);
}

#[test]
fn a_flat_kernel_has_no_region_and_is_not_rewritten() {
    // Peaks 1 1 1 0: the median is the maximum, E = 0.
    let m = module("mov.f32 %f1, 0f3F800000;\nadd.f32 %f2, %f1, 0f3F800000;\nadd.f32 %f3, %f2, %f2;\nret;", F9);
    let t = rewritten(&m);
    assert_eq!(t, m);
}

#[test]
fn a_barrier_splits_the_region() {
    // Peaks: mov 1 · add f2 2 · add f3 3 · bar 3 (but never needs) · add f4 3 · add f5 2 · f6 1 ·
    // f7 1 · f8 1 · ret 0 → sorted 0 1 1 1 1 2 2 3 3 3, median 1, E 2: release before the barrier,
    // acquire after it.
    let body = "mov.f32 %f1, 0f3F800000;\nadd.f32 %f2, %f1, 0f3F800000;\nadd.f32 %f3, %f1, 0f40000000;\n\
        bar.sync 0;\nadd.f32 %f4, %f1, %f2;\nadd.f32 %f5, %f3, %f4;\nadd.f32 %f6, %f5, 0f3F800000;\n\
        add.f32 %f7, %f6, 0f3F800000;\nadd.f32 %f8, %f7, 0f3F800000;\nret;";
    let t = rewritten(&module(body, F9));
    let s = shape(&t);
    assert_eq!(&s[..9], ["mov", "acq", "add", "add", "rel", "bar", "acq", "add", "add"]);
}

#[test]
fn disagreeing_predecessors_get_an_idempotent_operation_at_the_join() {
    // Peaks (units only; predicates live apart): mov 1 · setp 1 · bra 1 · add r2 2 · add r3 3 ·
    // add r4 3 · add r5 2 (r5 dead: its def) · mov r6 1 · add r7 1 · add r6 1 · ret 0 → sorted
    // 0 1 1 1 1 1 1 2 2 3 3, median (index 5) 1, E 2. The fall-through block needs the pool from
    // its first instruction (entry free → acquire) and ends holding it; the join C has one
    // predecessor free (the branch) and one holding: unknown, so C opens with a release although
    // its first instruction needs none (a release while free does nothing at run time).
    let body = "mov.u32 %r1, %tid.x;\nsetp.eq.u32 %p1, %r1, 0;\n@%p1 bra C;\n\
        add.u32 %r2, %r1, 1;\nadd.u32 %r3, %r1, 2;\nadd.u32 %r4, %r2, %r3;\nadd.u32 %r5, %r4, %r1;\n\
        C:\nmov.u32 %r6, 7;\nadd.u32 %r7, %r6, 1;\nadd.u32 %r6, %r7, 1;\nret;";
    let m = module(body, ".reg .u32 %r<8>;\n.reg .pred %p<2>;");
    let r = m.functions.iter().next().map(|(_, f)| regions(f)).unwrap_or_default();
    assert_eq!(r.peak, [1, 1, 1, 2, 3, 3, 2, 1, 1, 1, 0]);
    assert_eq!((r.base, r.extension), (1, 2));
    let t = rewritten(&m);
    let expected = ["mov", "setp", "bra", "acq", "add", "add", "add", "add", "rel", "mov", "add", "add", "ret"];
    assert_eq!(shape(&t), expected);
    assert!(crate::ir::verify::verify(&t).is_empty());
}

#[test]
fn pool_operations_by_sid() {
    let gpu = presets::hopper_h100();
    let m = module(CHAIN, F9);
    let original = Program::decode(&m, &gpu);
    let sp = SchemeProgram::build(&m, &original, Some(transform), None, &gpu, true);
    assert!(sp.is_ok(), "{sp:?}");
    let Ok(sp) = sp else { return };
    // sid 1: acquire 2, sid 6: release 2; the original program has none.
    assert_eq!(sp.pool.get(1), Some(&PoolOp::Acquire(2)));
    assert_eq!(sp.pool.get(6), Some(&PoolOp::Release(2)));
    assert_eq!(sp.pool.iter().filter(|p| **p != PoolOp::None).count(), 2);
    assert!(pool_ops(&m, &original).is_empty());
}

#[test]
fn the_ptx_diff_shows_the_inserted_acquire_and_release() {
    use crate::diff::rewrite::rewrite_diff;
    use crate::diff::RowKind;
    use crate::timing::regfile::{EnergyModel, SchemeSpec};
    let m = module(CHAIN, F9);
    let gpu = presets::turing_rtx2060();
    let scheme = SchemeSpec::parse("regmutex").and_then(|s| s.resolve(&gpu, &EnergyModel::default()));
    assert!(scheme.is_ok(), "{scheme:?}");
    let Ok(scheme) = scheme else { return };
    let got = rewrite_diff(&m, &scheme);
    assert!(matches!(got, Ok(Some(_))), "{got:?}");
    let Ok(Some(got)) = got else { return };
    // Two added rows, nothing else edited; each names the original it stands before.
    let edits: Vec<_> = got.diff.rows.iter().filter(|r| r.kind != RowKind::Same).collect();
    assert_eq!(edits.iter().map(|r| r.kind).collect::<Vec<_>>(), [RowKind::Added, RowKind::Added]);
    let line = |i: usize| edits[i].new.and_then(|n| got.rewritten.get(n)).map(|s| s.trim().to_string());
    assert_eq!(line(0).as_deref(), Some("regmutex.acquire 2;"));
    assert_eq!(line(1).as_deref(), Some("regmutex.release 2;"));
    assert_eq!(edits[0].reason.as_deref(), Some("inserted by the scheme before `add.f32 %f2, %f1, 0f3F800000;`"));
}

/// One SM of `regmutex:SPEC` on hopper-h100, shown the chain's program (E = 2: sid 1 acquires,
/// sid 6 releases).
fn scheme(spec: &str) -> Option<alloc::boxed::Box<dyn super::RegisterFileScheme>> {
    use super::{registry::by_name, SchemeContext, SmGeometry};
    use crate::timing::regfile::{EnergyModel, SchemeSpec};
    let gpu = presets::hopper_h100();
    let energy = EnergyModel::default();
    let resolved = SchemeSpec::parse(spec).and_then(|s| s.resolve(&gpu, &energy));
    assert!(resolved.is_ok(), "{resolved:?}");
    let geometry = SmGeometry { schedulers: 4, groups: 4, warp_size: 32, max_warps: 64 };
    let ctx = SchemeContext { gpu: &gpu, geometry, energy: &energy };
    let made = resolved.ok().zip(by_name("regmutex")).map(|(r, e)| e.make(&ctx, &r.config));
    assert!(matches!(made, Some(Ok(_))), "regmutex not built");
    let Some(Ok(mut s)) = made else { return None };
    let m = module(CHAIN, F9);
    let sp = SchemeProgram::build(&m, &Program::decode(&m, &gpu), Some(transform), None, &gpu, true);
    assert!(sp.is_ok(), "{sp:?}");
    if let Ok(sp) = sp {
        s.on_scheme_program(&sp);
    }
    Some(s)
}

fn request(warp: u32, sid: u32) -> super::OperandRequest<'static> {
    super::OperandRequest {
        warp,
        scheduler: warp % 4,
        group: warp % 4,
        sid,
        reads: &[],
        writes: &[],
        unit: crate::timing::exec_units::UnitKind::Int,
        mem: crate::timing::program::MemOp::None,
    }
}

/// Issues `sid` for `warp`; an accepted instruction's collector is freed at once.
fn issue(s: &mut dyn super::RegisterFileScheme, warp: u32, sid: u32, now: u64) -> super::IssueOutcome {
    let out = s.try_issue(&request(warp, sid), now);
    if let super::IssueOutcome::Collecting(cu) = out {
        s.release(cu);
    }
    out
}

fn counter(s: &dyn super::RegisterFileScheme, name: &str) -> u64 {
    s.stats().counters.iter().find(|c| c.name == name).map_or(0, |c| c.value)
}

#[test]
fn an_acquire_waits_for_a_release_and_a_finished_warp_frees_its_registers() {
    use super::IssueOutcome::{Collecting, Stall};
    use crate::timing::sm::hooks::{ResidencyEvent, SmActions};
    // srp_fraction 0: the pool is raised to one extension (2 warp-registers).
    let Some(mut s) = scheme("regmutex:srp_fraction=0") else { return };
    assert_eq!(counter(&*s, "srp_warp_registers"), 2);
    assert!(matches!(issue(&mut *s, 0, 1, 1), Collecting(_)));
    assert_eq!(issue(&mut *s, 1, 1, 1), Stall);
    assert_eq!(s.issue_stall_cause(), crate::timing::report::StallCause::AcquireWait);
    // Warp 0 acquiring again holds already: accepted, nothing taken.
    assert!(matches!(issue(&mut *s, 0, 1, 2), Collecting(_)));
    assert!(matches!(issue(&mut *s, 0, 6, 3), Collecting(_)));
    assert!(matches!(issue(&mut *s, 1, 1, 3), Collecting(_)));
    // Warp 1 finishes without its release: the pool is free again for warp 2.
    s.on_residency(&ResidencyEvent::WarpFinished { warp: 1, cta: 0 }, 4, &mut SmActions::default());
    assert!(matches!(issue(&mut *s, 2, 1, 5), Collecting(_)));
    assert_eq!((counter(&*s, "acquires"), counter(&*s, "releases"), counter(&*s, "srp_stalls")), (3, 1, 1));
    // Registers per thread: the allocation less E.
    let gpu = presets::hopper_h100();
    let m = module(CHAIN, F9);
    let k = Program::decode(&m, &gpu).kernels.first().cloned();
    assert_eq!(k.map(|k| s.registers_per_thread(&k, Some(10))), Some(8));
}

#[test]
fn a_stalled_cta_holding_the_last_extension_is_not_parked() {
    use crate::timing::sm::hooks::{ResidencyEvent, SmActions};
    let Some(mut s) = scheme("regmutex:srp_fraction=0") else { return };
    assert!(matches!(issue(&mut *s, 0, 1, 1), super::IssueOutcome::Collecting(_)));
    let mut out = SmActions::default();
    s.on_residency(&ResidencyEvent::WarpLongLatencyStall { warp: 0, cta: 3, sid: 2 }, 2, &mut out);
    // Parked it would keep 2 of the pool's 2: no room for one extension (2) among active warps.
    s.on_residency(&ResidencyEvent::CtaAllStalled { cta: 3 }, 3, &mut out);
    assert_eq!(counter(&*s, "srp_kept_active"), 1);
    // A pool of 4 warp-registers (srp_fraction = 4 × 32 / 65536) leaves room: passed on.
    let Some(mut s) = scheme("regmutex:srp_fraction=0.001953125") else { return };
    assert_eq!(counter(&*s, "srp_warp_registers"), 4);
    assert!(matches!(issue(&mut *s, 0, 1, 1), super::IssueOutcome::Collecting(_)));
    s.on_residency(&ResidencyEvent::WarpLongLatencyStall { warp: 0, cta: 3, sid: 2 }, 2, &mut out);
    s.on_residency(&ResidencyEvent::CtaAllStalled { cta: 3 }, 3, &mut out);
    assert_eq!(counter(&*s, "srp_kept_active"), 0);
}
