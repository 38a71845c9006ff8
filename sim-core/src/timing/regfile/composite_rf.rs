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
    let fusion = composite_fuse(module, rules)
        .map_err(|d| format!("composite fusion fails verification ({} problems): {:?}", d.len(), d.first()))?;
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
}
