//! The static side of the timing model: every instruction of a module decoded once into what the
//! pipeline needs — execution unit and timing, the 32-bit register units it reads and writes
//! (scoreboard and banks), predicates apart, memory and control behaviour — indexed by a dense
//! static id (`sid`) that [`crate::timing::stream::trace::DynInst`] refers to.
//!
//! ```text
//! .reg .b32 %r<4>; .reg .b64 %rd<2>;       // units: %r0..%r3 → 0..3, %rd0 → 4,5, %rd1 → 6,7
//! add.s32 %r3, %r1, %r2;                   // sid 7: int unit, reads units [1, 2], writes [3]
//! ld.global.v2.f32 {%f1, %f2}, [%rd1];     // sid 8: LD/ST, load, reads [6, 7], writes [f1, f2]
//! ```
//!
//! Register units follow [`crate::analysis::UnitMap`] (declaration order, a 64-bit register takes
//! two consecutive units) per function; functions are laid out one after another, so the units of
//! an entry kernel are exactly the analysis' units. Predicates get ids after all units: they are
//! tracked by the scoreboard but live in their own file and cost no bank read. A source named twice
//! in one instruction is read once. The banks see their own ids per instruction
//! ([`Program::bank_reads`], [`Program::bank_writes`]): the allocator's physical registers and a
//! scheme's own assignment ([`crate::timing::program_regs`]), or, as a study
//! ([`crate::timing::TimingOptions::virtual_register_banks`]), the virtual units.

use alloc::collections::BTreeMap;
use alloc::string::String;
use alloc::vec::Vec;

use serde::{Deserialize, Serialize};

use crate::analysis::{AllocTarget, AnalysisOptions, Cfg, Liveness, ModuleAnalysis, UnitMap};
use crate::gpu::{ExecutionConfig, GpuConfig, OpTiming, ResidencyLimits};
use crate::ir::{
    BarMode, Function, FunctionKind, Handle, Inst, Module, Opcode, Reg, SchemeOperand, StateSpace, WidthClass,
};
use crate::timing::exec_units::{classify, UnitKind};
use crate::timing::program_regs::{scheme_assignment_with, AssignInputs, AssignRegisters, Placer, RegisterAssignment};
use crate::timing::stream::trace::MemSpace;

/// What an instruction does to control flow.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Control {
    /// Falls through.
    None,
    /// A branch, call or return: the warp fetches again once it has resolved.
    Branch,
    /// A CTA barrier; `wait` is false for `bar.arrive`.
    Barrier {
        /// The warp waits for the others.
        wait: bool,
    },
    /// The warp's threads exit.
    Exit,
}

/// What an instruction does to memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum MemOp {
    /// Not a memory access.
    None,
    /// A load (the result is written back when the data returns).
    Load,
    /// A store (the warp does not wait for it).
    Store,
    /// An atomic or reduction (performed at L2).
    Atomic,
    /// A direct memory operand (DeMO): an arithmetic instruction that sends the load of its one
    /// memory source through the LD/ST unit and executes when the data is back; its result is
    /// the ALU's, written back its own latency ([`StaticInst::timing`]) after the data.
    Operand,
}

/// One decoded static instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct StaticInst {
    /// Execution unit.
    pub unit: UnitKind,
    /// Latency and initiation interval on that unit.
    pub timing: OpTiming,
    /// Control behaviour.
    pub control: Control,
    /// Memory behaviour.
    pub mem: MemOp,
    /// The state space named by the instruction (`None`: generic or not memory).
    pub space: Option<MemSpace>,
    /// First operand id in [`Program::operands`]: RF reads, predicate reads, RF writes, predicate
    /// writes, in that order.
    pub ops: u32,
    /// Distinct 32-bit register units read.
    pub rf_reads: u16,
    /// Distinct predicates read.
    pub pred_reads: u16,
    /// 32-bit register units written.
    pub rf_writes: u16,
    /// Predicates written.
    pub pred_writes: u16,
    /// Bit `id % 64` for every register read or written: the scoreboard's quick test
    /// ([`crate::timing::sm::scoreboard::Scoreboard::blocked`]).
    pub hazards: u64,
    /// The same registers as bit masks over two consecutive 64-id words, when they fit.
    pub words: RegisterWords,
}

/// An instruction's registers as masks over the scoreboard's 64-id words `base` and `base + 1`
/// (`fits` false: they span more, and the scoreboard walks the id lists instead).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RegisterWords {
    /// First word.
    pub base: u32,
    /// Whether every register lies in the two words.
    pub fits: bool,
    /// Registers read or written (RAW and WAW checks).
    pub all: [u64; 2],
    /// Registers written (reserved at issue, released at write-back).
    pub writes: [u64; 2],
}

impl RegisterWords {
    /// The masks of registers `reads` and `writes` (ids), if they lie in two consecutive words.
    pub fn of(reads: &[&[u32]], writes: &[&[u32]]) -> Self {
        let ids = || reads.iter().chain(writes).flat_map(|v| v.iter().copied());
        let base = ids().min().map_or(0, |m| m / 64);
        let mut w = RegisterWords { base, fits: true, ..RegisterWords::default() };
        for (list, is_write) in reads.iter().map(|v| (v, false)).chain(writes.iter().map(|v| (v, true))) {
            for &id in list.iter() {
                let Some(slot) = (id / 64).checked_sub(base).filter(|&k| k < 2) else {
                    w.fits = false;
                    continue;
                };
                let bit = 1u64 << (id % 64);
                if let Some(m) = w.all.get_mut(slot as usize) {
                    *m |= bit;
                }
                if is_write {
                    if let Some(m) = w.writes.get_mut(slot as usize) {
                        *m |= bit;
                    }
                }
            }
        }
        w
    }
}

/// What the occupancy calculation needs to know about one kernel.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct KernelInfo {
    /// The `.entry` name.
    pub name: String,
    /// The function.
    pub function: Handle<Function>,
    /// Maximum live 32-bit register units (liveness), plus the largest callee's when it calls.
    pub max_live_registers: u32,
    /// Registers per thread of the register-allocation estimate for the simulated GPU
    /// ([`crate::analysis::Allocation`], callees included): what a scheme allocates by default.
    pub allocated_registers: u32,
    /// Static shared memory in bytes (module-level and body `.shared` variables of known size).
    pub static_shared_bytes: u64,
}

/// A whole module decoded for the timing model.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Program {
    /// Static instructions by `sid`.
    pub insts: Vec<StaticInst>,
    /// Operand ids of all instructions (see [`StaticInst::ops`]).
    pub operands: Vec<u32>,
    /// Per unit: true if it is the first unit of its register (value statistics count registers).
    pub value_head: Vec<bool>,
    /// 32-bit register units of all functions.
    pub units: u32,
    /// Predicates of all functions (ids `units..units + preds`).
    pub preds: u32,
    /// The entry kernels, in module order.
    pub kernels: Vec<KernelInfo>,
    /// First `sid` of each function with a body.
    pub func_base: BTreeMap<u32, u32>,
    /// The most register units one instruction reads.
    pub max_rf_reads: u16,
    /// The registers the banks see for every instruction's register operands (physical registers
    /// of the assignment, see [`crate::timing::program_regs`]): per `sid`, reads then writes from
    /// `bank_at[sid]`.
    pub bank_regs: Vec<u32>,
    /// The slices of each `bank_regs` entry (`0xff`: the whole register).
    pub bank_slices: Vec<u8>,
    /// Per `sid`: first entry in `bank_regs`, bank reads, bank writes.
    pub bank_at: Vec<(u32, u16, u16)>,
    /// Per `sid`: 32-bit register units live on entry to the instruction
    /// ([`crate::analysis::liveness::Liveness::live_in`]): what a warp stalled there must keep
    /// (FineReg's per-PC live-register vector, as a count).
    #[serde(default)]
    pub live_in: Vec<u16>,
}

impl Program {
    /// Decodes every function with a body of `module` for `gpu`, banks seeing the allocator's
    /// registers.
    pub fn decode(module: &Module, gpu: &GpuConfig) -> Program {
        Program::decode_inner(module, gpu, &Program::analyse(module, gpu), &RegisterAssignment::default(), true)
    }

    /// Decodes `module` for `gpu` as a simulation under `options` decodes it (physical or
    /// virtual register banks): for callers that build the CTA source themselves.
    pub fn decode_for(
        module: &Module,
        gpu: &GpuConfig,
        options: &crate::timing::TimingOptions,
    ) -> Result<Program, String> {
        Program::decode_assigned(module, gpu, !options.virtual_register_banks, None)
    }

    /// Decodes `module` for `gpu`, banks seeing physical registers (`physical`, else virtual
    /// units) as a scheme's register assignment pass `assign` changes them (`None`: the
    /// allocator's assignment); the message says why the pass failed.
    pub fn decode_assigned(
        module: &Module,
        gpu: &GpuConfig,
        physical: bool,
        assign: Option<AssignRegisters>,
    ) -> Result<Program, String> {
        Program::decode_assigned_with(module, gpu, physical, assign, AssignInputs::default())
    }

    /// As [`Program::decode_assigned`], telling the pass `inputs` (launch facts, tuned float
    /// formats; the target is `gpu`'s unless given).
    pub fn decode_assigned_with(
        module: &Module,
        gpu: &GpuConfig,
        physical: bool,
        assign: Option<AssignRegisters>,
        mut inputs: AssignInputs,
    ) -> Result<Program, String> {
        let analysis = Program::analyse(module, gpu);
        inputs.target = inputs.target.or(Some(alloc_target(gpu)));
        let changes = scheme_assignment_with(module, &analysis, assign, inputs)?;
        Ok(Program::decode_inner(module, gpu, &analysis, &changes, physical))
    }

    pub(crate) fn analyse(module: &Module, gpu: &GpuConfig) -> ModuleAnalysis {
        ModuleAnalysis::compute(
            module,
            &AnalysisOptions { target: Some(alloc_target(gpu)), ..AnalysisOptions::default() },
        )
    }

    fn decode_inner(
        module: &Module,
        gpu: &GpuConfig,
        analysis: &ModuleAnalysis,
        changes: &RegisterAssignment,
        physical: bool,
    ) -> Program {
        let cfg = &gpu.execution;
        let mut p = Program::default();
        let mut unit_base = Vec::new();
        let mut pred_base = Vec::new();
        let mut maps = Vec::new();
        let (mut units, mut preds) = (0u32, 0u32);
        for (h, f) in module.functions.iter() {
            let map = UnitMap::compute(f);
            unit_base.push(units);
            pred_base.push(preds);
            units += map.units() as u32;
            preds += map.preds() as u32;
            if let Some(body) = &f.body {
                for (r, reg) in body.regs.iter() {
                    if reg.class != WidthClass::Pred {
                        let range = map.units_of(r);
                        p.value_head.extend(range.clone().map(|u| u == range.start));
                    }
                }
            }
            maps.push((h, map));
        }
        p.units = units;
        p.preds = preds;
        for (i, (h, map)) in maps.iter().enumerate() {
            let Some(f) = module.functions.get(*h) else { continue };
            let Some(body) = &f.body else { continue };
            p.func_base.insert(h.raw(), p.insts.len() as u32);
            let bases = (unit_base.get(i).copied().unwrap_or(0), units + pred_base.get(i).copied().unwrap_or(0));
            let entry = f.kind == FunctionKind::Entry;
            let placer = Placer { func: h.raw(), analysis: analysis.get(*h), changes, physical };
            let live = Liveness::compute(f, &Cfg::compute(f));
            for (ih, inst) in body.insts.iter() {
                p.live_in.push(u16::try_from(live.live_in(ih).count()).unwrap_or(u16::MAX));
                let mut s = p.decode_inst((ih, inst), map, bases, cfg, &placer);
                if entry && inst.opcode == Opcode::Ret {
                    s.control = Control::Exit;
                }
                p.max_rf_reads = p.max_rf_reads.max(s.rf_reads);
                p.insts.push(s);
            }
            if f.kind == FunctionKind::Entry {
                let regs = changes.registers.get(&h.raw()).copied().unwrap_or(analysis.registers_per_thread(*h));
                p.kernels.push(kernel_info(module, *h, f, regs));
            }
        }
        p
    }

    /// The static id of `inst` in `function`.
    pub fn sid(&self, function: Handle<Function>, inst: Handle<Inst>) -> Option<u32> {
        self.func_base.get(&function.raw()).map(|b| b + inst.raw())
    }

    /// The kernel called `name`.
    pub fn kernel_index(&self, name: &str) -> Option<u32> {
        self.kernels.iter().position(|k| k.name == name).map(|i| i as u32)
    }

    /// The 32-bit register units `s` reads (the bank reads).
    pub fn rf_reads_of(&self, s: &StaticInst) -> &[u32] {
        let a = s.ops as usize;
        self.operands.get(a..a + s.rf_reads as usize).unwrap_or(&[])
    }

    /// The 32-bit register units `s` writes (the bank writes).
    pub fn rf_writes_of(&self, s: &StaticInst) -> &[u32] {
        let a = s.ops as usize + s.rf_reads as usize + s.pred_reads as usize;
        self.operands.get(a..a + s.rf_writes as usize).unwrap_or(&[])
    }

    /// The registers the banks read for instruction `sid` (physical, see [`Program::bank_regs`]).
    pub fn bank_reads(&self, sid: u32) -> &[u32] {
        let Some(&(a, r, _)) = self.bank_at.get(sid as usize) else { return &[] };
        self.bank_regs.get(a as usize..a as usize + r as usize).unwrap_or(&[])
    }

    /// The registers the banks write for instruction `sid`.
    pub fn bank_writes(&self, sid: u32) -> &[u32] {
        let Some(&(a, r, w)) = self.bank_at.get(sid as usize) else { return &[] };
        let a = a as usize + r as usize;
        self.bank_regs.get(a..a + w as usize).unwrap_or(&[])
    }

    /// All registers `s` reads (units then predicates): what the scoreboard checks.
    pub fn reads_of(&self, s: &StaticInst) -> &[u32] {
        let a = s.ops as usize;
        self.operands.get(a..a + s.rf_reads as usize + s.pred_reads as usize).unwrap_or(&[])
    }

    /// All registers `s` writes (units then predicates): what the scoreboard reserves.
    pub fn writes_of(&self, s: &StaticInst) -> &[u32] {
        let a = s.ops as usize + s.rf_reads as usize + s.pred_reads as usize;
        self.operands.get(a..a + s.rf_writes as usize + s.pred_writes as usize).unwrap_or(&[])
    }

    fn decode_inst(
        &mut self,
        (ih, inst): (Handle<Inst>, &Inst),
        map: &UnitMap,
        bases: (u32, u32),
        cfg: &ExecutionConfig,
        placer: &Placer<'_>,
    ) -> StaticInst {
        let (unit, timing) = classify(inst, cfg);
        let direct = direct_operand_space(inst);
        let unit = if direct.is_some() { UnitKind::LdSt } else { unit };
        let (mut reads, mut preads, mut writes, mut pwrites) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
        let (mut rregs, mut wregs) = (Vec::new(), Vec::new());
        let push = |r, rf: &mut Vec<u32>, pr: &mut Vec<u32>, regs: &mut Vec<Handle<Reg>>| {
            if let Some(pi) = map.pred_index(r) {
                pr.push(bases.1 + pi as u32);
            } else if !regs.contains(&r) {
                regs.push(r);
                rf.extend(map.units_of(r).map(|u| bases.0 + u as u32));
            }
        };
        inst.for_each_use(|r| push(r, &mut reads, &mut preads, &mut rregs));
        inst.for_each_def(|r| push(r, &mut writes, &mut pwrites, &mut wregs));
        for v in [&mut reads, &mut preads, &mut writes, &mut pwrites] {
            dedup_keep_order(v);
        }
        let at = self.bank_regs.len() as u32;
        let mut banked = Vec::new();
        for (regs, read) in [(&rregs, true), (&wregs, false)] {
            let before = banked.len();
            for &r in regs.iter() {
                let units: Vec<u32> = map.units_of(r).map(|u| bases.0 + u as u32).collect();
                placer.place(ih, r, &units, read, &mut banked);
            }
            if read {
                self.bank_at.push((at, (banked.len() - before).min(u16::MAX as usize) as u16, 0));
            } else if let Some(last) = self.bank_at.last_mut() {
                last.2 = (banked.len() - before).min(u16::MAX as usize) as u16;
            }
        }
        self.bank_regs.extend(banked.iter().map(|b| b.0));
        self.bank_slices.extend(banked.iter().map(|b| b.1));
        let ops = self.operands.len() as u32;
        let hazards =
            [&reads, &preads, &writes, &pwrites].iter().flat_map(|v| v.iter()).fold(0u64, |m, &id| m | 1 << (id % 64));
        let words = RegisterWords::of(&[&reads, &preads], &[&writes, &pwrites]);
        let counts = [reads.len(), preads.len(), writes.len(), pwrites.len()].map(|n| n.min(u16::MAX as usize) as u16);
        for (v, n) in [reads, preads, writes, pwrites].into_iter().zip(counts) {
            self.operands.extend(v.into_iter().take(n as usize));
        }
        StaticInst {
            unit,
            timing,
            control: control_of(inst),
            mem: if direct.is_some() { MemOp::Operand } else { mem_of(inst) },
            space: direct.or(inst.mods.space).and_then(space_of),
            ops,
            rf_reads: counts[0],
            pred_reads: counts[1],
            rf_writes: counts[2],
            pred_writes: counts[3],
            hazards,
            words,
        }
    }
}

fn dedup_keep_order(v: &mut Vec<u32>) {
    let mut seen = Vec::with_capacity(v.len());
    v.retain(|x| {
        let new = !seen.contains(x);
        if new {
            seen.push(*x);
        }
        new
    });
}

fn control_of(inst: &Inst) -> Control {
    match inst.opcode {
        Opcode::Bra | Opcode::BrxIdx | Opcode::Call | Opcode::Ret => Control::Branch,
        Opcode::Exit => Control::Exit,
        Opcode::Bar | Opcode::Barrier => Control::Barrier { wait: inst.mods.bar_mode != Some(BarMode::Arrive) },
        _ => Control::None,
    }
}

/// The state space of `inst`'s direct memory operand (DeMO), if it has one.
fn direct_operand_space(inst: &Inst) -> Option<StateSpace> {
    inst.operands.iter().find_map(|op| match op.as_scheme() {
        Some(SchemeOperand::Memory(m)) => Some(m.space),
        _ => None,
    })
}

fn mem_of(inst: &Inst) -> MemOp {
    use Opcode::*;
    match inst.opcode {
        Ld | Ldu | Ldmatrix | WmmaLoad | Tex | Tld4 | Suld | CpAsync | CpAsyncBulk => MemOp::Load,
        St | Stmatrix | WmmaStore | Sust => MemOp::Store,
        Atom | Red | Sured => MemOp::Atomic,
        Prefetch | Prefetchu => MemOp::Load,
        _ => MemOp::None,
    }
}

/// The timing model's view of a PTX state space.
pub fn space_of(s: StateSpace) -> Option<MemSpace> {
    match s {
        StateSpace::Global => Some(MemSpace::Global),
        StateSpace::Local => Some(MemSpace::Local),
        StateSpace::Const => Some(MemSpace::Const),
        StateSpace::Param | StateSpace::ParamEntry | StateSpace::ParamFunc => Some(MemSpace::Param),
        StateSpace::Shared | StateSpace::SharedCta | StateSpace::SharedCluster => Some(MemSpace::Shared),
        StateSpace::Reg | StateSpace::Sreg | StateSpace::Tex => None,
    }
}

/// The register-allocation target of `gpu` (its compute capability; GCN3 and GPUs older than
/// sm_50 are estimated as sm_52, as the analysis does for old `.target`s).
pub(crate) fn alloc_target(gpu: &GpuConfig) -> AllocTarget {
    match &gpu.limits {
        ResidencyLimits::Nvidia(sm) => {
            let cc = sm.compute_capability;
            let v = u32::from(cc.major) * 10 + u32::from(cc.minor);
            AllocTarget::sm(if v < 50 { 52 } else { v })
        }
        ResidencyLimits::Gcn3(_) => AllocTarget::default(),
    }
}

fn kernel_info(module: &Module, h: Handle<Function>, f: &Function, allocated: u32) -> KernelInfo {
    let pressure = |g: &Function| Liveness::compute(g, &Cfg::compute(g)).max_pressure();
    let calls = f.body.as_ref().is_some_and(|b| b.insts.values().any(|i| i.opcode == Opcode::Call));
    let callees = if calls {
        module.functions.values().filter(|g| g.kind == FunctionKind::Func && g.body.is_some()).map(pressure).max()
    } else {
        None
    };
    let shared = |v: &crate::ir::Var| if v.space.is_shared() { v.size_bytes().unwrap_or(0) } else { 0 };
    let module_shared: u64 = module.globals.values().map(shared).sum();
    let body_shared: u64 = f.body.as_ref().map_or(0, |b| b.vars.values().map(shared).sum());
    KernelInfo {
        name: f.name.clone(),
        function: h,
        max_live_registers: pressure(f) + callees.unwrap_or(0),
        allocated_registers: allocated,
        static_shared_bytes: module_shared + body_shared,
    }
}
