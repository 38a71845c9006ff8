//! `reglab occupancy`: blocks and warps per SM of a kernel configuration, the limit from every
//! resource and which ones bind — on a GPU preset (`--gpu`) or on a bare compute capability with
//! NVIDIA's calculator defaults (`--cc`).
//!
//! ```text
//! reglab occupancy --gpu fermi-gtx480 --regs 29 --threads 320 --smem 14560 --json
//! {"blocks_per_sm":3,"warps_per_sm":30,"occupancy":0.625,"limits":{"warps":4,"blocks":8,
//!  "registers":3,"shared_memory":3},"binding":["registers","shared_memory"]}
//! ```

use std::fmt::Write as _;
use std::process::ExitCode;

use clap::builder::PossibleValuesParser;
use serde::ser::{Serialize, SerializeMap, Serializer};
use sim_core::gpu::compute_capability::SmVersion;
use sim_core::gpu::limits::ResidencyLimits;
use sim_core::gpu::presets;
use sim_core::occupancy::{self, CachePreference, Occupancy, OccupancyInput, Resource, ResourceLimit};

/// Arguments of `reglab occupancy`.
#[derive(clap::Args)]
pub struct Args {
    /// GPU preset.
    #[arg(long, value_name = "PRESET", required_unless_present = "cc", conflicts_with = "cc",
          value_parser = PossibleValuesParser::new(presets::names()))]
    gpu: Option<String>,
    /// Compute capability (calculator-only mode: NVIDIA's device limits and default carve-out).
    #[arg(long, value_name = "X.Y", value_parser = parse_cc)]
    cc: Option<SmVersion>,
    /// Registers per thread (ptxas "Used N registers"); VGPRs per work-item on gcn3-cu.
    #[arg(long, value_name = "N")]
    regs: u32,
    /// Threads per block (work-items per workgroup on gcn3-cu).
    #[arg(long, value_name = "N")]
    threads: u32,
    /// Static shared memory per block in bytes (LDS per workgroup on gcn3-cu).
    #[arg(long, value_name = "BYTES", default_value_t = 0)]
    smem: u64,
    /// Dynamic shared memory per block in bytes.
    #[arg(long, value_name = "BYTES", default_value_t = 0)]
    dyn_smem: u64,
    /// Opt in to more dynamic shared memory than the default per-block limit, up to BYTES
    /// (cudaFuncAttributeMaxDynamicSharedMemorySize).
    #[arg(long, value_name = "BYTES")]
    max_dyn_smem: Option<u64>,
    /// Shared-memory carve-out preference in percent (Volta and later).
    #[arg(long, value_name = "PERCENT", value_parser = clap::value_parser!(u8).range(0..=100))]
    carveout: Option<u8>,
    /// Cache preference (cudaFuncSetCacheConfig).
    #[arg(long, value_name = "PREF", default_value = "none", value_parser = ["none", "shared", "l1", "equal"])]
    cache_pref: String,
    /// Block barriers the kernel uses (Hopper limits blocks by them).
    #[arg(long, value_name = "N", default_value_t = 1)]
    barriers: u32,
    /// SGPRs per wavefront (gcn3-cu only).
    #[arg(long, value_name = "N")]
    sgprs: Option<u32>,
    /// Print JSON instead of a table.
    #[arg(long)]
    json: bool,
}

fn parse_cc(text: &str) -> Result<SmVersion, String> {
    SmVersion::parse(text).ok_or_else(|| {
        let known: Vec<String> = SmVersion::ALL.iter().map(|v| v.compute_capability().to_string()).collect();
        format!("unknown compute capability '{text}' (supported: {})", known.join(", "))
    })
}

/// Runs the subcommand.
pub fn run(args: &Args) -> ExitCode {
    let (title, limits) = match (&args.gpu, args.cc) {
        (Some(name), _) => match presets::by_name(name) {
            Some(gpu) => (format!("{} — {}", gpu.name, gpu.description), gpu.limits),
            None => return usage(&format!("unknown GPU preset '{name}'")),
        },
        (None, Some(v)) => (
            format!("compute capability {} (NVIDIA calculator defaults)", v.compute_capability()),
            ResidencyLimits::Nvidia(v.limits()),
        ),
        (None, None) => return usage("give --gpu PRESET or --cc X.Y"),
    };
    if args.sgprs.is_some() && !matches!(limits, ResidencyLimits::Gcn3(_)) {
        return usage("--sgprs applies to gcn3-cu only");
    }
    let input = OccupancyInput {
        threads_per_block: args.threads,
        registers_per_thread: args.regs,
        scalar_registers_per_wave: args.sgprs.unwrap_or(0),
        static_shared_memory: args.smem,
        dynamic_shared_memory: args.dyn_smem,
        max_dynamic_shared_memory: args.max_dyn_smem,
        block_barriers: args.barriers,
        cache_preference: match args.cache_pref.as_str() {
            "shared" => CachePreference::Shared,
            "l1" => CachePreference::L1,
            "equal" => CachePreference::Equal,
            _ => CachePreference::None,
        },
        carveout_percent: args.carveout,
    };
    let result = match occupancy::compute(&limits, &input) {
        Ok(result) => result,
        Err(e) => return usage(&e.to_string()),
    };
    if args.json {
        match serde_json::to_string(&JsonReport(&result)) {
            Ok(text) => println!("{text}"),
            Err(e) => return usage(&e.to_string()),
        }
    } else {
        print!("{}", table(&title, &limits, &input, &result));
    }
    ExitCode::SUCCESS
}

fn usage(message: &str) -> ExitCode {
    eprintln!("reglab occupancy: {message}");
    ExitCode::from(2)
}

/// The limits shown: every one NVIDIA's JSON names, plus Hopper's barriers when they bind.
fn shown_limits(result: &Occupancy) -> impl Iterator<Item = &ResourceLimit> {
    result.limits.iter().filter(|l| l.resource != Resource::Barriers || result.binding.contains(&l.resource))
}

/// `{"blocks_per_sm", "warps_per_sm", "occupancy", "limits", "binding"}` in that order, plus
/// `"reasons"` when no block fits.
struct JsonReport<'a>(&'a Occupancy);

struct JsonLimits<'a>(&'a Occupancy);

impl Serialize for JsonReport<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let r = self.0;
        let mut map = serializer.serialize_map(None)?;
        map.serialize_entry("blocks_per_sm", &r.blocks_per_sm)?;
        map.serialize_entry("warps_per_sm", &r.warps_per_sm)?;
        map.serialize_entry("occupancy", &r.occupancy)?;
        map.serialize_entry("limits", &JsonLimits(r))?;
        let binding: Vec<&str> = r.binding.iter().map(|b| b.name()).collect();
        map.serialize_entry("binding", &binding)?;
        if !r.misfits.is_empty() {
            let reasons: Vec<String> = r.misfits.iter().map(ToString::to_string).collect();
            map.serialize_entry("reasons", &reasons)?;
        }
        map.end()
    }
}

impl Serialize for JsonLimits<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(None)?;
        for limit in shown_limits(self.0) {
            map.serialize_entry(limit.resource.name(), &limit.blocks)?;
        }
        map.end()
    }
}

/// The human-readable report.
fn table(title: &str, limits: &ResidencyLimits, input: &OccupancyInput, r: &Occupancy) -> String {
    let (block, warp, sm, regs) = match limits {
        ResidencyLimits::Nvidia(_) => ("blocks", "warps", "SM", "registers"),
        ResidencyLimits::Gcn3(_) => ("workgroups", "wavefronts", "CU", "VGPRs"),
    };
    let mut out = String::new();
    let _ = writeln!(out, "GPU: {title}");
    let _ = writeln!(
        out,
        "kernel: {} threads ({warp}: {}), {} {regs} per thread{}, {} B shared ({} static + {} dynamic)\n",
        input.threads_per_block,
        r.warps_per_block,
        input.registers_per_thread,
        match limits {
            ResidencyLimits::Gcn3(_) => format!(", {} SGPRs per wavefront", input.scalar_registers_per_wave),
            ResidencyLimits::Nvidia(_) => String::new(),
        },
        input.shared_memory(),
        input.static_shared_memory,
        input.dynamic_shared_memory,
    );
    let _ = writeln!(out, "{:<15} {:>12}", "limit", format!("{block}/{sm}"));
    for limit in shown_limits(r) {
        let value = limit.blocks.map_or_else(|| "unlimited".to_owned(), |b| b.to_string());
        let mark = if r.binding.contains(&limit.resource) { "  ← binding" } else { "" };
        let _ = writeln!(out, "{:<15} {value:>12}{mark}", limit.resource.name());
    }
    let _ = writeln!(
        out,
        "\n{block} per {sm}: {}   {warp} per {sm}: {} / {}   occupancy: {:.1} %",
        r.blocks_per_sm,
        r.warps_per_sm,
        r.max_warps_per_sm,
        r.occupancy * 100.0
    );
    let _ = writeln!(
        out,
        "allocated per block: {} {regs}, {} B shared memory (of {} B per {sm})",
        r.registers_per_block, r.shared_memory_per_block, r.shared_memory_per_sm
    );
    if !r.misfits.is_empty() {
        let _ = writeln!(out, "\ndoes not fit:");
        for misfit in &r.misfits {
            let _ = writeln!(out, "  {misfit}");
        }
    }
    out
}
