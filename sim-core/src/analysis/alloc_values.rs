//! The values a register allocator assigns: *webs* (definitions joined when they reach a common
//! use, so a PTX register reused for unrelated values becomes several values, and a value defined
//! on both arms of an if/else is one), which of them need no register because the machine code
//! rematerialises them, and the copies between them.
//!
//! ```text
//! ld.param.u64 %rd1, [p];        // web 0: a kernel parameter — lives in the constant bank
//! cvta.to.global.u64 %rd2, %rd1; // web 1: a copy of web 0 (generic = global addresses)
//! mov.u32 %r1, 0;                // web 2 \ one web: both definitions reach the add
//! @%p1 mov.u32 %r1, 5;           // web 2 /
//! add.s32 %r2, %r1, 1;           // web 3
//! ```
//!
//! Rematerialised: immediates, symbol addresses, `%ntid`, `%nctaid` and other launch constants,
//! `ld.param` of a kernel parameter and `ld.const` of a `.const` variable at a fixed offset
//! (`c[0x3][…]` in ptxas 12.6's sm_52 code of the SDK's `updateGridD`, 27 such operands) —
//! immediate or constant-bank operands in SASS — and copies
//! (`mov`, `cvta` to or from `.global`) of such values. Most uses take them as operands directly;
//! only a use that must read a register (an address base, the data of a store or atomic, a call
//! argument) needs one. For those the value is loaded into a register once, just before the first
//! such use where it dominates them all, hoisted out of loops ([`Values::sink_points`]).

use alloc::vec;
use alloc::vec::Vec;

use super::cfg::Cfg;
use super::def_use::{DefId, DefUse};
use super::dominators::Dominators;
use super::loops::Loops;
use crate::ir::{
    AddressBase, Block, Body, Function, Handle, Inst, Opcode, Operand, Reg, SpecialReg, StateSpace, Symbol, WidthClass,
};

/// Index of a web.
pub(crate) type Web = u32;

/// Webs of one function and what the allocator needs to know about them.
#[derive(Clone, Debug, Default)]
pub(crate) struct Values {
    /// The web of each definition.
    pub web_of_def: Vec<Web>,
    /// Width class of each web (of its register).
    pub class: Vec<WidthClass>,
    /// Webs that need no register across their lifetime.
    pub remat: Vec<bool>,
    /// Registers each web takes: its width class's units, except that a 64-bit value whose every
    /// definition zero-extends a 32-bit one takes one (its high half is the zero register RZ),
    /// and a rematerialised zero takes none where a register is needed (RZ again).
    pub units: Vec<u32>,
    /// `(instruction, destination web, source web)` of register-to-register copies.
    pub copies: Vec<(Handle<Inst>, Web, Web)>,
    /// Webs held in uniform registers (see `alloc_uniform`; empty before Turing): like
    /// rematerialised webs, but copied to a register where they are used, never hoisted.
    pub uniform: Vec<bool>,
    /// Whether memory instructions take their address from a uniform register (sm_75 only; see
    /// `AllocTarget::uniform_addresses`), so a uniform or constant-bank address needs no copy.
    pub uniform_addresses: bool,
}

impl Values {
    /// Number of webs.
    pub fn len(&self) -> usize {
        self.class.len()
    }

    /// Builds the webs of `kernel`.
    pub fn compute(kernel: &Function, du: &DefUse) -> Values {
        let Some(body) = &kernel.body else { return Values::default() };
        let n = du.def_count();
        let mut uf = UnionFind::new(n);
        for u in 0..du.uses().len() as u32 {
            let reaching = du.reaching(u);
            for w in reaching.windows(2) {
                uf.union(w[0], w[1]);
            }
        }
        let mut web_of_root = vec![u32::MAX; n];
        let mut web_of_def = vec![0; n];
        let mut class = Vec::new();
        for d in 0..n as DefId {
            let root = uf.find(d) as usize;
            if web_of_root[root] == u32::MAX {
                web_of_root[root] = class.len() as u32;
                let reg = du.defs()[d as usize].reg;
                class.push(body.regs.get(reg).map_or(WidthClass::B32, |r| r.class));
            }
            web_of_def[d as usize] = web_of_root[root];
        }
        let units = class.iter().map(|c| c.units32()).collect();
        let mut values = Values {
            web_of_def,
            remat: vec![true; class.len()],
            class,
            units,
            copies: Vec::new(),
            uniform: Vec::new(),
            uniform_addresses: false,
        };
        values.find_copies(body, du);
        values.find_remat(kernel, body, du);
        values.find_narrow(body, du);
        values
    }

    /// The web read by use `u` (`None` if no definition reaches it).
    pub fn web_of_use(&self, du: &DefUse, u: u32) -> Option<Web> {
        du.reaching(u).first().map(|&d| self.web_of_def[d as usize])
    }

    /// Whether web `w`, read as `reg` by `inst`, must be in a regular register there
    /// ([`needs_register`]), except that on sm_75 a memory address held in a uniform register
    /// (a uniform web, or a constant-bank value loaded into one with `ULDC`) is read from there.
    pub fn use_needs_register(&self, inst: &Inst, reg: Handle<Reg>, w: Web) -> bool {
        let from_uniform = self.uniform_addresses
            && self.remat.get(w as usize).copied().unwrap_or(false)
            && takes_uniform_address(inst, reg);
        !from_uniform && needs_register(inst, reg)
    }

    /// For each rematerialised web with a use that needs a register: the instruction before
    /// which it is loaded into a register (the first such use in the nearest common dominator of
    /// those uses, or the end of that block; out of any loop: the end of the outermost loop's
    /// header's immediate dominator).
    pub fn sink_points(
        &self,
        body: &Body,
        cfg: &Cfg,
        dom: &Dominators,
        loops: &Loops,
        du: &DefUse,
        hoist: bool,
    ) -> Vec<(Handle<Inst>, Web)> {
        let mut uses_of: Vec<Vec<Handle<Inst>>> = vec![Vec::new(); self.len()];
        for (u, usage) in du.uses().iter().enumerate() {
            let Some(w) = self.web_of_use(du, u as u32).filter(|&w| self.remat[w as usize]) else { continue };
            if body.insts.get(usage.inst).is_some_and(|i| self.use_needs_register(i, usage.reg, w)) {
                uses_of[w as usize].push(usage.inst);
            }
        }
        let mut out = Vec::new();
        for (w, insts) in uses_of.iter().enumerate() {
            let blocks: Vec<Handle<Block>> = insts.iter().filter_map(|&i| cfg.position(i).map(|p| p.0)).collect();
            let Some(mut at) = blocks.iter().copied().reduce(|a, b| common_dominator(dom, a, b)) else { continue };
            let in_place = self.uniform.get(w).copied().unwrap_or(false);
            if let Some(outer) = outermost_loop(loops, at).filter(|_| !in_place) {
                at = dom.idom(outer).unwrap_or(at);
            }
            let first_use = insts
                .iter()
                .filter_map(|&i| cfg.position(i).filter(|p| p.0 == at).map(|p| (p.1, i)))
                .min()
                .map(|(_, i)| if hoist && !in_place { hoisted(body, cfg, at, i) } else { i });
            if let Some(inst) = first_use.or_else(|| body.blocks.get(at).and_then(|b| b.insts.last().copied())) {
                out.push((inst, w as Web));
            }
        }
        out
    }

    fn find_copies(&mut self, body: &Body, du: &DefUse) {
        for (ih, inst) in body.insts.iter() {
            if !is_copy(inst) || inst.guard.is_some() {
                continue;
            }
            let (Some(&d), Some(&u)) = (du.defs_at(ih).first(), du.uses_at(ih).first()) else { continue };
            if let Some(src) = self.web_of_use(du, u) {
                let dst = self.web_of_def[d as usize];
                if dst != src && self.class[dst as usize] == self.class[src as usize] {
                    self.copies.push((ih, dst, src));
                }
            }
        }
    }

    fn find_narrow(&mut self, body: &Body, du: &DefUse) {
        let mut zext = vec![true; self.len()];
        let mut zero = vec![true; self.len()];
        for (d, def) in du.defs().iter().enumerate() {
            let w = self.web_of_def[d] as usize;
            let inst = body.insts.get(def.inst);
            zext[w] &= inst.is_some_and(|i| {
                i.opcode == Opcode::Cvt
                    && i.types.get(0).is_some_and(|t| t.bits() == 64)
                    && i.types.get(1).is_some_and(|t| t.is_unsigned_int() && t.bits() <= 32)
            });
            zero[w] &= inst
                .is_some_and(|i| i.opcode == Opcode::Mov && matches!(i.uses(), [Operand::Imm(imm)] if imm.bits() == 0));
        }
        for w in 0..self.len() {
            if zext[w] && self.units[w] == 2 {
                self.units[w] = 1;
            }
            if zero[w] && self.remat[w] {
                self.units[w] = 0;
            }
        }
    }

    /// A web is rematerialised if every definition is a constant-like instruction or a copy of a
    /// rematerialised web (iterated to a fixed point from "all are").
    fn find_remat(&mut self, kernel: &Function, body: &Body, du: &DefUse) {
        let mut changed = true;
        while changed {
            changed = false;
            for (d, def) in du.defs().iter().enumerate() {
                let w = self.web_of_def[d] as usize;
                if !self.remat[w] {
                    continue;
                }
                let ok = body.insts.get(def.inst).is_some_and(|inst| {
                    let source_remat = || {
                        du.uses_at(def.inst)
                            .first()
                            .and_then(|&u| self.web_of_use(du, u))
                            .is_some_and(|s| self.remat[s as usize])
                    };
                    inst.guard.is_none()
                        && (constant_like(kernel, inst)
                            || ((is_copy(inst) || is_param_load_through_reg(kernel, inst)) && source_remat()))
                });
                if !ok || self.class[w] == WidthClass::Pred {
                    self.remat[w] = false;
                    changed = true;
                }
            }
        }
    }
}

/// Where ptxas materialises a constant-bank value first needed by `use_at` in block `at`: ahead
/// of the earliest memory load of the block that precedes `use_at` (issued early so the move
/// overlaps that load's latency), or at `use_at` if no load precedes it.
fn hoisted(body: &Body, cfg: &Cfg, at: Handle<Block>, use_at: Handle<Inst>) -> Handle<Inst> {
    let Some(block) = body.blocks.get(at) else { return use_at };
    let end = cfg.position(use_at).map_or(0, |p| p.1);
    block
        .insts
        .iter()
        .take(end)
        .copied()
        .find(|&ih| {
            body.insts.get(ih).is_some_and(|i| {
                matches!(i.opcode, Opcode::Ld | Opcode::Ldu) && !i.mods.space.is_some_and(StateSpace::is_param)
            })
        })
        .unwrap_or(use_at)
}

/// The header of the outermost loop containing `b`.
fn outermost_loop(loops: &Loops, b: Handle<Block>) -> Option<Handle<Block>> {
    let mut l = loops.get(loops.innermost(b)?)?;
    while let Some(p) = l.parent.and_then(|p| loops.get(p)) {
        l = p;
    }
    Some(l.header)
}

/// The nearest block dominating both `a` and `b` (`a` if they share none: unreachable code).
fn common_dominator(dom: &Dominators, a: Handle<Block>, b: Handle<Block>) -> Handle<Block> {
    let mut x = Some(a);
    while let Some(c) = x {
        if dom.dominates(c, b) {
            return c;
        }
        x = dom.idom(c);
    }
    a
}

/// Whether `inst` must read `reg` from a register (it cannot take a constant-bank or immediate
/// operand there): an address base, data written to memory, a call argument.
pub(crate) fn needs_register(inst: &Inst, reg: Handle<Reg>) -> bool {
    if inst.mods.space.is_some_and(StateSpace::is_param) && matches!(inst.opcode, Opcode::Ld) {
        return false;
    }
    let is_base = inst.operands.iter().any(|op| matches!(op, Operand::Address(a) if a.base == AddressBase::Reg(reg)));
    let writes_memory = matches!(
        inst.opcode,
        Opcode::St | Opcode::Atom | Opcode::Red | Opcode::Sust | Opcode::Sured | Opcode::Call | Opcode::CpAsync
    );
    is_base || (writes_memory && inst.uses().iter().any(|op| mentions(op, reg)))
}

/// Whether `inst` is a memory access whose address base is `reg` and that reads `reg` nowhere
/// else, of a kind sm_75 machine code addresses as `[URn+imm]`: a load or store in global,
/// shared, local or generic memory, or a global atomic or reduction other than compare-and-swap
/// (`LDG.E.SYS R0, [UR4]`, `STS [UR6], R0`, `LDS.U R2, [UR6+0x4]`, `LD.E.SYS R0, [UR4]`,
/// `ATOMG.E.ADD.F32… [UR4+0x8]`, `RED.E.ADD… [UR4]`, ptxas 12.6). A generic `atom.cas` copies
/// the address into a register pair (`MOV R2, UR4; MOV R3, UR5; ATOM.E.CAS… [R2+0x4]`), and a
/// shared atomic at a `%ctaid`-indexed address takes it from a register (`ATOMS.ADD R5, [R0]`).
/// Constant and parameter loads are left as they are.
pub(crate) fn takes_uniform_address(inst: &Inst, reg: Handle<Reg>) -> bool {
    let space = inst.mods.space;
    let kind_ok = match inst.opcode {
        Opcode::Ld | Opcode::Ldu | Opcode::St => {
            space.is_none_or(|s| matches!(s, StateSpace::Global | StateSpace::Local) || s.is_shared())
        }
        Opcode::Atom | Opcode::Red => {
            space == Some(StateSpace::Global) && inst.mods.atom_op != Some(crate::ir::AtomOp::Cas)
        }
        _ => false,
    };
    let is_base = inst.operands.iter().any(|op| matches!(op, Operand::Address(a) if a.base == AddressBase::Reg(reg)));
    kind_ok && is_base && !inst.uses().iter().any(|op| mentions(op, reg))
}

fn mentions(op: &Operand, reg: Handle<Reg>) -> bool {
    match op {
        Operand::Reg(r) => *r == reg,
        Operand::Vector(items) | Operand::List(items) => items.iter().any(|o| mentions(o, reg)),
        _ => false,
    }
}

/// `mov` between registers, and `cvta` between generic and global (the same address on every
/// NVIDIA GPU, so the machine code has no instruction for it).
pub(crate) fn is_copy(inst: &Inst) -> bool {
    let single_reg_source = matches!(inst.uses(), [Operand::Reg(_)]) && matches!(inst.defs(), [Operand::Reg(_)]);
    match inst.opcode {
        Opcode::Mov => single_reg_source,
        Opcode::Cvta => single_reg_source && inst.mods.space == Some(StateSpace::Global),
        _ => false,
    }
}

fn constant_like(kernel: &Function, inst: &Inst) -> bool {
    match inst.opcode {
        Opcode::Mov => matches!(
            inst.uses(),
            [Operand::Imm(_)]
                | [Operand::Symbol { .. }]
                | [Operand::Special(SpecialReg::Ntid(_) | SpecialReg::Nctaid(_) | SpecialReg::WarpSz)]
        ),
        Opcode::Ld | Opcode::Ldu
            if inst.mods.space == Some(StateSpace::Const)
                && inst.mods.vec.is_none()
                && matches!(inst.uses(), [Operand::Address(a)] if matches!(a.base, AddressBase::Symbol(Symbol::Global(_) | Symbol::Local(_)))) =>
        {
            true
        }
        Opcode::Ld => {
            kernel.is_entry()
                && inst.mods.space.is_some_and(StateSpace::is_param)
                && inst.mods.vec.is_none()
                && matches!(
                    inst.uses(),
                    [Operand::Address(a)] if matches!(a.base, AddressBase::Symbol(Symbol::Param(_)))
                )
        }
        _ => false,
    }
}

/// `ld.param [%rd+8]` in a kernel, the register holding a parameter's address (a constant-bank
/// load once that register is known to be rematerialised).
fn is_param_load_through_reg(kernel: &Function, inst: &Inst) -> bool {
    kernel.is_entry()
        && inst.opcode == Opcode::Ld
        && inst.mods.space.is_some_and(StateSpace::is_param)
        && inst.mods.vec.is_none()
        && matches!(inst.uses(), [Operand::Address(a)] if matches!(a.base, AddressBase::Reg(_)))
}

/// Union-find with path halving.
struct UnionFind {
    parent: Vec<u32>,
}

impl UnionFind {
    fn new(n: usize) -> Self {
        UnionFind { parent: (0..n as u32).collect() }
    }

    fn find(&mut self, mut x: u32) -> u32 {
        while self.parent[x as usize] != x {
            let grand = self.parent[self.parent[x as usize] as usize];
            self.parent[x as usize] = grand;
            x = grand;
        }
        x
    }

    fn union(&mut self, a: u32, b: u32) {
        let (ra, rb) = (self.find(a), self.find(b));
        if ra != rb {
            let (lo, hi) = if ra < rb { (ra, rb) } else { (rb, ra) };
            self.parent[hi as usize] = lo;
        }
    }
}
