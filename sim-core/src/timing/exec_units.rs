//! Execution units: which unit an instruction runs on and with what timing (from the preset's
//! [`ExecutionConfig`]), and the units of one SM with their initiation intervals.
//!
//! ```text
//! add.s32  → int unit (SP when the preset has no INT units), int.add:  latency 4, interval 1
//! fma.rn.f32 → SP, fp32.mad;  div.rn.f64 → DP (SP if none), fp64.div;  sin.approx.f32 → SFU
//! ld.global / st.shared / atom → LD/ST;  mma → tensor (SP with fp32.mad if the GPU has none)
//! bra, call, ret → the int unit with int.add timing (the warp fetches again after it resolves)
//! ```
//!
//! A warp instruction keeps its unit busy for `max(initiation interval, warp size / SIMD width)`
//! cycles: GPGPU-Sim's initiation intervals are per warp on a 32-wide datapath, while a Fermi SP
//! pipeline has 16 lanes and needs two cycles per warp. Units are partitioned among sub-cores
//! when the preset has at least one per sub-core; fewer (one LD/ST unit per SM) are shared.

use alloc::vec;
use alloc::vec::Vec;

use serde::{Deserialize, Serialize};

use crate::gpu::{ArithTiming, ExecutionConfig, GpuConfig, OpTiming};
use crate::ir::{Inst, Opcode, Type};

/// A kind of execution unit.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum UnitKind {
    /// Single-precision / general ALU pipeline.
    Sp,
    /// Integer pipeline.
    Int,
    /// Double-precision pipeline.
    Dp,
    /// Special-function unit.
    Sfu,
    /// Tensor core.
    Tensor,
    /// Load/store (memory) pipeline.
    LdSt,
}

/// Number of [`UnitKind`]s.
pub const UNIT_KINDS: usize = 6;

impl UnitKind {
    /// Dense index.
    pub fn index(self) -> usize {
        self as usize
    }
}

/// The arithmetic class an instruction falls in (GPGPU-Sim's ADD, MAX, MUL, MAD, DIV).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Arith {
    Add,
    Max,
    Mul,
    Mad,
    Div,
}

fn arith(t: &ArithTiming, a: Arith) -> OpTiming {
    match a {
        Arith::Add => t.add,
        Arith::Max => t.max,
        Arith::Mul => t.mul,
        Arith::Mad => t.mad,
        Arith::Div => t.div,
    }
}

/// The unit and timing of `inst` on `cfg` (the unit as the preset has it: INT work falls back
/// to SP when there are no INT units, and so on).
pub fn classify(inst: &Inst, cfg: &ExecutionConfig) -> (UnitKind, OpTiming) {
    use Opcode::*;
    let ty = inst.ty();
    let is_f64 = inst.types.iter().any(|t| t == Type::F64);
    let is_float = ty.is_some_and(Type::is_float);
    let fallback = |kind: UnitKind| available(kind, cfg);
    let arith_op = |a: Arith| -> (UnitKind, OpTiming) {
        if is_f64 {
            (fallback(UnitKind::Dp), arith(&cfg.fp64, a))
        } else if is_float {
            (UnitKind::Sp, arith(&cfg.fp32, a))
        } else {
            (fallback(UnitKind::Int), arith(&cfg.int, a))
        }
    };
    match inst.opcode {
        Ld
        | Ldu
        | St
        | Atom
        | Red
        | Prefetch
        | Prefetchu
        | CpAsync
        | CpAsyncBulk
        | Ldmatrix
        | Stmatrix
        | Tex
        | Tld4
        | Txq
        | Suld
        | Sust
        | Sured
        | Suq
        | WmmaLoad
        | WmmaStore
        | MbarrierInit
        | MbarrierInval
        | MbarrierArrive
        | MbarrierArriveDrop
        | MbarrierExpectTx
        | MbarrierCompleteTx
        | MbarrierTestWait
        | MbarrierTryWait
        | MbarrierPendingCount
        | CpAsyncMbarrierArrive => (UnitKind::LdSt, OpTiming::new(1, 1)),
        Mma | MmaSp | WmmaMma | WgmmaMmaAsync => match cfg.tensor {
            Some(t) if cfg.units.tensor > 0 => (UnitKind::Tensor, t),
            _ => (UnitKind::Sp, cfg.fp32.mad),
        },
        Sin | Cos | Lg2 | Ex2 | Tanh | Rsqrt => (fallback(UnitKind::Sfu), cfg.sfu),
        Rcp if !is_f64 => (fallback(UnitKind::Sfu), cfg.sfu),
        Rcp | Sqrt | Div | Rem => arith_op(Arith::Div),
        Min | Max => arith_op(Arith::Max),
        Mul | Mul24 => arith_op(Arith::Mul),
        Mad | Mad24 | Madc | Fma | Sad | Dp4a | Dp2a | Vmad => arith_op(Arith::Mad),
        _ => arith_op(Arith::Add),
    }
}

/// `kind` if the preset has such units, else the unit that does its work (SP).
fn available(kind: UnitKind, cfg: &ExecutionConfig) -> UnitKind {
    if count(kind, cfg) > 0 {
        kind
    } else {
        UnitKind::Sp
    }
}

fn count(kind: UnitKind, cfg: &ExecutionConfig) -> u32 {
    let u = &cfg.units;
    match kind {
        UnitKind::Sp => u.sp.max(1),
        UnitKind::Int => u.int,
        UnitKind::Dp => u.dp,
        UnitKind::Sfu => u.sfu,
        UnitKind::Tensor => u.tensor,
        UnitKind::LdSt => u.ldst.max(1),
    }
}

/// One pipeline: the cycle from which it accepts the next warp instruction.
#[derive(Clone, Copy, Debug, Default)]
struct Pipe {
    free_at: u64,
}

/// The execution units of one SM: per kind, either one pool per scheduler group (sub-core) or
/// one pool shared by the SM.
#[derive(Clone, Debug)]
pub struct ExecUnits {
    /// Per kind: pipelines, grouped `groups[kind]` ways; pool `p` holds pipes
    /// `pool_start[kind][p]..pool_start[kind][p + 1]`.
    pipes: Vec<Pipe>,
    /// Pipes of (kind, group): `ranges[kind × groups + group]`.
    ranges: Vec<(u32, u32)>,
    /// Per (kind, group), as `ranges`: the earliest `free_at` of its pipes (0 for none).
    free: Vec<u64>,
    groups: u32,
    /// Minimum cycles a warp instruction holds an SP/INT/DP pipeline (warp size / SIMD width).
    lane_cycles: u32,
}

impl ExecUnits {
    /// The units of one SM of `gpu` with `groups` scheduler groups (sub-cores).
    pub fn new(gpu: &GpuConfig, groups: u32) -> Self {
        let cfg = &gpu.execution;
        let groups = groups.max(1);
        let mut pipes = Vec::new();
        let mut ranges = vec![(0, 0); UNIT_KINDS * groups as usize];
        let kinds = [UnitKind::Sp, UnitKind::Int, UnitKind::Dp, UnitKind::Sfu, UnitKind::Tensor, UnitKind::LdSt];
        for kind in kinds {
            let n = count(kind, cfg);
            let split = groups > 1 && n >= groups;
            let shared = (pipes.len() as u32, pipes.len() as u32 + if split { 0 } else { n });
            if !split {
                pipes.extend((0..n).map(|_| Pipe::default()));
            }
            for g in 0..groups {
                let range = if split {
                    let a = pipes.len() as u32;
                    pipes.extend((0..n / groups + u32::from(g < n % groups)).map(|_| Pipe::default()));
                    (a, pipes.len() as u32)
                } else {
                    shared
                };
                if let Some(r) = ranges.get_mut(kind.index() * groups as usize + g as usize) {
                    *r = range;
                }
            }
        }
        let lane_cycles = gpu.warp_size().div_ceil(cfg.simd_width.max(1)).max(1);
        let free = vec![0; ranges.len()];
        ExecUnits { pipes, ranges, free, groups, lane_cycles }
    }

    /// A number for the pool of pipelines `kind` instructions of `group` go to: equal for two
    /// groups exactly when they share the pool (`< UNIT_KINDS × groups`).
    pub fn pool_id(&self, kind: UnitKind, group: u32) -> usize {
        let shared = self.pool(kind, 0) == self.pool(kind, group);
        kind.index() * self.groups as usize + if shared { 0 } else { group as usize }
    }

    fn pool(&self, kind: UnitKind, group: u32) -> core::ops::Range<usize> {
        let (a, b) = self.ranges.get(kind.index() * self.groups as usize + group as usize).copied().unwrap_or((0, 0));
        a as usize..b as usize
    }

    /// The earliest cycle at which a pipeline of `kind` for `group` accepts an instruction.
    pub fn free_at(&self, kind: UnitKind, group: u32) -> u64 {
        self.free.get(kind.index() * self.groups as usize + group as usize).copied().unwrap_or(0)
    }

    /// Recomputes the earliest free cycle of every (kind, group) using the pool `range`.
    fn refresh(&mut self, kind: UnitKind, range: core::ops::Range<usize>) {
        let min = self.pipes.get(range.clone()).and_then(|ps| ps.iter().map(|p| p.free_at).min()).unwrap_or(0);
        let first = kind.index() * self.groups as usize;
        for e in first..first + self.groups as usize {
            let same = self.ranges.get(e).is_some_and(|&(a, b)| a as usize == range.start && b as usize == range.end);
            if let (true, Some(f)) = (same, self.free.get_mut(e)) {
                *f = min;
            }
        }
    }

    /// Occupies the first free pipeline of `kind` for `group` at `now` for the instruction's
    /// initiation interval; `false` if none is free.
    pub fn try_start(&mut self, kind: UnitKind, group: u32, now: u64, timing: OpTiming) -> bool {
        let hold = match kind {
            UnitKind::Sp | UnitKind::Int | UnitKind::Dp => timing.initiation_interval.max(self.lane_cycles),
            _ => timing.initiation_interval.max(1),
        };
        self.occupy(kind, group, now, now + u64::from(hold))
    }

    /// Occupies the LD/ST pipeline of `group` from `now` until `until` (a memory instruction
    /// that sends several transactions); `false` if none is free.
    pub fn hold_until(&mut self, kind: UnitKind, group: u32, now: u64, until: u64) -> bool {
        self.occupy(kind, group, now, until.max(now + 1))
    }

    fn occupy(&mut self, kind: UnitKind, group: u32, now: u64, until: u64) -> bool {
        let range = self.pool(kind, group);
        let Some(pipes) = self.pipes.get_mut(range.clone()) else { return false };
        match pipes.iter_mut().find(|p| p.free_at <= now) {
            Some(p) => {
                p.free_at = until;
                self.refresh(kind, range);
                true
            }
            None => false,
        }
    }
}
