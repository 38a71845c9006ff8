//! The examples picker: a labelled `<select>` of the bundled kernels. Picking one asks to load it;
//! the select then returns to its prompt, so the same example can be picked again after edits.
//!
//! ```text
//! Example: [Load an example…  ▾]   → on change: on_pick("matmul_tiled")
//! ```

use web_sys::HtmlSelectElement;
use yew::prelude::*;

use crate::examples::Example;

/// What the picker offers and reports.
#[derive(Properties, PartialEq)]
pub struct ExamplesPickerProps {
    /// The examples to offer, in order.
    pub examples: &'static [Example],
    /// Called with the id of the picked example.
    pub on_pick: Callback<String>,
}

/// The picker component.
#[function_component(ExamplesPicker)]
pub fn examples_picker(props: &ExamplesPickerProps) -> Html {
    let on_pick = props.on_pick.clone();
    let onchange = Callback::from(move |e: Event| {
        let select: HtmlSelectElement = e.target_unchecked_into();
        let id = select.value();
        select.set_value("");
        if !id.is_empty() {
            on_pick.emit(id);
        }
    });
    html! {
        <div class="examples-picker">
            <label for="example-picker">{ "Example" }</label>
            <select id="example-picker" onchange={onchange}>
                <option value="" selected=true>{ "Load an example…" }</option>
                { for props.examples.iter().map(|e| html! {
                    <option value={e.id} title={e.description}>{ e.title }</option>
                }) }
            </select>
        </div>
    }
}
