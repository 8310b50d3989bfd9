//! [`Gateway`]: the one HTTP client toward agents and its network policy
//! (`shared/spec/security-and-durability.md` §2.3, §7 threats 12–15): rustls with the ring
//! provider and webpki roots, the guarded resolver, no redirects, no proxy, a timeout, and
//! bodies read with a byte cap that aborts instead of buffering. Protocol code lives in
//! `calls.rs` and `discovery.rs`; nothing else in the server opens connections to agents.

use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use futures::{Stream, StreamExt};
use reqwest::{RequestBuilder, Response};
use url::Url;

use super::credential::{Attached, CredentialCache};
use super::error::{GatewayError, from_reqwest};
use super::ssrf::{GuardedResolver, admit};
use crate::config::OutboundConfig;

/// Default per-request timeout; for streams it bounds the wait for the response head and the
/// silence between two chunks (`shared/spec/reference.md` §4.3, §8).
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(60);
/// Shortest timeout a caller may choose (`shared/spec/reference.md` §4.3: clamped 1–180 s).
pub const MIN_TIMEOUT: Duration = Duration::from_secs(1);
/// Longest timeout a caller may choose (`shared/spec/reference.md` §4.3: clamped 1–180 s).
pub const MAX_TIMEOUT: Duration = Duration::from_secs(180);
/// Largest response body accepted from an agent, streams included; counted while reading and
/// aborted when passed (`shared/spec/reference.md` §4.3, `security-and-durability.md` §7 #15).
pub const MAX_RESPONSE_BYTES: usize = 25 * 1024 * 1024;

/// The outbound gateway: cheap to clone (the connection pool is shared). Build one from
/// [`OutboundConfig`] at start and share it; every A2A operation is a method on it.
#[derive(Clone, Debug)]
pub struct Gateway {
    pub(super) http: reqwest::Client,
    allow_private_networks: bool,
    pub(super) allowed_origins: Arc<[String]>,
    pub(super) timeout: Duration,
    /// The agent credential attached by [`Gateway::with_binding`], for one operation.
    pub(super) credential: Option<Arc<Attached>>,
    pub(super) credential_cache: Arc<CredentialCache>,
    /// Card trust pins and whether unsigned cards are refused (§2.4).
    pub(super) trust: Arc<TrustPolicy>,
    /// The PEM certificates of `A2A_EXTRA_CA_CERTS`, trusted beside the public roots.
    pub(super) extra_roots: Option<Arc<str>>,
    /// Where exchanges are noted for the Wire panel ([`Gateway::with_exchange_log`]).
    pub(super) exchange_log: Option<super::exchanges::ExchangeLog>,
    /// The conversation this operation is made for ([`Gateway::tagged`]).
    pub(super) exchange_tag: Option<Arc<super::exchanges::ExchangeTag>>,
}

/// `A2A_TRUSTED_CARD_KEYS` and `A2A_REQUIRE_SIGNED_CARDS`.
#[derive(Clone, Debug, Default)]
pub struct TrustPolicy {
    pub pins: Vec<super::card_trust::Pin>,
    pub require_signed: bool,
}

impl Gateway {
    /// Builds the client: no redirects, no proxy (ambient `HTTP(S)_PROXY` ignored), the guarded
    /// resolver, rustls/ring with webpki roots, [`DEFAULT_TIMEOUT`].
    pub fn new(config: &OutboundConfig) -> Result<Gateway, GatewayError> {
        let extra_roots: Option<Arc<str>> = match &config.extra_ca_certs {
            Some(path) => Some(
                std::fs::read_to_string(path)
                    .map_err(|e| GatewayError::ExtraCa(format!("cannot read {}: {e}", path.display())))?
                    .into(),
            ),
            None => None,
        };
        let tls = client_tls(None, extra_roots.as_deref())
            .ok_or_else(|| GatewayError::ExtraCa("not a bundle of usable PEM certificates".into()))?;
        let http = http_client(config.allow_private_networks, tls)?;
        Ok(Gateway {
            http,
            allow_private_networks: config.allow_private_networks,
            allowed_origins: config.allowed_origins.clone().into(),
            timeout: DEFAULT_TIMEOUT,
            credential: None,
            credential_cache: Arc::default(),
            extra_roots,
            exchange_log: None,
            exchange_tag: None,
            trust: Arc::new(TrustPolicy {
                pins: config.trusted_card_keys.clone(),
                require_signed: config.require_signed_cards,
            }),
        })
    }

    /// A client with this gateway's policy and `tls` (a client certificate's configuration).
    pub(super) fn build_client(&self, tls: rustls::ClientConfig) -> Result<reqwest::Client, GatewayError> {
        http_client(self.allow_private_networks, tls)
    }

    /// The same gateway with another timeout, clamped to [`MIN_TIMEOUT`]..=[`MAX_TIMEOUT`].
    pub fn with_timeout(mut self, timeout: Duration) -> Gateway {
        self.timeout = timeout.clamp(MIN_TIMEOUT, MAX_TIMEOUT);
        self
    }

    /// Refuses a card whose signatures do not satisfy the trust policy (§2.4): untrusted and
    /// invalid cards are shown but never called, unsigned ones only when signatures are required.
    pub fn check_trust(&self, trust: app::words::CardTrust) -> Result<(), GatewayError> {
        use app::words::CardTrust;
        match trust {
            CardTrust::Verified => Ok(()),
            CardTrust::Unsigned if !self.trust.require_signed => Ok(()),
            _ => Err(GatewayError::CardTrust),
        }
    }

    /// What `card`'s signatures prove for a card served from `card_url`, under the pins as
    /// configured now (a stored card is verified again, so a new or expired pin applies).
    pub fn card_trust(&self, card: &serde_json::Value, card_url: &Url) -> app::words::CardTrust {
        super::card_trust::verify(
            card,
            &card_url.origin().ascii_serialization(),
            &self.trust.pins,
            chrono::Utc::now(),
        )
    }

    /// Whether unsigned cards are refused (`A2A_REQUIRE_SIGNED_CARDS=true`).
    pub fn requires_signed_cards(&self) -> bool {
        self.trust.require_signed
    }

    /// `A2A_ALLOWED_AGENT_ORIGINS` as configured (empty: no allowlist).
    pub fn allowed_origins(&self) -> &[String] {
        &self.allowed_origins
    }

    /// The timeout applied to each request.
    pub fn timeout(&self) -> Duration {
        self.timeout
    }

    pub(crate) fn timeout_seconds(&self) -> u64 {
        self.timeout.as_secs()
    }

    /// Starts a request to `url` after the admission check (scheme, credentials, allowlist,
    /// literal addresses). Host names are checked again by the resolver at connect time.
    pub(crate) fn request(&self, method: reqwest::Method, url: Url) -> Result<RequestBuilder, GatewayError> {
        self.request_with_query(method, url, None)
    }

    /// [`Gateway::request`] with a query string the gateway built itself (already
    /// form-encoded), attached after admission: admission refuses any query in `url`, so one
    /// can only come from here.
    pub(crate) fn request_with_query(
        &self,
        method: reqwest::Method,
        mut url: Url,
        query: Option<&str>,
    ) -> Result<RequestBuilder, GatewayError> {
        admit(&url, self.allow_private_networks, &self.allowed_origins)?;
        self.check_destination(&url)?;
        url.set_query(query);
        Ok(self.http_client().request(method, url))
    }

    /// A request without the attached credential (the OAuth token endpoint), after the same
    /// admission check.
    pub(super) fn request_unauthenticated(
        &self,
        method: reqwest::Method,
        url: Url,
    ) -> Result<RequestBuilder, GatewayError> {
        admit(&url, self.allow_private_networks, &self.allowed_origins)?;
        Ok(self.http.request(method, url))
    }

    /// Sends a unary request for `operation` under the timeout (which also covers reading the
    /// body).
    pub(crate) async fn send(
        &self,
        operation: &'static str,
        request: RequestBuilder,
    ) -> Result<Response, GatewayError> {
        let response = self.execute(operation, request.timeout(self.timeout)).await?;
        refuse_redirect(response)
    }

    /// Sends `request` with the attached credential. An OAuth token the agent answers 401 to is
    /// fetched again and the request sent once more. Each request sent is noted for the Wire
    /// panel when the operation is tagged.
    async fn execute(
        &self,
        operation: &'static str,
        request: RequestBuilder,
    ) -> Result<Response, GatewayError> {
        let mut request = request
            .build()
            .map_err(|e| from_reqwest(e, self.timeout_seconds()))?;
        let retry = self
            .refreshes_on_unauthorized()
            .then(|| request.try_clone())
            .flatten();
        self.authorize(&mut request, false).await?;
        let response = self.execute_noted(operation, request).await?;
        match retry {
            Some(mut again) if response.status() == reqwest::StatusCode::UNAUTHORIZED => {
                tracing::debug!("agent refused the OAuth token; fetching a new one");
                self.authorize(&mut again, true).await?;
                self.execute_noted(operation, again).await
            }
            _ => Ok(response),
        }
    }

    /// Sends a streaming request: the timeout bounds the wait for the response head only, so a
    /// long stream is not cut; silence between chunks is bounded by the reader.
    pub(crate) async fn send_streaming(
        &self,
        operation: &'static str,
        request: RequestBuilder,
    ) -> Result<Response, GatewayError> {
        let response = tokio::time::timeout(self.timeout, self.execute(operation, request))
            .await
            .map_err(|_| GatewayError::Timeout {
                seconds: self.timeout_seconds(),
            })??;
        refuse_redirect(response)
    }

    /// Reads the whole body, failing with [`GatewayError::TooLarge`] as soon as it passes
    /// `limit` (by `Content-Length` or by count), so an oversized body is never buffered.
    pub(crate) async fn read_capped(
        &self,
        mut response: Response,
        limit: usize,
    ) -> Result<Bytes, GatewayError> {
        if response.content_length().is_some_and(|len| len > limit as u64) {
            return Err(GatewayError::TooLarge { limit });
        }
        let mut body = Vec::new();
        while let Some(chunk) = response
            .chunk()
            .await
            .map_err(|e| from_reqwest(e, self.timeout_seconds()))?
        {
            if body.len() + chunk.len() > limit {
                return Err(GatewayError::TooLarge { limit });
            }
            body.extend_from_slice(&chunk);
        }
        Ok(body.into())
    }

    /// The body as a stream of chunks with the byte cap and the idle timeout applied; the
    /// first error ends it (and dropping it closes the connection).
    pub(crate) fn capped_chunks(
        &self,
        response: Response,
        limit: usize,
    ) -> impl Stream<Item = Result<Bytes, GatewayError>> + Send + 'static {
        if response.content_length().is_some_and(|len| len > limit as u64) {
            return futures::stream::iter([Err(GatewayError::TooLarge { limit })]).left_stream();
        }
        let idle = self.timeout;
        let seconds = self.timeout_seconds();
        let state = (response.bytes_stream().boxed(), 0usize, false);
        futures::stream::unfold(state, move |(mut body, read, failed)| async move {
            if failed {
                return None;
            }
            let item = match tokio::time::timeout(idle, body.next()).await {
                Err(_) => Err(GatewayError::Timeout { seconds }),
                Ok(None) => return None,
                Ok(Some(Err(e))) => Err(from_reqwest(e, seconds)),
                Ok(Some(Ok(chunk))) if read + chunk.len() > limit => Err(GatewayError::TooLarge { limit }),
                Ok(Some(Ok(chunk))) => {
                    let read = read + chunk.len();
                    return Some((Ok(chunk), (body, read, false)));
                }
            };
            Some((item, (body, read, true)))
        })
        .right_stream()
    }
}

fn refuse_redirect(response: Response) -> Result<Response, GatewayError> {
    let status = response.status();
    if status.is_redirection() {
        return Err(GatewayError::Redirect {
            status: status.as_u16(),
        });
    }
    Ok(response)
}

/// The one way agent clients are built: no redirects, no proxy, no referer, the guarded resolver.
fn http_client(
    allow_private_networks: bool,
    tls: rustls::ClientConfig,
) -> Result<reqwest::Client, GatewayError> {
    reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .no_proxy()
        .referer(false)
        .dns_resolver(GuardedResolver {
            allow_private_networks,
        })
        .connect_timeout(DEFAULT_TIMEOUT)
        .tls_backend_preconfigured(tls)
        .user_agent(concat!("agent-taskbay/", env!("CARGO_PKG_VERSION")))
        .build()
        .map_err(GatewayError::Build)
}

/// TLS toward agents: the webpki roots plus the PEM certificates of `extra_roots`, and the
/// client certificate chain and key of `identity` (PEM). Server certificates are always
/// verified. `None` when a PEM input is unusable.
pub(crate) fn client_tls(
    identity: Option<(&str, &str)>,
    extra_roots: Option<&str>,
) -> Option<rustls::ClientConfig> {
    use rustls::pki_types::pem::PemObject;
    use rustls::pki_types::{CertificateDer, PrivateKeyDer};
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let mut roots = rustls::RootCertStore {
        roots: webpki_roots::TLS_SERVER_ROOTS.to_vec(),
    };
    if let Some(pem) = extra_roots {
        let mut added = 0;
        for cert in CertificateDer::pem_slice_iter(pem.as_bytes()) {
            roots.add(cert.ok()?).ok()?;
            added += 1;
        }
        if added == 0 {
            return None;
        }
    }
    let builder = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .ok()?
        .with_root_certificates(roots);
    let mut config = match identity {
        None => builder.with_no_client_auth(),
        Some((cert, key)) => {
            let chain: Vec<CertificateDer<'static>> = CertificateDer::pem_slice_iter(cert.as_bytes())
                .collect::<Result<_, _>>()
                .ok()?;
            if chain.is_empty() {
                return None;
            }
            let key = PrivateKeyDer::from_pem_slice(key.as_bytes()).ok()?;
            builder.with_client_auth_cert(chain, key).ok()?
        }
    };
    config.alpn_protocols = vec![b"h2".to_vec(), b"http/1.1".to_vec()];
    Some(config)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn client_builds_without_a_global_crypto_provider() {
        let gateway = Gateway::new(&OutboundConfig::default()).unwrap();
        assert_eq!(gateway.timeout(), DEFAULT_TIMEOUT);
    }

    #[test]
    fn timeout_is_clamped() {
        let gateway = Gateway::new(&OutboundConfig::default()).unwrap();
        assert_eq!(
            gateway.clone().with_timeout(Duration::ZERO).timeout(),
            MIN_TIMEOUT
        );
        assert_eq!(
            gateway.clone().with_timeout(Duration::from_secs(900)).timeout(),
            MAX_TIMEOUT
        );
        assert_eq!(
            gateway.with_timeout(Duration::from_secs(5)).timeout(),
            Duration::from_secs(5)
        );
    }

    #[test]
    fn a_gateway_with_a_credential_never_prints_it() {
        let binding = crate::vault::Binding::parse(
            br#"{"origins":["https://a.example"],"credential":{"type":"bearer","token":"tok-SECRET-99"}}"#,
        )
        .unwrap();
        let gateway = Gateway::new(&OutboundConfig::default())
            .unwrap()
            .with_binding(binding)
            .unwrap();
        let shown = format!("{gateway:?}");
        assert!(
            !shown.contains("tok-SECRET-99") && shown.contains("bearer"),
            "{shown}"
        );
    }

    #[test]
    fn requests_are_admitted_before_they_are_built() {
        let gateway = Gateway::new(&OutboundConfig::default()).unwrap();
        let url = Url::parse("http://169.254.169.254/latest/meta-data").unwrap();
        assert!(matches!(
            gateway.request(reqwest::Method::GET, url),
            Err(GatewayError::Refused { .. })
        ));
    }
}
