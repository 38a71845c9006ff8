//! The `compression` scheme's slice allocation as report data (Angerd et al., `SCHEMES.md` §2):
//! per function, every value's format, its pieces (physical register and slice mask; two for a
//! split value) and its live interval over the instructions in layout order — the indirection
//! table plus live intervals, compact enough for the JSON report and what the app's slice map
//! draws. Only `compression` reports carry it ([`crate::timing::Report::slice_map`]).
//!
//! ```text
//! "slice_map": {"slice_bits": 4, "functions": [{"name": "k", "registers_before": 5,
//!   "registers_after": 3, "offsets": [120, 151, …], "lines": [9, 10, …],
//!   "values": [{"name": "%r1", "bits": 8, "float": false, "pieces": [[0, 3]], "live": [1, 6]}, …]}]}
//! ```

use alloc::string::String;
use alloc::vec::Vec;

use serde::{Deserialize, Serialize};

use super::compression_program::{plan, FunctionPlan, ValueFormat};
use crate::analysis::ModuleAnalysis;
use crate::diagnostic::LineIndex;
use crate::ir::Module;
use crate::timing::program_regs::AssignInputs;

/// The slice allocation of every function.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct SliceMap {
    /// Bits per slice (4: eight slices per 32-bit register).
    pub slice_bits: u32,
    /// Per function with a body, in module order.
    pub functions: Vec<FunctionSlices>,
}

/// One function's slice allocation.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct FunctionSlices {
    /// The function's name.
    pub name: String,
    /// Registers per thread of the allocator's assignment.
    pub registers_before: u32,
    /// Registers per thread the run used (`registers_before` when the slices were not used).
    pub registers_after: u32,
    /// Registers per thread the slice allocation needs (used or not).
    pub registers_slices: u32,
    /// Why the allocator's registers were kept (absent: the slices are used).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kept: Option<String>,
    /// Per instruction in layout order: the byte offset of its text in the source.
    pub offsets: Vec<u32>,
    /// Per instruction in layout order: its source line (1-based), filled in by
    /// [`SliceMap::locate`]; empty before.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub lines: Vec<u32>,
    /// Every value (PTX virtual register web), then the scratch registers (named `scratch`).
    pub values: Vec<SlicedValue>,
}

/// One value and where it lives.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SlicedValue {
    /// The PTX register its first definition writes.
    pub name: String,
    /// Bits stored.
    pub bits: u32,
    /// A float (reduced format when under 32 bits) rather than an integer.
    pub float: bool,
    /// `[physical register, slice mask]` per piece (bit `i` of the mask: slice `i`); two pieces
    /// for a split value, the low part first.
    pub pieces: Vec<(u32, u8)>,
    /// Live interval in half positions of the layout order, first and last inclusive: `2p`
    /// live on entry to instruction `p`, `2p + 1` defined by it (live after it).
    pub live: (u32, u32),
}

impl SlicedValue {
    fn of(v: &ValueFormat) -> SlicedValue {
        SlicedValue {
            name: v.reg.clone(),
            bits: v.bits,
            float: v.float,
            pieces: v.pieces.iter().map(|p| (p.reg, p.mask)).collect(),
            live: v.live,
        }
    }

    /// Whether the value holds its slices at half position `h`.
    pub fn live_at(&self, h: u32) -> bool {
        self.live.0 <= h && h <= self.live.1
    }
}

impl FunctionSlices {
    fn of(p: &FunctionPlan, offsets: Vec<u32>) -> FunctionSlices {
        FunctionSlices {
            name: p.name.clone(),
            registers_before: p.registers_before,
            registers_after: p.registers_after,
            registers_slices: p.registers_slices,
            kept: p.kept.map(String::from),
            offsets,
            lines: Vec::new(),
            values: p.values.iter().chain(&p.scratch).map(SlicedValue::of).collect(),
        }
    }
}

impl SliceMap {
    /// The slice map of `module` with `slice_bits`-bit slices, as the scheme's register
    /// assignment computes it from `analysis` and `inputs` (launch facts, tuned float formats).
    pub fn compute(module: &Module, analysis: &ModuleAnalysis, inputs: &AssignInputs, slice_bits: u32) -> SliceMap {
        let plans = plan(module, analysis, inputs, slice_bits);
        // `plan` plans the functions the analysis covers, in module order.
        let planned = module.functions.iter().filter(|(h, _)| analysis.get(*h).is_some());
        let mut functions = Vec::new();
        for ((_, f), p) in planned.zip(&plans) {
            let Some(body) = &f.body else { continue };
            let offsets =
                body.blocks.values().flat_map(|b| b.insts.iter()).map(|&ih| body.inst_spans.get(ih).start).collect();
            functions.push(FunctionSlices::of(p, offsets));
        }
        SliceMap { slice_bits, functions }
    }

    /// Fills in every instruction's line from the source text the module was compiled from.
    pub fn locate(&mut self, src: &str) {
        let index = LineIndex::new(src);
        for f in &mut self.functions {
            f.lines = f.offsets.iter().map(|&o| index.line_col(src, o).line).collect();
        }
    }
}

/// The slice map of a `compression` run with scheme config `config` on `gpu`, computed as its
/// register assignment is (the program's analyses for `gpu`'s register-allocation target, the
/// launch facts and float formats in `inputs`); `None` when the config does not read.
pub fn for_run(
    config: &super::SchemeConfig,
    module: &Module,
    gpu: &crate::gpu::GpuConfig,
    inputs: &AssignInputs,
) -> Option<SliceMap> {
    let c = super::compression::CompressionConfig::from_config(config).ok()?;
    let analysis = crate::timing::Program::analyse(module, gpu);
    let mut inputs = inputs.clone();
    inputs.target = inputs.target.or(Some(crate::timing::program::alloc_target(gpu)));
    Some(SliceMap::compute(module, &analysis, &inputs, c.slice_bits))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exec::LaunchSetup;
    use crate::timing::{Simulation, TimingOptions};

    /// `tests/cases/timing/compression_split.ptx`, where its allocation is worked by hand.
    const PTX: &str = ".version 7.0\n.target sm_20\n.address_size 64\n\n\
        .visible .entry compression_split(.param .u64 out)\n{\n    .reg .b32 %r<8>;\n\
        mov.u32 %r1, %tid.x;\nmul.lo.u32 %r2, %r1, 32768;\nadd.u32 %r3, %r2, 7;\n\
        mul.lo.u32 %r4, %r1, 2048;\nadd.u32 %r5, %r4, %r2;\nadd.u32 %r6, %r5, %r3;\nret;\n}\n";
    const LAUNCH: &str =
        r#"{"kernel": "compression_split", "block": [32], "params": [{"buffer": {"type": "u32", "len": 1}}]}"#;

    fn run(schemes: &[&str]) -> Vec<crate::timing::Report> {
        let module = crate::ptx::compile(PTX);
        let setup = LaunchSetup::from_json(LAUNCH);
        let gpu = crate::gpu::presets::by_name("fermi-gtx480");
        let (Ok(module), Ok(setup), Some(gpu)) = (module, setup, gpu) else { return Vec::new() };
        let sim = Simulation::from_launch(&module, &setup, &gpu, schemes, TimingOptions::default());
        let mut reports = sim.and_then(|mut s| s.run_to_end()).unwrap_or_default();
        reports.iter_mut().for_each(|r| r.locate(PTX));
        reports
    }

    /// The hand-worked allocation of `compression_split.ptx` (its comment): %r1 R0 slices 0–1
    /// over [1, 6]; %r2 R0 2–6 (a fit); %r3 R2 0–4; %r4 split: R2 5–7 (0xe0), then R0 slice 0;
    /// %r5 and %r6 R0 0–5 (0x3f). Registers 4 → 3. Instructions on lines 8 … 14.
    #[test]
    fn the_report_carries_the_hand_worked_allocation() {
        let reports = run(&["baseline", "compression:float_tuning=false"]);
        assert_eq!(reports.len(), 2);
        assert!(reports.first().is_some_and(|r| r.slice_map.is_none()), "only compression reports carry a map");
        let map = reports.get(1).and_then(|r| r.slice_map.clone()).unwrap_or_default();
        assert_eq!(map.slice_bits, 4);
        let Some(f) = map.functions.first() else { return assert!(!map.functions.is_empty()) };
        assert_eq!((f.registers_before, f.registers_after, f.kept.as_deref()), (4, 3, None));
        assert_eq!(f.lines, [8, 9, 10, 11, 12, 13, 14]);
        type Row<'a> = (&'a str, u32, Vec<(u32, u8)>, (u32, u32));
        let got: Vec<Row> = f.values.iter().map(|v| (v.name.as_str(), v.bits, v.pieces.clone(), v.live)).collect();
        let want: Vec<Row> = Vec::from([
            ("%r1", 5, Vec::from([(0, 0x03)]), (1, 6)),
            ("%r2", 20, Vec::from([(0, 0x7c)]), (3, 8)),
            ("%r3", 20, Vec::from([(2, 0x1f)]), (5, 10)),
            ("%r4", 16, Vec::from([(2, 0xe0), (0, 0x01)]), (7, 8)),
            ("%r5", 21, Vec::from([(0, 0x3f)]), (9, 10)),
            ("%r6", 21, Vec::from([(0, 0x3f)]), (11, 11)),
        ]);
        assert_eq!(got, want);
        // %r4 lives into instruction 4 (half position 8) but not after it (9).
        let r4 = f.values.get(3).cloned().unwrap_or_default();
        assert!(r4.live_at(8) && !r4.live_at(9));
    }
}
