//! The page header: the name, what the page is, the examples picker, and where the text is kept.
//!
//! ```text
//! RegLab  GPU register-file laboratory          Example: [Load an example… ▾]
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
