//! Starting ranges of the range analysis: special registers from the launch when it is known (or
//! the kernel's `.reqntid`/`.maxntid`), else from the architectural limits; kernel parameters
//! from the user when given, else their full type range (`SCHEMES.md` §A).
//!
//! ```text
//! mov.u32 %r1, %tid.x;      // launch 256×1×1: [0, 255]; no launch: [0, 1023]
//! mov.u32 %r2, %laneid;     // [0, 31]
//! ld.param.u32 %r3, [n];    // [0, 4294967295] unless the user says otherwise
//! ```
//!
//! Architectural limits (compute capability 2.0 and later): CTA dimensions at most 1024 × 1024 ×
//! 64, grid dimensions at most (2³¹−1) × 65535 × 65535, 32 lanes per warp; **A**: at most 64 warps
//! per SM (`%warpid` < 64) and 16 CTAs per cluster; shared variables' addresses below
//! [`RangeSeeds::shared_window`].

use alloc::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::interval::Interval;
use crate::ir::{Dim, Function, SpecialReg};

/// Launch facts and user-given parameter ranges.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RangeSeeds {
    /// CTA dimensions (x, y, z) of the launch, if known.
    pub block: Option<[u32; 3]>,
    /// Grid dimensions (x, y, z) in CTAs, if known.
    pub grid: Option<[u32; 3]>,
    /// Ranges of kernel parameters by parameter index (what `ld.param` of that parameter reads).
    pub params: BTreeMap<u32, Interval>,
    /// **A**: bytes of the CTA's shared window; the address of a `.shared` variable
    /// (`mov.u32 %r1, tile`) is an offset below it. Default 256 KiB, above every GPU so far
    /// (sm_90: 227 KiB per CTA).
    pub shared_window: u32,
}

const MAX_BLOCK: [u32; 3] = [1024, 1024, 64];
const MAX_GRID: [u32; 3] = [(1 << 31) - 1, 65535, 65535];

fn dim(d: Dim) -> usize {
    match d {
        Dim::X => 0,
        Dim::Y => 1,
        Dim::Z => 2,
    }
}

impl RangeSeeds {
    /// No launch known: architectural limits only.
    pub fn architectural() -> Self {
        RangeSeeds { block: None, grid: None, params: BTreeMap::new(), shared_window: 256 * 1024 }
    }

    /// A launch of `grid` CTAs of `block` threads.
    pub fn launch(grid: [u32; 3], block: [u32; 3]) -> Self {
        RangeSeeds { block: Some(block), grid: Some(grid), ..RangeSeeds::architectural() }
    }

    /// The same seeds with parameter `index` known to lie in `range`.
    pub fn with_param(mut self, index: u32, range: Interval) -> Self {
        self.params.insert(index, range);
        self
    }

    /// The range of CTA dimension `d` of `func`: exact from the launch or `.reqntid`, else at most
    /// `.maxntid` or the architectural limit.
    fn ntid(&self, func: &Function, d: usize) -> (u32, u32) {
        let pick = |v: &[u32]| v.get(d).copied().unwrap_or(1).max(1);
        if let Some(b) = self.block {
            let n = b.get(d).copied().unwrap_or(1).max(1);
            return (n, n);
        }
        if let Some(req) = &func.perf.reqntid {
            let n = pick(req);
            return (n, n);
        }
        let max = func.perf.maxntid.as_deref().map_or(MAX_BLOCK[d], pick);
        (1, max.min(MAX_BLOCK[d]))
    }

    fn nctaid(&self, d: usize) -> (u32, u32) {
        match self.grid {
            Some(g) => {
                let n = g.get(d).copied().unwrap_or(1).max(1);
                (n, n)
            }
            None => (1, MAX_GRID[d]),
        }
    }

    /// The range of special register `s` in kernel `func`, read as an unsigned value of its
    /// natural width.
    pub fn special(&self, s: SpecialReg, func: &Function) -> Interval {
        use SpecialReg::*;
        let span = |(lo, hi): (u32, u32)| Interval::new(i128::from(lo), i128::from(hi));
        let index = |(_, hi): (u32, u32)| Interval::new(0, i128::from(hi) - 1);
        match s {
            Tid(d) => index(self.ntid(func, dim(d))),
            Ntid(d) => span(self.ntid(func, dim(d))),
            Ctaid(d) | Clusterid(d) => index(self.nctaid(dim(d))),
            Nctaid(d) | Nclusterid(d) => span(self.nctaid(dim(d))),
            ClusterCtaid(_) | ClusterCtarank => Interval::new(0, 15),
            ClusterNctaid(_) | ClusterNctarank => Interval::new(1, 16),
            IsExplicitCluster => Interval::new(0, 1),
            Laneid => Interval::new(0, 31),
            Warpid => Interval::new(0, 63),
            Nwarpid => Interval::new(1, 64),
            WarpSz => Interval::constant(32),
            Clock64 | Globaltimer | Pm64(_) | CurrentGraphExec | Gridid => Interval::new(0, i128::from(u64::MAX)),
            _ => Interval::new(0, i128::from(u32::MAX)),
        }
    }

    /// The user-given range of parameter `index`, if any.
    pub fn param(&self, index: u32) -> Option<Interval> {
        self.params.get(&index).copied()
    }
}
