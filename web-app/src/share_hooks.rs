//! Where links meet the page: the first state (a link's, an embed's, or the saved work), links
//! opened later in the same tab (`hashchange`), and keeping the previous work in local storage.
//!
//! ```text
//! full page, #v1.… read → state of the link (saved at once), previous work kept, fragment removed
//!            bad #…     → the saved work, and the message; fragment removed
//! ?embed=1              → the link's state or the default example; local storage never touched
//! ```

use std::rc::Rc;

use gloo::events::EventListener;
use sim_core::experiment::Experiment;
use yew::prelude::*;

use crate::share::{self, Fragment};
use crate::share_state::{example_ids, experiment_of, state_of, EmbedOptions, ShareAction, ShareNotice, ShareState};
use crate::share_web;
use crate::state::{Action, AppContext, AppState, StorageStatus};
use crate::storage;

/// The first state of the page; `local` builds the saved work (not called in an embed).
pub fn initial_state(local: impl FnOnce() -> AppState) -> AppState {
    let embed = EmbedOptions::from_query(&share_web::query());
    let read = share::read_fragment(&share_web::fragment(), &example_ids());
    if embed.embed {
        let (state, notice) = match read {
            Fragment::State(Ok(e)) => (state_of(&e, 0), None),
            Fragment::State(Err(why)) => {
                (AppState::with_default_example(), Some(ShareNotice::Problem(link_problem(&why))))
            }
            _ => (AppState::with_default_example(), None),
        };
        let panels = state.share.panels.clone();
        let share = ShareState { embed, notice, previous: None, panels };
        return AppState { share: Rc::new(share), storage: StorageStatus::Fresh, ..state };
    }
    let local = local();
    let saved_previous = storage::load_previous().and_then(|j| Experiment::from_json(&j, &example_ids()).ok());
    let (state, notice, previous) = match read {
        Fragment::State(Ok(e)) => {
            share_web::clear_fragment();
            open_on_load(local, &e, saved_previous)
        }
        Fragment::State(Err(why)) => {
            share_web::clear_fragment();
            (local, Some(ShareNotice::Problem(link_problem(&why))), saved_previous)
        }
        Fragment::Empty | Fragment::Anchor => (local, None, saved_previous),
    };
    let panels = state.share.panels.clone();
    let share = ShareState { embed, notice, previous: previous.map(Rc::new), panels };
    AppState { share: Rc::new(share), ..state }
}

/// The link's state in place of the saved work `local`, which is kept as the previous work
/// (unless it is the same); the new state is saved at once so a reload keeps it.
fn open_on_load(
    local: AppState,
    e: &Experiment,
    saved_previous: Option<Experiment>,
) -> (AppState, Option<ShareNotice>, Option<Experiment>) {
    let current = experiment_of(&local);
    let notice = Some(ShareNotice::Opened("link"));
    if current == *e {
        return (local, notice, saved_previous);
    }
    let _ = storage::save_previous(Some(&current.to_json()));
    let state = state_of(e, 0);
    // The text is saved by the persistence effect (revision 1); the settings effect skips the
    // first render, so they are saved here.
    let _ = storage::save_settings(&state.settings.to_text());
    let _ = storage::save_schemes(&state.lab.schemes);
    (state, notice, Some(current))
}

/// Links opened later in this tab (pasted into the address bar: `hashchange`) and the previous
/// work kept in local storage while there is one.
#[hook]
pub fn use_share_effects(state: &AppContext) {
    let dispatcher = state.dispatcher();
    use_effect_with((), move |_| {
        let listener = web_sys::window().map(|window| {
            EventListener::new(&window, "hashchange", move |_| {
                match share::read_fragment(&share_web::fragment(), &example_ids()) {
                    Fragment::State(Ok(e)) => {
                        dispatcher.dispatch(Action::Share(ShareAction::Open(Rc::new(*e), "link")))
                    }
                    Fragment::State(Err(why)) => {
                        dispatcher.dispatch(Action::Share(ShareAction::Problem(link_problem(&why))))
                    }
                    Fragment::Empty | Fragment::Anchor => return,
                }
                if !state_is_embed() {
                    share_web::clear_fragment();
                }
            })
        });
        move || drop(listener)
    });
    let embed = state.share.embed.embed;
    use_effect_with(state.share.previous.clone(), move |previous| {
        if !embed {
            let _ = storage::save_previous(previous.as_ref().map(|p| p.to_json()).as_deref());
        }
    });
}

fn state_is_embed() -> bool {
    EmbedOptions::from_query(&share_web::query()).embed
}

/// The notice for a link that cannot be opened.
fn link_problem(why: &share::ShareError) -> String {
    format!("Could not open the link: {why}")
}
