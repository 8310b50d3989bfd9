//! The colour theme: follow the system, or a manual light / dark choice.
//!
//! The choice is persisted in a cookie rather than local storage so the server renders the
//! chosen theme on first paint and the hydrated page starts from the same value (no flash,
//! no hydration mismatch).

use leptos::prelude::*;

/// Cookie that holds the manual theme choice.
pub const THEME_COOKIE: &str = "taskbay-theme";

/// The theme an operator picked.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Theme {
    /// Follow `prefers-color-scheme`.
    #[default]
    System,
    Light,
    Dark,
}

impl Theme {
    /// Every choice, in the order the switch shows them.
    pub const ALL: [Theme; 3] = [Theme::System, Theme::Light, Theme::Dark];

    /// The cookie value (and `data-theme` value) for this theme.
    pub fn as_str(self) -> &'static str {
        match self {
            Theme::System => "system",
            Theme::Light => "light",
            Theme::Dark => "dark",
        }
    }

    /// The label shown on the switch.
    pub fn label(self) -> &'static str {
        match self {
            Theme::System => "System",
            Theme::Light => "Light",
            Theme::Dark => "Dark",
        }
    }

    /// The `data-theme` attribute for `<html>`: absent when following the system.
    pub fn attribute(self) -> Option<&'static str> {
        match self {
            Theme::System => None,
            other => Some(other.as_str()),
        }
    }

    /// Parses a cookie value; anything unknown means [`Theme::System`].
    pub fn parse(value: &str) -> Theme {
        match value.trim() {
            "light" => Theme::Light,
            "dark" => Theme::Dark,
            _ => Theme::System,
        }
    }

    /// Finds the theme cookie in a `Cookie` header (or `document.cookie`) string.
    pub fn from_cookie_header(header: &str) -> Theme {
        header
            .split(';')
            .filter_map(|pair| pair.split_once('='))
            .find(|(name, _)| name.trim() == THEME_COOKIE)
            .map(|(_, value)| Theme::parse(value))
            .unwrap_or_default()
    }

    /// The theme of the current request (server: its cookie) or document (browser: what the
    /// server rendered on `<html data-theme>`).
    pub fn from_request() -> Theme {
        crate::browser::request_theme()
    }
}

/// The shared, writable theme choice; read by the switch in the sidebar.
#[derive(Clone, Copy, Debug)]
pub struct ThemeContext(pub RwSignal<Theme>);

/// Provides [`ThemeContext`] from the request's cookie or the rendered document. Call once near
/// the root.
pub fn provide_theme() {
    let theme = RwSignal::new(Theme::from_request());
    provide_context(ThemeContext(theme));
}

/// Returns the theme context, which [`provide_theme`] set at the root.
pub fn use_theme() -> ThemeContext {
    use_context::<ThemeContext>().unwrap_or_else(|| ThemeContext(RwSignal::new(Theme::System)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cookie_header_with_other_cookies_yields_the_theme() {
        assert_eq!(
            Theme::from_cookie_header("a=1; taskbay-theme=dark; b=2"),
            Theme::Dark
        );
        assert_eq!(Theme::from_cookie_header("taskbay-theme=light"), Theme::Light);
    }

    #[test]
    fn missing_or_unknown_cookie_means_system() {
        assert_eq!(Theme::from_cookie_header(""), Theme::System);
        assert_eq!(Theme::from_cookie_header("taskbay-theme=neon"), Theme::System);
        assert_eq!(Theme::from_cookie_header("xtaskbay-theme=dark"), Theme::System);
    }

    #[test]
    fn system_theme_sets_no_attribute() {
        assert_eq!(Theme::System.attribute(), None);
        assert_eq!(Theme::Dark.attribute(), Some("dark"));
        for theme in Theme::ALL {
            assert_eq!(Theme::parse(theme.as_str()), theme);
        }
    }
}
