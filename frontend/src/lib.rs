//! The browser entry point: installs the panic hook and hydrates the server-rendered page.
//! Everything else lives in `app`, compiled here with the `hydrate` feature.

/// Called by the generated hydration script once the wasm module has loaded.
#[wasm_bindgen::prelude::wasm_bindgen]
pub fn hydrate() {
    console_error_panic_hook::set_once();
    leptos::mount::hydrate_body(app::App);
}
