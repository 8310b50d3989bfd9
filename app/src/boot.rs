//! How the browser starts the app: the `<head>` tags that fetch the wasm, and the script that
//! loads it while the page is still being parsed.
//!
//! Leptos's `HydrationScripts` starts the app from a deferred module script, which runs only
//! after the document is parsed, and the parser waits for the stylesheet and yields for the
//! first layout and paint. On a two-core machine the wasm then sat downloaded and unused for
//! 50–100 ms. [`BootScripts`] starts it from an `async` module script instead, which runs as
//! soon as the JS glue is there: the main module and the current screen's chunks are compiled
//! and instantiated while the page is parsed, laid out and painted, and the browser entry
//! point hydrates once the document is complete ([`crate::browser::when_parsed`]).
//!
//! Everything else is as `HydrationScripts` does it: the preload links for the glue and the
//! main module, and the split manifest the server's render reads to preload the current
//! screen's chunks (ADR 0010), as one pack per screen (ADR 0019).

use leptos::prelude::*;

/// The split loader the wasm splitter writes next to the chunks (ADR 0010).
#[cfg(feature = "ssr")]
const SPLIT_LOADER: &str = "__wasm_split.______________________.js";

/// The boot script: compiles the main module while the JS glue is imported (the glue takes
/// the compiled module; if compiling failed it fetches the file itself and reports why), then
/// instantiates it and calls the entry point (which loads the screen's chunks and hydrates
/// after parsing).
fn boot_script(js: &str, wasm: &str) -> String {
    format!(
        "const wasm = WebAssembly.compileStreaming(fetch({wasm:?})).catch(() => {wasm:?});\n\
         import({js:?}).then((m) => m.default({{ module_or_path: wasm }}).then(() => m.hydrate()));"
    )
}

/// The `<head>` tags that load and start the wasm app; replaces Leptos's `HydrationScripts`.
#[component]
pub fn BootScripts(options: LeptosOptions) -> impl IntoView {
    #[cfg(feature = "ssr")]
    provide_split_manifest(&options);
    let pkg = format!("/{}", options.site_pkg_dir);
    let js = format!("{pkg}/{}.js", options.output_name);
    let wasm = format!("{pkg}/{}.wasm", options.output_name);
    let nonce = leptos::nonce::use_nonce();
    // `crossorigin`: the preload must match the glue's `fetch` (CORS mode, same-origin
    // credentials) for the browser to reuse it.
    view! {
        <link rel="modulepreload" href=js.clone() crossorigin="anonymous"/>
        <link rel="preload" href=wasm.clone() r#as="fetch" r#type="application/wasm" crossorigin="anonymous"/>
        <script type="module" async=true nonce=nonce>{boot_script(&js, &wasm)}</script>
    }
}

/// Reads the split manifest once per process and provides it to the render, which then adds
/// preload links for the wasm files of the lazily loaded routes it renders
/// (`leptos_integration_utils` reads this context). The build's preloads name each screen's pack,
/// one file holding all of its chunks (ADR 0019); a site split but not packed has only the
/// splitter's manifest, a chunk per link. Without either (no split build) nothing is preloaded.
#[cfg(feature = "ssr")]
fn provide_split_manifest(options: &LeptosOptions) {
    use std::sync::OnceLock;

    static MANIFEST: OnceLock<Option<leptos::WasmSplitManifest>> = OnceLock::new();
    let manifest = MANIFEST.get_or_init(|| {
        let pkg = std::path::Path::new(&*options.site_root).join(&*options.site_pkg_dir);
        let json = ["__wasm_split_preloads.json", "__wasm_split_manifest.json"]
            .iter()
            .find_map(|name| std::fs::read_to_string(pkg.join(name)).ok())?;
        let chunks = serde_json::from_str(&json).ok()?;
        Some(leptos::WasmSplitManifest(ArcStoredValue::new((
            format!("/{}", options.site_pkg_dir),
            chunks,
            SPLIT_LOADER.to_owned(),
        ))))
    });
    if let Some(manifest) = manifest {
        provide_context(manifest.clone());
    }
}
