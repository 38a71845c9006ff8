//! Validation of a [`LaunchSetup`] against a module: every problem becomes a [`LaunchError`] with
//! a message that says what is wrong and where (unknown kernel, wrong parameter count or type,
//! absurd dimensions, oversized buffers), and a valid setup becomes a [`Plan`] the executor runs.
//!
//! ```text
//! .entry k(.param .u64 a, .param .u32 n)   + {"kernel": "k", "params": [{"buffer": …}]}
//! → error: kernel 'k' takes 2 parameters, the launch gives 1
//! ```

use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;

use serde::{Deserialize, Serialize};

use super::launch::{BufferSpec, LaunchSetup, ParamSpec, Repeat, ScalarSpec, ScalarValue, DEFAULT_BUDGET};
use super::value::ElemType;
use crate::ir::{Function, Handle, Module, Param};

/// Most threads in a CTA.
pub const MAX_BLOCK_THREADS: u64 = 1024;
/// Most dynamic shared memory per CTA in bytes (227 KiB, the largest opt-in of current GPUs).
pub const MAX_DYNAMIC_SMEM: u32 = 227 * 1024;
/// Most bytes in all buffers together (256 MiB).
pub const MAX_BUFFER_BYTES: u64 = 256 << 20;
/// Most rounds of a repeated launch sequence.
pub const MAX_REPEAT: u32 = 1_000_000;

/// Why a launch setup cannot run.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LaunchError {
    /// What is wrong, naming the field (`params[2]: …`).
    pub message: String,
}

impl LaunchError {
    /// An error with `message`.
    pub fn new(message: impl Into<String>) -> Self {
        LaunchError { message: message.into() }
    }
}

impl core::fmt::Display for LaunchError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(&self.message)
    }
}

/// One entry of the parameter pool, checked.
#[derive(Clone, Debug, PartialEq)]
pub enum PoolEntry {
    /// A device buffer of `len` elements.
    Buffer {
        /// Element type.
        ty: ElemType,
        /// Number of elements.
        len: u64,
        /// The spec (for initial contents).
        spec: BufferSpec,
        /// For a pointer table: the buffers its entries point to, each with its length (the
        /// table itself is `len` address-width integers, filled in when they are allocated).
        pointees: Vec<(u64, BufferSpec)>,
        /// For a texture object: the texture (the buffer is then its descriptor).
        texture: Option<super::texture::TextureSpec>,
    },
    /// A scalar's bytes (little-endian).
    Scalar(Vec<u8>),
    /// A struct passed by value: its bytes (buffer fields zero until allocated) and its buffer
    /// fields (`exec::launch_struct`).
    Struct {
        /// The struct's bytes up to the end of its last field.
        bytes: Vec<u8>,
        /// The buffers its pointer fields point to.
        buffers: Vec<super::launch_struct::StructBuffer>,
    },
}

/// One checked launch.
#[derive(Clone, Debug, PartialEq)]
pub struct Step {
    /// The kernel.
    pub kernel: Handle<Function>,
    /// Its name.
    pub name: String,
    /// Grid dimensions.
    pub grid: [u32; 3],
    /// CTA dimensions.
    pub block: [u32; 3],
    /// Dynamic shared memory in bytes.
    pub dynamic_smem: u32,
    /// Pool index of each kernel parameter.
    pub args: Vec<usize>,
}

/// A checked launch setup.
#[derive(Clone, Debug, PartialEq)]
pub struct Plan {
    /// The parameter pool.
    pub pool: Vec<PoolEntry>,
    /// Launches in order.
    pub steps: Vec<Step>,
    /// Repetition of the sequence.
    pub repeat: Option<Repeat>,
    /// Pool indices of the buffers to report.
    pub outputs: Vec<usize>,
    /// Warp-instruction budget.
    pub budget: u64,
}

/// Checks `setup` against `module`.
pub fn plan(module: &Module, setup: &LaunchSetup) -> Result<Plan, LaunchError> {
    let ptr_ty = if address_bits(module) == 64 { ElemType::U64 } else { ElemType::U32 };
    let pool = setup.params.iter().enumerate().map(|(i, p)| pool_entry(i, p, ptr_ty)).collect::<Result<Vec<_>, _>>()?;
    let bytes = |ty: &ElemType, len: &u64| len.saturating_mul(ty.size() as u64);
    let total: u64 = pool
        .iter()
        .map(|e| match e {
            PoolEntry::Buffer { ty, len, pointees, texture, .. } => {
                let texels = texture.as_ref().map_or(0, |t| bytes(&t.ty, &t.elements()));
                pointees.iter().map(|(l, s)| bytes(&s.ty, l)).fold(bytes(ty, len) + texels, u64::saturating_add)
            }
            PoolEntry::Scalar(_) => 0,
            PoolEntry::Struct { buffers, .. } => buffers.iter().map(|b| bytes(&b.spec.ty, &b.len)).sum(),
        })
        .fold(0u64, u64::saturating_add);
    if total > MAX_BUFFER_BYTES {
        return Err(LaunchError::new(format!(
            "the buffers need {total} bytes together; RegLab's limit is {MAX_BUFFER_BYTES} (256 MiB)"
        )));
    }
    let mut steps = Vec::new();
    if setup.launches.is_empty() {
        let name = match &setup.kernel {
            Some(k) => k.clone(),
            None => only_kernel(module)?,
        };
        let args = (0..pool.len()).collect();
        steps.push(step(module, &pool, "", &name, &setup.grid, &setup.block, setup.dynamic_smem, args)?);
    } else {
        for (i, l) in setup.launches.iter().enumerate() {
            let at = format!("launches[{i}]: ");
            let args = l.args.clone().unwrap_or_else(|| (0..pool.len()).collect());
            let grid = l.grid.as_ref().unwrap_or(&setup.grid);
            let block = l.block.as_ref().unwrap_or(&setup.block);
            let smem = l.dynamic_smem.unwrap_or(setup.dynamic_smem);
            steps.push(step(module, &pool, &at, &l.kernel, grid, block, smem, args)?);
        }
    }
    let is_buffer = |i: usize| matches!(pool.get(i), Some(PoolEntry::Buffer { .. }));
    let is_texture = |i: usize| matches!(pool.get(i), Some(PoolEntry::Buffer { texture: Some(_), .. }));
    let outputs = match &setup.outputs {
        Some(o) => o.clone(),
        None => (0..pool.len()).filter(|&i| is_buffer(i) && !is_texture(i)).collect(),
    };
    if let Some(&bad) = outputs.iter().find(|&&i| !is_buffer(i)) {
        return Err(LaunchError::new(format!("outputs: params[{bad}] is not a buffer (only buffers can be outputs)")));
    }
    if let Some(r) = setup.repeat {
        if r.max == 0 || r.max > MAX_REPEAT {
            return Err(LaunchError::new(format!("repeat.max must be 1 to {MAX_REPEAT}, not {}", r.max)));
        }
        if !is_buffer(r.until_zero) {
            return Err(LaunchError::new(format!("repeat.until_zero: params[{}] is not a buffer", r.until_zero)));
        }
    }
    let budget = setup.budget.unwrap_or(DEFAULT_BUDGET);
    if budget == 0 {
        return Err(LaunchError::new("budget must be at least 1 warp-instruction"));
    }
    Ok(Plan { pool, steps, repeat: setup.repeat, outputs, budget })
}

fn only_kernel(module: &Module) -> Result<String, LaunchError> {
    let names = kernel_names(module);
    match names.as_slice() {
        [one] => Ok(one.clone()),
        [] => Err(LaunchError::new("the module has no kernel (.entry with a body)")),
        _ => Err(LaunchError::new(format!("kernel: missing; the module has several: {}", names.join(", ")))),
    }
}

/// The width of addresses in `module`: its `.address_size`, else 64 bits if any kernel takes a
/// 64-bit integer parameter (old PTX compiled with `-m64` has no `.address_size`), else 32.
pub fn address_bits(module: &Module) -> u32 {
    match module.address_size {
        Some(bits) => bits,
        None => {
            let wide = module
                .functions
                .values()
                .filter(|f| f.is_entry())
                .flat_map(|f| &f.params)
                .any(|p| p.ty.is_integer() && p.ty.bits() == 64 && p.dims.is_empty());
            if wide {
                64
            } else {
                32
            }
        }
    }
}

/// Names of the kernels of `module` that can be launched.
pub fn kernel_names(module: &Module) -> Vec<String> {
    module.functions.values().filter(|f| f.is_entry() && f.body.is_some()).map(|f| f.name.clone()).collect()
}

/// The length of buffer `b` in elements, checked (`at` prefixes the messages).
pub(crate) fn buffer_len(b: &BufferSpec, at: &dyn Fn(String) -> LaunchError) -> Result<u64, LaunchError> {
    let data_len = b.data.as_ref().map_or(0, |d| d.len() as u64);
    let len = b.len.unwrap_or(data_len);
    if len < data_len {
        return Err(at(format!("len is {len} but data has {data_len} values")));
    }
    if len.saturating_mul(b.ty.size() as u64) > MAX_BUFFER_BYTES {
        return Err(at(format!("{len} elements of {} exceed RegLab's 256 MiB buffer limit", b.ty)));
    }
    if let Some(data) = &b.data {
        for (k, v) in data.iter().enumerate() {
            v.to_bits(b.ty).map_err(|e| at(format!("data[{k}]: {e}")))?;
        }
    }
    if let Some(super::launch::Init::Const(v)) = &b.init {
        v.to_bits(b.ty).map_err(|e| at(format!("init: {e}")))?;
    }
    if let Some(offset) = b.offset {
        check_offset(offset, b.ty, len).map_err(at)?;
    }
    Ok(len)
}

/// A buffer's `offset` must land on an element inside the buffer (or just past its end, like a
/// C pointer one past the last element).
fn check_offset(offset: u64, ty: ElemType, len: u64) -> Result<(), String> {
    let size = ty.size() as u64;
    let bytes = len.saturating_mul(size);
    if offset % size != 0 {
        return Err(format!("offset {offset} is not a multiple of the {size}-byte element size of {ty}"));
    }
    if offset > bytes {
        return Err(format!("offset {offset} is past the end of the buffer ({len} elements of {ty}: {bytes} bytes)"));
    }
    Ok(())
}

fn pool_entry(i: usize, p: &ParamSpec, ptr_ty: ElemType) -> Result<PoolEntry, LaunchError> {
    let at = |m: String| LaunchError::new(format!("params[{i}]: {m}"));
    match p {
        ParamSpec::Buffer(b) => {
            let len = buffer_len(b, &at)?;
            Ok(PoolEntry::Buffer { ty: b.ty, len, spec: b.clone(), pointees: Vec::new(), texture: None })
        }
        ParamSpec::Pointers(list) => {
            if list.is_empty() {
                return Err(at("a pointer table needs at least one buffer".into()));
            }
            let mut pointees = Vec::new();
            for (k, b) in list.iter().enumerate() {
                let at_k = |m: String| LaunchError::new(format!("params[{i}].pointers[{k}]: {m}"));
                pointees.push((buffer_len(b, &at_k)?, b.clone()));
            }
            let len = list.len() as u64;
            let spec = BufferSpec { ty: ptr_ty, len: Some(len), init: None, data: None, offset: None };
            Ok(PoolEntry::Buffer { ty: ptr_ty, len, spec, pointees, texture: None })
        }
        ParamSpec::Texture(t) => {
            t.check().map_err(at)?;
            buffer_len(&t.buffer(), &at)?;
            // The parameter receives the handle: the address of the descriptor.
            let spec = BufferSpec { ty: ElemType::U64, len: Some(5), init: None, data: None, offset: None };
            Ok(PoolEntry::Buffer { ty: ElemType::U64, len: 5, spec, pointees: Vec::new(), texture: Some(t.clone()) })
        }
        ParamSpec::Scalar(s) => Ok(PoolEntry::Scalar(scalar_bytes(s, &at)?)),
        ParamSpec::Struct(fields) => super::launch_struct::struct_entry(i, fields, ptr_ty),
    }
}

/// A scalar's bytes, little-endian, value after value (`at` prefixes the messages).
pub(crate) fn scalar_bytes(s: &ScalarSpec, at: &dyn Fn(String) -> LaunchError) -> Result<Vec<u8>, LaunchError> {
    let values = match &s.value {
        ScalarValue::One(v) => core::slice::from_ref(v),
        ScalarValue::Many(v) => v.as_slice(),
    };
    let mut bytes = Vec::new();
    for (k, v) in values.iter().enumerate() {
        let bits = v.to_bits(s.ty).map_err(|e| at(format!("value[{k}]: {e}")))?;
        bytes.extend_from_slice(&bits.to_le_bytes()[..s.ty.size()]);
    }
    Ok(bytes)
}

fn dims(at: &str, what: &str, v: &[u32], limits: [u64; 3]) -> Result<[u32; 3], LaunchError> {
    if v.is_empty() || v.len() > 3 {
        return Err(LaunchError::new(format!("{at}{what} needs 1 to 3 numbers, found {}", v.len())));
    }
    let mut out = [1u32; 3];
    for (k, (&d, lim)) in v.iter().zip(limits).enumerate() {
        if d == 0 || u64::from(d) > lim {
            let axis = ["x", "y", "z"][k];
            return Err(LaunchError::new(format!("{at}{what}.{axis} is {d}; it must be 1 to {lim}")));
        }
        out[k] = d;
    }
    Ok(out)
}

#[allow(clippy::too_many_arguments, reason = "one call site per launch form; a struct would only rename them")]
fn step(
    module: &Module,
    pool: &[PoolEntry],
    at: &str,
    name: &str,
    grid: &[u32],
    block: &[u32],
    dynamic_smem: u32,
    args: Vec<usize>,
) -> Result<Step, LaunchError> {
    let found = module.functions.iter().find(|(_, f)| f.name == name && f.is_entry() && f.body.is_some());
    let Some((kernel, func)) = found else {
        let names = kernel_names(module);
        let list = if names.is_empty() { "none".to_string() } else { names.join(", ") };
        return Err(LaunchError::new(format!("{at}unknown kernel '{name}' (kernels in this module: {list})")));
    };
    let grid = dims(at, "grid", grid, [(1 << 31) - 1, 65535, 65535])?;
    let block = dims(at, "block", block, [1024, 1024, 64])?;
    let threads: u64 = block.iter().map(|&d| u64::from(d)).product();
    if threads > MAX_BLOCK_THREADS {
        return Err(LaunchError::new(format!("{at}block has {threads} threads; a CTA holds at most 1024")));
    }
    check_ntid(at, func, block, threads)?;
    if dynamic_smem > MAX_DYNAMIC_SMEM {
        return Err(LaunchError::new(format!(
            "{at}dynamic_smem is {dynamic_smem} bytes; the most any GPU allows is {MAX_DYNAMIC_SMEM}"
        )));
    }
    if args.len() != func.params.len() {
        return Err(LaunchError::new(format!(
            "{at}kernel '{name}' takes {} parameter{}, the launch gives {}",
            func.params.len(),
            if func.params.len() == 1 { "" } else { "s" },
            args.len()
        )));
    }
    let ptr_bytes = u64::from(address_bits(module) / 8);
    for (k, (param, &arg)) in func.params.iter().zip(&args).enumerate() {
        let entry = pool.get(arg).ok_or_else(|| {
            LaunchError::new(format!("{at}argument {k} refers to params[{arg}], which does not exist"))
        })?;
        check_param(at, k, param, entry, ptr_bytes)?;
    }
    Ok(Step { kernel, name: name.into(), grid, block, dynamic_smem, args })
}

fn check_ntid(at: &str, func: &Function, block: [u32; 3], threads: u64) -> Result<(), LaunchError> {
    if let Some(req) = &func.perf.reqntid {
        let mut want = [1u32; 3];
        for (w, r) in want.iter_mut().zip(req) {
            *w = *r;
        }
        if want != block {
            return Err(LaunchError::new(format!(
                "{at}kernel '{}' requires block {want:?} (.reqntid), the launch gives {block:?}",
                func.name
            )));
        }
    }
    if let Some(max) = &func.perf.maxntid {
        let limit: u64 = max.iter().map(|&d| u64::from(d)).product();
        if threads > limit {
            return Err(LaunchError::new(format!(
                "{at}kernel '{}' allows at most {limit} threads per CTA (.maxntid), the launch gives {threads}",
                func.name
            )));
        }
    }
    Ok(())
}

fn check_param(at: &str, k: usize, param: &Param, entry: &PoolEntry, ptr_bytes: u64) -> Result<(), LaunchError> {
    let size = param.size_bytes().unwrap_or(0);
    let what =
        format!("{at}parameter {k} ('{}', {}{})", param.name, param.ty, if param.dims.is_empty() { "" } else { "[]" });
    match entry {
        PoolEntry::Buffer { .. } => {
            let ok = param.ty.is_integer() && param.dims.is_empty() && param.vec.is_none() && size == ptr_bytes;
            if !ok {
                return Err(LaunchError::new(format!(
                    "{what} cannot take a buffer: a buffer is passed as its {}-bit address",
                    ptr_bytes * 8
                )));
            }
        }
        PoolEntry::Struct { bytes, .. } => super::launch_struct::check_fits(&what, bytes.len() as u64, size)?,
        PoolEntry::Scalar(bytes) => {
            if bytes.len() as u64 != size {
                return Err(LaunchError::new(format!(
                    "{what} is {size} bytes, but the scalar given is {} bytes",
                    bytes.len()
                )));
            }
        }
    }
    Ok(())
}
