//! The browser app is split at its lazily loaded routes after linking (frontend/split); the
//! splitter needs the linker's relocations, so the wasm cdylib keeps them (`--emit-relocs`).

fn main() {
    if std::env::var("CARGO_CFG_TARGET_ARCH").as_deref() == Ok("wasm32") {
        println!("cargo:rustc-link-arg-cdylib=--emit-relocs");
    }
}
