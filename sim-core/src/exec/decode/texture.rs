//! Decoding `tex` and `tld4` on 1D and 2D textures: the destination vector, the destination and
//! coordinate types, the texture (a `.texref` variable or a parameter holding a handle, read
//! from memory; or a register holding one) and the coordinates.
//!
//! ```text
//! tex.1d.v4.f32.s32 {%f1,%f2,%f3,%f4}, [t_img, {%r1}];  // handle read from t_img's 8 bytes
//! tld4.r.2d.v4.f32.f32 {%f1,%f2,%f3,%f4}, [%rd1, {%f5, %f6}];  // handle in %rd1
//! ```

use alloc::boxed::Box;
use alloc::format;
use alloc::vec::Vec;

use super::ops::{Ops, R};
use crate::exec::memory::Space;
use crate::exec::program::{Op, Src};
use crate::exec::semantics::texture::TexOp;
use crate::ir::{Component, Operand, TexGeom, TexLod, Type};

/// The op of a `tex` or `tld4`.
pub(super) fn decode(o: &Ops<'_, '_>) -> R<Op> {
    let (inst, cx) = (o.inst, o.cx);
    let name = inst.opcode.name();
    let dims = match inst.mods.geom {
        Some(TexGeom::D1) => 1,
        Some(TexGeom::D2) => 2,
        Some(g) => return Err(format!("`{name}{}` textures are not modelled (1D and 2D are)", g.as_str())),
        None => return Err(format!("`{name}` without a geometry")),
    };
    if matches!(inst.mods.lod, Some(TexLod::Level | TexLod::Grad)) {
        return Err(format!("`{name}` with an explicit level of detail is not modelled (no mipmaps)"));
    }
    let dty = inst.types.first().ok_or("missing destination type")?;
    let cty = inst.types.get(1).ok_or("missing coordinate type")?;
    if !matches!(dty, Type::F32 | Type::S32 | Type::U32) || !matches!(cty, Type::F32 | Type::S32) {
        return Err(format!("`{name}` returning {dty} from {cty} coordinates is not modelled"));
    }
    let d = match o.op(0)? {
        Operand::Pair(_) => return Err(format!("`{name}` with a residency predicate is not modelled")),
        dst => cx.dsts(dst)?,
    };
    let Operand::Tex(t) = o.op(1)? else { return Err("expected a texture operand `[tex, {coords}]`".into()) };
    if t.sampler.is_some() {
        return Err("independent texture and sampler (`[tex, sampler, {…}]`) are not modelled".into());
    }
    let (handle, handle_space) = match &t.texture {
        Operand::Symbol { symbol, offset } => {
            let (space, src) = cx.symbol(*symbol, *offset)?;
            (src, Some(space.unwrap_or(Space::Global)))
        }
        other => (cx.src(other, Some(Type::U64))?, None),
    };
    let coords: Vec<Src> = match &t.coords {
        Operand::Vector(items) => items.iter().map(|c| cx.src(c, Some(cty))).collect::<Result<_, _>>()?,
        one => alloc::vec![cx.src(one, Some(cty))?],
    };
    if coords.len() < dims {
        return Err(format!("`{name}` needs {dims} coordinates"));
    }
    let gather = match inst.mods.component {
        _ if inst.opcode == crate::ir::Opcode::Tex => None,
        Some(Component::R) | None => Some(0),
        Some(Component::G) => Some(1),
        Some(Component::B) => Some(2),
        Some(Component::A) => Some(3),
    };
    let op = TexOp { dims, gather, dty, cty, d, handle, handle_space, coords: Box::from(coords) };
    Ok(Op::Tex(Box::new(op)))
}
