//! The credential binding of one agent (`shared/spec/security-and-durability.md` §2.1): a strict
//! JSON object `{"origins":[…], "credential":{…}}`, unknown fields refused, with the limits of
//! the spec. A binding is the plaintext the vault encrypts; nothing else keeps it.

use std::fmt;

use serde::{Deserialize, Serialize};

/// `origins`: 1 to this many entries (§2.1).
pub const MAX_ORIGINS: usize = 20;
/// Shortest secret (§2.1).
pub const MIN_SECRET_CHARS: usize = 8;
/// Longest secret, certificates and keys included (§2.1).
pub const MAX_SECRET_CHARS: usize = 100_000;
/// Longest OAuth `scope` (§2.1).
pub const MAX_SCOPE_CHARS: usize = 1_000;
/// Longest non-secret field (header name, client id, URL).
const MAX_FIELD_CHARS: usize = 2_048;

/// Header names an `apiKey` may not use (§2.1), compared case-insensitively.
const FORBIDDEN_HEADERS: &[&str] = &[
    "host",
    "cookie",
    "set-cookie",
    "connection",
    "content-length",
    "content-type",
    "transfer-encoding",
    "proxy-authorization",
];

/// One agent's binding: where its credential may be sent and the credential itself.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Binding {
    pub origins: Vec<String>,
    pub credential: Credential,
}

/// The credential of a binding; `type` names the kind.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "camelCase", deny_unknown_fields)]
pub enum Credential {
    /// Sent as the header `name: value`.
    #[serde(rename_all = "camelCase")]
    ApiKey { name: String, value: String },
    /// `Authorization: Bearer <token>`.
    Bearer { token: String },
    /// An OAuth 2.0 client-credentials grant at `tokenEndpoint` (`client_secret_post`).
    #[serde(rename_all = "camelCase")]
    OauthClient {
        issuer: String,
        token_endpoint: String,
        client_id: String,
        client_secret: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        scope: Option<String>,
    },
    /// A client certificate on the TLS connection; `ca` adds trusted roots for the agent's
    /// server certificate (which is always verified).
    Mtls {
        cert: String,
        key: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        ca: Option<String>,
    },
}

pub use app::words::CredentialKind;

impl fmt::Debug for Binding {
    /// The origins and the kind; never a secret.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Binding")
            .field("origins", &self.origins)
            .field("kind", &self.credential.kind().as_str())
            .finish()
    }
}

impl fmt::Debug for Credential {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Credential({}, ***)", self.kind().as_str())
    }
}

/// Why a binding was refused; the message names the field, never its value.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct BindingError(pub String);

impl Binding {
    /// Reads a binding from JSON and checks it; unknown fields, missing fields and values out of
    /// bounds are refused. The message never repeats the input.
    pub fn parse(json: &[u8]) -> Result<Binding, BindingError> {
        let binding: Binding = serde_json::from_slice(json).map_err(|e| {
            // serde's messages name fields and expected types, never string values, except
            // "unknown variant `…`" (the type), which is not a secret either; keep only the
            // category so nothing of the input is echoed.
            BindingError(format!(
                "The binding is not valid JSON of the expected shape ({}).",
                shape_error(&e)
            ))
        })?;
        binding.validate()?;
        Ok(binding)
    }

    /// Checks the limits of §2.1.
    pub fn validate(&self) -> Result<(), BindingError> {
        if self.origins.is_empty() || self.origins.len() > MAX_ORIGINS {
            return Err(BindingError(format!(
                "origins: list 1 to {MAX_ORIGINS} exact origins."
            )));
        }
        for origin in &self.origins {
            if binding_origin(origin).as_deref() != Some(origin.as_str()) {
                return Err(BindingError(
                    "origins: each entry must be an exact https origin (http only for localhost), lower-case, with no path, query, fragment or credentials.".into(),
                ));
            }
        }
        self.credential.validate()
    }

    /// The secret strings of the credential (for redaction and leak checks), longest first.
    pub fn secrets(&self) -> Vec<&str> {
        let mut secrets: Vec<&str> = match &self.credential {
            Credential::ApiKey { value, .. } => vec![value],
            Credential::Bearer { token } => vec![token],
            Credential::OauthClient { client_secret, .. } => vec![client_secret],
            Credential::Mtls { key, .. } => vec![key],
        };
        secrets.sort_by_key(|s| std::cmp::Reverse(s.len()));
        secrets
    }

    /// Whether `origin` (an ASCII-serialized origin) is one the credential may go to.
    pub fn permits(&self, origin: &str) -> bool {
        self.origins.iter().any(|o| o == origin)
    }
}

impl Credential {
    pub fn kind(&self) -> CredentialKind {
        match self {
            Credential::ApiKey { .. } => CredentialKind::ApiKey,
            Credential::Bearer { .. } => CredentialKind::Bearer,
            Credential::OauthClient { .. } => CredentialKind::OauthClient,
            Credential::Mtls { .. } => CredentialKind::Mtls,
        }
    }

    fn validate(&self) -> Result<(), BindingError> {
        match self {
            Credential::ApiKey { name, value } => {
                let valid_name = !name.is_empty()
                    && name.len() <= 128
                    && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '-')
                    && !FORBIDDEN_HEADERS.contains(&name.to_ascii_lowercase().as_str());
                if !valid_name {
                    return Err(BindingError(
                        "credential.name: a header name of letters, digits and '-', not Host, Cookie, Set-Cookie, Connection, Content-Length, Content-Type, Transfer-Encoding or Proxy-Authorization.".into(),
                    ));
                }
                secret("credential.value", value, true)
            }
            Credential::Bearer { token } => secret("credential.token", token, true),
            Credential::OauthClient {
                issuer,
                token_endpoint,
                client_id,
                client_secret,
                scope,
            } => {
                for (field, url) in [
                    ("credential.issuer", issuer),
                    ("credential.tokenEndpoint", token_endpoint),
                ] {
                    if !is_endpoint_url(url) {
                        return Err(BindingError(format!(
                            "{field}: an https URL (http only for localhost) without credentials, query or fragment."
                        )));
                    }
                }
                if client_id.is_empty() || client_id.chars().count() > MAX_FIELD_CHARS {
                    return Err(BindingError(format!(
                        "credential.clientId: 1 to {MAX_FIELD_CHARS} characters."
                    )));
                }
                secret("credential.clientSecret", client_secret, true)?;
                if scope
                    .as_ref()
                    .is_some_and(|s| s.chars().count() > MAX_SCOPE_CHARS)
                {
                    return Err(BindingError(format!(
                        "credential.scope: at most {MAX_SCOPE_CHARS} characters."
                    )));
                }
                Ok(())
            }
            Credential::Mtls { cert, key, ca } => {
                secret("credential.cert", cert, false)?;
                secret("credential.key", key, false)?;
                if let Some(ca) = ca {
                    secret("credential.ca", ca, false)?;
                }
                Ok(())
            }
        }
    }
}

/// A secret: [`MIN_SECRET_CHARS`] to [`MAX_SECRET_CHARS`] characters; header values (`in_header`)
/// must also be visible ASCII, as HTTP allows.
fn secret(field: &str, value: &str, in_header: bool) -> Result<(), BindingError> {
    let chars = value.chars().count();
    if !(MIN_SECRET_CHARS..=MAX_SECRET_CHARS).contains(&chars) {
        return Err(BindingError(format!(
            "{field}: {MIN_SECRET_CHARS} to {MAX_SECRET_CHARS} characters."
        )));
    }
    if in_header && !value.bytes().all(|b| (0x21..=0x7e).contains(&b)) {
        return Err(BindingError(format!(
            "{field}: visible ASCII characters only, without spaces."
        )));
    }
    Ok(())
}

/// `entry` as a binding origin when it is exactly one: https, or http on a loopback name (the
/// local demo agent); lower-case, default port dropped.
pub fn binding_origin(entry: &str) -> Option<String> {
    let origin = crate::config::exact_origin(entry)?;
    let url = url::Url::parse(&origin).ok()?;
    (url.scheme() == "https" || is_loopback_host(&url)).then_some(origin)
}

fn is_endpoint_url(raw: &str) -> bool {
    if raw.chars().count() > MAX_FIELD_CHARS {
        return false;
    }
    url::Url::parse(raw).is_ok_and(|url| {
        (url.scheme() == "https" || (url.scheme() == "http" && is_loopback_host(&url)))
            && url.host().is_some()
            && url.username().is_empty()
            && url.password().is_none()
            && url.query().is_none()
            && url.fragment().is_none()
    })
}

fn is_loopback_host(url: &url::Url) -> bool {
    match url.host() {
        Some(url::Host::Domain(name)) => name == "localhost",
        Some(url::Host::Ipv4(ip)) => ip.is_loopback(),
        Some(url::Host::Ipv6(ip)) => ip.is_loopback(),
        None => false,
    }
}

/// What kind of mistake a serde error is, without any of the input.
fn shape_error(error: &serde_json::Error) -> &'static str {
    let text = error.to_string();
    if text.starts_with("unknown field") {
        "an unknown field"
    } else if text.starts_with("missing field") {
        "a missing field"
    } else if text.starts_with("unknown variant") {
        "credential.type must be apiKey, bearer, oauthClient or mtls"
    } else if error.is_syntax() || error.is_eof() {
        "malformed JSON"
    } else {
        "a field of the wrong type"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(json: &str) -> Result<Binding, BindingError> {
        Binding::parse(json.as_bytes())
    }

    #[test]
    fn every_kind_parses_strictly_section_2_1() {
        let api = parse(r#"{"origins":["https://agent.example"],"credential":{"type":"apiKey","name":"X-API-Key","value":"secret-123"}}"#).unwrap();
        assert_eq!(api.credential.kind(), CredentialKind::ApiKey);
        assert_eq!(api.secrets(), vec!["secret-123"]);
        let oauth = parse(r#"{"origins":["https://agent.example"],"credential":{"type":"oauthClient","issuer":"https://id.example","tokenEndpoint":"https://id.example/token","clientId":"c","clientSecret":"s3cr3t-value","scope":"a2a"}}"#).unwrap();
        assert_eq!(oauth.credential.kind(), CredentialKind::OauthClient);
        for extra in [
            r#"{"origins":["https://a.example"],"credential":{"type":"bearer","token":"tok-12345"},"x":1}"#,
            r#"{"origins":["https://a.example"],"credential":{"type":"bearer","token":"tok-12345","x":1}}"#,
        ] {
            assert_eq!(
                parse(extra).unwrap_err().0,
                "The binding is not valid JSON of the expected shape (an unknown field)."
            );
        }
        let wrong_type =
            parse(r#"{"origins":["https://a.example"],"credential":{"type":"basic","token":"tok-12345"}}"#);
        assert!(wrong_type.unwrap_err().0.contains("credential.type must be"));
    }

    #[test]
    fn limits_and_origins_are_enforced_without_echoing_values() {
        let bearer = |origins: &str, token: &str| {
            parse(&format!(
                r#"{{"origins":{origins},"credential":{{"type":"bearer","token":"{token}"}}}}"#
            ))
        };
        assert!(
            bearer(r#"["https://a.example"]"#, "short")
                .unwrap_err()
                .0
                .contains("8 to 100000")
        );
        assert!(bearer("[]", "long-enough").unwrap_err().0.starts_with("origins"));
        let many = format!(
            "[{}]",
            (0..21)
                .map(|i| format!("\"https://a{i}.example\""))
                .collect::<Vec<_>>()
                .join(",")
        );
        assert!(bearer(&many, "long-enough").is_err());
        for origin in [
            "http://agent.example",
            "https://a.example/path",
            "https://u:p@a.example",
            "HTTPS://A.EXAMPLE",
        ] {
            let error = bearer(&format!("[\"{origin}\"]"), "long-enough-secret").unwrap_err();
            assert!(
                !error.0.contains("long-enough-secret") && error.0.starts_with("origins"),
                "{origin}"
            );
        }
        assert!(bearer(r#"["http://127.0.0.1:4010"]"#, "long-enough").is_ok());
        assert!(bearer(r#"["https://a.example"]"#, "has space in it").is_err());
    }

    #[test]
    fn api_key_header_names_are_restricted() {
        for name in [
            "Host",
            "cookie",
            "Content-Type",
            "Proxy-Authorization",
            "X Key",
            "X_Key",
            "",
        ] {
            let json = format!(
                r#"{{"origins":["https://a.example"],"credential":{{"type":"apiKey","name":"{name}","value":"secret-123"}}}}"#
            );
            assert!(
                parse(&json).unwrap_err().0.starts_with("credential.name"),
                "{name}"
            );
        }
    }

    #[test]
    fn debug_output_never_shows_a_secret() {
        let binding = parse(
            r#"{"origins":["https://a.example"],"credential":{"type":"bearer","token":"tok-SECRET-1"}}"#,
        )
        .unwrap();
        let shown = format!("{binding:?} {:?}", binding.credential);
        assert!(!shown.contains("tok-SECRET-1"), "{shown}");
        assert!(shown.contains("bearer"));
    }
}
