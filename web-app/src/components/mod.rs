//! View components. Each takes its data as props and reports user intent through callbacks; the
//! `Workspace` in `app.rs` connects them to the `AppState` context.

pub mod chart;
pub mod cta_timeline;
pub mod draft_input;
pub mod editor;
pub mod editor_window;
pub mod examples_picker;
pub mod header;
pub mod kernel_picker;
pub mod lab_area;
pub mod launch_editor;
pub mod listing;
pub mod occupancy;
pub mod occupancy_charts;
pub mod occupancy_inputs;
pub mod paper_figures;
pub mod pressure;
pub mod ptx_diff;
pub mod results;
pub mod run_live;
pub mod run_panel;
pub mod run_results;
pub mod scheme_panel;
pub mod share_bar;
pub mod single_use;
pub mod slice_map;
pub mod storage_notice;
pub mod sweep_panel;
pub mod sweep_points;
pub mod value_shares;

pub use chart::Chart;
pub use editor::Editor;
pub use examples_picker::ExamplesPicker;
pub use header::{Footer, Header};
pub use kernel_picker::KernelPicker;
pub use lab_area::LabArea;
pub use launch_editor::LaunchEditor;
pub use occupancy::OccupancyPanel;
pub use ptx_diff::PtxDiff;
pub use results::Results;
pub use run_panel::RunPanel;
pub use run_results::RunResults;
pub use share_bar::ShareBar;
