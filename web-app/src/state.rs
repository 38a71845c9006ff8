//! The one [`AppState`] of the page and its reducer: every change goes through an [`Action`].
//! Components read the state from the [`AppContext`] and dispatch actions; nothing else mutates it.
//!
//! ```text
//! Edit(text) → source = text, revision += 1, analysis recomputed now (small text) or later (large)
//!              → kernel view (listing, register estimate; large kernels after a pause) → occupancy
//! SelectGpu / EditLaunch / … → settings changed → occupancy view (kernel view if the target changed)
//! SelectKernel(k) → settings.kernel = k → kernel view, and the launch setup starts over for k
//!                   (a single-launch setup of another kernel) → occupancy view
//! Lab(edit)       → launch setup changed → occupancy view (block x·y·z, dynamic shared memory)
//! ```
//!
//! One source of truth each: the GPU is `settings.gpu` (occupancy panel and timing runs), the launch
//! shape is the lab's setup, the kernel is `settings.kernel` (listing, occupancy, launch proposal).
//!
//! "→ kernel view" is computed in the reducer, except in the page's build (feature `page`), where
//! the reducer records what it wants (`kernel_wanted`) and the job worker answers
//! (`kernel_job.rs`: `KernelAnswer(seq, view)` → kernel view → occupancy), so the page's wasm
//! does not carry the analyses.

use std::rc::Rc;

use yew::{AttrValue, Reducible, UseReducerHandle};

use crate::examples;
use crate::kernel_job::KernelAsk;
use crate::lab::{LabAction, LabState};
use crate::model::kernel::{cheap_to_analyse, KernelStatus, KernelView};
use crate::model::occupancy::{gpu_config, gpu_sm, occupancy_view, GpuSettings, LaunchSettings, OccupancyView};
use crate::model::{self, Analysis};
use crate::settings::{GpuField, LaunchField, Settings};
use crate::share_state::{ShareAction, ShareState};

/// Texts up to this size are analysed on every edit; larger ones after a pause in typing
/// (`Action::Analyze`, scheduled by the app).
pub const SYNC_ANALYSIS_LIMIT: usize = 96 * 1024;

/// Texts larger than this are not analysed after a pause in typing (in a 10 MB module the front end
/// alone holds the page for about half a second); the page offers to check them on request.
pub const AUTO_ANALYSIS_LIMIT: usize = 2 * 1024 * 1024;

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
    /// A saved text that could not be trusted on load: offered as a download, never loaded.
    pub unreadable: Option<Unreadable>,
    /// Selected kernel, GPU and launch (kept in local storage too).
    pub settings: Settings,
    /// The analyses of the selected kernel: of `analysis`, or of the last version that compiled.
    pub kernel: Rc<KernelView>,
    /// The kernel view asked of the job worker and not answered yet (the page's build only:
    /// `kernel_job.rs`; elsewhere the view is computed at once and this stays `None`).
    pub kernel_wanted: Option<KernelAsk>,
    /// The last [`KernelAsk::seq`] given.
    pub kernel_seq: u64,
    /// The launch setup's kernels changed while a view was asked: the selected kernel and the
    /// setup's are made the same once it arrives (`sync_kernel` needs the current view).
    pub kernel_sync_due: bool,
    /// The occupancy of the selected kernel on the GPU with the launch of `settings`.
    pub occupancy: Rc<OccupancyView>,
    /// Launch setup, GPU, schemes and the timing run (`lab.rs`).
    pub lab: Rc<LabState>,
    /// Links, embedding and the previous work a link replaced (`share_state.rs`).
    pub share: Rc<ShareState>,
}

/// "Show line `line` in the editor"; `seq` makes repeated requests for the same line distinct.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Reveal {
    /// Increases with every request.
    pub seq: u64,
    /// 1-based line.
    pub line: u32,
}

/// A saved text that could not be trusted (see `storage::Restored::Unreadable`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unreadable {
    /// What local storage held.
    pub text: AttrValue,
    /// Why it was not loaded, in plain words.
    pub why: &'static str,
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
    /// Local storage cannot be used (private mode, sandboxed iframe); the page still works.
    Unavailable,
    /// Local storage refused the latest text: its quota is full; the page still works.
    Full,
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
    /// Analyse the selected kernel if the text's analysis is still at this revision (scheduled
    /// after a pause in typing, for kernels too large to analyse on every keystroke).
    AnalyzeKernel(u64),
    /// Move the editor's caret to this 1-based line.
    RevealLine(u32),
    /// The result of the latest attempt to save the text.
    Storage(StorageStatus),
    /// Hide the notice about an unreadable saved text (and forget that text).
    DismissUnreadable,
    /// Show this kernel (by name) in the listing and the occupancy panel.
    SelectKernel(String),
    /// Use this GPU preset (its edits are dropped).
    SelectGpu(String),
    /// Change one field of the GPU (`None`: the preset's value).
    EditGpu(GpuField, Option<u32>),
    /// Change one field of the launch (`None`: the kernel's or the default value).
    EditLaunch(LaunchField, Option<u64>),
    /// A change of the launch setup or the run (`lab.rs`).
    Lab(LabAction),
    /// A link or experiment file opened, or its problem (`share_state.rs`).
    Share(ShareAction),
    /// The job worker's view for the ask of this `seq` (the page's build: `kernel_job.rs`).
    KernelAnswer(u64, Rc<KernelView>),
    /// The job worker could not answer the latest ask (it crashed: plain words).
    KernelFailed(String),
}

/// The reducer handle components get from context.
pub type AppContext = UseReducerHandle<AppState>;

impl AppState {
    /// The state for `source`, restored from storage or not.
    pub fn new(source: impl Into<AttrValue>, example: Option<&'static str>, storage: StorageStatus) -> Self {
        let source = source.into();
        let analysis = Rc::new(model::analyze(&source, 0));
        let state = AppState {
            source,
            revision: 0,
            analysis,
            example,
            modified: false,
            replaced: None,
            reveal: None,
            storage,
            unreadable: None,
            settings: Settings::default(),
            kernel: Rc::default(),
            kernel_wanted: None,
            kernel_seq: 0,
            kernel_sync_due: false,
            occupancy: Rc::new(occupancy_view(&KernelView::default(), &Default::default(), &Default::default())),
            lab: Rc::default(),
            share: Rc::default(),
        };
        state.refresh_kernel()
    }

    /// The state of an opened link or experiment file: `source` as a new revision after `after`
    /// (so it is saved like an edit), analysed now unless it is large.
    pub fn opened(source: AttrValue, example: Option<&'static str>, after: u64) -> Self {
        let empty = AppState { revision: after, ..AppState::new("", None, StorageStatus::Restored) };
        let modified = example.and_then(examples::find).is_some_and(|e| e.source != source.as_str());
        AppState { example, modified, ..empty.with_source(source, false) }
    }

    /// The same state with `settings` (restored from storage); an unknown GPU preset (from another
    /// version of the page) falls back to the default.
    pub fn with_settings(self, mut settings: Settings) -> Self {
        if gpu_config(&settings.gpu).is_none() {
            settings.gpu = GpuSettings::default();
        }
        AppState { settings, ..self }.refresh_kernel()
    }

    /// The first-visit state: the default example.
    pub fn with_default_example() -> Self {
        let example = examples::default_example();
        AppState::new(example.map_or("", |e| e.source), example.map(|e| e.id), StorageStatus::Fresh)
    }

    /// The same state with a notice about the unreadable saved `text`.
    pub fn with_unreadable(self, text: impl Into<AttrValue>, why: &'static str) -> Self {
        AppState { unreadable: Some(Unreadable { text: text.into(), why }), ..self }
    }

    /// The state with `lab` as its lab part (a launch restored from storage).
    pub fn with_lab(self, lab: LabState) -> Self {
        AppState { lab: Rc::new(lab), ..self }.refresh_occupancy()
    }

    /// The occupancy calculator's launch input: the launch setup's shape for the selected kernel
    /// and the user's overrides, and why the setup's shape is not used when it is not.
    pub fn occupancy_launch(&self) -> (LaunchSettings, Option<String>) {
        let overrides = LaunchSettings {
            registers: self.settings.registers,
            sgprs: self.settings.sgprs,
            ..LaunchSettings::default()
        };
        match self.lab.shape_for(self.kernel.kernel.as_deref()) {
            Ok((threads, smem)) => {
                (LaunchSettings { threads: Some(threads), dynamic_shared: Some(smem), ..overrides }, None)
            }
            Err(why) => (overrides, Some(why)),
        }
    }

    /// True while `analysis` lags behind `source`.
    pub fn analysis_pending(&self) -> bool {
        self.analysis.revision != self.revision
    }

    /// True while the analysis lags behind a text too large to analyse without being asked.
    pub fn analysis_on_request(&self) -> bool {
        self.analysis_pending() && self.source.len() > AUTO_ANALYSIS_LIMIT
    }

    /// True while the kernel view belongs to an older version of the text (or, in the page's
    /// build, while the job worker computes it).
    pub fn kernel_stale(&self) -> bool {
        self.analysis_pending() || self.kernel.revision != self.analysis.revision || self.kernel_wanted.is_some()
    }

    /// True while the text compiled but its selected kernel waits to be analysed (large kernels
    /// are analysed after a pause in typing: `Action::AnalyzeKernel`).
    pub fn kernel_pending(&self) -> bool {
        self.analysis.compiled.is_some()
            && self.kernel.revision != self.analysis.revision
            && self.kernel_wanted.is_none()
    }

    /// The state for new text; `typing` defers the analyses of a large kernel.
    fn with_source(&self, source: AttrValue, typing: bool) -> Self {
        let revision = self.revision + 1;
        if source.len() > SYNC_ANALYSIS_LIMIT {
            return AppState { source, revision, ..self.clone() };
        }
        let analysis = Rc::new(model::analyze(&source, revision));
        let next = AppState { source, revision, ..self.clone() };
        if typing && analysis.compiled.is_some() && !cheap_to_analyse(&analysis, self.settings.kernel.as_deref()) {
            AppState { analysis, ..next }
        } else {
            AppState { analysis, ..next }.refresh_kernel()
        }
    }

    /// Recomputes the kernel view (and the occupancy) from the analysis and the settings; while
    /// the text does not compile, the view of the last version that did is kept.
    fn refresh_kernel(self) -> Self {
        #[cfg(feature = "page")]
        return self.ask_kernel();
        #[cfg(not(feature = "page"))]
        {
            let view = crate::model::kernel::kernel_view(
                &self.analysis,
                self.settings.kernel.as_deref(),
                gpu_sm(&self.settings.gpu),
            );
            self.with_kernel_view(view)
        }
    }

    /// The state with `view` as the kernel view (and the occupancy that follows); while the text
    /// does not compile, the view of the last version that did is kept.
    fn with_kernel_view(self, view: KernelView) -> Self {
        let keep_old = view.status == KernelStatus::NotCompiled && self.kernel.status == KernelStatus::Analysed;
        if keep_old {
            return self;
        }
        AppState { kernel: Rc::new(view), ..self }.refresh_occupancy()
    }

    /// The page's build: the view of a text that does not compile is known at once; any other is
    /// asked of the job worker (`kernel_job.rs`), unless the same is asked already.
    #[cfg(feature = "page")]
    fn ask_kernel(self) -> Self {
        let Some(compiled) = self.analysis.compiled.clone() else {
            let view = crate::model::kernel::not_compiled(self.analysis.revision);
            return AppState { kernel_wanted: None, ..self }.with_kernel_view(view);
        };
        let (kernel, gpu_sm) = (self.settings.kernel.clone(), gpu_sm(&self.settings.gpu));
        let revision = self.analysis.revision;
        let same = |a: &KernelAsk| {
            a.revision == revision && a.compiled == compiled && a.kernel == kernel && a.gpu_sm == gpu_sm
        };
        if self.kernel_wanted.as_ref().is_some_and(same) {
            return self;
        }
        let seq = self.kernel_seq + 1;
        let ask = KernelAsk { seq, revision, compiled, kernel, gpu_sm };
        AppState { kernel_wanted: Some(ask), kernel_seq: seq, ..self }
    }

    /// Recomputes the occupancy from the kernel view and the settings.
    fn refresh_occupancy(self) -> Self {
        let (launch, launch_note) = self.occupancy_launch();
        let view = occupancy_view(&self.kernel, &self.settings.gpu, &launch);
        let occupancy = Rc::new(OccupancyView { launch_note, ..view });
        AppState { occupancy, ..self }
    }

    /// The state with `settings` changed by `change`; `None` if nothing changed.
    fn change_settings(&self, change: impl FnOnce(&mut Settings)) -> Option<Self> {
        let mut settings = self.settings.clone();
        change(&mut settings);
        if settings == self.settings {
            return None;
        }
        let reanalyse = settings.kernel != self.settings.kernel || gpu_sm(&settings.gpu) != gpu_sm(&self.settings.gpu);
        let next = AppState { settings, ..self.clone() };
        Some(if reanalyse { next.refresh_kernel() } else { next.refresh_occupancy() })
    }

    /// Makes the selected kernel and a single-launch setup's kernel the same one: a kernel the
    /// user picked (and the text still has) wins; otherwise the setup's (an example's shipped
    /// launch) becomes the selection.
    fn sync_kernel(self) -> Self {
        let Some(launched) = self.lab.kernel().map(str::to_owned) else { return self };
        let shown = self.kernel.kernel.clone();
        if !self.lab.single_launch() || shown.as_deref() == Some(launched.as_str()) {
            return self;
        }
        let picked = self.settings.kernel.clone().filter(|k| self.lab.kernels.contains(k));
        match picked {
            Some(k) => {
                let lab = Rc::new(self.lab.reduce(LabAction::SelectKernel(k), &self.source));
                AppState { lab, ..self }
            }
            None if self.kernel.entries.contains(&launched) => {
                let mut settings = self.settings.clone();
                settings.kernel = Some(launched);
                AppState { settings, ..self }.refresh_kernel()
            }
            None => self,
        }
    }
}

impl Reducible for AppState {
    type Action = Action;

    fn reduce(self: Rc<Self>, action: Action) -> Rc<Self> {
        match action {
            Action::Edit(text) if text == self.source || self.share.embed.readonly => self,
            Action::Edit(text) => Rc::new(AppState { modified: true, ..self.with_source(text, true) }),
            Action::LoadExample(id) => match examples::find(&id) {
                Some(example) if example.source == self.source.as_str() => self,
                Some(example) => {
                    let replaced = self.modified.then(|| self.source.clone()).or_else(|| self.replaced.clone());
                    let next = self.with_source(AttrValue::Static(example.source), false);
                    Rc::new(AppState { example: Some(example.id), modified: false, replaced, ..next })
                }
                None => self,
            },
            Action::RestoreReplaced => match self.replaced.clone() {
                Some(text) => {
                    Rc::new(AppState { example: None, modified: true, replaced: None, ..self.with_source(text, false) })
                }
                None => self,
            },
            Action::Analyze(revision) if revision == self.revision && self.analysis_pending() => {
                let analysis = Rc::new(model::analyze(&self.source, revision));
                Rc::new(AppState { analysis, ..(*self).clone() }.refresh_kernel())
            }
            Action::Analyze(_) => self,
            Action::AnalyzeKernel(revision) if revision == self.analysis.revision && self.kernel_pending() => {
                Rc::new((*self).clone().refresh_kernel())
            }
            Action::AnalyzeKernel(_) => self,
            Action::RevealLine(line) => {
                let seq = self.reveal.map_or(1, |r| r.seq + 1);
                Rc::new(AppState { reveal: Some(Reveal { seq, line }), ..(*self).clone() })
            }
            Action::Storage(status) if status == self.storage => self,
            Action::Storage(status) => Rc::new(AppState { storage: status, ..(*self).clone() }),
            Action::DismissUnreadable if self.unreadable.is_none() => self,
            Action::DismissUnreadable => Rc::new(AppState { unreadable: None, ..(*self).clone() }),
            Action::SelectKernel(name) => {
                let changed = self.settings_action(|s| s.kernel = Some(name.clone()));
                let lab = &changed.lab;
                if !lab.single_launch() || lab.kernel() == Some(name.as_str()) || !lab.kernels.contains(&name) {
                    return changed;
                }
                let lab = Rc::new(lab.reduce(LabAction::SelectKernel(name), &changed.source));
                Rc::new(AppState { lab, ..(*changed).clone() }.refresh_occupancy())
            }
            Action::SelectGpu(preset) => {
                let gpu = GpuSettings { preset, ..GpuSettings::default() };
                if gpu.preset == self.settings.gpu.preset || gpu_config(&gpu).is_none() {
                    return self;
                }
                self.settings_action(|s| s.gpu = gpu)
            }
            Action::EditGpu(field, value) => self.settings_action(|s| s.set_gpu(field, value)),
            Action::EditLaunch(field, value) => self.settings_action(|s| s.set_launch(field, value)),
            Action::Share(action) => crate::share_state::reduce(self, action),
            Action::KernelAnswer(seq, view) if self.kernel_wanted.as_ref().is_some_and(|a| a.seq == seq) => {
                let next = AppState { kernel_wanted: None, kernel_sync_due: false, ..(*self).clone() };
                let next = next.with_kernel_view((*view).clone());
                Rc::new(if self.kernel_sync_due { next.sync_kernel() } else { next })
            }
            Action::KernelAnswer(..) => self,
            Action::KernelFailed(_) if self.kernel_wanted.is_none() => self,
            Action::KernelFailed(message) => {
                let view = KernelView {
                    revision: self.analysis.revision,
                    status: KernelStatus::Failed(message),
                    ..(*self.kernel).clone()
                };
                let next = AppState { kernel_wanted: None, kernel_sync_due: false, ..(*self).clone() };
                Rc::new(next.with_kernel_view(view))
            }
            Action::Lab(action) => {
                let kernels_changed = matches!(action, LabAction::Kernels { .. });
                let lab = self.lab.reduce(action, &self.source);
                if lab == *self.lab {
                    return self;
                }
                let next = AppState { lab: Rc::new(lab), ..(*self).clone() };
                let next = match (kernels_changed, next.kernel_wanted.is_some()) {
                    (true, true) => AppState { kernel_sync_due: true, ..next },
                    (true, false) => next.sync_kernel(),
                    (false, _) => next,
                };
                Rc::new(next.refresh_occupancy())
            }
        }
    }
}

impl AppState {
    fn settings_action(self: Rc<Self>, change: impl FnOnce(&mut Settings)) -> Rc<Self> {
        match self.change_settings(change) {
            Some(next) => Rc::new(next),
            None => self,
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
            && self.unreadable == other.unreadable
            && self.settings == other.settings
            && Rc::ptr_eq(&self.kernel, &other.kernel)
            && self.kernel_wanted.as_ref().map(|a| a.seq) == other.kernel_wanted.as_ref().map(|a| a.seq)
            && self.kernel_sync_due == other.kernel_sync_due
            && Rc::ptr_eq(&self.occupancy, &other.occupancy)
            && self.lab == other.lab
            && self.share == other.share
    }
}
