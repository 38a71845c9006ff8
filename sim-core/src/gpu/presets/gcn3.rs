//! AMD GCN3 compute unit: Wyse's gem5 model ("Understanding GPGPU Vector Register File Usage", §2.3
//! and §3.2): two 64-wide SIMD VALUs with their own VRF, SRF and twenty wave slots each.
//!
//! ```text
//! gcn3-cu: 1 CU, 2 SIMDs × (20 wave slots, 512 VGPRs in 4 banks, 800 SGPRs), 64 KB LDS
//! ```

use alloc::string::String;

use super::{gpgpusim, op, KIB};
use crate::gpu::config::{CoreConfig, GpuConfig, RegisterFileConfig, SchedulerConfig, SchedulingPolicy};
use crate::gpu::execution::{ExecutionConfig, ExecutionUnits};
use crate::gpu::limits::{CuLimits, ResidencyLimits};
use crate::gpu::memory::{CacheConfig, DramConfig, MemoryConfig, SharedMemoryTiming};

/// Wyse's compute unit. Pipeline timing follows gem5's GPU `ComputeUnit` parameters; what neither
/// the paper nor gem5's defaults give is marked **A**.
pub fn gcn3_cu() -> GpuConfig {
    GpuConfig {
        name: String::from("gcn3-cu"),
        description: String::from(
            "AMD GCN3 compute unit as modelled by Wyse in gem5 (§2.3, §3.2): 2 SIMD VALUs, 40 wave slots, \
             2 × 512 VGPRs, 2 × 800 SGPRs, 64 KB LDS",
        ),
        core: CoreConfig {
            sm_count: 1,            // Wyse §3.2: one CU simulated
            core_clock_mhz: 1000.0, // **A** gem5 apu_se.py default `--gpu-clock 1GHz`
            sub_cores: 2,           // Wyse §2.3: two SIMD VALUs, each with private VRF, OB, RFC
        },
        limits: ResidencyLimits::Gcn3(CuLimits {
            wavefront_size: 64,              // Wyse §2.3.2
            simds_per_cu: 2,                 // Wyse §2.3
            wave_slots_per_simd: 20,         // Wyse §2.3.1, §3.2.1
            vgprs_per_simd: 512,             // Wyse §2.3.3.1
            vgpr_allocation_granularity: 4,  // gem5 `min_alloc` 4 (GPUS.md **A**)
            max_vgprs_per_work_item: 256,    // GCN3 ISA
            sgprs_per_simd: 800,             // Wyse §2.3.4
            sgpr_allocation_granularity: 8,  // **A**: see `CuLimits::sgpr_allocation_granularity`
            max_sgprs_per_wave: 102,         // GCN3 ISA
            lds_per_cu: 64 * KIB,            // Wyse §2.3.5
            lds_allocation_granularity: 512, // **A**: GCN3 `LDS_SIZE` in 128-dword blocks
            max_lds_per_workgroup: 64 * KIB, // GCN3 ISA
            max_workgroup_size: 1024,        // HCC/ROCm limit (16 wavefronts)
        }),
        register_file: RegisterFileConfig {
            banks: 8,                // Wyse §2.3.3.1: 4 banks per SIMD's VRF
            bank_width_bits: 2048,   // Wyse §2.3.3.1: one VGPR, 64 lanes × 32 bits
            entries_per_bank: 128,   // Wyse §2.3.3.1: 128 VGPRs per bank
            read_ports_per_bank: 1,  // Wyse §2.3.3.1: one read and one write port per bank
            write_ports_per_bank: 1, // Wyse §2.3.3.1
            collector_units: 0,      // the operand buffer belongs to the RFC scheme (SCHEMES.md §1)
            writeback_width: 2,      // **A**: one VALU result per SIMD per cycle
        },
        scheduler: SchedulerConfig {
            schedulers_per_sm: 2,                  // Wyse §3.2.2: one VALU issue per SIMD per cycle
            policy: SchedulingPolicy::OldestFirst, // Wyse §3.2.2 ("typically using an oldest-first policy")
            issue_width: 1,                        // Wyse §2.3.2: one vector instruction per cycle
            dual_issue: false,
        },
        execution: ExecutionConfig {
            simd_width: 64, // Wyse §2.3.2: sixty-four wide VALU
            // Wyse §2.3: two VALUs; scalar ALUs are not counted here; gem5: one global memory pipe.
            units: ExecutionUnits { sp: 2, int: 0, dp: 0, sfu: 0, tensor: 0, ldst: 1 },
            // gem5 ComputeUnit `spbypass_pipe_length 4` for every VALU op (**A**: no per-class data),
            // one instruction per cycle (Wyse §2.3.2).
            int: gpgpusim([4, 4, 4, 4, 4], [1, 1, 1, 1, 1]),
            fp32: gpgpusim([4, 4, 4, 4, 4], [1, 1, 1, 1, 1]),
            // gem5 ComputeUnit `dpbypass_pipe_length 8` (2017-era default).
            fp64: gpgpusim([8, 8, 8, 8, 8], [1, 1, 1, 1, 1]),
            sfu: op(4, 1), // **A**: transcendentals run on the VALU (GCN3 ISA), same bypass length
            tensor: None,
        },
        memory: MemoryConfig {
            // Wyse §2.3.5: 16 KB, 16-way, 64-byte blocks. **A**: hit latency 18 (gem5 ComputeUnit
            // `mem_req_latency 9` + `mem_resp_latency 9`), 64 MSHRs.
            l1d: Some(CacheConfig {
                size_bytes: 16 * KIB,
                line_bytes: 64,
                associativity: 16,
                hit_latency: 18,
                mshrs: 64,
            }),
            // Wyse §2.3.5: 512 KB, 16-way, 64-byte blocks. **A**: hit latency 100, 256 MSHRs.
            l2: Some(CacheConfig {
                size_bytes: 512 * KIB,
                line_bytes: 64,
                associativity: 16,
                hit_latency: 100,
                mshrs: 256,
            }),
            dram: DramConfig {
                latency: 200,             // **A**
                bandwidth_gb_per_s: 12.8, // **A** gem5 default DDR3_1600_8x8, one channel
                channels: 1,              // **A**
            },
            // Wyse §2.3.5: 32 LDS banks; **A** 4-byte banks, 64-cycle latency.
            shared: SharedMemoryTiming { banks: 32, bank_width_bytes: 4, latency: 64 },
            coalescing_bytes: 64, // Wyse §2.3.5: 64-byte cache blocks
        },
    }
}
