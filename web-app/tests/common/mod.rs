//! DOM helpers shared by the browser component tests.

#![allow(dead_code, reason = "each test file uses some of the helpers")]

use web_sys::Element;

/// A fresh `<div>` appended to the page's body, to mount a component into.
pub fn mount_point() -> Element {
    let document = web_sys::window().unwrap().document().unwrap();
    let root = document.create_element("div").unwrap();
    document.body().unwrap().append_child(&root).unwrap();
    root
}

/// The first element under `root` matching `selector` (the test stops if there is none).
pub fn query(root: &Element, selector: &str) -> Element {
    root.query_selector(selector).unwrap().unwrap_or_else(|| panic!("no element matches {selector}"))
}

/// The text of the first element matching `selector`.
pub fn text(root: &Element, selector: &str) -> String {
    query(root, selector).text_content().unwrap_or_default()
}

/// How many elements under `root` match `selector`.
pub fn count(root: &Element, selector: &str) -> u32 {
    root.query_selector_all(selector).unwrap().length()
}

/// An event that bubbles to the root, where Yew listens.
pub fn bubbling(kind: &str) -> web_sys::Event {
    let init = web_sys::EventInit::new();
    init.set_bubbles(true);
    web_sys::Event::new_with_event_init_dict(kind, &init).unwrap()
}
