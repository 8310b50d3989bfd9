//! The Content-Security-Policy: one policy for every response, with a per-response nonce on
//! pages (issue #26). Leptos (through `leptos_axum`) makes a nonce for each server render and
//! puts it on the inline scripts it writes, the hydration script included. So scripts run only from the console's own files or with
//! this response's nonce: no `'unsafe-inline'`, and markup an agent smuggles into a page cannot
//! run a script even if a renderer let it through.

/// The policy; `nonce` is the page's, `None` for responses that are not pages (no inline script
/// runs there at all).
pub fn policy(nonce: Option<&str>) -> String {
    let scripts = match nonce {
        Some(nonce) => format!("script-src 'self' 'nonce-{nonce}' 'wasm-unsafe-eval'"),
        None => "script-src 'self' 'wasm-unsafe-eval'".to_owned(),
    };
    format!(
        "default-src 'self'; base-uri 'self'; form-action 'self'; frame-ancestors 'none'; object-src 'none'; \
         {scripts}; style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:; media-src 'self' data: blob:; \
         connect-src 'self'; font-src 'self' data:"
    )
}

/// Sets this page's policy, with its nonce, on the response being rendered.
#[cfg(feature = "ssr")]
pub fn provide_page_policy() {
    use leptos::prelude::use_context;
    let (Some(nonce), Some(response)) = (
        leptos::nonce::use_nonce(),
        use_context::<leptos_axum::ResponseOptions>(),
    ) else {
        return;
    };
    if let Ok(value) = http::HeaderValue::from_str(&policy(Some(&nonce))) {
        response.insert_header(http::header::CONTENT_SECURITY_POLICY, value);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scripts_need_the_nonce_or_the_console_s_own_files() {
        let page = policy(Some("abc123"));
        assert!(
            page.contains("script-src 'self' 'nonce-abc123' 'wasm-unsafe-eval';"),
            "{page}"
        );
        let other = policy(None);
        assert!(other.contains("script-src 'self' 'wasm-unsafe-eval';"), "{other}");
        for policy in [page, other] {
            assert!(!policy.contains("script-src 'self' 'unsafe-inline'"), "{policy}");
            assert!(policy.contains("frame-ancestors 'none'") && policy.contains("object-src 'none'"));
        }
    }
}
