//! Maxwell and Turing presets: FineReg's GTX 980 (GM204, cc 5.2) and DeMO's RTX 2060 (TU106,
//! cc 7.5).
//!
//! ```text
//! maxwell-gtx980: 16 SMs at 1126 MHz, 4 GTO schedulers, 96 KB shared, 2 MB L2, 352.5 GB/s
//! turing-rtx2060: 30 SMs at 1365 MHz, 4 sub-cores × (2 banks, 2 collectors), LRR
//! ```

use alloc::string::String;

use super::{gpgpusim, op, KIB, MIB};
use crate::gpu::compute_capability::SmVersion;
use crate::gpu::config::{CoreConfig, GpuConfig, RegisterFileConfig, SchedulerConfig, SchedulingPolicy};
use crate::gpu::execution::{ExecutionConfig, ExecutionUnits};
use crate::gpu::limits::ResidencyLimits;
use crate::gpu::memory::{CacheConfig, DramConfig, MemoryConfig, SharedMemoryTiming};

/// FineReg's baseline: GPGPU-Sim "configured to simulate GTX 980-like microarchitecture" (Oh et
/// al., Table I). GPGPU-Sim ships no GTX 980 config: ALU timing comes from its Maxwell
/// GeForceGTX750Ti config, memory latencies from its Pascal SM6_TITANX config (**A**).
pub fn maxwell_gtx980() -> GpuConfig {
    GpuConfig {
        name: String::from("maxwell-gtx980"),
        description: String::from(
            "GeForce GTX 980 (GM204, cc 5.2): FineReg's baseline (Oh et al., Table I); ALU timing from \
             GPGPU-Sim's GeForceGTX750Ti (Maxwell) config, memory latencies from SM6_TITANX",
        ),
        core: CoreConfig {
            sm_count: 16,           // FineReg Table I
            core_clock_mhz: 1126.0, // FineReg Table I
            sub_cores: 4,           // GM204 whitepaper: 4 processing blocks per SMM, one scheduler each
        },
        // FineReg Table I (64 warps, 2048 threads, 32 CTAs, 256 KB registers, 96 KB shared) =
        // NVIDIA's cc 5.2 limits.
        limits: ResidencyLimits::Nvidia(SmVersion::Sm52.limits()),
        register_file: RegisterFileConfig {
            banks: 16,               // **A** (GPUS.md; GPGPU-Sim GeForceGTX750Ti `gpgpu_num_reg_banks 16`)
            bank_width_bits: 1024,   // one warp register (32 lanes × 32 bits)
            entries_per_bank: 128,   // 65536 registers / 32 lanes / 16 banks
            read_ports_per_bank: 1,  // SCHEMES.md §0
            write_ports_per_bank: 1, // SCHEMES.md §0
            collector_units: 8,      // **A** (GPUS.md)
            writeback_width: 2,      // GPGPU-Sim GeForceGTX750Ti: EX_WB pipeline width 2
        },
        scheduler: SchedulerConfig {
            schedulers_per_sm: 4,          // FineReg Table I
            policy: SchedulingPolicy::Gto, // FineReg Table I
            issue_width: 2,                // GPGPU-Sim GeForceGTX750Ti `gpgpu_max_insn_issue_per_warp 2`
            dual_issue: true,              // Maxwell dual-issues to different units (same config)
        },
        execution: ExecutionConfig {
            simd_width: 32, // FineReg Table I ("SIMD width 32")
            // GM204 whitepaper: per processing block one 32-lane SP, one SFU and one LD/ST pipeline;
            // FP64 on a shared DP unit (**A**: one pipeline per block).
            units: ExecutionUnits { sp: 4, int: 0, dp: 4, sfu: 4, tensor: 0, ldst: 4 },
            // GPGPU-Sim GeForceGTX750Ti: latency 6,12,13,13,210; initiation 1,1,1,1,4.
            int: gpgpusim([6, 12, 13, 13, 210], [1, 1, 1, 1, 4]),
            // GPGPU-Sim GeForceGTX750Ti: latency 6,12,6,6,374; initiation 1,1,1,1,4.
            fp32: gpgpusim([6, 12, 6, 6, 374], [1, 1, 1, 1, 4]),
            // GPGPU-Sim GeForceGTX750Ti: latency 8,19,8,8,330; initiation 8,16,8,8,130.
            fp64: gpgpusim([8, 19, 8, 8, 330], [8, 16, 8, 8, 130]),
            sfu: op(8, 8), // GPGPU-Sim defaults (the GTX750Ti config sets none)
            tensor: None,
        },
        memory: MemoryConfig {
            // FineReg Table I: 48 KB, 8-way; 128-byte lines; hit latency 82 and 256 MSHRs from
            // GPGPU-Sim SM6_TITANX (**A**).
            l1d: Some(CacheConfig {
                size_bytes: 48 * KIB,
                line_bytes: 128,
                associativity: 8,
                hit_latency: 82,
                mshrs: 256,
            }),
            // FineReg Table I: 2048 KB, 8-way; latency 120 and 256 MSHRs per slice × 24 slices (12
            // channels × 2 sub-partitions) from SM6_TITANX (**A**).
            l2: Some(CacheConfig {
                size_bytes: 2 * MIB,
                line_bytes: 128,
                associativity: 8,
                hit_latency: 120,
                mshrs: 256 * 24,
            }),
            dram: DramConfig {
                latency: 100,              // GPGPU-Sim SM6_TITANX `dram_latency 100` (**A**)
                bandwidth_gb_per_s: 352.5, // FineReg Table I
                channels: 4,               // GM204 whitepaper: four 64-bit memory controllers
            },
            // 32 banks (cc 5.x, Programming Guide); latency 24 from GPGPU-Sim SM6_TITANX (**A**).
            shared: SharedMemoryTiming { banks: 32, bank_width_bytes: 4, latency: 24 },
            coalescing_bytes: 128,
        },
    }
}

/// DeMO's baseline: Accel-Sim's RTX 2060 (Mohammadpur-Fard et al., §II and Table I), i.e.
/// gpgpu-sim_distribution `configs/tested-cfgs/SM75_RTX2060` (dev branch).
pub fn turing_rtx2060() -> GpuConfig {
    GpuConfig {
        name: String::from("turing-rtx2060"),
        description: String::from(
            "GeForce RTX 2060 (TU106, cc 7.5): DeMO's baseline (Table I); everything else from Accel-Sim's \
             SM75_RTX2060 config",
        ),
        core: CoreConfig {
            sm_count: 30,           // RTX 2060 and Accel-Sim `gpgpu_n_clusters 30` (DeMO Table I says 72)
            core_clock_mhz: 1365.0, // Accel-Sim SM75_RTX2060 `gpgpu_clock_domains 1365:…`
            sub_cores: 4,           // DeMO Table I ("Subcores/SM 4")
        },
        limits: ResidencyLimits::Nvidia(SmVersion::Sm75.limits()),
        register_file: RegisterFileConfig {
            banks: 8,                // DeMO Table I ("RF banks/SM 8"), Accel-Sim `gpgpu_num_reg_banks 8`
            bank_width_bits: 1024,   // one warp register
            entries_per_bank: 256,   // 65536 registers / 32 lanes / 8 banks
            read_ports_per_bank: 1,  // SCHEMES.md §0 (Accel-Sim's `reg_file_port_throughput 2` not modelled)
            write_ports_per_bank: 1, // SCHEMES.md §0
            collector_units: 8,      // DeMO Table I ("OC banks/SM 8"), Accel-Sim `operand_collector_num_units_gen 8`
            writeback_width: 8,      // Accel-Sim SM75_RTX2060: EX_WB pipeline width 8
        },
        scheduler: SchedulerConfig {
            schedulers_per_sm: 4,          // Accel-Sim `gpgpu_num_sched_per_core 4`
            policy: SchedulingPolicy::Lrr, // DeMO Table I, Accel-Sim `gpgpu_scheduler lrr`
            issue_width: 1,                // Accel-Sim `gpgpu_max_insn_issue_per_warp 1`
            dual_issue: false,
        },
        execution: ExecutionConfig {
            simd_width: 16, // Turing sub-core: 16 FP32 lanes, a warp every 2 cycles (initiation 2 below)
            // Accel-Sim SM75_RTX2060: 4 SP, INT, DP, SFU and tensor units; GPGPU-Sim has one LD/ST unit.
            units: ExecutionUnits { sp: 4, int: 4, dp: 4, sfu: 4, tensor: 4, ldst: 1 },
            // Accel-Sim SM75_RTX2060: latency 4,4,4,4,21; initiation 2,2,2,2,2.
            int: gpgpusim([4, 4, 4, 4, 21], [2, 2, 2, 2, 2]),
            // Accel-Sim SM75_RTX2060: latency 4,4,4,4,39; initiation 2,2,2,2,4.
            fp32: gpgpusim([4, 4, 4, 4, 39], [2, 2, 2, 2, 4]),
            // Accel-Sim SM75_RTX2060: latency 64,64,64,64,330; initiation 64,64,64,64,130.
            fp64: gpgpusim([64, 64, 64, 64, 330], [64, 64, 64, 64, 130]),
            sfu: op(21, 8),           // Accel-Sim `-ptx_opcode_latency_sfu 21`, initiation 8
            tensor: Some(op(64, 64)), // Accel-Sim `-ptx_opcode_latency_tesnor 64`, initiation 64
        },
        memory: MemoryConfig {
            // DeMO Table I: unified L1 96 KiB (shared memory takes its carve-out from it); Accel-Sim
            // `dl1 S:4:128:64` (64 ways), 256 MSHRs, `gpgpu_l1_latency 32`.
            l1d: Some(CacheConfig {
                size_bytes: 96 * KIB,
                line_bytes: 128,
                associativity: 64,
                hit_latency: 32,
                mshrs: 256,
            }),
            // DeMO Table I: 2 MiB (Accel-Sim's 24 slices × 128 KB would be 3 MB); 16-way, 192 MSHRs
            // per slice × 24 slices, `gpgpu_l2_rop_latency 194`.
            l2: Some(CacheConfig {
                size_bytes: 2 * MIB,
                line_bytes: 128,
                associativity: 16,
                hit_latency: 194,
                mshrs: 192 * 24,
            }),
            dram: DramConfig {
                latency: 96,               // Accel-Sim `dram_latency 96`
                bandwidth_gb_per_s: 336.0, // RTX 2060: 192-bit GDDR6 at 14 Gb/s
                channels: 12,              // Accel-Sim `gpgpu_n_mem 12`
            },
            // Accel-Sim: 32 banks, `gpgpu_smem_latency 30`.
            shared: SharedMemoryTiming { banks: 32, bank_width_bytes: 4, latency: 30 },
            coalescing_bytes: 128,
        },
    }
}
