//! The DeMO rewrite (Mohammadpur-Fard et al., Algorithm 2): every single-use load is removed and
//! its consumer reads the memory operand directly. An IR → IR pass; the result is verified.
//!
//! ```text
//! ld.const.f32 %f1, [%rd1];               ld.const.f32 %f1, [%rd1];
//! ld.const.f32 %f2, [%rd1+4];        →    mul.ftz.f32 %f3, %c[%rd1+4], %f1;
//! mul.ftz.f32 %f3, %f2, %f1;              fma.rn.ftz.f32 %f3, %f1, %f3, %f3;
//! fma.rn.ftz.f32 %f3, %f1, %f3, %f3;
//! ```
//!
//! The consumer keeps its place (the paper's Fig. 4: instruction 2' stands where the load stood,
//! which is the same position once the load is gone, as consumer and load are in one block and
//! nothing between them is moved).

use alloc::boxed::Box;
use alloc::vec::Vec;

use super::cfg::Cfg;
use super::liveness::Liveness;
use super::rebuild::{rebuild, Slot};
use super::single_use_loads::{LoadSpaces, SingleUseLoads};
use crate::diagnostic::Diagnostic;
use crate::ir::{Function, Inst, MemOperand, Module, Operand, SchemeOperand};

/// What the rewrite did to a module.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct DemoRewrite {
    /// The rewritten module.
    pub module: Module,
    /// Number of loads removed (consumers given a direct memory operand), all functions together.
    pub rewritten: usize,
}

/// Rewrites every defined function of `module`; the result has passed the verifier, or the
/// verifier's complaints are returned.
pub fn demo_rewrite(module: &Module) -> Result<DemoRewrite, Vec<Diagnostic>> {
    demo_rewrite_in(module, LoadSpaces::All)
}

/// As [`demo_rewrite`], folding only loads from `spaces`.
pub fn demo_rewrite_in(module: &Module, spaces: LoadSpaces) -> Result<DemoRewrite, Vec<Diagnostic>> {
    let mut out = module.clone();
    let mut rewritten = 0;
    for (h, func) in module.functions.iter() {
        let Some(new) = rewrite_function_in(func, spaces, &mut rewritten) else { continue };
        if let Some(f) = out.functions.get_mut(h) {
            *f = new;
        }
    }
    let problems = crate::ir::verify::verify(&out);
    if problems.is_empty() {
        Ok(DemoRewrite { module: out, rewritten })
    } else {
        Err(problems)
    }
}

/// `func` with its single-use loads folded into their consumers (`None` for a declaration).
pub fn rewrite_function(func: &Function, rewritten: &mut usize) -> Option<Function> {
    rewrite_function_in(func, LoadSpaces::All, rewritten)
}

/// As [`rewrite_function`], folding only loads from `spaces`.
pub fn rewrite_function_in(func: &Function, spaces: LoadSpaces, rewritten: &mut usize) -> Option<Function> {
    let body = func.body.as_ref()?;
    let loads = SingleUseLoads::compute_in(func, &Liveness::compute(func, &Cfg::compute(func)), spaces);
    let new_body = rebuild(body, |_, insts| {
        let mut slots = Vec::with_capacity(insts.len());
        for &ih in insts {
            let Some(inst) = body.insts.get(ih) else { continue };
            if loads.is_single_use(ih) {
                *rewritten += 1;
                continue;
            }
            let mut inst = inst.clone();
            if let Some(use_) = loads.load_consumed_by(ih) {
                if let Some(load) = body.insts.get(use_.load) {
                    fold(&mut inst, use_.operand, load);
                }
            }
            slots.push(Slot { origin: ih, inst });
        }
        slots
    });
    Some(Function { body: Some(new_body), ..func.clone() })
}

/// Replaces operand `index` of `consumer` with the memory operand `load` reads.
fn fold(consumer: &mut Inst, index: usize, load: &Inst) {
    let (Some(space), Some(ty), Some(Operand::Address(address))) = (load.mods.space, load.ty(), load.operands.get(1))
    else {
        return;
    };
    if let Some(slot) = consumer.operands.get_mut(index) {
        let mem = MemOperand { space, address: *address, ty };
        *slot = Operand::Scheme(Box::new(SchemeOperand::Memory(mem)));
    }
}

#[cfg(test)]
mod tests {
    use alloc::string::String;
    use alloc::vec::Vec;

    /// The paper's Fig. 4, "Modified PTX" column (1'–3'), with the two commas and the mul's last
    /// operand `%f1` that the extracted text lost restored (the SASS column shows `%f1`).
    const PAPER_MODIFIED: [&str; 3] =
        ["ld.const.f32 %f1,[%rd1]", "mul.ftz.f32 %f3,%c[%rd1+4],%f1", "fma.rn.ftz.f32 %f3,%f1,%f3,%f3"];

    const BASELINE: &str = ".version 7.0\n.target sm_80\n.address_size 64\n\
        .visible .entry fig4(.param .u64 c, .param .u64 o)\n{\n.reg .f32 %f<4>;\n.reg .b64 %rd<3>;\n\
        ld.param.u64 %rd1, [c];\nld.param.u64 %rd2, [o];\n\
        ld.const.f32 %f1, [%rd1];\nld.const.f32 %f2, [%rd1+4];\nmul.ftz.f32 %f3, %f2, %f1;\n\
        fma.rn.ftz.f32 %f3, %f1, %f3, %f3;\nst.global.f32 [%rd2], %f3;\nret;\n}\n";

    #[test]
    fn fig4_comes_out_as_the_paper_shows() {
        let module = crate::ptx::compile(BASELINE);
        assert!(module.is_ok(), "{module:?}");
        let Ok(module) = module else { return };
        let rewritten = super::demo_rewrite(&module);
        assert!(rewritten.is_ok(), "{rewritten:?}");
        let Ok(rewritten) = rewritten else { return };
        assert_eq!(rewritten.rewritten, 1);
        let text = crate::ptx::emit(&rewritten.module);
        let window: Vec<String> = text
            .lines()
            .map(|l| l.trim().trim_end_matches(';').replace(", ", ","))
            .skip_while(|l| !l.starts_with("ld.const"))
            .take(3)
            .collect();
        assert_eq!(window, PAPER_MODIFIED);
    }
}
