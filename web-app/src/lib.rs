//! RegLab's web front end (Yew). All computation goes through `sim-core`; this crate holds view
//! code, the one [`state::AppState`] reducer, and browser glue (local storage, timers).
//!
//! ```text
//! App (app.rs) ── use_reducer(AppState) ── ContextProvider<AppContext>
//!   └─ Workspace: reads the context, passes props down, turns callbacks into `Action`s
//!        ├─ Header + ExamplesPicker   (components/header.rs, components/examples_picker.rs)
//!        ├─ KernelPicker + Editor     (components/editor.rs + listing.rs: live registers per line)
//!        ├─ Results                   (components/results.rs + pressure.rs; data from model/)
//!        ├─ OccupancyPanel            (components/occupancy.rs + occupancy_inputs.rs + occupancy_charts.rs)
//!        └─ LabArea                   (components/lab_area.rs: launch editor, run panel, results
//!             charts; state in lab.rs + launch_model.rs; runs in the Web Worker of
//!             worker_main.rs via worker_client.rs and run_job.rs; every chart in components/chart/)
//! ```
//!
//! Where things live: [`model`] is the only module that calls `sim-core` (front end, analyses,
//! occupancy calculator); [`host_timing`] measures a run's host time and throughput (never part
//! of a report); [`highlight`] turns the lexer's classes into editor markup; `components/chart/` is the one
//! chart family (SVG text shown and exported alike, ticks, legend, number formatter); [`settings`] holds the user's kernel,
//! GPU and launch choices; [`storage`] keeps text and settings in local storage; [`examples`] holds
//! the bundled kernels (embedded at build time by `build.rs`).
//!
//! Workers: runs in the run worker (`worker_main.rs`, [`worker_client`], [`run_job`]); in the page's
//! build (feature `page`) the selected kernel's analyses and the PTX diff in the job worker
//! (`jobs_main.rs`, `job_worker`, [`kernel_job`], [`diff_job`]); both serve through `worker_scope`.
//!
//! Sharing: [`share`] packs a `sim_core::experiment::Experiment` into a link's fragment and reads it
//! back (pure, tested natively); [`share_state`] converts between the page state and experiments and
//! parses the embed options; [`share_hooks`] opens links on load and on `hashchange`; [`share_web`]
//! is the browser glue (location, history, clipboard); the buttons are `components/share_bar.rs`.

pub mod app;
pub mod components;
pub mod diff_job;
pub mod examples;
pub mod export;
pub mod highlight;
pub mod host_timing;
#[cfg(target_arch = "wasm32")]
pub mod job_worker;
pub mod kernel_job;
pub mod lab;
pub mod lab_hooks;
pub mod lab_schemes;
pub mod launch_model;
pub mod model;
pub mod report_charts;
pub mod run_job;
pub mod run_pool;
pub mod settings;
pub mod share;
pub mod share_hooks;
pub mod share_state;
pub mod share_web;
pub mod state;
pub mod storage;
pub mod sweep;
pub mod worker_client;
#[cfg(target_arch = "wasm32")]
pub mod worker_scope;

pub use app::App;
