//! Textures in the launch format and on the device. A texture is bound to its own buffer of
//! texels (`width × height` texels of `channels` elements of `type`, row after row) with an
//! address mode and a filter; the device sees a 40-byte descriptor in global memory whose address
//! is the texture's handle. A texture object (a kernel parameter, `{"texture": {…}}`) receives
//! the handle; a texture reference (`.global .texref t`, bound by name in the setup's
//! `textures`) holds it in its 8 bytes. `tex`/`tld4` read the descriptor through the handle
//! (`semantics::texture`).
//!
//! ```text
//! .global .texref t_img;   tex.1d.v4.f32.s32 {%f1,%f2,%f3,%f4}, [t_img, {%r1}];
//! {"textures": {"t_img": {"type": "f32", "width": 640, "init": "random:1"}}, …}
//! .param .u64 tobj;        tex.2d.v4.f32.f32 {%f1,%f2,%f3,%f4}, [tobj, {%f5, %f6}];
//! {"params": [{"texture": {"type": "f32", "width": 4, "height": 2, "data": [...],
//!                          "address": "wrap", "filter": "linear", "normalized": true}}]}
//! ```
//!
//! Descriptor layout (little-endian): 0 data address (u64), 8 width (u32), 12 height (u32),
//! 16 element type (index into [`ElemType::ALL`]), 17 channels, 18 address mode, 19 filter,
//! 20 normalized coordinates (0 or 1).

use alloc::collections::BTreeMap;
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use serde::{Deserialize, Serialize};

use super::image::ModuleImage;
use super::launch::{buffer_bytes, BufferSpec, Init};
use super::memory::{read_le, write_le, GlobalMemory, RegionKind};
use super::value::{ElemType, Value};
use crate::ir::{Module, Type};

/// Bytes of a texture descriptor.
pub const DESCRIPTOR_BYTES: usize = 40;

/// Most texels per side (CUDA's 2D limit is 65536; 1D linear-memory textures reach 2^27).
pub const MAX_SIDE: u32 = 1 << 27;

/// What a coordinate outside the texture reads.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum AddressMode {
    /// The nearest edge texel (`cudaAddressModeClamp`).
    #[default]
    Clamp,
    /// The coordinate wraps around (`cudaAddressModeWrap`): texel `i mod n`.
    Wrap,
    /// Zero (`cudaAddressModeBorder`).
    Border,
}

/// How texels are combined.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Filter {
    /// The texel the coordinate falls in (`cudaFilterModePoint`).
    #[default]
    Point,
    /// Linear (bilinear in 2D) interpolation of the nearest 2 (4) texels with 9-bit fixed-point
    /// weights (`cudaFilterModeLinear`; CUDA C Programming Guide, "Texture Fetching").
    Linear,
}

fn one() -> u32 {
    1
}

/// A texture in a launch setup.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TextureSpec {
    /// Element type of each channel (the channel format: `f32`, `u8`, …).
    #[serde(rename = "type")]
    pub ty: ElemType,
    /// Texels per row.
    pub width: u32,
    /// Rows (1 for a 1D texture).
    #[serde(default = "one")]
    pub height: u32,
    /// Channels per texel: 1, 2 or 4.
    #[serde(default = "one")]
    pub channels: u32,
    /// Initial contents of the texels (default `zeros`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub init: Option<Init>,
    /// Explicit texel values, channel by channel, texel by texel, row by row.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data: Option<Vec<Value>>,
    /// Address mode (default `clamp`).
    #[serde(default)]
    pub address: AddressMode,
    /// Filter (default `point`).
    #[serde(default)]
    pub filter: Filter,
    /// Coordinates are normalized to [0, 1) (default: texel coordinates).
    #[serde(default)]
    pub normalized: bool,
}

impl TextureSpec {
    /// Elements in the texel buffer.
    pub fn elements(&self) -> u64 {
        u64::from(self.width) * u64::from(self.height) * u64::from(self.channels)
    }

    /// The texel buffer as a buffer spec.
    pub fn buffer(&self) -> BufferSpec {
        BufferSpec {
            ty: self.ty,
            len: Some(self.elements()),
            init: self.init.clone(),
            data: self.data.clone(),
            offset: None,
        }
    }

    /// Checks the shape; the error says what is wrong.
    pub fn check(&self) -> Result<(), String> {
        if self.width == 0 || self.height == 0 || self.width > MAX_SIDE || self.height > MAX_SIDE {
            return Err(format!("width and height must be 1 to {MAX_SIDE}, not {} × {}", self.width, self.height));
        }
        if !matches!(self.channels, 1 | 2 | 4) {
            return Err(format!("channels must be 1, 2 or 4, not {}", self.channels));
        }
        if self.ty.size() == 8 {
            return Err(format!("{} textures do not exist (channels are 8 to 32 bits)", self.ty));
        }
        let n = self.data.as_ref().map_or(0, |d| d.len() as u64);
        if n > self.elements() {
            return Err(format!("data has {n} values but the texture holds {}", self.elements()));
        }
        Ok(())
    }
}

/// A texture descriptor as the device reads it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Descriptor {
    /// Address of texel (0, 0).
    pub data: u64,
    /// Texels per row.
    pub width: u32,
    /// Rows.
    pub height: u32,
    /// Channel type.
    pub ty: ElemType,
    /// Channels per texel.
    pub channels: u32,
    /// Address mode.
    pub address: AddressMode,
    /// Filter.
    pub filter: Filter,
    /// Normalized coordinates.
    pub normalized: bool,
}

const MODES: [AddressMode; 3] = [AddressMode::Clamp, AddressMode::Wrap, AddressMode::Border];

impl Descriptor {
    /// The descriptor's bytes.
    pub fn encode(&self) -> Vec<u8> {
        let mut b = alloc::vec![0u8; DESCRIPTOR_BYTES];
        write_le(&mut b[0..8], self.data);
        write_le(&mut b[8..12], u64::from(self.width));
        write_le(&mut b[12..16], u64::from(self.height));
        b[16] = ElemType::ALL.iter().position(|t| *t == self.ty).unwrap_or(0) as u8;
        b[17] = self.channels as u8;
        b[18] = MODES.iter().position(|m| *m == self.address).unwrap_or(0) as u8;
        b[19] = u8::from(self.filter == Filter::Linear);
        b[20] = u8::from(self.normalized);
        b
    }

    /// The descriptor in `b`, if it is one.
    pub fn decode(b: &[u8]) -> Option<Descriptor> {
        let b = b.get(..DESCRIPTOR_BYTES)?;
        Some(Descriptor {
            data: read_le(&b[0..8]),
            width: read_le(&b[8..12]) as u32,
            height: read_le(&b[12..16]) as u32,
            ty: *ElemType::ALL.get(usize::from(b[16]))?,
            channels: u32::from(b[17]),
            address: *MODES.get(usize::from(b[18]))?,
            filter: if b[19] == 1 { Filter::Linear } else { Filter::Point },
            normalized: b[20] == 1,
        })
    }
}

/// Allocates the texels and the descriptor of `spec`; returns the handle (the descriptor's
/// address). `at` names the texture in messages.
pub fn allocate(global: &mut GlobalMemory, spec: &TextureSpec, kind: RegionKind, at: &str) -> Result<u64, String> {
    spec.check().map_err(|m| format!("{at}: {m}"))?;
    let bytes = buffer_bytes(&spec.buffer(), spec.elements()).map_err(|m| format!("{at}: {m}"))?;
    let data = global.allocate(bytes, kind.clone());
    let d = Descriptor {
        data,
        width: spec.width,
        height: spec.height,
        ty: spec.ty,
        channels: spec.channels,
        address: spec.address,
        filter: spec.filter,
        normalized: spec.normalized,
    };
    Ok(global.allocate(d.encode(), kind))
}

/// True for a texture reference: `.global .texref t`, or `.tex .u64 t` in old PTX.
pub fn is_texref(v: &crate::ir::Var) -> bool {
    v.ty == Type::TexRef || v.space == crate::ir::StateSpace::Tex
}

/// Binds the setup's `textures` to the module's `.texref` variables by name.
pub fn bind_refs(
    module: &Module,
    image: &ModuleImage,
    global: &mut GlobalMemory,
    textures: &BTreeMap<String, TextureSpec>,
) -> Result<(), String> {
    for (name, spec) in textures {
        let found = module.globals.iter().find(|(_, v)| v.name == *name && is_texref(v));
        let Some(&var) = found.and_then(|(h, _)| image.globals.get(&(None, h))) else {
            let refs: Vec<&str> = module.globals.values().filter(|v| is_texref(v)).map(|v| v.name.as_str()).collect();
            let list = if refs.is_empty() { String::from("none") } else { refs.join(", ") };
            return Err(format!("textures: the module has no .texref named '{name}' (texture references: {list})"));
        };
        let handle = allocate(global, spec, RegionKind::Variable(name.clone()), &format!("textures.{name}"))?;
        if let Some(r) = global.region_mut(var) {
            if let Some(slot) = r.data.get_mut(0..8) {
                write_le(slot, handle);
            }
        }
    }
    Ok(())
}
