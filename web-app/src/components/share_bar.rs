//! The share bar: "Copy link", "Embed" (an iframe snippet), "Save experiment" / "Open experiment"
//! (`.reglab.json`), the notice about the last link or file opened with "Back to your previous
//! work"; in an embed, only the notice and "Open in RegLab". Every text from a link or file is
//! rendered as text (Yew escapes it), never as HTML.

use std::cell::RefCell;
use std::rc::Rc;

use gloo::file::callbacks::FileReader;
use sim_core::experiment::{Experiment, MAX_DOCUMENT_BYTES};
use wasm_bindgen::JsCast;
use yew::prelude::*;

use crate::share::MAX_FRAGMENT_CHARS;
use crate::share_state::{example_ids, experiment_of, ShareAction, ShareNotice, EMBED_PANELS, PANELS};
use crate::share_web::{copy_to_clipboard, embed_link, full_page_link, iframe_snippet};
use crate::state::{Action, AppContext, AppState};

/// Links longer than this get a hint that a file travels better.
const LONG_LINK_CHARS: usize = 8 * 1024;

/// What the bar shows under its buttons.
#[derive(Clone, Debug, PartialEq)]
enum Shown {
    Nothing,
    Link(String),
    Embed(EmbedChoice),
    TooLong(usize),
}

/// The embed options chosen in the "Embed" box.
#[derive(Clone, Debug, PartialEq)]
struct EmbedChoice {
    readonly: bool,
    run: bool,
    panels: Vec<&'static str>,
}

impl EmbedChoice {
    /// The query string of these options (`panels=` only when not the default).
    fn query(&self) -> String {
        let mut q = "embed=1".to_owned();
        if self.readonly {
            q.push_str("&readonly=1");
        }
        if self.run {
            q.push_str("&run=1");
        }
        if self.panels != EMBED_PANELS {
            q.push_str(&format!("&panels={}", self.panels.join(",")));
        }
        q
    }
}

/// The share bar (reads the `AppState` context).
#[function_component(ShareBar)]
pub fn share_bar() -> Html {
    let ctx = use_context::<AppContext>();
    let shown = use_state(|| Shown::Nothing);
    let reader: Rc<RefCell<Option<FileReader>>> = use_mut_ref(|| None);
    let Some(state) = ctx else { return Html::default() };
    let dispatch: Callback<Action> = {
        let d = state.dispatcher();
        Callback::from(move |a| d.dispatch(a))
    };
    if state.share.embed.embed {
        return embed_bar(&state, &dispatch);
    }
    let copy = copy_link(&state, &shown);
    let embed = {
        let shown = shown.clone();
        Callback::from(move |_: MouseEvent| {
            shown.set(Shown::Embed(EmbedChoice { readonly: false, run: true, panels: EMBED_PANELS.to_vec() }));
        })
    };
    let save = {
        let state = state.clone();
        Callback::from(move |_: MouseEvent| {
            let text = experiment_of(&state).to_json_pretty();
            crate::export::download("experiment.reglab.json", "application/json", &text);
        })
    };
    let open = open_file(reader, dispatch.clone());
    html! {
        <div class="share">
            <div class="share-bar" role="toolbar" aria-label="Share this experiment">
                <button type="button" id="copy-link" onclick={copy}>{ "Copy link" }</button>
                <button type="button" id="embed-button" onclick={embed}>{ "Embed" }</button>
                <button type="button" id="save-experiment" onclick={save}>{ "Save experiment" }</button>
                <label class="file-button">{ "Open experiment" }
                    <input type="file" id="open-experiment" accept=".json,application/json" onchange={open} />
                </label>
            </div>
            { shown_view(&shown, &state) }
            { notice(&state, &dispatch) }
        </div>
    }
}

/// The bar of an embedded page: the notice, "Read-only", and "Open in RegLab" with the same state.
fn embed_bar(state: &AppState, dispatch: &Callback<Action>) -> Html {
    let href = full_page_link(&experiment_of(state));
    html! {
        <div class="share-bar embed-bar">
            { notice(state, dispatch) }
            if state.share.embed.readonly { <span class="readonly-badge">{ "Read-only" }</span> }
            <a id="open-full" class="open-full" href={href} target="_blank" rel="noopener">{ "Open in RegLab ↗" }</a>
        </div>
    }
}

/// "Copy link": the link to the current state, copied and shown (or why it is too long).
fn copy_link(state: &AppContext, shown: &UseStateHandle<Shown>) -> Callback<MouseEvent> {
    let (state, shown) = (state.clone(), shown.clone());
    Callback::from(move |_: MouseEvent| {
        let link = full_page_link(&experiment_of(&state));
        let fragment = link.split_once('#').map_or(0, |(_, f)| f.len());
        if fragment > MAX_FRAGMENT_CHARS {
            shown.set(Shown::TooLong(fragment));
        } else {
            copy_to_clipboard(&link);
            shown.set(Shown::Link(link));
        }
    })
}

fn shown_view(shown: &UseStateHandle<Shown>, state: &AppState) -> Html {
    let select = Callback::from(|e: FocusEvent| {
        if let Some(el) = e.target().and_then(|t| t.dyn_into::<web_sys::HtmlInputElement>().ok()) {
            el.select();
        }
    });
    match &**shown {
        Shown::Nothing => Html::default(),
        Shown::Link(link) => html! {
            <div class="share-out">
                <label for="share-link">{ format!("Link to this experiment ({} characters; copied to the clipboard where the browser allows it):", link.len()) }</label>
                <input id="share-link" readonly=true value={link.clone()} onfocus={select} />
                if link.len() > LONG_LINK_CHARS {
                    <p class="hint">{ "A long link: some chat and mail programs cut links; \"Save experiment\" makes a file instead." }</p>
                }
            </div>
        },
        Shown::Embed(choice) => embed_view(shown, choice, state),
        Shown::TooLong(n) => html! {
            <p class="share-out field-error" role="alert">{ format!(
                "This experiment needs {n} characters, over the {MAX_FRAGMENT_CHARS} a link may carry: use \"Save experiment\".") }</p>
        },
    }
}

fn notice(state: &AppState, dispatch: &Callback<Action>) -> Html {
    let share = &state.share;
    let back = dispatch.reform(|_: MouseEvent| Action::Share(ShareAction::BackToPrevious));
    let dismiss = dispatch.reform(|_: MouseEvent| Action::Share(ShareAction::Dismiss));
    let back_button = share.previous.is_some().then(|| {
        html! { <button type="button" id="back-to-previous" onclick={back}>{ "Back to your previous work" }</button> }
    });
    let (class, role, text) = match &share.notice {
        Some(ShareNotice::Opened(from)) => {
            ("share-notice", "status", format!("Opened the experiment from the {from}."))
        }
        Some(ShareNotice::Restored) => ("share-notice", "status", "Your previous work is back.".to_owned()),
        Some(ShareNotice::Problem(why)) => ("share-notice problem", "alert", format!("{why}. Your work is unchanged.")),
        None if share.previous.is_some() => {
            ("share-notice", "status", "Your work from before a link was opened is kept.".to_owned())
        }
        None => return Html::default(),
    };
    html! {
        <div id="share-notice" class={class} role={role}>
            <span>{ text }</span>
            { back_button }
            <button type="button" class="dismiss" aria-label="Dismiss" onclick={dismiss}>{ "×" }</button>
        </div>
    }
}

/// Reads a chosen `.reglab.json` file and opens it (or says why not).
fn open_file(reader: Rc<RefCell<Option<FileReader>>>, dispatch: Callback<Action>) -> Callback<Event> {
    Callback::from(move |e: Event| {
        let Some(input) = e.target().and_then(|t| t.dyn_into::<web_sys::HtmlInputElement>().ok()) else { return };
        let Some(file) = input.files().and_then(|f| f.get(0)) else { return };
        input.set_value("");
        let problem = |why: String| Action::Share(ShareAction::Problem(why));
        if file.size() > MAX_DOCUMENT_BYTES as f64 {
            let why = format!(
                "Could not open the file: it is {} bytes, over the limit of {MAX_DOCUMENT_BYTES} bytes",
                file.size()
            );
            dispatch.emit(problem(why));
            return;
        }
        let d = dispatch.clone();
        let task = gloo::file::callbacks::read_as_text(&gloo::file::File::from(file), move |text| {
            let action = match text.map_err(|e| e.to_string()) {
                Ok(t) => match Experiment::from_json(&t, &example_ids()) {
                    Ok(e) => Action::Share(ShareAction::Open(Rc::new(e), "file")),
                    Err(e) => problem(format!("Could not open the file: {e}")),
                },
                Err(e) => problem(format!("Could not read the file ({e})")),
            };
            d.emit(action);
        });
        *reader.borrow_mut() = Some(task);
    })
}

/// The "Embed" box: options (read-only, run on load, panels) and the iframe snippet they give.
fn embed_view(shown: &UseStateHandle<Shown>, choice: &EmbedChoice, state: &AppState) -> Html {
    let snippet = iframe_snippet(&embed_link(&experiment_of(state), &choice.query()));
    let toggle = |change: fn(&mut EmbedChoice, &'static str), what: &'static str| {
        let (shown, choice) = (shown.clone(), choice.clone());
        Callback::from(move |_: Event| {
            let mut next = choice.clone();
            change(&mut next, what);
            shown.set(Shown::Embed(next));
        })
    };
    let panel = |name: &'static str| {
        let onchange = toggle(
            |c, n| {
                if c.panels.contains(&n) {
                    c.panels.retain(|p| *p != n);
                } else {
                    c.panels.push(n);
                    sim_core::sorting::sort_by_key(&mut c.panels, |p| PANELS.iter().position(|x| x == p));
                }
            },
            name,
        );
        html! { <label><input type="checkbox" class="embed-panel" value={name} checked={choice.panels.contains(&name)} onchange={onchange} />{ name }</label> }
    };
    html! {
        <div class="share-out" id="embed-box">
            <fieldset class="embed-options"><legend>{ "Embed options" }</legend>
                <label><input type="checkbox" id="embed-readonly" checked={choice.readonly} onchange={toggle(|c, _| c.readonly = !c.readonly, "")} />{ "read-only" }</label>
                <label><input type="checkbox" id="embed-run" checked={choice.run} onchange={toggle(|c, _| c.run = !c.run, "")} />{ "run on load" }</label>
                <span class="embed-panels">{ "panels:" }{ for PANELS.iter().map(|p| panel(p)) }</span>
            </fieldset>
            <label for="embed-snippet">{ "Paste this into a course page:" }</label>
            <textarea id="embed-snippet" readonly=true rows="3" value={snippet} />
            <p class="hint">{ "In the address: embed=1 compact view; readonly=1 locks the editor; run=1 runs on load; panels=… what is shown (default editor,run)." }</p>
        </div>
    }
}
