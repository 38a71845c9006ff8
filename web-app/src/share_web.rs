//! Browser glue for sharing: the page's query string and fragment, removing a fragment once it
//! was read (so a reload shows the saved work, not the link again), the full page's address, and
//! the clipboard. Off the browser (native tests) there is no location: empty values, no effects.
//!
//! ```text
//! https://site/course/reglab/?embed=1#v1.eNq…   query → EmbedOptions, fragment → share::read_fragment
//! full_page_link(e) = https://site/course/reglab/#v1.…   (no query: the full view)
//! ```

use sim_core::experiment::Experiment;

use crate::share;

/// The full page's address carrying `e` (this page's address without query and fragment).
pub fn full_page_link(e: &Experiment) -> String {
    format!("{}#{}", imp::page_base(), share::encode(e))
}

/// The embed address carrying `e` (the full page's, with `options` as its query).
pub fn embed_link(e: &Experiment, options: &str) -> String {
    format!("{}?{options}#{}", imp::page_base(), share::encode(e))
}

/// The iframe snippet for a course page.
pub fn iframe_snippet(src: &str) -> String {
    format!(
        "<iframe src=\"{}\" width=\"100%\" height=\"760\" style=\"max-width:700px;border:1px solid #ccc\" \
         title=\"RegLab\" loading=\"lazy\"></iframe>",
        src.replace('&', "&amp;").replace('"', "&quot;")
    )
}

pub use imp::{clear_fragment, copy_to_clipboard, fragment, query};

#[cfg(target_arch = "wasm32")]
mod imp {
    fn location() -> Option<web_sys::Location> {
        web_sys::window().map(|w| w.location())
    }

    /// The query string (`?…`, or empty).
    pub fn query() -> String {
        location().and_then(|l| l.search().ok()).unwrap_or_default()
    }

    /// The fragment (`#…`, or empty).
    pub fn fragment() -> String {
        location().and_then(|l| l.hash().ok()).unwrap_or_default()
    }

    /// Removes the fragment from the address bar without reloading or adding a history entry.
    pub fn clear_fragment() {
        let Some(window) = web_sys::window() else { return };
        let Ok(history) = window.history() else { return };
        let loc = window.location();
        let url = format!("{}{}", loc.pathname().unwrap_or_default(), loc.search().unwrap_or_default());
        let _ = history.replace_state_with_url(&wasm_bindgen::JsValue::NULL, "", Some(&url));
    }

    /// This page's address without query and fragment.
    pub fn page_base() -> String {
        location()
            .map(|l| format!("{}{}", l.origin().unwrap_or_default(), l.pathname().unwrap_or_default()))
            .unwrap_or_default()
    }

    /// Puts `text` on the clipboard (best effort: the text is also shown to be copied by hand).
    pub fn copy_to_clipboard(text: &str) {
        use wasm_bindgen::JsCast;
        let Some(window) = web_sys::window() else { return };
        let clipboard = js_sys::Reflect::get(&window.navigator(), &"clipboard".into()).ok();
        let Some(clipboard) = clipboard.filter(|c| !c.is_undefined()) else { return };
        let write = js_sys::Reflect::get(&clipboard, &"writeText".into()).ok();
        if let Some(f) = write.and_then(|f| f.dyn_into::<js_sys::Function>().ok()) {
            // A refusal (no permission, not focused) rejects the promise; the link is on screen anyway.
            if let Ok(p) = f.call1(&clipboard, &text.into()) {
                if let Ok(p) = p.dyn_into::<js_sys::Promise>() {
                    let ignore = wasm_bindgen::closure::Closure::<dyn FnMut(wasm_bindgen::JsValue)>::new(|_| {});
                    let _ = p.catch(&ignore);
                    ignore.forget();
                }
            }
        }
    }
}

#[cfg(not(target_arch = "wasm32"))]
mod imp {
    pub fn query() -> String {
        String::new()
    }

    pub fn fragment() -> String {
        String::new()
    }

    pub fn clear_fragment() {}

    pub fn page_base() -> String {
        "./".to_owned()
    }

    pub fn copy_to_clipboard(_text: &str) {}
}
