//! The browser calls the app makes. Each function has a `hydrate` body that touches the DOM
//! and a server body that does nothing or reads the request, with the same signature.

use crate::theme::{THEME_COOKIE, Theme};

/// One year, in seconds: how long a theme choice is remembered.
const THEME_COOKIE_MAX_AGE: u32 = 31_536_000;

/// The theme of the request being rendered: its theme cookie.
#[cfg(feature = "ssr")]
pub fn request_theme() -> Theme {
    Theme::from_cookie_header(&cookie_header())
}

/// The raw `Cookie` header of the request being rendered.
#[cfg(feature = "ssr")]
fn cookie_header() -> String {
    leptos::prelude::use_context::<http::request::Parts>()
        .and_then(|parts| {
            parts
                .headers
                .get(http::header::COOKIE)
                .and_then(|v| v.to_str().ok())
                .map(str::to_owned)
        })
        .unwrap_or_default()
}

/// The theme the server rendered this document with: `<html data-theme>`, which it set from the
/// theme cookie. The browser starts from it instead of reading `document.cookie`, a synchronous
/// call to the browser's cookie store that takes several milliseconds; it is also exactly what
/// the hydrated page must agree with.
#[cfg(all(feature = "hydrate", not(feature = "ssr")))]
pub fn request_theme() -> Theme {
    web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.document_element())
        .and_then(|root| root.get_attribute("data-theme"))
        .map_or(Theme::System, |value| Theme::parse(&value))
}

/// Neither server nor browser (a plain `cargo check` of the crate): no request, no document.
#[cfg(not(any(feature = "ssr", feature = "hydrate")))]
pub fn request_theme() -> Theme {
    Theme::System
}

/// The cookie string that persists `theme`.
pub fn theme_cookie(theme: Theme) -> String {
    format!(
        "{THEME_COOKIE}={}; Path=/; Max-Age={THEME_COOKIE_MAX_AGE}; SameSite=Lax",
        theme.as_str()
    )
}

/// Applies `theme` to `<html data-theme>` and remembers it in the theme cookie.
#[cfg(feature = "hydrate")]
pub fn apply_theme(theme: Theme) {
    use wasm_bindgen::JsCast;
    let Some(document) = web_sys::window().and_then(|w| w.document()) else {
        return;
    };
    if let Some(root) = document.document_element() {
        // Setting an attribute on <html> cannot fail for a valid name; nothing to report if it does.
        let _ = match theme.attribute() {
            Some(value) => root.set_attribute("data-theme", value),
            None => root.remove_attribute("data-theme"),
        };
    }
    if let Ok(html) = document.dyn_into::<web_sys::HtmlDocument>() {
        let _ = html.set_cookie(&theme_cookie(theme));
    }
}

/// On the server a theme change never happens (it is a click handler).
#[cfg(not(feature = "hydrate"))]
pub fn apply_theme(_theme: Theme) {}

/// Marks `<body data-hydrated="true">` once the wasm app is live; end-to-end tests wait for it.
#[cfg(feature = "hydrate")]
pub fn mark_hydrated() {
    if let Some(body) = web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.body())
    {
        let _ = body.set_attribute("data-hydrated", "true");
    }
}

/// Effects do not run on the server.
#[cfg(not(feature = "hydrate"))]
pub fn mark_hydrated() {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn theme_cookie_is_site_wide_and_long_lived() {
        let cookie = theme_cookie(Theme::Dark);
        assert!(cookie.starts_with("taskbay-theme=dark;"));
        assert!(cookie.contains("Path=/"));
        assert!(cookie.contains("Max-Age=31536000"));
        assert_eq!(Theme::from_cookie_header(&cookie), Theme::Dark);
    }
}
