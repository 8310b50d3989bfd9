//! `wasm-split <input.wasm> <pkg dir> <main out.wasm> <main module>`, then
//! `wasm-split pack <pkg dir>` once `wasm-opt` has run ([`pack`]).
//!
//! Splits the browser app (linked with `--emit-relocs`) at its `#[lazy]` split points:
//! writes the chunks and their loader (`__wasm_split.______________________.js`, the name
//! Leptos expects without file hashing) into the pkg directory, the main module (for
//! wasm-bindgen) to `main out.wasm`, and `__wasm_split_manifest.json` (split name → the chunk
//! files it needs) that the server reads to preload a route's chunks with its page.

use std::path::Path;
use std::process::ExitCode;

mod pack;

use pack::MANIFEST;

/// The loader's file name Leptos expects when file hashing is off.
const LOADER: &str = "./__wasm_split.______________________.js";
/// What one more file to fetch is worth, in bytes of function code before `wasm-opt`: the
/// vendored splitter merges the chunks shared by several screens while that lowers, over all
/// screens, the code each loads plus this much per file (ADR 0014).
const CHUNK_FILE_COST: usize = 16 * 1024;
/// How much more a screen's split module counts in that sum than a view loaded after hydration
/// (a `#[lazy]` function named `…_split`, ADR 0015): a screen waits for its files to hydrate.
const SCREEN_WEIGHT: u32 = 8;

/// Whether a split module (`<function name>_<hash>`) is a view loaded after hydration (a
/// `#[lazy]` function named `…_split`, ADR 0015) rather than a screen.
fn is_deferred_view(name: &str) -> bool {
    let function = name.rsplit_once('_').map_or(name, |(function, _hash)| function);
    function.ends_with("_split")
}

/// The weight of a split module by its name.
fn split_weight(name: &str) -> u32 {
    if is_deferred_view(name) { 1 } else { SCREEN_WEIGHT }
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let done = match args.as_slice() {
        [mode, pkg] if mode == "pack" => pack::run(Path::new(pkg), is_deferred_view).map(|p| {
            format!(
                "wasm-split: {} screens' {} files packed, one file each, in {pkg}",
                p.screens, p.files
            )
        }),
        [input, pkg, main_out, main_module] => {
            run(Path::new(input), Path::new(pkg), Path::new(main_out), main_module)
                .map(|chunks| format!("wasm-split: {chunks} chunk files in {pkg}"))
        }
        _ => {
            eprintln!(
                "usage: wasm-split <input.wasm> <pkg dir> <main out.wasm> <main module, e.g. /pkg/app.js>"
            );
            eprintln!("       wasm-split pack <pkg dir>");
            return ExitCode::from(2);
        }
    };
    match done {
        Ok(message) => {
            println!("{message}");
            ExitCode::SUCCESS
        }
        Err(error) => {
            eprintln!("wasm-split: {error}");
            ExitCode::FAILURE
        }
    }
}

fn run(input: &Path, pkg: &Path, main_out: &Path, main_module: &str) -> Result<usize, String> {
    let wasm = std::fs::read(input).map_err(|e| format!("cannot read {}: {e}", input.display()))?;
    std::fs::create_dir_all(pkg).map_err(|e| format!("cannot create {}: {e}", pkg.display()))?;
    let split = wasm_split_cli_support::transform({
        let mut options = wasm_split_cli_support::Options::new(&wasm);
        options.output_dir = pkg;
        options.main_out_path = main_out;
        options.main_module = main_module;
        options.link_name = LOADER;
        options.chunk_file_cost = CHUNK_FILE_COST;
        options.split_weight = split_weight;
        options
    })
    .map_err(|e| format!("splitting {} failed: {e}", input.display()))?;
    let manifest = serde_json::to_string_pretty(&split.prefetch_map).map_err(|e| e.to_string())?;
    std::fs::write(pkg.join(MANIFEST), manifest).map_err(|e| format!("cannot write the manifest: {e}"))?;
    Ok(split.split_modules.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn screens_weigh_more_than_views_loaded_after_hydration() {
        assert_eq!(split_weight("conversation_14248819951412325469"), SCREEN_WEIGHT);
        assert_eq!(split_weight("parts_split_5765720010362488178"), 1);
        assert_eq!(split_weight("task_detail_5275287309259858196"), SCREEN_WEIGHT);
        assert!(is_deferred_view("composer_split_42") && !is_deferred_view("agents_42"));
    }
}
