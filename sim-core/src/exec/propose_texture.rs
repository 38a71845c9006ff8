//! Textures in a proposed launch: every `.texref` the kernel fetches from is bound in the setup's
//! `textures`, and every parameter the kernel uses as a texture object becomes a texture. Each
//! is as large as a proposed buffer (16384 texels in 1D, 128 × 128 in 2D), one channel of the
//! fetch's destination type, seeded random texels, clamped addressing (every coordinate reads a
//! texel) and point filtering.
//!
//! ```text
//! .global .texref t_grad_x;  tex.1d.v4.f32.s32 {…}, [t_grad_x, {%r16}];
//! → "textures": {"t_grad_x": {"type": "f32", "width": 16384, "init": "random:…"}}
//! ```

use alloc::collections::BTreeMap;
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use super::launch::{Init, LaunchSetup, ParamSpec};
use super::propose::{ProposalNote, PROPOSED_ELEMENTS, PROPOSED_SIDE};
use super::texture::{AddressMode, Filter, TextureSpec};
use super::value::ElemType;
use crate::ir::{AddressBase, Function, Module, Opcode, Operand, Symbol, TexGeom, Type};

/// The texture proposed for fetches of `geom` into `dty`.
fn spec(geom: Option<TexGeom>, dty: Option<Type>, seed: u64) -> TextureSpec {
    let two_d = geom == Some(TexGeom::D2);
    let (width, height) =
        if two_d { (PROPOSED_SIDE as u32, PROPOSED_SIDE as u32) } else { (PROPOSED_ELEMENTS as u32, 1) };
    let ty = match dty {
        Some(Type::S32) => ElemType::S32,
        Some(Type::U32) => ElemType::U32,
        _ => ElemType::F32,
    };
    TextureSpec {
        ty,
        width,
        height,
        channels: 1,
        init: Some(Init::Random(seed)),
        data: None,
        address: AddressMode::Clamp,
        filter: Filter::Point,
        normalized: false,
    }
}

/// Binds the kernel's texture references and turns its texture-object parameters into textures.
pub(crate) fn bind(module: &Module, func: &Function, setup: &mut LaunchSetup, notes: &mut Vec<ProposalNote>) {
    let Some(body) = &func.body else { return };
    let mut from_param = BTreeMap::new();
    let mut params = BTreeMap::new();
    for inst in body.insts.values() {
        if matches!(inst.opcode, Opcode::Ld) && inst.mods.space.is_some_and(|s| s.is_param()) {
            if let (Some(Operand::Reg(r)), Some(Operand::Address(a))) = (inst.operands.first(), inst.operands.get(1)) {
                if let AddressBase::Symbol(Symbol::Param(i)) = a.base {
                    from_param.insert(*r, i);
                }
            }
        }
    }
    for inst in body.insts.values().filter(|i| matches!(i.opcode, Opcode::Tex | Opcode::Tld4)) {
        let Some(Operand::Tex(t)) = inst.operands.get(1) else { continue };
        let seed = 100 + setup.textures.len() as u64 + params.len() as u64;
        let make = || spec(inst.mods.geom, inst.types.first(), seed);
        match &t.texture {
            Operand::Symbol { symbol: Symbol::Global(h), .. } => {
                if let Some(v) = module.globals.get(*h).filter(|v| super::texture::is_texref(v)) {
                    setup.textures.entry(v.name.clone()).or_insert_with(make);
                }
            }
            Operand::Symbol { symbol: Symbol::Param(i), .. } => {
                params.entry(*i).or_insert_with(make);
            }
            Operand::Reg(r) => {
                if let Some(&i) = from_param.get(r) {
                    params.entry(i).or_insert_with(make);
                }
            }
            _ => {}
        }
    }
    for (i, spec) in params {
        if let Some(slot) = setup.params.get_mut(i as usize) {
            *slot = ParamSpec::Texture(spec);
        }
    }
    let names: Vec<String> = setup.textures.keys().cloned().collect();
    if !names.is_empty() {
        let text = format!(
            "textures {} hold random texels, clamped, point-filtered: set their size and contents",
            names.join(", ")
        );
        notes.push(ProposalNote { param: None, text });
    }
}
