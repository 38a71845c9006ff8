//! The one [`AppState`] of the page and its reducer: every change goes through an [`Action`].
//! Components read the state from the [`AppContext`] and dispatch actions; nothing else mutates it.
//!
//! ```text
//! Edit(text) → source = text, revision += 1, analysis recomputed now (small text) or later (large)
//! ```

use std::rc::Rc;

use yew::{AttrValue, Reducible, UseReducerHandle};

use crate::examples;
use crate::lab::{LabAction, LabState};
use crate::model::{self, Analysis};

/// Texts up to this size are analysed on every edit; larger ones after a pause in typing
/// (`Action::Analyze`, scheduled by the app).
pub const SYNC_ANALYSIS_LIMIT: usize = 96 * 1024;

/// The whole state of the page.
#[derive(Clone, Debug)]
pub struct AppState {
    /// The PTX text in the editor.
    pub source: AttrValue,
    /// Bumped on every change of `source`; analyses and saves are tagged with it.
    pub revision: u64,
    /// The analysis of `source`, possibly of an older revision while a large text is being typed.
    pub analysis: Rc<Analysis>,
    /// The example the text came from, if it was loaded from one (and since edited or not).
    pub example: Option<&'static str>,
    /// True once the text differs from what was loaded or restored.
    pub modified: bool,
    /// The text an example load replaced, so the user can take it back.
    pub replaced: Option<AttrValue>,
    /// A request to move the editor's caret to a line (from the diagnostics list).
    pub reveal: Option<Reveal>,
    /// Whether the text is kept in local storage.
    pub storage: StorageStatus,
    /// Launch setup, GPU, schemes and the timing run (`lab.rs`).
    pub lab: Rc<LabState>,
}

/// "Show line `line` in the editor"; `seq` makes repeated requests for the same line distinct.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Reveal {
    /// Increases with every request.
    pub seq: u64,
    /// 1-based line.
    pub line: u32,
}

/// What happened to the editor text and local storage.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StorageStatus {
    /// Nothing saved or restored yet (first visit: the default example is shown).
    Fresh,
    /// The text was restored from local storage on load.
    Restored,
    /// The latest text is saved.
    Saved,
    /// Local storage cannot be used (private mode, sandboxed iframe, quota); the page still works.
    Unavailable,
}

/// Everything that can change the state.
#[derive(Clone, Debug, PartialEq)]
pub enum Action {
    /// The user changed the editor text.
    Edit(AttrValue),
    /// Replace the text with the bundled example of this id.
    LoadExample(String),
    /// Take back the text the last example load replaced.
    RestoreReplaced,
    /// Analyse the text if it is still at this revision (scheduled after a pause in typing).
    Analyze(u64),
    /// Move the editor's caret to this 1-based line.
    RevealLine(u32),
    /// The result of the latest attempt to save the text.
    Storage(StorageStatus),
    /// A change of the launch setup or the run (`lab.rs`).
    Lab(LabAction),
}

/// The reducer handle components get from context.
pub type AppContext = UseReducerHandle<AppState>;

impl AppState {
    /// The state for `source`, restored from storage or not.
    pub fn new(source: impl Into<AttrValue>, example: Option<&'static str>, storage: StorageStatus) -> Self {
        let source = source.into();
        let analysis = Rc::new(model::analyze(&source, 0));
        AppState {
            source,
            revision: 0,
            analysis,
            example,
            modified: false,
            replaced: None,
            reveal: None,
            storage,
            lab: Rc::default(),
        }
    }

    /// The first-visit state: the default example.
    pub fn with_default_example() -> Self {
        let example = examples::default_example();
        AppState::new(example.map_or("", |e| e.source), example.map(|e| e.id), StorageStatus::Fresh)
    }

    /// The state with `lab` as its lab part (a launch restored from storage).
    pub fn with_lab(self, lab: LabState) -> Self {
        AppState { lab: Rc::new(lab), ..self }
    }

    /// True while `analysis` lags behind `source`.
    pub fn analysis_pending(&self) -> bool {
        self.analysis.revision != self.revision
    }

    fn with_source(&self, source: AttrValue) -> Self {
        let revision = self.revision + 1;
        let analysis = if source.len() <= SYNC_ANALYSIS_LIMIT {
            Rc::new(model::analyze(&source, revision))
        } else {
            Rc::clone(&self.analysis)
        };
        AppState { source, revision, analysis, ..self.clone() }
    }
}

impl Reducible for AppState {
    type Action = Action;

    fn reduce(self: Rc<Self>, action: Action) -> Rc<Self> {
        match action {
            Action::Edit(text) if text == self.source => self,
            Action::Edit(text) => Rc::new(AppState { modified: true, ..self.with_source(text) }),
            Action::LoadExample(id) => match examples::find(&id) {
                Some(example) if example.source == self.source.as_str() => self,
                Some(example) => {
                    let replaced = self.modified.then(|| self.source.clone()).or_else(|| self.replaced.clone());
                    let next = self.with_source(AttrValue::Static(example.source));
                    Rc::new(AppState { example: Some(example.id), modified: false, replaced, ..next })
                }
                None => self,
            },
            Action::RestoreReplaced => match self.replaced.clone() {
                Some(text) => {
                    Rc::new(AppState { example: None, modified: true, replaced: None, ..self.with_source(text) })
                }
                None => self,
            },
            Action::Analyze(revision) if revision == self.revision && self.analysis_pending() => {
                let analysis = Rc::new(model::analyze(&self.source, revision));
                Rc::new(AppState { analysis, ..(*self).clone() })
            }
            Action::Analyze(_) => self,
            Action::RevealLine(line) => {
                let seq = self.reveal.map_or(1, |r| r.seq + 1);
                Rc::new(AppState { reveal: Some(Reveal { seq, line }), ..(*self).clone() })
            }
            Action::Storage(status) if status == self.storage => self,
            Action::Storage(status) => Rc::new(AppState { storage: status, ..(*self).clone() }),
            Action::Lab(action) => {
                let lab = self.lab.reduce(action, &self.source);
                if lab == *self.lab {
                    return self;
                }
                Rc::new(AppState { lab: Rc::new(lab), ..(*self).clone() })
            }
        }
    }
}

/// Cheap comparison for context consumers: the text is compared through its revision.
impl PartialEq for AppState {
    fn eq(&self, other: &Self) -> bool {
        self.revision == other.revision
            && self.source.len() == other.source.len()
            && Rc::ptr_eq(&self.analysis, &other.analysis)
            && self.example == other.example
            && self.modified == other.modified
            && self.replaced == other.replaced
            && self.reveal == other.reveal
            && self.storage == other.storage
            && self.lab == other.lab
    }
}
