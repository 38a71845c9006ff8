//! The IR's stable text form. It is PTX: every modifier, declaration and debug line is written
//! so that parsing and lowering the text gives the same IR again, and `ptx::emit` is this text.
//! Unlabelled block boundaries are marked with a comment.
//!
//! ```text
//! .visible .entry k(
//!     .param .u64 k_param_0
//! )
//! {
//!     .reg .b32 %r<2>;
//!     // block 0
//!     mov.u32 %r0, %tid.x;
//! $L__BB0_1:
//!     ret;
//! }
//! ```

use alloc::collections::BTreeSet;
use core::fmt::{self, Write};

use super::arena::Handle;
use super::debug_info::{Section, SectionValue};
use super::inst::Imm;
use super::inst::Operand;
use super::module::{
    Block, Body, BodyPragma, Function, FunctionKind, Initializer, Item, Linkage, Module, Param, Prototype, Var,
};
use super::print_inst::{target_list_operand, write_imm, write_inst, write_inst_naming, write_operand, Names};

impl fmt::Display for Module {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_module(f, self)
    }
}

/// Writes the whole module.
pub fn write_module(out: &mut dyn Write, m: &Module) -> fmt::Result {
    writeln!(out, ".version {}.{}", m.version.major, m.version.minor)?;
    write!(out, ".target {}", m.target.arch)?;
    for opt in &m.target.options {
        write!(out, ", {opt}")?;
    }
    writeln!(out)?;
    if let Some(bits) = m.address_size {
        writeln!(out, ".address_size {bits}")?;
    }
    for (n, file) in &m.files {
        write!(out, ".file {n} \"{}\"", file.name)?;
        if let Some((stamp, size)) = file.stamp {
            write!(out, ", {stamp}, {size}")?;
        }
        writeln!(out)?;
    }
    let mut previous = None;
    for item in &m.items {
        // Consecutive variables and pragmas form one paragraph; functions and sections stand apart.
        let small = |i: &Item| matches!(i, Item::Global(_) | Item::Pragma(_));
        if !(small(item) && previous.is_some_and(small)) {
            writeln!(out)?;
        }
        previous = Some(item);
        match *item {
            Item::Global(h) => match m.globals.get(h) {
                Some(v) => write_var(out, v, "")?,
                None => writeln!(out, "// invalid global {h:?}")?,
            },
            Item::Declaration(h) | Item::Definition(h) => match m.functions.get(h) {
                Some(func) => write_function(out, m, func, matches!(item, Item::Definition(_)))?,
                None => writeln!(out, "// invalid function {h:?}")?,
            },
            Item::Section(i) => match m.sections.get(i as usize) {
                Some(s) => write_section(out, s)?,
                None => writeln!(out, "// invalid section {i}")?,
            },
            Item::Pragma(i) => match m.pragmas.get(i as usize) {
                Some(p) => writeln!(out, ".pragma \"{p}\";")?,
                None => writeln!(out, "// invalid pragma {i}")?,
            },
        }
    }
    Ok(())
}

fn write_linkage(out: &mut dyn Write, linkage: Linkage) -> fmt::Result {
    if linkage != Linkage::Internal {
        write!(out, "{} ", linkage.as_str())?;
    }
    Ok(())
}

fn write_dims(out: &mut dyn Write, dims: &[Option<u64>]) -> fmt::Result {
    for d in dims {
        match d {
            Some(n) => write!(out, "[{n}]")?,
            None => out.write_str("[]")?,
        }
    }
    Ok(())
}

/// Writes a variable declaration line (with `indent` before it).
pub fn write_var(out: &mut dyn Write, v: &Var, indent: &str) -> fmt::Result {
    out.write_str(indent)?;
    write_linkage(out, v.linkage)?;
    write!(out, "{}", v.space)?;
    if let Some(a) = v.align {
        write!(out, " .align {a}")?;
    }
    if let Some(vec) = v.vec {
        write!(out, " {vec}")?;
    }
    write!(out, " {} {}", v.ty, v.name)?;
    write_dims(out, &v.dims)?;
    if let Some(init) = &v.init {
        out.write_str(" = ")?;
        write_init(out, init)?;
    }
    writeln!(out, ";")
}

fn write_init(out: &mut dyn Write, init: &Initializer) -> fmt::Result {
    match init {
        Initializer::Int(v) => write_imm(out, Imm::Int(*v)),
        Initializer::F32(v) => write_imm(out, Imm::F32(*v)),
        Initializer::F64(v) => write_imm(out, Imm::F64(*v)),
        Initializer::Address { name, offset, generic } => {
            if *generic {
                write!(out, "generic({name})")?;
            } else {
                out.write_str(name)?;
            }
            if *offset != 0 {
                write!(out, "+{offset}")?;
            }
            Ok(())
        }
        Initializer::List(items) => {
            out.write_str("{")?;
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.write_str(", ")?;
                }
                write_init(out, item)?;
            }
            out.write_str("}")
        }
    }
}

/// Writes one parameter (`.param .align 4 .b8 p[12]`).
pub fn write_param(out: &mut dyn Write, p: &Param) -> fmt::Result {
    write!(out, "{}", p.space)?;
    if let Some(a) = p.align {
        write!(out, " .align {a}")?;
    }
    if let Some(vec) = p.vec {
        write!(out, " {vec}")?;
    }
    write!(out, " {}", p.ty)?;
    if let Some(ptr) = p.ptr {
        out.write_str(" .ptr")?;
        if let Some(s) = ptr.space {
            write!(out, " {s}")?;
        }
        if let Some(a) = ptr.align {
            write!(out, " .align {a}")?;
        }
    }
    write!(out, " {}", p.name)?;
    write_dims(out, &p.dims)
}

fn write_param_list(out: &mut dyn Write, params: &[Param], multiline: bool) -> fmt::Result {
    out.write_str("(")?;
    for (i, p) in params.iter().enumerate() {
        if i > 0 {
            out.write_str(",")?;
        }
        if multiline {
            out.write_str("\n\t")?;
        } else if i > 0 {
            out.write_str(" ")?;
        }
        write_param(out, p)?;
    }
    if multiline && !params.is_empty() {
        out.write_str("\n")?;
    }
    out.write_str(")")
}

fn write_function(out: &mut dyn Write, m: &Module, func: &Function, definition: bool) -> fmt::Result {
    write_linkage(out, func.linkage)?;
    match func.kind {
        FunctionKind::Entry => out.write_str(".entry ")?,
        FunctionKind::Func => {
            out.write_str(".func ")?;
            if !func.returns.is_empty() {
                write_param_list(out, &func.returns, false)?;
                out.write_str(" ")?;
            }
        }
    }
    out.write_str(&func.name)?;
    write_param_list(out, &func.params, true)?;
    let p = &func.perf;
    let list = |v: &[u32]| v.iter().map(|n| alloc::format!("{n}")).collect::<alloc::vec::Vec<_>>().join(", ");
    if let Some(v) = &p.maxntid {
        write!(out, "\n.maxntid {}", list(v))?;
    }
    if let Some(v) = &p.reqntid {
        write!(out, "\n.reqntid {}", list(v))?;
    }
    if let Some(n) = p.minnctapersm {
        write!(out, "\n.minnctapersm {n}")?;
    }
    if let Some(n) = p.maxnctapersm {
        write!(out, "\n.maxnctapersm {n}")?;
    }
    if let Some(n) = p.maxnreg {
        write!(out, "\n.maxnreg {n}")?;
    }
    if let Some(v) = &p.reqnctapercluster {
        write!(out, "\n.reqnctapercluster {}", list(v))?;
    }
    if let Some(n) = p.maxclusterrank {
        write!(out, "\n.maxclusterrank {n}")?;
    }
    if p.explicitcluster {
        out.write_str("\n.explicitcluster")?;
    }
    if p.noreturn {
        out.write_str("\n.noreturn")?;
    }
    for pragma in &p.pragmas {
        write!(out, "\n.pragma \"{pragma}\";")?;
    }
    match (&func.body, definition) {
        (Some(body), true) => {
            out.write_str("\n{\n")?;
            write_body(out, &Names { module: m, func, body })?;
            writeln!(out, "}}")
        }
        _ => writeln!(out, ";"),
    }
}

fn write_prototype(out: &mut dyn Write, p: &Prototype) -> fmt::Result {
    write!(out, "\t{}: .callprototype ", p.name)?;
    write_param_list(out, &p.returns, false)?;
    out.write_str(" _ ")?;
    write_param_list(out, &p.params, false)?;
    if p.noreturn {
        out.write_str(" .noreturn")?;
    }
    writeln!(out, ";")
}

/// Writes the register declarations, grouping `%r0 … %rN-1` of one type as `%r<N>`.
fn write_regs(out: &mut dyn Write, body: &Body) -> fmt::Result {
    let regs: alloc::vec::Vec<_> =
        body.regs.iter().filter(|(h, _)| !body.param_regs.contains(h)).map(|(_, r)| r).collect();
    let mut i = 0;
    while let Some(first) = regs.get(i) {
        let run = first.name.strip_suffix('0').map_or(1, |prefix| {
            let mut n = 1;
            while regs.get(i + n).is_some_and(|r| {
                r.ty == first.ty && r.name.strip_prefix(prefix).is_some_and(|k| k == alloc::format!("{n}"))
            }) {
                n += 1;
            }
            n
        });
        if run >= 2 {
            let prefix = &first.name[..first.name.len() - 1];
            writeln!(out, "\t.reg {} {prefix}<{run}>;", first.ty)?;
        } else {
            writeln!(out, "\t.reg {} {};", first.ty, first.name)?;
        }
        i += run;
    }
    Ok(())
}

fn write_body(out: &mut dyn Write, names: &Names<'_>) -> fmt::Result {
    let body = names.body;
    write_regs(out, body)?;
    for v in body.vars.values() {
        write_var(out, v, "\t")?;
    }
    for p in body.prototypes.values() {
        write_prototype(out, p)?;
    }
    let targets: BTreeSet<Handle<Block>> =
        body.insts.values().flat_map(|inst| inst.branch_targets().collect::<alloc::vec::Vec<_>>()).collect();
    let mut loc = None;
    let mut pragmas = body.pragmas.iter().peekable();
    for (bh, block) in body.blocks.iter() {
        match &block.label {
            Some(l) => writeln!(out, "{l}:")?,
            None if targets.contains(&bh) => writeln!(out, "$__bb{}:", bh.index())?,
            None => writeln!(out, "\t// block {}", bh.index())?,
        }
        for (i, &ih) in block.insts.iter().enumerate() {
            write_pragmas(out, &mut pragmas, bh, i)?;
            let Some(inst) = body.insts.get(ih) else {
                writeln!(out, "\t// invalid instruction {ih:?}")?;
                continue;
            };
            let here = body.loc(ih);
            if here.is_some() && here != loc {
                if let Some(l) = here {
                    writeln!(out, "\t.loc {} {} {}", l.file, l.line, l.column)?;
                }
                loc = here;
            }
            let list = target_list_operand(inst);
            let list_name = alloc::format!("$__targets{}", ih.index());
            if let (Some((at, calls)), Some(Operand::List(items))) =
                (list, list.and_then(|(at, _)| inst.operands.get(at)))
            {
                let kind = if calls { ".calltargets" } else { ".branchtargets" };
                write!(out, "\t{list_name}: {kind} ")?;
                for (i, item) in items.iter().enumerate() {
                    out.write_str(if i == 0 { "" } else { ", " })?;
                    write_operand(out, names, item)?;
                }
                writeln!(out, ";")?;
                out.write_str("\t")?;
                write_inst_naming(out, names, inst, Some((at, &list_name)))?;
            } else {
                out.write_str("\t")?;
                write_inst(out, names, inst)?;
            }
            writeln!(out, ";")?;
        }
        write_pragmas(out, &mut pragmas, bh, block.insts.len())?;
    }
    Ok(())
}

/// Writes the pragmas placed at (`block`, `index`); `pragmas` is in layout order.
fn write_pragmas<'a>(
    out: &mut dyn Write,
    pragmas: &mut core::iter::Peekable<impl Iterator<Item = &'a BodyPragma>>,
    block: Handle<Block>,
    index: usize,
) -> fmt::Result {
    while let Some(p) = pragmas.next_if(|p| (p.block, p.index as usize) <= (block, index)) {
        writeln!(out, "\t.pragma \"{}\";", p.text)?;
    }
    Ok(())
}

fn write_section(out: &mut dyn Write, s: &Section) -> fmt::Result {
    writeln!(out, ".section {}\n{{", s.name)?;
    for line in &s.lines {
        write!(out, "{}", line.ty)?;
        for (i, v) in line.values.iter().enumerate() {
            out.write_str(if i == 0 { " " } else { ", " })?;
            match v {
                SectionValue::Int(n) => write!(out, "{n}")?,
                SectionValue::Symbol { name, offset } => {
                    out.write_str(name)?;
                    if *offset != 0 {
                        write!(out, "+{offset}")?;
                    }
                }
            }
        }
        writeln!(out)?;
    }
    writeln!(out, "}}")
}

#[cfg(test)]
mod tests {
    use super::super::*;
    use alloc::string::{String, ToString};
    use alloc::vec;

    fn reg(name: &str, ty: Type) -> Reg {
        Reg { name: name.into(), ty, class: ty.width_class() }
    }

    #[test]
    fn text_form_is_ptx() {
        let mut body = Body::default();
        let r0 = body.regs.alloc(reg("%r0", Type::B32));
        let r1 = body.regs.alloc(reg("%r1", Type::B32));
        body.regs.alloc(reg("%r2", Type::B32));
        let p = body.regs.alloc(reg("p", Type::Pred));
        let mut mov = Inst::new(Opcode::Mov, vec![Operand::Reg(r0), Operand::Special(SpecialReg::Tid(Dim::X))]);
        mov.types = TypeList::one(Type::U32);
        let mut add =
            Inst::new(Opcode::Add, vec![Operand::Reg(r1), Operand::Reg(r0), Operand::Imm(Imm::Int(u64::MAX))]);
        add.types = TypeList::one(Type::S32);
        add.guard = Some(Guard { reg: p, negated: true });
        let mut ld = Inst::new(
            Opcode::Ld,
            vec![
                Operand::Reg(r1),
                Operand::Address(Address { base: AddressBase::Symbol(Symbol::Param(0)), offset: 8 }),
            ],
        );
        ld.mods.space = Some(StateSpace::Param);
        ld.types = TypeList::one(Type::U32);
        let insts: vec::Vec<_> =
            [mov, add, ld, Inst::new(Opcode::Ret, vec![])].into_iter().map(|i| body.insts.alloc(i)).collect();
        let entry = body.blocks.alloc(Block { label: None, insts: insts[..2].to_vec() });
        body.blocks.alloc(Block { label: Some("$L1".into()), insts: insts[2..].to_vec() });
        body.pragmas.push(BodyPragma { block: entry, index: 1, text: "nounroll".into() });
        let param = Param {
            name: "k_param_0".into(),
            space: StateSpace::Param,
            align: None,
            vec: None,
            ty: Type::U64,
            ptr: None,
            dims: vec![],
        };
        let mut m = Module { version: Version { major: 7, minor: 0 }, address_size: Some(64), ..Module::default() };
        m.target.arch = "sm_80".into();
        let f = m.functions.alloc(Function {
            name: "k".into(),
            kind: FunctionKind::Entry,
            linkage: Linkage::Visible,
            returns: vec![],
            params: vec![param],
            perf: PerfDirectives::default(),
            body: Some(body),
        });
        m.items.push(Item::Definition(f));
        let text = m.to_string();
        let expected =
            ".version 7.0\n.target sm_80\n.address_size 64\n\n.visible .entry k(\n\t.param .u64 k_param_0\n)\n{\n\
            \t.reg .b32 %r<3>;\n\t.reg .pred p;\n\t// block 0\n\tmov.u32 %r0, %tid.x;\n\t.pragma \"nounroll\";\n\
            \t@!p add.s32 %r1, %r0, -1;\n$L1:\n\tld.param.u32 %r1, [k_param_0+8];\n\tret;\n}\n";
        assert_eq!(text, String::from(expected), "{text}");
    }
}
