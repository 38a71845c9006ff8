//! Component tests in a real browser: the editor's gutter, overlay and markers, the results list,
//! and the examples picker, each mounted alone with props.
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
use web_app::components::editor::EditorProps;
use web_app::components::examples_picker::ExamplesPickerProps;
use web_app::components::results::ResultsProps;
use web_app::components::{Editor, ExamplesPicker, Results};
use web_app::examples::EXAMPLES;
use web_app::model::analyze;
use web_sys::{HtmlSelectElement, HtmlTextAreaElement};
use yew::{AttrValue, Callback};

wasm_bindgen_test_configure!(run_in_browser);

mod common;
use common::{bubbling, mount_point, query};

const BAD: &str = ".version 8.5\n.target sm_75\n.address_size 64\n\n.visible .entry k()\n{\n\trett;\n}\n";

#[wasm_bindgen_test]
async fn editor_renders_gutter_overlay_and_diagnostic_marker() {
    let root = mount_point();
    let props = EditorProps {
        source: AttrValue::from(BAD),
        analysis: Rc::new(analyze(BAD, 0)),
        stale: false,
        reveal: None,
        on_edit: Callback::noop(),
        kernel: Rc::default(),
        kernel_stale: false,
        readonly: false,
        run: None,
    };
    yew::Renderer::<Editor>::with_root_and_props(root.clone(), props).render();
    yew::scheduler::flush().await;

    assert_eq!(root.query_selector_all(".gutter .ln").unwrap().length(), 9);
    let marked = query(&root, ".ln.marked");
    assert_eq!(marked.text_content().unwrap(), "●7");
    let title = marked.get_attribute("title").unwrap();
    assert!(title.starts_with("7:2 error: unknown instruction 'rett'"), "{title}");
    assert!(query(&root, ".line-note").text_content().unwrap().contains("unknown instruction 'rett'"));

    let overlay = query(&root, "pre.highlight code").inner_html();
    assert!(overlay.contains("<span class=\"tok-directive\">.version</span>"), "{overlay}");
    assert!(overlay.contains("<span class=\"tok-directive\">.target</span>"), "{overlay}");
    assert!(overlay.contains("<span class=\"tok-opcode\">rett</span>"), "{overlay}");

    let area: HtmlTextAreaElement = query(&root, "textarea#ptx-source").dyn_into().unwrap();
    assert_eq!(area.value(), BAD);
    let label = query(&root, "label[for=ptx-source]");
    assert_eq!(label.text_content().unwrap(), "PTX source");
}

#[wasm_bindgen_test]
async fn editor_reports_edits() {
    let root = mount_point();
    let seen = Rc::new(RefCell::new(Vec::<String>::new()));
    let sink = Rc::clone(&seen);
    let props = EditorProps {
        source: AttrValue::from("ret;"),
        analysis: Rc::new(analyze("ret;", 0)),
        stale: false,
        reveal: None,
        on_edit: Callback::from(move |text: AttrValue| sink.borrow_mut().push(text.to_string())),
        kernel: Rc::default(),
        kernel_stale: false,
        readonly: false,
        run: None,
    };
    yew::Renderer::<Editor>::with_root_and_props(root.clone(), props).render();
    yew::scheduler::flush().await;
    let area: HtmlTextAreaElement = query(&root, "textarea").dyn_into().unwrap();
    area.set_value("ret; exit;");
    area.dispatch_event(&bubbling("input")).unwrap();
    yew::scheduler::flush().await;
    assert_eq!(*seen.borrow(), ["ret; exit;"]);
}

#[wasm_bindgen_test]
async fn results_list_diagnostics_with_line_and_column() {
    let root = mount_point();
    let revealed = Rc::new(RefCell::new(Vec::<u32>::new()));
    let sink = Rc::clone(&revealed);
    let props = ResultsProps {
        analysis: Rc::new(analyze(BAD, 0)),
        stale: false,
        on_reveal: Callback::from(move |line| sink.borrow_mut().push(line)),
        kernel: Rc::default(),
        kernel_stale: false,
    };
    yew::Renderer::<Results>::with_root_and_props(root.clone(), props).render();
    yew::scheduler::flush().await;

    assert_eq!(query(&root, "#count-lines").text_content().unwrap(), "9");
    assert_eq!(query(&root, "#count-kernels").text_content().unwrap(), "—");
    assert_eq!(query(&root, "#count-problems").text_content().unwrap(), "1");
    let item = query(&root, ".diag[data-line=\"7\"]");
    assert_eq!(query(&item, ".diag-loc").text_content().unwrap(), "7:2");
    assert!(query(&item, ".diag-hint").text_content().unwrap().contains("did you mean 'ret'"));
    query(&item, ".diag-loc").dyn_into::<web_sys::HtmlElement>().unwrap().click();
    assert_eq!(*revealed.borrow(), [7]);
}

#[wasm_bindgen_test]
async fn results_say_when_there_is_nothing_wrong() {
    let root = mount_point();
    let src = EXAMPLES[0].source;
    let revealed = Rc::new(RefCell::new(Vec::<u32>::new()));
    let sink = Rc::clone(&revealed);
    let on_reveal = Callback::from(move |line| sink.borrow_mut().push(line));
    let props = ResultsProps {
        analysis: Rc::new(analyze(src, 0)),
        stale: false,
        on_reveal,
        kernel: Rc::default(),
        kernel_stale: false,
    };
    yew::Renderer::<Results>::with_root_and_props(root.clone(), props).render();
    yew::scheduler::flush().await;
    assert_eq!(query(&root, "#no-problems").text_content().unwrap(), "No problems found.");
    assert_eq!(query(&root, "#count-kernels").text_content().unwrap(), "1");
    let row = query(&root, "tr.kernel");
    assert_eq!(query(&row, ".kernel-name").text_content().unwrap(), "_Z6vecAddPKfS0_Pfi");
    assert_eq!(query(&row, ".kernel-insts").text_content().unwrap(), "22");
    query(&row, ".line-link").dyn_into::<web_sys::HtmlElement>().unwrap().click();
    assert_eq!(*revealed.borrow(), [19]);
    assert!(query(&root, "#module-target").text_content().unwrap().starts_with("PTX 8.5 · sm_75"));
}

#[wasm_bindgen_test]
async fn picker_offers_every_example_and_reports_the_pick() {
    let root = mount_point();
    let picked = Rc::new(RefCell::new(Vec::<String>::new()));
    let sink = Rc::clone(&picked);
    let props =
        ExamplesPickerProps { examples: EXAMPLES, on_pick: Callback::from(move |id| sink.borrow_mut().push(id)) };
    yew::Renderer::<ExamplesPicker>::with_root_and_props(root.clone(), props).render();
    yew::scheduler::flush().await;
    let select: HtmlSelectElement = query(&root, "select#example-picker").dyn_into().unwrap();
    assert_eq!(select.options().length() as usize, EXAMPLES.len() + 1);
    select.set_value("hotspot");
    select.dispatch_event(&bubbling("change")).unwrap();
    assert_eq!(*picked.borrow(), ["hotspot"]);
    assert_eq!(select.value(), "");
}

/// A re-render (a worker's answer, a run's progress) while the user is typing in a field
/// committed on `change` keeps the typed text; the change commits it. A plain `<input value=…>`
/// would be reset to the committed value by Yew on that re-render.
#[wasm_bindgen_test]
async fn a_draft_field_keeps_what_is_typed_across_re_renders_until_committed() {
    use web_app::components::draft_input::{DraftInput, DraftInputProps};
    use web_sys::HtmlInputElement;

    let root = mount_point();
    let seen = Rc::new(RefCell::new(Vec::<String>::new()));
    let sink = Rc::clone(&seen);
    let onchange = Callback::from(move |e: web_sys::Event| {
        let input: HtmlInputElement = e.target().unwrap().dyn_into().unwrap();
        sink.borrow_mut().push(input.value());
    });
    let props = |value: &str, placeholder: &str| DraftInputProps {
        id: "draft".into(),
        value: AttrValue::from(value.to_owned()),
        onchange: onchange.clone(),
        name: None,
        placeholder: Some(AttrValue::from(placeholder.to_owned())),
        size: None,
        inputmode: None,
    };
    let mut handle = yew::Renderer::<DraftInput>::with_root_and_props(root.clone(), props("baseline", "a")).render();
    yew::scheduler::flush().await;
    let input: HtmlInputElement = query(&root, "input#draft").dyn_into().unwrap();
    assert_eq!(input.value(), "baseline");
    input.set_value("baseline rfc-ob");
    input.dispatch_event(&bubbling("input")).unwrap();
    yew::scheduler::flush().await;
    // Something else re-renders the field with the same committed value: the typing stays.
    handle.update(props("baseline", "b"));
    yew::scheduler::flush().await;
    assert_eq!(input.get_attribute("placeholder").as_deref(), Some("b"), "re-rendered");
    assert_eq!(input.value(), "baseline rfc-ob");
    assert!(seen.borrow().is_empty());
    input.dispatch_event(&bubbling("change")).unwrap();
    yew::scheduler::flush().await;
    assert_eq!(*seen.borrow(), ["baseline rfc-ob"]);
    // Committed: the field shows the committed value again, whatever it became.
    handle.update(props("baseline rfc-ob:rfc_entries=4", "c"));
    yew::scheduler::flush().await;
    assert_eq!(input.value(), "baseline rfc-ob:rfc_entries=4");
}
