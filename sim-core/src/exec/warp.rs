//! A warp: 32 lanes whose registers are stored register by register (`[u64; 32]` per register,
//! predicates as lane bit masks), so every instruction runs as a tight loop over the lanes; its
//! call frames, each with a SIMT reconvergence stack; carry flags; and its threads' local memory.
//!
//! ```text
//! add.s32 %r1, %r2, %r3;   // regs[r1][l] = regs[r2][l] + regs[r3][l] for every active lane l
//! setp.lt.s32 %p1, ...;     // preds[p1] = bit l set where lane l compares true
//! ```

use alloc::boxed::Box;
use alloc::vec::Vec;

use super::memory::LocalMemory;
use super::program::{CallValue, Dst, PredId, RegId, Src};
use super::simt_stack::Entry;
use crate::ir::{Dim, SpecialReg};

/// One value per lane.
pub type Lanes = [u64; 32];

/// All-zero lanes.
pub const ZERO: Lanes = [0; 32];

/// One call frame.
#[derive(Clone, Debug)]
pub struct Frame {
    /// Program function index.
    pub func: u32,
    /// First register slot.
    pub reg_base: u32,
    /// First predicate slot.
    pub pred_base: u32,
    /// First byte of the frame in each thread's local memory.
    pub local_base: u64,
    /// The reconvergence stack.
    pub stack: Vec<Entry>,
    /// Lanes that made the call.
    pub call_mask: u32,
    /// Where the caller wants the return values.
    pub ret_dsts: Box<[CallValue]>,
    /// Lanes that executed `ret` in this frame (they wait for the others).
    pub returned: u32,
}

/// What the CTA knows that special registers report.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Env {
    /// `%ctaid`.
    pub ctaid: [u32; 3],
    /// `%nctaid`.
    pub nctaid: [u32; 3],
    /// `%ntid`.
    pub ntid: [u32; 3],
    /// `%nwarpid`: warps in the CTA.
    pub nwarps: u32,
    /// `%dynamic_smem_size`.
    pub dynamic_smem: u32,
    /// `%total_smem_size`.
    pub total_smem: u32,
    /// `%gridid`: the launch's position in the run.
    pub gridid: u64,
}

/// A warp of a CTA.
#[derive(Clone, Debug)]
pub struct Warp {
    /// Register slots of every frame.
    pub regs: Vec<Lanes>,
    /// Predicate slots of every frame.
    pub preds: Vec<u32>,
    /// Call frames (the kernel's at the bottom).
    pub frames: Vec<Frame>,
    /// Lanes that executed `exit` (or `ret` from the kernel).
    pub exited: u32,
    /// Lanes that exist (the last warp of a CTA may be partial).
    pub valid: u32,
    /// Carry flag per lane.
    pub cc: u32,
    /// Local memory of the 32 threads.
    pub local: LocalMemory,
    /// Thread index of each lane.
    pub tid: [[u32; 32]; 3],
    /// Warp index in the CTA.
    pub index: u32,
    /// Warp-instructions executed (also what `%clock` reads).
    pub executed: u64,
    /// Per register slot of the kernel's frame: total bits of the reduced float format its
    /// writes are rounded to (0: none); empty unless precision tuning asks
    /// ([`super::float_formats`]).
    pub rounding: Vec<u8>,
    /// Per register slot of the kernel's frame: precision tuning's exactness record (the
    /// narrowest [`super::float_formats::FORMATS`] index whose rounding would have stored every
    /// value written so far unchanged; 0: not recorded); empty unless the search asks
    /// ([`super::run::Run::track_exactness`]).
    pub exactness: Vec<u8>,
}

impl Warp {
    /// Warp `index` of a CTA with `ntid` threads, starting kernel function 0 with `regs`/`preds`
    /// slots and `frame_bytes` of local frame.
    pub fn new(index: u32, ntid: [u32; 3], regs: u32, preds: u32) -> Warp {
        let mut tid = [[0u32; 32]; 3];
        let total = ntid[0] * ntid[1] * ntid[2];
        let mut valid = 0u32;
        for lane in 0..32u32 {
            let linear = index * 32 + lane;
            if linear < total {
                valid |= 1 << lane;
                tid[0][lane as usize] = linear % ntid[0];
                tid[1][lane as usize] = (linear / ntid[0]) % ntid[1];
                tid[2][lane as usize] = linear / (ntid[0] * ntid[1]);
            }
        }
        let frame = Frame {
            func: 0,
            reg_base: 0,
            pred_base: 0,
            local_base: 0,
            stack: alloc::vec![Entry { pc: 0, rpc: u32::MAX, mask: valid }],
            call_mask: valid,
            ret_dsts: Box::new([]),
            returned: 0,
        };
        Warp {
            regs: alloc::vec![ZERO; regs as usize],
            preds: alloc::vec![0; preds as usize],
            frames: alloc::vec![frame],
            exited: 0,
            valid,
            cc: 0,
            local: LocalMemory::default(),
            tid,
            index,
            executed: 0,
            rounding: Vec::new(),
            exactness: Vec::new(),
        }
    }

    /// True once every lane has exited or returned.
    pub fn done(&self) -> bool {
        self.frames.is_empty()
    }

    fn bases(&self) -> (u32, u32, u64) {
        self.frames.last().map_or((0, 0, 0), |f| (f.reg_base, f.pred_base, f.local_base))
    }

    /// The lanes of a register of the current frame.
    pub fn reg(&self, r: RegId) -> &Lanes {
        let (rb, _, _) = self.bases();
        self.regs.get((rb + r) as usize).unwrap_or(&ZERO)
    }

    /// The mask of a predicate of the current frame.
    pub fn pred(&self, p: PredId) -> u32 {
        let (_, pb, _) = self.bases();
        self.preds.get((pb + p) as usize).copied().unwrap_or(0)
    }

    /// The value of a special register in `lane`.
    pub fn special(&self, s: SpecialReg, lane: usize, env: &Env) -> u64 {
        let dim = |d: Dim| d as usize;
        let lanebit = 1u64 << lane;
        match s {
            SpecialReg::Tid(d) => u64::from(self.tid[dim(d)][lane]),
            SpecialReg::Ntid(d) => u64::from(env.ntid[dim(d)]),
            SpecialReg::Ctaid(d) => u64::from(env.ctaid[dim(d)]),
            SpecialReg::Nctaid(d) => u64::from(env.nctaid[dim(d)]),
            SpecialReg::Clusterid(d) => u64::from(env.ctaid[dim(d)]),
            SpecialReg::Nclusterid(d) => u64::from(env.nctaid[dim(d)]),
            SpecialReg::ClusterNctaid(_) | SpecialReg::ClusterNctarank | SpecialReg::WarpSz => {
                if s == SpecialReg::WarpSz {
                    32
                } else {
                    1
                }
            }
            SpecialReg::Laneid => lane as u64,
            SpecialReg::Warpid => u64::from(self.index),
            SpecialReg::Nwarpid => u64::from(env.nwarps),
            SpecialReg::Nsmid => 1,
            SpecialReg::Gridid => env.gridid,
            SpecialReg::LanemaskEq => lanebit,
            SpecialReg::LanemaskLe => (lanebit << 1).wrapping_sub(1) & 0xFFFF_FFFF,
            SpecialReg::LanemaskLt => lanebit - 1,
            SpecialReg::LanemaskGe => !(lanebit - 1) & 0xFFFF_FFFF,
            SpecialReg::LanemaskGt => !((lanebit << 1).wrapping_sub(1)) & 0xFFFF_FFFF,
            SpecialReg::Clock | SpecialReg::GlobaltimerLo => self.executed & 0xFFFF_FFFF,
            SpecialReg::ClockHi | SpecialReg::GlobaltimerHi => self.executed >> 32,
            SpecialReg::Clock64 | SpecialReg::Globaltimer => self.executed,
            SpecialReg::DynamicSmemSize => u64::from(env.dynamic_smem),
            SpecialReg::TotalSmemSize | SpecialReg::AggrSmemSize => u64::from(env.total_smem),
            _ => 0,
        }
    }

    /// The lanes of a source operand (borrowed from the register file or built in `tmp`).
    pub fn read<'s>(&'s self, src: Src, env: &Env, tmp: &'s mut Lanes) -> &'s Lanes {
        match src {
            Src::Reg(r) => return self.reg(r),
            Src::Imm(v) => *tmp = [v; 32],
            Src::Frame(off) => *tmp = [self.bases().2 + off; 32],
            Src::Pred(p, neg) => {
                let m = self.pred(p) ^ if neg { u32::MAX } else { 0 };
                for (l, t) in tmp.iter_mut().enumerate() {
                    *t = u64::from((m >> l) & 1);
                }
            }
            Src::Special(s) => {
                for (l, t) in tmp.iter_mut().enumerate() {
                    *t = self.special(s, l, env);
                }
            }
        }
        tmp
    }

    /// One lane of a source operand.
    pub fn read_lane(&self, src: Src, lane: usize, env: &Env) -> u64 {
        match src {
            Src::Reg(r) => self.reg(r)[lane],
            Src::Imm(v) => v,
            Src::Frame(off) => self.bases().2 + off,
            Src::Pred(p, neg) => u64::from(((self.pred(p) >> lane) & 1) ^ u32::from(neg)),
            Src::Special(s) => self.special(s, lane, env),
        }
    }

    /// A predicate source as a lane mask.
    pub fn read_mask(&self, src: Src, env: &Env) -> u32 {
        match src {
            Src::Pred(p, neg) => self.pred(p) ^ if neg { u32::MAX } else { 0 },
            other => {
                let mut m = 0;
                for l in 0..32 {
                    if self.read_lane(other, l, env) & 1 != 0 {
                        m |= 1 << l;
                    }
                }
                m
            }
        }
    }

    /// Writes `vals` to `d` in the lanes of `mask`.
    pub fn write(&mut self, d: Dst, vals: &Lanes, mask: u32) {
        if !self.exactness.is_empty() {
            self.note_exactness(d, vals, mask);
        }
        let rounded = if self.rounding.is_empty() { None } else { self.rounded(d, vals) };
        let vals = rounded.as_ref().unwrap_or(vals);
        match d {
            Dst::Reg(r, m) => {
                let (rb, _, _) = self.bases();
                if let Some(reg) = self.regs.get_mut((rb + r) as usize) {
                    if mask == u32::MAX {
                        for (slot, v) in reg.iter_mut().zip(vals) {
                            *slot = v & m;
                        }
                        return;
                    }
                    for (l, (slot, v)) in reg.iter_mut().zip(vals).enumerate() {
                        if (mask >> l) & 1 != 0 {
                            *slot = v & m;
                        }
                    }
                }
            }
            Dst::Pred(p) => {
                let mut bits = 0u32;
                for (l, v) in vals.iter().enumerate() {
                    bits |= ((v & 1) as u32) << l;
                }
                self.write_mask(p, bits, mask);
            }
            Dst::Sink => {}
        }
    }

    /// Writes one lane of `d`.
    pub fn write_lane(&mut self, d: Dst, lane: usize, v: u64) {
        if !self.exactness.is_empty() {
            self.note_exactness_lane(d, v);
        }
        let v = if self.rounding.is_empty() { v } else { self.rounded_lane(d, v) };
        match d {
            Dst::Reg(r, m) => {
                let (rb, _, _) = self.bases();
                if let Some(slot) = self.regs.get_mut((rb + r) as usize).and_then(|reg| reg.get_mut(lane)) {
                    *slot = v & m;
                }
            }
            Dst::Pred(p) => self.write_mask(p, ((v & 1) as u32) << lane, 1 << lane),
            Dst::Sink => {}
        }
    }

    /// Sets predicate `p` to `bits` in the lanes of `mask`.
    pub fn write_mask(&mut self, p: PredId, bits: u32, mask: u32) {
        let (_, pb, _) = self.bases();
        if let Some(slot) = self.preds.get_mut((pb + p) as usize) {
            *slot = (*slot & !mask) | (bits & mask);
        }
    }
}
