//! The reducer's kernel, GPU and launch actions and what they recompute: the annotated listing of
//! the selected kernel and the occupancy view; the settings' text form for local storage.
//! Runs natively (`cargo test -p web-app`) and in the browser (`--target wasm32-unknown-unknown`).

use std::rc::Rc;

use sim_core::occupancy::Resource;
use wasm_bindgen_test::wasm_bindgen_test;
use web_app::lab::LabAction;
use web_app::launch_model::LaunchEdit;
use web_app::model::kernel::KernelStatus;
use web_app::model::occupancy::{GpuSettings, Source, DEFAULT_PRESET};
use web_app::settings::{GpuField, LaunchField, Settings};
use web_app::state::{Action, AppState};
use yew::{AttrValue, Reducible};

#[cfg(target_arch = "wasm32")]
wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);

fn reduce(state: &Rc<AppState>, action: Action) -> Rc<AppState> {
    Rc::clone(state).reduce(action)
}

fn example(id: &str) -> Rc<AppState> {
    reduce(&Rc::new(AppState::with_default_example()), Action::LoadExample(id.into()))
}

/// What the lab effect does on the page: tell the lab the text's kernels (it picks the shipped launch).
fn synced(state: Rc<AppState>) -> Rc<AppState> {
    let names = state.kernel.entries.clone();
    let example = state.example;
    reduce(&state, Action::Lab(LabAction::Kernels { names, example }))
}

fn edit_launch(state: &Rc<AppState>, edit: LaunchEdit) -> Rc<AppState> {
    reduce(state, Action::Lab(LabAction::Edit(edit)))
}

fn blocks_and_binding(state: &AppState) -> (u32, Vec<Resource>) {
    let o = state.occupancy.result.as_ref();
    assert!(o.is_ok(), "the calculator refused the input: {o:?}");
    o.map_or((u32::MAX, Vec::new()), |o| (o.blocks_per_sm, o.binding.clone()))
}

#[wasm_bindgen_test(unsupported = test)]
fn the_listing_has_live_counts_for_the_lines_of_the_kernel() {
    let state = example("imgvf");
    let k = &state.kernel;
    assert_eq!(k.status, KernelStatus::Analysed);
    assert_eq!(k.kernel.as_deref(), Some("_Z9imgvfStepPKfS0_Pfiifffff"));
    assert!(k.lines.len() > 40, "{} lines", k.lines.len());
    assert!(k.max_live > 10 && k.lines.values().any(|f| f.live == k.max_live));
    let line = k.max_live_line.unwrap_or(0) as usize;
    assert!(state.source.lines().nth(line - 1).is_some_and(|l| l.trim_end().ends_with(';')));
    assert!(k.lines.values().any(|f| f.uniform), "kernel parameters are uniform");
    assert!(k.lines.values().flat_map(|f| &f.defs).any(|d| d.register.starts_with("%f") && d.bits == 32));
    let estimate = k.registers.map(|r| r.allocated).unwrap_or(0);
    assert!(estimate > 8, "{estimate}");
    assert_eq!(state.occupancy.registers.value, estimate);
    assert_eq!(state.occupancy.registers.source, Source::Estimate);
    assert_eq!((state.occupancy.threads.value, state.occupancy.threads.source), (256, Source::Assumed));
}

#[wasm_bindgen_test(unsupported = test)]
fn static_shared_memory_comes_from_the_kernel() {
    let state = example("matmul_tiled");
    assert_eq!(state.kernel.shared.static_bytes, 2048);
    assert_eq!(state.occupancy.static_shared, 2048);
}

#[wasm_bindgen_test(unsupported = test)]
fn launch_edits_give_the_worked_fermi_check() {
    let state = synced(example("imgvf"));
    assert_eq!(state.occupancy.threads.source, Source::Launch, "{:?}", state.occupancy.launch_note);
    let state = reduce(&state, Action::SelectGpu("fermi-gtx480".into()));
    assert_eq!(state.kernel.registers.map(|r| r.target_sm), Some(52), "cc 2.0 is estimated as sm_52");
    // Threads per block and dynamic shared memory come from the launch setup.
    let state = edit_launch(&state, LaunchEdit::Block(0, "320".into()));
    let state = edit_launch(&state, LaunchEdit::Block(1, "1".into()));
    let state = edit_launch(&state, LaunchEdit::Block(2, "1".into()));
    let dynamic = 14_560 - state.occupancy.static_shared;
    let state = edit_launch(&state, LaunchEdit::DynamicSmem(dynamic.to_string()));
    assert_eq!((state.occupancy.threads.value, state.occupancy.threads.source), (320, Source::Launch));
    assert_eq!(state.occupancy.static_shared + state.occupancy.dynamic_shared, 14_560);
    assert_eq!(state.occupancy.launch_note, None);
    let fifty_two = reduce(&state, Action::EditLaunch(LaunchField::Registers, Some(52)));
    assert_eq!(blocks_and_binding(&fifty_two), (1, vec![Resource::Registers]));
    assert_eq!(format!("{:.1}", fifty_two.occupancy.result.as_ref().map_or(0.0, |o| o.occupancy) * 100.0), "20.8");
    let twenty_nine = reduce(&fifty_two, Action::EditLaunch(LaunchField::Registers, Some(29)));
    assert_eq!(blocks_and_binding(&twenty_nine), (3, vec![Resource::Registers, Resource::SharedMemory]));
    // Only the occupancy is recomputed for a launch edit; the listing is kept as it is.
    assert!(Rc::ptr_eq(&fifty_two.kernel, &twenty_nine.kernel));
    // Clearing the override goes back to the estimate.
    let cleared = reduce(&twenty_nine, Action::EditLaunch(LaunchField::Registers, None));
    assert_eq!(cleared.occupancy.registers.source, Source::Estimate);
    // A setting that does not change is no new state.
    assert!(Rc::ptr_eq(&cleared, &reduce(&cleared, Action::EditLaunch(LaunchField::Registers, None))));
}

#[wasm_bindgen_test(unsupported = test)]
fn an_invalid_launch_falls_back_to_the_kernels_default_and_says_so() {
    let state = synced(example("vector_add"));
    assert_eq!((state.occupancy.threads.value, state.occupancy.threads.source), (256, Source::Launch));
    let bad = edit_launch(&state, LaunchEdit::Block(0, "0".into()));
    assert!(bad.lab.invalid.is_some());
    assert_eq!((bad.occupancy.threads.value, bad.occupancy.threads.source), (256, Source::Assumed));
    assert!(bad.occupancy.launch_note.as_deref().is_some_and(|n| n.contains("not runnable")));
    let small = edit_launch(&state, LaunchEdit::Block(0, "64".into()));
    assert_eq!((small.occupancy.threads.value, small.occupancy.launch_note.clone()), (64, None));
}

#[wasm_bindgen_test(unsupported = test)]
fn one_kernel_drives_listing_occupancy_and_launch() {
    let state = synced(example("reduction"));
    let shown = state.kernel.kernel.clone();
    assert_eq!(state.lab.kernel(), shown.as_deref());
    let second = reduce(&state, Action::SelectKernel("_Z17reduceWarpShufflePKfPfi".into()));
    assert_eq!(second.kernel.kernel.as_deref(), Some("_Z17reduceWarpShufflePKfPfi"));
    // The shipped launch is a sequence of both kernels: it is kept, and each kernel's step gives its shape.
    assert!(Rc::ptr_eq(&state.lab.setup, &second.lab.setup));
    assert_eq!(second.occupancy.threads.source, Source::Launch, "{:?}", second.occupancy.launch_note);
    // A single-launch setup follows the pick (a proposal for the picked kernel).
    let single = reduce(
        &second,
        Action::Lab(LabAction::EditJson(state.lab.setup.to_json().replace("\"launches\"", "\"x_launches\""))),
    );
    let single = if single.lab.single_launch() { single } else { second.clone() };
    let first = reduce(&single, Action::SelectKernel("_Z12reduceSharedPKfPfi".into()));
    assert_eq!(first.kernel.kernel.as_deref(), Some("_Z12reduceSharedPKfPfi"));
    if single.lab.single_launch() {
        assert_eq!(first.lab.kernel(), Some("_Z12reduceSharedPKfPfi"), "the launch follows the pick");
    }
    assert_eq!(first.occupancy.static_shared, 1024);
}

#[wasm_bindgen_test(unsupported = test)]
fn gpu_presets_and_edits() {
    let state = example("vector_add");
    assert_eq!(state.settings.gpu.preset, DEFAULT_PRESET);
    let edited = reduce(&state, Action::EditGpu(GpuField::Registers, Some(131_072)));
    assert_eq!(edited.occupancy.gpu.as_ref().map(|g| g.registers), Some((131_072, 65_536)));
    // Another preset drops the edits; an unknown one is ignored.
    let fermi = reduce(&edited, Action::SelectGpu("fermi-gtx480".into()));
    assert_eq!(fermi.settings.gpu, GpuSettings { preset: "fermi-gtx480".into(), ..GpuSettings::default() });
    assert!(Rc::ptr_eq(&fermi, &reduce(&fermi, Action::SelectGpu("no-such-gpu".into()))));
    let gcn = reduce(&fermi, Action::SelectGpu("gcn3-cu".into()));
    let limits: Vec<Resource> =
        gcn.occupancy.result.as_ref().map(|o| o.limits.iter().map(|l| l.resource).collect()).unwrap_or_default();
    assert_eq!(limits, [Resource::WaveSlots, Resource::Vgprs, Resource::Sgprs, Resource::Lds]);
    assert!(gcn.occupancy.sgprs.is_some());
}

#[wasm_bindgen_test(unsupported = test)]
fn the_kernel_picker_selects_what_is_analysed() {
    let state = example("reduction");
    assert_eq!(state.kernel.entries, ["_Z12reduceSharedPKfPfi", "_Z17reduceWarpShufflePKfPfi"]);
    assert_eq!(state.kernel.kernel.as_deref(), Some("_Z12reduceSharedPKfPfi"));
    let second = reduce(&state, Action::SelectKernel("_Z17reduceWarpShufflePKfPfi".into()));
    assert_eq!(second.kernel.kernel.as_deref(), Some("_Z17reduceWarpShufflePKfPfi"));
    assert_eq!(second.kernel.shared.static_bytes, 0);
    assert_eq!(state.kernel.shared.static_bytes, 1024);
    assert!(second.kernel.lines.keys().all(|&l| l > 120), "lines of the second kernel only");
}

#[wasm_bindgen_test(unsupported = test)]
fn a_broken_edit_keeps_the_last_listing_marked_stale() {
    let state = example("imgvf");
    let broken = reduce(&state, Action::Edit(AttrValue::from(state.source.replace("ret;", "rett;"))));
    assert_eq!(broken.analysis.kernels.len(), 0);
    assert!(Rc::ptr_eq(&state.kernel, &broken.kernel));
    assert!(broken.kernel_stale() && !state.kernel_stale());
}

#[wasm_bindgen_test(unsupported = test)]
fn settings_round_trip_through_text() {
    let settings = Settings {
        kernel: Some("_Z9imgvfStepPKfS0_Pfiifffff".into()),
        gpu: GpuSettings { preset: "fermi-gtx480".into(), sm_count: Some(30), registers: None, warps: Some(64) },
        registers: Some(52),
        sgprs: None,
    };
    let text = settings.to_text();
    assert!(text.contains("gpu=fermi-gtx480\n") && text.contains("ptxas_registers=52"), "{text}");
    assert_eq!(Settings::from_text(&text), settings);
    // Unknown keys and bad numbers are skipped; an unknown preset falls back when applied.
    let odd = Settings::from_text("future=1\nthreads=lots\ngpu=tomorrow-gpu\nsgprs=24");
    assert_eq!((odd.registers, odd.sgprs), (None, Some(24)));
    let state = AppState::with_default_example().with_settings(odd);
    assert_eq!(state.settings.gpu.preset, DEFAULT_PRESET);
}

/// A kernel of `n` dependent adds.
fn long_kernel(n: usize) -> String {
    let adds: String = (1..=n).map(|i| format!("\tadd.s32 %r{}, %r{}, 1;\n", i + 1, i)).collect();
    format!(
        ".version 8.5\n.target sm_75\n.address_size 64\n.visible .entry k()\n{{\n\t.reg .b32 %r<{}>;\n\tmov.u32 %r1, %tid.x;\n{adds}\tret;\n}}\n",
        n + 2
    )
}

#[wasm_bindgen_test(unsupported = test)]
fn large_kernels_are_analysed_after_a_pause_in_typing() {
    let state = example("imgvf");
    let typed = reduce(&state, Action::Edit(AttrValue::from(long_kernel(900))));
    assert_eq!(typed.analysis.kernels.len(), 1);
    assert!(typed.kernel_pending() && typed.kernel_stale());
    assert!(Rc::ptr_eq(&typed, &reduce(&typed, Action::AnalyzeKernel(typed.analysis.revision - 1))));
    let analysed = reduce(&typed, Action::AnalyzeKernel(typed.analysis.revision));
    assert!(!analysed.kernel_pending() && !analysed.kernel_stale());
    assert_eq!(analysed.kernel.kernel.as_deref(), Some("k"));
    assert_eq!(analysed.kernel.lines.len(), 902);
    // A small kernel is analysed on every edit.
    let small = reduce(&analysed, Action::Edit(AttrValue::from(long_kernel(20))));
    assert!(!small.kernel_pending());
    assert_eq!(small.kernel.lines.len(), 22);
}

#[wasm_bindgen_test(unsupported = test)]
fn the_schemes_analyses_mark_the_listing() {
    let state = example("matmul_tiled");
    let k = &state.kernel;
    assert!(k.facts.bitwidths && k.facts.single_use_loads && k.facts.composite_pairs);
    assert!(k.lines.values().any(|f| f.single_use_load), "DeMO single-use loads");
    assert!(k.lines.values().any(|f| f.composite_pair), "composite pairs");
    let narrow = k.lines.values().flat_map(|f| &f.defs).find(|d| d.bits < d.declared_bits);
    assert!(narrow.is_some_and(|d| d.declared_bits == 32 || d.declared_bits == 64), "{narrow:?}");
}

#[wasm_bindgen_test(unsupported = test)]
fn a_debug_module_is_estimated_as_unoptimised_code_on_any_gpu() {
    // `nvcc -G` code (`.target …, debug`) for an sm_80 module, estimated for a Fermi preset
    // (sm_52): the compile mode stays the module's. Debug code keeps the pointer parameter in
    // registers from the start, so at `mul.wide` %rd1 (2), %r1 and %rd2 (2) are live with R1
    // reserved: 6. Optimised, %rd1 is a constant-bank operand of the address's add, so only %r1
    // and the address pair (2) with R1: 4.
    let debug = ".version 7.0\n.target sm_80, debug\n.address_size 64\n\
        .visible .entry k(.param .u64 p)\n{\n.reg .b32 %r<2>; .reg .b64 %rd<4>;\n\
        ld.param.u64 %rd1, [p];\n\
        mov.u32 %r1, %tid.x;\n\
        mul.wide.u32 %rd2, %r1, 4;\n\
        add.s64 %rd3, %rd1, %rd2;\n\
        st.global.u32 [%rd3], %r1;\n\
        ret;\n}\n";
    let state = reduce(&example("imgvf"), Action::SelectGpu("fermi-gtx480".into()));
    let state = reduce(&state, Action::Edit(AttrValue::from(debug)));
    let estimate = state.kernel.registers;
    assert_eq!(estimate.map(|r| (r.target_sm, r.debug, r.allocated)), Some((52, true, 6)), "{estimate:?}");
    let state = reduce(&state, Action::Edit(AttrValue::from(debug.replace(", debug", ""))));
    let estimate = state.kernel.registers;
    assert_eq!(estimate.map(|r| (r.target_sm, r.debug, r.allocated)), Some((52, false, 4)), "{estimate:?}");
}
