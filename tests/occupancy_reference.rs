//! RegLab's occupancy calculator against NVIDIA's own (`cuda_occupancy.h`, CUDA 12.6) on every
//! compute capability the header covers (3.0 to 9.0): a grid over block sizes, register counts and
//! shared-memory sizes (the edge of every rule), a grid over dynamic shared memory, opt-in,
//! carve-outs and cache preferences, and seeded random vectors. Every field NVIDIA reports is
//! compared: status, blocks per SM, the limit from each resource, the limiting factors and the
//! allocated registers and shared memory per block. The vectors and NVIDIA's answers are written to
//! `target/tmp/nvidia-occupancy/vectors.txt`.
//!
//! Needs python3 with pip (to fetch the `nvidia-cuda-runtime-cu12` wheel) and g++; fails loudly if
//! either is missing, unless `REGLAB_SKIP_NVIDIA_REF=1`.
#![allow(clippy::panic, clippy::print_stderr, reason = "a test reports and fails by printing and panicking")]

use std::fmt::Write as _;
use std::path::Path;

use reglab_tests::nvidia_occupancy;
use sim_core::gpu::compute_capability::SmVersion;
use sim_core::gpu::limits::SmLimits;
use sim_core::occupancy::{nvidia, CachePreference, Occupancy, OccupancyInput, Resource};

const INT_MAX: i64 = i32::MAX as i64;
const KIB: u64 = 1024;

/// The compute capabilities the CUDA 12.6 header covers (1.3 and 2.0 are tested by unit tests).
fn covered() -> impl Iterator<Item = SmVersion> {
    SmVersion::ALL.into_iter().filter(|v| v.compute_capability().major >= 3)
}

/// Every block size, register count and static shared-memory size of the edge-case grid.
fn grid(out: &mut Vec<(SmVersion, OccupancyInput)>) {
    let threads = [0, 1, 31, 32, 33, 64, 96, 128, 160, 192, 224, 256, 288, 320, 384, 448, 480, 512, 513];
    let threads = threads.into_iter().chain([640, 768, 896, 992, 1024, 1025, 2048]);
    let regs = [0, 1, 8, 16, 20, 21, 22, 24, 29, 30, 32, 33, 37, 38, 40, 45, 46, 48, 56, 63, 64, 65, 72, 80];
    let regs: Vec<u32> = regs.into_iter().chain([96, 112, 128, 136, 144, 168, 192, 200, 232, 255, 256, 257]).collect();
    let smem = [0, 1, 1000, 4096, 14_560, 16 * KIB, 20 * KIB, 32 * KIB, 40_000, 47 * KIB, 48 * KIB, 48 * KIB + 1];
    let smem: Vec<u64> = smem.into_iter().chain([64 * KIB, 96 * KIB, 100 * KIB]).collect();
    for version in covered() {
        for t in threads.clone() {
            for &r in &regs {
                for &s in &smem {
                    out.push((version, OccupancyInput::new(t, r).with_static_shared_memory(s)));
                }
            }
        }
    }
}

/// Dynamic shared memory with and without opt-in, under every carve-out and cache preference.
fn dynamic_grid(out: &mut Vec<(SmVersion, OccupancyInput)>) {
    // Sizes at and around every carve-out step, with and without the 1 KB reserved per block.
    let dynamic = [0, 1, 7 * KIB, 8 * KIB, 15 * KIB, 16 * KIB, 31 * KIB, 32 * KIB, 48 * KIB, 49 * KIB, 63 * KIB];
    let dynamic = dynamic.into_iter().chain([64 * KIB, 95 * KIB, 96 * KIB, 99 * KIB, 100 * KIB, 131 * KIB]);
    let dynamic = dynamic.into_iter().chain([163 * KIB, 164 * KIB, 195 * KIB, 227 * KIB, 228 * KIB]);
    let carveouts = [None, Some(0), Some(10), Some(25), Some(50), Some(75), Some(100), Some(101)];
    let caches = [CachePreference::None, CachePreference::Shared, CachePreference::L1, CachePreference::Equal];
    for version in covered() {
        for d in dynamic.clone() {
            for opt_in in [None, Some(d), Some(d.saturating_sub(1)), Some(228 * KIB)] {
                for carveout_percent in carveouts {
                    for cache_preference in caches {
                        for barriers in [0, 1, 3] {
                            out.push((
                                version,
                                OccupancyInput {
                                    max_dynamic_shared_memory: opt_in,
                                    carveout_percent,
                                    cache_preference,
                                    block_barriers: barriers,
                                    ..OccupancyInput::new(256, 32).with_dynamic_shared_memory(d)
                                },
                            ));
                        }
                    }
                }
            }
        }
    }
}

/// A seeded xorshift64* generator (deterministic vectors).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

fn random(out: &mut Vec<(SmVersion, OccupancyInput)>, count: usize) {
    let versions: Vec<SmVersion> = covered().collect();
    let caches = [CachePreference::None, CachePreference::Shared, CachePreference::L1, CachePreference::Equal];
    let mut rng = Rng(0x5EED_0CC0_2026_1121);
    for _ in 0..count {
        let version = versions[rng.below(versions.len() as u64) as usize];
        let threads = if rng.below(50) == 0 { 0 } else { rng.below(1100) as u32 + 1 };
        let size = |rng: &mut Rng| {
            let scale = 1 + rng.below(240 * KIB);
            if rng.below(3) == 0 {
                0
            } else {
                rng.below(scale)
            }
        };
        let dynamic = size(&mut rng);
        let max_dynamic = match rng.below(4) {
            0 => None,
            1 => Some(dynamic),
            _ => Some(size(&mut rng)),
        };
        out.push((
            version,
            OccupancyInput {
                threads_per_block: threads,
                registers_per_thread: rng.below(262) as u32,
                scalar_registers_per_wave: 0,
                static_shared_memory: if rng.below(2) == 0 { 0 } else { rng.below(50 * KIB) },
                dynamic_shared_memory: dynamic,
                max_dynamic_shared_memory: max_dynamic,
                block_barriers: rng.below(5) as u32,
                cache_preference: caches[rng.below(4) as usize],
                carveout_percent: if rng.below(2) == 0 { None } else { Some(rng.below(106) as u8) },
            },
        ));
    }
}

/// One input line for the driver (see `tests/occupancy_ref/driver.cpp`).
fn line(id: usize, sm: &SmLimits, input: &OccupancyInput) -> String {
    let cc = sm.compute_capability;
    let cache = match input.cache_preference {
        CachePreference::None => 0,
        CachePreference::Shared => 1,
        CachePreference::L1 => 2,
        CachePreference::Equal => 3,
    };
    let carveout = input.carveout_percent.map_or(-1, i32::from);
    format!(
        "{id} {} {} {} {} {} {} {} {} {} {} {} {} {} {} {} {} {cache} {carveout} {} {}",
        cc.major,
        cc.minor,
        sm.max_threads_per_block,
        sm.max_threads_per_sm,
        sm.registers_per_block,
        sm.registers_per_sm,
        sm.warp_size,
        sm.shared_memory_per_block,
        sm.shared_memory_per_sm,
        sm.shared_memory_per_block_optin,
        sm.reserved_shared_memory_per_block,
        input.registers_per_thread,
        input.static_shared_memory,
        u8::from(input.max_dynamic_shared_memory.is_some()),
        input.max_dynamic_shared_memory.unwrap_or(0),
        input.block_barriers,
        input.threads_per_block,
        input.dynamic_shared_memory,
    )
}

/// The header's bit for a limiting factor.
fn factor_bit(r: Resource) -> u32 {
    match r {
        Resource::Warps => 0x01,
        Resource::Registers => 0x02,
        Resource::SharedMemory => 0x04,
        Resource::Blocks => 0x08,
        Resource::Barriers => 0x10,
        _ => 0x100,
    }
}

/// Compares our answer with NVIDIA's output fields (after the id).
fn check(ours: Result<Occupancy, String>, theirs: &[i64]) -> Result<(), String> {
    let [status, blocks, factors, regs, smem, warps, slots, bars, alloc_regs, alloc_smem] = theirs else {
        return Err(format!("malformed driver output {theirs:?}"));
    };
    let o = match (ours, *status) {
        (Err(_), s) if s != 0 => return Ok(()),
        (Err(e), _) => return Err(format!("we refused ({e}), NVIDIA answered")),
        (Ok(_), s) if s != 0 => return Err(format!("NVIDIA refused (status {s}), we answered")),
        (Ok(o), _) => o,
    };
    let limit = |r| o.limit(r).map_or(INT_MAX, |l| l.blocks.map_or(INT_MAX, i64::from));
    let got = [
        i64::from(o.blocks_per_sm),
        limit(Resource::Registers),
        limit(Resource::SharedMemory),
        limit(Resource::Warps),
        limit(Resource::Blocks),
        limit(Resource::Barriers),
        o.registers_per_block as i64,
        o.shared_memory_per_block as i64,
    ];
    let want = [*blocks, *regs, *smem, *warps, *slots, *bars, *alloc_regs, *alloc_smem];
    if got != want {
        return Err(format!(
            "blocks, limits (regs smem warps blocks barriers), allocations: ours {got:?}, NVIDIA {want:?}"
        ));
    }
    // NVIDIA flags the four classic factors before applying the barrier limit; when barriers alone
    // bind, we name only them.
    let others = [*regs, *smem, *warps, *slots].into_iter().min().unwrap_or(INT_MAX);
    let want_factors = if *bars < others { 0x10 } else { *factors as u32 };
    let got_factors = o.binding.iter().map(|&r| factor_bit(r)).fold(0, |a, b| a | b);
    if got_factors != want_factors {
        return Err(format!("binding {:?} = {got_factors:#x}, NVIDIA {want_factors:#x}", o.binding));
    }
    Ok(())
}

#[test]
fn agrees_with_nvidia_cuda_occupancy_h() {
    if nvidia_occupancy::skipped() {
        eprintln!("REGLAB_SKIP_NVIDIA_REF=1: NVIDIA reference comparison skipped");
        return;
    }
    let cache = Path::new(env!("CARGO_TARGET_TMPDIR")).join("nvidia-occupancy");
    let driver = nvidia_occupancy::reference_driver(&cache).unwrap_or_else(|e| panic!("{e}"));

    let mut cases = Vec::new();
    grid(&mut cases);
    dynamic_grid(&mut cases);
    random(&mut cases, 60_000);
    let mut input = String::new();
    for (id, (version, kernel)) in cases.iter().enumerate() {
        input.push_str(&line(id, &version.limits(), kernel));
        input.push('\n');
    }
    let output = nvidia_occupancy::run_driver(&driver, &input).unwrap_or_else(|e| panic!("{e}"));

    let mut failures = Vec::new();
    let mut compared = 0usize;
    for (answer, (version, kernel)) in output.lines().zip(&cases) {
        let fields: Vec<i64> = answer.split_whitespace().filter_map(|f| f.parse().ok()).collect();
        let ours = nvidia::compute(&version.limits(), kernel).map_err(|e| e.to_string());
        compared += 1;
        if let Err(why) = check(ours, fields.get(1..).unwrap_or(&[])) {
            failures.push(format!("cc {} {kernel:?}: {why}", version.compute_capability()));
        }
    }
    let mut record = String::new();
    for (request, answer) in input.lines().zip(output.lines()) {
        let _ = writeln!(record, "{request} => {answer}");
    }
    let _ = std::fs::write(cache.join("vectors.txt"), record);
    assert_eq!(compared, cases.len(), "the driver answered {compared} of {} vectors", cases.len());
    let shown = failures.iter().take(20).cloned().collect::<Vec<_>>().join("\n");
    assert!(failures.is_empty(), "{} of {compared} vectors disagree with NVIDIA:\n{shown}", failures.len());
    eprintln!("{compared} vectors agree with NVIDIA's cuda_occupancy.h ({})", nvidia_occupancy::WHEEL);
}
