//! FineReg's configuration (Oh et al., SCHEMES.md §4): the ACRF/PCRF split, the PCRF's move
//! timing, the CTA limits, the live-vector cache, and the storage overhead computed from them.
//!
//! ```text
//! storage = status monitor  2 fields × 2 bits × 128 CTAs            =   64 B
//!         + live-vector cache  32 entries × (4 B PC + 8 B vector)     =  384 B
//!         + PCRF pointer table 128 CTAs × (10-bit pointer + 6-bit count) = 256 B
//!         + PCRF tags  1024 entries × 21 bits (10 next + 6 reg + 5 warp) = 2688 B
//!         + CTA switching logic (Virtual Thread's, the paper's 2.4 KB)   = 2458 B
//!         = 5850 B ≈ 5.71 KiB  (the paper states ≈ 5.02 KB; see docs/fidelity/finereg.md)
//! ```

use alloc::vec::Vec;

use super::baseline::BankedConfig;
use super::config::SchemeConfigError;
use super::params::{ConfigReader, ParamSpec, SchemeConfig};
use super::EnergyModel;
use crate::gpu::GpuConfig;

/// Bytes of one warp-register (32 lanes × 4 bytes): the PCRF's entry.
pub const WARP_REGISTER_BYTES: u32 = 128;
/// The paper's CTA switching logic (Virtual Thread's, its ref. [45]): 2.4 KB.
pub const SWITCH_LOGIC_BYTES: u64 = 2458;
/// Bits per live-register count in the pointer table (64 registers per thread at most).
const COUNT_BITS: u64 = 6;
/// Bits naming a warp of a CTA in a PCRF tag (32 warps per CTA at most).
const WARP_BITS: u64 = 5;
/// Bytes of a live-vector cache entry: a 4-byte PC tag and a 64-bit vector.
const LV_ENTRY_BYTES: u64 = 12;

/// FineReg's parameters beyond the baseline's.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FineRegConfig {
    /// ACRF size in KB (active CTAs, full allocation); paper 128.
    pub acrf_kb: u32,
    /// PCRF size in KB (pending CTAs, live registers only); paper 128.
    pub pcrf_kb: u32,
    /// Cycles before the first warp-register of a move (PCRF tag + register access); paper ≥ 4.
    pub pcrf_latency: u32,
    /// Moves pipelined: one warp-register per cycle after the start (else `pcrf_latency` each).
    pub pcrf_pipelined: bool,
    /// Resident CTAs per SM at most; paper 128.
    pub max_resident_ctas: u32,
    /// Resident warps per SM at most; paper 512.
    pub max_resident_warps: u32,
    /// Live-vector cache entries (direct-mapped by `sid`); paper 32.
    pub live_vector_cache_entries: u32,
}

/// The schema: the baseline's plus FineReg's.
pub fn params(gpu: &GpuConfig, energy: &EnergyModel) -> Vec<ParamSpec> {
    let src = "Oh et al., FineReg (SCHEMES.md §4)";
    let mut p = BankedConfig::params(gpu, energy);
    p.push(
        ParamSpec::int("acrf_kb", 128, 1, 4096, "KB")
            .doc("Active-CTA register file size (active CTAs hold their full allocation)", src),
    );
    p.push(
        ParamSpec::int("pcrf_kb", 128, 0, 4096, "KB")
            .doc("Pending-CTA register file size (pending CTAs keep only their live registers)", src),
    );
    p.push(
        ParamSpec::int("pcrf_latency", 4, 1, 1000, "cycles")
            .doc("Cycles to reach the first register of a move (PCRF tag and register access)", src),
    );
    p.push(
        ParamSpec::flag("pcrf_pipelined", true)
            .doc(
                "Moves are pipelined, one warp-register per cycle after the start (else pcrf_latency cycles each)",
                src,
            )
            .assumed(),
    );
    p.push(
        ParamSpec::int("max_resident_ctas", 128, 1, 1024, "CTAs")
            .doc("Resident CTAs per SM at most (active and pending)", src),
    );
    p.push(
        ParamSpec::int("max_resident_warps", 512, 1, 4096, "warps")
            .doc("Resident warps per SM at most (active and pending)", src),
    );
    p.push(
        ParamSpec::int("live_vector_cache_entries", 32, 1, 4096, "entries")
            .doc("Direct-mapped cache of per-PC live-register vectors; a miss reads the vector from memory", src),
    );
    p
}

impl FineRegConfig {
    /// Reads FineReg's fields of a resolved config.
    pub fn from_config(config: &SchemeConfig) -> Result<Self, SchemeConfigError> {
        let r = ConfigReader::new("finereg", config);
        Ok(FineRegConfig {
            acrf_kb: r.u32("acrf_kb")?,
            pcrf_kb: r.u32("pcrf_kb")?,
            pcrf_latency: r.u32("pcrf_latency")?,
            pcrf_pipelined: r.bool("pcrf_pipelined")?,
            max_resident_ctas: r.u32("max_resident_ctas")?,
            max_resident_warps: r.u32("max_resident_warps")?,
            live_vector_cache_entries: r.u32("live_vector_cache_entries")?,
        })
    }

    /// PCRF entries (warp-registers).
    pub fn pcrf_entries(&self) -> u64 {
        u64::from(self.pcrf_kb) * 1024 / u64::from(WARP_REGISTER_BYTES)
    }

    /// Cycles to move `n` warp-registers (0 for none).
    pub fn move_cycles(&self, n: u64) -> u32 {
        if n == 0 {
            return 0;
        }
        let c = if self.pcrf_pipelined { u64::from(self.pcrf_latency) + n } else { u64::from(self.pcrf_latency) * n };
        u32::try_from(c).unwrap_or(u32::MAX)
    }

    /// The storage FineReg adds to an SM, in bytes, by component (see the module docs).
    pub fn storage_parts(&self) -> [(&'static str, u64); 5] {
        let ctas = u64::from(self.max_resident_ctas);
        let entries = self.pcrf_entries().max(1);
        let pointer_bits = u64::from(u64::BITS - (entries - 1).leading_zeros()).max(1);
        [
            ("status_monitor", (2 * 2 * ctas).div_ceil(8)),
            ("live_vector_cache", u64::from(self.live_vector_cache_entries) * LV_ENTRY_BYTES),
            ("pcrf_pointer_table", (ctas * (pointer_bits + COUNT_BITS)).div_ceil(8)),
            ("pcrf_tags", (entries * (pointer_bits + COUNT_BITS + WARP_BITS)).div_ceil(8)),
            ("switch_logic", SWITCH_LOGIC_BYTES),
        ]
    }

    /// The storage FineReg adds to an SM, in bytes.
    pub fn storage_bytes(&self) -> u64 {
        self.storage_parts().iter().map(|p| p.1).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn paper() -> FineRegConfig {
        FineRegConfig {
            acrf_kb: 128,
            pcrf_kb: 128,
            pcrf_latency: 4,
            pcrf_pipelined: true,
            max_resident_ctas: 128,
            max_resident_warps: 512,
            live_vector_cache_entries: 32,
        }
    }

    #[test]
    fn storage_of_the_papers_configuration() {
        let c = paper();
        // 64 + 384 + 256 + 2688 + 2458 (module docs).
        let parts: Vec<u64> = c.storage_parts().iter().map(|p| p.1).collect();
        assert_eq!(parts, [64, 384, 256, 2688, 2458]);
        assert_eq!(c.storage_bytes(), 5850);
        // Half the PCRF: 512 entries, 9-bit pointers: table 128 × 15 bits = 240 B, tags 512 × 20 bits = 1280 B.
        let half = FineRegConfig { pcrf_kb: 64, ..c };
        assert_eq!(half.storage_bytes(), 64 + 384 + 240 + 1280 + 2458);
    }

    #[test]
    fn move_cycles_pipelined_or_chained() {
        let c = paper();
        assert_eq!((c.move_cycles(0), c.move_cycles(1), c.move_cycles(10)), (0, 5, 14));
        let chained = FineRegConfig { pcrf_pipelined: false, ..c };
        assert_eq!(chained.move_cycles(10), 40);
    }
}
