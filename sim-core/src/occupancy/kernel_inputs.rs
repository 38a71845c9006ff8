//! What the calculator reads from a kernel's IR: the static shared memory its blocks allocate and
//! the block size its performance directives fix or bound.
//!
//! ```text
//! .visible .entry k() .maxntid 128, 1, 1 {
//!   .shared .align 4 .b8 tile[1024];      // static shared memory: 1024 + 8 (after alignment)
//!   .shared .align 8 .b8 sums[8];         //   = 1032 bytes, plus module-level .shared it uses
//!   …                                     // block size hint: 128 (from .maxntid)
//! }
//! ```
//!
//! Static shared memory counts the `.shared` variables of known size declared in the kernel and in
//! every function it calls (directly, transitively), plus the module-level `.shared` variables any
//! of them names, each placed at its alignment in declaration order, as a linker lays them out.
//! Arrays without a size (`.extern .shared .b8 dyn[]`) are the kernel's dynamic shared memory:
//! they are reported, not counted (the launch gives their size).

use alloc::vec;
use alloc::vec::Vec;

use crate::ir::{AddressBase, Function, FunctionKind, Handle, Module, Operand, Symbol, Var};

/// The static shared memory of a kernel.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct SharedMemoryUse {
    /// Bytes of static shared memory per block (`.shared` variables of known size, aligned).
    pub static_bytes: u64,
    /// Number of `.shared` variables counted.
    pub variables: u32,
    /// Whether the kernel declares an unsized `.shared` array (dynamic shared memory).
    pub dynamic: bool,
}

/// Where a block-size hint comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum BlockSizeSource {
    /// `.reqntid`: the launch must use exactly this block size.
    Reqntid,
    /// `.maxntid`: the launch may use at most this many threads.
    Maxntid,
}

/// The block size a kernel's directives give: `.reqntid` (exact) else `.maxntid` (a bound), as the
/// product of the dimensions written; `None` without either.
pub fn block_size_hint(kernel: &Function) -> Option<(u32, BlockSizeSource)> {
    let product = |dims: &Vec<u32>| dims.iter().try_fold(1u32, |acc, &d| acc.checked_mul(d)).filter(|&n| n > 0);
    let perf = &kernel.perf;
    match (&perf.reqntid, &perf.maxntid) {
        (Some(d), _) => product(d).map(|n| (n, BlockSizeSource::Reqntid)),
        (None, Some(d)) => product(d).map(|n| (n, BlockSizeSource::Maxntid)),
        (None, None) => None,
    }
}

/// The static shared memory of `kernel` in `module` (see the module documentation).
pub fn static_shared_memory(module: &Module, kernel: Handle<Function>) -> SharedMemoryUse {
    let functions = reachable(module, kernel);
    let mut globals = vec![false; module.globals.len()];
    let mut layout = Layout::default();
    for &f in &functions {
        let Some(body) = module.functions.get(f).and_then(|f| f.body.as_ref()) else { continue };
        for inst in body.insts.values() {
            for op in &inst.operands {
                for_each_symbol(op, &mut |s| {
                    if let Symbol::Global(g) = s {
                        if let Some(used) = globals.get_mut(g.index()) {
                            *used = true;
                        }
                    }
                });
            }
        }
        body.vars.values().for_each(|v| layout.place(v));
    }
    module.globals.iter().filter(|(g, _)| globals.get(g.index()).copied().unwrap_or(false)).for_each(|(_, v)| {
        layout.place(v);
    });
    layout.result
}

/// Running placement of `.shared` variables.
#[derive(Default)]
struct Layout {
    result: SharedMemoryUse,
}

impl Layout {
    fn place(&mut self, var: &Var) {
        if !var.space.is_shared() {
            return;
        }
        match var.size_bytes() {
            Some(size) => {
                let elem = u64::from(var.ty.size_bytes()) * var.vec.map_or(1, |v| v.len() as u64);
                let align = u64::from(var.align.unwrap_or(0)).max(elem).max(1);
                let start = self.result.static_bytes.div_ceil(align).saturating_mul(align);
                self.result.static_bytes = start.saturating_add(size);
                self.result.variables += 1;
            }
            None => self.result.dynamic = true,
        }
    }
}

/// `kernel` and every function it can call, in discovery order.
fn reachable(module: &Module, kernel: Handle<Function>) -> Vec<Handle<Function>> {
    let mut seen = vec![false; module.functions.len()];
    let mut order = Vec::new();
    let mut stack = vec![kernel];
    while let Some(f) = stack.pop() {
        match seen.get_mut(f.index()) {
            Some(s) if !*s => *s = true,
            _ => continue,
        }
        order.push(f);
        let Some(body) = module.functions.get(f).and_then(|f| f.body.as_ref()) else { continue };
        for inst in body.insts.values() {
            for op in &inst.operands {
                for_each_symbol(op, &mut |s| {
                    if let Symbol::Function(callee) = s {
                        let is_func = module.functions.get(callee).is_some_and(|c| c.kind == FunctionKind::Func);
                        if is_func {
                            stack.push(callee);
                        }
                    }
                });
            }
        }
    }
    order
}

/// Calls `f` with every symbol `op` names (addresses, symbol operands, nested operands).
fn for_each_symbol(op: &Operand, f: &mut impl FnMut(Symbol)) {
    match op {
        Operand::Symbol { symbol, .. } => f(*symbol),
        Operand::Address(a) => {
            if let AddressBase::Symbol(s) = a.base {
                f(s);
            }
        }
        Operand::Vector(ops) | Operand::List(ops) => ops.iter().for_each(|o| for_each_symbol(o, f)),
        Operand::Pair(pair) => pair.iter().for_each(|o| for_each_symbol(o, f)),
        Operand::Tex(t) => {
            for_each_symbol(&t.texture, f);
            if let Some(s) = &t.sampler {
                for_each_symbol(s, f);
            }
            for_each_symbol(&t.coords, f);
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn compile(src: &str) -> Module {
        match crate::ptx::compile(src) {
            Ok(m) => m,
            Err(d) => {
                assert!(d.is_empty(), "does not compile: {d:?}");
                Module::default()
            }
        }
    }

    fn kernel(m: &Module, name: &str) -> Handle<Function> {
        m.functions.iter().find(|(_, f)| f.name == name).map(|(h, _)| h).unwrap_or_else(|| Handle::from_index(u32::MAX))
    }

    const HEAD: &str = ".version 7.0\n.target sm_80\n.address_size 64\n";

    #[test]
    fn counts_body_and_used_module_shared_variables_aligned() {
        let src = alloc::format!(
            "{HEAD}.shared .align 8 .b8 used[12];\n.shared .align 4 .b8 unused[4096];\n\
             .func f() {{ .reg .b64 %rd<2>; .shared .align 16 .b8 inner[4]; mov.u64 %rd1, inner; ret; }}\n\
             .visible .entry k() .maxntid 64, 2 {{ .reg .b64 %rd<3>; .shared .align 4 .b8 tile[6];\n\
             mov.u64 %rd1, used; mov.u64 %rd2, tile; call f; ret; }}\n"
        );
        let m = compile(&src);
        let k = kernel(&m, "k");
        // tile 0..6, inner at 16..20 (f's body), used at 24..36.
        let smem = static_shared_memory(&m, k);
        assert_eq!(smem, SharedMemoryUse { static_bytes: 36, variables: 3, dynamic: false });
        let f = m.functions.get(k);
        assert_eq!(f.and_then(block_size_hint), Some((128, BlockSizeSource::Maxntid)));
    }

    #[test]
    fn unsized_arrays_are_dynamic_and_reqntid_wins() {
        let src = alloc::format!(
            "{HEAD}.extern .shared .align 4 .b8 dyn[];\n\
             .visible .entry k() .maxntid 1024 .reqntid 320 {{ .reg .b32 %r<2>; ld.shared.u32 %r1, [dyn]; ret; }}\n"
        );
        let m = compile(&src);
        let k = kernel(&m, "k");
        assert_eq!(static_shared_memory(&m, k), SharedMemoryUse { static_bytes: 0, variables: 0, dynamic: true });
        assert_eq!(m.functions.get(k).and_then(block_size_hint), Some((320, BlockSizeSource::Reqntid)));
    }
}
