//! The browser entry point: installs the panic hook and hydrates the server-rendered page.
//! Everything else lives in `app`, compiled here with the `hydrate` feature.

// The hydration future holds the whole view type of the app.
#![recursion_limit = "256"]

/// Called by the generated hydration script once the wasm module has loaded.
///
/// Each screen is a lazily loaded route (ADR 0010), so hydration is asynchronous: it waits for
/// the current screen's code. `<body data-hydrated="true">` is set only after the whole page,
/// screen included, is live (end-to-end tests and the hydration benchmark wait for it).
#[wasm_bindgen::prelude::wasm_bindgen]
pub fn hydrate() {
    console_error_panic_hook::set_once();
    wasm_bindgen_futures::spawn_local(async {
        let root = leptos::mount::hydrate_from_async(leptos::tachys::dom::body(), app::App).await;
        // The console lives as long as the page.
        root.forget();
        app::browser::mark_hydrated();
    });
}
