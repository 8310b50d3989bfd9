//! The browser entry point: installs the panic hook and hydrates the server-rendered page.
//! Everything else lives in `app`, compiled here with the `hydrate` feature.

/// Called by Leptos' hydration script once the wasm module is instantiated: hydrates the page and
/// sets `<body data-hydrated="true">` (end-to-end tests and the page-load benchmark wait for it).
#[wasm_bindgen::prelude::wasm_bindgen]
pub fn hydrate() {
    console_error_panic_hook::set_once();
    leptos::mount::hydrate_body(app::App);
    app::browser::mark_hydrated();
}
