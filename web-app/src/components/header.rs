//! The page header (the name, what the page is, the examples picker) and the page footer (where
//! the fidelity report is).
//!
//! ```text
//! RegLab  GPU register-file laboratory          Example: [Load an example… ▾]
//! …
//! How close RegLab is to ptxas, NVIDIA's calculator, GPGPU-Sim and the papers: fidelity report
//! ```

use yew::prelude::*;

/// What the header shows.
#[derive(Properties, PartialEq)]
pub struct HeaderProps {
    /// The examples picker (or anything else to show on the right).
    #[prop_or_default]
    pub children: Html,
}

/// The header component.
#[function_component(Header)]
pub fn header(props: &HeaderProps) -> Html {
    html! {
        <header class="app-header">
            <div class="brand">
                <h1>{ "RegLab" }</h1>
                <p class="tagline">{ "GPU register-file laboratory: paste PTX, see what the register file sees." }</p>
            </div>
            <div class="header-tools">{ props.children.clone() }</div>
        </header>
    }
}

/// Where the fidelity report is published: `docs/fidelity/` copied beside the page by Trunk
/// (`static/index.html`), its index `README.md`.
pub const FIDELITY_REPORT: &str = "./fidelity/README.md";

/// The footer component: a link to the fidelity report.
#[function_component(Footer)]
pub fn footer() -> Html {
    html! {
        <footer class="app-footer">
            { "How close RegLab is to ptxas, NVIDIA's occupancy calculator, GPGPU-Sim and the papers: " }
            <a href={FIDELITY_REPORT}>{ "fidelity report" }</a>
        </footer>
    }
}
