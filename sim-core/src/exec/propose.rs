//! A proposed launch setup for a kernel, from its parameter list and body. Pointer-sized integer
//! parameters that the kernel uses as addresses (directly or through values derived by
//! arithmetic, `cvt` or `cvta`) become buffers whose element type is the type of the first load
//! or store through them; buffers that are stored to are outputs (zero-filled), buffers whose
//! contents index memory are zero-filled, the others get seeded random contents. Integer scalars
//! get the problem size (16384, or 128 for two-dimensional kernels); the block is
//! `.reqntid`/`.maxntid` or 256 threads (16×16 in two dimensions), and the grid covers the
//! problem, so a guard `idx < n` holds for exactly the problem's threads.
//!
//! Each buffer is as long as the kernel's own addresses reach (`propose_extent`: the range
//! analysis seeded with this grid, block and these scalars), rounded up to a multiple of 32
//! elements and capped at [`MAX_PROPOSED_BYTES`]; `extern .shared` arrays get the dynamic shared
//! memory their largest offset needs. Where the analysis finds no bound, the size is a guess and
//! the [`Proposal`] carries a note naming the parameter, the reason and the instruction.
//!
//! ```text
//! .entry vecAdd(.param .u64 a, .param .u64 b, .param .u64 c, .param .u32 n)   // c[i] = a[i] + b[i], i < n
//! → {"kernel": "vecAdd", "grid": [64,1,1], "block": [256,1,1],
//!    "params": [{"buffer": {"type": "f32", "len": 16384, "init": "random:1"}}, …,
//!               {"scalar": {"type": "u32", "value": 16384}}], "outputs": [2]}
//! ```

use alloc::collections::{BTreeMap, BTreeSet};
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use serde::Serialize;

use super::launch::{LaunchSetup, ParamSpec, ScalarSpec, ScalarValue};
use super::propose_extent::{address_params, is_dynamic_shared, reaches, Base, Reach, Reaches, Seeds, LOADED};
use super::value::{ElemType, Value};
use crate::ir::{Function, Module, Operand};

/// The problem size a proposal uses: elements per buffer, and the value of integer scalars of
/// one-dimensional kernels.
pub const PROPOSED_ELEMENTS: u64 = 16384;

/// The side of the square problem of two-dimensional kernels (those reading `%tid.y`,
/// `%ctaid.y` or `%ntid.y`): integer scalars get this value, buffers hold its square.
pub const PROPOSED_SIDE: u64 = 128;

/// True if the kernel indexes a second dimension.
fn uses_y_dimension(func: &Function) -> bool {
    use crate::ir::{Dim, SpecialReg};
    func.body.as_ref().is_some_and(|b| {
        b.insts.values().flat_map(|i| &i.operands).any(|o| {
            matches!(
                o,
                Operand::Special(SpecialReg::Tid(Dim::Y) | SpecialReg::Ctaid(Dim::Y) | SpecialReg::Ntid(Dim::Y))
            )
        })
    })
}

/// A buffer is at most this many bytes (64 MiB: a 4096 × 4096 `f32` matrix); a kernel whose
/// indices reach further gets the cap and a note.
pub const MAX_PROPOSED_BYTES: u64 = 64 << 20;

/// Elements of a pointer table's entry whose index the range analysis cannot bound (four times
/// the problem size), noted in the proposal.
pub const UNKNOWN_ELEMENTS: u64 = 4 * PROPOSED_ELEMENTS;

/// A buffer the kernel only reads whose index the range analysis cannot bound (a pointer advanced
/// in a loop, typically) in a kernel without integer scalars (its sizes are compile-time
/// constants, such as a 4096 × 4096 matmul's) gets [`MAX_PROPOSED_BYTES`], or its share of this
/// many bytes less the bounded buffers when several are unbounded (RegLab's limit for all
/// buffers is 256 MiB).
pub const UNKNOWN_TOTAL_BYTES: u64 = 192 << 20;

/// A buffer whose index the range analysis cannot bound in a kernel with integer scalars (which
/// bound its loops: the proposal gives them the problem size), or that the kernel stores to (its
/// contents are reported), gets this many bytes (4 MiB).
pub const UNKNOWN_SCALED_BYTES: u64 = 4 << 20;

/// Buffer lengths are rounded up to a multiple of this many elements (one warp).
pub(crate) const ROUND_ELEMENTS: u64 = 32;

/// Dynamic shared memory is capped at this many bytes (48 KiB: what every GPU gives a CTA without
/// an opt-in, so the launch fits every preset).
pub const PORTABLE_SHARED: u32 = 48 * 1024;

/// Dynamic shared memory is rounded up to a multiple of this many bytes.
const ROUND_SHARED: u64 = 16;

/// A proposed launch and the notes that say where it cannot be trusted.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Proposal {
    /// The launch setup.
    pub setup: LaunchSetup,
    /// Why parts of the setup are guesses, by parameter (`None`: the launch as a whole, such as
    /// its dynamic shared memory), in parameter order.
    pub notes: Vec<ProposalNote>,
}

/// One caveat of a proposal.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ProposalNote {
    /// The parameter index the note is about (`None`: dynamic shared memory).
    pub param: Option<usize>,
    /// What the user should check, such as "size unknown: the kernel indexes it by a loaded value
    /// (`ld.global.f32 %f1, [%rd9]`)".
    pub text: String,
}

/// Proposes a launch setup for `kernel` of `module`. An unknown kernel gives a setup that names
/// it and has no parameters (checking it reports the unknown kernel).
pub fn propose_launch(module: &Module, kernel: &str) -> LaunchSetup {
    propose(module, kernel).setup
}

/// Proposes a launch setup for `kernel` of `module`, with notes on every buffer whose size the
/// range analysis could not bound (and on the dynamic shared memory).
pub fn propose(module: &Module, kernel: &str) -> Proposal {
    let func = module.functions.values().find(|f| f.name == kernel && f.is_entry());
    let mut setup = LaunchSetup {
        kernel: Some(kernel.into()),
        grid: alloc::vec![1, 1, 1],
        block: alloc::vec![256, 1, 1],
        dynamic_smem: 0,
        params: Vec::new(),
        outputs: None,
        launches: Vec::new(),
        repeat: None,
        budget: None,
        textures: BTreeMap::new(),
    };
    let Some(func) = func else { return Proposal { setup, notes: Vec::new() } };
    let two_d = uses_y_dimension(func);
    let pointers = pointer_params(module, func);
    let ((grid, block), params, reach) = launch_shape(module, func, &pointers, two_d);
    setup.grid = grid.to_vec();
    setup.block = block.to_vec();
    setup.params = params;
    let mut notes = Vec::new();
    let mut outputs = super::propose_buffer::pointer_specs(module, func, &pointers, &reach, &mut setup, &mut notes);
    if has_dynamic_shared(module, func) {
        let threads = block.iter().map(|&b| u64::from(b)).product::<u64>();
        let (bytes, note) = dynamic_shared(reach.get(&Base::Shared), threads);
        setup.dynamic_smem = bytes;
        notes.extend(note.map(|text| ProposalNote { param: None, text }));
    }
    super::propose_texture::bind(module, func, &mut setup, &mut notes);
    outputs.retain(|&i| !matches!(setup.params.get(i), Some(ParamSpec::Texture(_))));
    if !outputs.is_empty() {
        setup.outputs = Some(outputs);
    }
    Proposal { setup, notes }
}

/// Blocks tried in turn when the default block overruns a shared array (one and two dimensions).
const BLOCKS_1D: [[u32; 3]; 6] = [[128, 1, 1], [64, 1, 1], [32, 1, 1], [16, 1, 1], [512, 1, 1], [1024, 1, 1]];
const BLOCKS_2D: [[u32; 3]; 5] = [[32, 8, 1], [8, 8, 1], [32, 4, 1], [32, 16, 1], [32, 32, 1]];

/// The launch shape, parameters and reaches: the default block, or when the kernel (written for
/// another block shape) overruns a shared array under it, the first common shape that does not.
fn launch_shape(
    module: &Module,
    func: &Function,
    pointers: &BTreeSet<u32>,
    two_d: bool,
) -> (([u32; 3], [u32; 3]), Vec<ParamSpec>, Reaches) {
    let shape0 = shape(func, two_d, None);
    let (params, reach) = params_for(module, func, shape0, pointers, two_d);
    if func.perf.reqntid.is_some() || func.perf.maxntid.is_some() || !overruns(&reach) {
        return (shape0, params, reach);
    }
    let tries: &[[u32; 3]] = if two_d { &BLOCKS_2D } else { &BLOCKS_1D };
    for b in tries {
        let sh = shape(func, two_d, Some(*b));
        let (p, r) = params_for(module, func, sh, pointers, two_d);
        if !overruns(&r) {
            return (sh, p, r);
        }
    }
    (shape0, params, reach)
}

/// Pointer-sized integer parameters used as addresses (or marked `.ptr`).
fn pointer_params(module: &Module, func: &Function) -> BTreeSet<u32> {
    let ptr_bytes = super::plan::address_bits(module) / 8;
    let candidates: BTreeSet<u32> = (0..func.params.len() as u32)
        .filter(|&i| {
            func.params
                .get(i as usize)
                .is_some_and(|p| p.ty.is_integer() && p.dims.is_empty() && p.ty.size_bytes() == ptr_bytes)
        })
        .collect();
    let used = address_params(module, func, &candidates);
    candidates
        .into_iter()
        .filter(|i| used.contains(i) || func.params.get(*i as usize).is_some_and(|p| p.ptr.is_some()))
        .collect()
}

/// The parameters and reaches for one launch shape. Scalars get the problem size; if that
/// leaves buffers too large or unbounded (a 1-D kernel indexing a size × size matrix) and the
/// side of the 2-D problem leaves no more, they get that.
fn params_for(
    module: &Module,
    func: &Function,
    shape: ([u32; 3], [u32; 3]),
    pointers: &BTreeSet<u32>,
    two_d: bool,
) -> (Vec<ParamSpec>, Reaches) {
    let size = if two_d { PROPOSED_SIDE } else { PROPOSED_ELEMENTS };
    let (params, reach) = sized(module, func, shape, pointers, size);
    if size > PROPOSED_SIDE && doubtful(&reach) > 0 {
        let (p, r) = sized(module, func, shape, pointers, PROPOSED_SIDE);
        // Fewer doubtful buffers, or as many: indices through a loop the analysis cannot bound
        // stay smaller with the smaller problem.
        if doubtful(&r) <= doubtful(&reach) {
            return (p, r);
        }
    }
    (params, reach)
}

/// True if an access the analysis bounds may fall outside a shared array of fixed size.
fn overruns(reach: &Reaches) -> bool {
    reach.iter().any(|(b, r)| match b {
        Base::Static { size, .. } => r.bytes > *size,
        _ => false,
    })
}

/// The parameters with scalars of `size` (pointers still placeholders) and the reach of every
/// base under them.
fn sized(
    module: &Module,
    func: &Function,
    (grid, block): ([u32; 3], [u32; 3]),
    pointers: &BTreeSet<u32>,
    size: u64,
) -> (Vec<ParamSpec>, Reaches) {
    let mut scalars = BTreeMap::new();
    let mut params = Vec::new();
    for (i, p) in func.params.iter().enumerate() {
        let i = i as u32;
        if pointers.contains(&i) {
            params.push(ParamSpec::Scalar(ScalarSpec { ty: ElemType::U64, value: ScalarValue::One(Value::UInt(0)) }));
            continue;
        }
        let spec = scalar_for(p, size);
        if let ParamSpec::Scalar(ScalarSpec { ty, value: ScalarValue::One(Value::UInt(v)) }) = &spec {
            if !ty.is_float() {
                scalars.insert(i, *v);
            }
        }
        params.push(spec);
    }
    let seeds = Seeds { grid, block, pointers, scalars: &scalars, cap: i128::from(MAX_PROPOSED_BYTES) };
    (params, reaches(module, func, &seeds))
}

/// How many buffers reach past [`MAX_PROPOSED_BYTES`] or have an index the analysis cannot
/// bound (other than a loaded one, which no scalar changes), counting dynamic shared memory whose
/// bounded accesses reach past [`PORTABLE_SHARED`] as one.
fn doubtful(reach: &Reaches) -> usize {
    let doubtful = |r: &Reach| match &r.unbounded {
        Some(why) => !why.starts_with(LOADED),
        None => r.bytes > MAX_PROPOSED_BYTES,
    };
    let shared = |r: &Reach| r.bytes > u64::from(PORTABLE_SHARED);
    reach
        .iter()
        .filter(|(b, r)| match b {
            Base::Param(_) | Base::Pointee(_) | Base::Field { .. } => doubtful(r),
            Base::Shared => shared(r),
            Base::Static { .. } => false,
        })
        .count()
}

/// Block and grid: the block tried, else from `.reqntid`/`.maxntid` or 256 threads (16×16 in two
/// dimensions); the grid covering the problem.
fn shape(func: &Function, two_d: bool, tried: Option<[u32; 3]>) -> ([u32; 3], [u32; 3]) {
    let default_block = if two_d { alloc::vec![16, 16] } else { alloc::vec![256] };
    let block = match tried {
        Some(b) => b.to_vec(),
        None => func.perf.reqntid.clone().or_else(|| func.perf.maxntid.clone()).unwrap_or(default_block),
    };
    let mut b = [1u32; 3];
    for (slot, v) in b.iter_mut().zip(&block) {
        *slot = (*v).clamp(1, 1024);
    }
    let threads = u64::from(b[0] * b[1] * b[2]).max(1);
    let grid = if two_d {
        let side = PROPOSED_SIDE as u32;
        [side.div_ceil(b[0]), side.div_ceil(b[1]), 1]
    } else {
        [PROPOSED_ELEMENTS.div_ceil(threads) as u32, 1, 1]
    };
    (grid, b)
}

/// Dynamic shared memory from the reach into the `extern .shared` arrays (8 bytes per thread
/// when unknown), and a note when it is a guess or capped.
fn dynamic_shared(r: Option<&Reach>, threads: u64) -> (u32, Option<String>) {
    let max = u64::from(PORTABLE_SHARED);
    let r = r.cloned().unwrap_or_default();
    let needed = r.bytes.div_ceil(ROUND_SHARED) * ROUND_SHARED;
    let (bytes, note) = match &r.unbounded {
        Some(why) => {
            let b = needed.max(threads * 8);
            (b, Some(format!("dynamic shared memory unknown: {why}; proposed {b} bytes")))
        }
        None if needed == 0 => (threads * 8, None),
        None => (needed, None),
    };
    if bytes > max {
        let why = note.map_or(String::new(), |n| format!("; {n}"));
        let capped = format!(
            "dynamic shared memory capped at {max} bytes (the most a CTA gets without opting in): the kernel reaches {bytes}{why}"
        );
        return (max as u32, Some(capped));
    }
    (bytes as u32, note)
}

/// True if the kernel (or the module) declares a shared array without a size.
fn has_dynamic_shared(module: &Module, func: &Function) -> bool {
    module.globals.values().any(is_dynamic_shared)
        || func.body.as_ref().is_some_and(|b| b.vars.values().any(is_dynamic_shared))
}

fn scalar_for(p: &crate::ir::Param, size: u64) -> ParamSpec {
    let ty = ElemType::from_ptx(p.ty).unwrap_or(ElemType::U8);
    let n = (p.size_bytes().unwrap_or(0) / ty.size() as u64).max(1);
    let one = if ty.is_float() {
        Value::Float(1.0)
    } else if p.dims.is_empty() {
        let max = if ty.size() >= 4 { size } else { 1 };
        Value::UInt(max)
    } else {
        Value::UInt(0)
    };
    let value = if p.dims.is_empty() { ScalarValue::One(one) } else { ScalarValue::Many(alloc::vec![one; n as usize]) };
    ParamSpec::Scalar(ScalarSpec { ty, value })
}
