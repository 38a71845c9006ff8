//! The kernel picker: a labelled `<select>` of the module's `.entry` kernels, shown when there is
//! more than one. The listing beside the editor and the occupancy panel follow the pick.
//!
//! ```text
//! Kernel: [_Z12reduceSharedPKfPfi ▾]   → on change: on_pick("_Z17reduceWarpShufflePKfPfi")
//! ```

use web_sys::HtmlSelectElement;
use yew::prelude::*;

/// What the picker offers and reports.
#[derive(Properties, PartialEq)]
pub struct KernelPickerProps {
    /// The kernels' names, in source order.
    pub kernels: Vec<AttrValue>,
    /// The kernel shown now.
    pub selected: Option<AttrValue>,
    /// Called with the picked kernel's name.
    pub on_pick: Callback<String>,
}

/// The picker component (nothing when there is at most one kernel).
#[function_component(KernelPicker)]
pub fn kernel_picker(props: &KernelPickerProps) -> Html {
    if props.kernels.len() < 2 {
        return Html::default();
    }
    let on_pick = props.on_pick.clone();
    let onchange = Callback::from(move |e: Event| {
        let select: HtmlSelectElement = e.target_unchecked_into();
        on_pick.emit(select.value());
    });
    html! {
        <div class="kernel-picker">
            <label for="kernel-picker">{ "Kernel" }</label>
            <select id="kernel-picker" onchange={onchange}>
                { for props.kernels.iter().map(|k| html! {
                    <option value={k.clone()} selected={props.selected.as_ref() == Some(k)}>{ k.clone() }</option>
                }) }
            </select>
        </div>
    }
}
