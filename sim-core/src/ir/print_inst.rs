//! The text form of one instruction: PTX syntax with every modifier, in the order the PTX ISA
//! writes them (so the text is both the IR's stable listing and valid PTX).
//!
//! ```text
//! ld.global.nc.L1::evict_last.v4.f32 {%f1, %f2, %f3, %f4}, [%rd1+16];
//! setp.lt.and.ftz.f32 %p1|%p2, %f1, 0f3F800000, %p0;
//! ```

use alloc::string::String;
use core::fmt::{self, Write};

use super::inst::{Address, AddressBase, Imm, Inst, Operand, SpecialReg, Symbol};
use super::modifiers::Modifiers;
use super::module::{Body, Function, Module};
use super::opcode::Opcode;
use super::types::Type;

/// What names in an instruction refer to: its module, function and body.
#[derive(Clone, Copy)]
pub struct Names<'a> {
    /// The module (globals and functions).
    pub module: &'a Module,
    /// The function (parameters).
    pub func: &'a Function,
    /// The body (registers, blocks, local variables, prototypes).
    pub body: &'a Body,
}

impl Names<'_> {
    /// The name of a symbol, `"<invalid>"` for an out-of-range handle.
    pub fn symbol(&self, sym: Symbol) -> &str {
        let name = match sym {
            Symbol::Global(h) => self.module.globals.get(h).map(|v| v.name.as_str()),
            Symbol::Local(h) => self.body.vars.get(h).map(|v| v.name.as_str()),
            Symbol::Param(i) => self.func.params.get(i as usize).map(|p| p.name.as_str()),
            Symbol::Return(i) => self.func.returns.get(i as usize).map(|p| p.name.as_str()),
            Symbol::Function(h) => self.module.functions.get(h).map(|f| f.name.as_str()),
            Symbol::External(i) => self.module.externals.get(i as usize).map(String::as_str),
        };
        name.unwrap_or("<invalid>")
    }
}

/// Writes `inst` (guard, opcode, modifiers, types, operands, no `;`).
pub fn write_inst(out: &mut dyn Write, names: &Names<'_>, inst: &Inst) -> fmt::Result {
    if let Some(g) = inst.guard {
        let reg = names.body.regs.get(g.reg).map_or("<invalid>", |r| r.name.as_str());
        write!(out, "@{}{} ", if g.negated { "!" } else { "" }, reg)?;
    }
    write_opcode(out, inst)?;
    for (i, op) in inst.operands.iter().enumerate() {
        out.write_str(if i == 0 { " " } else { ", " })?;
        write_operand(out, names, op)?;
    }
    Ok(())
}

/// Writes the opcode with its modifiers and types (`ld.global.v4.f32`).
pub fn write_opcode(out: &mut dyn Write, inst: &Inst) -> fmt::Result {
    out.write_str(inst.opcode.name())?;
    let mut w = Words { out, m: &inst.mods };
    modifier_words(&mut w, inst)
}

struct Words<'a, 'b> {
    out: &'a mut dyn Write,
    m: &'b Modifiers,
}

impl Words<'_, '_> {
    fn opt<T: fmt::Display>(&mut self, v: Option<T>) -> fmt::Result {
        match v {
            Some(v) => write!(self.out, "{v}"),
            None => Ok(()),
        }
    }
    fn flag(&mut self, on: bool, word: &str) -> fmt::Result {
        if on {
            self.out.write_str(word)?;
        }
        Ok(())
    }
    fn types(&mut self, inst: &Inst) -> fmt::Result {
        for t in inst.types.iter() {
            self.out.write_str(t.as_str())?;
        }
        Ok(())
    }
    fn sync_aligned(&mut self) -> fmt::Result {
        self.flag(self.m.sync, ".sync")?;
        self.flag(self.m.aligned, ".aligned")
    }
    fn sem_scope(&mut self) -> fmt::Result {
        self.opt(self.m.sem)?;
        self.opt(self.m.scope)
    }
    /// `.rn.ftz.sat`-style float modifiers in the common order.
    fn float(&mut self) -> fmt::Result {
        let m = *self.m;
        self.opt(m.rounding)?;
        self.opt(m.precision)?;
        self.flag(m.ftz, ".ftz")?;
        self.flag(m.relu, ".relu")?;
        self.flag(m.sat, ".sat")?;
        self.flag(m.satfinite, ".satfinite")?;
        self.flag(m.nan, ".NaN")?;
        self.flag(m.xorsign, ".xorsign")?;
        self.flag(m.abs, ".abs")
    }
    fn memory_hints(&mut self) -> fmt::Result {
        let m = *self.m;
        self.opt(m.l1_eviction)?;
        self.opt(m.l2_eviction)?;
        self.flag(m.l2_cache_hint, ".L2::cache_hint")?;
        self.opt(m.prefetch_size)
    }
}

/// The modifier words of `inst` after its name, per family, in PTX ISA order.
fn modifier_words(w: &mut Words<'_, '_>, inst: &Inst) -> fmt::Result {
    use Opcode::*;
    let m = *w.m;
    match inst.opcode {
        Ld | Ldu | St => {
            w.sem_scope()?;
            w.opt(m.space)?;
            w.opt(m.cache)?;
            w.flag(m.nc, ".nc")?;
            w.memory_hints()?;
            w.opt(m.vec)?;
            w.types(inst)
        }
        Atom | Red => {
            w.sem_scope()?;
            w.opt(m.space)?;
            w.opt(m.atom_op)?;
            w.flag(m.noftz, ".noftz")?;
            w.memory_hints()?;
            w.opt(m.vec)?;
            w.types(inst)
        }
        Prefetch | Prefetchu => {
            w.opt(m.space)?;
            w.opt(m.level)?;
            w.memory_hints()
        }
        Cvta | Isspacep | Mapa | Getctarank => {
            w.flag(m.to_space, ".to")?;
            w.opt(m.space)?;
            w.types(inst)
        }
        Cvt | CvtPack => {
            w.opt(m.rounding)?;
            w.flag(m.ftz, ".ftz")?;
            w.flag(m.sat, ".sat")?;
            w.flag(m.satfinite, ".satfinite")?;
            w.flag(m.relu, ".relu")?;
            w.types(inst)
        }
        Setp | Set => {
            w.opt(m.cmp)?;
            w.opt(m.bool_op)?;
            w.flag(m.ftz, ".ftz")?;
            w.types(inst)
        }
        Bar | Barrier => {
            w.opt(m.scope)?;
            w.opt(m.bar_mode)?;
            w.flag(m.aligned, ".aligned")?;
            w.opt(m.reduce)?;
            w.types(inst)
        }
        Membar => match m.scope {
            Some(super::modifiers::Scope::Gpu) => w.out.write_str(".gl"),
            s => w.opt(s),
        },
        Fence => {
            if let Some(kind) = m.proxy {
                write!(w.out, ".proxy{kind}")?;
            }
            w.sem_scope()
        }
        Vote | Shfl | Redux | Elect | BarWarpSync => {
            w.sync_aligned()?;
            w.opt(m.vote)?;
            w.opt(m.shfl)?;
            w.opt(m.reduce)?;
            w.flag(m.abs, ".abs")?;
            w.flag(m.nan, ".NaN")?;
            w.types(inst)
        }
        Match => {
            w.opt(m.match_mode)?;
            w.sync_aligned()?;
            w.types(inst)
        }
        Prmt => {
            w.types(inst)?;
            w.opt(m.prmt)
        }
        Shf | Bmsk | Szext => {
            w.opt(m.shift_dir)?;
            w.opt(m.funnel)?;
            w.types(inst)
        }
        Tex | Tld4 | Txq | Suld | Sust | Sured | Suq => texture_words(w, inst),
        CpAsync | CpAsyncBulk | CpAsyncMbarrierArrive => {
            w.opt(m.cache)?;
            w.flag(m.noinc, ".noinc")?;
            w.opt(m.space)?;
            w.opt(m.src_space)?;
            w.opt(m.completion)?;
            w.flag(m.multicast, ".multicast::cluster")?;
            w.memory_hints()?;
            w.types(inst)
        }
        WmmaLoad | WmmaStore | WmmaMma | Mma | MmaSp | WgmmaMmaAsync | Ldmatrix | Stmatrix => matrix_words(w, inst),
        MbarrierInit | MbarrierInval | MbarrierArrive | MbarrierArriveDrop | MbarrierExpectTx | MbarrierCompleteTx
        | MbarrierTestWait | MbarrierTryWait | MbarrierPendingCount => {
            w.flag(m.no_complete, ".noComplete")?;
            w.flag(m.expect_tx, ".expect_tx")?;
            w.flag(m.parity, ".parity")?;
            w.sem_scope()?;
            w.opt(m.space)?;
            w.types(inst)
        }
        Setmaxnreg => {
            w.opt(m.inc_dec)?;
            w.sync_aligned()?;
            w.types(inst)
        }
        BarrierClusterArrive | BarrierClusterWait => {
            w.opt(m.sem)?;
            w.flag(m.aligned, ".aligned")
        }
        _ => generic_words(w, inst),
    }
}

/// Arithmetic, logic, moves, control flow and everything without a special order.
fn generic_words(w: &mut Words<'_, '_>, inst: &Inst) -> fmt::Result {
    let m = *w.m;
    w.opt(m.testp)?;
    w.flag(m.shiftamt, ".shiftamt")?;
    w.opt(m.mul_mode)?;
    w.flag(m.cc, ".cc")?;
    w.opt(m.bool_op)?;
    w.float()?;
    w.sync_aligned()?;
    w.flag(m.uni, ".uni")?;
    w.opt(m.space)?;
    w.opt(m.vec)?;
    w.types(inst)
}

fn texture_words(w: &mut Words<'_, '_>, inst: &Inst) -> fmt::Result {
    let m = *w.m;
    w.opt(m.surf_mode)?;
    w.opt(m.atom_op)?;
    w.opt(m.lod)?;
    w.opt(m.component)?;
    w.opt(m.query)?;
    w.opt(m.geom)?;
    w.opt(m.cache)?;
    w.opt(m.vec)?;
    w.types(inst)?;
    w.opt(m.surf_clamp)
}

fn matrix_words(w: &mut Words<'_, '_>, inst: &Inst) -> fmt::Result {
    let m = *w.m;
    w.opt(m.frag)?;
    w.sync_aligned()?;
    match inst.opcode {
        Opcode::WmmaLoad | Opcode::WmmaStore | Opcode::WmmaMma => {
            w.opt(m.layout_a)?;
            w.opt(m.layout_b)?;
            w.opt(m.shape)?;
            w.opt(m.space)?;
            w.opt(m.rounding)?;
            w.types(inst)?;
            w.flag(m.satfinite, ".satfinite")
        }
        _ => {
            w.opt(m.shape)?;
            w.opt(m.matrices)?;
            w.flag(m.trans, ".trans")?;
            w.opt(m.space)?;
            w.opt(m.layout_a)?;
            w.opt(m.layout_b)?;
            w.opt(m.rounding)?;
            w.flag(m.satfinite, ".satfinite")?;
            w.types(inst)?;
            if let Some(op) = m.bmma_op {
                write!(w.out, "{op}.popc")?;
            }
            Ok(())
        }
    }
}

/// Writes one operand.
pub fn write_operand(out: &mut dyn Write, names: &Names<'_>, op: &Operand) -> fmt::Result {
    let reg = |h| names.body.regs.get(h).map_or("<invalid>", |r| r.name.as_str());
    match op {
        Operand::Reg(r) => out.write_str(reg(*r)),
        Operand::NotReg(r) => write!(out, "!{}", reg(*r)),
        Operand::Imm(imm) => write_imm(out, *imm),
        Operand::Special(s) => write_special(out, *s),
        Operand::Address(a) => write_address(out, names, a),
        Operand::Symbol { symbol, offset } => {
            out.write_str(names.symbol(*symbol))?;
            write_offset(out, *offset)
        }
        Operand::Label(b) => match names.body.blocks.get(*b).and_then(|b| b.label.as_deref()) {
            Some(l) => out.write_str(l),
            None => write!(out, "$__bb{}", b.index()),
        },
        Operand::Vector(items) => {
            out.write_str("{")?;
            write_list(out, names, items)?;
            out.write_str("}")
        }
        Operand::Sink => out.write_str("_"),
        Operand::Pair(pair) => {
            write_operand(out, names, &pair[0])?;
            out.write_str("|")?;
            write_operand(out, names, &pair[1])
        }
        Operand::List(items) => {
            out.write_str("(")?;
            write_list(out, names, items)?;
            out.write_str(")")
        }
        Operand::Tex(t) => {
            out.write_str("[")?;
            write_operand(out, names, &t.texture)?;
            if let Some(s) = &t.sampler {
                out.write_str(", ")?;
                write_operand(out, names, s)?;
            }
            out.write_str(", ")?;
            write_operand(out, names, &t.coords)?;
            out.write_str("]")
        }
        Operand::Prototype(p) => out.write_str(names.body.prototypes.get(*p).map_or("<invalid>", |p| p.name.as_str())),
    }
}

fn write_list(out: &mut dyn Write, names: &Names<'_>, items: &[Operand]) -> fmt::Result {
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            out.write_str(", ")?;
        }
        write_operand(out, names, item)?;
    }
    Ok(())
}

fn write_offset(out: &mut dyn Write, offset: i64) -> fmt::Result {
    if offset != 0 {
        write!(out, "+{offset}")?;
    }
    Ok(())
}

fn write_address(out: &mut dyn Write, names: &Names<'_>, a: &Address) -> fmt::Result {
    out.write_str("[")?;
    match a.base {
        AddressBase::Reg(r) => {
            out.write_str(names.body.regs.get(r).map_or("<invalid>", |r| r.name.as_str()))?;
            write_offset(out, a.offset)?;
        }
        AddressBase::Symbol(s) => {
            out.write_str(names.symbol(s))?;
            write_offset(out, a.offset)?;
        }
        AddressBase::Absolute => write!(out, "{}", a.offset)?,
    }
    out.write_str("]")
}

/// Writes an immediate: integers in decimal (negative if the top bit is set), floats by their
/// exact bits (`0f3F800000`, `0d3FF0000000000000`).
pub fn write_imm(out: &mut dyn Write, imm: Imm) -> fmt::Result {
    match imm {
        Imm::Int(v) if (v as i64) < 0 => write!(out, "{}", v as i64),
        Imm::Int(v) => write!(out, "{v}"),
        Imm::F32(bits) => write!(out, "0f{bits:08X}"),
        Imm::F64(bits) => write!(out, "0d{bits:016X}"),
    }
}

/// Writes a special register (`%tid.x`, `%laneid`, `%envreg3`).
pub fn write_special(out: &mut dyn Write, s: SpecialReg) -> fmt::Result {
    use SpecialReg::*;
    let (name, dim) = match s {
        Tid(d) => ("%tid", Some(d)),
        Ntid(d) => ("%ntid", Some(d)),
        Ctaid(d) => ("%ctaid", Some(d)),
        Nctaid(d) => ("%nctaid", Some(d)),
        Clusterid(d) => ("%clusterid", Some(d)),
        Nclusterid(d) => ("%nclusterid", Some(d)),
        ClusterCtaid(d) => ("%cluster_ctaid", Some(d)),
        ClusterNctaid(d) => ("%cluster_nctaid", Some(d)),
        Envreg(n) => return write!(out, "%envreg{n}"),
        Pm(n) => return write!(out, "%pm{n}"),
        Pm64(n) => return write!(out, "%pm{n}_64"),
        other => (special_name(other), None),
    };
    out.write_str(name)?;
    if let Some(d) = dim {
        out.write_str(d.as_str())?;
    }
    Ok(())
}

/// The name of a special register without dimension or number.
pub fn special_name(s: SpecialReg) -> &'static str {
    use SpecialReg::*;
    match s {
        Tid(_) => "%tid",
        Ntid(_) => "%ntid",
        Ctaid(_) => "%ctaid",
        Nctaid(_) => "%nctaid",
        Clusterid(_) => "%clusterid",
        Nclusterid(_) => "%nclusterid",
        ClusterCtaid(_) => "%cluster_ctaid",
        ClusterNctaid(_) => "%cluster_nctaid",
        ClusterCtarank => "%cluster_ctarank",
        ClusterNctarank => "%cluster_nctarank",
        IsExplicitCluster => "%is_explicit_cluster",
        Laneid => "%laneid",
        Warpid => "%warpid",
        Nwarpid => "%nwarpid",
        Smid => "%smid",
        Nsmid => "%nsmid",
        Gridid => "%gridid",
        LanemaskEq => "%lanemask_eq",
        LanemaskLe => "%lanemask_le",
        LanemaskLt => "%lanemask_lt",
        LanemaskGe => "%lanemask_ge",
        LanemaskGt => "%lanemask_gt",
        Clock => "%clock",
        ClockHi => "%clock_hi",
        Clock64 => "%clock64",
        Globaltimer => "%globaltimer",
        GlobaltimerLo => "%globaltimer_lo",
        GlobaltimerHi => "%globaltimer_hi",
        Envreg(_) => "%envreg",
        Pm(_) | Pm64(_) => "%pm",
        TotalSmemSize => "%total_smem_size",
        AggrSmemSize => "%aggr_smem_size",
        DynamicSmemSize => "%dynamic_smem_size",
        CurrentGraphExec => "%current_graph_exec",
        WarpSz => "WARP_SZ",
    }
}

/// The natural type of a special register's value (what `mov` reads).
pub fn special_type(s: SpecialReg) -> Type {
    use SpecialReg::*;
    match s {
        Clock64 | Globaltimer | Pm64(_) | CurrentGraphExec => Type::U64,
        IsExplicitCluster => Type::Pred,
        _ => Type::U32,
    }
}
