//! A scheme's own program: a scheme that transforms code ([`ProgramTransform`], an IR → IR pass)
//! is timed on its transformed kernel, while every scheme shares the one functional run of the
//! original kernel. The transform says where each original instruction went ([`InstMap`]); the
//! timing run turns that into a dense table over static ids ([`SidMap`]) and each SM replays a
//! recorded stream of original ids as the scheme's instructions ([`Translate`]).
//!
//! ```text
//! original stream:  ld  add  mul  add'  st          (sids of the original program)
//! fates:            ·   [a]  [m]  ·     [acq st rel]
//!                   │ dropped: its access travels to `a` (absorbs)
//!                   │ `add'` merged into `m` (the fused instruction stands where its origin did)
//! replayed issues:  a(+ld's access)  m  acq  st  rel  (same executed lanes as their original)
//! ```
//!
//! The fates: KEPT (one instruction in its place), DROPPED (none; a dropped memory instruction's
//! access travels with the next instruction marked [`InstFate::absorbs`], DeMO's consumer with a
//! memory operand), MERGED (a fused pair: the fused instruction is the `main` of the original
//! where the transform placed it — its origin — and the other original is dropped; so the fused
//! instruction issues at its origin's stream position, with its origin's lanes) and INSERTED
//! (`before`/`after` an original's own instruction: RegMutex's acquire and release, issued as
//! extra instructions of the warp with the same lanes). The warp's instruction count becomes the
//! scheme's: the sum over its stream of each original's issue count, from prefix sums over
//! runs, so the SM's CTA-finish bound stays exact. Schemes without a transform never build a
//! map and replay the recorded stream directly, as before.

use alloc::collections::BTreeMap;
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use crate::gpu::GpuConfig;
use crate::ir::{Function, Handle, Inst, Module};
use crate::timing::program::{MemOp, Program};
use crate::timing::program_regs::{AssignInputs, AssignRegisters};
use crate::timing::stream::trace::{DynInst, MemSpace, NO_ACCESS};
use crate::timing::stream::warp_stream::{Cursor, WarpStream};

/// A scheme's IR → IR pass: the transformed module and where each original instruction went, or
/// why it could not transform. The result is verified before it is decoded.
pub type ProgramTransform = fn(&Module) -> Result<(Module, InstMap), String>;

/// Where one original instruction went (instruction handles of the transformed function).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct InstFate {
    /// Inserted instructions issued before it, in order.
    pub before: Vec<Handle<Inst>>,
    /// Its own instruction (`None`: dropped, or merged into another original's).
    pub main: Option<Handle<Inst>>,
    /// Inserted instructions issued after it, in order.
    pub after: Vec<Handle<Inst>>,
    /// `main` takes the memory access of the dropped memory instruction before it.
    pub absorbs: bool,
}

impl InstFate {
    /// Kept as `h`.
    pub fn kept(h: Handle<Inst>) -> Self {
        InstFate { main: Some(h), ..InstFate::default() }
    }

    /// Dropped (or merged into another original's instruction).
    pub fn dropped() -> Self {
        InstFate::default()
    }
}

/// Where every original instruction went, per function; a function the map does not name is
/// kept instruction for instruction (same handles).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct InstMap {
    functions: BTreeMap<u32, BTreeMap<u32, InstFate>>,
    /// Per (function, absorbing original instruction): the dropped original whose access it takes.
    absorbs_from: BTreeMap<(u32, u32), u32>,
}

impl InstMap {
    /// The identity map: nothing moved.
    pub fn new() -> Self {
        InstMap::default()
    }

    /// Records the fate of instruction `inst` of `function`; instructions of a named function
    /// without a fate are kept under their handle.
    pub fn set(&mut self, function: Handle<Function>, inst: Handle<Inst>, fate: InstFate) {
        self.functions.entry(function.raw()).or_default().insert(inst.raw(), fate);
    }

    /// Names the dropped original `load` whose access `consumer` (marked [`InstFate::absorbs`])
    /// takes, when several dropped accesses may be pending at once (DeMO's hoisted loads); without
    /// it an absorber takes the latest pending access.
    pub fn set_absorbs_from(&mut self, function: Handle<Function>, consumer: Handle<Inst>, load: Handle<Inst>) {
        self.absorbs_from.insert((function.raw(), consumer.raw()), load.raw());
    }

    /// The dropped original whose access `consumer` takes, where [`InstMap::set_absorbs_from`]
    /// named it.
    pub fn absorbs_from(&self, function: Handle<Function>, consumer: Handle<Inst>) -> Option<Handle<Inst>> {
        self.absorbs_from.get(&(function.raw(), consumer.raw())).map(|&l| Handle::from_index(l))
    }

    /// The fate of `inst` of `function` (`None`: kept under its handle).
    pub fn fate(&self, function: Handle<Function>, inst: Handle<Inst>) -> Option<&InstFate> {
        self.functions.get(&function.raw()).and_then(|f| f.get(&inst.raw()))
    }
}

/// What one original static instruction issues as, in the scheme's program.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Slot {
    /// First entry in [`SidMap::seq`].
    start: u32,
    /// Instructions issued in its place.
    n: u16,
    /// Index of its own instruction among them (`NONE`: dropped).
    main: u16,
    /// Its own instruction takes a pending dropped access.
    absorbs: bool,
    /// The original sid of the dropped instruction whose access it takes (`NO_SID`: the latest).
    from: u32,
}

const NO_SID: u32 = u32::MAX;

/// Most dropped accesses a warp's replay holds while waiting for their absorbers.
const MAX_PENDING: usize = 256;

const NONE: u16 = u16::MAX;

/// The dense form of an [`InstMap`]: by original static id, the scheme's static ids issued in
/// its place.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SidMap {
    slots: Vec<Slot>,
    seq: Vec<u32>,
    /// `prefix[s]`: issues of original sids `0..s` (run sums for a warp's count).
    prefix: Vec<u64>,
}

impl SidMap {
    /// The table of `map` from `original` (decoded from `from`) to `scheme` (decoded from `to`).
    pub fn build(
        from: &Module,
        original: &Program,
        to: &Module,
        scheme: &Program,
        map: &InstMap,
    ) -> Result<Self, String> {
        let mut m = SidMap { slots: vec_of(original.insts.len()), ..SidMap::default() };
        for (h, f) in from.functions.iter() {
            let Some(body) = &f.body else { continue };
            let to_body = to.functions.get(h).and_then(|g| g.body.as_ref());
            let Some(to_body) = to_body else { return Err(format!("function {} lost its body", f.name)) };
            for ih in body.insts.handles() {
                let kept = InstFate::kept(ih);
                let fate = map.fate(h, ih).unwrap_or(&kept);
                let sid = |x: Handle<Inst>| {
                    scheme.sid(h, x).filter(|_| to_body.insts.contains(x)).ok_or_else(|| {
                        format!(
                            "{}: instruction {} maps to {x:?}, which the transformed function lacks",
                            f.name,
                            ih.raw()
                        )
                    })
                };
                let mut slot = m.push(fate, sid).map_err(|e| format!("{}: {e}", f.name))?;
                if let Some(&load) = map.absorbs_from.get(&(h.raw(), ih.raw())) {
                    slot.from = original.sid(h, Handle::from_index(load)).unwrap_or(NO_SID);
                }
                let Some(os) = original.sid(h, ih) else { continue };
                let own_access = original.insts.get(os as usize).is_some_and(|s| s.mem != MemOp::None);
                if fate.absorbs && (own_access || slot.main == NONE) {
                    return Err(format!("{}: instruction {} cannot absorb a memory access", f.name, ih.raw()));
                }
                if let Some(x) = m.slots.get_mut(os as usize) {
                    *x = slot;
                }
            }
        }
        let mut acc = 0u64;
        m.prefix = m
            .slots
            .iter()
            .map(|s| {
                let before = acc;
                acc += u64::from(s.n);
                before
            })
            .collect();
        m.prefix.push(acc);
        Ok(m)
    }

    /// Appends the scheme's ids of `fate` (`sid` finds them) and returns its slot.
    fn push(&mut self, fate: &InstFate, sid: impl Fn(Handle<Inst>) -> Result<u32, String>) -> Result<Slot, String> {
        let start = self.seq.len() as u32;
        for &x in &fate.before {
            self.seq.push(sid(x)?);
        }
        let main = match fate.main {
            Some(x) => {
                self.seq.push(sid(x)?);
                (self.seq.len() as u32 - 1 - start) as u16
            }
            None => NONE,
        };
        for &x in &fate.after {
            self.seq.push(sid(x)?);
        }
        let n = u16::try_from(self.seq.len() as u32 - start).map_err(|_| String::from("too many inserted"))?;
        Ok(Slot { start, n, main, absorbs: fate.absorbs, from: NO_SID })
    }

    /// The scheme's instructions a warp issues for recorded stream `ws` (its `len`).
    pub fn issued(&self, ws: &WarpStream) -> u32 {
        let at = |s: u32| self.prefix.get(s as usize).copied().unwrap_or(0);
        let n: u64 = ws.runs().iter().map(|r| at(r.sid.saturating_add(r.len)).saturating_sub(at(r.sid))).sum();
        u32::try_from(n).unwrap_or(u32::MAX)
    }
}

fn vec_of(n: usize) -> Vec<Slot> {
    alloc::vec![Slot { start: 0, n: 0, main: NONE, absorbs: false, from: NO_SID }; n]
}

/// Where a warp's replay stands in its recorded stream (the scheme's position is the warp's
/// `pc`): the stream position, the scheme index of that position's first issue, and the accesses
/// of dropped memory instructions waiting for their absorbers (original sid, access, space).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Translate {
    spos: u32,
    base: u32,
    pending: Vec<(u32, u32, Option<MemSpace>)>,
}

impl Translate {
    /// The stream position of the original instruction the last decoded one stands for.
    pub fn stream_pos(&self) -> u32 {
        self.spos
    }

    /// The scheme's instruction number `pc` of `ws` (positions asked in increasing order, each
    /// any number of times; `cursor` is the warp's own); past the end, the default instruction.
    pub fn decode(&mut self, map: &SidMap, ws: &WarpStream, pc: u32, cursor: &mut Cursor) -> DynInst {
        loop {
            if self.spos >= ws.len() {
                return DynInst::default();
            }
            let d = ws.decode(self.spos, cursor);
            let slot = map.slots.get(d.sid as usize).copied().unwrap_or_default();
            let k = pc.saturating_sub(self.base);
            if k < u32::from(slot.n) {
                let sid = map.seq.get((slot.start + k) as usize).copied().unwrap_or(0);
                let taken = if slot.absorbs { self.pending_of(slot.from) } else { None };
                let (access, space) = match (k == u32::from(slot.main), taken) {
                    (true, Some(i)) => self.pending.get(i).map_or((d.access, d.space), |p| (p.1, p.2)),
                    (true, None) => (d.access, d.space),
                    (false, _) => (NO_ACCESS, None),
                };
                return DynInst { sid, executed: d.executed, access, space };
            }
            if slot.main == NONE && d.access != NO_ACCESS {
                if self.pending.len() >= MAX_PENDING {
                    self.pending.remove(0);
                }
                self.pending.push((d.sid, d.access, d.space));
            } else if slot.absorbs {
                if let Some(i) = self.pending_of(slot.from) {
                    self.pending.remove(i);
                }
            }
            self.base += u32::from(slot.n);
            self.spos += 1;
        }
    }
}

impl Translate {
    /// The pending access an absorber takes: the latest of original sid `from` (`NO_SID`: the
    /// latest of all).
    fn pending_of(&self, from: u32) -> Option<usize> {
        if from == NO_SID {
            self.pending.len().checked_sub(1)
        } else {
            self.pending.iter().rposition(|p| p.0 == from)
        }
    }
}

/// A scheme's decoded program and the map from the original's static ids.
#[derive(Clone, Debug)]
pub struct SchemeProgram {
    /// The transformed module, decoded.
    pub program: Program,
    /// Original static id → the scheme's.
    pub map: SidMap,
    /// Per static id of `program`: composite register-file reads and writes of one issue (a
    /// composite instruction writes its intermediate and reads it back; a `%crf` operand is a
    /// read). Empty when the program has no composite operands.
    pub crf: Vec<(u8, u8)>,
    /// Per static id of `program`: what it does to RegMutex's shared register pool
    /// (`regmutex.acquire`/`release`). Empty when the program has none.
    pub pool: Vec<crate::timing::regfile::regmutex_program::PoolOp>,
    /// Per static id of `program`: whether it writes integer values (Gilani's 16-bit share of
    /// integer values, [`crate::timing::regfile::gilani_int`]).
    pub integer_results: Vec<bool>,
    /// Counters of what the scheme's program passes found (precision tuning's result:
    /// `compression`), added once to the run's summed scheme counters; empty for most schemes.
    pub counters: Vec<crate::timing::regfile::SchemeCounter>,
    /// The slice allocation the scheme's register assignment made (`compression`), reported
    /// once per run; `None` for the others.
    pub slice_map: Option<crate::timing::regfile::compression_slices::SliceMap>,
}

impl SchemeProgram {
    /// Runs `transform` on `module` (decoded as `original`; `None`: the module as is), verifies
    /// its result and decodes it for `gpu` with the scheme's register assignment `assign` (`None`:
    /// the allocator's); the message says what failed.
    pub fn build(
        module: &Module,
        original: &Program,
        transform: Option<ProgramTransform>,
        assign: Option<AssignRegisters>,
        gpu: &GpuConfig,
        physical: bool,
    ) -> Result<SchemeProgram, String> {
        SchemeProgram::build_with(module, original, transform, assign, gpu, physical, AssignInputs::default())
    }

    /// As [`SchemeProgram::build`], telling the register assignment pass `inputs`.
    pub fn build_with(
        module: &Module,
        original: &Program,
        transform: Option<ProgramTransform>,
        assign: Option<AssignRegisters>,
        gpu: &GpuConfig,
        physical: bool,
        inputs: AssignInputs,
    ) -> Result<SchemeProgram, String> {
        let (to, map) = match transform {
            Some(t) => t(module)?,
            None => (module.clone(), InstMap::new()),
        };
        let problems = crate::ir::verify::verify(&to);
        if let Some(first) = problems.first() {
            let n = problems.len();
            return Err(format!("the transformed kernel fails verification ({n} problems): {}", first.message));
        }
        let program = Program::decode_assigned_with(&to, gpu, physical, assign, inputs)?;
        let map = SidMap::build(module, original, &to, &program, &map)?;
        let crf = crf_accesses(&to, &program);
        let pool = crate::timing::regfile::regmutex_program::pool_ops(&to, &program);
        let integer_results = crate::timing::regfile::gilani_int::integer_results(&to, &program);
        Ok(SchemeProgram { program, map, crf, pool, integer_results, counters: Vec::new(), slice_map: None })
    }
}

/// Composite register-file (reads, writes) per static id of `program` (decoded from `module`);
/// empty when no instruction has a composite operand.
fn crf_accesses(module: &Module, program: &Program) -> Vec<(u8, u8)> {
    use crate::ir::SchemeOperand;
    let mut out = Vec::new();
    for (fh, func) in module.functions.iter() {
        let Some(body) = &func.body else { continue };
        for (ih, inst) in body.insts.iter() {
            let (mut reads, mut writes) = (0u8, 0u8);
            for op in &inst.operands {
                match op.as_scheme() {
                    Some(SchemeOperand::Composite(_)) => {
                        reads += 1;
                        writes += 1;
                    }
                    Some(SchemeOperand::Crf) => reads += 1,
                    _ => {}
                }
            }
            let Some(sid) = program.sid(fh, ih).filter(|_| reads + writes > 0) else { continue };
            if out.len() <= sid as usize {
                out.resize(program.insts.len().max(sid as usize + 1), (0, 0));
            }
            if let Some(x) = out.get_mut(sid as usize) {
                *x = (reads, writes);
            }
        }
    }
    out
}

#[cfg(test)]
#[path = "program_map_tests.rs"]
mod tests;
