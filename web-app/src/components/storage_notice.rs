//! What the page says about local storage: whether the text is saved (and, when it cannot be, a
//! button that downloads it), and the notice shown when the saved text could not be trusted on load
//! (the default example is shown instead; the saved text can be downloaded, never loaded as source).
//!
//! ```text
//! [Not saved: this browser's storage is full. [Download your text]]
//! ┌ The text saved in this browser could not be read: <why>. The default example is shown. ┐
//! └ [Download the saved text] [Dismiss]                                                     ┘
//! ```

use yew::prelude::*;

use crate::export;
use crate::state::{Action, AppState, StorageStatus};

/// The file name offered for the editor text.
pub const TEXT_FILE: &str = "reglab-kernel.ptx";
/// The file name offered for a saved text that could not be read.
pub const UNREADABLE_FILE: &str = "reglab-saved-text.txt";

/// The storage status beside the document name, with a download when the text is not saved.
pub fn storage_status(state: &AppState) -> Html {
    let text = match state.storage {
        StorageStatus::Fresh => "",
        StorageStatus::Restored => "Restored from this browser",
        StorageStatus::Saved => "Saved in this browser",
        StorageStatus::Unavailable => "Not saved: this browser's local storage is unavailable.",
        StorageStatus::Full => "Not saved: this browser's local storage is full.",
    };
    let unsaved = matches!(state.storage, StorageStatus::Unavailable | StorageStatus::Full);
    let download = unsaved.then(|| {
        let source = state.source.clone();
        let onclick = Callback::from(move |_: MouseEvent| export::download(TEXT_FILE, "text/plain", &source));
        html! {
            <button type="button" id="storage-download" class="storage-download" onclick={onclick}
                    title="Keep a copy: reloading this page would lose the text">{ "Download your text" }</button>
        }
    });
    html! {
        <span class={classes!("storage", unsaved.then_some("warn"))} role={unsaved.then_some("status")}>
            <span id="storage-status">{ text }</span>
            { download }
        </span>
    }
}

/// The notice about a saved text that could not be trusted, if there is one.
pub fn unreadable_notice(state: &AppState, dispatch: &Callback<Action>) -> Html {
    let Some(bad) = &state.unreadable else { return Html::default() };
    let text = bad.text.clone();
    let download = Callback::from(move |_: MouseEvent| export::download(UNREADABLE_FILE, "text/plain", &text));
    let dismiss = dispatch.reform(|_: MouseEvent| Action::DismissUnreadable);
    html! {
        <div class="storage-notice" id="storage-notice" role="alert">
            <p>
                { format!("The text saved in this browser could not be read ({}), so the default example is shown instead. ", bad.why) }
                { "Your next edit replaces the saved text: download it first if you need it." }
            </p>
            <button type="button" id="unreadable-download" onclick={download}>
                { format!("Download the saved text ({} bytes)", bad.text.len()) }
            </button>
            <button type="button" id="unreadable-dismiss" onclick={dismiss}>{ "Dismiss" }</button>
        </div>
    }
}
