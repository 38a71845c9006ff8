//! View components. Each takes its data as props and reports user intent through callbacks; the
//! `Workspace` in `app.rs` connects them to the `AppState` context.

pub mod editor;
pub mod examples_picker;
pub mod header;
pub mod results;

pub use editor::Editor;
pub use examples_picker::ExamplesPicker;
pub use header::Header;
pub use results::Results;
