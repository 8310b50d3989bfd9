//! The built site inside the binary (feature `embed-site`, ADR 0041): `cargo install` or the
//! release artifact is a complete install, and `agent-taskbay serve` runs from any directory.
//!
//! At start the files are written once into a private directory (a fresh name, readable by this
//! user only, removed when the server stops), which then serves exactly as a built site on disk
//! does: `ServeDir` with the precompressed copies, 304 answers, the request guard's file check,
//! and Leptos' hash file, which `HydrationScripts` reads from a path on every render.

use std::fs;
use std::io;
use std::path::Path;
use std::time::{Duration, SystemTime};

/// The site `scripts/build-site` wrote when the binary was built (`server/build.rs`).
#[derive(rust_embed::Embed)]
#[folder = "$A2A_EMBED_SITE_DIR"]
struct Files;

/// The embedded site written out for this process; the directory goes when this is dropped.
pub struct Unpacked(tempfile::TempDir);

impl Unpacked {
    /// The site root to serve from.
    pub fn root(&self) -> &Path {
        self.0.path()
    }
}

/// Writes every embedded file under a new private directory, each with the time it was built
/// (so a browser's copy of an unhashed file still revalidates with 304 after a restart).
pub fn unpack() -> io::Result<Unpacked> {
    let dir = tempfile::Builder::new().prefix("agent-taskbay-site-").tempdir()?;
    for name in Files::iter() {
        let file =
            Files::get(&name).ok_or_else(|| io::Error::other(format!("embedded file {name} is missing")))?;
        let relative = Path::new(name.as_ref());
        // Names come from the build's own directory listing; nothing may leave the root.
        if relative.is_absolute()
            || relative
                .components()
                .any(|c| !matches!(c, std::path::Component::Normal(_)))
        {
            return Err(io::Error::other(format!(
                "embedded file name {name} is not a plain relative path"
            )));
        }
        let path = dir.path().join(relative);
        if let Some(parent) = path.parent() {
            fs::create_dir_all(parent)?;
        }
        let written = fs::File::create(&path)?;
        io::Write::write_all(&mut &written, &file.data)?;
        if let Some(seconds) = file.metadata.last_modified() {
            written.set_modified(SystemTime::UNIX_EPOCH + Duration::from_secs(seconds))?;
        }
    }
    Ok(Unpacked(dir))
}
