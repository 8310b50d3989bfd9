//! `GET /api/artifacts/{digest}` (read; `shared/spec/reference.md` §4.9): the bytes of an
//! archived file, only for a digest some task of the caller's organization references
//! (an `artifact_access` row). Always a download (`Content-Disposition: attachment`) with
//! `X-Content-Type-Options: nosniff` and `Content-Security-Policy: sandbox; default-src 'none'`,
//! so nothing served here can run in the console's origin; `<img>` and `<audio>` still show it.
//! The stored media type is kept only for kinds a browser renders passively (images, audio,
//! video, PDF, plain text, CSV, JSON); anything else is `application/octet-stream`. Anything
//! not servable is a plain-text `404 Not found`.

use axum::body::Body;
use axum::extract::{Path, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};

use super::principal::{Permission, Principal};
use crate::state::AppState;

const OCTET_STREAM: &str = "application/octet-stream";
const PASSIVE_EXACT: [&str; 4] = ["application/pdf", "text/plain", "text/csv", "application/json"];
const PASSIVE_PREFIXES: [&str; 3] = ["image/", "audio/", "video/"];
/// Longest filename put in `Content-Disposition`.
const MAX_FILENAME_CHARS: usize = 128;

fn not_found() -> Response {
    let mut response = (StatusCode::NOT_FOUND, "Not found").into_response();
    response
        .headers_mut()
        .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    response
}

/// The `Content-Type` for a stored media type: its essence if passive, else octet-stream.
pub fn served_media_type(stored: Option<&str>) -> String {
    let Some(essence) = stored
        .and_then(|m| m.split(';').next())
        .map(|m| m.trim().to_ascii_lowercase())
    else {
        return OCTET_STREAM.into();
    };
    let token = |s: &str| {
        !s.is_empty()
            && s.bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"!#$&-^_.+".contains(&b))
    };
    let well_formed = essence.split_once('/').is_some_and(|(t, s)| token(t) && token(s));
    let passive =
        PASSIVE_EXACT.contains(&essence.as_str()) || PASSIVE_PREFIXES.iter().any(|p| essence.starts_with(p));
    if well_formed && passive {
        essence
    } else {
        OCTET_STREAM.into()
    }
}

/// A filename safe inside a quoted `Content-Disposition` parameter: letters, digits, `.`, `-`,
/// `_` and spaces kept, anything else `_`; without leading dots; the digest when nothing is left.
pub fn safe_filename(stored: Option<&str>, digest: &str) -> String {
    let cleaned: String = stored
        .unwrap_or_default()
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_' | ' ') {
                c
            } else {
                '_'
            }
        })
        .take(MAX_FILENAME_CHARS)
        .collect();
    let cleaned = cleaned.trim().trim_start_matches('.').trim().to_owned();
    if cleaned.is_empty() || cleaned.chars().all(|c| c == '_') {
        digest.to_owned()
    } else {
        cleaned
    }
}

/// `GET /api/artifacts/{digest}`.
pub async fn download(
    State(state): State<AppState>,
    principal: Principal,
    Path(digest): Path<String>,
) -> Response {
    if principal.require(Permission::Read).is_err() {
        return not_found();
    }
    let Some(path) = state.ingestor.store.path(principal.organization_id(), &digest) else {
        return not_found();
    };
    // Which task references the object, and what it called it.
    let access = match crate::store::tasks::artifact_access(&state.db.read, &principal.access, &digest).await
    {
        Ok(access) => access,
        Err(crate::store::StoreError::NotFound) => return not_found(),
        Err(error) => {
            tracing::warn!(%error, "artifact access lookup failed");
            return super::error::ApiError::unavailable().into_response();
        }
    };
    let bytes = match tokio::fs::read(&path).await {
        Ok(bytes) => bytes,
        Err(error) => {
            tracing::warn!(%error, %digest, "archived object is missing");
            return not_found();
        }
    };
    let filename = safe_filename(access.filename.as_deref(), &digest);
    let content_type = served_media_type(access.media_type.as_deref());
    let mut response = Response::new(Body::from(bytes));
    let headers = response.headers_mut();
    let set = |value: String| HeaderValue::from_str(&value).unwrap_or(HeaderValue::from_static(OCTET_STREAM));
    headers.insert(header::CONTENT_TYPE, set(content_type));
    if let Ok(disposition) = HeaderValue::from_str(&format!("attachment; filename=\"{filename}\"")) {
        headers.insert(header::CONTENT_DISPOSITION, disposition);
    }
    headers.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    headers.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static("sandbox; default-src 'none'"),
    );
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_passive_media_types_are_served_as_such() {
        assert_eq!(served_media_type(Some("image/png")), "image/png");
        assert_eq!(served_media_type(Some("Text/CSV; charset=utf-8")), "text/csv");
        assert_eq!(served_media_type(Some("application/pdf")), "application/pdf");
        assert_eq!(served_media_type(Some("text/html")), OCTET_STREAM);
        assert_eq!(served_media_type(Some("application/javascript")), OCTET_STREAM);
        assert_eq!(served_media_type(Some("image/png\r\nx: y")), OCTET_STREAM);
        assert_eq!(served_media_type(None), OCTET_STREAM);
    }

    #[test]
    fn filenames_are_sanitized() {
        let digest = "a".repeat(64);
        assert_eq!(safe_filename(Some("chart.png"), &digest), "chart.png");
        assert_eq!(safe_filename(Some("a\"b;c\r\n.txt"), &digest), "a_b_c__.txt");
        assert_eq!(safe_filename(Some("../../etc/passwd"), &digest), "_.._etc_passwd");
        assert_eq!(safe_filename(Some("résumé.pdf"), &digest), "r_sum_.pdf");
        assert_eq!(safe_filename(Some("\"\""), &digest), digest);
        assert_eq!(safe_filename(None, &digest), digest);
    }
}
