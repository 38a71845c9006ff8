//! The page's build (feature `page`): the reducer asks the job worker for the selected kernel's
//! view instead of computing it (`kernel_job.rs`). Here the worker's side is called directly
//! ([`kernel_job::execute`], what the worker runs) and its answer dispatched as the page's hook
//! does. Run: `cargo test -p web-app --features page --test kernel_jobs` (scripts/test.sh does).
#![cfg(feature = "page")]

use std::rc::Rc;

use web_app::kernel_job;
use web_app::lab::LabAction;
use web_app::model::kernel::{KernelStatus, KernelView};
use web_app::model::occupancy::Source;
use web_app::state::{Action, AppState};
use yew::{AttrValue, Reducible};

fn reduce(state: &Rc<AppState>, action: Action) -> Rc<AppState> {
    Rc::clone(state).reduce(action)
}

/// What the worker answers to the state's pending ask (`None` if nothing is asked).
fn worker_answer(state: &AppState) -> Option<(u64, Rc<KernelView>)> {
    let ask = state.kernel_wanted.as_ref()?;
    let answer = kernel_job::execute(&ask.request());
    Some((answer.seq, Rc::new(answer.view)))
}

fn answered(state: &Rc<AppState>) -> Rc<AppState> {
    match worker_answer(state) {
        Some((seq, view)) => reduce(state, Action::KernelAnswer(seq, view)),
        None => state.clone(),
    }
}

#[test]
fn the_view_is_asked_and_the_answer_gives_the_listing_and_the_occupancy() {
    let state = Rc::new(AppState::with_default_example());
    // Asked, not computed: no listing yet, and the deferred-analysis timer is not needed.
    let ask = state.kernel_wanted.clone();
    assert!(ask.as_ref().is_some_and(|a| a.seq == 1 && a.revision == 0), "{ask:?}");
    assert_eq!(state.kernel.status, KernelStatus::NotCompiled);
    assert!(state.kernel_stale());
    assert!(!state.kernel_pending());
    let done = answered(&state);
    assert!(done.kernel_wanted.is_none());
    assert_eq!(done.kernel.status, KernelStatus::Analysed);
    assert_eq!(done.kernel.kernel.as_deref(), Some("_Z6vecAddPKfS0_Pfi"));
    assert!(!done.kernel_stale());
    let estimate = done.kernel.registers.map(|r| r.allocated).unwrap_or(0);
    assert!(estimate >= 4, "{estimate}");
    assert_eq!(done.occupancy.registers.value, estimate);
    assert_eq!(done.occupancy.registers.source, Source::Estimate);
}

#[test]
fn an_answer_to_an_older_ask_is_ignored_and_the_same_ask_is_not_repeated() {
    let state = answered(&Rc::new(AppState::with_default_example()));
    let first = reduce(&state, Action::Edit(AttrValue::from(format!("// one\n{}", state.source))));
    let old = worker_answer(&first);
    let second = reduce(&first, Action::Edit(AttrValue::from(format!("// two\n{}", state.source))));
    assert_eq!(second.kernel_wanted.as_ref().map(|a| a.seq), Some(3));
    // The first edit's answer arrives late: nothing changes.
    let (seq, view) = old.unwrap_or_else(|| (0, Rc::default()));
    assert_eq!(seq, 2);
    let late = reduce(&second, Action::KernelAnswer(seq, view));
    assert!(Rc::ptr_eq(&late, &second));
    // The deferred analysis of the same revision does not ask again while the ask is open.
    let again = reduce(&second, Action::AnalyzeKernel(second.analysis.revision));
    assert!(Rc::ptr_eq(&again, &second));
    // The latest answer is the one shown: its lines are one further down than the first's.
    let done = answered(&second);
    let first_line = |s: &AppState| s.kernel.lines.keys().next().copied().unwrap_or(0);
    assert_eq!(first_line(&done), first_line(&state) + 1);
}

#[test]
fn a_text_that_does_not_compile_keeps_the_last_view_without_asking() {
    let state = answered(&Rc::new(AppState::with_default_example()));
    let broken = reduce(&state, Action::Edit(AttrValue::from(format!("{}\n@@@", state.source))));
    assert!(broken.kernel_wanted.is_none());
    assert_eq!(broken.kernel.status, KernelStatus::Analysed);
    assert!(Rc::ptr_eq(&broken.kernel, &state.kernel));
}

#[test]
fn a_crashed_worker_is_said_and_the_page_goes_on() {
    let state = answered(&Rc::new(AppState::with_default_example()));
    let asked = reduce(&state, Action::Edit(AttrValue::from(format!("// x\n{}", state.source))));
    let failed = reduce(&asked, Action::KernelFailed("it ran out of memory".into()));
    assert!(failed.kernel_wanted.is_none());
    assert_eq!(failed.kernel.status, KernelStatus::Failed("it ran out of memory".into()));
    // A failure with nothing asked changes nothing; the next edit asks again.
    assert!(Rc::ptr_eq(&reduce(&failed, Action::KernelFailed("again".into())), &failed));
    let next = reduce(&failed, Action::Edit(AttrValue::from(format!("// y\n{}", state.source))));
    assert_eq!(answered(&next).kernel.status, KernelStatus::Analysed);
}

#[test]
fn the_launch_setups_kernels_arriving_before_the_view_are_synced_after_it() {
    let start = answered(&Rc::new(AppState::with_default_example()));
    let loaded = reduce(&start, Action::LoadExample("imgvf".into()));
    assert!(loaded.kernel_wanted.is_some());
    // The lab hears of the new text's kernels while the view is still asked for.
    let names = vec!["_Z9imgvfStepPKfS0_Pfiifffff".to_owned()];
    let told = reduce(&loaded, Action::Lab(LabAction::Kernels { names, example: loaded.example }));
    assert!(told.kernel_sync_due);
    let done = answered(&told);
    assert!(!done.kernel_sync_due);
    assert_eq!(done.kernel.kernel.as_deref(), Some("_Z9imgvfStepPKfS0_Pfiifffff"));
    assert_eq!(done.lab.kernel(), Some("_Z9imgvfStepPKfS0_Pfiifffff"));
}
