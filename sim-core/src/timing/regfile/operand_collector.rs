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

/// One collector.
#[derive(Clone, Copy, Debug, Default)]
struct Cu {
    busy: bool,
    outstanding: u32,
}

/// The collectors of one SM.
#[derive(Clone, Debug)]
pub struct CollectorPool {
    cus: Vec<Cu>,
    per_group: u32,
    /// Collectors whose operands are all read and that have not yet been reported.
    done: Vec<CuId>,
}

impl CollectorPool {
    /// The collectors of one SM of `gpu` shaped as `geo`.
    pub fn new(gpu: &GpuConfig, geo: &SmGeometry) -> Self {
        let groups = geo.groups.max(1);
        let configured = gpu.register_file.collector_units / groups;
        let per_group = if configured == 0 { (geo.schedulers / groups).max(1) } else { configured };
        CollectorPool { cus: vec![Cu::default(); (per_group * groups) as usize], per_group, done: Vec::new() }
    }

    /// A free collector of `group` for an instruction with `reads` outstanding reads.
    pub fn try_allocate(&mut self, group: u32, reads: u32) -> Option<CuId> {
        let start = (group * self.per_group) as usize;
        let slots = self.cus.get_mut(start..start + self.per_group as usize)?;
        let (i, cu) = slots.iter_mut().enumerate().find(|(_, c)| !c.busy)?;
        *cu = Cu { busy: true, outstanding: reads };
        let id = (start + i) as CuId;
        if reads == 0 {
            self.done.push(id);
        }
        Some(id)
    }

    /// Whether a collector of `group` is free.
    pub fn has_free(&self, group: u32) -> bool {
        let start = (group * self.per_group) as usize;
        self.cus.get(start..start + self.per_group as usize).is_some_and(|s| s.iter().any(|c| !c.busy))
    }

    /// One read of `cu` was granted; `true` if that was its last.
    pub fn granted(&mut self, cu: CuId) -> bool {
        let Some(c) = self.cus.get_mut(cu as usize) else { return false };
        c.outstanding = c.outstanding.saturating_sub(1);
        if c.outstanding == 0 {
            self.done.push(cu);
            return true;
        }
        false
    }

    /// Moves the collectors completed since the last call to `out`, in completion order.
    pub fn drain_done(&mut self, out: &mut Vec<CuId>) {
        out.append(&mut self.done);
    }

    /// True while some collector waits for reads or has not been reported.
    pub fn pending(&self) -> bool {
        !self.done.is_empty() || self.cus.iter().any(|c| c.busy && c.outstanding > 0)
    }

    /// Frees `cu`.
    pub fn release(&mut self, cu: CuId) {
        if let Some(c) = self.cus.get_mut(cu as usize) {
            *c = Cu::default();
        }
    }
}
