//! Edge cases of NVIDIA's rules for every compute capability, and Angerd's IMGVF example.
#![allow(clippy::unwrap_used, reason = "tests fail loudly on unexpected errors")]

use alloc::vec;

use super::nvidia::registers_per_warp;
use super::*;
use crate::gpu::compute_capability::SmVersion;
use crate::gpu::limits::SmLimits;
use crate::gpu::presets;

fn on(version: SmVersion, input: &OccupancyInput) -> Occupancy {
    nvidia::compute(&version.limits(), input).unwrap()
}

fn limit(o: &Occupancy, r: Resource) -> Option<u32> {
    o.limit(r).unwrap().blocks
}

fn fermi() -> ResidencyLimits {
    presets::fermi_gtx480().limits
}

/// Angerd et al. §2 and §6.1: IMGVF, 320 threads, 14,560 B of shared memory on a GTX 480.
#[test]
fn imgvf_on_fermi() {
    let imgvf = |regs| compute(&fermi(), &OccupancyInput::new(320, regs).with_static_shared_memory(14_560)).unwrap();

    let original = imgvf(52);
    assert_eq!(original.blocks_per_sm, 1);
    assert_eq!(original.warps_per_sm, 10);
    assert!((original.occupancy * 1000.0).round() == 208.0, "{}", original.occupancy);
    assert_eq!(original.binding, vec![Resource::Registers]);

    let compressed = imgvf(29);
    assert_eq!(compressed.blocks_per_sm, 3);
    assert_eq!(compressed.occupancy, 0.625);
    assert_eq!(compressed.binding, vec![Resource::Registers, Resource::SharedMemory]);
    assert_eq!(compressed.registers_per_block, 10 * 1024, "29 registers use the 128-register unit");

    let high_quality = imgvf(24);
    assert_eq!(high_quality.blocks_per_sm, 3);
    assert_eq!(high_quality.binding, vec![Resource::SharedMemory]);
    assert_eq!(limit(&high_quality, Resource::Registers), Some(4));
    assert_eq!(high_quality.shared_memory_per_block, 14_592);
}

#[test]
fn imgvf_does_not_fit_on_gt200() {
    let gt200 = presets::gt200_fx5800().limits;
    let o = compute(&gt200, &OccupancyInput::new(320, 52).with_static_shared_memory(14_560)).unwrap();
    assert_eq!(o.blocks_per_sm, 0);
    assert_eq!(o.binding, vec![Resource::Registers]);
    assert_eq!(o.registers_per_block, 16_896);
    let why = alloc::format!("{}", o.misfits[0]);
    assert!(why.starts_with("registers: 52 registers × 320 threads allocate 16896"), "{why}");
}

#[test]
fn gt200_allocates_registers_per_block_of_even_warps() {
    let o = on(SmVersion::Sm13, &OccupancyInput::new(32, 10));
    assert_eq!(o.registers_per_block, 1024, "10 × 32 × 2 warps = 640, rounded to 512s");
    assert_eq!(limit(&o, Resource::Warps), Some(16), "one warp allocates two warp slots");
    assert_eq!(o.blocks_per_sm, 8);
    assert_eq!(o.occupancy, 0.25);
    assert_eq!(on(SmVersion::Sm13, &OccupancyInput::new(512, 1)).blocks_per_sm, 2);
    assert_eq!(on(SmVersion::Sm13, &OccupancyInput::new(513, 1)).blocks_per_sm, 0);
    assert_eq!(on(SmVersion::Sm13, &OccupancyInput::new(64, 125)).blocks_per_sm, 0);
    let smem = on(SmVersion::Sm13, &OccupancyInput::new(64, 8).with_static_shared_memory(4097));
    assert_eq!((smem.shared_memory_per_block, smem.blocks_per_sm), (4608, 3));
}

#[test]
fn fermi_uses_128_register_units_for_eight_counts() {
    let sm = SmVersion::Sm20.limits();
    for regs in 1..=63u32 {
        let wide = nvidia::FERMI_WIDE_UNIT_REGISTERS.contains(&regs);
        let unit = if wide { 128 } else { 64 };
        let expected = (u64::from(regs) * 32).div_ceil(unit) * unit;
        assert_eq!(registers_per_warp(&sm, regs), expected, "{regs} registers");
    }
    for regs in [21, 22, 29, 30, 37, 38, 45, 46] {
        assert_eq!(registers_per_warp(&sm, regs) % 128, 0, "{regs}");
        assert_ne!(registers_per_warp(&sm, regs), u64::from(regs) * 32, "{regs}: rounded up");
    }
    // 45 registers, 7 warps: 1536 per warp → 10 warps per sub-partition → 20 warps → 2 blocks
    // (with 64-register units it would be 1472 → 11 → 22 → 3 blocks).
    assert_eq!(on(SmVersion::Sm20, &OccupancyInput::new(224, 45)).blocks_per_sm, 2);
    assert_eq!(on(SmVersion::Sm20, &OccupancyInput::new(224, 44)).blocks_per_sm, 3);
    assert_eq!(on(SmVersion::Sm20, &OccupancyInput::new(32, 64)).blocks_per_sm, 0, "63 is the limit");
    assert_eq!(on(SmVersion::Sm20, &OccupancyInput::new(1024, 32)).blocks_per_sm, 1);
    assert_eq!(on(SmVersion::Sm20, &OccupancyInput::new(1024, 33)).blocks_per_sm, 0);
}

#[test]
fn fermi_cache_preference_picks_16_or_48_kb() {
    let prefer_l1 = |bytes| OccupancyInput {
        cache_preference: CachePreference::L1,
        ..OccupancyInput::new(64, 8).with_static_shared_memory(bytes)
    };
    let small = on(SmVersion::Sm20, &prefer_l1(8 * 1024));
    assert_eq!((small.shared_memory_per_sm, small.blocks_per_sm), (16 * 1024, 2));
    let large = on(SmVersion::Sm20, &prefer_l1(20 * 1024));
    assert_eq!((large.shared_memory_per_sm, large.blocks_per_sm), (48 * 1024, 2), "falls back to 48 KB");
    let equal = OccupancyInput { cache_preference: CachePreference::Equal, ..prefer_l1(8 * 1024) };
    assert_eq!(on(SmVersion::Sm20, &equal).shared_memory_per_sm, 48 * 1024);
}

#[test]
fn kepler_cache_preferences() {
    let with = |pref| OccupancyInput { cache_preference: pref, ..OccupancyInput::new(64, 8) };
    let per_sm = |v, pref| on(v, &with(pref).with_static_shared_memory(1)).shared_memory_per_sm / 1024;
    assert_eq!(per_sm(SmVersion::Sm35, CachePreference::None), 48);
    assert_eq!(per_sm(SmVersion::Sm35, CachePreference::L1), 16);
    assert_eq!(per_sm(SmVersion::Sm35, CachePreference::Equal), 32);
    assert_eq!(per_sm(SmVersion::Sm37, CachePreference::L1), 80);
    assert_eq!(per_sm(SmVersion::Sm37, CachePreference::Equal), 96);
    assert_eq!(per_sm(SmVersion::Sm37, CachePreference::Shared), 112);
    assert_eq!(on(SmVersion::Sm35, &OccupancyInput::new(64, 0)).limit(Resource::Registers).unwrap().blocks, None);
}

#[test]
fn maxwell_and_pascal_limits() {
    // 5.2: 32 K registers per block: 1024 threads × 32 registers fit, × 33 do not.
    assert_eq!(on(SmVersion::Sm52, &OccupancyInput::new(1024, 32)).blocks_per_sm, 2);
    assert_eq!(on(SmVersion::Sm52, &OccupancyInput::new(1024, 33)).blocks_per_sm, 0);
    assert_eq!(on(SmVersion::Sm50, &OccupancyInput::new(1024, 64)).blocks_per_sm, 1);
    assert_eq!(on(SmVersion::Sm61, &OccupancyInput::new(32, 256)).blocks_per_sm, 0, "255 is the limit");
    // 6.0 has two sub-partitions but refuses what GP10x (four) cannot run: 144 registers × 14 warps
    // pass 64512 ≤ 65536 with 2 sub-partitions, but 4608 × 16 = 73728 with 4.
    let gp100 = on(SmVersion::Sm60, &OccupancyInput::new(448, 144));
    assert_eq!(gp100.blocks_per_sm, 0);
    let alone = SmLimits { also_fit_sub_partitions: None, ..SmVersion::Sm60.limits() };
    assert_eq!(nvidia::compute(&alone, &OccupancyInput::new(448, 144)).unwrap().blocks_per_sm, 1);
    assert_eq!(on(SmVersion::Sm61, &OccupancyInput::new(448, 144)).blocks_per_sm, 0);
}

#[test]
fn sub_partitions_round_warps() {
    // 192 registers: 6144 per warp, 2 warps per 16384-register sub-partition → 8 warps, not 10.
    let o = on(SmVersion::Sm70, &OccupancyInput::new(64, 192));
    assert_eq!((limit(&o, Resource::Registers), o.blocks_per_sm), (Some(4), 4));
    // Hardware check: 136 registers × 15 warps = 65280 ≤ 65536, but 15 warps count as 16.
    let o = on(SmVersion::Sm70, &OccupancyInput::new(480, 136));
    assert_eq!(o.blocks_per_sm, 0);
    assert!(matches!(o.misfits[0], Misfit::RegistersPerBlock { allocated: 69632, limit: 65536, .. }));
    assert_eq!(on(SmVersion::Sm70, &OccupancyInput::new(512, 128)).blocks_per_sm, 1);
    assert_eq!(on(SmVersion::Sm70, &OccupancyInput::new(32, 256)).blocks_per_sm, 8, "256 allowed on 7.x");
    assert_eq!(on(SmVersion::Sm70, &OccupancyInput::new(32, 257)).blocks_per_sm, 0);
}

#[test]
fn volta_and_turing_carveouts() {
    let kernel = |percent| OccupancyInput {
        carveout_percent: percent,
        ..OccupancyInput::new(64, 16).with_static_shared_memory(20 * 1024)
    };
    let v = |p| {
        let o = on(SmVersion::Sm70, &kernel(p));
        (o.shared_memory_per_sm / 1024, o.blocks_per_sm)
    };
    assert_eq!(v(None), (96, 4));
    assert_eq!(v(Some(50)), (64, 3), "48 KB rounds up to the 64 KB step");
    assert_eq!(v(Some(0)), (32, 1), "a carve-out too small for one block grows to fit one");
    assert_eq!(v(Some(100)), (96, 4));
    let t = on(SmVersion::Sm75, &kernel(Some(0)));
    assert_eq!((t.shared_memory_per_sm / 1024, t.blocks_per_sm), (32, 1), "Turing's smallest step is 32 KB");
    let l1 = OccupancyInput { cache_preference: CachePreference::L1, ..kernel(None) };
    assert_eq!(on(SmVersion::Sm75, &l1).shared_memory_per_sm, 32 * 1024);
    let bad = nvidia::compute(&SmVersion::Sm70.limits(), &kernel(Some(101)));
    assert_eq!(bad, Err(OccupancyError::InvalidCarveout { percent: 101 }));
    assert_eq!(on(SmVersion::Sm75, &OccupancyInput::new(1024, 64)).blocks_per_sm, 1);
    assert_eq!(on(SmVersion::Sm75, &OccupancyInput::new(1024, 65)).blocks_per_sm, 0);
}

#[test]
fn ampere_and_hopper_reserve_one_kilobyte_per_block() {
    let o = on(SmVersion::Sm80, &OccupancyInput::new(32, 16));
    assert_eq!((o.shared_memory_per_block, limit(&o, Resource::SharedMemory)), (1024, Some(164)));
    assert_eq!(o.binding, vec![Resource::Blocks]);
    let fits = on(SmVersion::Sm86, &OccupancyInput::new(128, 32).with_static_shared_memory(48 * 1024));
    assert_eq!((fits.shared_memory_per_block, fits.blocks_per_sm), (49 * 1024, 2));
    let over = on(SmVersion::Sm86, &OccupancyInput::new(128, 32).with_static_shared_memory(48 * 1024 + 1));
    assert_eq!(over.blocks_per_sm, 0);
    assert!(matches!(over.misfits[0], Misfit::SharedMemoryPerBlock { limit: 50176, .. }));
    let ada = on(SmVersion::Sm89, &OccupancyInput::new(32, 16));
    assert_eq!((ada.blocks_per_sm, ada.max_warps_per_sm), (24, 48));
    assert_eq!(on(SmVersion::Sm87, &OccupancyInput::new(32, 16)).blocks_per_sm, 16);
}

#[test]
fn opt_in_dynamic_shared_memory() {
    let dynamic = |max| OccupancyInput {
        max_dynamic_shared_memory: max,
        ..OccupancyInput::new(256, 32).with_dynamic_shared_memory(100 * 1024)
    };
    assert_eq!(on(SmVersion::Sm90, &dynamic(None)).blocks_per_sm, 0, "above 48 KB without opting in");
    let o = on(SmVersion::Sm90, &dynamic(Some(100 * 1024)));
    assert_eq!((o.shared_memory_per_block, o.blocks_per_sm), (101 * 1024, 2));
    let o = on(SmVersion::Sm90, &dynamic(Some(99 * 1024)));
    assert_eq!(o.blocks_per_sm, 0);
    assert!(matches!(o.misfits[0], Misfit::DynamicSharedMemory { .. }));
    let max = on(SmVersion::Sm90, &dynamic(Some(227 * 1024)).with_dynamic_shared_memory(227 * 1024));
    assert_eq!(max.blocks_per_sm, 1);
    let beyond = on(SmVersion::Sm90, &dynamic(Some(228 * 1024)).with_dynamic_shared_memory(227 * 1024 + 1));
    assert_eq!(beyond.blocks_per_sm, 0);
}

#[test]
fn hopper_barriers() {
    let o = on(SmVersion::Sm90, &OccupancyInput { block_barriers: 3, ..OccupancyInput::new(32, 16) });
    assert_eq!((o.blocks_per_sm, o.binding.clone()), (21, vec![Resource::Barriers]));
    let o = on(SmVersion::Sm90, &OccupancyInput { block_barriers: 65, ..OccupancyInput::new(32, 16) });
    assert_eq!(o.blocks_per_sm, 0);
    let none = on(SmVersion::Sm90, &OccupancyInput { block_barriers: 0, ..OccupancyInput::new(32, 16) });
    assert_eq!(none.limit(Resource::Barriers), None);
    assert_eq!(on(SmVersion::Sm80, &OccupancyInput::new(32, 16)).limit(Resource::Barriers), None);
}

#[test]
fn absurd_inputs_are_values() {
    for version in SmVersion::ALL {
        let sm = version.limits();
        assert_eq!(nvidia::compute(&sm, &OccupancyInput::new(0, 32)), Err(OccupancyError::ZeroThreads));
        let huge = OccupancyInput::new(u32::MAX, u32::MAX).with_static_shared_memory(u64::MAX);
        let o = nvidia::compute(&sm, &huge.with_dynamic_shared_memory(u64::MAX)).unwrap();
        assert_eq!(o.blocks_per_sm, 0, "{}", sm.compute_capability);
        assert!(o.misfits.len() >= 3, "{:?}", o.misfits);
        assert!(o.binding.contains(&Resource::Warps));
        let ok = nvidia::compute(&sm, &OccupancyInput::new(32, 1)).unwrap();
        assert!(ok.blocks_per_sm > 0 && ok.misfits.is_empty());
    }
    let broken = SmLimits { warp_size: 0, ..SmVersion::Sm70.limits() };
    assert!(matches!(nvidia::compute(&broken, &OccupancyInput::new(32, 1)), Err(OccupancyError::InvalidDevice { .. })));
}

#[test]
fn compute_capability_table() {
    assert_eq!(SmVersion::parse("8.6"), Some(SmVersion::Sm86));
    assert_eq!(SmVersion::parse(" 1.3 "), Some(SmVersion::Sm13));
    assert_eq!(SmVersion::parse("2.1"), None);
    assert_eq!(SmVersion::parse("10.0"), None);
    let warps: alloc::vec::Vec<u32> = SmVersion::ALL.iter().map(|v| v.limits().max_warps_per_sm()).collect();
    assert_eq!(warps, [32, 48, 64, 64, 64, 64, 64, 64, 64, 64, 64, 64, 64, 64, 32, 64, 48, 48, 48, 64]);
    for v in SmVersion::ALL {
        let sm = v.limits();
        assert_eq!(SmVersion::from_compute_capability(sm.compute_capability), Some(v));
        assert!(sm.shared_memory_per_block_optin + sm.reserved_shared_memory_per_block <= sm.shared_memory_per_sm);
    }
}

#[test]
fn every_compute_capability_at_its_edges() {
    // (version, largest register count a maximum-size block may use, blocks of 256 threads × 16
    // registers, which reach full occupancy everywhere)
    let table = [
        (SmVersion::Sm13, 32, 4),
        (SmVersion::Sm20, 32, 6),
        (SmVersion::Sm30, 64, 8),
        (SmVersion::Sm32, 64, 8),
        (SmVersion::Sm35, 64, 8),
        (SmVersion::Sm37, 64, 8),
        (SmVersion::Sm50, 64, 8),
        (SmVersion::Sm52, 32, 8),
        (SmVersion::Sm53, 32, 8),
        (SmVersion::Sm60, 64, 8),
        (SmVersion::Sm61, 64, 8),
        (SmVersion::Sm62, 32, 8),
        (SmVersion::Sm70, 64, 8),
        (SmVersion::Sm72, 64, 8),
        (SmVersion::Sm75, 64, 4),
        (SmVersion::Sm80, 64, 8),
        (SmVersion::Sm86, 64, 6),
        (SmVersion::Sm87, 64, 6),
        (SmVersion::Sm89, 64, 6),
        (SmVersion::Sm90, 64, 8),
    ];
    for (version, max_regs, blocks) in table {
        let sm = version.limits();
        let cc = sm.compute_capability;
        let largest = sm.max_threads_per_block;
        assert!(on(version, &OccupancyInput::new(largest, max_regs)).blocks_per_sm >= 1, "{cc}");
        let over = on(version, &OccupancyInput::new(largest, max_regs + 1));
        assert_eq!((over.blocks_per_sm, over.binding.clone()), (0, vec![Resource::Registers]), "{cc}");
        assert_eq!(on(version, &OccupancyInput::new(largest + 1, 1)).blocks_per_sm, 0, "{cc}");
        let full = on(version, &OccupancyInput::new(256, 16));
        assert_eq!((full.blocks_per_sm, full.occupancy), (blocks, 1.0), "{cc}");
    }
}
