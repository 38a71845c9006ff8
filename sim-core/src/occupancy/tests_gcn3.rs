//! GCN3 dispatch limits: Wyse's Table 2, one row per application.
#![allow(clippy::unwrap_used, reason = "tests fail loudly on unexpected errors")]

use alloc::vec;

use super::*;
use crate::gpu::presets;

/// One row of Wyse's Table 2: the kernel's resources and the paper's workgroups per CU by wave
/// slots, VGPRs and SGPRs. The paper gives only the limits; the inputs are reconstructed (workgroup
/// size from the WF column, VGPR and SGPR counts any in the range that gives the paper's numbers).
struct Row {
    app: &'static str,
    work_items: u32,
    vgprs: u32,
    sgprs: u32,
    wf: u32,
    vgpr: u32,
    sgpr: u32,
    limiter: Resource,
}

const TABLE_2: [Row; 9] = [
    Row { app: "Array-BW", work_items: 1024, vgprs: 40, sgprs: 8, wf: 2, vgpr: 1, sgpr: 12, limiter: Resource::Vgprs },
    Row {
        app: "Bitonic-Sort",
        work_items: 1024,
        vgprs: 16,
        sgprs: 8,
        wf: 2,
        vgpr: 4,
        sgpr: 12,
        limiter: Resource::WaveSlots,
    },
    Row { app: "CoMD", work_items: 64, vgprs: 36, sgprs: 16, wf: 40, vgpr: 28, sgpr: 100, limiter: Resource::Vgprs },
    Row { app: "FFT", work_items: 64, vgprs: 84, sgprs: 24, wf: 40, vgpr: 12, sgpr: 66, limiter: Resource::Vgprs },
    Row { app: "HPGMG", work_items: 1024, vgprs: 64, sgprs: 24, wf: 2, vgpr: 1, sgpr: 4, limiter: Resource::Vgprs },
    Row { app: "MD", work_items: 1024, vgprs: 48, sgprs: 16, wf: 2, vgpr: 1, sgpr: 6, limiter: Resource::Vgprs },
    Row { app: "SNAP", work_items: 64, vgprs: 72, sgprs: 16, wf: 40, vgpr: 14, sgpr: 100, limiter: Resource::Vgprs },
    Row {
        app: "SpMV",
        work_items: 128,
        vgprs: 24,
        sgprs: 8,
        wf: 20,
        vgpr: 21,
        sgpr: 100,
        limiter: Resource::WaveSlots,
    },
    Row { app: "XSBench", work_items: 256, vgprs: 64, sgprs: 16, wf: 10, vgpr: 4, sgpr: 25, limiter: Resource::Vgprs },
];

#[test]
fn wyse_table_2() {
    let cu = presets::gcn3_cu().limits;
    for row in &TABLE_2 {
        let input = OccupancyInput::new(row.work_items, row.vgprs).with_scalar_registers(row.sgprs);
        let o = compute(&cu, &input).unwrap();
        let by = |r| o.limit(r).unwrap().blocks;
        assert_eq!(by(Resource::WaveSlots), Some(row.wf), "{} WF", row.app);
        assert_eq!(by(Resource::Vgprs), Some(row.vgpr), "{} VGPR", row.app);
        assert_eq!(by(Resource::Sgprs), Some(row.sgpr), "{} SGPR", row.app);
        assert_eq!(by(Resource::Lds), None, "{} uses no LDS", row.app);
        assert_eq!(o.binding, vec![row.limiter], "{} limiter", row.app);
        assert_eq!(o.blocks_per_sm, row.wf.min(row.vgpr).min(row.sgpr), "{}", row.app);
    }
}

#[test]
fn fft_needs_sgprs_in_groups_of_eight() {
    // 33 one-wave workgroups per 800-SGPR file need 24 allocated SGPRs (Table 2: 66 per CU).
    let mut cu = presets::gcn3_cu().limits;
    let input = OccupancyInput::new(64, 84).with_scalar_registers(24);
    assert_eq!(compute(&cu, &input).unwrap().limit(Resource::Sgprs).unwrap().blocks, Some(66));
    if let ResidencyLimits::Gcn3(limits) = &mut cu {
        limits.sgpr_allocation_granularity = 16;
    }
    assert_eq!(compute(&cu, &input).unwrap().limit(Resource::Sgprs).unwrap().blocks, Some(50));
}

#[test]
fn wyse_twice_the_vgprs() {
    // Wyse §7.2: 1024 VGPRs per SIMD lifts the VGPR-limited kernels (CoMD 28 → 56 workgroups).
    let mut cu = presets::gcn3_cu().limits;
    if let ResidencyLimits::Gcn3(limits) = &mut cu {
        limits.vgprs_per_simd = 1024;
    }
    let comd = compute(&cu, &OccupancyInput::new(64, 36).with_scalar_registers(16)).unwrap();
    assert_eq!(comd.limit(Resource::Vgprs).unwrap().blocks, Some(56));
    assert_eq!(comd.blocks_per_sm, 40);
    assert_eq!(comd.binding, vec![Resource::WaveSlots]);
}

#[test]
fn lds_and_misfits() {
    let cu = presets::gcn3_cu().limits;
    let lds = compute(&cu, &OccupancyInput::new(256, 16).with_static_shared_memory(10_000)).unwrap();
    assert_eq!((lds.shared_memory_per_block, lds.limit(Resource::Lds).unwrap().blocks), (10_240, Some(6)));
    assert_eq!(lds.occupancy, 24.0 / 40.0);
    let too_big = compute(&cu, &OccupancyInput::new(1088, 16)).unwrap();
    assert_eq!(too_big.blocks_per_sm, 0);
    assert!(matches!(too_big.misfits[0], Misfit::BlockTooLarge { threads: 1088, max: 1024 }));
    let regs = compute(&cu, &OccupancyInput::new(64, 257).with_scalar_registers(103)).unwrap();
    assert_eq!(regs.misfits.len(), 2);
    assert_eq!(compute(&cu, &OccupancyInput::new(0, 1)), Err(OccupancyError::ZeroThreads));
    let lds_over = compute(&cu, &OccupancyInput::new(64, 1).with_static_shared_memory(65 * 1024)).unwrap();
    assert_eq!(lds_over.binding, vec![Resource::Lds]);
}
