//! With the `embed-site` feature, names the built site the binary embeds
//! (`server/src/http/site/embedded.rs`): `$LEPTOS_SITE_ROOT`, else the workspace's `target/site`,
//! as `scripts/build-site` writes it. Without the feature it does nothing.

use std::path::PathBuf;

fn main() {
    println!("cargo::rerun-if-env-changed=LEPTOS_SITE_ROOT");
    if std::env::var_os("CARGO_FEATURE_EMBED_SITE").is_none() {
        return;
    }
    let manifest = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").expect("set by cargo"));
    let site = std::env::var_os("LEPTOS_SITE_ROOT")
        .map(PathBuf::from)
        .map(|site| {
            if site.is_absolute() {
                site
            } else {
                manifest.join("..").join(site)
            }
        })
        .unwrap_or_else(|| manifest.join("../target/site"));
    let hash_file = site.join("hash.txt");
    if !hash_file.is_file() || !site.join("pkg").is_dir() {
        panic!(
            "the embed-site feature embeds the built site, and {} holds none (no hash.txt and pkg/): \
             build it first with scripts/build-site, or install with scripts/install",
            site.display()
        );
    }
    // A directory: cargo looks at every file under it.
    println!("cargo::rerun-if-changed={}", site.display());
    println!("cargo::rustc-env=A2A_EMBED_SITE_DIR={}", site.display());
}
