//! The page state and experiments: a link's state opens as it was made, the previous work comes
//! back with one action, a bad link changes nothing, embed options parse.

use super::*;
use yew::Reducible;

fn matmul() -> Experiment {
    let mut e = Experiment::new("volta-v100");
    e.example = Some("matmul_tiled".into());
    e.kernel = Some("_Z11matmulTiledPKfS0_Pfi".into());
    e.schemes = vec!["baseline".into(), "baseline:collector_units=2".into()];
    e
}

#[test]
fn an_experiment_opens_as_it_was_made() {
    let e = matmul();
    let state = state_of(&e, 0);
    assert_eq!((state.example, state.modified, state.revision), (Some("matmul_tiled"), false, 1));
    assert_eq!(state.settings.gpu.preset, "volta-v100");
    assert_eq!(state.lab.origin, LaunchOrigin::Shipped, "the example's own launch, found at once");
    assert_eq!(state.lab.setup.grid, vec![4, 4, 1]);
    assert_eq!(experiment_of(&state), e);
    // An edited text and launch travel in full.
    let mut edited = e.clone();
    edited.source = Some(state.source.replace("matmulTiled", "matmulTiled2"));
    edited.kernel = Some("_Z11matmulTiled2PKfS0_Pfi".into());
    let mut setup = (*state.lab.setup).clone();
    setup.kernel = edited.kernel.clone();
    setup.grid = vec![2, 2, 1];
    edited.launch = Some(setup);
    edited.gpu.sm_count = Some(3);
    edited.ptxas_registers = Some(40);
    let state = state_of(&edited, 5);
    assert_eq!((state.modified, state.revision, state.lab.setup.grid.clone()), (true, 6, vec![2, 2, 1]));
    assert_eq!(state.lab.invalid, None);
    assert_eq!(experiment_of(&state), edited);
}

#[test]
fn a_link_keeps_the_previous_work_and_a_bad_one_changes_nothing() {
    let mine = Rc::new(AppState::with_default_example()).reduce(Action::Edit("// my text".into()));
    let opened = mine.clone().reduce(Action::Share(ShareAction::Open(Rc::new(matmul()), "link")));
    assert_eq!(opened.example, Some("matmul_tiled"));
    assert_eq!(opened.share.notice, Some(ShareNotice::Opened("link")));
    assert!(opened.revision > mine.revision, "saved like an edit");
    let back = opened.reduce(Action::Share(ShareAction::BackToPrevious));
    assert_eq!(back.source.as_str(), "// my text");
    assert_eq!((back.share.previous.is_none(), back.share.notice.clone()), (true, Some(ShareNotice::Restored)));
    let bad = back.clone().reduce(Action::Share(ShareAction::Problem("damaged".into())));
    assert_eq!(bad.source, back.source);
    assert_eq!(bad.share.notice, Some(ShareNotice::Problem("damaged".into())));
}

#[test]
fn embed_options_and_readonly() {
    let o = EmbedOptions::from_query("?embed=1&readonly=1&run=1&panels=editor,occupancy,bogus");
    assert!(o.embed && o.readonly && o.run);
    assert_eq!(o.panels, Some(vec!["editor".to_owned(), "occupancy".to_owned()]));
    assert!(o.shows("occupancy", &[]) && !o.shows("run", &[]));
    let plain = EmbedOptions::from_query("?embed=1");
    assert!(plain.shows("run", &[]) && !plain.shows("occupancy", &[]), "default embed panels: editor, run");
    assert!(plain.shows("occupancy", &["occupancy".to_owned()]), "the experiment's panels");
    assert!(EmbedOptions::from_query("").shows("listing", &[]), "the full page shows everything");
    let state = AppState::with_default_example();
    let locked = Rc::new(AppState { share: Rc::new(ShareState { embed: o, ..ShareState::default() }), ..state });
    let after = locked.clone().reduce(Action::Edit("changed".into()));
    assert!(Rc::ptr_eq(&after, &locked), "a read-only page refuses edits");
}
