//! The browser entry point: installs the panic hook and hydrates the server-rendered page.
//! Everything else lives in `app`, compiled here with the `hydrate` feature.

/// Called by the boot script (`app::boot`) once the main wasm module is instantiated, which
/// may be before the page is completely parsed.
///
/// Each screen is a lazily loaded route (ADR 0010): its code is loaded first, then, once the
/// document is parsed, the page is hydrated synchronously, as one piece, and
/// `<body data-hydrated="true">` is set (end-to-end tests and the hydration benchmark wait
/// for it).
#[wasm_bindgen::prelude::wasm_bindgen]
pub fn hydrate() {
    console_error_panic_hook::set_once();
    wasm_bindgen_futures::spawn_local(async {
        let path = leptos::prelude::window()
            .location()
            .pathname()
            .unwrap_or_default();
        app::pages::lazy::preload(&path).await;
        // The boot script starts this while the page may still be parsing (`app::boot`).
        app::browser::when_parsed(|| {
            leptos::mount::hydrate_body(app::App);
            app::browser::mark_hydrated();
        });
    });
}
