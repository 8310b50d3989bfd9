//! Sign-in settings (`shared/spec/reference.md` §5, `shared/spec/security-and-durability.md` §1.1):
//! `A2A_AUTH_MODE` and, for `oidc`, the provider and session variables.
//!
//! An unknown mode stops the process like any bad variable. A misconfigured `oidc` does not: the
//! console starts, logs which variable is wrong, and fails closed — every signed-in route answers
//! `503 Identity service unavailable.` and sign-in `503 Sign-in service unavailable.` — rather
//! than ever falling back to development mode.

use std::path::PathBuf;
use std::time::Duration;

use url::Url;

use super::{ConfigError, Secret, exact_origin};

/// Default absolute session lifetime: 8 hours.
pub const DEFAULT_SESSION_SECONDS: u64 = 28_800;
/// Allowed session lifetimes, in seconds.
pub const SESSION_SECONDS: std::ops::RangeInclusive<u64> = 60..=86_400;

/// Who a request is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AuthMode {
    /// Every request is the development-mode administrator; the console stays on loopback.
    Development,
    /// OpenID Connect sign-in and database sessions; the settings, or why they are unusable.
    Oidc(Result<OidcSettings, ConfigError>),
}

/// A usable OIDC configuration.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OidcSettings {
    /// `A2A_OIDC_ISSUER` exactly as given: the provider must name itself by this string.
    pub issuer: String,
    pub client_id: String,
    pub client_secret: Secret,
    /// `A2A_AUTH_ORGANIZATION_SLUG`: the organization every sign-in resolves to.
    pub organization_slug: String,
    /// `A2A_AUTH_ORIGIN`: the console's public https origin; the redirect URI is built from it.
    pub origin: String,
    /// `A2A_AUTH_SESSION_SECONDS`: absolute session and cookie lifetime.
    pub session_lifetime: Duration,
    /// `A2A_EXTRA_CA_CERTS`: a PEM bundle trusted beside the system's roots.
    pub extra_ca_certs: Option<PathBuf>,
}

impl OidcSettings {
    /// The issuer as people are provisioned with it (its trailing slash dropped, as
    /// `auth provision` stores it), so `https://id.example.com/` and `…com` name the same people.
    pub fn identity_issuer(&self) -> &str {
        self.issuer.trim_end_matches('/')
    }

    /// Where the provider sends the browser back (`<A2A_AUTH_ORIGIN>/api/auth/callback`).
    pub fn redirect_uri(&self) -> String {
        format!("{}/api/auth/callback", self.origin)
    }
}

/// Reads the mode and, for `oidc`, its settings, through `get` (trimmed, empty = unset).
pub fn auth_mode(get: &impl Fn(&str) -> Option<String>) -> Result<AuthMode, ConfigError> {
    match get("A2A_AUTH_MODE").as_deref() {
        None | Some("development") => Ok(AuthMode::Development),
        Some("oidc") => Ok(AuthMode::Oidc(oidc_settings(get))),
        Some(other) => Err(ConfigError::new(
            "A2A_AUTH_MODE",
            format!("must be development or oidc, not \"{other}\""),
        )),
    }
}

fn oidc_settings(get: &impl Fn(&str) -> Option<String>) -> Result<OidcSettings, ConfigError> {
    let required =
        |name: &'static str| get(name).ok_or_else(|| ConfigError::new(name, "is required in oidc mode"));
    let issuer = parse_issuer(&required("A2A_OIDC_ISSUER")?)?;
    let client_id = required("A2A_OIDC_CLIENT_ID")?;
    let client_secret = Secret(required("A2A_OIDC_CLIENT_SECRET")?);
    let organization_slug = required("A2A_AUTH_ORGANIZATION_SLUG")?;
    crate::cli::auth::parse_slug(&organization_slug)
        .map_err(|rule| ConfigError::new("A2A_AUTH_ORGANIZATION_SLUG", rule))?;
    let origin = required("A2A_AUTH_ORIGIN")?;
    let origin = exact_origin(&origin)
        .filter(|origin| origin.starts_with("https://"))
        .ok_or_else(|| ConfigError::new("A2A_AUTH_ORIGIN", "must be an https origin in oidc mode"))?;
    let session_lifetime = match get("A2A_AUTH_SESSION_SECONDS") {
        None => DEFAULT_SESSION_SECONDS,
        Some(value) => value
            .parse::<u64>()
            .ok()
            .filter(|seconds| SESSION_SECONDS.contains(seconds))
            .ok_or_else(|| {
                ConfigError::new(
                    "A2A_AUTH_SESSION_SECONDS",
                    format!("must be a whole number of seconds from 60 to 86400, not \"{value}\""),
                )
            })?,
    };
    Ok(OidcSettings {
        issuer,
        client_id,
        client_secret,
        organization_slug,
        origin,
        session_lifetime: Duration::from_secs(session_lifetime),
        extra_ca_certs: get("A2A_EXTRA_CA_CERTS").map(PathBuf::from),
    })
}

/// An https issuer without credentials, query or fragment, its trailing slash dropped (the form
/// people are provisioned with); `None` for anything else.
pub fn normalize_issuer(value: &str) -> Option<String> {
    let url = Url::parse(value).ok()?;
    let plain = url.scheme() == "https"
        && url.host_str().is_some()
        && url.username().is_empty()
        && url.password().is_none()
        && url.query().is_none()
        && url.fragment().is_none()
        && value.len() <= 500;
    plain.then(|| value.trim_end_matches('/').to_owned())
}

/// A usable issuer, kept exactly as given.
fn parse_issuer(value: &str) -> Result<String, ConfigError> {
    normalize_issuer(value).map(|_| value.to_owned()).ok_or_else(|| {
        ConfigError::new(
            "A2A_OIDC_ISSUER",
            "must be an https URL without credentials, query or fragment",
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mode(vars: &[(&str, &str)]) -> Result<AuthMode, ConfigError> {
        let vars: Vec<(String, String)> = vars.iter().map(|(k, v)| ((*k).into(), (*v).into())).collect();
        auth_mode(&|name: &str| vars.iter().find(|(k, _)| k == name).map(|(_, v)| v.clone()))
    }

    const OIDC: [(&str, &str); 6] = [
        ("A2A_AUTH_MODE", "oidc"),
        ("A2A_OIDC_ISSUER", "https://id.example.com/"),
        ("A2A_OIDC_CLIENT_ID", "taskbay"),
        ("A2A_OIDC_CLIENT_SECRET", "s3cret-value"),
        ("A2A_AUTH_ORGANIZATION_SLUG", "acme"),
        ("A2A_AUTH_ORIGIN", "https://taskbay.example"),
    ];

    #[test]
    fn development_is_the_default_and_other_modes_stop_the_process() {
        assert_eq!(mode(&[]).unwrap(), AuthMode::Development);
        assert_eq!(
            mode(&[("A2A_AUTH_MODE", "development")]).unwrap(),
            AuthMode::Development
        );
        assert_eq!(
            mode(&[("A2A_AUTH_MODE", "saml")]).unwrap_err().to_string(),
            "A2A_AUTH_MODE: must be development or oidc, not \"saml\""
        );
    }

    #[test]
    fn oidc_settings_are_read_and_normalised() {
        let AuthMode::Oidc(Ok(settings)) = mode(&OIDC).unwrap() else {
            panic!("usable oidc")
        };
        assert_eq!(
            settings.issuer, "https://id.example.com/",
            "as given: the provider's own string"
        );
        assert_eq!(settings.identity_issuer(), "https://id.example.com");
        assert_eq!(
            settings.redirect_uri(),
            "https://taskbay.example/api/auth/callback"
        );
        assert_eq!(settings.session_lifetime, Duration::from_secs(28_800));
        assert_eq!(format!("{:?}", settings.client_secret), "Secret(***)");
        assert!(!format!("{settings:?}").contains("s3cret-value"));
    }

    /// §1.1: a misconfigured oidc never falls back to development; it is kept as the reason.
    #[test]
    fn a_misconfigured_oidc_is_kept_as_its_reason_security_1_1() {
        let with = |name: &str, value: &str| {
            let mut vars: Vec<(&str, &str)> = OIDC.iter().copied().filter(|(k, _)| *k != name).collect();
            if !value.is_empty() {
                vars.push((name, value));
            }
            match mode(&vars).unwrap() {
                AuthMode::Oidc(Err(error)) => error.to_string(),
                other => panic!("{name}={value}: {other:?}"),
            }
        };
        assert_eq!(
            with("A2A_OIDC_CLIENT_SECRET", ""),
            "A2A_OIDC_CLIENT_SECRET: is required in oidc mode"
        );
        assert_eq!(
            with("A2A_OIDC_ISSUER", "http://id.example.com"),
            "A2A_OIDC_ISSUER: must be an https URL without credentials, query or fragment"
        );
        assert_eq!(
            with("A2A_AUTH_ORIGIN", "http://taskbay.example"),
            "A2A_AUTH_ORIGIN: must be an https origin in oidc mode"
        );
        assert_eq!(
            with("A2A_AUTH_SESSION_SECONDS", "59"),
            "A2A_AUTH_SESSION_SECONDS: must be a whole number of seconds from 60 to 86400, not \"59\""
        );
        assert!(with("A2A_AUTH_ORGANIZATION_SLUG", "Acme Inc").starts_with("A2A_AUTH_ORGANIZATION_SLUG: "));
    }
}
