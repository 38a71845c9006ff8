//! Special registers: the read-only registers PTX predefines (`%tid`, `%laneid`, `%clock64`, …),
//! their names and the types they are read as.
//!
//! ```text
//! mov.u32 %r1, %ctaid.y;     // Operand::Special(SpecialReg::Ctaid(Dim::Y))
//! mov.u64 %rd1, %clock64;    // Operand::Special(SpecialReg::Clock64)
//! ```

use core::fmt::{self, Write};

use serde::{Deserialize, Serialize};

use super::types::Type;

/// A dimension selector of special registers (`%tid.x`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum Dim {
    /// `.x`
    X,
    /// `.y`
    Y,
    /// `.z`
    Z,
}

impl Dim {
    /// `".x"`, `".y"` or `".z"`.
    pub fn as_str(self) -> &'static str {
        match self {
            Dim::X => ".x",
            Dim::Y => ".y",
            Dim::Z => ".z",
        }
    }
}

/// A PTX special register (read-only, predefined).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum SpecialReg {
    /// `%tid`: thread index in the CTA.
    Tid(Dim),
    /// `%ntid`: CTA dimensions.
    Ntid(Dim),
    /// `%ctaid`: CTA index in the grid.
    Ctaid(Dim),
    /// `%nctaid`: grid dimensions.
    Nctaid(Dim),
    /// `%clusterid`: cluster index in the grid.
    Clusterid(Dim),
    /// `%nclusterid`: grid dimensions in clusters.
    Nclusterid(Dim),
    /// `%cluster_ctaid`: CTA index in the cluster.
    ClusterCtaid(Dim),
    /// `%cluster_nctaid`: cluster dimensions in CTAs.
    ClusterNctaid(Dim),
    /// `%cluster_ctarank`.
    ClusterCtarank,
    /// `%cluster_nctarank`.
    ClusterNctarank,
    /// `%is_explicit_cluster`.
    IsExplicitCluster,
    /// `%laneid`.
    Laneid,
    /// `%warpid`.
    Warpid,
    /// `%nwarpid`.
    Nwarpid,
    /// `%smid`.
    Smid,
    /// `%nsmid`.
    Nsmid,
    /// `%gridid`.
    Gridid,
    /// `%lanemask_eq`.
    LanemaskEq,
    /// `%lanemask_le`.
    LanemaskLe,
    /// `%lanemask_lt`.
    LanemaskLt,
    /// `%lanemask_ge`.
    LanemaskGe,
    /// `%lanemask_gt`.
    LanemaskGt,
    /// `%clock`.
    Clock,
    /// `%clock_hi`.
    ClockHi,
    /// `%clock64`.
    Clock64,
    /// `%globaltimer`.
    Globaltimer,
    /// `%globaltimer_lo`.
    GlobaltimerLo,
    /// `%globaltimer_hi`.
    GlobaltimerHi,
    /// `%envreg0` … `%envreg31`.
    Envreg(u8),
    /// `%pm0` … `%pm7`.
    Pm(u8),
    /// `%pm0_64` … `%pm7_64`.
    Pm64(u8),
    /// `%reserved_smem_offset_begin` and friends are not modelled; `%total_smem_size`.
    TotalSmemSize,
    /// `%aggr_smem_size`.
    AggrSmemSize,
    /// `%dynamic_smem_size`.
    DynamicSmemSize,
    /// `%current_graph_exec`.
    CurrentGraphExec,
    /// `WARP_SZ`: the predefined constant warp size (32).
    WarpSz,
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
