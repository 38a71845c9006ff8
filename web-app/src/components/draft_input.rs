//! A one-line text field committed on `change` (Enter or leaving the field) that keeps what is
//! typed until then. Yew sets a field's DOM value from its `value` on every render where the two
//! differ, so a field rendered from committed state alone loses uncommitted typing whenever
//! anything else re-renders it (a worker's answer, a run's progress); this one renders the draft
//! while there is one.
//!
//! ```text
//! committed "baseline"   type "baseline rfc-ob"   → draft shown, even across re-renders
//! change (Enter, blur)   → onchange(event), draft dropped → the committed value shown
//! ```

use web_sys::HtmlInputElement;
use yew::prelude::*;

/// Properties of [`DraftInput`].
#[derive(Properties, Clone, PartialEq)]
pub struct DraftInputProps {
    /// The element id.
    pub id: AttrValue,
    /// The committed value (shown when nothing uncommitted is typed).
    pub value: AttrValue,
    /// Called on `change` with the event (its target holds the typed text).
    pub onchange: Callback<Event>,
    /// The form name.
    #[prop_or_default]
    pub name: Option<AttrValue>,
    /// Placeholder text.
    #[prop_or_default]
    pub placeholder: Option<AttrValue>,
    /// Width in characters.
    #[prop_or_default]
    pub size: Option<AttrValue>,
    /// The virtual keyboard hint (`decimal`, …).
    #[prop_or_default]
    pub inputmode: Option<AttrValue>,
}

/// The field (spell checking off: its values are names and numbers).
#[function_component(DraftInput)]
pub fn draft_input(props: &DraftInputProps) -> Html {
    let draft = use_state(|| None::<AttrValue>);
    let oninput = {
        let draft = draft.clone();
        Callback::from(move |e: InputEvent| {
            let input: HtmlInputElement = e.target_unchecked_into();
            draft.set(Some(input.value().into()));
        })
    };
    let onchange = {
        let (draft, commit) = (draft.clone(), props.onchange.clone());
        Callback::from(move |e: Event| {
            draft.set(None);
            commit.emit(e);
        })
    };
    let value = (*draft).clone().unwrap_or_else(|| props.value.clone());
    html! {
        <input type="text" id={props.id.clone()} name={props.name.clone()} value={value}
               placeholder={props.placeholder.clone()} size={props.size.clone()} inputmode={props.inputmode.clone()}
               spellcheck="false" {oninput} {onchange} />
    }
}
