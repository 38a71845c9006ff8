//! Operand collector units (CUs): each holds one issued instruction while its source operands are
//! read; an instruction dispatches when all its operands are in (SCHEMES.md §0). With sub-cores
//! each group owns `CUs / groups` of them; a preset without collectors (GT200, GCN3's baseline)
//! gets one per scheduler, an in-order operand-read stage.
//!
//! ```text
//! try_allocate(group 1) → CU 2 (group 1 owns CUs 2..4) · outstanding reads 3 · granted … 0 → collected
//! ```

use alloc::vec;
use alloc::vec::Vec;

use super::{CuId, SmGeometry};
use crate::gpu::GpuConfig;

/// The collectors of one SM.
#[derive(Clone, Debug)]
pub struct CollectorPool {
    /// Per collector: reads still to be granted (0 for a free one).
    outstanding: Vec<u32>,
    per_group: u32,
    /// Bit `i % 64` of word `i / 64` set while collector `i` is free.
    free: Vec<u64>,
    /// Collectors still waiting for reads.
    collecting: u32,
    /// Collectors whose operands are all read and that have not yet been reported.
    done: Vec<CuId>,
}

impl CollectorPool {
    /// The collectors of one SM of `gpu` shaped as `geo`.
    pub fn new(gpu: &GpuConfig, geo: &SmGeometry) -> Self {
        CollectorPool::with_units(gpu.register_file.collector_units, geo)
    }

    /// `units` collectors per SM (split evenly over the groups; fewer than one per group, 0
    /// included, means one per scheduler) shaped as `geo`.
    pub fn with_units(units: u32, geo: &SmGeometry) -> Self {
        let groups = geo.groups.max(1);
        let configured = units / groups;
        let per_group = if configured == 0 { (geo.schedulers / groups).max(1) } else { configured };
        let n = (per_group * groups) as usize;
        let mut free = vec![0u64; n.div_ceil(64)];
        for i in 0..n {
            if let Some(w) = free.get_mut(i / 64) {
                *w |= 1 << (i % 64);
            }
        }
        CollectorPool { outstanding: vec![0; n], per_group, free, collecting: 0, done: Vec::new() }
    }

    /// The lowest free collector of `group`.
    fn first_free(&self, group: u32) -> Option<usize> {
        let start = (group * self.per_group) as usize;
        let end = start + self.per_group as usize;
        let mut i = start;
        while i < end {
            let word = self.free.get(i / 64)? >> (i % 64);
            if word != 0 {
                let at = i + word.trailing_zeros() as usize;
                return (at < end).then_some(at);
            }
            i = (i / 64 + 1) * 64;
        }
        None
    }

    fn set_free(&mut self, i: usize, free: bool) {
        if let Some(w) = self.free.get_mut(i / 64) {
            if free {
                *w |= 1 << (i % 64);
            } else {
                *w &= !(1 << (i % 64));
            }
        }
    }

    /// A free collector of `group` (the lowest) for an instruction with `reads` outstanding reads.
    pub fn try_allocate(&mut self, group: u32, reads: u32) -> Option<CuId> {
        let i = self.first_free(group)?;
        *self.outstanding.get_mut(i)? = reads;
        self.set_free(i, false);
        let id = i as CuId;
        if reads == 0 {
            self.done.push(id);
        } else {
            self.collecting += 1;
        }
        Some(id)
    }

    /// Whether a collector of `group` is free.
    pub fn has_free(&self, group: u32) -> bool {
        self.first_free(group).is_some()
    }

    /// One read of `cu` was granted; `true` if that was its last.
    pub fn granted(&mut self, cu: CuId) -> bool {
        let Some(c) = self.outstanding.get_mut(cu as usize) else { return false };
        if *c == 0 {
            return false;
        }
        *c -= 1;
        if *c == 0 {
            self.collecting -= 1;
            self.done.push(cu);
            return true;
        }
        false
    }

    /// Moves the collectors completed since the last call to `out`, in completion order.
    pub fn drain_done(&mut self, out: &mut Vec<CuId>) {
        if out.is_empty() {
            // The usual case (the SM empties `out` every cycle): trade buffers, copying nothing.
            core::mem::swap(out, &mut self.done);
        } else {
            out.append(&mut self.done);
        }
    }

    /// True while some collector waits for reads or has not been reported.
    pub fn pending(&self) -> bool {
        !self.done.is_empty() || self.collecting > 0
    }

    /// Frees `cu`.
    pub fn release(&mut self, cu: CuId) {
        if let Some(c) = self.outstanding.get_mut(cu as usize) {
            if *c > 0 {
                self.collecting -= 1;
            }
            *c = 0;
            self.set_free(cu as usize, true);
        }
    }
}
