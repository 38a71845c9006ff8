//! RegLab's web front end (Yew). All computation goes through `sim-core`; this crate holds view
//! code, the one `AppState` reducer, and browser glue (local storage, URL fragment, worker).

fn main() {
    console_error_panic_hook::set_once();
    yew::Renderer::<App>::new().render();
}

#[yew::function_component(App)]
fn app() -> yew::Html {
    yew::html! { <main><h1>{ "RegLab" }</h1></main> }
}
