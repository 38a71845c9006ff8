//! The "lab" part of the one `AppState`: the launch setup being edited, the schemes chosen, and the
//! state of the timing run (the GPU is the occupancy panel's, `Settings::gpu`; the setup's block
//! size and dynamic shared memory are also what the occupancy panel computes with). Changed only through [`LabAction`]s, which the
//! `AppState` reducer forwards here (`Action::Lab`) together with the editor text.
//!
//! ```text
//! Kernels{names, example} → keep an edited setup whose kernel still exists, else the shipped one
//!                           or a proposal;  Edit(form) / EditJson(text) → setup + inline errors
//! RunStarted(id) → Running → (RunProgress(id, p) | RunPartial(id, per scheme))* → RunFinished(id, reports | failure) / Cancel
//! ```

use std::rc::Rc;

use sim_core::exec::LaunchSetup;

use crate::launch_model::{self, LaunchEdit, LaunchOrigin};
use crate::run_job::{RunFailure, RunOutput, RunProgress};

/// The lab state.
#[derive(Clone, Debug, PartialEq)]
pub struct LabState {
    /// Launchable kernels of the current text (as last synchronised).
    pub kernels: Vec<String>,
    /// The example the setup was chosen for.
    pub example: Option<&'static str>,
    /// The launch setup (always the last valid JSON).
    pub setup: Rc<LaunchSetup>,
    /// Where it came from.
    pub origin: LaunchOrigin,
    /// The JSON view's text while it is open.
    pub json: Option<String>,
    /// The problem with the last edit (bad number, bad JSON), shown beside the field.
    pub edit_error: Option<String>,
    /// The problem with the setup for this kernel (from `sim-core`'s launch checks).
    pub invalid: Option<String>,
    /// Register-file schemes to compare, in registry order.
    pub schemes: Vec<String>,
    /// The run.
    pub run: RunStatus,
    /// Identifier of the latest run started (messages of older runs are ignored).
    pub run_id: u64,
    /// Why the last scheme specs typed were not taken.
    pub scheme_error: Option<String>,
    /// The sweep the last run started was (its results add line charts over the parameter).
    pub sweep: Option<Rc<crate::sweep::SweepPlan>>,
    /// While a run goes on: each scheme's progress and the reports of the schemes whose worker
    /// has finished (`run_pool.rs`); `None` before the first message of a run.
    pub partial: Option<Rc<crate::run_pool::PartialRun>>,
}

/// The scheme name of a spec (`baseline:collector_units=2` → `baseline`).
pub fn scheme_name(spec: &str) -> &str {
    spec.split_once(':').map_or(spec, |(n, _)| n).trim()
}

/// Whether every spec parses and names a known scheme (values are checked when run on a GPU).
fn check_specs(specs: &[String]) -> Result<(), String> {
    for text in specs {
        let spec = sim_core::timing::SchemeSpec::parse(text).map_err(|e| e.to_string())?;
        if sim_core::timing::regfile::registry::by_name(&spec.scheme).is_none() {
            return Err(sim_core::timing::regfile::SchemeConfigError::UnknownScheme { scheme: spec.scheme }.to_string());
        }
    }
    Ok(())
}

/// Where the timing run stands.
#[derive(Clone, Debug, PartialEq)]
pub enum RunStatus {
    /// Nothing run yet.
    Idle,
    /// Running in the worker.
    Running(RunProgress),
    /// Finished: one report per scheme, in the order asked, and the run's host time.
    Done(Rc<RunOutput>),
    /// Failed with a structured error.
    Failed(RunFailure),
    /// Stopped by the user.
    Cancelled,
}

/// Everything that changes the lab state.
#[derive(Clone, Debug, PartialEq)]
pub enum LabAction {
    /// The text's kernels (or the example it came from) changed.
    Kernels {
        /// Launchable kernels.
        names: Vec<String>,
        /// The example the text came from.
        example: Option<&'static str>,
    },
    /// Start over from a proposal for this kernel.
    SelectKernel(String),
    /// Start over from the shipped setup or the proposal for the current kernel.
    Reset,
    /// A form edit.
    Edit(LaunchEdit),
    /// Open (true) or close the JSON view.
    ShowJson(bool),
    /// The JSON view's text changed.
    EditJson(String),
    /// Add a scheme by name, or remove every spec of it.
    ToggleScheme(String),
    /// Use these scheme specs (`NAME[:k=v,…]`, the text field under the checkboxes, or the
    /// scheme panel's instances after an add, remove, duplicate or parameter edit).
    SetSchemes(Vec<String>),
    /// A parameter field's value was refused (the reason); Run waits until it is fixed.
    SchemeError(String),
    /// The next run is this sweep (its points are the schemes), or a plain comparison (`None`).
    SetSweep(Option<Rc<crate::sweep::SweepPlan>>),
    /// A run with this id was sent to the worker.
    RunStarted(u64),
    /// Progress of run `id`.
    RunProgress(u64, RunProgress),
    /// Each scheme's progress and the reports in so far, of run `id`.
    RunPartial(u64, Rc<crate::run_pool::PartialRun>),
    /// Run `id` ended.
    RunFinished(u64, Result<Rc<RunOutput>, RunFailure>),
    /// The user stopped the run.
    Cancel,
}

impl Default for LabState {
    fn default() -> Self {
        LabState::with_setup(
            LaunchSetup::from_json("{\"params\": []}").unwrap_or_else(|_| empty()),
            LaunchOrigin::Proposed,
        )
    }
}

fn empty() -> LaunchSetup {
    sim_core::exec::propose_launch(&sim_core::ir::Module::default(), "")
}

impl LabState {
    /// A state holding `setup`.
    pub fn with_setup(setup: LaunchSetup, origin: LaunchOrigin) -> Self {
        LabState {
            kernels: Vec::new(),
            example: None,
            setup: Rc::new(setup),
            origin,
            json: None,
            edit_error: None,
            invalid: None,
            schemes: vec!["baseline".into(), "no-bank-conflicts".into()],
            run: RunStatus::Idle,
            run_id: 0,
            scheme_error: None,
            sweep: None,
            partial: None,
        }
    }

    /// The state with a launch restored from storage (JSON text), if it parses.
    pub fn restored(json: Option<&str>) -> Self {
        match json.and_then(|t| LaunchSetup::from_json(t).ok()) {
            Some(s) => LabState::with_setup(s, LaunchOrigin::Restored),
            None => LabState::default(),
        }
    }

    /// True while a run is in the worker.
    pub fn running(&self) -> bool {
        matches!(self.run, RunStatus::Running(_))
    }

    /// The kernel the setup launches.
    pub fn kernel(&self) -> Option<&str> {
        launch_model::setup_kernel(&self.setup)
    }

    /// True when the setup is a single launch (not a sequence of launches).
    pub fn single_launch(&self) -> bool {
        self.setup.launches.is_empty()
    }

    /// Threads per block (block x·y·z) and dynamic shared memory with which the setup launches
    /// `kernel`, or why there are none (not runnable, or `kernel` is not launched).
    pub fn shape_for(&self, kernel: Option<&str>) -> Result<(u32, u64), String> {
        if let Some(e) = &self.invalid {
            return Err(format!("the launch setup is not runnable ({e})"));
        }
        let kernel = kernel.ok_or("no kernel is selected")?;
        let s = &self.setup;
        let (block, smem) = if s.launches.is_empty() {
            if launch_model::setup_kernel(s) != Some(kernel) {
                return Err(format!("the launch setup does not launch {kernel}"));
            }
            (&s.block, s.dynamic_smem)
        } else {
            let step = s
                .launches
                .iter()
                .find(|l| l.kernel == kernel)
                .ok_or_else(|| format!("the launch setup does not launch {kernel}"))?;
            (step.block.as_ref().unwrap_or(&s.block), step.dynamic_smem.unwrap_or(s.dynamic_smem))
        };
        let threads = block.iter().try_fold(1u32, |acc, &d| acc.checked_mul(d));
        match threads {
            Some(t) if t > 0 => Ok((t, u64::from(smem))),
            _ => Err("the launch setup's block size is not usable".to_owned()),
        }
    }

    /// Applies `action`; `source` is the editor text (compiled on demand for proposals and checks).
    pub fn reduce(&self, action: LabAction, source: &str) -> LabState {
        let mut next = self.clone();
        match action {
            LabAction::Kernels { names, example } => {
                if names == self.kernels && example == self.example {
                    return next;
                }
                let keep = matches!(self.origin, LaunchOrigin::Edited | LaunchOrigin::Restored)
                    && (example == self.example || self.kernels.is_empty())
                    && self.kernel().is_some_and(|k| names.iter().any(|n| n == k));
                next.kernels = names;
                next.example = example;
                if !keep {
                    next.start_over(source, None);
                }
            }
            LabAction::SelectKernel(k) => next.start_over(source, Some(&k)),
            LabAction::Reset => {
                let k = self.kernel().map(str::to_owned);
                next.start_over(source, k.as_deref());
            }
            LabAction::Edit(edit) => match launch_model::apply(&self.setup, &edit) {
                Ok(s) => next.set(s, LaunchOrigin::Edited, source),
                Err(e) => next.edit_error = Some(e),
            },
            LabAction::ShowJson(true) => next.json = Some(self.setup.to_json()),
            LabAction::ShowJson(false) => {
                next.json = None;
                next.edit_error = None;
            }
            LabAction::EditJson(text) => {
                match LaunchSetup::from_json(&text) {
                    Ok(s) => next.set(s, LaunchOrigin::Edited, source),
                    Err(e) => next.edit_error = Some(e.message),
                }
                next.json = Some(text);
            }
            LabAction::ToggleScheme(s) => {
                if next.schemes.iter().any(|x| scheme_name(x) == s) {
                    next.schemes.retain(|x| scheme_name(x) != s);
                } else {
                    next.schemes.push(s);
                    let order: Vec<&str> = sim_core::timing::regfile::registry::names().collect();
                    sim_core::sorting::sort_by_key(&mut next.schemes, |x| {
                        order.iter().position(|o| *o == scheme_name(x))
                    });
                }
                next.scheme_error = None;
            }
            LabAction::SetSchemes(specs) => match check_specs(&specs) {
                Ok(()) => {
                    next.schemes = specs;
                    next.scheme_error = None;
                }
                Err(e) => next.scheme_error = Some(e),
            },
            LabAction::SchemeError(e) => next.scheme_error = Some(e),
            LabAction::SetSweep(plan) => next.sweep = plan,
            LabAction::RunStarted(id) => {
                next.run_id = id;
                next.run = RunStatus::Running(RunProgress::default());
                next.partial = None;
            }
            LabAction::RunPartial(id, p) if id == self.run_id && self.running() => next.partial = Some(p),
            LabAction::RunProgress(id, p) if id == self.run_id && self.running() => next.run = RunStatus::Running(p),
            LabAction::RunFinished(id, result) if id == self.run_id && self.running() => {
                next.run = match result {
                    Ok(out) => RunStatus::Done(out),
                    Err(f) => RunStatus::Failed(f),
                };
            }
            LabAction::RunProgress(..) | LabAction::RunPartial(..) | LabAction::RunFinished(..) => {}
            LabAction::Cancel if self.running() => next.run = RunStatus::Cancelled,
            LabAction::Cancel => {}
        }
        next
    }

    fn start_over(&mut self, source: &str, kernel: Option<&str>) {
        let module = sim_core::ptx::check(source).module;
        let picked = module.as_ref().and_then(|m| launch_model::initial_setup(m, kernel, self.example));
        match picked {
            Some((s, origin)) => {
                self.setup = Rc::new(s);
                self.origin = origin;
                self.invalid = launch_model::validate(module.as_ref(), &self.setup).err();
            }
            None => self.invalid = launch_model::validate(module.as_ref(), &self.setup).err(),
        }
        self.edit_error = None;
        if self.json.is_some() {
            self.json = Some(self.setup.to_json());
        }
    }

    fn set(&mut self, setup: LaunchSetup, origin: LaunchOrigin, source: &str) {
        let module = sim_core::ptx::check(source).module;
        self.invalid = launch_model::validate(module.as_ref(), &setup).err();
        self.setup = Rc::new(setup);
        self.origin = origin;
        self.edit_error = None;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn loaded() -> (LabState, &'static str) {
        let src = crate::examples::find("vector_add").map_or("", |e| e.source);
        let names = vec!["_Z6vecAddPKfS0_Pfi".to_owned()];
        (LabState::default().reduce(LabAction::Kernels { names, example: Some("vector_add") }, src), src)
    }

    #[test]
    fn an_example_brings_its_launch_and_edits_stick() {
        let (lab, src) = loaded();
        assert_eq!(lab.origin, LaunchOrigin::Shipped);
        assert_eq!(lab.invalid, None);
        let lab = lab.reduce(LabAction::Edit(LaunchEdit::Grid(0, "32".into())), src);
        assert_eq!((lab.setup.grid[0], lab.origin), (32, LaunchOrigin::Edited));
        let bad = lab.reduce(LabAction::Edit(LaunchEdit::Block(0, "0".into())), src);
        assert!(bad.invalid.is_some());
        let typo = lab.reduce(LabAction::Edit(LaunchEdit::Block(0, "abc".into())), src);
        assert!(typo.edit_error.is_some() && typo.setup == lab.setup);
        let reset = bad.reduce(LabAction::Reset, src);
        assert_eq!((reset.origin, reset.invalid.is_none()), (LaunchOrigin::Shipped, true));
    }

    #[test]
    fn json_view_edits_and_reports_errors() {
        let (lab, src) = loaded();
        let open = lab.reduce(LabAction::ShowJson(true), src);
        assert!(open.json.as_deref().is_some_and(|j| j.contains("\"grid\"")));
        let broken = open.reduce(LabAction::EditJson("{ nope".into()), src);
        assert!(broken.edit_error.is_some() && broken.setup == lab.setup);
        let text = lab.setup.to_json().replace("\"dynamic_smem\": 0", "\"dynamic_smem\": 64");
        let fixed = broken.reduce(LabAction::EditJson(text), src);
        assert_eq!((fixed.setup.dynamic_smem, fixed.edit_error.clone()), (64, None));
    }

    #[test]
    fn runs_progress_and_stale_messages_are_ignored() {
        let (lab, src) = loaded();
        let lab = lab.reduce(LabAction::ToggleScheme("2x-registers".into()), src);
        assert_eq!(lab.schemes, vec!["baseline", "no-bank-conflicts", "2x-registers"]);
        let run = lab.reduce(LabAction::RunStarted(7), src);
        assert!(run.running());
        let p = RunProgress { fraction: 0.5, warp_instructions: 10, cycles: 100, tuning: None };
        assert_eq!(run.reduce(LabAction::RunProgress(7, p), src).run, RunStatus::Running(p));
        assert_eq!(run.reduce(LabAction::RunProgress(6, p), src).run, run.run);
        let part =
            Rc::new(crate::run_pool::PartialRun { fractions: vec![1.0, 0.5, 0.5], reports: vec![None; 3], workers: 2 });
        assert_eq!(run.reduce(LabAction::RunPartial(7, part.clone()), src).partial, Some(part.clone()));
        assert_eq!(run.reduce(LabAction::RunPartial(6, part), src).partial, None);
        let cancelled = run.reduce(LabAction::Cancel, src);
        assert_eq!(cancelled.run, RunStatus::Cancelled);
        let late = cancelled.reduce(LabAction::RunFinished(7, Ok(Rc::new(RunOutput::default()))), src);
        assert_eq!(late.run, RunStatus::Cancelled);
    }

    #[test]
    fn scheme_specs_are_set_checked_and_toggled_by_name() {
        let (lab, src) = loaded();
        let specs = vec!["baseline:collector_units=2".to_owned(), "no-bank-conflicts".to_owned()];
        let set = lab.reduce(LabAction::SetSchemes(specs.clone()), src);
        assert_eq!((set.schemes.clone(), set.scheme_error.clone()), (specs.clone(), None));
        let bad = set.reduce(LabAction::SetSchemes(vec!["warp-drive".into()]), src);
        assert_eq!(bad.schemes, specs, "a bad spec is not taken");
        assert!(bad.scheme_error.as_deref().is_some_and(|e| e.contains("unknown register-file scheme 'warp-drive'")));
        // Unticking "baseline" removes its spec with parameters; ticking it adds it back in registry order.
        let off = bad.reduce(LabAction::ToggleScheme("baseline".into()), src);
        assert_eq!((off.schemes.clone(), off.scheme_error.clone()), (vec!["no-bank-conflicts".to_owned()], None));
        let on = off.reduce(LabAction::ToggleScheme("baseline".into()), src);
        assert_eq!(on.schemes, vec!["baseline", "no-bank-conflicts"]);
    }
}
