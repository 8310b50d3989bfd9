//! The site's files (wasm, JS glue, CSS, fonts, icons) as the browser caches them.
//!
//! The build names the app's files after their contents (`agent-taskbay.<hash>.wasm`, written to
//! Leptos' hash file beside the binary, which `HydrationScripts` and `HashedStylesheet` read), so
//! a name never changes meaning: those files are sent `immutable` for a year and a repeat visit
//! fetches nothing but the page. Every other file is revalidated (`Last-Modified`, 304).

#[cfg(feature = "embed-site")]
mod embedded;

use axum::extract::Request;
use axum::http::{HeaderValue, header};
use axum::middleware::Next;
use axum::response::Response;

/// `Cache-Control` of a content-hashed file.
pub const IMMUTABLE: &str = "public, max-age=31536000, immutable";

/// Whether `path` names a content-hashed file of the app: `/pkg/<name>.<16 hex digits>.<ext>`.
pub fn is_content_hashed(path: &str) -> bool {
    let Some(file) = path.strip_prefix("/pkg/") else {
        return false;
    };
    if file.contains('/') {
        return false;
    }
    let mut parts = file.rsplit('.');
    let (Some(ext), Some(hash), Some(stem)) = (parts.next(), parts.next(), parts.next()) else {
        return false;
    };
    matches!(ext, "js" | "wasm" | "css")
        && !stem.is_empty()
        && hash.len() == 16
        && hash
            .bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

/// Marks a successful answer for a content-hashed file as immutable.
pub async fn cache_control(request: Request, next: Next) -> Response {
    let hashed = is_content_hashed(request.uri().path());
    let mut response = next.run(request).await;
    if hashed && response.status().is_success() {
        response
            .headers_mut()
            .insert(header::CACHE_CONTROL, HeaderValue::from_static(IMMUTABLE));
    }
    response
}

/// Where this process serves the site from. A binary built with the `embed-site` feature
/// serves the site it carries (written out at start into a private directory, which this value
/// removes when dropped: keep it for as long as the server runs); any other serves
/// `LEPTOS_SITE_ROOT` (default `target/site`) with the hash file beside the binary.
pub struct Site {
    #[cfg(feature = "embed-site")]
    _unpacked: embedded::Unpacked,
    /// Whether the files come from inside the binary.
    pub embedded: bool,
}

impl Site {
    /// Points `options` at the site's files and its hash file.
    pub fn prepare(options: &mut leptos::config::LeptosOptions) -> std::io::Result<Site> {
        #[cfg(feature = "embed-site")]
        {
            let unpacked = embedded::unpack()?;
            let root = unpacked.root();
            options.site_root = root.to_string_lossy().into_owned().into();
            // Leptos joins the hash file to the binary's directory: an absolute path replaces it.
            options.hash_file = root.join("hash.txt").to_string_lossy().into_owned().into();
            if std::env::var_os("LEPTOS_HASH_FILES").is_none() {
                options.hash_files = true;
            }
            Ok(Site {
                _unpacked: unpacked,
                embedded: true,
            })
        }
        #[cfg(not(feature = "embed-site"))]
        {
            if std::env::var_os("LEPTOS_HASH_FILES").is_none() {
                options.hash_files = hash_file_beside_binary(&options.hash_file);
            }
            Ok(Site { embedded: false })
        }
    }
}

/// Whether the build wrote Leptos' hash file beside the running binary (`scripts/lib.sh`
/// `build_site`); a server without it (a test build) names the files without hashes.
pub fn hash_file_beside_binary(hash_file: &str) -> bool {
    std::env::current_exe()
        .ok()
        .and_then(|exe| exe.parent().map(|dir| dir.join(hash_file)))
        .is_some_and(|path| path.is_file())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_app_s_hashed_files_are_immutable() {
        assert!(is_content_hashed("/pkg/agent-taskbay.0123456789abcdef.wasm"));
        assert!(is_content_hashed("/pkg/agent-taskbay.0123456789abcdef.js"));
        assert!(is_content_hashed("/pkg/agent-taskbay.0123456789abcdef.css"));
        for path in [
            "/pkg/agent-taskbay.wasm",
            "/pkg/agent-taskbay_bg.wasm",
            "/pkg/agent-taskbay.0123456789ABCDEF.wasm",
            "/pkg/agent-taskbay.0123456789abcdef.wasm.br",
            "/pkg/agent-taskbay.0123456789abcde.js",
            "/pkg/sub/agent-taskbay.0123456789abcdef.js",
            "/pkg/.0123456789abcdef.js",
            "/fonts/inter.0123456789abcdef.woff2",
            "/favicon.svg",
        ] {
            assert!(!is_content_hashed(path), "{path}");
        }
    }
}
