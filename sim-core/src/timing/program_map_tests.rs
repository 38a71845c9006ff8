//! Per-scheme programs, proved with test transforms (no shipped scheme transforms code yet): an
//! identity transform changes nothing; a fused pair, an inserted instruction and a load folded
//! into its consumer change the counts and cycles by hand-worked amounts; a transform whose
//! result fails verification is a clear error.
//!
//! Timing on `hopper-h100`, one SM, one warp (see `tests/cases/timing/alu_chain.ptx`): issue at
//! t, operands read and dispatched at t + 1, an f32 add written back at t + 1 + 4; write-back
//! precedes issue, so a dependent add issues 5 cycles after its producer.

use alloc::string::String;
use alloc::vec::Vec;

use super::{InstFate, InstMap, ProgramTransform, SchemeProgram, SidMap, Translate};
use crate::exec::LaunchSetup;
use crate::gpu::presets;
use crate::ir::{Function, Handle, Inst, Module};
use crate::timing::stream::trace::{MemSpace, NO_ACCESS};
use crate::timing::stream::warp_stream::{Cursor, WarpStream};
use crate::timing::{Program, Report, RunSpec, Simulation, TimingError, TimingOptions};

/// `alu_chain.ptx`: mov, 8 dependent adds, ret — 47 cycles, 10 warp instructions, 8 RF reads,
/// 9 RF writes under the baseline (the file test's working).
const CHAIN: &str = ".version 7.0\n.target sm_90\n.address_size 64\n\
    .visible .entry k(.param .u64 out)\n{\n.reg .f32 %f<10>;\nmov.f32 %f1, 0f3F800000;\n\
    add.f32 %f2, %f1, 0f3F800000;\nadd.f32 %f3, %f2, 0f3F800000;\nadd.f32 %f4, %f3, 0f3F800000;\n\
    add.f32 %f5, %f4, 0f3F800000;\nadd.f32 %f6, %f5, 0f3F800000;\nadd.f32 %f7, %f6, 0f3F800000;\n\
    add.f32 %f8, %f7, 0f3F800000;\nadd.f32 %f9, %f8, 0f3F800000;\nret;\n}\n";

/// The chain with adds 1 and 2 fused into one (`%f3 = %f1 + 2`), standing where add 2 stood.
const CHAIN_FUSED: &str = ".version 7.0\n.target sm_90\n.address_size 64\n\
    .visible .entry k(.param .u64 out)\n{\n.reg .f32 %f<10>;\nmov.f32 %f1, 0f3F800000;\n\
    add.f32 %f3, %f1, 0f40000000;\nadd.f32 %f4, %f3, 0f3F800000;\n\
    add.f32 %f5, %f4, 0f3F800000;\nadd.f32 %f6, %f5, 0f3F800000;\nadd.f32 %f7, %f6, 0f3F800000;\n\
    add.f32 %f8, %f7, 0f3F800000;\nadd.f32 %f9, %f8, 0f3F800000;\nret;\n}\n";

/// The chain with `add %f4, %f4, 0` inserted before the add that writes `%f5`.
const CHAIN_INSERTED: &str = ".version 7.0\n.target sm_90\n.address_size 64\n\
    .visible .entry k(.param .u64 out)\n{\n.reg .f32 %f<10>;\nmov.f32 %f1, 0f3F800000;\n\
    add.f32 %f2, %f1, 0f3F800000;\nadd.f32 %f3, %f2, 0f3F800000;\nadd.f32 %f4, %f3, 0f3F800000;\n\
    add.f32 %f4, %f4, 0f00000000;\n\
    add.f32 %f5, %f4, 0f3F800000;\nadd.f32 %f6, %f5, 0f3F800000;\nadd.f32 %f7, %f6, 0f3F800000;\n\
    add.f32 %f8, %f7, 0f3F800000;\nadd.f32 %f9, %f8, 0f3F800000;\nret;\n}\n";

/// A shared load and its single consumer.
const LOAD_ADD: &str = ".version 7.0\n.target sm_90\n.address_size 64\n.shared .align 4 .f32 buf[32];\n\
    .visible .entry k(.param .u64 out)\n{\n.reg .f32 %f<4>;\nld.shared.f32 %f1, [buf];\n\
    add.f32 %f2, %f1, 0f3F800000;\nret;\n}\n";

/// The load folded into its consumer: the consumer stands as one LD/ST instruction writing the
/// consumer's result (the shape a memory operand routed to the LD/ST unit takes).
const LOAD_FOLDED: &str = ".version 7.0\n.target sm_90\n.address_size 64\n.shared .align 4 .f32 buf[32];\n\
    .visible .entry k(.param .u64 out)\n{\n.reg .f32 %f<4>;\nld.shared.f32 %f2, [buf];\nret;\n}\n";

const LAUNCH: &str = r#"{"kernel": "k", "block": [32], "params": [{"buffer": {"type": "f32", "len": 1}}]}"#;

fn compile(src: &str) -> Result<Module, String> {
    crate::ptx::compile(src).map_err(|d| alloc::format!("{d:?}"))
}

fn inst(i: u32) -> Handle<Inst> {
    Handle::from_index(i)
}

/// The map of kernel 0: original instruction `i` → `fates[i]`.
fn map_of(fates: Vec<InstFate>) -> InstMap {
    let mut m = InstMap::new();
    for (i, f) in fates.into_iter().enumerate() {
        m.set(Handle::<Function>::from_index(0), inst(i as u32), f);
    }
    m
}

fn identity(m: &Module) -> Result<(Module, InstMap), String> {
    Ok((m.clone(), InstMap::new()))
}

/// Original 0 → 0; 1 (add %f2) merged into 2's fused add (new 1); 2..=9 → 1..=8.
fn fuse(_: &Module) -> Result<(Module, InstMap), String> {
    let fates =
        (0..10u32).map(|i| if i == 1 { InstFate::dropped() } else { InstFate::kept(inst(i.saturating_sub(1))) });
    Ok((compile(CHAIN_FUSED)?, map_of(fates.collect())))
}

/// Original 0..=3 → 0..=3; 4 (add %f5) → new 5 with new 4 inserted before it; 5..=9 → 6..=10.
fn insert(_: &Module) -> Result<(Module, InstMap), String> {
    let fates = (0..10u32).map(|i| match i {
        0..=3 => InstFate::kept(inst(i)),
        4 => InstFate { before: alloc::vec![inst(4)], ..InstFate::kept(inst(5)) },
        _ => InstFate::kept(inst(i + 1)),
    });
    Ok((compile(CHAIN_INSERTED)?, map_of(fates.collect())))
}

/// Original 0 (the load) dropped; 1 (the add) → new 0, taking the load's access; 2 → 1.
fn fold(_: &Module) -> Result<(Module, InstMap), String> {
    let fates = alloc::vec![
        InstFate::dropped(),
        InstFate { absorbs: true, ..InstFate::kept(inst(0)) },
        InstFate::kept(inst(1))
    ];
    Ok((compile(LOAD_FOLDED)?, map_of(fates)))
}

/// A result the verifier rejects: the add writes a register that does not exist.
fn broken(m: &Module) -> Result<(Module, InstMap), String> {
    let mut out = m.clone();
    let body = out.functions.get_mut(Handle::from_index(0)).and_then(|f| f.body.as_mut());
    if let Some(i) = body.and_then(|b| b.insts.get_mut(inst(1))) {
        if let Some(op) = i.operands.first_mut() {
            *op = crate::ir::Operand::Reg(Handle::from_index(99));
        }
    }
    Ok((out, InstMap::new()))
}

/// The baseline on `src` as is, and timed on `transform`'s program (one CTA, one SM).
fn run(src: &str, transform: ProgramTransform) -> Result<(Report, Report), TimingError> {
    run_with(src, LAUNCH, 1, transform)
}

fn run_with(src: &str, launch: &str, sms: u32, transform: ProgramTransform) -> Result<(Report, Report), TimingError> {
    let module = compile(src).map_err(TimingError::Internal)?;
    let setup = LaunchSetup::from_json(launch).map_err(|e| TimingError::Internal(alloc::format!("{e:?}")))?;
    let spec = crate::timing::SchemeSpec::parse("baseline").map_err(TimingError::SchemeConfig)?;
    let specs = [
        RunSpec { spec: spec.clone(), transform: None, assign: None },
        RunSpec { spec, transform: Some(transform), assign: None },
    ];
    let options = TimingOptions { sms: Some(sms), ..TimingOptions::default() };
    let mut sim = Simulation::from_launch_runs(&module, &setup, &presets::hopper_h100(), &specs, options)?;
    let mut reports = sim.run_to_end()?.into_iter();
    match (reports.next(), reports.next()) {
        (Some(a), Some(b)) => Ok((a, b)),
        _ => Err(TimingError::Internal(String::from("two reports expected"))),
    }
}

/// (cycles, warp instructions, thread instructions, RF reads, RF writes).
fn figures(r: &Report) -> (u64, u64, u64, u64, u64) {
    (r.cycles, r.warp_instructions, r.thread_instructions, r.register_file.reads, r.register_file.writes)
}

#[test]
fn an_identity_transform_changes_nothing() {
    let r = run(CHAIN, identity);
    assert!(r.is_ok(), "{r:?}");
    let Ok((plain, mapped)) = r else { return };
    assert_eq!(figures(&plain), (47, 10, 320, 8, 9));
    assert_eq!(plain, mapped);
}

#[test]
fn a_fused_pair_issues_once() {
    // mov 1 (written 6) · fused add %f3 6 · adds %f4..%f9 11, 16, 21, 26, 31, 36 · ret 37; the
    // last add is written at 36 + 5 = 41 → 42 cycles (47 − 5): one warp-instruction fewer, one
    // RF read (%f2) and one RF write (%f2) fewer.
    let r = run(CHAIN, fuse);
    assert!(r.is_ok(), "{r:?}");
    let Ok((plain, fused)) = r else { return };
    assert_eq!(figures(&plain), (47, 10, 320, 8, 9));
    assert_eq!(figures(&fused), (42, 9, 288, 7, 8));
}

#[test]
fn many_ctas_keep_the_finish_bound_valid() {
    // 48 CTAs of 4 warps on 2 SMs: the run-ahead windows end at the CTA-finish bound, which now
    // counts the scheme's instructions (a wrong bound is an internal error). Each warp issues 9.
    let launch = r#"{"kernel": "k", "grid": [48], "block": [128], "params": [{"buffer": {"type": "f32", "len": 1}}]}"#;
    for (t, per_warp) in [(fuse as ProgramTransform, 9), (insert, 11)] {
        let r = run_with(CHAIN, launch, 2, t);
        assert!(r.is_ok(), "{r:?}");
        let Ok((plain, mapped)) = r else { return };
        assert_eq!(plain.warp_instructions, 48 * 4 * 10);
        assert_eq!(mapped.warp_instructions, 48 * 4 * per_warp);
    }
}

#[test]
fn an_inserted_instruction_issues_with_the_same_lanes() {
    // mov 1 · adds %f2..%f4 6, 11, 16 (%f4 written 21) · inserted add %f4 21 (written 26) ·
    // adds %f5..%f9 26, 31, 36, 41, 46 · ret 47; the last add is written at 51 → 52 cycles
    // (47 + 5): one warp-instruction (32 threads) more, one RF read and write (%f4) more.
    let r = run(CHAIN, insert);
    assert!(r.is_ok(), "{r:?}");
    let Ok((_, inserted)) = r else { return };
    assert_eq!(figures(&inserted), (52, 11, 352, 9, 10));
}

#[test]
fn a_folded_load_travels_with_its_consumer() {
    // Shared latency 29 (hopper-h100), no registers read, a broadcast (degree 1): the load issues
    // at 1, dispatches at 2 and is written at 2 + 29 = 31. Original: the add issues at 31, is
    // written at 36 → 37 cycles, 3 warp-instructions, RF reads 1 (%f1), writes 2 (%f1, %f2).
    // Folded: the consumer issues at 1 with the load's access (ret at 2) and is written at 31 →
    // 32 cycles, 2 warp-instructions, no RF read, 1 write (%f2); still one shared access.
    let r = run(LOAD_ADD, fold);
    assert!(r.is_ok(), "{r:?}");
    let Ok((plain, folded)) = r else { return };
    assert_eq!(figures(&plain), (37, 3, 96, 1, 2));
    assert_eq!(figures(&folded), (32, 2, 64, 0, 1));
    assert_eq!((plain.memory.shared_accesses, folded.memory.shared_accesses), (1, 1));
}

#[test]
fn replay_hands_the_dropped_access_to_the_absorber_and_counts_the_scheme_instructions() {
    let gpu = presets::hopper_h100();
    let module = compile(LOAD_ADD);
    assert!(module.is_ok(), "{module:?}");
    let Ok(module) = module else { return };
    let original = Program::decode(&module, &gpu);
    let sp = SchemeProgram::build(&module, &original, Some(fold), None, &gpu, false);
    assert!(sp.is_ok(), "{sp:?}");
    let Ok(sp) = sp else { return };
    // Recorded: ld (access record 0) · add · ret, twice (a loop would look the same).
    let mut ws = WarpStream::new();
    for _ in 0..2 {
        assert_eq!(ws.push_access(0, 0xffff_ffff, MemSpace::Shared, 4, &[0; 32]), Ok(()));
        ws.push(1, 0xffff_ffff);
        ws.push(2, 0xff);
    }
    assert_eq!(SidMap::issued(&sp.map, &ws), 4, "6 recorded, 2 dropped");
    let (mut t, mut c) = (Translate::default(), Cursor::default());
    let got: Vec<(u32, u64, u32, Option<MemSpace>)> =
        (0..5).map(|pc| t.decode(&sp.map, &ws, pc, &mut c)).map(|d| (d.sid, d.executed, d.access, d.space)).collect();
    let shared = Some(MemSpace::Shared);
    assert_eq!(
        got,
        alloc::vec![
            (0, 0xffff_ffff, 0, shared),
            (1, 0xff, NO_ACCESS, None),
            (0, 0xffff_ffff, 1, shared),
            (1, 0xff, NO_ACCESS, None),
            (0, 0, NO_ACCESS, None)
        ]
    );
}

#[test]
fn a_transform_that_fails_verification_is_a_clear_error() {
    let r = run(CHAIN, broken);
    assert!(
        matches!(&r, Err(TimingError::SchemeProgram { scheme, message }) if scheme == "baseline" && message.contains("verification")),
        "{r:?}"
    );
}

/// Places `%f4` (written by instruction 3 of [`CHAIN`]) in slices 0–3 of R5 and 4–7 of R6, and
/// says the kernel needs 7 registers.
fn split_f4(
    _: &Module,
    a: &crate::analysis::ModuleAnalysis,
    out: &mut crate::timing::program_regs::RegisterAssignment,
) -> Result<(), String> {
    use crate::timing::program_regs::PhysSlice;
    let du = &a.get(Handle::<Function>::from_index(0)).ok_or("no analysis")?.def_use;
    let d = *du.defs_at(inst(3)).first().ok_or("no definition")?;
    out.values.insert((0, d), alloc::vec![PhysSlice { reg: 5, slices: 0x0f }, PhysSlice { reg: 6, slices: 0xf0 }]);
    out.registers.insert(0, 7);
    Ok(())
}

#[test]
fn a_scheme_that_only_assigns_registers_is_timed_on_its_assignment() {
    // No transform, only an assignment: the run keeps every instruction (10 warp instructions),
    // but %f4 lives in R5 and R6, so add 3 writes two registers and add 4 reads two: RF reads
    // 8 → 9 and writes 9 → 10. On hopper's sub-core (4 banks, bank = (reg + warp) % 4, warp 0)
    // R5 and R6 sit in banks 1 and 2: both reads are granted in the same cycle and both writes
    // land in the same cycle, so the chain still takes 47 cycles. Registers per thread: the
    // scheme's 7.
    let module = compile(CHAIN);
    let setup = LaunchSetup::from_json(LAUNCH);
    assert!(module.is_ok() && setup.is_ok());
    let (Ok(module), Ok(setup)) = (module, setup) else { return };
    let spec = crate::timing::SchemeSpec::parse("baseline");
    assert!(spec.is_ok());
    let Ok(spec) = spec else { return };
    let specs = [
        RunSpec { spec: spec.clone(), transform: None, assign: None },
        RunSpec { spec, transform: None, assign: Some(split_f4) },
    ];
    let options = TimingOptions { sms: Some(1), ..TimingOptions::default() };
    let sim = Simulation::from_launch_runs(&module, &setup, &presets::hopper_h100(), &specs, options);
    let reports = sim.and_then(|mut s| s.run_to_end());
    assert!(reports.is_ok(), "{reports:?}");
    let Ok(reports) = reports else { return };
    let (Some(plain), Some(split)) = (reports.first(), reports.get(1)) else { return };
    assert_eq!(figures(plain), (47, 10, 320, 8, 9));
    assert_eq!(figures(split), (47, 10, 320, 9, 10));
    assert_eq!(split.kernels.first().map(|k| k.registers_per_thread), Some(7));
}
