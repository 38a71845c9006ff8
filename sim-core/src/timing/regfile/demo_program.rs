//! DeMO's programs (Mohammadpur-Fard et al., Algorithms 1 and 2): the `demo` scheme's transform
//! (single-use loads folded into their consumers, [`crate::analysis::demo_rewrite`]) with the map
//! that lets the shared functional run feed it, and the `demo-ideal` scheme's register
//! assignment (the paper's Fig. 3 Ideal: every single-use memory value bypasses the register
//! file, nothing else changes).
//!
//! ```text
//! original:  ld.global.f32 %f1, [%rd1];   add.f32 %f2, %f1, %f3;
//! demo:      (dropped)                    add.f32 %f2, %g[%rd1], %f3;   absorbs the ld's access
//! ideal:     ld (no bank write)           add (no bank read of %f1)     same program, same timing
//!            counted: single_use_writes   single_use_reads              (the baseline's share)
//! ```
//!
//! The map: every original instruction of a block keeps its place in block order, so its new
//! handle is its rank among the kept instructions (the rebuild allocates in block order); a
//! single-use load is dropped and its consumer absorbs that load's recorded access, named
//! explicitly ([`InstMap::set_absorbs_from`]) as compiled code often hoists several loads above
//! their consumers.

use alloc::format;
use alloc::string::String;

use super::params::{ConfigReader, SchemeConfig};
use crate::analysis::demo_rewrite::demo_rewrite_in;
use crate::analysis::single_use_loads::{LoadSpaces, SingleUseLoads};
use crate::analysis::{Cfg, Liveness, ModuleAnalysis};
use crate::ir::{Handle, Inst, Module};
use crate::timing::program_map::{InstFate, InstMap, ProgramTransform};
use crate::timing::program_regs::{AssignRegisters, PhysSlice, RegisterAssignment, WHOLE};

/// The `spaces` parameter's choices, default first.
pub const SPACE_CHOICES: &[&str] = &["global", "all"];

/// The `issue` parameter's choices, default first: `consumer` (the consumer carries the load's
/// request from its own place; the load is dropped) and `load` (the paper's SASS, Fig. 4 2''/3'':
/// a direct load issues in the load's place into the memory-operand buffer, the consumer reads
/// the buffer).
pub const ISSUE_CHOICES: &[&str] = &["consumer", "load"];

/// Bank-side id bit of a value that lives in the memory-operand buffer (`issue=load`): the
/// scheme sees the access and keeps it away from the banks.
pub const MOB_TAG: u32 = 1 << 30;

/// True for a memory-operand-buffer id.
pub fn is_mob(id: u32) -> bool {
    id & MOB_TAG != 0
}

fn split(config: &SchemeConfig) -> Option<(bool, LoadSpaces)> {
    let r = ConfigReader::new("demo", config);
    let load = r.choice("issue").ok()? == "load";
    Some((load, load_spaces(r.choice("spaces").ok()?)?))
}

/// The load spaces a `spaces` choice names.
pub fn load_spaces(choice: &str) -> Option<LoadSpaces> {
    match choice {
        "global" => Some(LoadSpaces::Global),
        "all" => Some(LoadSpaces::All),
        _ => None,
    }
}

/// The `demo` transform for a resolved config (its `spaces` parameter); `None` if the config
/// names no known choice (resolution has checked it).
pub fn transform_for(config: &SchemeConfig) -> Option<ProgramTransform> {
    match split(config)? {
        (true, _) => None,
        (false, LoadSpaces::Global) => Some(transform_global),
        (false, LoadSpaces::All) => Some(transform_all),
    }
}

/// Whether [`transform_for`] gives `config` a pass (without naming the passes: see
/// `registry::transforms_code`).
pub fn transforms(config: &SchemeConfig) -> bool {
    matches!(split(config), Some((false, _)))
}

/// The `demo` register assignment for a resolved config: with `issue=load`, the folded values
/// live in the memory-operand buffer ([`split_assign`]); else none (the allocator's).
pub fn assign_for(config: &SchemeConfig) -> Option<AssignRegisters> {
    match split(config)? {
        (false, _) => None,
        (true, LoadSpaces::Global) => Some(split_assign_global),
        (true, LoadSpaces::All) => Some(split_assign_all),
    }
}

fn split_assign_global(module: &Module, analysis: &ModuleAnalysis, out: &mut RegisterAssignment) -> Result<(), String> {
    split_assign(module, analysis, out, LoadSpaces::Global)
}

fn split_assign_all(module: &Module, analysis: &ModuleAnalysis, out: &mut RegisterAssignment) -> Result<(), String> {
    split_assign(module, analysis, out, LoadSpaces::All)
}

/// `issue=load`: the original program, every folded load's value placed in the buffer
/// ([`MOB_TAG`] + its definition id) instead of a register. **A**: a load is folded only if the
/// warp's previous folded value in the block has been consumed before it (one direct operand in
/// flight per warp, so a full buffer never deadlocks a warp's in-order issue); registers per
/// thread stay the original kernel's.
pub fn split_assign(
    module: &Module,
    analysis: &ModuleAnalysis,
    out: &mut RegisterAssignment,
    spaces: LoadSpaces,
) -> Result<(), String> {
    for (h, func) in module.functions.iter() {
        let (Some(ka), Some(body)) = (analysis.get(h), &func.body) else { continue };
        let loads = SingleUseLoads::compute_in(func, &ka.liveness, spaces);
        let defs = ka.def_use.defs();
        for (_, block) in body.blocks.iter() {
            let mut pending = None;
            for &ih in &block.insts {
                if pending == Some(ih) {
                    pending = None;
                }
                let Some(u) = loads.get(ih).filter(|_| pending.is_none()) else { continue };
                for &d in ka.def_use.defs_at(ih) {
                    if defs.get(d as usize).is_some_and(|x| x.reg == u.reg) {
                        out.values.insert((h.raw(), d), alloc::vec![PhysSlice { reg: MOB_TAG | d, slices: WHOLE }]);
                    }
                }
                pending = Some(u.consumer);
            }
        }
    }
    Ok(())
}

/// The transform folding `.global` loads only (the registry entry's default).
pub fn transform_global(module: &Module) -> Result<(Module, InstMap), String> {
    transform(module, LoadSpaces::Global)
}

/// The transform folding loads of every space **A** allows.
pub fn transform_all(module: &Module) -> Result<(Module, InstMap), String> {
    transform(module, LoadSpaces::All)
}

/// The rewritten module and where each original instruction went.
pub fn transform(module: &Module, spaces: LoadSpaces) -> Result<(Module, InstMap), String> {
    let rewritten = demo_rewrite_in(module, spaces).map_err(|d| {
        let first = d.first().map(|x| x.message.as_str()).unwrap_or_default();
        format!("the DeMO rewrite fails verification ({} problems): {first}", d.len())
    })?;
    let mut map = InstMap::new();
    for (h, func) in module.functions.iter() {
        let Some(body) = &func.body else { continue };
        let loads = SingleUseLoads::compute_in(func, &Liveness::compute(func, &Cfg::compute(func)), spaces);
        let mut next = 0u32;
        for (_, block) in body.blocks.iter() {
            for &ih in &block.insts {
                if loads.is_single_use(ih) {
                    map.set(h, ih, InstFate::dropped());
                    continue;
                }
                let new: Handle<Inst> = Handle::from_index(next);
                next += 1;
                match loads.load_consumed_by(ih) {
                    Some(u) => {
                        map.set(h, ih, InstFate { absorbs: true, ..InstFate::kept(new) });
                        map.set_absorbs_from(h, ih, u.load);
                    }
                    None => map.set(h, ih, InstFate::kept(new)),
                }
            }
        }
    }
    Ok((rewritten.module, map))
}

/// The `demo-ideal` assignment: the value of every single-use load (all spaces **A** allows)
/// lives in no register but under a buffer id ([`MOB_TAG`] + its definition id), which the
/// scheme counts and keeps away from the banks, so its write and its one read cost no bank
/// access; every other value keeps the allocator's registers, and registers per thread stay the
/// original's.
pub fn ideal_assign(module: &Module, analysis: &ModuleAnalysis, out: &mut RegisterAssignment) -> Result<(), String> {
    for (h, func) in module.functions.iter() {
        let Some(ka) = analysis.get(h) else { continue };
        let loads = SingleUseLoads::compute(func, &ka.liveness);
        let defs = ka.def_use.defs();
        for u in loads.iter() {
            for &d in ka.def_use.defs_at(u.load) {
                if defs.get(d as usize).is_some_and(|x| x.reg == u.reg) {
                    out.values.insert((h.raw(), d), alloc::vec![PhysSlice { reg: MOB_TAG | d, slices: WHOLE }]);
                }
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use alloc::vec::Vec;

    use crate::gpu::presets;
    use crate::timing::program_map::{SchemeProgram, Translate};
    use crate::timing::stream::trace::{MemSpace, NO_ACCESS};
    use crate::timing::stream::warp_stream::{Cursor, WarpStream};
    use crate::timing::Program;

    /// Two hoisted single-use loads whose consumers come in the other order.
    const CROSSED: &str = ".version 7.0\n.target sm_90\n.address_size 64\n.shared .align 4 .f32 buf[32];\n\
        .visible .entry k(.param .u64 out)\n{\n.reg .f32 %f<5>;\nld.shared.f32 %f1, [buf];\n\
        ld.shared.f32 %f2, [buf+4];\nadd.f32 %f3, %f2, 0f3F800000;\nadd.f32 %f4, %f1, 0f40000000;\nret;\n}\n";

    #[test]
    fn each_consumer_takes_its_own_loads_access() {
        let gpu = presets::hopper_h100();
        let module = crate::ptx::compile(CROSSED);
        assert!(module.is_ok(), "{module:?}");
        let Ok(module) = module else { return };
        let original = Program::decode(&module, &gpu);
        let sp = SchemeProgram::build(&module, &original, Some(super::transform_all), None, &gpu, true);
        assert!(sp.is_ok(), "{sp:?}");
        let Ok(sp) = sp else { return };
        // Recorded: ld %f1 (access 0) · ld %f2 (access 1) · add %f3 · add %f4 · ret.
        let mut ws = WarpStream::new();
        assert_eq!(ws.push_access(0, 0xffff_ffff, MemSpace::Shared, 4, &[0; 32]), Ok(()));
        assert_eq!(ws.push_access(1, 0xffff_ffff, MemSpace::Shared, 4, &[4; 32]), Ok(()));
        for sid in 2..5 {
            ws.push(sid, 0xffff_ffff);
        }
        // Rewritten: add %f3, %s[buf+4] (sid 0) · add %f4, %s[buf] (sid 1) · ret (sid 2): the first
        // consumer takes %f2's access (1), the second %f1's (0), though %f2's was pending last.
        let (mut t, mut c) = (Translate::default(), Cursor::default());
        let got: Vec<(u32, u32)> =
            (0..3).map(|pc| t.decode(&sp.map, &ws, pc, &mut c)).map(|d| (d.sid, d.access)).collect();
        assert_eq!(got, [(0, 1), (1, 0), (2, NO_ACCESS)]);
    }
}
