//! How far a kernel reaches past each of its pointer parameters and into its `extern .shared`
//! arrays, from the range analysis seeded with the proposed launch: every pointer parameter is
//! seeded with the address 0 and every integer scalar with its proposed value, so the range of an
//! address register is its byte offset from the buffer (or shared array) it was derived from.
//! A proposal sizes each buffer to cover the largest offset plus the access width.
//!
//! ```text
//! ld.param.u64 %rd1, [a];          // a seeded [0, 0]
//! cvta.to.global.u64 %rd2, %rd1;   // read as mov: [0, 0]
//! mul.wide.u32 %rd3, %r1, 4;       // %r1 = %tid.x, block 256: [0, 1020]
//! add.s64 %rd4, %rd2, %rd3;        // [0, 1020]
//! ld.global.f32 %f1, [%rd4+8];     // a needs 1020 + 8 + 4 = 1032 bytes
//! ```
//!
//! Addresses of `extern .shared` arrays (`mov.u64 %rd5, smem`) are read as 0, so their offsets
//! give the dynamic shared memory. An access whose offset the analysis cannot bound is reported
//! with the reason: the index comes from a loaded value, or the analysis found no bound.

use alloc::collections::{BTreeMap, BTreeSet};
use alloc::string::String;

use crate::analysis::{Cfg, Dominators, Interval, Liveness, RangeAnalysis, RangeSeeds};
use crate::ir::print_inst::{write_inst, Names};
use crate::ir::{AddressBase, Function, Handle, Imm, Inst, Module, Opcode, Operand, Reg, Symbol, Type};

/// Offsets of this many bytes or more (2 GiB: about a full 32-bit index, or wider) count as
/// unbounded.
const UNBOUNDED_BYTES: i128 = 1 << 31;

/// The reason given for an access indexed by a value loaded from memory.
pub(crate) const LOADED: &str = "the kernel indexes it by a loaded value";

/// What memory an address register points into.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Base {
    /// The buffer of pointer parameter `i`.
    Param(u32),
    /// The buffers behind pointer table `i`: addresses loaded from parameter `i`'s buffer and
    /// used as addresses themselves (a `T**` parameter).
    Pointee(u32),
    /// The buffer a pointer field of a struct parameter points to: a pointer-wide integer loaded
    /// from array parameter `param` at byte `offset` (`ld.param.u64 %rd1, [s+8]`).
    Field {
        /// The parameter's index.
        param: u32,
        /// The field's byte offset.
        offset: u32,
    },
    /// The CTA's `extern .shared` arrays (dynamic shared memory).
    Shared,
    /// A shared array of `size` bytes (a module variable if `global`, else one of the kernel's;
    /// `index` is its handle's index).
    Static {
        /// Bytes declared.
        size: u64,
        /// Declared at module level.
        global: bool,
        /// The variable's handle index.
        index: usize,
    },
}

/// How far accesses reach from one base.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Reach {
    /// Bytes the bounded accesses need (largest offset plus access width).
    pub bytes: u64,
    /// The first access the analysis could not bound: why, and the instruction.
    pub unbounded: Option<String>,
    /// The first access below the base (a negative offset), if any.
    pub below: Option<String>,
    /// The lowest byte offset any access may reach (0 or negative), where the analysis bounds it
    /// from below, even when it finds no upper bound (an index that a loop only advances).
    pub lowest: i128,
    /// Element type of the first load or store through the base.
    pub ty: Option<Type>,
    /// Something is stored (or atomically updated) through the base.
    pub stored: bool,
    /// Values loaded through the base become (part of) addresses: the kernel indexes memory by
    /// this buffer's contents.
    pub feeds_addresses: bool,
    /// Values loaded through the base are compared (`setp`): they bound loops or guard work, like
    /// the per-item sizes `m_array[blockIdx.x]` beside a pointer table.
    pub compared: bool,
}

/// The reach of every base the kernel addresses.
pub(crate) type Reaches = BTreeMap<Base, Reach>;

/// The facts the analysis starts from: the launch and the proposed parameter values.
pub(crate) struct Seeds<'a> {
    /// Grid in CTAs.
    pub grid: [u32; 3],
    /// Block in threads.
    pub block: [u32; 3],
    /// Pointer-sized parameters (seeded with address 0).
    pub pointers: &'a BTreeSet<u32>,
    /// Integer scalars and their proposed values.
    pub scalars: &'a BTreeMap<u32, u64>,
    /// Offsets of this many bytes or more (either way) count as unbounded when the index is a
    /// loaded value (a buffer of that size is not a useful guess).
    pub cap: i128,
}

/// True for a `.shared` variable without a size (an `extern .shared` array).
pub(crate) fn is_dynamic_shared(v: &crate::ir::Var) -> bool {
    v.space.is_shared() && (v.dims.iter().any(Option::is_none) || v.size_bytes() == Some(0))
}

/// The shared array `op` names (`mov.u64 %rd1, tile`), if it is one.
fn shared_base(module: &Module, func: &Function, op: &Operand) -> Option<Base> {
    let (var, global, index) = match op {
        Operand::Symbol { symbol: Symbol::Global(h), .. } => (module.globals.get(*h), true, h.index()),
        Operand::Symbol { symbol: Symbol::Local(h), .. } => {
            (func.body.as_ref().and_then(|b| b.vars.get(*h)), false, h.index())
        }
        _ => return None,
    };
    let var = var.filter(|v| v.space.is_shared())?;
    if is_dynamic_shared(var) {
        return Some(Base::Shared);
    }
    var.size_bytes().map(|size| Base::Static { size, global, index })
}

/// Registers holding an address derived from a base, and registers holding a value derived from
/// a load from memory (other than a parameter load).
#[derive(Default)]
struct Origins {
    pub(crate) base: BTreeMap<Handle<Reg>, Base>,
    /// Registers derived from loaded values, with the bases they were loaded through (those
    /// known: `a[i] + b[j]` derives from both `a` and `b`).
    loaded: BTreeMap<Handle<Reg>, BTreeSet<Base>>,
}

fn dests(inst: &Inst) -> impl Iterator<Item = Handle<Reg>> + '_ {
    inst.operands.iter().take(inst.def_count()).flat_map(|o| match o {
        Operand::Reg(r) => alloc::vec![*r],
        Operand::Vector(v) => v.iter().filter_map(|x| if let Operand::Reg(r) = x { Some(*r) } else { None }).collect(),
        _ => alloc::vec::Vec::new(),
    })
}

fn origins(module: &Module, func: &Function, pointers: &BTreeSet<u32>) -> Origins {
    let mut o = Origins::default();
    let Some(body) = &func.body else { return o };
    for _ in 0..4 {
        for inst in body.insts.values() {
            let srcs = inst.operands.get(inst.def_count()..).unwrap_or(&[]);
            let param_load =
                matches!(inst.opcode, Opcode::Ld | Opcode::Ldu) && inst.mods.space.is_some_and(|s| s.is_param());
            let from = match (inst.opcode, srcs.first()) {
                (Opcode::Ld | Opcode::Ldu, Some(Operand::Address(a))) if param_load => match a.base {
                    AddressBase::Symbol(Symbol::Param(i)) if pointers.contains(&i) => Some(Base::Param(i)),
                    AddressBase::Symbol(Symbol::Param(i)) => {
                        super::propose_struct::field_base(module, func, inst, i, a.offset)
                    }
                    _ => None,
                },
                (Opcode::Mov | Opcode::Cvta, Some(s)) if shared_base(module, func, s).is_some() => {
                    shared_base(module, func, s)
                }
                (Opcode::Ld | Opcode::Ldu, _) => pointer_load(module, inst, &o),
                (Opcode::Atom | Opcode::Shfl, _) => None,
                _ => derived_base(srcs, &o).filter(|b| super::propose_struct::keeps_base(module, inst, *b)),
            };
            let loaded: Option<BTreeSet<Base>> = match inst.opcode {
                Opcode::Ld | Opcode::Ldu | Opcode::Atom if !param_load => {
                    Some(address_base(inst, &o).into_iter().collect())
                }
                Opcode::Ld | Opcode::Ldu => None,
                _ => {
                    let from = srcs.iter().filter_map(|s| if let Operand::Reg(r) = s { o.loaded.get(r) } else { None });
                    from.fold(None, |acc: Option<BTreeSet<Base>>, l| {
                        Some(acc.unwrap_or_default().union(l).copied().collect())
                    })
                }
            };
            for d in dests(inst) {
                if let Some(b) = from {
                    o.base.entry(d).or_insert(b);
                }
                if let Some(l) = &loaded {
                    o.loaded.entry(d).or_default().extend(l.iter().copied());
                }
            }
        }
    }
    o
}

/// The base a value computed from `srcs` points into: a parameter's buffer or a shared array
/// before the buffers of a pointer table (`add %rd3, %rd2, %rd1`: an index loaded as a 64-bit
/// value and added to a pointer stays an index).
fn derived_base(srcs: &[Operand], o: &Origins) -> Option<Base> {
    let bases = || srcs.iter().filter_map(|s| if let Operand::Reg(r) = s { o.base.get(r).copied() } else { None });
    bases().find(|b| !matches!(b, Base::Pointee(_))).or_else(|| bases().next())
}

/// For a scalar load as wide as an address through a parameter's buffer: the pointer table it
/// reads (whether the value is used as an address decides if it is one: [`tables`]).
fn pointer_load(module: &Module, inst: &Inst, o: &Origins) -> Option<Base> {
    let ptr_bytes = super::plan::address_bits(module) / 8;
    let wide = inst.mods.vec.is_none() && inst.ty().is_some_and(|t| t.is_integer() && t.size_bytes() == ptr_bytes);
    match address_base(inst, o) {
        Some(Base::Param(p)) if wide => Some(Base::Pointee(p)),
        _ => None,
    }
}

/// The pointer tables: parameters whose buffer holds addresses that the kernel uses as addresses.
pub(crate) fn tables(module: &Module, func: &Function, pointers: &BTreeSet<u32>) -> BTreeSet<u32> {
    let o = origins(module, func, pointers);
    let Some(body) = &func.body else { return BTreeSet::new() };
    let mut out = BTreeSet::new();
    for op in body.insts.values().flat_map(|i| &i.operands) {
        if let Operand::Address(crate::ir::Address { base: AddressBase::Reg(r), .. }) = op {
            if let Some(Base::Pointee(p)) = o.base.get(r) {
                out.insert(*p);
            }
        }
    }
    out
}

/// The base of the first register-based address `inst` reads through, if known.
fn address_base(inst: &Inst, o: &Origins) -> Option<Base> {
    inst.operands.iter().find_map(|op| match op {
        Operand::Address(crate::ir::Address { base: AddressBase::Reg(r), .. }) => o.base.get(r).copied(),
        _ => None,
    })
}

/// The candidate parameters that the kernel uses as addresses (directly, or through values
/// derived from them by arithmetic, `cvt` or `cvta`).
pub(crate) fn address_params(module: &Module, func: &Function, candidates: &BTreeSet<u32>) -> BTreeSet<u32> {
    let o = origins(module, func, candidates);
    let Some(body) = &func.body else { return BTreeSet::new() };
    let mut out = BTreeSet::new();
    for op in body.insts.values().flat_map(|i| &i.operands) {
        if let Operand::Address(crate::ir::Address { base: AddressBase::Reg(r), .. }) = op {
            if let Some(Base::Param(p)) = o.base.get(r) {
                out.insert(*p);
            }
        }
    }
    out
}

/// A copy of `func` in which `cvta` is a `mov`, the address of a shared array is 0 and so are an
/// address loaded from a pointer table and a pointer field of a struct parameter (each buffer
/// starts at 0, like a parameter's).
fn rewritten(
    module: &Module,
    func: &Function,
    o: &Origins,
    tables: &BTreeSet<u32>,
    fields: &BTreeSet<Base>,
) -> Function {
    let mut f = func.clone();
    let Some(body) = f.body.as_mut() else { return f };
    let handles: alloc::vec::Vec<_> = body.insts.handles().collect();
    for h in handles {
        let shared =
            body.insts.get(h).and_then(|i| i.operands.get(1)).is_some_and(|s| shared_base(module, func, s).is_some());
        let table = body.insts.get(h).and_then(|i| pointer_load(module, i, o)).is_some_and(|b| match b {
            Base::Pointee(p) => tables.contains(&p),
            _ => false,
        });
        let field = body.insts.get(h).is_some_and(|i| super::propose_struct::loads_field(module, func, i, fields));
        let Some(inst) = body.insts.get_mut(h) else { continue };
        if field {
            if let Some(dst) = inst.operands.first().cloned() {
                inst.opcode = Opcode::Mov;
                inst.mods = Default::default();
                inst.operands = alloc::vec![dst, Operand::Imm(Imm::Int(0))];
            }
            continue;
        }
        if table {
            // `mul.lo dst, base, 0`: still reads the address register (so its range is known
            // here) and gives 0.
            let base = inst.operands.get(1).and_then(|a| match a {
                Operand::Address(crate::ir::Address { base: AddressBase::Reg(r), .. }) => Some(*r),
                _ => None,
            });
            if let (Some(dst), Some(r)) = (inst.operands.first().cloned(), base) {
                inst.opcode = Opcode::Mul;
                inst.mods = Default::default();
                inst.operands = alloc::vec![dst, Operand::Reg(r), Operand::Imm(Imm::Int(0))];
            }
            continue;
        }
        if shared && matches!(inst.opcode, Opcode::Mov | Opcode::Cvta) {
            if let Some(src) = inst.operands.get_mut(1) {
                *src = Operand::Imm(Imm::Int(0));
            }
        }
        if inst.opcode == Opcode::Cvta {
            inst.opcode = Opcode::Mov;
            inst.mods = Default::default();
        }
    }
    f
}

/// The reach of every base `func` addresses, under `seeds`.
pub(crate) fn reaches(module: &Module, func: &Function, seeds: &Seeds<'_>) -> Reaches {
    let mut out = Reaches::new();
    let Some(body) = &func.body else { return out };
    let o = origins(module, func, seeds.pointers);
    let fields = super::propose_struct::used_fields(func, &o.base);
    let copy = rewritten(module, func, &o, &tables(module, func, seeds.pointers), &fields);
    let mut rs = RangeSeeds::launch(seeds.grid, seeds.block);
    for &p in seeds.pointers {
        rs = rs.with_param(p, Interval::constant(0));
    }
    for (&p, &v) in seeds.scalars {
        rs = rs.with_param(p, Interval::constant(i128::from(v)));
    }
    let cfg = Cfg::compute(&copy);
    let dom = Dominators::compute(&cfg);
    let live = Liveness::compute(&copy, &cfg);
    let ranges = RangeAnalysis::compute(&copy, &cfg, &dom, &live, &rs);
    let names = Names { module, func, body };
    for (h, inst) in body.insts.iter() {
        if inst.opcode == Opcode::Setp {
            for op in inst.operands.get(inst.def_count()..).unwrap_or(&[]) {
                if let Operand::Reg(r) = op {
                    for source in o.loaded.get(r).into_iter().flatten() {
                        out.entry(*source).or_default().compared = true;
                    }
                }
            }
        }
        for (k, op) in inst.operands.iter().enumerate() {
            let Operand::Address(a) = op else { continue };
            if let AddressBase::Reg(r) = a.base {
                for source in o.loaded.get(&r).into_iter().flatten() {
                    out.entry(*source).or_default().feeds_addresses = true;
                }
            }
            let (base, offset) = match a.base {
                AddressBase::Reg(r) => match o.base.get(&r) {
                    Some(&b) => (b, offset_of(&ranges, h, r, &o, seeds.cap)),
                    None => continue,
                },
                AddressBase::Symbol(s) => match shared_base(module, func, &Operand::Symbol { symbol: s, offset: 0 }) {
                    Some(b) => (b, Ok(Interval::constant(0))),
                    None => continue,
                },
                _ => continue,
            };
            let reach = out.entry(base).or_default();
            if let AddressBase::Reg(r) = a.base {
                if let Some(lo) = lowest_of(&ranges, h, r, seeds.cap) {
                    reach.lowest = reach.lowest.min(lo + i128::from(a.offset));
                }
            }
            let shifted = offset.map(|i| if i.is_empty() { i } else { i + Interval::constant(i128::from(a.offset)) });
            record(reach, inst, k, shifted, || {
                let mut s = String::new();
                let _ = write_inst(&mut s, &names, inst);
                s
            });
        }
    }
    out
}

/// The byte offsets register `r` may hold where `inst` reads it, or why they are unknown.
fn offset_of(
    ranges: &RangeAnalysis,
    inst: Handle<Inst>,
    r: Handle<Reg>,
    o: &Origins,
    cap: i128,
) -> Result<Interval, &'static str> {
    let within = |i: Interval, limit: i128| i.hi < limit && i.lo > -limit;
    let range = ranges.essa().read(inst, r).map(|v| ranges.value_range(v));
    match range {
        None => Ok(Interval::EMPTY),
        Some(i) if i.is_empty() => Ok(i),
        Some(i) if within(i, cap) => Ok(i),
        _ if o.loaded.contains_key(&r) => Err(LOADED),
        Some(i) if within(i, UNBOUNDED_BYTES) => Ok(i),
        _ => Err("the range analysis finds no bound on its index"),
    }
}

/// The lowest byte offset register `r` may hold where `inst` reads it, if the analysis bounds
/// it from below within `cap` bytes (its upper bound may be unknown).
fn lowest_of(ranges: &RangeAnalysis, inst: Handle<Inst>, r: Handle<Reg>, cap: i128) -> Option<i128> {
    let i = ranges.essa().read(inst, r).map(|v| ranges.value_range(v))?;
    (!i.is_empty() && i.lo > -cap).then_some(i.lo)
}

/// Bytes one access moves: the type size times the vector length (`cp.async`: its size operand).
fn access_bytes(inst: &Inst) -> Option<u64> {
    let lanes = inst.mods.vec.map_or(1, |v| v.len() as u64);
    match inst.opcode {
        Opcode::Ld | Opcode::Ldu | Opcode::St | Opcode::Red | Opcode::Atom => {
            inst.ty().map(|t| u64::from(t.size_bytes()).max(1) * lanes)
        }
        Opcode::CpAsync => match inst.operands.get(2) {
            Some(Operand::Imm(Imm::Int(n))) => Some(*n),
            _ => None,
        },
        _ => None,
    }
}

fn record(
    reach: &mut Reach,
    inst: &Inst,
    operand: usize,
    offset: Result<Interval, &'static str>,
    text: impl Fn() -> String,
) {
    let stored = operand == 0 && inst.def_count() == 0 || matches!(inst.opcode, Opcode::Atom | Opcode::Red);
    reach.stored |= stored;
    if matches!(inst.opcode, Opcode::Ld | Opcode::Ldu | Opcode::St | Opcode::Atom | Opcode::Red) {
        reach.ty = reach.ty.or(inst.ty());
    }
    let Some(bytes) = access_bytes(inst) else {
        if reach.unbounded.is_none() {
            reach.unbounded = Some(alloc::format!("the proposal does not work out what `{}` reaches", text()));
        }
        return;
    };
    match offset {
        Ok(i) if i.is_empty() => {}
        Ok(i) => {
            if i.lo < 0 && reach.below.is_none() {
                reach.below = Some(alloc::format!("`{}` reaches {} bytes below it", text(), -i.lo));
            }
            let end = (i.hi + i128::from(bytes)).max(0);
            reach.bytes = reach.bytes.max(u64::try_from(end).unwrap_or(u64::MAX));
        }
        Err(why) if reach.unbounded.is_none() => reach.unbounded = Some(alloc::format!("{why} (`{}`)", text())),
        Err(_) => {}
    }
}
