//! The link-scheme filter: which URLs from agent content may become a clickable `href`.
//!
//! An allowlist, so `javascript:`, `data:`, `vbscript:`, relative and malformed URLs can never
//! become links however they are spelled.

/// Schemes a markdown link may use (link rule: http, https and mailto only).
const LINK_SCHEMES: [&str; 3] = ["http", "https", "mailto"];

/// Schemes a remote file link may use (media rule: http and https only).
const WEB_SCHEMES: [&str; 2] = ["http", "https"];

/// `url` trimmed, if its scheme is `http`, `https` or `mailto` (any case); otherwise `None`,
/// and the caller shows the link text only.
pub fn safe_link(url: &str) -> Option<&str> {
    with_scheme(url, &LINK_SCHEMES)
}

/// `url` trimmed, if its scheme is `http` or `https` (any case): the only remote file URLs
/// the console offers as a link.
pub fn web_link(url: &str) -> Option<&str> {
    with_scheme(url, &WEB_SCHEMES)
}

fn with_scheme<'a>(url: &'a str, allowed: &[&str]) -> Option<&'a str> {
    let url = url.trim();
    let (scheme, _) = url.split_once(':')?;
    allowed
        .iter()
        .any(|s| s.eq_ignore_ascii_case(scheme))
        .then_some(url)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn link_rule_allows_http_https_mailto_in_any_case() {
        assert_eq!(safe_link("https://a.example/x"), Some("https://a.example/x"));
        assert_eq!(safe_link("HTTP://a.example"), Some("HTTP://a.example"));
        assert_eq!(safe_link("MailTo:me@a.example"), Some("MailTo:me@a.example"));
        assert_eq!(safe_link("  https://a.example \n"), Some("https://a.example"));
    }

    #[test]
    fn link_rule_rejects_script_data_relative_and_odd_schemes() {
        for url in [
            "javascript:alert(1)",
            "JaVaScRiPt:alert(1)",
            " javascript:alert(1)",
            "java\tscript:alert(1)",
            "\u{1}javascript:alert(1)",
            "vbscript:msgbox(1)",
            "data:text/html;base64,PHNjcmlwdD4=",
            "file:///etc/passwd",
            "/relative/path",
            "relative",
            "#fragment",
            "//a.example/x",
            "",
            "https",
            "ftp://a.example",
            "http ://a.example",
        ] {
            assert_eq!(safe_link(url), None, "{url:?}");
        }
    }

    #[test]
    fn web_link_rule_rejects_mailto() {
        assert_eq!(
            web_link("https://a.example/f.zip"),
            Some("https://a.example/f.zip")
        );
        assert_eq!(web_link("mailto:me@a.example"), None);
        assert_eq!(web_link("javascript:alert(1)"), None);
    }
}
