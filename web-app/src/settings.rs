//! The user's choices besides the text — selected kernel, GPU preset and edits, launch shape and
//! register override — and their text form in local storage (one `key=value` per line; unknown
//! keys and bad values are skipped, so an older or newer page never fails on them).
//!
//! ```text
//! kernel=_Z9imgvfStepPKfS0_Pfiifffff
//! gpu=fermi-gtx480
//! threads=320
//! ptxas_registers=52
//! dynamic_shared=14560
//! ```

use crate::model::occupancy::{GpuSettings, LaunchSettings};

/// Everything the page remembers besides the text.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Settings {
    /// The kernel the user picked (`None`: the first `.entry`).
    pub kernel: Option<String>,
    /// The GPU.
    pub gpu: GpuSettings,
    /// The launch and overrides.
    pub launch: LaunchSettings,
}

/// A field of the GPU the user can edit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GpuField {
    /// SMs (CUs) on the chip.
    SmCount,
    /// Registers per SM (VGPRs per SIMD on GCN3).
    Registers,
    /// Maximum warps per SM (wave slots per SIMD on GCN3).
    Warps,
}

/// A field of the launch the user can set.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LaunchField {
    /// Threads per block.
    Threads,
    /// Dynamic shared memory per block in bytes.
    DynamicShared,
    /// Registers per thread as ptxas reports them.
    Registers,
    /// GCN3: SGPRs per wavefront.
    Sgprs,
}

fn narrow(value: Option<u64>) -> Option<u32> {
    value.map(|v| u32::try_from(v).unwrap_or(u32::MAX))
}

impl Settings {
    /// Sets one GPU field (`None`: back to the preset's value).
    pub fn set_gpu(&mut self, field: GpuField, value: Option<u32>) {
        match field {
            GpuField::SmCount => self.gpu.sm_count = value,
            GpuField::Registers => self.gpu.registers = value,
            GpuField::Warps => self.gpu.warps = value,
        }
    }

    /// Sets one launch field (`None`: back to the kernel's or the default value).
    pub fn set_launch(&mut self, field: LaunchField, value: Option<u64>) {
        match field {
            LaunchField::Threads => self.launch.threads = narrow(value),
            LaunchField::DynamicShared => self.launch.dynamic_shared = value,
            LaunchField::Registers => self.launch.registers = narrow(value),
            LaunchField::Sgprs => self.launch.sgprs = narrow(value),
        }
    }

    /// The text form (see the module documentation).
    pub fn to_text(&self) -> String {
        let mut lines = Vec::new();
        if let Some(k) = &self.kernel {
            lines.push(format!("kernel={k}"));
        }
        lines.push(format!("gpu={}", self.gpu.preset));
        let numbers = [
            ("sm_count", self.gpu.sm_count.map(u64::from)),
            ("gpu_registers", self.gpu.registers.map(u64::from)),
            ("gpu_warps", self.gpu.warps.map(u64::from)),
            ("threads", self.launch.threads.map(u64::from)),
            ("dynamic_shared", self.launch.dynamic_shared),
            ("ptxas_registers", self.launch.registers.map(u64::from)),
            ("sgprs", self.launch.sgprs.map(u64::from)),
        ];
        lines.extend(numbers.iter().filter_map(|(key, v)| v.map(|v| format!("{key}={v}"))));
        lines.join("\n")
    }

    /// Reads the text form; what it cannot read keeps its default.
    pub fn from_text(text: &str) -> Settings {
        let mut s = Settings::default();
        for (key, value) in text.lines().filter_map(|l| l.split_once('=')) {
            let number = value.trim().parse::<u64>().ok();
            match key.trim() {
                "kernel" if !value.is_empty() => s.kernel = Some(value.to_owned()),
                "gpu" if !value.trim().is_empty() => s.gpu.preset = value.trim().to_owned(),
                "sm_count" => s.set_gpu(GpuField::SmCount, narrow(number)),
                "gpu_registers" => s.set_gpu(GpuField::Registers, narrow(number)),
                "gpu_warps" => s.set_gpu(GpuField::Warps, narrow(number)),
                "threads" => s.set_launch(LaunchField::Threads, number),
                "dynamic_shared" => s.set_launch(LaunchField::DynamicShared, number),
                "ptxas_registers" => s.set_launch(LaunchField::Registers, number),
                "sgprs" => s.set_launch(LaunchField::Sgprs, number),
                _ => {}
            }
        }
        s
    }
}
