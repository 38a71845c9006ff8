//! The root component: creates the one `AppState` reducer, shares it through context, and runs the
//! side effects that follow state changes (saving the text, analysing large texts after a pause).
//! `Workspace` lays out the page and connects the view components to the state.
//!
//! ```text
//! Edit → reducer → render → effects: save to local storage (now, or after a pause for large texts)
//!                                    Analyze(revision) after a pause if the analysis lags
//! ```

use std::cell::RefCell;
use std::rc::Rc;

use gloo::events::EventListener;
use gloo::timers::callback::Timeout;
use yew::prelude::*;

use crate::components::occupancy_inputs::InputCallbacks;
use crate::components::storage_notice::{storage_status, unreadable_notice};
use crate::components::{
    Editor, ExamplesPicker, Footer, Header, KernelPicker, LabArea, OccupancyPanel, Results, ShareBar,
};
use crate::examples::{self, EXAMPLES};
use crate::model::occupancy::preset_choices;
use crate::settings::Settings;
use crate::state::{Action, AppContext, AppState, StorageStatus};
use crate::storage::{self, Restored, SaveError};

/// Texts up to this size are saved on every edit; larger ones after a pause in typing.
const SYNC_SAVE_LIMIT: usize = 256 * 1024;
/// Pause in typing after which a large text is saved, in milliseconds.
const SAVE_DELAY_MS: u32 = 400;
/// Pause in typing after which a large text is analysed, in milliseconds; texts over
/// `SYNC_SAVE_LIMIT` (a 48k-line module takes a noticeable fraction of a second) wait longer.
const ANALYSIS_DELAY_MS: u32 = 250;
const HUGE_ANALYSIS_DELAY_MS: u32 = 600;
/// Pause in typing after which a kernel too large to analyse on every keystroke is analysed.
const KERNEL_ANALYSIS_DELAY_MS: u32 = 300;

/// The page.
#[function_component(App)]
pub fn app() -> Html {
    let state = use_reducer(|| crate::share_hooks::initial_state(initial_state));
    crate::share_hooks::use_share_effects(&state);
    use_persistence(&state);
    use_settings_persistence(&state);
    use_deferred_analysis(&state);
    use_deferred_kernel_analysis(&state);
    crate::kernel_job::use_kernel_jobs(&state);
    html! {
        <ContextProvider<AppContext> context={state}>
            <Workspace />
        </ContextProvider<AppContext>>
    }
}

/// The saved text if there is one, else the default example (with a notice if the saved text
/// could not be trusted); the saved settings if any.
fn initial_state() -> AppState {
    let mut lab = crate::lab::LabState::restored(storage::load_launch().as_deref());
    if let Some(schemes) = storage::load_schemes() {
        lab.schemes = schemes;
    }
    let state = match storage::load_source() {
        Restored::Text(text) => {
            let example = EXAMPLES.iter().find(|e| e.source == text).map(|e| e.id);
            AppState::new(text, example, StorageStatus::Restored)
        }
        Restored::Unreadable { text, why } => AppState::with_default_example().with_unreadable(text, why),
        Restored::Nothing if cfg!(target_arch = "wasm32") && !storage::available() => {
            AppState { storage: StorageStatus::Unavailable, ..AppState::with_default_example() }
        }
        Restored::Nothing => AppState::with_default_example(),
    };
    let state = match storage::load_settings() {
        Some(text) => state.with_settings(Settings::from_text(&text)),
        None => state,
    };
    state.with_lab(lab)
}

/// Saves the settings (kernel, GPU, launch) whenever they change after the first render.
#[hook]
fn use_settings_persistence(state: &AppContext) {
    let first = use_mut_ref(|| true);
    let embed = state.share.embed.embed;
    use_effect_with(state.settings.clone(), move |settings| {
        if !std::mem::replace(&mut *first.borrow_mut(), false) && !embed {
            // A refusal shows in the text's storage status already; settings follow the text.
            let _ = storage::save_settings(&settings.to_text());
        }
    });
}

/// Saves the text after every edit (large texts after a pause, and on `pagehide` if one is pending).
#[hook]
fn use_persistence(state: &AppContext) {
    let pending: Rc<RefCell<Option<Timeout>>> = use_mut_ref(|| None);
    let latest = use_mut_ref(AttrValue::default);
    latest.borrow_mut().clone_from(&state.source);
    let embed = state.share.embed.embed;
    {
        let (pending, latest, dispatcher) = (pending.clone(), latest.clone(), state.dispatcher());
        use_effect_with(state.revision, move |&revision| {
            // Revision 0 is what was just loaded or restored: nothing to save; an embedded page
            // never writes (it would overwrite the work of the full page on the same site).
            if revision > 0 && !embed {
                let text = latest.borrow().clone();
                if text.len() <= SYNC_SAVE_LIMIT {
                    *pending.borrow_mut() = None;
                    save(&text, &dispatcher);
                } else {
                    *pending.borrow_mut() = Some(Timeout::new(SAVE_DELAY_MS, move || save(&text, &dispatcher)));
                }
            }
        });
    }
    let dispatcher = state.dispatcher();
    use_effect_with((), move |_| {
        let listener = web_sys::window().map(|window| {
            EventListener::new(&window, "pagehide", move |_| {
                if pending.borrow_mut().take().is_some() {
                    save(&latest.borrow(), &dispatcher);
                }
            })
        });
        move || drop(listener)
    });
}

fn save(text: &str, dispatcher: &yew::UseReducerDispatcher<AppState>) {
    let status = match storage::save_source(text) {
        Ok(()) => StorageStatus::Saved,
        Err(SaveError::Full) => StorageStatus::Full,
        Err(SaveError::Unavailable) => StorageStatus::Unavailable,
    };
    dispatcher.dispatch(Action::Storage(status));
}

/// Schedules `Action::Analyze` after a pause when the analysis lags behind the text.
#[hook]
fn use_deferred_analysis(state: &AppContext) {
    let timer: Rc<RefCell<Option<Timeout>>> = use_mut_ref(|| None);
    let dispatcher = state.dispatcher();
    let delay = if state.source.len() > SYNC_SAVE_LIMIT { HUGE_ANALYSIS_DELAY_MS } else { ANALYSIS_DELAY_MS };
    let automatic = state.analysis_pending() && !state.analysis_on_request();
    use_effect_with((state.revision, automatic), move |&(revision, automatic)| {
        *timer.borrow_mut() =
            automatic.then(|| Timeout::new(delay, move || dispatcher.dispatch(Action::Analyze(revision))));
    });
}

/// Schedules `Action::AnalyzeKernel` after a pause when a large kernel's analyses lag behind.
#[hook]
fn use_deferred_kernel_analysis(state: &AppContext) {
    let timer: Rc<RefCell<Option<Timeout>>> = use_mut_ref(|| None);
    let dispatcher = state.dispatcher();
    use_effect_with((state.analysis.revision, state.kernel_pending()), move |&(revision, pending)| {
        *timer.borrow_mut() = pending.then(|| {
            Timeout::new(KERNEL_ANALYSIS_DELAY_MS, move || dispatcher.dispatch(Action::AnalyzeKernel(revision)))
        });
    });
}

/// The page layout, connected to the state in context.
#[function_component(Workspace)]
fn workspace() -> Html {
    let state = use_context::<AppContext>();
    let dispatcher = state.as_ref().map(|s| s.dispatcher());
    let dispatch = use_memo(dispatcher, |d| {
        let d = d.clone();
        Callback::from(move |action: Action| {
            if let Some(d) = &d {
                d.dispatch(action);
            }
        })
    });
    let on_edit = use_memo(dispatch.clone(), |d| d.reform(Action::Edit));
    let on_pick = use_memo(dispatch.clone(), |d| d.reform(Action::LoadExample));
    let on_reveal = use_memo(dispatch.clone(), |d| d.reform(Action::RevealLine));
    let on_kernel = use_memo(dispatch.clone(), |d| d.reform(Action::SelectKernel));
    let callbacks = use_memo(dispatch.clone(), |d| InputCallbacks {
        on_gpu: d.reform(Action::SelectGpu),
        on_gpu_field: d.reform(|(field, value)| Action::EditGpu(field, value)),
        on_launch: d.reform(|(field, value)| Action::EditLaunch(field, value)),
    });
    let presets = use_memo((), |_| preset_choices());
    let Some(state) = state else {
        return Html::default();
    };
    let stale = state.analysis_pending();
    let kernel_stale = state.kernel_stale();
    let embed = &state.share.embed;
    let shows = |panel: &str| embed.shows(panel, &state.share.panels);
    html! {
        <div class={classes!("app", embed.embed.then_some("embed"))}>
            if !embed.embed {
                <Header>
                    <ExamplesPicker examples={EXAMPLES} on_pick={(*on_pick).clone()} />
                </Header>
            }
            <ShareBar />
            <main class="workspace">
                if shows("editor") {
                <section class="editor-pane" aria-label="PTX editor">
                    { editor_bar(&state, &dispatch) }
                    <KernelPicker
                        kernels={state.kernel.entries.iter().map(|k| AttrValue::from(k.clone())).collect::<Vec<_>>()}
                        selected={state.kernel.kernel.clone().map(AttrValue::from)}
                        on_pick={(*on_kernel).clone()}
                    />
                    <Editor
                        source={state.source.clone()}
                        analysis={state.analysis.clone()}
                        stale={stale}
                        reveal={state.reveal}
                        on_edit={(*on_edit).clone()}
                        kernel={state.kernel.clone()}
                        kernel_stale={kernel_stale}
                        readonly={embed.readonly}
                        run={match &state.lab.run { crate::lab::RunStatus::Done(o) => Some(o.clone()), _ => None }}
                    />
                    { editor_status(&state, &dispatch) }
                </section>
                }
                if shows("listing") {
                <Results
                    analysis={state.analysis.clone()}
                    stale={stale}
                    on_reveal={(*on_reveal).clone()}
                    kernel={state.kernel.clone()}
                    kernel_stale={kernel_stale}
                />
                }
                if shows("occupancy") {
                <OccupancyPanel
                    view={state.occupancy.clone()}
                    kernel={state.kernel.clone()}
                    gpu={state.settings.gpu.clone()}
                    launch={state.occupancy_launch().0}
                    presets={presets.clone()}
                    stale={kernel_stale}
                    callbacks={(*callbacks).clone()}
                />
                }
            </main>
            <LabArea />
            <Footer />
        </div>
    }
}

/// Above the editor: what the text is, a download link for an unmodified example, "restore", storage.
fn editor_bar(state: &AppState, dispatch: &Callback<Action>) -> Html {
    let example = state.example.and_then(examples::find);
    let name = match example {
        Some(e) => html! { <><span class="doc-title">{ e.title }</span><span class="doc-file">{ e.file }</span></> },
        None => html! { <span class="doc-title">{ "Your kernel" }</span> },
    };
    let download = match example {
        Some(e) if !state.modified => {
            html! { <a class="download" href={format!("./examples/{}", e.file)} download={e.file}>{ "Download .ptx" }</a> }
        }
        _ => Html::default(),
    };
    let restore = state.replaced.is_some().then(|| {
        let onclick = dispatch.reform(|_: MouseEvent| Action::RestoreReplaced);
        html! { <button type="button" class="restore" onclick={onclick}>{ "Restore previous text" }</button> }
    });
    html! {
        <>
            <div class="editor-bar">
                <div class="doc-name">
                    { name }
                    if state.modified { <span class="doc-modified" title="Edited since it was loaded">{ "edited" }</span> }
                </div>
                { download }
                { restore }
                { storage_status(state) }
            </div>
            { unreadable_notice(state, dispatch) }
        </>
    }
}

/// Below the editor: a one-line summary of the problems, also the textarea's description; for a
/// text too large to check as it is typed, a button that checks it.
fn editor_status(state: &AppState, dispatch: &Callback<Action>) -> Html {
    if state.analysis_on_request() {
        let revision = state.revision;
        let onclick = dispatch.reform(move |_: MouseEvent| Action::Analyze(revision));
        let size = format!("{:.1} MB", state.source.len() as f64 / 1e6);
        let limit = crate::state::AUTO_ANALYSIS_LIMIT / (1024 * 1024);
        return html! {
            <div id="editor-status" class="editor-status on-request" aria-live="polite">
                { format!("Not checked as you type: the text is {size}, over {limit} MB (checking holds the page for a moment). ") }
                <button type="button" id="check-now" onclick={onclick}>{ "Check now" }</button>
            </div>
        };
    }
    let diags = &state.analysis.diagnostics;
    let text = match diags.first() {
        _ if state.analysis_pending() => "Checking…".to_owned(),
        None => "No problems found.".to_owned(),
        Some(d) if diags.len() == 1 => format!("1 problem — line {}: {}", d.line, d.message),
        Some(d) => format!("{} problems — first at line {}: {}", diags.len(), d.line, d.message),
    };
    html! {
        <div id="editor-status" class={classes!("editor-status", (!diags.is_empty()).then_some("has-problems"))} aria-live="polite">
            { text }
        </div>
    }
}
