//! Component tests in a real browser for the analysis and occupancy views: chart markup (title,
//! axes with units, ticks, the kernel's point, SVG export, table fallback), the annotated listing
//! beside the editor, the occupancy panel's answer and misfits, and the kernel picker.
//! Run with `CHROMEDRIVER=/usr/bin/chromedriver cargo test -p web-app --target wasm32-unknown-unknown`.

#![cfg(target_arch = "wasm32")]
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    reason = "a test should stop loudly at a missing DOM node"
)]

use std::cell::RefCell;
use std::rc::Rc;

use wasm_bindgen::JsCast;
use wasm_bindgen_test::{wasm_bindgen_test, wasm_bindgen_test_configure};
use web_app::components::chart::{ChartProps, ChartSpec, LineData, LineSeries, Marker, Plot, Table};
use web_app::components::editor::EditorProps;
use web_app::components::kernel_picker::KernelPickerProps;
use web_app::components::occupancy::OccupancyPanelProps;
use web_app::components::occupancy_inputs::InputCallbacks;
use web_app::components::{Chart, Editor, KernelPicker, OccupancyPanel};
use web_app::examples;
use web_app::model::analyze;
use web_app::model::kernel::kernel_view;
use web_app::model::occupancy::{occupancy_view, preset_choices, GpuSettings, LaunchSettings};
use web_sys::HtmlSelectElement;
use yew::{AttrValue, Callback};

wasm_bindgen_test_configure!(run_in_browser);

mod common;
use common::{count, mount_point, query, text};

fn spec() -> ChartSpec {
    let data = LineData {
        series: vec![LineSeries {
            name: "Occupancy".into(),
            points: vec![(1.0, 100.0), (32.0, 100.0), (33.0, 75.0), (64.0, 50.0)],
            ..LineSeries::default()
        }],
        x_label: "Registers per thread (32-bit)".into(),
        y_label: "Occupancy (% of max warps per SM)".into(),
        y_max: Some(100.0),
        x_max: Some(64.0),
        step: true,
        marker: Some(Marker { x: 40.0, y: 75.0, label: "40 registers: 75.0% <&>".into() }),
        ..LineData::default()
    };
    let table = Table {
        headers: ["Registers", "Blocks per SM", "Warps per SM", "Occupancy"].map(str::to_owned).to_vec(),
        rows: vec![vec!["1–32".into(), "2".into(), "48".into(), "100.0%".into()]],
    };
    ChartSpec {
        table: Some(table),
        ..ChartSpec::new("registers", "Occupancy vs registers per thread", Plot::Lines(data)).with_note("A test chart.")
    }
}

#[wasm_bindgen_test]
async fn a_chart_has_title_axes_ticks_point_export_and_table() {
    let root = mount_point();
    let props = ChartProps { spec: Rc::new(spec()) };
    yew::Renderer::<Chart>::with_root_and_props(root.clone(), props).render();
    yew::scheduler::flush().await;

    let svg = query(&root, "figure#chart-registers svg");
    assert_eq!(svg.namespace_uri().as_deref(), Some("http://www.w3.org/2000/svg"));
    assert_eq!(svg.get_attribute("role").as_deref(), Some("img"));
    assert_eq!(svg.get_attribute("tabindex").as_deref(), Some("0"));
    assert_eq!(svg.get_attribute("aria-labelledby").as_deref(), Some("chart-registers-title chart-registers-desc"));
    assert_eq!(text(&root, "svg title"), "Occupancy vs registers per thread");
    assert_eq!(text(&root, "svg .chart-title"), "Occupancy vs registers per thread");
    assert_eq!(text(&root, "svg desc"), "A test chart.");
    assert_eq!(text(&root, "svg .x-label"), "Registers per thread (32-bit)");
    assert_eq!(text(&root, "svg .y-label"), "Occupancy (% of max warps per SM)");
    // 0, 25, 50, 75, 100.
    assert_eq!(count(&root, "svg .y-ticks text"), 5);
    assert!(count(&root, "svg .x-ticks text") >= 4);
    assert_eq!(text(&root, "svg .y-ticks text"), "0");
    assert_eq!(count(&root, "svg polyline.series"), 1);
    assert_eq!(count(&root, "svg .legend"), 0);
    assert_eq!(count(&root, "svg .kernel-point circle"), 1);
    assert_eq!(text(&root, "svg .kernel-point text"), "40 registers: 75.0% <&>");

    let link = query(&root, "a.chart-download");
    assert_eq!(link.get_attribute("download").as_deref(), Some("reglab-registers.svg"));
    let href = link.get_attribute("href").unwrap();
    assert!(href.starts_with("data:image/svg+xml;charset=utf-8,%3Csvg"), "{href}");
    // The download is exactly the markup shown.
    let decoded = js_sys_decode(&href["data:image/svg+xml;charset=utf-8,".len()..]);
    assert_eq!(decoded, spec().svg());
    assert_eq!(svg.parent_element().unwrap().child_element_count(), 1);
    assert_eq!(count(&root, "button.chart-download-png"), 1);

    assert_eq!(text(&root, "details.chart-table summary"), "Data table");
    assert_eq!(count(&root, "details.chart-table thead th"), 4);
    assert_eq!(text(&root, "details.chart-table tbody td"), "1–32");
}

/// `decodeURIComponent`.
fn js_sys_decode(s: &str) -> String {
    let decode = js_sys::Function::new_with_args("s", "return decodeURIComponent(s)");
    decode.call1(&wasm_bindgen::JsValue::NULL, &s.into()).unwrap().as_string().unwrap()
}

#[wasm_bindgen_test]
async fn the_editor_shows_live_registers_beside_the_lines() {
    let root = mount_point();
    let src = examples::find("imgvf").unwrap().source;
    let analysis = Rc::new(analyze(src, 0));
    let kernel = Rc::new(kernel_view(&analysis, None, None));
    let props = EditorProps {
        source: AttrValue::from(src),
        analysis,
        stale: false,
        reveal: None,
        on_edit: Callback::noop(),
        kernel: kernel.clone(),
        kernel_stale: false,
        readonly: false,
        run: None,
    };
    yew::Renderer::<Editor>::with_root_and_props(root.clone(), props).render();
    yew::scheduler::flush().await;

    assert_eq!(count(&root, ".annotations .ann"), count(&root, ".gutter .ln"));
    assert_eq!(count(&root, ".annotations .ann.has-facts") as usize, kernel.lines.len());
    let (line, facts) = kernel.lines.iter().find(|(_, f)| !f.defs.is_empty()).unwrap();
    let row = query(&root, &format!(".ann[data-line=\"{line}\"]"));
    assert_eq!(text(&row, ".ann-live"), facts.live.to_string());
    let title = row.get_attribute("title").unwrap();
    assert!(title.starts_with(&format!("Line {line}: {} × 32-bit registers live", facts.live)), "{title}");
    assert!(title.contains(&format!("Defines {}: ", facts.defs[0].register)), "{title}");
    let peak = query(&root, &format!(".ann[data-live=\"{}\"] .ann-fill", kernel.max_live));
    assert_eq!(peak.get_attribute("class").as_deref(), Some("ann-fill p4"));
    assert!(peak.get_attribute("style").unwrap().contains("width: 100%"));
}

fn panel_props(
    registers: u32,
    launch_cb: Callback<(web_app::settings::LaunchField, Option<u64>)>,
) -> OccupancyPanelProps {
    let gpu = GpuSettings { preset: "fermi-gtx480".into(), ..GpuSettings::default() };
    let launch =
        LaunchSettings { threads: Some(320), dynamic_shared: Some(14_560), registers: Some(registers), sgprs: None };
    let kernel = Rc::new(web_app::model::kernel::KernelView::default());
    OccupancyPanelProps {
        view: Rc::new(occupancy_view(&kernel, &gpu, &launch)),
        kernel,
        gpu,
        launch,
        presets: Rc::new(preset_choices()),
        stale: false,
        callbacks: InputCallbacks { on_gpu: Callback::noop(), on_gpu_field: Callback::noop(), on_launch: launch_cb },
    }
}

#[wasm_bindgen_test]
async fn the_occupancy_panel_shows_blocks_binding_limits_and_charts() {
    let root = mount_point();
    let seen = Rc::new(RefCell::new(Vec::new()));
    let sink = Rc::clone(&seen);
    let props = panel_props(29, Callback::from(move |v| sink.borrow_mut().push(v)));
    yew::Renderer::<OccupancyPanel>::with_root_and_props(root.clone(), props).render();
    yew::scheduler::flush().await;

    assert_eq!(text(&root, "#occ-blocks"), "3");
    assert_eq!(text(&root, "#occ-warps"), "30");
    assert_eq!(text(&root, "#occ-percent"), "62.5%");
    assert_eq!(text(&root, "#occ-binding"), "Binding limits: Registers and Shared memory");
    assert_eq!(count(&root, "#occ-limits tr.binding"), 2);
    assert_eq!(count(&root, "#occ-misfit"), 0);
    assert_eq!(count(&root, "figure.chart"), 3);
    assert_eq!(count(&root, "figure.chart svg .kernel-point"), 3);
    let preset: HtmlSelectElement = query(&root, "#gpu-preset").dyn_into().unwrap();
    assert_eq!(preset.value(), "fermi-gtx480");
    assert_eq!(preset.options().length() as usize, preset_choices().len());
    assert_eq!(query(&root, "label[for=ptxas-registers]").text_content().as_deref(), Some("ptxas says N registers"));

    // The launch shape is the launch setup's, shown here, not a second input.
    assert_eq!(text(&root, "#threads"), "320");
    assert_eq!(count(&root, "input#threads, input#dynamic-smem"), 0);
    assert_eq!(text(&root, "#occ-total-smem"), "14,560 B per block");
    let input: web_sys::HtmlInputElement = query(&root, "#ptxas-registers").dyn_into().unwrap();
    input.set_value("28");
    let init = web_sys::EventInit::new();
    init.set_bubbles(true);
    input.dispatch_event(&web_sys::Event::new_with_event_init_dict("input", &init).unwrap()).unwrap();
    assert_eq!(*seen.borrow(), [(web_app::settings::LaunchField::Registers, Some(28))]);
}

#[wasm_bindgen_test]
async fn no_block_fitting_is_explained() {
    let root = mount_point();
    yew::Renderer::<OccupancyPanel>::with_root_and_props(root.clone(), panel_props(70, Callback::noop())).render();
    yew::scheduler::flush().await;
    assert_eq!(text(&root, "#occ-blocks"), "0");
    let misfit = text(&root, "#occ-misfit");
    assert!(misfit.contains("registers: 70 registers per thread exceed the maximum of 63"), "{misfit}");
    assert_eq!(query(&root, "#occ-misfit").get_attribute("role").as_deref(), Some("alert"));
}

#[wasm_bindgen_test]
async fn the_kernel_picker_appears_for_two_kernels() {
    let root = mount_point();
    let picked = Rc::new(RefCell::new(Vec::<String>::new()));
    let sink = Rc::clone(&picked);
    let props = KernelPickerProps {
        kernels: vec!["a".into(), "b".into()],
        selected: Some("a".into()),
        on_pick: Callback::from(move |k| sink.borrow_mut().push(k)),
    };
    yew::Renderer::<KernelPicker>::with_root_and_props(root.clone(), props).render();
    yew::scheduler::flush().await;
    let select: HtmlSelectElement = query(&root, "select#kernel-picker").dyn_into().unwrap();
    assert_eq!(select.value(), "a");
    select.set_value("b");
    let init = web_sys::EventInit::new();
    init.set_bubbles(true);
    select.dispatch_event(&web_sys::Event::new_with_event_init_dict("change", &init).unwrap()).unwrap();
    assert_eq!(*picked.borrow(), ["b"]);
}
