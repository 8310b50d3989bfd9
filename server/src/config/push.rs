//! Push notifications from agents (`shared/spec/security-and-durability.md` §3.7):
//! `A2A_PUSH_CALLBACK_ORIGIN`, `A2A_PUSH_SIGNING_KEY`, `A2A_PUSH_ALLOW_LOOPBACK_HTTP`. Push is
//! off unless the origin is set; an invalid origin or key stops the process with a named error.

use std::fmt;

use super::ConfigError;

const ORIGIN: &str = "A2A_PUSH_CALLBACK_ORIGIN";
const KEY: &str = "A2A_PUSH_SIGNING_KEY";
const LOOPBACK: &str = "A2A_PUSH_ALLOW_LOOPBACK_HTTP";

/// Where agents deliver, and the key every callback token is derived from.
#[derive(Clone, PartialEq, Eq)]
pub struct PushSettings {
    /// `https://host[:port]` (or plain http to a loopback name, when allowed), no trailing slash.
    pub callback_origin: String,
    /// The 32 bytes of `A2A_PUSH_SIGNING_KEY`.
    key: [u8; 32],
}

impl fmt::Debug for PushSettings {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PushSettings")
            .field("callback_origin", &self.callback_origin)
            .field("key", &"[redacted]")
            .finish()
    }
}

impl PushSettings {
    /// The signing key's bytes (the callback token's HMAC key).
    pub fn key(&self) -> &[u8; 32] {
        &self.key
    }

    /// The callback URL of a registration.
    pub fn callback_url(&self, registration_id: &str) -> String {
        format!("{}/api/webhooks/a2a/{registration_id}", self.callback_origin)
    }

    /// Settings for tests and tools.
    pub fn new(callback_origin: &str, key: [u8; 32]) -> PushSettings {
        PushSettings {
            callback_origin: callback_origin.trim_end_matches('/').to_owned(),
            key,
        }
    }
}

/// Reads the three variables; `None` when the origin is unset (push off).
pub fn parse(
    origin: Option<String>,
    key: Option<String>,
    allow_loopback_http: bool,
) -> Result<Option<PushSettings>, ConfigError> {
    let key = key.map(|key| parse_key(&key)).transpose()?;
    let Some(origin) = origin else {
        return Ok(None);
    };
    let callback_origin = parse_origin(&origin, allow_loopback_http)?;
    let key = key.ok_or_else(|| {
        ConfigError::new(KEY, "Push delivery needs a signing key of 64 hexadecimal digits.")
    })?;
    Ok(Some(PushSettings { callback_origin, key }))
}

/// `LOOPBACK`'s name, for the caller that parses it as a boolean.
pub const ALLOW_LOOPBACK_HTTP: &str = LOOPBACK;

fn parse_key(key: &str) -> Result<[u8; 32], ConfigError> {
    let invalid = || ConfigError::new(KEY, "Must be 64 hexadecimal digits (32 bytes).");
    if key.len() != 64 {
        return Err(invalid());
    }
    let bytes = hex::decode(key).map_err(|_| invalid())?;
    bytes.try_into().map_err(|_| invalid())
}

fn parse_origin(origin: &str, allow_loopback_http: bool) -> Result<String, ConfigError> {
    let invalid = || {
        ConfigError::new(
            ORIGIN,
            "Must be an https origin with path /, no credentials, query or fragment.",
        )
    };
    let url = url::Url::parse(origin).map_err(|_| invalid())?;
    let host = url.host_str().ok_or_else(invalid)?;
    if !url.username().is_empty()
        || url.password().is_some()
        || url.query().is_some()
        || url.fragment().is_some()
        || url.path() != "/"
    {
        return Err(invalid());
    }
    match url.scheme() {
        "https" => {}
        "http" if allow_loopback_http && matches!(host, "localhost" | "127.0.0.1" | "[::1]") => {}
        "http" => {
            return Err(ConfigError::new(
                ORIGIN,
                "Plain http is allowed only for localhost, 127.0.0.1 or [::1], with A2A_PUSH_ALLOW_LOOPBACK_HTTP=true.",
            ));
        }
        _ => return Err(invalid()),
    }
    Ok(url.origin().ascii_serialization())
}

#[cfg(test)]
mod tests {
    use super::*;

    const K: &str = "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff";

    fn message(result: Result<Option<PushSettings>, ConfigError>) -> String {
        result.unwrap_err().to_string()
    }

    #[test]
    fn push_is_off_without_an_origin_and_needs_a_key_with_one_3_7() {
        assert_eq!(parse(None, None, false).unwrap(), None);
        let on = parse(Some("https://taskbay.example/".into()), Some(K.into()), false)
            .unwrap()
            .unwrap();
        assert_eq!(on.callback_origin, "https://taskbay.example");
        assert_eq!(
            on.callback_url("r-1"),
            "https://taskbay.example/api/webhooks/a2a/r-1"
        );
        assert!(!format!("{on:?}").contains("0011"), "the key is never printed");
        assert_eq!(
            message(parse(Some("https://taskbay.example".into()), None, false)),
            "A2A_PUSH_SIGNING_KEY: Push delivery needs a signing key of 64 hexadecimal digits."
        );
    }

    #[test]
    fn a_bad_key_or_origin_is_refused_by_name_3_7() {
        for key in ["abc", &K[..63], &format!("{}zz", &K[..62])] {
            assert_eq!(
                message(parse(None, Some(key.into()), false)),
                "A2A_PUSH_SIGNING_KEY: Must be 64 hexadecimal digits (32 bytes)."
            );
        }
        for origin in [
            "https://user:pw@taskbay.example/",
            "https://taskbay.example/base",
            "https://taskbay.example/?q=1",
            "https://taskbay.example/#f",
            "ftp://taskbay.example/",
            "not a url",
        ] {
            assert_eq!(
                message(parse(Some(origin.into()), Some(K.into()), true)),
                "A2A_PUSH_CALLBACK_ORIGIN: Must be an https origin with path /, no credentials, query or fragment.",
                "{origin}"
            );
        }
        let plain = "A2A_PUSH_CALLBACK_ORIGIN: Plain http is allowed only for localhost, 127.0.0.1 or [::1], with A2A_PUSH_ALLOW_LOOPBACK_HTTP=true.";
        assert_eq!(
            message(parse(Some("http://127.0.0.1:3002".into()), Some(K.into()), false)),
            plain
        );
        assert_eq!(
            message(parse(Some("http://taskbay.example".into()), Some(K.into()), true)),
            plain
        );
        for loopback in [
            "http://127.0.0.1:3002",
            "http://localhost:3002/",
            "http://[::1]:3002",
        ] {
            assert!(
                parse(Some(loopback.into()), Some(K.into()), true)
                    .unwrap()
                    .is_some(),
                "{loopback}"
            );
        }
    }
}
