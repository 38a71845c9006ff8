//! Composite instructions (Gilani et al. §3): the program pass of the `composite` and `gilani`
//! schemes and what the composite register file (CRF, one entry per warp) counts. The pass is
//! [`crate::analysis::composite_fuse`] (pairs of [`crate::analysis::composite`]); this module
//! adds the instruction map the timing run replays the shared functional run with: the fused
//! instruction stands where the fusion placed it (its origin), the other half of the pair is
//! merged into it, a CRF reader is kept.
//!
//! ```text
//! mul.lo.u32 %r2, %r1, 3;        mul.lo.u32_shl.b32 %r3, %r1, 3, 2;   fates: mul → fused
//! shl.b32    %r3, %r2, 2;   →                                         shl → merged (dropped)
//! ```
//!
//! Timing of a fused pair: one issue slot, one main register-file write (the intermediate goes
//! to the CRF) and one read fewer; the CRF is written once and read once per composite, and once
//! more per later `%crf` reader (pair rule `paper`, Gilani Fig. 4).

use alloc::format;
use alloc::string::String;

use crate::analysis::cfg::Cfg;
use crate::analysis::composite::{CompositePairs, CompositeRules, Placement};
use crate::analysis::composite_fuse::composite_fuse;
use crate::analysis::liveness::Liveness;
use crate::ir::{Handle, Module};
use crate::timing::program_map::{InstFate, InstMap, ProgramTransform};

/// The pair-rule parameter's choices: the paper's (later uses in the block read the CRF, Fig. 4)
/// and SCHEMES.md §5's stricter "exactly one use".
pub const PAIR_RULES: &[&str] = &["paper", "single_use"];

/// The transform of pair rule `rule` (one of [`PAIR_RULES`]; anything else is the paper's).
pub fn transform_for_rule(rule: &str) -> ProgramTransform {
    if rule == "single_use" {
        fuse_single_use
    } else {
        fuse_paper
    }
}

/// Fusion under the paper's rule (Fig. 4: CRF forwarding).
pub fn fuse_paper(module: &Module) -> Result<(Module, InstMap), String> {
    fuse(module, CompositeRules::gilani_fig4())
}

/// Fusion under SCHEMES.md §5's rule (the first result has exactly one use).
pub fn fuse_single_use(module: &Module) -> Result<(Module, InstMap), String> {
    fuse(module, CompositeRules::spec())
}

/// Fuses `module` under `rules` and maps every original instruction to its fate.
fn fuse(module: &Module, rules: CompositeRules) -> Result<(Module, InstMap), String> {
    let fusion = composite_fuse(module, rules).map_err(|d| {
        let first = d.first().map(|x| x.message.as_str()).unwrap_or_default();
        format!("composite fusion fails verification ({} problems): {first}", d.len())
    })?;
    let mut map = InstMap::new();
    for (fh, func) in module.functions.iter() {
        let Some(body) = &func.body else { continue };
        let live = Liveness::compute(func, &Cfg::compute(func));
        let pairs = CompositePairs::compute(func, &live, rules);
        // The fused body allocates its instructions in block order (`rebuild`), so the handle
        // of each emitted instruction is the running count of those before it.
        let mut next = 0u32;
        for (_, block) in body.blocks.iter() {
            for &ih in &block.insts {
                let emitted = match pairs.pair_of(ih).filter(|_| pairs.crf_source_of(ih).is_none()) {
                    Some(pair) => {
                        ih == match pair.placement {
                            Placement::AtFirst => pair.first,
                            Placement::AtSecond => pair.second,
                        }
                    }
                    None => true,
                };
                let fate = if emitted {
                    next += 1;
                    InstFate::kept(Handle::from_index(next - 1))
                } else {
                    InstFate::dropped()
                };
                map.set(fh, ih, fate);
            }
        }
        let fused_len = fusion.module.functions.get(fh).and_then(|f| f.body.as_ref()).map_or(0, |b| b.insts.len());
        if fused_len != next as usize {
            return Err(format!("composite fusion placed {fused_len} instructions where the map expects {next}"));
        }
    }
    Ok((fusion.module, map))
}

#[cfg(test)]
mod tests {
    use super::*;

    const MUL_SHIFT: &str = r#"
.version 7.0
.target sm_70
.address_size 64
.visible .entry k(.param .u64 out) {
    .reg .b32 %r<5>;
    .reg .b64 %rd<3>;
    ld.param.u64 %rd1, [out];
    mov.u32 %r1, %tid.x;
    mul.lo.u32 %r2, %r1, 3;
    shl.b32 %r3, %r2, 2;
    mul.wide.u32 %rd2, %r1, 4;
    add.u64 %rd2, %rd1, %rd2;
    st.global.u32 [%rd2], %r3;
    ret;
}
"#;

    #[test]
    fn a_mul_shift_pair_becomes_one_instruction() {
        let m = crate::ptx::compile(MUL_SHIFT);
        assert!(m.is_ok(), "{m:?}");
        let Ok(m) = m else { return };
        let r = fuse_paper(&m);
        assert!(r.is_ok(), "{r:?}");
        let Ok((fused, map)) = r else { return };
        let f = Handle::from_index(0);
        let len = |m: &Module| m.functions.get(f).and_then(|x| x.body.as_ref()).map_or(0, |b| b.insts.len());
        // 8 instructions → 7: the shl is merged into the mul (placed at the mul, instruction 2).
        assert_eq!((len(&m), len(&fused)), (8, 7));
        assert_eq!(map.fate(f, Handle::from_index(2)), Some(&InstFate::kept(Handle::from_index(2))));
        assert_eq!(map.fate(f, Handle::from_index(3)), Some(&InstFate::dropped()));
        assert_eq!(map.fate(f, Handle::from_index(7)), Some(&InstFate::kept(Handle::from_index(6))));
    }

    /// Gilani et al. Fig. 4 (the DCT snippet of the module documentation of
    /// [`crate::analysis::composite`]), after four movs.
    const FIG4: &str = r#"
.version 7.0
.target sm_70
.address_size 64
.visible .entry k() {
    .reg .b32 %r<7>;
    mov.u32 %r0, %tid.x;
    mov.u32 %r2, 3;
    mov.u32 %r4, %tid.y;
    mov.u32 %r5, 9;
    xor.b32 %r0, %r2, %r0;
    shr.u32 %r0, %r0, 31;
    sub.s32 %r5, %r5, %r4;
    xor.b32 %r4, %r4, %r5;
    neg.s32 %r6, %r4;
    add.s32 %r0, %r0, %r4;
    ret;
}
"#;

    #[test]
    fn the_pair_rule_picks_fig4_forwarding_or_exactly_one_use() {
        let m = crate::ptx::compile(FIG4);
        assert!(m.is_ok(), "{m:?}");
        let Ok(m) = m else { return };
        let f = Handle::from_index(0);
        let len = |m: &Module| m.functions.get(f).and_then(|x| x.body.as_ref()).map_or(0, |b| b.insts.len());
        // paper: xor-shr and xor-add fused (the neg reads %crf): 11 → 9 instructions.
        // single_use: the second xor's %r4 has two uses (neg, add): only xor-shr fused, 11 → 10.
        let paper = transform_for_rule("paper")(&m);
        let strict = transform_for_rule("single_use")(&m);
        assert!(paper.is_ok() && strict.is_ok(), "{paper:?} {strict:?}");
        let (Ok((paper, pmap)), Ok((strict, _))) = (paper, strict) else { return };
        assert_eq!((len(&m), len(&paper), len(&strict)), (11, 9, 10));
        // The neg (instruction 8) is kept under both; under paper it stands at 7 (one merged before it).
        assert_eq!(pmap.fate(f, Handle::from_index(8)), Some(&InstFate::kept(Handle::from_index(7))));
    }
}
