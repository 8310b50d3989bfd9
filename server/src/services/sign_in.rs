//! OpenID Connect sign-in (`shared/spec/security-and-durability.md` §1.1, ADR 0036): the
//! authorization-code flow with PKCE (S256), state and nonce, through the `openidconnect` crate.
//!
//! [`SignIn::start`] stores an attempt (state, nonce, PKCE verifier, return path) and names the
//! provider's authorization URL; [`SignIn::finish`] consumes the attempt once, exchanges the code
//! (`client_secret_post`), checks the ID token (RS256 signature against the provider's keys,
//! issuer, audience, expiry, nonce), keeps only `(issuer, sub)` and finds that person's enabled
//! membership in the configured organization. Every failure of a callback is the same
//! [`SignInError::Failed`]; the provider's words are logged at debug level, never shown.

pub mod http;

use std::sync::Arc;
use std::time::{Duration, Instant};

use chrono::Utc;
use openidconnect::core::{
    CoreAuthenticationFlow, CoreClient, CoreJwsSigningAlgorithm, CoreProviderMetadata,
};
use openidconnect::{
    AuthType, AuthorizationCode, ClaimsVerificationError, ClientId, ClientSecret, CsrfToken,
    EndpointMaybeSet, EndpointNotSet, EndpointSet, IssuerUrl, Nonce, PkceCodeChallenge, PkceCodeVerifier,
    RedirectUrl, Scope, SignatureVerificationError, TokenResponse,
};
use tokio::sync::Mutex;

use self::http::ProviderHttp;
use crate::config::auth::OidcSettings;
use crate::db::Db;
use crate::store::identity::{self, Member};
use crate::store::sessions::{self, Attempt};
use crate::store::{StoreError, organizations};

/// The provider's metadata and keys are discovered again after this long; an ID token signed by a
/// key not among them makes the console discover them again at once (the provider rotated its
/// keys), once per callback.
pub const DISCOVERY_TTL: Duration = Duration::from_secs(3600);

type Client =
    CoreClient<EndpointSet, EndpointNotSet, EndpointNotSet, EndpointNotSet, EndpointSet, EndpointMaybeSet>;

/// Why sign-in did not go on.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum SignInError {
    /// The provider cannot be reached or described itself wrongly, or the database failed:
    /// `503 Sign-in service unavailable.`
    #[error("Sign-in service unavailable.")]
    Unavailable,
    /// Anything wrong with a callback: `401 Sign-in failed. Start a new sign-in attempt.`
    #[error("Sign-in failed. Start a new sign-in attempt.")]
    Failed,
}

/// A started sign-in: where to send the browser, and the login cookie's token.
#[derive(Debug)]
pub struct Started {
    pub provider_url: url::Url,
    pub login_token: String,
}

/// A finished sign-in: the member, their new session's token and where to go.
#[derive(Debug)]
pub struct Finished {
    pub member: Member,
    pub session_token: String,
    pub return_to: String,
}

/// The sign-in flow of one configured provider.
pub struct SignIn {
    settings: OidcSettings,
    http: ProviderHttp,
    /// The discovered client and when it was discovered.
    client: Mutex<Option<(Instant, Arc<Client>)>>,
}

impl std::fmt::Debug for SignIn {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SignIn")
            .field("issuer", &self.settings.issuer)
            .finish_non_exhaustive()
    }
}

impl SignIn {
    /// Builds the flow; fails only when `A2A_EXTRA_CA_CERTS` cannot be used.
    pub fn new(settings: OidcSettings) -> Result<SignIn, http::HttpError> {
        let http = ProviderHttp::new(settings.extra_ca_certs.as_deref())?;
        Ok(SignIn {
            settings,
            http,
            client: Mutex::new(None),
        })
    }

    /// The settings in use.
    pub fn settings(&self) -> &OidcSettings {
        &self.settings
    }

    /// The discovered client, discovering it when there is none or it is older than
    /// [`DISCOVERY_TTL`]. Discovery checks that the provider names itself by the configured
    /// issuer exactly.
    async fn client(&self) -> Result<Arc<Client>, SignInError> {
        let mut cached = self.client.lock().await;
        if let Some((at, client)) = cached.as_ref()
            && at.elapsed() < DISCOVERY_TTL
        {
            return Ok(client.clone());
        }
        let unavailable = |what: &str, error: &dyn std::fmt::Display| {
            tracing::warn!(issuer = %self.settings.issuer, %error, "identity provider {what} failed");
            SignInError::Unavailable
        };
        let issuer = IssuerUrl::new(self.settings.issuer.clone()).map_err(|e| unavailable("issuer", &e))?;
        let metadata = CoreProviderMetadata::discover_async(issuer, &self.http)
            .await
            .map_err(|e| unavailable("discovery", &e))?;
        let token_url = metadata
            .token_endpoint()
            .cloned()
            .ok_or_else(|| unavailable("discovery", &"no token endpoint"))?;
        let redirect =
            RedirectUrl::new(self.settings.redirect_uri()).map_err(|e| unavailable("redirect URI", &e))?;
        let client = CoreClient::from_provider_metadata(
            metadata,
            ClientId::new(self.settings.client_id.clone()),
            Some(ClientSecret::new(self.settings.client_secret.expose().to_owned())),
        )
        .set_redirect_uri(redirect)
        .set_auth_type(AuthType::RequestBody)
        .set_token_uri(token_url);
        let client = Arc::new(client);
        *cached = Some((Instant::now(), client.clone()));
        Ok(client)
    }

    /// The client discovered afresh, unless another callback has already replaced `stale`.
    async fn rediscover(&self, stale: &Arc<Client>) -> Result<Arc<Client>, SignInError> {
        {
            let mut cached = self.client.lock().await;
            if cached
                .as_ref()
                .is_some_and(|(_, client)| Arc::ptr_eq(client, stale))
            {
                *cached = None;
            }
        }
        self.client().await
    }

    /// Stores a sign-in attempt returning to `return_to` (already checked) and names the
    /// provider's authorization URL (scopes `openid profile`, PKCE S256, state, nonce).
    pub async fn start(&self, db: &Db, return_to: String) -> Result<Started, SignInError> {
        let client = self.client().await?;
        let (challenge, verifier) = PkceCodeChallenge::new_random_sha256();
        let (provider_url, state, nonce) = client
            .authorize_url(
                CoreAuthenticationFlow::AuthorizationCode,
                CsrfToken::new_random,
                Nonce::new_random,
            )
            .add_scope(Scope::new("profile".into()))
            .set_pkce_challenge(challenge)
            .url();
        let attempt = Attempt {
            state: state.secret().clone(),
            nonce: nonce.secret().clone(),
            pkce_verifier: verifier.secret().clone(),
            return_to,
        };
        let login_token = sessions::begin_attempt(db, &attempt)
            .await
            .map_err(store_unavailable)?;
        Ok(Started {
            provider_url,
            login_token,
        })
    }

    /// Finishes the sign-in of the login cookie `login_token` with the provider's `code` and
    /// `state`: the attempt is consumed first, whatever follows.
    pub async fn finish(
        &self,
        db: &Db,
        login_token: Option<&str>,
        code: &str,
        state: &str,
    ) -> Result<Finished, SignInError> {
        let failed = |why: &str| {
            tracing::debug!(why, "sign-in callback refused");
            SignInError::Failed
        };
        let login_token = login_token.ok_or_else(|| failed("no login cookie"))?;
        let attempt = sessions::consume_attempt(db, login_token, Utc::now())
            .await
            .map_err(store_unavailable)?
            .ok_or_else(|| failed("unknown, used or expired attempt"))?;
        if !constant_time_eq(attempt.state.as_bytes(), state.as_bytes()) {
            return Err(failed("state mismatch"));
        }
        let client = self.client().await.map_err(|_| failed("provider unavailable"))?;
        let tokens = client
            .exchange_code(AuthorizationCode::new(code.to_owned()))
            .set_pkce_verifier(PkceCodeVerifier::new(attempt.pkce_verifier))
            .request_async(&self.http)
            .await
            .map_err(|e| {
                tracing::debug!(error = %e, "code exchange failed");
                SignInError::Failed
            })?;
        let id_token = tokens.id_token().ok_or_else(|| failed("no ID token"))?;
        let nonce = Nonce::new(attempt.nonce);
        // Only (issuer, sub) is kept; every other claim and the provider's tokens are dropped.
        let subject = |client: &Client| {
            let verifier = client
                .id_token_verifier()
                .set_allowed_algs([CoreJwsSigningAlgorithm::RsaSsaPkcs1V15Sha256]);
            id_token
                .claims(&verifier, &nonce)
                .map(|claims| claims.subject().as_str().to_owned())
        };
        let refused = |e: ClaimsVerificationError| {
            tracing::debug!(error = %e, "ID token refused");
            SignInError::Failed
        };
        let subject = match subject(&client) {
            Ok(subject) => subject,
            // Signed by a key the console has not seen: the provider may have rotated its keys
            // since discovery. Discover once more; a key it still does not publish is refused.
            Err(ClaimsVerificationError::SignatureVerification(
                SignatureVerificationError::NoMatchingKey,
            )) => {
                let fresh = self
                    .rediscover(&client)
                    .await
                    .map_err(|_| failed("provider unavailable"))?;
                subject(&fresh).map_err(refused)?
            }
            Err(other) => return Err(refused(other)),
        };
        let subject = subject.as_str();
        let organization = match organizations::by_slug(db, &self.settings.organization_slug).await {
            Ok(organization) => organization,
            Err(StoreError::NotFound) => return Err(failed("no such organization")),
            Err(error) => return Err(store_unavailable(error)),
        };
        let member = identity::member_of(
            &db.read,
            &organization.id,
            self.settings.identity_issuer(),
            subject,
        )
        .await
        .map_err(store_unavailable)?
        .filter(|member| member.active)
        .ok_or_else(|| failed("not provisioned or disabled"))?;
        let expires_at = Utc::now() + self.settings.session_lifetime;
        let session_token = sessions::create(db, &member.membership_id, expires_at)
            .await
            .map_err(store_unavailable)?;
        Ok(Finished {
            member,
            session_token,
            return_to: attempt.return_to,
        })
    }
}

fn store_unavailable(error: StoreError) -> SignInError {
    tracing::warn!(%error, "sign-in could not use the database");
    SignInError::Unavailable
}

/// Compares two secrets in time independent of where they first differ.
fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0_u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// `returnTo` as §1.1 step 2 allows it: a relative path starting with exactly one `/` (no
/// scheme, no `//host`, no backslash a browser would read as one); anything else is `/tasks`.
pub fn safe_return_to(value: Option<&str>) -> String {
    match value {
        Some(path)
            if path.starts_with('/')
                && !path.starts_with("//")
                && !path.contains('\\')
                && !path.chars().any(char::is_control)
                && path.len() <= 2048 =>
        {
            path.to_owned()
        }
        _ => "/tasks".to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn return_to_is_a_single_slash_relative_path_security_1_1() {
        assert_eq!(safe_return_to(Some("/chat/42?x=1")), "/chat/42?x=1");
        for hostile in [
            None,
            Some(""),
            Some("//evil.test"),
            Some("/\\evil.test"),
            Some("https://evil.test/"),
            Some("evil.test"),
            Some("/a\nb"),
        ] {
            assert_eq!(safe_return_to(hostile), "/tasks", "{hostile:?}");
        }
    }

    #[test]
    fn secrets_compare_whole() {
        assert!(constant_time_eq(b"abc", b"abc"));
        assert!(!constant_time_eq(b"abc", b"abd") && !constant_time_eq(b"abc", b"ab"));
    }
}
