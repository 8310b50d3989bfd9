//! Credentials on outbound requests (`shared/spec/security-and-durability.md` §2.3): a gateway
//! made [`Gateway::with_binding`] checks every destination against the binding's origins,
//! attaches the credential (a header, a Bearer token, an OAuth access token, or a client
//! certificate on the connection) and redacts the secrets from everything the agent answers.
//! OAuth access tokens and mTLS clients are kept in process memory only, keyed by a digest of
//! the credential, so a rotated credential gets a fresh token and connection.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use reqwest::header::{ACCEPT, AUTHORIZATION, HeaderName, HeaderValue};
use serde::Deserialize;
use sha2::{Digest, Sha256};
use url::Url;

use super::client::Gateway;
use super::error::{CredentialFailure, GatewayError};
use super::redact::Redactor;
use crate::vault::{Binding, Credential};

/// Largest token endpoint answer read.
const MAX_TOKEN_RESPONSE_BYTES: usize = 64 * 1024;
/// A token is used until this long before it expires.
const EXPIRY_MARGIN: Duration = Duration::from_secs(30);
/// How long a token without `expires_in` is kept.
const DEFAULT_TOKEN_LIFETIME: Duration = Duration::from_secs(300);
/// Tokens and mTLS clients kept at most; the caches are cleared when they pass it.
const MAX_CACHED: usize = 1024;

/// The credential a gateway attaches, resolved for one operation. Its `Debug` names the kind
/// and origins only: never a secret or a token.
pub(crate) struct Attached {
    pub(crate) binding: Binding,
    /// Digest of the credential: the key of the token and client caches.
    digest: [u8; 32],
    /// The client with the certificate of an `mtls` binding.
    mtls_client: Option<reqwest::Client>,
    /// Every OAuth access token this operation attached: redacted from its answers whether
    /// or not the cache still holds them.
    tokens_used: Mutex<Vec<String>>,
}

impl std::fmt::Debug for Attached {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Attached")
            .field("binding", &self.binding)
            .field("mtls", &self.mtls_client.is_some())
            .finish_non_exhaustive()
    }
}

/// Process-wide caches of OAuth tokens and mTLS clients, shared by every clone of a gateway.
#[derive(Debug, Default)]
pub(crate) struct CredentialCache {
    tokens: Mutex<HashMap<[u8; 32], CachedToken>>,
    mtls_clients: Mutex<HashMap<[u8; 32], reqwest::Client>>,
}

#[derive(Clone)]
struct CachedToken {
    token: String,
    use_until: Instant,
}

impl std::fmt::Debug for CachedToken {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("CachedToken(***)")
    }
}

#[derive(Deserialize)]
struct TokenAnswer {
    access_token: String,
    token_type: String,
    #[serde(default)]
    expires_in: Option<u64>,
}

impl Gateway {
    /// This gateway with `binding` attached: every request checks its origin against the
    /// binding, carries the credential, and every answer is redacted of its secrets.
    pub fn with_binding(mut self, binding: Binding) -> Result<Gateway, GatewayError> {
        let digest: [u8; 32] =
            Sha256::digest(serde_json::to_vec(&binding.credential).unwrap_or_default()).into();
        let mtls_client = match &binding.credential {
            Credential::Mtls { cert, key, ca } => Some(self.mtls_client(digest, cert, key, ca.as_deref())?),
            _ => None,
        };
        self.credential = Some(Arc::new(Attached {
            binding,
            digest,
            mtls_client,
            tokens_used: Mutex::default(),
        }));
        Ok(self)
    }

    /// Whether a credential is attached.
    pub fn has_credential(&self) -> bool {
        self.credential.is_some()
    }

    /// The redactor of the attached credential's secrets and its current OAuth token (empty
    /// without a credential).
    pub fn redactor(&self) -> Redactor {
        let Some(attached) = &self.credential else {
            return Redactor::default();
        };
        let mut tokens: Vec<String> = attached
            .tokens_used
            .lock()
            .map(|used| used.clone())
            .unwrap_or_default();
        tokens.extend(self.cached_token(attached));
        let mut secrets = attached.binding.secrets();
        secrets.extend(tokens.iter().map(String::as_str));
        Redactor::new(secrets)
    }

    /// The HTTP client for requests: the attached certificate's, or the shared one.
    pub(crate) fn http_client(&self) -> &reqwest::Client {
        self.credential
            .as_ref()
            .and_then(|attached| attached.mtls_client.as_ref())
            .unwrap_or(&self.http)
    }

    /// Whether the attached binding lists `origin` (true without a credential).
    pub fn permits_origin(&self, origin: &str) -> bool {
        self.credential
            .as_ref()
            .is_none_or(|attached| attached.binding.permits(origin))
    }

    /// Refuses a destination the attached binding does not list (§2.3 step 3).
    pub(crate) fn check_destination(&self, url: &Url) -> Result<(), GatewayError> {
        match &self.credential {
            Some(attached) if !attached.binding.permits(&url.origin().ascii_serialization()) => {
                Err(CredentialFailure::Destination.into())
            }
            _ => Ok(()),
        }
    }

    /// Adds the credential's header to `request` (an OAuth token is fetched when none is
    /// cached, or again when `refresh`).
    pub(crate) async fn authorize(
        &self,
        request: &mut reqwest::Request,
        refresh: bool,
    ) -> Result<(), GatewayError> {
        let Some(attached) = self.credential.clone() else {
            return Ok(());
        };
        let (name, value) = match &attached.binding.credential {
            Credential::ApiKey { name, value } => (
                HeaderName::from_bytes(name.as_bytes()).map_err(|_| CredentialFailure::VaultUnavailable)?,
                value.clone(),
            ),
            Credential::Bearer { token } => (AUTHORIZATION, format!("Bearer {token}")),
            Credential::OauthClient { .. } => {
                let token = self.oauth_token(&attached, refresh).await?;
                if let Ok(mut used) = attached.tokens_used.lock()
                    && !used.contains(&token)
                {
                    used.push(token.clone());
                }
                (AUTHORIZATION, format!("Bearer {token}"))
            }
            Credential::Mtls { .. } => return Ok(()),
        };
        let mut value = HeaderValue::from_str(&value).map_err(|_| CredentialFailure::VaultUnavailable)?;
        value.set_sensitive(true);
        request.headers_mut().insert(name, value);
        Ok(())
    }

    /// Whether a 401 should be answered by fetching a fresh OAuth token and trying once more.
    pub(crate) fn refreshes_on_unauthorized(&self) -> bool {
        self.credential
            .as_ref()
            .is_some_and(|a| matches!(a.binding.credential, Credential::OauthClient { .. }))
    }

    fn cached_token(&self, attached: &Attached) -> Option<String> {
        let tokens = self.credential_cache.tokens.lock().ok()?;
        tokens
            .get(&attached.digest)
            .filter(|cached| cached.use_until > Instant::now())
            .map(|cached| cached.token.clone())
    }

    /// An access token from the client-credentials grant (`client_secret_post`), through this
    /// gateway's own guarded client; the token endpoint's origin must be in
    /// `A2A_ALLOWED_AGENT_ORIGINS`, or, without an allowlist, among the binding's origins.
    async fn oauth_token(&self, attached: &Attached, refresh: bool) -> Result<String, GatewayError> {
        let Credential::OauthClient {
            token_endpoint,
            client_id,
            client_secret,
            scope,
            ..
        } = &attached.binding.credential
        else {
            return Err(CredentialFailure::TokenExchange.into());
        };
        if !refresh && let Some(token) = self.cached_token(attached) {
            return Ok(token);
        }
        let endpoint = Url::parse(token_endpoint).map_err(|_| CredentialFailure::TokenExchange)?;
        let origin = endpoint.origin().ascii_serialization();
        let allowed = if self.allowed_origins.is_empty() {
            attached.binding.permits(&origin)
        } else {
            self.allowed_origins.contains(&origin)
        };
        if !allowed {
            return Err(CredentialFailure::TokenEndpointRefused.into());
        }
        // Built in one statement: the serializer is not `Send` and must not live across an await.
        let form = {
            let mut form = url::form_urlencoded::Serializer::new(String::new());
            form.append_pair("grant_type", "client_credentials")
                .append_pair("client_id", client_id)
                .append_pair("client_secret", client_secret);
            if let Some(scope) = scope {
                form.append_pair("scope", scope);
            }
            form.finish()
        };
        let request = self
            .request_unauthenticated(reqwest::Method::POST, endpoint)?
            .header(ACCEPT, "application/json")
            .header(reqwest::header::CONTENT_TYPE, "application/x-www-form-urlencoded")
            .body(form)
            .timeout(self.timeout);
        let response = request.send().await.map_err(|e| {
            tracing::debug!(error = %e, "OAuth token request failed");
            CredentialFailure::TokenExchange
        })?;
        if !response.status().is_success() {
            tracing::debug!(
                status = response.status().as_u16(),
                "OAuth token endpoint refused"
            );
            return Err(CredentialFailure::TokenExchange.into());
        }
        let body = self
            .read_capped(response, MAX_TOKEN_RESPONSE_BYTES)
            .await
            .map_err(|_| CredentialFailure::TokenExchange)?;
        let answer: TokenAnswer =
            serde_json::from_slice(&body).map_err(|_| CredentialFailure::TokenExchange)?;
        let usable = answer.token_type.eq_ignore_ascii_case("bearer")
            && !answer.access_token.is_empty()
            && answer.access_token.len() <= 16 * 1024
            && answer.access_token.bytes().all(|b| (0x21..=0x7e).contains(&b));
        if !usable {
            return Err(CredentialFailure::TokenExchange.into());
        }
        let lifetime = answer
            .expires_in
            .map(|seconds| {
                Duration::from_secs(seconds)
                    .saturating_sub(EXPIRY_MARGIN.min(Duration::from_secs(seconds / 2)))
            })
            .unwrap_or(DEFAULT_TOKEN_LIFETIME);
        if let Ok(mut tokens) = self.credential_cache.tokens.lock() {
            if tokens.len() >= MAX_CACHED {
                tokens.clear();
            }
            tokens.insert(
                attached.digest,
                CachedToken {
                    token: answer.access_token.clone(),
                    use_until: Instant::now() + lifetime,
                },
            );
        }
        Ok(answer.access_token)
    }

    /// The client presenting `cert`/`key`, trusting `ca` beside the public roots; built once per
    /// credential.
    fn mtls_client(
        &self,
        digest: [u8; 32],
        cert: &str,
        key: &str,
        ca: Option<&str>,
    ) -> Result<reqwest::Client, GatewayError> {
        if let Some(client) = self
            .credential_cache
            .mtls_clients
            .lock()
            .ok()
            .and_then(|clients| clients.get(&digest).cloned())
        {
            return Ok(client);
        }
        // The binding's CA beside A2A_EXTRA_CA_CERTS and the public roots.
        let roots = match (self.extra_roots.as_deref(), ca) {
            (Some(extra), Some(ca)) => Some(format!("{extra}\n{ca}")),
            (Some(extra), None) => Some(extra.to_owned()),
            (None, ca) => ca.map(str::to_owned),
        };
        let tls = super::client::client_tls(Some((cert, key)), roots.as_deref())
            .ok_or(CredentialFailure::ClientCertificate)?;
        let client = self.build_client(tls)?;
        if let Ok(mut clients) = self.credential_cache.mtls_clients.lock() {
            if clients.len() >= MAX_CACHED {
                clients.clear();
            }
            clients.insert(digest, client.clone());
        }
        Ok(client)
    }
}
