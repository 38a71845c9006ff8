//! Modifier values of texture and surface instructions.
//!
//! ```text
//! tex.level.2d.v4.f32.f32 ...; tld4.r.2d ...; suld.b.1d.b32.trap ...;
//! ```

use crate::ir::types::keyword_enum;

keyword_enum! {
    /// Texture and surface geometries.
    TexGeom {
        /// 1D.
        D1 = ".1d",
        /// 2D.
        D2 = ".2d",
        /// 3D.
        D3 = ".3d",
        /// 1D array.
        A1d = ".a1d",
        /// 2D array.
        A2d = ".a2d",
        /// Cube map.
        Cube = ".cube",
        /// Cube-map array.
        Acube = ".acube",
        /// 2D multisample.
        D2ms = ".2dms",
        /// 2D multisample array.
        A2dms = ".a2dms",
    }
}

keyword_enum! {
    /// Mip level selection of `tex`.
    TexLod {
        /// Base level (the default, spelled out).
        Base = ".base",
        /// Explicit level of detail.
        Level = ".level",
        /// Explicit gradients.
        Grad = ".grad",
    }
}

keyword_enum! {
    /// Colour component gathered by `tld4`.
    Component {
        /// Red.
        R = ".r",
        /// Green.
        G = ".g",
        /// Blue.
        B = ".b",
        /// Alpha.
        A = ".a",
    }
}

keyword_enum! {
    /// Attributes `txq`/`suq` query.
    TexQuery {
        /// Width.
        Width = ".width",
        /// Height.
        Height = ".height",
        /// Depth.
        Depth = ".depth",
        /// Channel data type.
        ChannelDataType = ".channel_data_type",
        /// Channel order.
        ChannelOrder = ".channel_order",
        /// Normalized coordinates flag.
        NormalizedCoords = ".normalized_coords",
        /// Forced unnormalized coordinates flag.
        ForceUnnormalizedCoords = ".force_unnormalized_coords",
        /// Filter mode.
        FilterMode = ".filter_mode",
        /// Addressing mode, dimension 0.
        AddrMode0 = ".addr_mode_0",
        /// Addressing mode, dimension 1.
        AddrMode1 = ".addr_mode_1",
        /// Addressing mode, dimension 2.
        AddrMode2 = ".addr_mode_2",
        /// Number of mipmap levels.
        NumMipmapLevels = ".num_mipmap_levels",
        /// Number of samples.
        NumSamples = ".num_samples",
        /// Array size.
        ArraySize = ".array_size",
        /// Memory layout.
        MemoryLayout = ".memory_layout",
    }
}

keyword_enum! {
    /// Surface access mode (`suld.b` formatted as raw bits, `.p` formatted).
    SurfMode {
        /// Raw bits.
        B = ".b",
        /// Formatted.
        P = ".p",
    }
}

keyword_enum! {
    /// Out-of-bounds behaviour of surface instructions.
    SurfClamp {
        /// Trap.
        Trap = ".trap",
        /// Clamp to the edge.
        Clamp = ".clamp",
        /// Read zero / ignore the write.
        Zero = ".zero",
    }
}
