//! The text form of one instruction: PTX syntax with every modifier, in the order the PTX ISA
//! writes them (so the text is both the IR's stable listing and valid PTX).
//!
//! ```text
//! ld.global.nc.L1::evict_last.v4.f32 {%f1, %f2, %f3, %f4}, [%rd1+16];
//! setp.lt.and.ftz.f32 %p1|%p2, %f1, 0f3F800000, %p0;
//! ```

use alloc::string::String;
use core::fmt::{self, Write};

use super::inst::{Address, AddressBase, Imm, Inst, Operand, SchemeOperand, Symbol};
use super::modifiers::Modifiers;
use super::module::{Body, Function, Module};
use super::opcode::Opcode;
pub use super::special::{special_name, special_type, write_special};

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
    write_inst_naming(out, names, inst, None)
}

/// The operand of `inst` that is a `.branchtargets` list (`brx.idx`) or a `.calltargets` list (an
/// indirect `call`): its index, and whether it lists functions.
pub fn target_list_operand(inst: &Inst) -> Option<(usize, bool)> {
    let ops = &inst.operands;
    match inst.opcode {
        Opcode::BrxIdx => matches!(ops.get(1), Some(Operand::List(_))).then_some((1, false)),
        Opcode::Call => {
            let target = usize::from(matches!(ops.first(), Some(Operand::List(_))));
            let at = target + 2;
            (ops.len() == at + 1 && matches!(ops.get(at), Some(Operand::List(_)))).then_some((at, true))
        }
        _ => None,
    }
}

/// Writes `inst` with operand `rename.0` written as the name `rename.1` (a target list declared
/// just before the instruction).
pub fn write_inst_naming(
    out: &mut dyn Write,
    names: &Names<'_>,
    inst: &Inst,
    rename: Option<(usize, &str)>,
) -> fmt::Result {
    if let Some(g) = inst.guard {
        let reg = names.body.regs.get(g.reg).map_or("<invalid>", |r| r.name.as_str());
        write!(out, "@{}{} ", if g.negated { "!" } else { "" }, reg)?;
    }
    if let Some((position, inner)) = super::scheme::composite_part(inst) {
        return super::scheme::write_composite(out, names, inst, position, inner);
    }
    write_opcode(out, inst)?;
    for (i, op) in inst.operands.iter().enumerate() {
        out.write_str(if i == 0 { " " } else { ", " })?;
        match rename {
            Some((at, name)) if at == i => out.write_str(name)?,
            _ => {
                out.write_str(super::print_video::operand_prefix(inst, i))?;
                write_operand(out, names, op)?;
                out.write_str(super::print_video::operand_suffix(inst, i))?;
            }
        }
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
        self.flag(self.m.mmio, ".mmio")?;
        self.flag(self.m.mbarrier_init, ".mbarrier_init")?;
        self.opt(self.m.sem)?;
        self.opt(self.m.scope)
    }
    /// `.rn.ftz.sat`-style float modifiers in the common order.
    fn float(&mut self) -> fmt::Result {
        let m = *self.m;
        self.opt(m.rounding)?;
        self.opt(m.precision)?;
        self.flag(m.oob, ".oob")?;
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
        Createpolicy => {
            w.opt(m.policy)?;
            w.opt(m.space)?;
            w.opt(m.l2_eviction)?;
            w.opt(m.l2_eviction_secondary)?;
            w.opt(m.level)?;
            w.types(inst)
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
        Vadd | Vsub | Vabsdiff | Vmin | Vmax | Vshl | Vshr | Vmad | Vset => {
            super::print_video::video_words(w.out, inst)
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
        Operand::Scheme(s) => match &**s {
            SchemeOperand::Memory(m) => {
                out.write_str(m.prefix())?;
                write_address(out, names, &m.address)
            }
            SchemeOperand::Composite(inner) => {
                out.write_str("(")?;
                write_inst(out, names, inner)?;
                out.write_str(")")
            }
            SchemeOperand::Crf => out.write_str("%crf"),
        },
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

/// Writes an immediate: integers in decimal up to 65535, larger ones in hex (masks read better),
/// negative if the top bit is set; floats by their exact bits (`0f3F800000`,
/// `0d3FF0000000000000`).
pub fn write_imm(out: &mut dyn Write, imm: Imm) -> fmt::Result {
    match imm {
        Imm::Int(v) if (v as i64) < 0 => write!(out, "{}", v as i64),
        Imm::Int(v) if v > 0xFFFF => write!(out, "0x{v:X}"),
        Imm::Int(v) => write!(out, "{v}"),
        Imm::F32(bits) => write!(out, "0f{bits:08X}"),
        Imm::F64(bits) => write!(out, "0d{bits:016X}"),
    }
}
