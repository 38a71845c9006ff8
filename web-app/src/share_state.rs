//! The page state and a shared [`Experiment`] (links, `.reglab.json` files), both ways, and what
//! the page keeps about sharing: embed options from the query string, the notice about the last
//! link or file opened (or why it could not be), and the previous work it replaced.
//!
//! ```text
//! open a link  → Share(Open(e)): state of e, previous = the state it replaced (one click back)
//! bad link     → Share(Problem(msg)): the state is kept, the message is shown
//! ?embed=1&readonly=1&run=1&panels=editor,run  → EmbedOptions (compact view, no local storage)
//! ```

use std::rc::Rc;

use sim_core::experiment::{Experiment, ExperimentGpu};
use yew::AttrValue;

use crate::examples::{self, EXAMPLES};
use crate::lab::{LabAction, LabState};
use crate::launch_model::LaunchOrigin;
use crate::model::occupancy::GpuSettings;
use crate::model::{KernelKind, Stage};
use crate::settings::Settings;
use crate::state::{Action, AppState};

/// Panels the page has, in page order (`panels=` names).
pub const PANELS: &[&str] = &["editor", "listing", "occupancy", "launch", "run", "diff"];

/// Panels an embedded page shows unless told otherwise.
pub const EMBED_PANELS: &[&str] = &["editor", "run"];

/// How the page was asked to show itself (`?embed=1&readonly=1&run=1&panels=editor,run`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct EmbedOptions {
    /// `embed=1`: the compact view for an iframe; nothing is read from or written to local storage.
    pub embed: bool,
    /// `readonly=1`: the editor refuses edits.
    pub readonly: bool,
    /// `run=1`: run once on load.
    pub run: bool,
    /// `panels=a,b`: the panels to show (known names only; `None`: the default).
    pub panels: Option<Vec<String>>,
}

impl EmbedOptions {
    /// Reads a query string (with or without its `?`); unknown keys and panel names are ignored.
    pub fn from_query(query: &str) -> Self {
        let mut o = EmbedOptions::default();
        let on = |v: &str| matches!(v, "1" | "true" | "yes" | "");
        for pair in query.trim_start_matches('?').split('&') {
            let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
            match k {
                "embed" => o.embed = on(v),
                "readonly" => o.readonly = on(v),
                "run" => o.run = on(v),
                "panels" => {
                    let names = v.split([',', '+', ' ']).filter(|p| PANELS.contains(p)).map(str::to_owned);
                    o.panels = Some(names.collect());
                }
                _ => {}
            }
        }
        o
    }

    /// Whether the page shows `panel`: every panel in the full view; in an embed, those of
    /// `panels=`, else the experiment's (`chosen`), else [`EMBED_PANELS`].
    pub fn shows(&self, panel: &str, chosen: &[String]) -> bool {
        if !self.embed {
            return true;
        }
        match &self.panels {
            Some(p) => p.iter().any(|x| x == panel),
            None if !chosen.is_empty() => chosen.iter().any(|x| x == panel),
            None => EMBED_PANELS.contains(&panel),
        }
    }
}

/// What the page says about sharing.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ShareNotice {
    /// A link or file ("link", "file") was opened as the current state.
    Opened(&'static str),
    /// The previous work was restored.
    Restored,
    /// A link or file could not be opened; the state is unchanged.
    Problem(String),
}

/// Sharing state of the page.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ShareState {
    /// Embed options from the query string.
    pub embed: EmbedOptions,
    /// The latest notice.
    pub notice: Option<ShareNotice>,
    /// The state a link or file replaced, restorable with one click.
    pub previous: Option<Rc<Experiment>>,
    /// The panels the opened experiment names (embed view).
    pub panels: Vec<String>,
}

/// Changes of the sharing state.
#[derive(Clone, Debug, PartialEq)]
pub enum ShareAction {
    /// Open this experiment as the current state; the `&str` says from where ("link", "file").
    Open(Rc<Experiment>, &'static str),
    /// A link or file could not be opened: why.
    Problem(String),
    /// Go back to the previous work.
    BackToPrevious,
    /// Hide the notice; with none shown, let the previous work go.
    Dismiss,
}

/// The bundled examples' ids (what a link may name instead of a text).
pub fn example_ids() -> Vec<&'static str> {
    EXAMPLES.iter().map(|e| e.id).collect()
}

/// The experiment of the current state: an unchanged example by name, its shipped or proposed
/// launch left out, the selected kernel, GPU, overrides, schemes and the embed's panels.
pub fn experiment_of(state: &AppState) -> Experiment {
    let s = &state.settings;
    let mut e = Experiment::new(&s.gpu.preset);
    let example = state.example.and_then(examples::find);
    e.example = example.map(|x| x.id.to_owned());
    e.source = match example {
        Some(x) if x.source == state.source.as_str() => None,
        _ => Some(state.source.to_string()),
    };
    e.kernel = s.kernel.clone();
    let lab = &state.lab;
    let shipped =
        example.and_then(|x| examples::launch_for(x.id)).and_then(|t| sim_core::exec::LaunchSetup::from_json(t).ok());
    let derived = matches!(lab.origin, LaunchOrigin::Shipped | LaunchOrigin::Proposed);
    if !derived && shipped.as_ref() != Some(&*lab.setup) {
        e.launch = Some((*lab.setup).clone());
    }
    e.gpu = ExperimentGpu {
        preset: s.gpu.preset.clone(),
        sm_count: s.gpu.sm_count,
        registers: s.gpu.registers,
        warps: s.gpu.warps,
    };
    e.ptxas_registers = s.registers;
    e.sgprs = s.sgprs;
    e.schemes = lab.schemes.clone();
    e.panels = state.share.panels.clone();
    e
}

/// The page state of `e` (checked already), as a new revision after `after`.
pub fn state_of(e: &Experiment, after: u64) -> AppState {
    let example = e.example.as_deref().and_then(examples::find);
    let source = match (&e.source, example) {
        (Some(s), _) => AttrValue::from(s.clone()),
        (None, Some(x)) => AttrValue::Static(x.source),
        (None, None) => AttrValue::default(),
    };
    let g = &e.gpu;
    let settings = Settings {
        kernel: e.kernel.clone(),
        gpu: GpuSettings { preset: g.preset.clone(), sm_count: g.sm_count, registers: g.registers, warps: g.warps },
        registers: e.ptxas_registers,
        sgprs: e.sgprs,
    };
    let mut lab = match &e.launch {
        Some(l) => LabState::with_setup(l.clone(), LaunchOrigin::Restored),
        None => LabState::default(),
    };
    lab.schemes = e.schemes.clone();
    let state = AppState::opened(source, example.map(|x| x.id), after).with_settings(settings).with_lab(lab);
    let state = AppState { share: Rc::new(ShareState { panels: e.panels.clone(), ..ShareState::default() }), ..state };
    // What the lab's effect would do on the next render, done now: the effect does not fire when
    // the kernel names and example are the same as before the link was opened.
    if state.analysis.stage != Stage::Compiled {
        return state;
    }
    let names = state.analysis.kernels.iter().filter(|k| k.kind == KernelKind::Entry).map(|k| k.name.clone());
    let kernels = LabAction::Kernels { names: names.collect(), example: state.example };
    yew::Reducible::reduce(Rc::new(state), Action::Lab(kernels)).as_ref().clone()
}

/// Applies a sharing action (the `AppState` reducer forwards `Action::Share` here).
pub fn reduce(state: Rc<AppState>, action: ShareAction) -> Rc<AppState> {
    let share = &state.share;
    let with_share = |next: AppState, share: ShareState| Rc::new(AppState { share: Rc::new(share), ..next });
    match action {
        ShareAction::Open(e, from) => {
            let current = experiment_of(&state);
            let previous = if current == *e { share.previous.clone() } else { Some(Rc::new(current)) };
            let next = state_of(&e, state.revision);
            let panels = next.share.panels.clone();
            let notice = Some(ShareNotice::Opened(from));
            with_share(next, ShareState { embed: share.embed.clone(), notice, previous, panels })
        }
        ShareAction::Problem(why) => {
            let notice = Some(ShareNotice::Problem(why));
            with_share((*state).clone(), ShareState { notice, ..(**share).clone() })
        }
        ShareAction::BackToPrevious => match &share.previous {
            Some(p) => {
                let next = state_of(p, state.revision);
                let panels = next.share.panels.clone();
                let notice = Some(ShareNotice::Restored);
                with_share(next, ShareState { embed: share.embed.clone(), notice, previous: None, panels })
            }
            None => state,
        },
        ShareAction::Dismiss if share.notice.is_none() && share.previous.is_none() => state,
        // The notice goes first; once there is none, dismissing lets the previous work go.
        ShareAction::Dismiss if share.notice.is_none() => {
            with_share((*state).clone(), ShareState { previous: None, ..(**share).clone() })
        }
        ShareAction::Dismiss => with_share((*state).clone(), ShareState { notice: None, ..(**share).clone() }),
    }
}

#[cfg(test)]
#[path = "share_state_tests.rs"]
mod tests;
