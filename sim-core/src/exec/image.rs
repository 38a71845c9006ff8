//! The module's static data as the device sees it: every `.global` variable (module or function
//! scope) allocated in global memory with its initialiser, every `.const` variable laid out in the
//! constant bank, and function addresses for indirect calls.
//!
//! ```text
//! .global .u32 values_g[64] = {340, 122, ...};   // allocated at 0x2_0000_0000, 256 bytes filled
//! .const .align 8 .f64 coeffs[4] = {...};        // constant bank offset 0
//! .global .u64 table[2] = {generic(values_g), 0}; // address initialisers resolved
//! ```

use alloc::collections::BTreeMap;
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use super::memory::{write_le, AddressLayout, GlobalMemory, RegionKind};
use super::semantics::round::{self, Mode};
use crate::ir::{Function, Handle, Initializer, Module, StateSpace, Type, Var};

/// A variable: module scope (`None`) or declared in a function body.
pub type VarKey = (Option<Handle<Function>>, Handle<Var>);

/// Addresses of the module's static data.
#[derive(Clone, Debug)]
pub struct ModuleImage {
    /// Address layout.
    pub layout: AddressLayout,
    /// Global address of each `.global` variable.
    pub globals: BTreeMap<VarKey, u64>,
    /// Constant-bank offset of each `.const` variable.
    pub consts: BTreeMap<VarKey, u64>,
    /// The constant bank.
    pub const_bank: Vec<u8>,
}

impl ModuleImage {
    /// The address of function `f` (for `mov %rd, f` and indirect calls).
    pub fn func_address(&self, f: Handle<Function>) -> u64 {
        self.layout.func_window + 16 * u64::from(f.raw())
    }
}

fn all_vars(module: &Module) -> Vec<(VarKey, &Var)> {
    let mut out: Vec<(VarKey, &Var)> = module.globals.iter().map(|(h, v)| ((None, h), v)).collect();
    for (fh, f) in module.functions.iter() {
        if let Some(b) = &f.body {
            out.extend(b.vars.iter().map(|(h, v)| ((Some(fh), h), v)));
        }
    }
    out
}

fn init_count(init: &Initializer) -> u64 {
    match init {
        Initializer::List(items) => items.iter().map(init_count).sum(),
        _ => 1,
    }
}

/// Bytes of a variable: declared size, else the initialiser's length.
pub fn var_size(v: &Var) -> u64 {
    let elem = u64::from(v.ty.size_bytes()) * v.vec.map_or(1, |w| w.len() as u64);
    v.size_bytes().unwrap_or_else(|| v.init.as_ref().map_or(0, |i| init_count(i) * elem))
}

/// Alignment of a variable (its `.align`, else its element size).
pub fn var_align(v: &Var) -> u64 {
    let elem = u64::from(v.ty.size_bytes()) * v.vec.map_or(1, |w| w.len() as u64);
    u64::from(v.align.unwrap_or(0)).max(elem).max(1).next_power_of_two()
}

/// Lays out and initialises the static data of `module`, allocating globals in `global`.
pub fn build(module: &Module, global: &mut GlobalMemory, layout: AddressLayout) -> Result<ModuleImage, String> {
    let vars = all_vars(module);
    let mut image = ModuleImage { layout, globals: BTreeMap::new(), consts: BTreeMap::new(), const_bank: Vec::new() };
    for (key, v) in &vars {
        let size = var_size(v);
        match v.space {
            // Texture references (`.global .texref t`, old `.tex .u64 t`) hold a texture handle.
            StateSpace::Global | StateSpace::Tex => {
                let base = global.allocate(alloc::vec![0; size as usize], RegionKind::Variable(v.name.clone()));
                image.globals.insert(*key, base);
            }
            StateSpace::Const => {
                let off = (image.const_bank.len() as u64).next_multiple_of(var_align(v));
                image.const_bank.resize((off + size) as usize, 0);
                image.consts.insert(*key, off);
            }
            _ => {}
        }
    }
    let names = name_table(module, &image);
    for (key, v) in &vars {
        let Some(init) = &v.init else { continue };
        let mut bytes = alloc::vec![0u8; var_size(v) as usize];
        let mut at = 0usize;
        write_init(&mut bytes, &mut at, v.ty, init, &names)?;
        if let Some(&base) = image.globals.get(key) {
            if let Some(r) = global.region_mut(base) {
                let n = bytes.len().min(r.data.len());
                r.data[..n].copy_from_slice(&bytes[..n]);
            }
        } else if let Some(&off) = image.consts.get(key) {
            let off = off as usize;
            if let Some(dst) = image.const_bank.get_mut(off..off + bytes.len()) {
                dst.copy_from_slice(&bytes);
            }
        }
    }
    Ok(image)
}

/// What each module-level name's address is, plain and generic.
fn name_table(module: &Module, image: &ModuleImage) -> BTreeMap<String, (u64, u64)> {
    let mut names = BTreeMap::new();
    for (h, v) in module.globals.iter() {
        if let Some(&a) = image.globals.get(&(None, h)) {
            names.insert(v.name.clone(), (a, a));
        } else if let Some(&o) = image.consts.get(&(None, h)) {
            names.insert(v.name.clone(), (o, image.layout.const_window + o));
        }
    }
    for (h, f) in module.functions.iter() {
        let a = image.func_address(h);
        names.insert(f.name.clone(), (a, a));
    }
    names
}

fn element_bits(ty: Type, init: &Initializer, names: &BTreeMap<String, (u64, u64)>) -> Result<u64, String> {
    Ok(match *init {
        Initializer::Int(v) => match ty {
            Type::F32 => u64::from((v as i64 as f32).to_bits()),
            Type::F64 => (v as i64 as f64).to_bits(),
            _ => v,
        },
        Initializer::F32(b) => match ty {
            Type::F64 => f64::from(f32::from_bits(b)).to_bits(),
            _ => u64::from(b),
        },
        Initializer::F64(b) => match ty {
            Type::F32 => round::round(f64::from_bits(b), 0.0, round::F32, Mode::NearestEven, false),
            Type::F16 => round::round(f64::from_bits(b), 0.0, round::F16, Mode::NearestEven, false),
            _ => b,
        },
        Initializer::Address { ref name, offset, generic } => {
            let &(plain, gen) = names.get(name).ok_or_else(|| format!("initialiser names unknown symbol '{name}'"))?;
            (if generic { gen } else { plain }).wrapping_add(offset as u64)
        }
        Initializer::List(_) => 0,
    })
}

fn write_init(
    bytes: &mut [u8],
    at: &mut usize,
    ty: Type,
    init: &Initializer,
    names: &BTreeMap<String, (u64, u64)>,
) -> Result<(), String> {
    if let Initializer::List(items) = init {
        for item in items {
            write_init(bytes, at, ty, item, names)?;
        }
        return Ok(());
    }
    let size = ty.size_bytes() as usize;
    let v = element_bits(ty, init, names)?;
    if let Some(dst) = bytes.get_mut(*at..*at + size) {
        write_le(dst, v);
    }
    *at += size;
    Ok(())
}
