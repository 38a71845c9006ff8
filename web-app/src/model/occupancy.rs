//! The occupancy panel's numbers from `sim-core`'s calculator: a GPU preset with the user's edits,
//! the launch shape (threads per block, dynamic shared memory) and the kernel's resources
//! (registers per thread from the analyses or the user's "ptxas says N", static shared memory from
//! the IR) give blocks and warps per SM, every limit, the binding ones, and the three curves.
//!
//! ```text
//! fermi-gtx480, 320 threads, 52 registers, 14,560 B shared → 1 block, 10 warps, 20.8 %, registers bind
//! ```

use sim_core::gpu::limits::ResidencyLimits;
use sim_core::gpu::{presets, GpuConfig};
use sim_core::occupancy::curves::{curves, OccupancyCurves};
use sim_core::occupancy::kernel_inputs::BlockSizeSource;
use sim_core::occupancy::{compute, Occupancy, OccupancyInput};

use super::kernel::KernelView;

/// The preset a first visit starts from (the bundled examples target `sm_75`).
pub const DEFAULT_PRESET: &str = "turing-rtx2060";
/// Threads per block when neither the user nor the kernel's directives say.
pub const DEFAULT_THREADS: u32 = 256;
/// Registers per thread assumed when there is neither an estimate nor an override.
pub const ASSUMED_REGISTERS: u32 = 32;
/// SGPRs per wavefront assumed on GCN3 unless the user says (the analyses do not estimate them).
pub const ASSUMED_SGPRS: u32 = 16;

/// The GPU: a preset and the fields the user changed (`None`: the preset's value).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GpuSettings {
    /// Preset name (`fermi-gtx480`, …).
    pub preset: String,
    /// SMs (CUs) on the chip.
    pub sm_count: Option<u32>,
    /// Registers per SM (NVIDIA) or VGPRs per SIMD (GCN3).
    pub registers: Option<u32>,
    /// Maximum warps per SM (NVIDIA) or wave slots per SIMD (GCN3).
    pub warps: Option<u32>,
}

impl Default for GpuSettings {
    fn default() -> Self {
        GpuSettings { preset: DEFAULT_PRESET.to_owned(), sm_count: None, registers: None, warps: None }
    }
}

/// The calculator's launch input: the shape from the launch setup and the user's overrides
/// (`None`: what the kernel or the default says).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LaunchSettings {
    /// Threads per block (the launch setup's block x·y·z).
    pub threads: Option<u32>,
    /// Dynamic shared memory per block in bytes (the launch setup's).
    pub dynamic_shared: Option<u64>,
    /// Registers per thread as ptxas reports them ("ptxas says N registers").
    pub registers: Option<u32>,
    /// GCN3: SGPRs per wavefront.
    pub sgprs: Option<u32>,
}

/// One entry of the GPU picker.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PresetChoice {
    /// Preset name.
    pub name: &'static str,
    /// `cc 2.0` or `GCN3`.
    pub family: String,
    /// The preset's one-line description.
    pub description: String,
}

/// Every preset of `sim_core::gpu::presets`, in table order.
pub fn preset_choices() -> Vec<PresetChoice> {
    presets::PRESETS
        .iter()
        .map(|(name, make)| {
            let gpu = make();
            PresetChoice { name, family: family(&gpu), description: gpu.description }
        })
        .collect()
}

fn family(gpu: &GpuConfig) -> String {
    match &gpu.limits {
        ResidencyLimits::Nvidia(sm) => format!("cc {}", sm.compute_capability),
        ResidencyLimits::Gcn3(_) => "GCN3".to_owned(),
    }
}

/// Where a number the calculator used comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Source {
    /// Typed by the user.
    User,
    /// The launch setup (block size, dynamic shared memory).
    Launch,
    /// The kernel's `.reqntid`.
    Reqntid,
    /// The kernel's `.maxntid`.
    Maxntid,
    /// The register allocation estimate of the analyses.
    Estimate,
    /// A default or assumption (no better source).
    Assumed,
}

/// A number and where it comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Sourced<T> {
    /// The value used.
    pub value: T,
    /// Its source.
    pub source: Source,
}

/// The GPU as the panel describes it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GpuSummary {
    /// Preset name.
    pub name: String,
    /// `cc 2.0` or `GCN3`.
    pub family: String,
    /// True for AMD GCN3 (compute units, wavefronts, VGPRs).
    pub gcn3: bool,
    /// SMs (CUs): used value and the preset's.
    pub sm_count: (u32, u32),
    /// Registers per SM (VGPRs per SIMD on GCN3): used value and the preset's.
    pub registers: (u32, u32),
    /// Maximum warps per SM (wave slots per SIMD on GCN3): used value and the preset's.
    pub warps: (u32, u32),
    /// Threads per warp (wavefront).
    pub warp_size: u32,
}

/// Everything the occupancy panel shows.
#[derive(Clone, Debug, PartialEq)]
pub struct OccupancyView {
    /// The GPU (`None` if the preset name is unknown).
    pub gpu: Option<GpuSummary>,
    /// Threads per block used.
    pub threads: Sourced<u32>,
    /// Registers per thread used (VGPRs per work-item on GCN3).
    pub registers: Sourced<u32>,
    /// GCN3 only: SGPRs per wavefront used.
    pub sgprs: Option<Sourced<u32>>,
    /// Static shared memory per block in bytes (from the kernel).
    pub static_shared: u64,
    /// Dynamic shared memory per block in bytes (from the launch).
    pub dynamic_shared: u64,
    /// Why the launch setup's shape is not used (invalid, or it does not launch this kernel).
    pub launch_note: Option<String>,
    /// The calculator's answer, or why it refused the input.
    pub result: Result<Occupancy, String>,
    /// The three curves (when the input was accepted).
    pub curves: Option<OccupancyCurves>,
}

/// The preset with the user's edits applied (`None` for an unknown preset).
pub fn gpu_config(settings: &GpuSettings) -> Option<GpuConfig> {
    // One definition for the page, links and `reglab run --experiment`.
    let s = settings;
    let gpu = sim_core::experiment::ExperimentGpu {
        preset: s.preset.clone(),
        sm_count: s.sm_count,
        registers: s.registers,
        warps: s.warps,
    };
    gpu.config()
}

/// The `sm_XY` of the GPU (for the register estimate); `None` for GCN3 or an unknown preset.
pub fn gpu_sm(settings: &GpuSettings) -> Option<u32> {
    match presets::by_name(&settings.preset)?.limits {
        ResidencyLimits::Nvidia(sm) => {
            let cc = sm.compute_capability;
            Some(u32::from(cc.major) * 10 + u32::from(cc.minor))
        }
        ResidencyLimits::Gcn3(_) => None,
    }
}

fn summary(settings: &GpuSettings, gpu: &GpuConfig) -> GpuSummary {
    let preset = presets::by_name(&settings.preset);
    let (registers, warps) = resources(gpu);
    let (preset_registers, preset_warps) = preset.as_ref().map_or((registers, warps), resources);
    GpuSummary {
        name: gpu.name.clone(),
        family: family(gpu),
        gcn3: matches!(gpu.limits, ResidencyLimits::Gcn3(_)),
        sm_count: (gpu.core.sm_count, preset.as_ref().map_or(gpu.core.sm_count, |p| p.core.sm_count)),
        registers: (registers, preset_registers),
        warps: (warps, preset_warps),
        warp_size: gpu.warp_size(),
    }
}

/// Registers per SM and max warps per SM (VGPRs and wave slots per SIMD on GCN3).
fn resources(gpu: &GpuConfig) -> (u32, u32) {
    match &gpu.limits {
        ResidencyLimits::Nvidia(sm) => (sm.registers_per_sm, sm.max_warps_per_sm()),
        ResidencyLimits::Gcn3(cu) => (cu.vgprs_per_simd, cu.wave_slots_per_simd),
    }
}

/// Threads per block: the launch setup's, else the kernel's directive, else the default.
fn threads(kernel: &KernelView, launch: &LaunchSettings) -> Sourced<u32> {
    match (launch.threads, kernel.block_hint) {
        (Some(value), _) => Sourced { value, source: Source::Launch },
        (None, Some((value, BlockSizeSource::Reqntid))) => Sourced { value, source: Source::Reqntid },
        (None, Some((value, BlockSizeSource::Maxntid))) => Sourced { value, source: Source::Maxntid },
        (None, None) => Sourced { value: DEFAULT_THREADS, source: Source::Assumed },
    }
}

/// Registers per thread: the user's ptxas count, else the estimate, else an assumption.
fn registers(kernel: &KernelView, launch: &LaunchSettings) -> Sourced<u32> {
    match (launch.registers, kernel.registers) {
        (Some(value), _) => Sourced { value, source: Source::User },
        (None, Some(estimate)) => Sourced { value: estimate.allocated, source: Source::Estimate },
        (None, None) => Sourced { value: ASSUMED_REGISTERS, source: Source::Assumed },
    }
}

/// The occupancy of `kernel` launched as `launch` on `gpu`.
pub fn occupancy_view(kernel: &KernelView, gpu: &GpuSettings, launch: &LaunchSettings) -> OccupancyView {
    let threads = threads(kernel, launch);
    let registers = registers(kernel, launch);
    let static_shared = kernel.shared.static_bytes;
    let dynamic_shared = launch.dynamic_shared.unwrap_or(0);
    let config = gpu_config(gpu);
    let gcn3 = matches!(config.as_ref().map(|g| &g.limits), Some(ResidencyLimits::Gcn3(_)));
    let sgprs = gcn3.then_some(match launch.sgprs {
        Some(value) => Sourced { value, source: Source::User },
        None => Sourced { value: ASSUMED_SGPRS, source: Source::Assumed },
    });
    let input = OccupancyInput::new(threads.value, registers.value)
        .with_static_shared_memory(static_shared)
        .with_dynamic_shared_memory(dynamic_shared)
        .with_scalar_registers(sgprs.map_or(0, |s| s.value));
    let (result, charts) = match &config {
        Some(g) => match compute(&g.limits, &input) {
            Ok(o) => (Ok(o), curves(&g.limits, &input).ok()),
            Err(e) => (Err(e.to_string()), None),
        },
        None => (Err(format!("unknown GPU preset '{}'", gpu.preset)), None),
    };
    OccupancyView {
        gpu: config.as_ref().map(|g| summary(gpu, g)),
        threads,
        registers,
        sgprs,
        static_shared,
        dynamic_shared,
        launch_note: None,
        result,
        curves: charts,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sim_core::occupancy::Resource;

    fn fermi_imgvf(registers: u32) -> OccupancyView {
        let gpu = GpuSettings { preset: "fermi-gtx480".into(), ..GpuSettings::default() };
        let launch = LaunchSettings {
            threads: Some(320),
            dynamic_shared: Some(14_560),
            registers: Some(registers),
            sgprs: None,
        };
        occupancy_view(&KernelView::default(), &gpu, &launch)
    }

    #[test]
    fn angerd_imgvf_on_fermi() {
        let v = fermi_imgvf(52);
        let o = v.result.as_ref().map_err(String::clone);
        assert_eq!(o.as_ref().map(|o| (o.blocks_per_sm, o.warps_per_sm)), Ok((1, 10)));
        assert_eq!(o.as_ref().map(|o| o.binding.clone()), Ok(vec![Resource::Registers]));
        let v = fermi_imgvf(29);
        let o = v.result.as_ref().map_err(String::clone);
        assert_eq!(o.as_ref().map(|o| o.blocks_per_sm), Ok(3));
        assert_eq!(o.map(|o| o.binding.clone()), Ok(vec![Resource::Registers, Resource::SharedMemory]));
        assert!(v.curves.is_some());
        assert_eq!(v.registers.source, Source::User);
    }

    #[test]
    fn edits_change_the_limits_and_unknown_presets_are_reported() {
        let gpu = GpuSettings { preset: "fermi-gtx480".into(), registers: Some(65_536), ..GpuSettings::default() };
        let g = gpu_config(&gpu);
        assert_eq!(g.as_ref().map(resources), Some((65_536, 48)));
        let unknown = GpuSettings { preset: "nope".into(), ..GpuSettings::default() };
        let v = occupancy_view(&KernelView::default(), &unknown, &LaunchSettings::default());
        assert!(v.result.is_err() && v.gpu.is_none());
        assert_eq!((v.threads.value, v.registers.value), (DEFAULT_THREADS, ASSUMED_REGISTERS));
        assert_eq!(preset_choices().len(), presets::PRESETS.len());
        assert_eq!(gpu_sm(&GpuSettings::default()), Some(75));
    }
}
