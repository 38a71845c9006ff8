//! Plugs the register-file schemes' analyses into the per-instruction [`Annotations`]: needed
//! bitwidth and signedness of every integer definition (range analysis), single-use loads
//! (DeMO), composite-pair members (Gilani, `SCHEMES.md` §5 rules).
//!
//! ```text
//! add.s32 %r2, %r1, 1;        // defs: [{ %r2, bits: 6, signed: false }]   (%r1 ∈ [0, 49])
//! ld.global.u32 %r3, [%rd1];  // single_use_load: true
//! ```

use super::annotations::{Annotations, Width};
use super::composite::{CompositePairs, CompositeRules};
use super::kernel::KernelAnalysis;
use super::range_seeds::RangeSeeds;
use super::ranges::RangeAnalysis;
use super::single_use_loads::SingleUseLoads;
use crate::ir::Function;

/// Fills `notes` (computed for `kernel` from `analysis`) with the ranges under `seeds`, the
/// single-use loads and the composite pairs under `rules`.
pub fn annotate_schemes(
    notes: &mut Annotations,
    kernel: &Function,
    analysis: &KernelAnalysis,
    seeds: &RangeSeeds,
    rules: CompositeRules,
) {
    let ranges = RangeAnalysis::compute(kernel, &analysis.cfg, &analysis.dominators, &analysis.liveness, seeds);
    notes.set_widths(|inst, reg| ranges.bitwidth(inst, reg).map(|b| Width { bits: b.bits, signed: b.signed }));
    let loads = SingleUseLoads::compute(kernel, &analysis.liveness);
    notes.mark_single_use_loads(loads.iter().map(|u| u.load));
    let pairs = CompositePairs::compute(kernel, &analysis.liveness, rules);
    notes.mark_composite_pairs(pairs.iter().map(|p| (p.first, p.second)));
}
