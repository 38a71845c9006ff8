//! Effects of the lab state: tell the lab when the text's kernels change (so it can propose or pick
//! the shipped launch), and keep the launch setup in local storage.

use yew::prelude::*;

use crate::lab::LabAction;
use crate::model::KernelKind;
use crate::state::{Action, AppState};
use crate::storage;

/// Runs the lab's effects for `state`; `dispatch` receives the resulting actions.
#[hook]
pub fn use_lab_effects(state: &AppState, dispatch: Callback<Action>) {
    let names: Vec<String> =
        state.analysis.kernels.iter().filter(|k| k.kind == KernelKind::Entry).map(|k| k.name.clone()).collect();
    let example = state.example;
    let compiled = state.analysis.stage == crate::model::Stage::Compiled;
    use_effect_with((names, example, compiled), move |(names, example, compiled)| {
        // A text that does not compile keeps the current setup (the user is probably mid-edit).
        if *compiled {
            dispatch.emit(Action::Lab(LabAction::Kernels { names: names.clone(), example: *example }));
        }
    });
    // An embedded page never writes local storage (it would overwrite the full page's work).
    let embed = state.share.embed.embed;
    use_effect_with(state.lab.setup.clone(), move |setup| {
        if !embed {
            storage::save_launch(&setup.to_json());
        }
    });
    use_effect_with(state.lab.schemes.clone(), move |schemes| {
        if !embed {
            storage::save_schemes(schemes);
        }
    });
}
