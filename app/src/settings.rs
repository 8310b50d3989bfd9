//! Browser-side preferences of the Settings screen: the request defaults and the extension URIs
//! activated on every request, kept in this browser's `localStorage` (never on the server; the
//! server's configuration is environment variables only).
//!
//! Everything but [`load`] and [`save`] is pure; on the server those two do nothing.

use serde::{Deserialize, Serialize};

/// The `localStorage` key the preferences are stored under (bump the suffix on a breaking change).
pub const STORAGE_KEY: &str = "agent-taskbay.preferences.v1";

/// The output modes offered as toggles, all accepted by default.
pub const DEFAULT_OUTPUT_MODES: [&str; 10] = [
    "text/plain",
    "text/markdown",
    "text/csv",
    "application/json",
    "application/pdf",
    "application/octet-stream",
    "application/zip",
    "image/*",
    "audio/*",
    "video/*",
];

/// Longest extension URI accepted, in characters.
pub const MAX_EXTENSION_URI_CHARS: usize = 2048;

/// One extension URI and whether it is activated on requests.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Eq)]
pub struct ExtensionUri {
    pub uri: String,
    pub enabled: bool,
}

/// The request defaults and extensions an operator chose in this browser.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
#[serde(rename_all = "camelCase", default)]
pub struct Preferences {
    /// Sent as `acceptedOutputModes`.
    pub accepted_output_modes: Vec<String>,
    /// Sent as `returnImmediately`.
    pub return_immediately: bool,
    /// Sent as `historyLength`; `None` leaves it to the agent.
    pub history_length: Option<u64>,
    /// Activated on every request when enabled.
    pub extension_uris: Vec<ExtensionUri>,
    /// The single-key shortcuts (`?`, `/`, `j`, `k`, `g` then a letter) are on; off, only
    /// Ctrl/Cmd-K works (WCAG 2.1.4: character-key shortcuts can be turned off).
    pub single_key_shortcuts: bool,
}

impl Default for Preferences {
    fn default() -> Self {
        Preferences {
            accepted_output_modes: DEFAULT_OUTPUT_MODES.iter().map(|m| (*m).to_owned()).collect(),
            return_immediately: true,
            history_length: None,
            extension_uris: Vec::new(),
            single_key_shortcuts: true,
        }
    }
}

impl Preferences {
    /// Whether `mode` is among the accepted output modes.
    pub fn accepts(&self, mode: &str) -> bool {
        self.accepted_output_modes.iter().any(|m| m == mode)
    }

    /// Turns `mode` on or off. Turned-on modes keep the order of [`DEFAULT_OUTPUT_MODES`];
    /// modes outside that list (stored by another version) are kept at the end.
    pub fn set_output_mode(&mut self, mode: &str, on: bool) {
        self.accepted_output_modes.retain(|m| m != mode);
        if on {
            self.accepted_output_modes.push(mode.to_owned());
        }
        let rank = |m: &String| {
            DEFAULT_OUTPUT_MODES
                .iter()
                .position(|d| d == m)
                .unwrap_or(DEFAULT_OUTPUT_MODES.len())
        };
        // A stable sort keeps unknown modes in their stored order.
        self.accepted_output_modes.sort_by_key(rank);
    }

    /// Validates `input` and appends it, enabled; returns the URI as stored.
    pub fn add_extension(&mut self, input: &str) -> Result<String, String> {
        let uri = validate_extension_uri(input)?;
        if self.extension_uris.iter().any(|e| e.uri == uri) {
            return Err("That extension URI is already listed.".into());
        }
        self.extension_uris.push(ExtensionUri {
            uri: uri.clone(),
            enabled: true,
        });
        Ok(uri)
    }

    /// Enables or disables every entry for `uri`.
    pub fn set_extension_enabled(&mut self, uri: &str, enabled: bool) {
        for entry in self.extension_uris.iter_mut().filter(|e| e.uri == uri) {
            entry.enabled = enabled;
        }
    }

    /// Removes every entry for `uri`.
    pub fn remove_extension(&mut self, uri: &str) {
        self.extension_uris.retain(|e| e.uri != uri);
    }
}

/// Reads stored preferences; anything unreadable gives the defaults. Duplicate extension URIs
/// (only possible by editing storage by hand) keep their first entry.
pub fn parse(json: &str) -> Preferences {
    let mut preferences: Preferences = serde_json::from_str(json).unwrap_or_default();
    let mut seen = Vec::<String>::new();
    preferences.extension_uris.retain(|e| {
        let fresh = !seen.contains(&e.uri);
        seen.push(e.uri.clone());
        fresh
    });
    preferences
}

/// The preferences stored in this browser, or the defaults.
#[cfg(feature = "hydrate")]
pub fn load() -> Preferences {
    web_sys::window()
        .and_then(|w| w.local_storage().ok().flatten())
        .and_then(|s| s.get_item(STORAGE_KEY).ok().flatten())
        .map(|json| parse(&json))
        .unwrap_or_default()
}

/// On the server there is no browser storage: the defaults.
#[cfg(not(feature = "hydrate"))]
pub fn load() -> Preferences {
    Preferences::default()
}

/// Stores `preferences` in this browser.
#[cfg(feature = "hydrate")]
pub fn save(preferences: &Preferences) -> Result<(), String> {
    let json = serde_json::to_string(preferences).map_err(|e| e.to_string())?;
    let storage = web_sys::window()
        .and_then(|w| w.local_storage().ok().flatten())
        .ok_or_else(|| "This browser does not allow saving preferences.".to_owned())?;
    storage
        .set_item(STORAGE_KEY, &json)
        .map_err(|_| "This browser did not save the preferences (storage full or blocked).".to_owned())
}

/// On the server nothing is stored (a save only happens in an event handler).
#[cfg(not(feature = "hydrate"))]
pub fn save(_preferences: &Preferences) -> Result<(), String> {
    Ok(())
}

/// The enabled extension URIs, without duplicates, first occurrence first.
pub fn active_extension_uris(preferences: &Preferences) -> Vec<String> {
    let mut active = Vec::<String>::new();
    for entry in preferences.extension_uris.iter().filter(|e| e.enabled) {
        if !active.contains(&entry.uri) {
            active.push(entry.uri.clone());
        }
    }
    active
}

/// Checks an extension URI typed by a person and returns it trimmed: absolute (a scheme such as
/// `https:` or `urn:` followed by something), at most [`MAX_EXTENSION_URI_CHARS`] characters,
/// and without spaces or commas (URIs travel comma-separated in the `A2A-Extensions` header).
pub fn validate_extension_uri(input: &str) -> Result<String, String> {
    let uri = input.trim();
    if uri.is_empty() {
        return Err("Enter an extension URI.".into());
    }
    if uri.chars().count() > MAX_EXTENSION_URI_CHARS {
        return Err(format!(
            "An extension URI is at most {MAX_EXTENSION_URI_CHARS} characters."
        ));
    }
    if !has_scheme(uri) {
        return Err("An extension URI must be absolute (https://… or urn:…).".into());
    }
    if uri
        .chars()
        .any(|c| c.is_whitespace() || c.is_control() || c == ',')
    {
        return Err("An extension URI cannot contain spaces or commas.".into());
    }
    Ok(uri.to_owned())
}

/// `scheme ":" rest`: a letter, then letters, digits, `+`, `-` or `.`, and a non-empty rest.
fn has_scheme(uri: &str) -> bool {
    let Some((scheme, rest)) = uri.split_once(':') else {
        return false;
    };
    let mut chars = scheme.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphabetic())
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
        && !rest.is_empty()
}

/// Reads the History length field: empty means the agent's default (`None`), otherwise a
/// non-negative whole number.
pub fn parse_history_length(input: &str) -> Result<Option<u64>, String> {
    let text = input.trim();
    if text.is_empty() {
        return Ok(None);
    }
    text.parse::<u64>()
        .map(Some)
        .map_err(|_| "History length is a whole number, 0 or more (empty = agent default).".into())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_accept_the_ten_modes_and_return_immediately() {
        let defaults = Preferences::default();
        assert_eq!(defaults.accepted_output_modes.len(), 10);
        assert_eq!(defaults.accepted_output_modes[0], "text/plain");
        assert_eq!(defaults.accepted_output_modes[9], "video/*");
        assert!(defaults.return_immediately);
        assert_eq!(defaults.history_length, None);
        assert!(defaults.extension_uris.is_empty());
        assert_eq!(STORAGE_KEY, "agent-taskbay.preferences.v1");
    }

    #[test]
    fn preferences_round_trip_through_json() {
        let mut preferences = Preferences {
            return_immediately: false,
            history_length: Some(3),
            ..Preferences::default()
        };
        preferences.add_extension("urn:x-a2a:trace:v1").expect("valid");
        let json = serde_json::to_string(&preferences).expect("serialises");
        assert!(json.contains("\"acceptedOutputModes\""));
        assert!(json.contains("\"historyLength\":3"));
        assert_eq!(parse(&json), preferences);
    }

    #[test]
    fn unreadable_storage_gives_defaults_and_missing_fields_take_defaults() {
        assert_eq!(parse("not json"), Preferences::default());
        assert_eq!(parse("[1,2]"), Preferences::default());
        assert_eq!(parse(""), Preferences::default());
        let partial = parse(r#"{"historyLength": 5}"#);
        assert_eq!(partial.history_length, Some(5));
        assert!(partial.return_immediately);
        assert_eq!(partial.accepted_output_modes.len(), 10);
    }

    #[test]
    fn parse_drops_duplicate_extension_entries() {
        let json = r#"{"extensionUris":[{"uri":"urn:a","enabled":false},{"uri":"urn:a","enabled":true},{"uri":"urn:b","enabled":true}]}"#;
        let preferences = parse(json);
        assert_eq!(
            preferences.extension_uris,
            vec![
                ExtensionUri {
                    uri: "urn:a".into(),
                    enabled: false
                },
                ExtensionUri {
                    uri: "urn:b".into(),
                    enabled: true
                },
            ]
        );
    }

    #[test]
    fn server_load_is_the_defaults_and_save_succeeds() {
        assert_eq!(load(), Preferences::default());
        assert_eq!(save(&Preferences::default()), Ok(()));
    }

    #[test]
    fn active_extension_uris_are_enabled_and_unique_in_order() {
        let preferences = Preferences {
            extension_uris: vec![
                ExtensionUri {
                    uri: "urn:b".into(),
                    enabled: true,
                },
                ExtensionUri {
                    uri: "urn:off".into(),
                    enabled: false,
                },
                ExtensionUri {
                    uri: "https://x.example/ext".into(),
                    enabled: true,
                },
                ExtensionUri {
                    uri: "urn:b".into(),
                    enabled: true,
                },
            ],
            ..Preferences::default()
        };
        assert_eq!(
            active_extension_uris(&preferences),
            vec!["urn:b", "https://x.example/ext"]
        );
        assert!(active_extension_uris(&Preferences::default()).is_empty());
    }

    #[test]
    fn valid_extension_uris_are_trimmed() {
        assert_eq!(
            validate_extension_uri("  https://extensions.allsrc.dev/agent-taskbay/structured-form/v1 "),
            Ok("https://extensions.allsrc.dev/agent-taskbay/structured-form/v1".into())
        );
        assert_eq!(
            validate_extension_uri("urn:x-a2a:trace:v1"),
            Ok("urn:x-a2a:trace:v1".into())
        );
        assert_eq!(
            validate_extension_uri("coap+tcp.v2-x:thing"),
            Ok("coap+tcp.v2-x:thing".into())
        );
    }

    #[test]
    fn empty_relative_or_schemeless_uris_are_refused() {
        assert_eq!(
            validate_extension_uri("   "),
            Err("Enter an extension URI.".into())
        );
        let absolute = Err("An extension URI must be absolute (https://… or urn:…).".into());
        for input in [
            "example.com/ext",
            "/ext/v1",
            "//host/x",
            "1http://x",
            "https:",
            ":x",
            "ht tp://x",
            "é:x",
        ] {
            assert_eq!(validate_extension_uri(input), absolute, "{input}");
        }
        assert_eq!(
            validate_extension_uri("https://x.example/a b"),
            Err("An extension URI cannot contain spaces or commas.".into())
        );
        assert_eq!(
            validate_extension_uri("urn:a,urn:b"),
            Err("An extension URI cannot contain spaces or commas.".into())
        );
    }

    #[test]
    fn extension_uris_are_at_most_2048_characters() {
        let at_limit = format!("urn:{}", "a".repeat(MAX_EXTENSION_URI_CHARS - 4));
        assert_eq!(validate_extension_uri(&at_limit), Ok(at_limit.clone()));
        let over = format!("{at_limit}a");
        assert_eq!(
            validate_extension_uri(&over),
            Err("An extension URI is at most 2048 characters.".into())
        );
    }

    #[test]
    fn adding_toggling_and_removing_extensions() {
        let mut preferences = Preferences::default();
        assert_eq!(preferences.add_extension(" urn:a "), Ok("urn:a".into()));
        assert_eq!(
            preferences.add_extension("urn:a"),
            Err("That extension URI is already listed.".into())
        );
        assert_eq!(
            preferences.add_extension("nope"),
            Err("An extension URI must be absolute (https://… or urn:…).".into())
        );
        preferences.add_extension("urn:b").expect("valid");
        preferences.set_extension_enabled("urn:a", false);
        assert_eq!(active_extension_uris(&preferences), vec!["urn:b"]);
        preferences.remove_extension("urn:b");
        assert_eq!(
            preferences.extension_uris,
            vec![ExtensionUri {
                uri: "urn:a".into(),
                enabled: false
            }]
        );
    }

    #[test]
    fn output_modes_toggle_in_canonical_order_and_keep_unknown_modes() {
        let mut preferences = Preferences {
            accepted_output_modes: vec!["application/x-custom".into(), "text/csv".into()],
            ..Preferences::default()
        };
        preferences.set_output_mode("text/plain", true);
        assert_eq!(
            preferences.accepted_output_modes,
            vec!["text/plain", "text/csv", "application/x-custom"]
        );
        preferences.set_output_mode("text/plain", true);
        assert_eq!(preferences.accepted_output_modes.len(), 3);
        preferences.set_output_mode("text/csv", false);
        assert!(!preferences.accepts("text/csv"));
        assert!(preferences.accepts("text/plain"));
        assert!(preferences.accepts("application/x-custom"));
    }

    #[test]
    fn history_length_is_empty_or_a_non_negative_integer() {
        assert_eq!(parse_history_length(""), Ok(None));
        assert_eq!(parse_history_length("  "), Ok(None));
        assert_eq!(parse_history_length("0"), Ok(Some(0)));
        assert_eq!(parse_history_length(" 12 "), Ok(Some(12)));
        for bad in ["-1", "1.5", "ten", "1e3"] {
            assert!(parse_history_length(bad).is_err(), "{bad}");
        }
    }
}
