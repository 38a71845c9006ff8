//! Component tests in a real browser for the lab: chart markup (title, axes, bars, table
//! fallback) and the launch editor (rows from the setup, an edit reaching the callback).
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
use web_app::components::chart::{BarData, Chart, ChartProps, ChartSpec, Plot, Series};
use web_app::components::launch_editor::LaunchEditorProps;
use web_app::components::LaunchEditor;
use web_app::lab::{LabAction, LabState};
use web_app::launch_model::LaunchEdit;
use web_sys::HtmlInputElement;
use yew::Callback;

wasm_bindgen_test_configure!(run_in_browser);

mod common;
use common::mount_point;

fn data() -> BarData {
    BarData {
        categories: vec!["baseline".into(), "no-bank-conflicts".into()],
        series: vec![Series { name: "IPC".into(), values: vec![1.5, 2.0], colour: 0 }],
        x_label: "Register-file scheme".into(),
        y_label: "warp-instructions / cycle".into(),
        category_colours: true,
        ..BarData::default()
    }
}

#[wasm_bindgen_test]
async fn a_bar_chart_has_title_axes_bars_and_a_table() {
    let root = mount_point();
    let props = ChartProps { spec: Rc::new(ChartSpec::new("ipc", "IPC", Plot::Bars(data()))) };
    yew::Renderer::<Chart>::with_root_and_props(root.clone(), props).render();
    yew::scheduler::flush().await;
    let svg = root.query_selector("svg[role=img]").unwrap().unwrap();
    assert_eq!(svg.get_attribute("aria-labelledby").as_deref(), Some("chart-ipc-title chart-ipc-desc"));
    assert_eq!(root.query_selector("#chart-ipc .chart-title").unwrap().unwrap().text_content().as_deref(), Some("IPC"));
    assert_eq!(svg.query_selector_all(".bars rect").unwrap().length(), 2);
    let text = svg.text_content().unwrap_or_default();
    assert!(text.contains("warp-instructions / cycle") && text.contains("Register-file scheme"), "{text}");
    let cells = root.query_selector_all("details table tbody td").unwrap();
    assert_eq!(cells.length(), 4);
    assert_eq!(cells.item(1).and_then(|c| c.text_content()).as_deref(), Some("1.5"));
}

#[wasm_bindgen_test]
async fn the_launch_editor_shows_the_setup_and_reports_edits() {
    let root = mount_point();
    let src = web_app::examples::find("vector_add").unwrap().source;
    let names = vec!["_Z6vecAddPKfS0_Pfi".to_owned()];
    let lab = LabState::default().reduce(LabAction::Kernels { names, example: Some("vector_add") }, src);
    let seen: Rc<RefCell<Vec<LabAction>>> = Rc::default();
    let sink = seen.clone();
    let props = LaunchEditorProps { lab: Rc::new(lab), on_action: Callback::from(move |a| sink.borrow_mut().push(a)) };
    yew::Renderer::<LaunchEditor>::with_root_and_props(root.clone(), props).render();
    yew::scheduler::flush().await;
    assert_eq!(root.query_selector_all("#launch-params tbody tr").unwrap().length(), 4);
    let grid: HtmlInputElement = root.query_selector("#grid-0").unwrap().unwrap().dyn_into().unwrap();
    assert_eq!(grid.value(), "16");
    grid.set_value("32");
    let init = web_sys::EventInit::new();
    init.set_bubbles(true);
    grid.dispatch_event(&web_sys::Event::new_with_event_init_dict("input", &init).unwrap()).unwrap();
    yew::scheduler::flush().await;
    assert_eq!(seen.borrow().last(), Some(&LabAction::Edit(LaunchEdit::Grid(0, "32".into()))));
}
