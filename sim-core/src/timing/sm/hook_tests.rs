//! Unit tests of the SM hooks, each with a small test scheme (the conflict-free register file
//! plus one hook) and a hand-worked expectation. One SM of `hopper-h100` (4 schedulers, one per
//! sub-core; warp slot `w` on scheduler `w % 4`), CTAs launched at the end of cycle 0.
//!
//! Timing used below (see the SM module): an instruction issued at `t` reads its operands at
//! `t + 1`, dispatches then and its result is written back at `t + 1 + latency`; a dependent
//! instruction issues in that write-back cycle. `L` is the preset's integer add latency.

use alloc::boxed::Box;
use alloc::collections::VecDeque;
use alloc::rc::Rc;
use alloc::vec;
use alloc::vec::Vec;
use core::cell::RefCell;

use super::hooks::{
    HookSet, MoveCost, ResidencyAction, ResidencyEvent, Route, SchemeMemRequest, SchemeUnit, SmActions,
};
use super::{ChipContext, Sm};
use crate::gpu::{presets, GpuConfig, SchedulingPolicy};
use crate::timing::exec_units::UnitKind;
use crate::timing::memory::l2::L2;
use crate::timing::memory::MemoryStats;
use crate::timing::program::Program;
use crate::timing::regfile::config::SchemeSpec;
use crate::timing::regfile::no_bank_conflicts::ConflictFreeRegisterFile;
use crate::timing::regfile::{
    CuId, EnergyModel, IssueOutcome, OperandRequest, RegisterFileScheme, SchemeContext, SchemeStats, SmGeometry,
    WriteRequest,
};
use crate::timing::report::StallCause;
use crate::timing::stream::trace::{CtaStream, LaunchShape, MemSpace, WarpStream};

/// mov, two dependent integer adds, ret.
const INT_CHAIN: &str = ".version 7.0\n.target sm_90\n.address_size 64\n.visible .entry k()\n{\n\
    .reg .u32 %r<4>;\nmov.u32 %r1, 1;\nadd.u32 %r2, %r1, %r1;\nadd.u32 %r3, %r2, %r1;\nret;\n}\n";

/// mov, a global load at the address, an add of the loaded value, ret.
const LOAD_USE: &str = ".version 7.0\n.target sm_90\n.address_size 64\n.visible .entry k()\n{\n\
    .reg .u32 %r<4>;\n.reg .u64 %rd<2>;\nmov.u64 %rd1, 4096;\nld.global.u32 %r1, [%rd1];\n\
    add.u32 %r2, %r1, %r1;\nret;\n}\n";

/// What a test scheme does besides collecting operands without conflicts.
#[derive(Default)]
struct Behaviour {
    hooks: HookSet,
    /// Route every integer-unit instruction to scheme pool 0 (latency 2).
    scalar: bool,
    /// Extra read latency of source operand 1; extra write latency of every result.
    read_op1: u32,
    write_all: u32,
    /// Pair two instructions of different warps when they are the same static instruction.
    pair_same_sid: bool,
    /// Swap a fully stalled CTA for a never-run parked one; activate the swapped-out one when a
    /// CTA finishes.
    swap: bool,
    /// Park a fully stalled CTA and read 128 bytes at 4096; activate it when the read is back.
    park_and_read: bool,
    /// Park a fully stalled CTA; activate it when the SM says it is ready.
    park_until_ready: bool,
    /// Refuse every issue before this cycle, as an acquire wait.
    stall_until: u64,
    never_run: VecDeque<u32>,
    swapped_out: VecDeque<u32>,
    log: Rc<RefCell<Vec<(u64, ResidencyEvent)>>>,
}

struct TestScheme {
    inner: ConflictFreeRegisterFile,
    b: Behaviour,
}

const MOVE: MoveCost = MoveCost { cycles: 5, rf_reads: 3, rf_writes: 3 };

impl RegisterFileScheme for TestScheme {
    fn name(&self) -> &'static str {
        "test"
    }
    fn collector_free(&self, group: u32) -> bool {
        self.inner.collector_free(group)
    }
    fn try_issue(&mut self, req: &OperandRequest<'_>, now: u64) -> IssueOutcome {
        if now < self.b.stall_until {
            return IssueOutcome::Stall;
        }
        self.inner.try_issue(req, now)
    }
    fn issue_stall_cause(&self) -> StallCause {
        StallCause::AcquireWait
    }
    fn cycle(&mut self, now: u64, collected: &mut Vec<CuId>) {
        self.inner.cycle(now, collected);
    }
    fn release(&mut self, cu: CuId) {
        self.inner.release(cu);
    }
    fn try_write(&mut self, req: &WriteRequest<'_>, now: u64) -> bool {
        self.inner.try_write(req, now)
    }
    fn busy(&self) -> bool {
        self.inner.busy()
    }
    fn stats(&self) -> SchemeStats {
        self.inner.stats()
    }
    fn hooks(&self) -> HookSet {
        self.b.hooks
    }
    fn max_resident_ctas(&self, slots_limit: u32) -> u32 {
        slots_limit + 1
    }
    fn scheme_units(&self) -> Vec<SchemeUnit> {
        vec![SchemeUnit { name: "scalar", pipes: 1, latency: 2, interval: 1 }]
    }
    fn route(&mut self, req: &OperandRequest<'_>, _now: u64) -> Route {
        if self.b.scalar && req.unit == UnitKind::Int {
            Route::Scheme(0)
        } else {
            Route::Own
        }
    }
    fn operand_read_latency(&self, _req: &OperandRequest<'_>, operand: usize) -> u32 {
        if operand == 1 {
            self.b.read_op1
        } else {
            0
        }
    }
    fn operand_write_latency(&self, _req: &OperandRequest<'_>, _operand: usize) -> u32 {
        self.b.write_all
    }
    fn pair(&mut self, first: &OperandRequest<'_>, second: &OperandRequest<'_>) -> bool {
        self.b.pair_same_sid && first.warp != second.warp && first.sid == second.sid
    }
    fn on_residency(&mut self, event: &ResidencyEvent, now: u64, out: &mut SmActions) {
        self.b.log.borrow_mut().push((now, *event));
        match *event {
            ResidencyEvent::CtaLaunched { cta, active: false, .. } => self.b.never_run.push_back(cta),
            ResidencyEvent::CtaAllStalled { cta } if self.b.swap => {
                if let Some(next) = self.b.never_run.pop_front() {
                    out.residency.push(ResidencyAction::Swap { park: cta, activate: next, cost: MOVE });
                    self.b.swapped_out.push_back(cta);
                }
            }
            ResidencyEvent::CtaFinished { .. } if self.b.swap => {
                if let Some(back) = self.b.swapped_out.pop_front() {
                    out.residency.push(ResidencyAction::Activate { cta: back, cost: MOVE });
                }
            }
            ResidencyEvent::CtaAllStalled { cta } if self.b.park_until_ready => {
                out.residency.push(ResidencyAction::Park { cta, cost: MoveCost::default() });
            }
            ResidencyEvent::ParkedCtaReady { cta } if self.b.park_until_ready => {
                out.residency.push(ResidencyAction::Activate { cta, cost: MoveCost::default() });
            }
            ResidencyEvent::CtaAllStalled { cta } if self.b.park_and_read => {
                out.residency.push(ResidencyAction::Park { cta, cost: MoveCost::default() });
                out.memory.push(SchemeMemRequest {
                    id: u64::from(cta),
                    write: false,
                    space: MemSpace::Global,
                    addr: 4096,
                    bytes: 128,
                });
            }
            _ => {}
        }
    }
    fn on_memory_done(&mut self, id: u64, now: u64, out: &mut SmActions) {
        self.b.log.borrow_mut().push((now, ResidencyEvent::CtaFinished { cta: u32::MAX }));
        out.residency.push(ResidencyAction::Activate { cta: id as u32, cost: MoveCost::default() });
    }
}

/// The outcome of a harness run.
struct Run {
    /// Cycle each CTA finished in, by launch order.
    finish: Vec<u64>,
    /// (cycle, resident CTAs, active CTAs) after every simulated cycle.
    timeline: Vec<(u64, u32, u32)>,
    sm: Sm<TestScheme>,
    mem: MemoryStats,
}

impl Run {
    /// Resident and active CTAs after the last simulated cycle up to `t`.
    fn at(&self, t: u64) -> (u32, u32) {
        self.timeline.iter().rev().find(|x| x.0 <= t).map_or((0, 0), |x| (x.1, x.2))
    }
}

fn gpu() -> GpuConfig {
    presets::hopper_h100()
}

fn program(src: &str) -> Program {
    let module = crate::ptx::compile(src).unwrap_or_default();
    Program::decode(&module, &gpu())
}

/// A CTA of `warps` warps running every instruction of `program` once; the load (if any) reads
/// 32 consecutive words at 4096.
fn cta(program: &Program, warps: usize) -> CtaStream {
    let mut w = WarpStream::new();
    let lanes: Vec<u64> = (0..32).map(|l| 4096 + 4 * l).collect();
    for (sid, s) in program.insts.iter().enumerate() {
        if s.unit == UnitKind::LdSt {
            assert!(w.push_access(sid as u32, u64::from(u32::MAX), MemSpace::Global, 4, &lanes).is_ok());
        } else {
            w.push(sid as u32, u64::from(u32::MAX));
        }
    }
    CtaStream {
        launch: 0,
        shape: LaunchShape { kernel: 0, threads: 32 * warps as u32, dynamic_smem: 0 },
        warps: vec![w; warps],
        more: None,
    }
}

/// Runs `ctas` CTAs on one SM under the test scheme with `b`, `slots` of them active at launch.
fn run(program: &Program, cta: &CtaStream, ctas: u64, slots: u32, b: Behaviour) -> Run {
    run_on(&gpu(), program, cta, ctas, slots, b)
}

/// [`run`] on `gpu`.
fn run_on(gpu: &GpuConfig, program: &Program, cta: &CtaStream, ctas: u64, slots: u32, b: Behaviour) -> Run {
    let gpu = gpu.clone();
    let energy = EnergyModel::default();
    let geo = SmGeometry { schedulers: 4, groups: gpu.core.sub_cores.max(1), warp_size: 32, max_warps: 64 };
    let ctx = SchemeContext { gpu: &gpu, geometry: geo, energy: &energy };
    let inner = SchemeSpec { scheme: "no-bank-conflicts".into(), params: Default::default() }
        .resolve(&gpu, &energy)
        .and_then(|r| ConflictFreeRegisterFile::new(&ctx, &r.config));
    assert!(inner.is_ok(), "no-bank-conflicts builds with its defaults");
    let Ok(inner) = inner else { unreachable!() };
    let mut sm = Sm::new(&gpu, geo, Box::new(TestScheme { inner, b }));
    let (mut l2, mut mem) = (L2::new(&gpu), MemoryStats::default());
    for n in 0..ctas {
        sm.launch(Rc::new(cta.clone()), n, 1024, slots, 0);
    }
    let mut out = Run {
        finish: vec![0; ctas as usize],
        timeline: vec![(0, sm.resident_ctas(), sm.active_ctas())],
        sm,
        mem: MemoryStats::default(),
    };
    let mut done = 0;
    let mut t = 1;
    while done < ctas && t < 100_000 {
        t = out.sm.next_event().max(t);
        let mut cx = ChipContext { program, l2: &mut l2, mem_stats: &mut mem };
        out.sm.cycle(t, &mut cx);
        // The SM reports how many finished; by launch order here (equal-length CTAs).
        let before = out.sm.finished.clone();
        for number in before {
            if let Some(f) = out.finish.get_mut(number as usize) {
                *f = t;
            }
        }
        done += out.sm.take_finished() as u64;
        out.timeline.push((t, out.sm.resident_ctas(), out.sm.active_ctas()));
        t += 1;
    }
    out.sm.account_until(t);
    out.mem = mem;
    out
}

fn int_add_latency() -> u64 {
    u64::from(gpu().execution.int.add.latency)
}

#[test]
fn an_int_chain_routed_to_a_two_cycle_scalar_unit() {
    let p = program(INT_CHAIN);
    assert!(p.insts.iter().take(3).all(|s| s.unit == UnitKind::Int), "mov and adds run on the INT unit");
    let l = int_add_latency();
    let base = run(&p, &cta(&p, 1), 1, 1, Behaviour::default());
    // mov at 1 (written 2 + L), add at 2 + L (3 + 2L), add at 3 + 2L written at 4 + 3L: done.
    assert_eq!(base.finish, [4 + 3 * l]);
    let routed = run(&p, &cta(&p, 1), 1, 1, Behaviour { hooks: HookSet::ROUTE, scalar: true, ..Behaviour::default() });
    // Latency 2: mov at 1 (written 4), add at 4 (7), add at 7 written at 10.
    assert_eq!(routed.finish, [10]);
    assert_eq!(routed.sm.stats().warp_instructions, 4);
}

#[test]
fn per_operand_read_and_write_latency() {
    let p = program(INT_CHAIN);
    let l = int_add_latency();
    let b = Behaviour { hooks: HookSet::OPERAND_LATENCY, read_op1: 3, ..Behaviour::default() };
    let r = run(&p, &cta(&p, 1), 1, 1, b);
    // Only the second add has a source operand 1 (%r1 beside %r2; the first add reads %r1
    // twice, one register): it dispatches 3 cycles late, so the chain ends 3 cycles later.
    assert_eq!(r.finish, [4 + 3 * l + 3]);
    let b = Behaviour { hooks: HookSet::OPERAND_LATENCY, write_all: 2, ..Behaviour::default() };
    let w = run(&p, &cta(&p, 1), 1, 1, b);
    // Every result (mov, add, add) is written 2 cycles late: 3 × 2 more.
    assert_eq!(w.finish, [4 + 3 * l + 6]);
}

#[test]
fn two_warps_of_a_scheduler_pair_their_same_instructions() {
    let p = program(INT_CHAIN);
    // 8 warps: each scheduler holds warps s and s + 4, 4 instructions each.
    let alone = run(&p, &cta(&p, 8), 1, 1, Behaviour::default());
    let b = Behaviour { hooks: HookSet::PAIRING, pair_same_sid: true, ..Behaviour::default() };
    let paired = run(&p, &cta(&p, 8), 1, 1, b);
    assert_eq!(alone.sm.stats().warp_instructions, 32);
    assert_eq!(paired.sm.stats().warp_instructions, 32);
    // Alone: 8 issue cycles per scheduler. Paired: the movs of warps s and s + 4 are ready in
    // cycle 1 and pair; the sub-core's INT pipe takes one a cycle, so warp s + 4's mov starts
    // (and is written) a cycle after warp s's and its adds run a cycle behind — never ready in
    // the same cycle as warp s's, so they do not pair; the rets never pair (no unit, no
    // operands). 1 + 2 + 2 + 2 = 7 issue cycles.
    assert_eq!(alone.sm.stats().stalls.get(StallCause::Issued), 4 * 8);
    assert_eq!(paired.sm.stats().stalls.get(StallCause::Issued), 4 * 7);
}

#[test]
fn a_fully_stalled_cta_is_swapped_for_a_parked_one_and_comes_back_when_a_cta_finishes() {
    let p = program(LOAD_USE);
    let l = int_add_latency();
    let log = Rc::new(RefCell::new(Vec::new()));
    let b = Behaviour { hooks: HookSet::RESIDENCY, swap: true, log: log.clone(), ..Behaviour::default() };
    // Three one-warp CTAs (slots 0, 1, 2 on schedulers 0, 1, 2), two active at launch.
    let r = run(&p, &cta(&p, 1), 3, 2, b);
    assert_eq!(r.at(0), (3, 2), "CTA 2 starts parked");
    // mov at 1 (written 2 + L); the loads issue at t = 2 + L and their warps sleep on them:
    // CTAs 0 and 1 are all stalled; CTA 0 is swapped for CTA 2 (5 cycles: issues from t + 6).
    let t = 2 + l;
    let stalled: Vec<u64> = log
        .borrow()
        .iter()
        .filter(|(_, e)| matches!(e, ResidencyEvent::CtaAllStalled { cta: 0 | 1 }))
        .map(|x| x.0)
        .collect();
    assert_eq!(stalled, [t, t]);
    assert_eq!(r.at(t), (3, 1), "CTA 0 parked, CTA 2 still moving in");
    assert_eq!(r.at(t + 5), (3, 1));
    assert_eq!(r.at(t + 6), (3, 2), "CTA 2 active");
    // CTA 1 finishes at f1; CTA 0 comes back (5 cycles): its add issues at f1 + 6 (the load
    // returned long ago), written at f1 + 7 + L.
    let f1 = r.finish[1];
    assert_eq!(r.finish[0], f1 + 7 + l);
    let res = r.sm.stats().residency;
    assert_eq!((res.parks, res.cta_switches, res.move_cycles), (1, 2, 10));
    assert_eq!((res.moved_register_reads, res.moved_register_writes), (6, 6));
    // Scheduler 2 has only CTA 2's warp: parked for cycles 1 ..= t + 5; scheduler 0 only CTA
    // 0's: parked for t + 1 ..= f1 + 5. Together f1 + 10 cycles.
    assert_eq!(r.sm.stats().stalls.get(StallCause::CtaSwitch), f1 + 10);
}

#[test]
fn a_scheme_read_goes_through_l1_and_the_cta_waits_for_it() {
    let p = program(LOAD_USE);
    let base = run(&p, &cta(&p, 1), 1, 1, Behaviour::default());
    let log = Rc::new(RefCell::new(Vec::new()));
    let b = Behaviour { hooks: HookSet::RESIDENCY, park_and_read: true, log: log.clone(), ..Behaviour::default() };
    let r = run(&p, &cta(&p, 1), 1, 1, b);
    // The CTA stalls on its load at t (issued then); the scheme parks it and reads the same
    // 128-byte line, sent in t + 1's dispatch before the load: the read misses, the load hits
    // the line being filled, both back at R (the baseline's load completion). The activation
    // answered in R lets the add issue at R + 1 instead of R: one cycle later.
    assert_eq!(r.finish[0], base.finish[0] + 1);
    let m = &r.mem;
    assert_eq!((m.scheme_reads, m.scheme_writes, m.scheme_bytes, m.scheme_transactions), (1, 0, 128, 1));
    assert_eq!((m.global_loads, m.transactions), (1, 1), "the kernel's own counts are its own");
    assert_eq!((r.sm.l1().misses, r.sm.l1().hits), (1, 1));
    assert_eq!((base.sm.l1().misses, base.sm.l1().hits), (1, 0));
    let done_at =
        log.borrow().iter().find(|(_, e)| matches!(e, ResidencyEvent::CtaFinished { cta: u32::MAX })).map(|x| x.0);
    assert_eq!(done_at, Some(base.finish[0] - 1 - int_add_latency()), "R: the add's issue in the baseline");
    assert_eq!(r.sm.stats().residency.parks, 1);
    assert_eq!(r.sm.stats().residency.cta_switches, 1);
}

#[test]
fn schemes_without_hooks_leave_every_cta_active() {
    let p = program(LOAD_USE);
    let r = run(&p, &cta(&p, 1), 3, 2, Behaviour::default());
    assert_eq!(r.at(0), (3, 3), "no residency hooks: the slot limit is not the SM's business");
    assert_eq!(r.sm.stats().stalls.get(StallCause::CtaSwitch), 0);
}

#[test]
fn the_two_level_active_set_reports_who_enters_and_leaves() {
    let p = program(LOAD_USE);
    let mut g = gpu();
    g.scheduler.policy = SchedulingPolicy::TwoLevel { active_warps: 1 };
    let log = Rc::new(RefCell::new(Vec::new()));
    let b = Behaviour { hooks: HookSet::ACTIVE_SET, log: log.clone(), ..Behaviour::default() };
    // 5 warps: scheduler 0 holds warps 0 and 4, with room for one in its active set.
    let r = run_on(&g, &p, &cta(&p, 5), 1, 1, b);
    assert!(r.finish[0] > 0);
    let seq: Vec<(u64, ResidencyEvent)> = log
        .borrow()
        .iter()
        .copied()
        .filter(|(_, e)| {
            matches!(e, ResidencyEvent::ActiveSetEnter { warp: 0 | 4 } | ResidencyEvent::ActiveSetLeave { warp: 0 | 4 })
        })
        .collect();
    // Warp 0 enters at the first look (cycle 1) and leaves once it waits on its load (issued at
    // 2 + L): warp 4 takes its place in the same look.
    let l = int_add_latency();
    assert_eq!(seq.first(), Some(&(1, ResidencyEvent::ActiveSetEnter { warp: 0 })));
    let leave = seq.iter().position(|x| x.1 == ResidencyEvent::ActiveSetLeave { warp: 0 });
    let enter4 = seq.iter().position(|x| x.1 == ResidencyEvent::ActiveSetEnter { warp: 4 });
    assert_eq!(leave.map(|i| i + 1), enter4);
    assert!(leave.and_then(|i| seq.get(i)).is_some_and(|x| x.0 > 2 + l));
}

#[test]
fn a_scheme_stall_is_charged_to_the_cause_the_scheme_names_and_listed_only_then() {
    let p = program(INT_CHAIN);
    let l = int_add_latency();
    let r = run(&p, &cta(&p, 1), 1, 1, Behaviour { stall_until: 5, ..Behaviour::default() });
    // The mov is refused in cycles 1 to 4 and issues at 5: the chain ends 4 cycles later.
    assert_eq!(r.finish, [4 + 3 * l + 4]);
    let stalls = r.sm.stats().stalls;
    assert_eq!(stalls.get(StallCause::AcquireWait), 4);
    assert_eq!(stalls.get(StallCause::SchemeSpecific), 0);
    let json = serde_json::to_string(&stalls).unwrap_or_default();
    assert!(json.contains("\"acquire_wait\":4"), "{json}");
    assert!(!json.contains("cta_switch") && !json.contains("scheme_buffer_full"), "zero scheme causes are left out");
    assert!(json.contains("\"scheme_specific\":0"), "the original causes are always listed");
    let back: crate::timing::report::StallBreakdown = serde_json::from_str(&json).unwrap_or_default();
    assert_eq!(back, stalls);
}

#[test]
fn a_parked_cta_is_reported_ready_when_its_load_is_back() {
    let p = program(LOAD_USE);
    let base = run(&p, &cta(&p, 1), 1, 1, Behaviour::default());
    let log = Rc::new(RefCell::new(Vec::new()));
    let b = Behaviour { hooks: HookSet::RESIDENCY, park_until_ready: true, log: log.clone(), ..Behaviour::default() };
    let r = run(&p, &cta(&p, 1), 1, 1, b);
    // The warp sleeps on its load at t = 2 + L: CTA 0 parked at the end of t. The load's result
    // is written back at R (the baseline's add issues at R): the parked warp no longer waits on
    // memory → ParkedCtaReady at R; the activation answered at the end of R lets the add issue
    // at R + 1: one cycle later than the baseline.
    let l = int_add_latency();
    let ready: Vec<u64> = log
        .borrow()
        .iter()
        .filter(|(_, e)| matches!(e, ResidencyEvent::ParkedCtaReady { cta: 0 }))
        .map(|x| x.0)
        .collect();
    assert_eq!(ready, [base.finish[0] - 1 - l], "once, at R");
    assert_eq!(r.finish[0], base.finish[0] + 1);
    assert_eq!((r.sm.stats().residency.parks, r.sm.stats().residency.cta_switches), (1, 1));
}
