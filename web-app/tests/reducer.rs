//! The `AppState` reducer: edits, example loads and their undo, deferred analysis, reveal requests.
//! Runs natively (`cargo test -p web-app`) and in the browser (`--target wasm32-unknown-unknown`).

use std::rc::Rc;

use wasm_bindgen_test::wasm_bindgen_test;
use web_app::examples;
use web_app::state::{Action, AppState, StorageStatus, SYNC_ANALYSIS_LIMIT};
use yew::{AttrValue, Reducible};

#[cfg(target_arch = "wasm32")]
wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);

fn reduce(state: &Rc<AppState>, action: Action) -> Rc<AppState> {
    Rc::clone(state).reduce(action)
}

fn edit(text: &str) -> Action {
    Action::Edit(AttrValue::from(text.to_owned()))
}

#[wasm_bindgen_test(unsupported = test)]
fn first_visit_shows_the_vector_add_example() {
    let state = AppState::with_default_example();
    assert_eq!(state.example, Some("vector_add"));
    assert!(state.source.contains(".entry _Z6vecAddPKfS0_Pfi("));
    assert_eq!((state.revision, state.modified, state.storage), (0, false, StorageStatus::Fresh));
    assert!(state.analysis.diagnostics.is_empty(), "{:?}", state.analysis.diagnostics);
    assert!(!state.analysis_pending());
}

#[wasm_bindgen_test(unsupported = test)]
fn an_edit_bumps_the_revision_and_is_analysed_at_once() {
    let state = Rc::new(AppState::with_default_example());
    assert_eq!(state.analysis.kernels.len(), 1);
    let broken = state.source.replace("add.f32", "addx.f32");
    let next = reduce(&state, edit(&broken));
    assert_eq!((next.revision, next.modified), (1, true));
    assert_eq!(next.analysis.revision, 1);
    assert!(next.analysis.kernels.is_empty());
    let diag = &next.analysis.diagnostics;
    assert_eq!(diag.len(), 1, "{diag:?}");
    assert_eq!((diag[0].line, diag[0].column), (50, 2));
    assert_eq!(diag[0].message, "unknown instruction 'addx'");
    // The same text again changes nothing (no re-render).
    assert!(Rc::ptr_eq(&next, &reduce(&next, edit(&broken))));
}

#[wasm_bindgen_test(unsupported = test)]
fn loading_an_example_keeps_edited_text_for_restore() {
    let state = Rc::new(AppState::with_default_example());
    let edited = reduce(&state, edit("// my own kernel\n"));
    let loaded = reduce(&edited, Action::LoadExample("matmul_tiled".into()));
    assert_eq!(loaded.example, Some("matmul_tiled"));
    assert!(!loaded.modified);
    assert!(loaded.source.contains("bar.sync"));
    assert_eq!(loaded.replaced.as_deref(), Some("// my own kernel\n"));
    // Loading a second example keeps the user's text, not the first example, for restore.
    let again = reduce(&loaded, Action::LoadExample("hotspot".into()));
    assert_eq!(again.replaced.as_deref(), Some("// my own kernel\n"));
    let restored = reduce(&again, Action::RestoreReplaced);
    assert_eq!(restored.source.as_str(), "// my own kernel\n");
    assert_eq!((restored.example, restored.replaced.clone(), restored.modified), (None, None, true));
    // Unknown ids are ignored.
    assert!(Rc::ptr_eq(&restored, &reduce(&restored, Action::LoadExample("nope".into()))));
}

#[wasm_bindgen_test(unsupported = test)]
fn loading_an_unmodified_example_over_another_needs_no_restore() {
    let state = Rc::new(AppState::with_default_example());
    let loaded = reduce(&state, Action::LoadExample("saxpy".into()));
    assert_eq!(loaded.replaced, None);
    assert_eq!(examples::find("saxpy").map(|e| e.source), Some(loaded.source.as_str()));
}

#[wasm_bindgen_test(unsupported = test)]
fn large_texts_are_analysed_only_when_asked_for_their_revision() {
    let state = Rc::new(AppState::with_default_example());
    let filler = "// filler line of a large module\n".repeat(SYNC_ANALYSIS_LIMIT / 20);
    let big = format!("{}{filler}\n# late\n", state.source);
    let typed = reduce(&state, edit(&big));
    assert!(typed.analysis_pending());
    assert_eq!(typed.analysis.revision, 0);
    let typed_more = reduce(&typed, edit(&format!("{big} ")));
    // A request for a superseded revision is ignored.
    assert!(Rc::ptr_eq(&typed_more, &reduce(&typed_more, Action::Analyze(typed.revision))));
    let analysed = reduce(&typed_more, Action::Analyze(typed_more.revision));
    assert!(!analysed.analysis_pending());
    let diags = &analysed.analysis.diagnostics;
    assert_eq!(diags.len(), 1, "{diags:?}");
    assert!(diags[0].line > 1000);
}

#[wasm_bindgen_test(unsupported = test)]
fn reveal_requests_are_distinct_and_storage_status_is_recorded_once() {
    let state = Rc::new(AppState::with_default_example());
    let a = reduce(&state, Action::RevealLine(7));
    let b = reduce(&a, Action::RevealLine(7));
    assert_eq!(a.reveal.map(|r| r.line), Some(7));
    assert_ne!(a.reveal, b.reveal);
    let saved = reduce(&b, Action::Storage(StorageStatus::Saved));
    assert_eq!(saved.storage, StorageStatus::Saved);
    assert!(Rc::ptr_eq(&saved, &reduce(&saved, Action::Storage(StorageStatus::Saved))));
}

#[wasm_bindgen_test(unsupported = test)]
fn an_unreadable_saved_text_is_kept_aside_until_dismissed() {
    // Garbage found in storage on load: the default example is shown, the garbage kept for download.
    let state = Rc::new(AppState::with_default_example().with_unreadable("\u{0}PK", "it holds control characters"));
    assert_eq!(state.example, Some("vector_add"));
    assert_eq!(state.unreadable.as_ref().map(|u| u.text.as_str()), Some("\u{0}PK"));
    let dismissed = reduce(&state, Action::DismissUnreadable);
    assert_eq!(dismissed.unreadable, None);
    assert!(Rc::ptr_eq(&dismissed, &reduce(&dismissed, Action::DismissUnreadable)), "nothing left to dismiss");
    // A full storage is its own status (the page offers a download).
    assert_eq!(reduce(&dismissed, Action::Storage(StorageStatus::Full)).storage, StorageStatus::Full);
}
