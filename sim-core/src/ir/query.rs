//! Convenience queries on the IR: finding kernels and symbols by name, and the initial bytes of a
//! variable.
//!
//! ```text
//! .global .align 4 .u16 t[4] = {1, 2};   // init_bytes: [1, 0, 2, 0, 0, 0, 0, 0]
//! ```

use alloc::vec::Vec;

use super::arena::Handle;
use super::module::{Function, Initializer, Module, Var};
use super::types::Type;

impl Module {
    /// The kernels (`.entry` functions with a body), in source order.
    pub fn kernels(&self) -> impl Iterator<Item = (Handle<Function>, &Function)> + '_ {
        self.functions.iter().filter(|(_, f)| f.is_entry() && f.body.is_some())
    }

    /// The function (entry or `.func`) named `name`.
    pub fn function(&self, name: &str) -> Option<(Handle<Function>, &Function)> {
        self.functions.iter().find(|(_, f)| f.name == name)
    }

    /// The module-level variable named `name`.
    pub fn global(&self, name: &str) -> Option<(Handle<Var>, &Var)> {
        self.globals.iter().find(|(_, v)| v.name == name)
    }

    /// Total number of instructions in all defined functions.
    pub fn instruction_count(&self) -> usize {
        self.functions.values().map(Function::instruction_count).sum()
    }
}

impl Var {
    /// The initial contents as little-endian bytes, zero-filled to the variable's size (PTX
    /// zero-fills elements an initialiser leaves out). `None` without an initialiser, or if it
    /// takes the address of a symbol (that needs a memory layout). Float literals are converted
    /// to the element's precision for `.f32`/`.f64` and give raw bits otherwise; integers give
    /// their low bytes. An unsized array (`[]`) takes its length from the initialiser.
    pub fn init_bytes(&self) -> Option<Vec<u8>> {
        let init = self.init.as_ref()?;
        let elem = self.ty.size_bytes() as usize;
        let mut out = Vec::new();
        let mut stack = alloc::vec![init];
        while let Some(item) = stack.pop() {
            match item {
                Initializer::List(items) => stack.extend(items.iter().rev()),
                Initializer::Address { .. } => return None,
                leaf => out.extend(leaf_bits(leaf, self.ty).to_le_bytes().iter().take(elem)),
            }
        }
        let size = match self.size_bytes() {
            Some(size) => usize::try_from(size).ok()?,
            None => {
                // `[]` dimensions: as many whole rows as the initialiser covers.
                let known: u64 = self.dims.iter().flatten().product();
                let row = (elem as u64).saturating_mul(known).max(1) * self.vec.map_or(1, |v| v.len() as u64);
                usize::try_from((out.len() as u64).div_ceil(row) * row).ok()?
            }
        };
        out.resize(size.max(out.len()), 0);
        Some(out)
    }
}

/// The bits a scalar initialiser stores in an element of type `ty`.
fn leaf_bits(leaf: &Initializer, ty: Type) -> u64 {
    match (leaf, ty) {
        (Initializer::F32(b), Type::F64) => f64::from(f32::from_bits(*b)).to_bits(),
        (Initializer::F64(b), Type::F32) => u64::from((f64::from_bits(*b) as f32).to_bits()),
        (Initializer::Int(v) | Initializer::F64(v), _) => *v,
        (Initializer::F32(b), _) => u64::from(*b),
        _ => 0,
    }
}

#[cfg(test)]
mod tests {
    use alloc::vec;

    fn module(src: &str) -> super::Module {
        let full = alloc::format!(".version 7.0\n.target sm_80\n.address_size 64\n{src}");
        crate::ptx::compile(&full).unwrap_or_default()
    }

    #[test]
    fn initial_bytes() {
        let m = module(
            ".global .u16 t[4] = {1, 2};\n.global .f32 f[2] = {0d3FF0000000000000, 0f40000000};\n\
             .global .b8 u[] = {7, 8, 9};\n.global .u64 p = t;\n.global .s32 g[2][2] = {{1, -1}, {2, 3}};\n\
             .global .u32 z;",
        );
        let bytes = |name: &str| m.global(name).and_then(|(_, v)| v.init_bytes());
        assert_eq!(bytes("t"), Some(vec![1, 0, 2, 0, 0, 0, 0, 0]));
        assert_eq!(bytes("f"), Some(vec![0, 0, 0x80, 0x3F, 0, 0, 0, 0x40]));
        assert_eq!(bytes("u"), Some(vec![7, 8, 9]));
        assert_eq!(bytes("p"), None);
        assert_eq!(bytes("g"), Some(vec![1, 0, 0, 0, 255, 255, 255, 255, 2, 0, 0, 0, 3, 0, 0, 0]));
        assert_eq!(bytes("z"), None);
    }

    #[test]
    fn finding_things() {
        let m = module(".visible .entry a() { ret; }\n.func b() { ret; }\n.entry c();\n");
        let kernels: vec::Vec<_> = m.kernels().map(|(_, f)| f.name.as_str()).collect();
        assert_eq!(kernels, ["a"]);
        assert!(m.function("b").is_some_and(|(_, f)| !f.is_entry()));
        assert_eq!(m.instruction_count(), 2);
    }
}
