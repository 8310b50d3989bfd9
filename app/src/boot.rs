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
//! main module. The current screen's files (ADR 0010), one pack per screen (ADR 0019), and the
//! split loader are preloaded from here too, chosen by the request's path
//! ([`crate::pages::lazy::screen_at`]). Leptos would list them itself once the page has
//! rendered, but it reads its context from whatever reactive owner is current when the render
//! ends: on the `SsrMode::Async` detail pages that was the page's owner on about half of the
//! loads and nobody's on the others, and those pages then preloaded nothing but the main
//! module (ADR 0021).

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
    let pkg = format!("/{}", options.site_pkg_dir);
    let js = format!("{pkg}/{}.js", options.output_name);
    let wasm = format!("{pkg}/{}.wasm", options.output_name);
    // The head is rendered by the server only; the browser hydrates the body.
    #[cfg(feature = "ssr")]
    let screen = {
        let ScreenPreloads { files, loader } = screen_preloads(&options, &request_path());
        view! {
            {files
                .into_iter()
                .map(|href| view! {
                    <link rel="preload" href=href r#as="fetch" r#type="application/wasm" crossorigin="anonymous"/>
                })
                .collect_view()}
            {loader.map(|href| view! { <link rel="modulepreload" href=href crossorigin="anonymous"/> })}
        }
    };
    #[cfg(not(feature = "ssr"))]
    let screen = ();
    let nonce = leptos::nonce::use_nonce();
    // `crossorigin`: a preload must match the `fetch` that uses it (CORS mode, same-origin
    // credentials) for the browser to reuse it: the glue's for the main module, the split
    // loader's for the screen's pack (or files).
    view! {
        <link rel="modulepreload" href=js.clone() crossorigin="anonymous"/>
        <link rel="preload" href=wasm.clone() r#as="fetch" r#type="application/wasm" crossorigin="anonymous"/>
        {screen}
        <script type="module" async=true nonce=nonce>{boot_script(&js, &wasm)}</script>
    }
}

/// What a page preloads besides the main module: its screen's wasm files and the split loader
/// that instantiates them. Empty for a page that is not a screen, and for a build that is not
/// split.
#[cfg(feature = "ssr")]
#[derive(Debug, Default, PartialEq, Eq)]
pub struct ScreenPreloads {
    /// `/pkg/<file>.wasm`, in the order the build lists them.
    pub files: Vec<String>,
    /// `/pkg/<split loader>.js`, when there are files.
    pub loader: Option<String>,
}

/// The path of the request being rendered.
#[cfg(feature = "ssr")]
fn request_path() -> String {
    use_context::<http::request::Parts>()
        .map(|parts| parts.uri.path().to_owned())
        .unwrap_or_default()
}

/// The preloads of the page at `path`, from the build's split preloads, read once per process.
/// The build's preloads name each screen's pack, one file holding all of its files (ADR 0019); a
/// site split but not packed has only the splitter's manifest, a file per link.
#[cfg(feature = "ssr")]
fn screen_preloads(options: &LeptosOptions, path: &str) -> ScreenPreloads {
    use std::collections::HashMap;
    use std::sync::OnceLock;

    static MANIFEST: OnceLock<Option<HashMap<String, Vec<String>>>> = OnceLock::new();
    let manifest = MANIFEST.get_or_init(|| {
        let pkg = std::path::Path::new(&*options.site_root).join(&*options.site_pkg_dir);
        let json = ["__wasm_split_preloads.json", "__wasm_split_manifest.json"]
            .iter()
            .find_map(|name| std::fs::read_to_string(pkg.join(name)).ok())?;
        serde_json::from_str(&json).ok()
    });
    match manifest {
        Some(manifest) => preloads_for(manifest, &format!("/{}", options.site_pkg_dir), path),
        None => ScreenPreloads::default(),
    }
}

/// The preloads of the page at `path`, given the build's manifest (split name → its files) and
/// where the files are served from. A split is named after its `#[lazy]` function and a hash
/// of digits (`task_detail_5275287309259858196`).
#[cfg(feature = "ssr")]
pub fn preloads_for<S: std::hash::BuildHasher>(
    manifest: &std::collections::HashMap<String, Vec<String>, S>,
    pkg: &str,
    path: &str,
) -> ScreenPreloads {
    let Some(screen) = crate::pages::lazy::screen_at(path) else {
        return ScreenPreloads::default();
    };
    let name = screen.split_name();
    let of_screen = |split: &str| {
        split
            .strip_prefix(name)
            .and_then(|rest| rest.strip_prefix('_'))
            .is_some_and(|hash| !hash.is_empty() && hash.bytes().all(|b| b.is_ascii_digit()))
    };
    let files: Vec<String> = manifest
        .iter()
        .find(|(split, _)| of_screen(split))
        .map(|(_, files)| files.iter().map(|file| format!("{pkg}/{file}.wasm")).collect())
        .unwrap_or_default();
    let loader = (!files.is_empty()).then(|| format!("{pkg}/{SPLIT_LOADER}"));
    ScreenPreloads { files, loader }
}

#[cfg(all(test, feature = "ssr"))]
mod tests {
    use std::collections::HashMap;

    use super::*;

    fn manifest() -> HashMap<String, Vec<String>> {
        [
            (
                "tasks_14700558551319333779",
                vec!["pack_tasks_14700558551319333779"],
            ),
            (
                "task_detail_5275287309259858196",
                vec!["pack_task_detail_5275287309259858196"],
            ),
            ("chat_1", vec!["chunk_31", "split_chat_1"]),
            ("conversation_2", vec!["pack_conversation_2"]),
            // A view loaded after hydration whose name starts like a screen's.
            (
                "chat_options_split_3",
                vec!["chunk_9", "split_chat_options_split_3"],
            ),
            ("parts_split_4", vec!["chunk_31", "split_parts_split_4"]),
        ]
        .into_iter()
        .map(|(split, files)| (split.to_owned(), files.into_iter().map(str::to_owned).collect()))
        .collect()
    }

    #[test]
    fn a_screen_preloads_its_pack_and_the_split_loader() {
        let preloads = preloads_for(&manifest(), "/pkg", "/tasks/01a2380b-b80a-74e0-8397-72def95815c5");
        assert_eq!(preloads.files, ["/pkg/pack_task_detail_5275287309259858196.wasm"]);
        assert_eq!(
            preloads.loader.as_deref(),
            Some("/pkg/__wasm_split.______________________.js")
        );
        let list = preloads_for(&manifest(), "/pkg", "/tasks");
        assert_eq!(list.files, ["/pkg/pack_tasks_14700558551319333779.wasm"]);
    }

    #[test]
    fn an_unpacked_screen_preloads_its_files_and_a_name_prefix_is_not_a_match() {
        // `chat_options_split_3` starts with `chat_` but its rest is not a hash.
        let preloads = preloads_for(&manifest(), "/pkg", "/chat");
        assert_eq!(preloads.files, ["/pkg/chunk_31.wasm", "/pkg/split_chat_1.wasm"]);
        assert_eq!(
            preloads_for(&manifest(), "/pkg", "/chat/abc").files,
            ["/pkg/pack_conversation_2.wasm"]
        );
    }

    #[test]
    fn pages_that_are_not_screens_or_not_in_the_build_preload_nothing() {
        for path in ["/", "/nowhere", "/tasks/a/b", "/settings"] {
            assert_eq!(
                preloads_for(&manifest(), "/pkg", path),
                ScreenPreloads::default(),
                "{path}"
            );
        }
        assert_eq!(
            preloads_for(&HashMap::new(), "/pkg", "/tasks"),
            ScreenPreloads::default()
        );
    }
}
