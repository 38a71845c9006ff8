//! Volta and Hopper presets: the V100 of Angerd et al.'s §7 scaling discussion (cc 7.0) and an H100
//! as today's reference (cc 9.0).
//!
//! ```text
//! volta-v100: 80 SMs, 4 sub-cores × (4 banks, 2 collectors), 96 KB shared, 6 MB L2, HBM2
//! hopper-h100: 132 SMs at 1.98 GHz, 228 KB shared, 1 KB reserved per block, 50 MB L2, HBM3
//! ```

use alloc::string::String;

use super::{gpgpusim, op, KIB, MIB};
use crate::gpu::compute_capability::SmVersion;
use crate::gpu::config::{CoreConfig, GpuConfig, RegisterFileConfig, SchedulerConfig, SchedulingPolicy};
use crate::gpu::execution::{ExecutionConfig, ExecutionUnits};
use crate::gpu::limits::ResidencyLimits;
use crate::gpu::memory::{CacheConfig, DramConfig, MemoryConfig, SharedMemoryTiming};

/// Tesla V100, from GPGPU-Sim's `configs/tested-cfgs/SM7_QV100` (dev branch) and GPUS.md.
pub fn volta_v100() -> GpuConfig {
    GpuConfig {
        name: String::from("volta-v100"),
        description: String::from(
            "Tesla V100 (GV100, cc 7.0): the Volta of Angerd et al. §7; timing from GPGPU-Sim's SM7_QV100 config",
        ),
        core: CoreConfig {
            sm_count: 80,           // GPUS.md, GPGPU-Sim SM7_QV100 `gpgpu_n_clusters 80`
            core_clock_mhz: 1132.0, // GPUS.md (SM7_QV100's master-branch clock domain)
            sub_cores: 4,           // Angerd §7: four processing blocks per SM
        },
        limits: ResidencyLimits::Nvidia(SmVersion::Sm70.limits()),
        register_file: RegisterFileConfig {
            banks: 16,               // GPUS.md (4 per sub-core), SM7_QV100 `gpgpu_num_reg_banks 16`
            bank_width_bits: 1024,   // one warp register
            entries_per_bank: 128,   // 65536 registers / 32 lanes / 16 banks (Angerd §7: 4 × 64 KB)
            read_ports_per_bank: 1,  // SCHEMES.md §0
            write_ports_per_bank: 1, // SCHEMES.md §0
            collector_units: 8,      // GPUS.md, SM7_QV100 `gpgpu_operand_collector_num_units_gen 8`
            writeback_width: 8,      // SM7_QV100: EX_WB pipeline width 8
        },
        scheduler: SchedulerConfig {
            schedulers_per_sm: 4,          // SM7_QV100 `gpgpu_num_sched_per_core 4`
            policy: SchedulingPolicy::Lrr, // GPUS.md, SM7_QV100 `gpgpu_scheduler lrr`
            issue_width: 1,                // SM7_QV100 `gpgpu_max_insn_issue_per_warp 1`
            dual_issue: false,
        },
        execution: ExecutionConfig {
            simd_width: 16, // Volta sub-core: 16 FP32 lanes, a warp every 2 cycles
            // SM7_QV100: 4 SP, INT, DP, SFU and tensor units; GPGPU-Sim has one LD/ST unit.
            units: ExecutionUnits { sp: 4, int: 4, dp: 4, sfu: 4, tensor: 4, ldst: 1 },
            // SM7_QV100: latency 4,13,4,5,145; initiation 2,2,2,2,8.
            int: gpgpusim([4, 13, 4, 5, 145], [2, 2, 2, 2, 8]),
            // SM7_QV100: latency 4,13,4,5,39; initiation 2,2,2,2,4.
            fp32: gpgpusim([4, 13, 4, 5, 39], [2, 2, 2, 2, 4]),
            // SM7_QV100: latency 8,19,8,8,330; initiation 4,4,4,4,130.
            fp64: gpgpusim([8, 19, 8, 8, 330], [4, 4, 4, 4, 130]),
            sfu: op(100, 8),          // SM7_QV100 `-ptx_opcode_latency_sfu 100`, initiation 8
            tensor: Some(op(64, 64)), // SM7_QV100 tensor latency 64, initiation 64
        },
        memory: MemoryConfig {
            // V100: 128 KB unified L1/shared per SM; SM7_QV100 `dl1 S:4:128:64`, 512 MSHRs,
            // `gpgpu_l1_latency 20`.
            l1d: Some(CacheConfig {
                size_bytes: 128 * KIB,
                line_bytes: 128,
                associativity: 64,
                hit_latency: 20,
                mshrs: 512,
            }),
            // SM7_QV100 `dl2 S:32:128:24,…,A:192:4` per slice × 64 slices (32 channels × 2
            // sub-partitions) = 6 MB and 192 × 64 MSHRs; `gpgpu_l2_rop_latency 160`.
            l2: Some(CacheConfig {
                size_bytes: 6 * MIB,
                line_bytes: 128,
                associativity: 24,
                hit_latency: 160,
                mshrs: 192 * 64,
            }),
            dram: DramConfig {
                latency: 100,              // SM7_QV100 `dram_latency 100`
                bandwidth_gb_per_s: 900.0, // V100 SXM2 HBM2 (NVIDIA V100 datasheet)
                channels: 32,              // SM7_QV100 `gpgpu_n_mem 32`
            },
            // SM7_QV100: 32 banks, `gpgpu_smem_latency 20`.
            shared: SharedMemoryTiming { banks: 32, bank_width_bytes: 4, latency: 20 },
            coalescing_bytes: 128,
        },
    }
}

/// H100 SXM5. GPGPU-Sim/Accel-Sim ship no Hopper config: ALU timing follows their Ampere
/// SM86_RTX3070 config, FP64 the V100's (Hopper has full-rate FP64), all marked **A**.
pub fn hopper_h100() -> GpuConfig {
    GpuConfig {
        name: String::from("hopper-h100"),
        description: String::from(
            "H100 SXM5 (GH100, cc 9.0): today's reference; NVIDIA H100 whitepaper, timing assumed from \
             GPGPU-Sim's SM86_RTX3070 and SM7_QV100 configs",
        ),
        core: CoreConfig {
            sm_count: 132,          // GPUS.md, H100 SXM5
            core_clock_mhz: 1980.0, // GPUS.md (H100 SXM5 boost clock)
            sub_cores: 4,           // H100 whitepaper: four processing blocks per SM
        },
        // 228 KB shared per SM, 227 KB per block opt-in, 1 KB reserved per block: cc 9.0 limits.
        limits: ResidencyLimits::Nvidia(SmVersion::Sm90.limits()),
        register_file: RegisterFileConfig {
            banks: 16,               // **A** (GPUS.md)
            bank_width_bits: 1024,   // one warp register
            entries_per_bank: 128,   // 65536 registers / 32 lanes / 16 banks
            read_ports_per_bank: 1,  // SCHEMES.md §0
            write_ports_per_bank: 1, // SCHEMES.md §0
            collector_units: 8,      // **A** (GPUS.md)
            writeback_width: 8,      // **A** (as Accel-Sim's Volta/Ampere configs)
        },
        scheduler: SchedulerConfig {
            schedulers_per_sm: 4,          // H100 whitepaper: one warp scheduler per processing block
            policy: SchedulingPolicy::Lrr, // **A** (GPUS.md)
            issue_width: 1,                // H100 whitepaper: one warp instruction per clock per block
            dual_issue: false,
        },
        execution: ExecutionConfig {
            simd_width: 32, // H100 whitepaper: 32 FP32 lanes per processing block
            // One of each per processing block (H100 whitepaper); one LD/ST unit as GPGPU-Sim models it.
            units: ExecutionUnits { sp: 4, int: 4, dp: 4, sfu: 4, tensor: 4, ldst: 1 },
            // **A** SM86_RTX3070: latency 4,4,4,4,21; initiation 2,2,2,2,2.
            int: gpgpusim([4, 4, 4, 4, 21], [2, 2, 2, 2, 2]),
            // **A** SM86_RTX3070: latency 4,4,4,4,39; initiation 1,1,1,1,2.
            fp32: gpgpusim([4, 4, 4, 4, 39], [1, 1, 1, 1, 2]),
            // **A** SM7_QV100 (full-rate FP64): latency 8,19,8,8,330; initiation 4,4,4,4,130.
            fp64: gpgpusim([8, 19, 8, 8, 330], [4, 4, 4, 4, 130]),
            sfu: op(21, 8),           // **A** SM86_RTX3070 `-ptx_opcode_latency_sfu 21`, initiation 8
            tensor: Some(op(64, 64)), // **A** SM86_RTX3070 tensor latency 64, initiation 64
        },
        memory: MemoryConfig {
            // H100 whitepaper: 256 KB unified L1/shared per SM; 256 ways, 384 MSHRs and latency 39 from
            // SM86_RTX3070 `dl1 S:4:128:256,…,A:384:48`, `gpgpu_l1_latency 39` (**A**).
            l1d: Some(CacheConfig {
                size_bytes: 256 * KIB,
                line_bytes: 128,
                associativity: 256,
                hit_latency: 39,
                mshrs: 384,
            }),
            // H100 SXM5: 50 MB L2; 16-way, latency 187 and 192 MSHRs per slice from SM86_RTX3070
            // (**A**), × 64 slices as the V100's HBM slicing (**A**: H100's slice count is not published).
            l2: Some(CacheConfig {
                size_bytes: 50 * MIB,
                line_bytes: 128,
                associativity: 16,
                hit_latency: 187,
                mshrs: 192 * 64,
            }),
            dram: DramConfig {
                latency: 254,               // **A** SM86_RTX3070 `dram_latency 254`
                bandwidth_gb_per_s: 3350.0, // H100 SXM5 HBM3 (NVIDIA H100 datasheet)
                channels: 10,               // H100 whitepaper: ten 512-bit memory controllers
            },
            // 32 banks (Programming Guide); latency 29 from SM86_RTX3070 (**A**).
            shared: SharedMemoryTiming { banks: 32, bank_width_bytes: 4, latency: 29 },
            coalescing_bytes: 128,
        },
    }
}
