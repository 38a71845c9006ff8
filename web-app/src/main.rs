//! Entry point of the web app: installs the panic hook and mounts [`web_app::App`] on `<body>`.

fn main() {
    console_error_panic_hook::set_once();
    yew::Renderer::<web_app::App>::new().render();
}
