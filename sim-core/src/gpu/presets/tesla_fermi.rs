//! Tesla and Fermi presets: Gilani's Quadro FX 5800 (GT200, cc 1.3) and Angerd's GTX 480 (GF100,
//! cc 2.0).
//!
//! ```text
//! gt200-fx5800: 30 SMs × 8 lanes, a warp issues over 4 cycles, 8-cycle FMA RAW latency
//! fermi-gtx480: 15 SMs, 2 GTO schedulers, 16 banks × 64 entries × 1024 bits, 16 collectors
//! ```

use alloc::string::String;

use super::{gpgpusim, op, KIB};
use crate::gpu::compute_capability::SmVersion;
use crate::gpu::config::{CoreConfig, GpuConfig, RegisterFileConfig, SchedulerConfig, SchedulingPolicy};
use crate::gpu::execution::{ExecutionConfig, ExecutionUnits};
use crate::gpu::limits::ResidencyLimits;
use crate::gpu::memory::{CacheConfig, DramConfig, MemoryConfig, SharedMemoryTiming};

/// Gilani et al.'s baseline, "similar to the NVIDIA Quadro FX5800" (their §2 and Table 2).
pub fn gt200_fx5800() -> GpuConfig {
    GpuConfig {
        name: String::from("gt200-fx5800"),
        description: String::from(
            "Quadro FX 5800 (GT200, cc 1.3): Gilani et al.'s baseline (their §2, Table 2); \
             latencies from Gilani and GPGPU-Sim's QuadroFX5800 config",
        ),
        core: CoreConfig {
            sm_count: 30,           // Gilani Table 2
            core_clock_mhz: 1300.0, // Gilani Table 2 ("SM Freq 1.30GHz")
            sub_cores: 1,           // one warp scheduler per SM (Gilani §2)
        },
        // Gilani Table 2 (1024 threads, 8 CTAs, 16384 registers per SM) = NVIDIA's cc 1.3 limits.
        limits: ResidencyLimits::Nvidia(SmVersion::Sm13.limits()),
        register_file: RegisterFileConfig {
            banks: 8,                // Gilani §2: 2 SIMT clusters × 4 MRF banks
            bank_width_bits: 128,    // Gilani §2: 128-bit entries (four 32-bit lanes)
            entries_per_bank: 512,   // Gilani §2
            read_ports_per_bank: 1,  // Gilani §2: dual-ported, 1 read + 1 write
            write_ports_per_bank: 1, // Gilani §2
            collector_units: 0,      // GPUS.md: none in Gilani's baseline (operands read from the banks)
            writeback_width: 1,      // GPGPU-Sim QuadroFX5800: EX_WB pipeline width 1
        },
        scheduler: SchedulerConfig {
            schedulers_per_sm: 1,          // Gilani §2
            policy: SchedulingPolicy::Lrr, // Gilani Table 2 ("Round Robin")
            issue_width: 1,                // Gilani §2
            dual_issue: true,              // Gilani §2: FMA + SFU instruction per cycle
        },
        execution: ExecutionConfig {
            simd_width: 8, // Gilani Table 2: a warp issues over 4 cycles on 8 EUs
            // GPGPU-Sim QuadroFX5800: 1 SP and 1 SFU pipeline; GT200 has one DP unit per SM.
            units: ExecutionUnits { sp: 1, int: 0, dp: 1, sfu: 1, tensor: 0, ldst: 1 },
            // Gilani §2: 8-cycle RAW latency for all but double and transcendental instructions,
            // a new warp every 4 cycles; DIV from GPGPU-Sim QuadroFX5800 (145 / 32).
            int: gpgpusim([8, 8, 8, 8, 145], [4, 4, 4, 4, 32]),
            // Gilani §2 as above; DIV from GPGPU-Sim QuadroFX5800 (30 / 5).
            fp32: gpgpusim([8, 8, 8, 8, 30], [4, 4, 4, 4, 5]),
            // GPGPU-Sim QuadroFX5800 `-ptx_opcode_latency_dp 8,8,8,8,335`, initiation 8,8,8,8,130.
            fp64: gpgpusim([8, 8, 8, 8, 335], [8, 8, 8, 8, 130]),
            // Latency: GPGPU-Sim default (8; the config sets none). Initiation: CUDA Programming
            // Guide throughput for cc 1.x, 2 transcendentals per clock per SM → 16 cycles per warp.
            sfu: op(8, 16),
            tensor: None,
        },
        memory: MemoryConfig {
            l1d: None, // GT200 has no L1 data cache (the 16 KB per SM is shared memory)
            // GT200's L2 caches textures only (GPGPU-Sim QuadroFX5800 `dl2_texture_only 1`).
            l2: None,
            dram: DramConfig {
                latency: 440,              // **A**: ≈440 cycles global-load latency (Wong et al., ISPASS 2010, GT200)
                bandwidth_gb_per_s: 102.4, // FX 5800: 512-bit GDDR3 at 1600 MT/s
                channels: 8,               // Gilani Table 2
            },
            // cc 1.x: 16 banks of 4 bytes (Programming Guide); latency **A** ≈38 cycles (Wong et al.).
            shared: SharedMemoryTiming { banks: 16, bank_width_bytes: 4, latency: 38 },
            coalescing_bytes: 128, // cc 1.2/1.3 coalesce into 32/64/128-byte segments (Programming Guide)
        },
    }
}

/// Angerd et al.'s baseline: "the configuration of a Fermi GTX 480 GPU" (their Table 2), run in
/// GPGPU-Sim with its SM2_GTX480 configuration.
pub fn fermi_gtx480() -> GpuConfig {
    GpuConfig {
        name: String::from("fermi-gtx480"),
        description: String::from(
            "GeForce GTX 480 (GF100, cc 2.0): Angerd et al.'s baseline (their Table 2); latencies from \
             GPGPU-Sim configs/tested-cfgs/SM2_GTX480",
        ),
        core: CoreConfig {
            sm_count: 15,           // Angerd Table 2
            core_clock_mhz: 1400.0, // Angerd Table 2 (GPGPU-Sim's 700 MHz domain runs 32-wide at half rate)
            sub_cores: 1,           // two schedulers share one register file (Angerd §7)
        },
        // Angerd Table 2 (48 warps, 32768 registers, 48 KB shared) = NVIDIA's cc 2.0 limits.
        limits: ResidencyLimits::Nvidia(SmVersion::Sm20.limits()),
        register_file: RegisterFileConfig {
            banks: 16,               // Angerd Table 2
            bank_width_bits: 1024,   // Angerd Table 2
            entries_per_bank: 64,    // Angerd Table 2
            read_ports_per_bank: 1,  // Angerd §3.1: one read and one write port per bank
            write_ports_per_bank: 1, // Angerd §3.1
            collector_units: 16,     // Angerd Table 2 ("Operand Collectors 16")
            writeback_width: 3,      // Angerd §3.2.1: the write-back bus is three operands wide
        },
        scheduler: SchedulerConfig {
            schedulers_per_sm: 2,          // Angerd Table 2
            policy: SchedulingPolicy::Gto, // Angerd Table 2 ("Greedy then oldest")
            issue_width: 1,                // GPGPU-Sim SM2_GTX480 `gpgpu_max_insn_issue_per_warp 1`
            dual_issue: false,
        },
        execution: ExecutionConfig {
            simd_width: 16, // GF100: two 16-lane SP pipelines per SM (GPGPU-Sim SM2_GTX480 comment)
            // Angerd §3.1: two SP units, one SFU, one memory unit (GPGPU-Sim: sp 2, sfu 1, dp 0).
            units: ExecutionUnits { sp: 2, int: 0, dp: 0, sfu: 1, tensor: 0, ldst: 1 },
            // GPGPU-Sim SM2_GTX480: latency 4,13,4,5,145; initiation 1,2,2,1,8.
            int: gpgpusim([4, 13, 4, 5, 145], [1, 2, 2, 1, 8]),
            // GPGPU-Sim SM2_GTX480: latency 4,13,4,5,39; initiation 1,2,1,1,4.
            fp32: gpgpusim([4, 13, 4, 5, 39], [1, 2, 1, 1, 4]),
            // GPGPU-Sim SM2_GTX480: latency 8,19,8,8,330; initiation 8,16,8,8,130.
            fp64: gpgpusim([8, 19, 8, 8, 330], [8, 16, 8, 8, 130]),
            sfu: op(8, 8), // GPGPU-Sim defaults (`-ptx_opcode_latency_sfu 8`, initiation 8)
            tensor: None,
        },
        memory: MemoryConfig {
            // Angerd Table 2: 16 KB L1; GPGPU-Sim SM2_GTX480 `dl1 N:32:128:4` (32 sets × 128 B × 4
            // ways), 64 MSHRs, `gpgpu_l1_latency 35`.
            l1d: Some(CacheConfig {
                size_bytes: 16 * KIB,
                line_bytes: 128,
                associativity: 4,
                hit_latency: 35,
                mshrs: 64,
            }),
            // 768 KB (Angerd's Table 2 prints "786 KB"; GF100 has 768 KB): GPGPU-Sim `dl2 S:64:128:8`
            // per sub-partition × 12, `gpgpu_l2_rop_latency 120`, 256 MSHRs per sub-partition × 12.
            l2: Some(CacheConfig {
                size_bytes: 768 * KIB,
                line_bytes: 128,
                associativity: 8,
                hit_latency: 120,
                mshrs: 256 * 12,
            }),
            dram: DramConfig {
                latency: 100,              // GPGPU-Sim SM2_GTX480 `dram_latency 100`
                bandwidth_gb_per_s: 177.4, // GTX 480: 384-bit GDDR5 at 3696 MT/s
                channels: 6,               // GPGPU-Sim SM2_GTX480 `gpgpu_n_mem 6`
            },
            // GPGPU-Sim SM2_GTX480: 32 banks, `gpgpu_smem_latency 26`.
            shared: SharedMemoryTiming { banks: 32, bank_width_bytes: 4, latency: 26 },
            coalescing_bytes: 128, // GPGPU-Sim `gpgpu_coalesce_arch 20`: 128-byte L1 lines
        },
    }
}
