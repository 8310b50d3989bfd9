//! The HTTP client of sign-in: discovery, the provider's keys and the code exchange go through
//! one `reqwest` client (the version the gateway uses; `openidconnect`'s own `reqwest` feature
//! would pull in another), with rustls/ring, the webpki roots plus the PEM bundle of
//! `A2A_EXTRA_CA_CERTS` (a team's private CA; the tests' throwaway one), no redirects, no proxy,
//! a 10-second timeout and a bounded response.

use std::future::Future;
use std::path::Path;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use openidconnect::{AsyncHttpClient, HttpRequest, HttpResponse};
use rustls::pki_types::CertificateDer;
use rustls::pki_types::pem::PemObject;

/// Discovery and token requests give up after this long (§1.1 step 1).
pub const TIMEOUT: Duration = Duration::from_secs(10);
/// Largest provider response read (a discovery document or key set is a few KB).
pub const MAX_RESPONSE_BYTES: usize = 1024 * 1024;

/// Why the client could not be built or a request failed. Never shown to a browser.
#[derive(Debug, thiserror::Error)]
pub enum HttpError {
    #[error("A2A_EXTRA_CA_CERTS: {0}")]
    ExtraCa(String),
    #[error("building the HTTP client: {0}")]
    Build(reqwest::Error),
    #[error("request to the identity provider: {0}")]
    Request(reqwest::Error),
    #[error("the identity provider's response exceeds {MAX_RESPONSE_BYTES} bytes")]
    TooLarge,
    #[error("the identity provider's response: {0}")]
    Response(openidconnect::http::Error),
}

/// The sign-in HTTP client; cheap to clone.
#[derive(Clone, Debug)]
pub struct ProviderHttp(reqwest::Client);

impl ProviderHttp {
    /// Builds the client, trusting the certificates in `extra_ca` beside the webpki roots.
    pub fn new(extra_ca: Option<&Path>) -> Result<ProviderHttp, HttpError> {
        let mut roots = rustls::RootCertStore {
            roots: webpki_roots::TLS_SERVER_ROOTS.to_vec(),
        };
        if let Some(path) = extra_ca {
            let pem = std::fs::read(path)
                .map_err(|e| HttpError::ExtraCa(format!("cannot read {}: {e}", path.display())))?;
            let mut added = 0;
            for cert in CertificateDer::pem_slice_iter(&pem) {
                let cert =
                    cert.map_err(|e| HttpError::ExtraCa(format!("not a PEM certificate bundle: {e}")))?;
                roots
                    .add(cert)
                    .map_err(|e| HttpError::ExtraCa(format!("unusable certificate: {e}")))?;
                added += 1;
            }
            if added == 0 {
                return Err(HttpError::ExtraCa(format!(
                    "{} holds no certificate",
                    path.display()
                )));
            }
        }
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let mut tls = rustls::ClientConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .unwrap_or_else(|_| unreachable!("ring supports TLS 1.2 and 1.3"))
            .with_root_certificates(roots)
            .with_no_client_auth();
        tls.alpn_protocols = vec![b"h2".to_vec(), b"http/1.1".to_vec()];
        let client = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .no_proxy()
            .referer(false)
            .timeout(TIMEOUT)
            .tls_backend_preconfigured(tls)
            .user_agent(concat!("agent-taskbay/", env!("CARGO_PKG_VERSION")))
            .build()
            .map_err(HttpError::Build)?;
        Ok(ProviderHttp(client))
    }
}

impl<'c> AsyncHttpClient<'c> for ProviderHttp {
    type Error = HttpError;
    type Future = Pin<Box<dyn Future<Output = Result<HttpResponse, HttpError>> + Send + Sync + 'c>>;

    fn call(&'c self, request: HttpRequest) -> Self::Future {
        Box::pin(async move {
            let request = reqwest::Request::try_from(request).map_err(HttpError::Request)?;
            let mut response = self.0.execute(request).await.map_err(HttpError::Request)?;
            let mut builder = openidconnect::http::Response::builder()
                .status(response.status())
                .version(response.version());
            for (name, value) in response.headers() {
                builder = builder.header(name, value);
            }
            let mut body = Vec::new();
            while let Some(chunk) = response.chunk().await.map_err(HttpError::Request)? {
                if body.len() + chunk.len() > MAX_RESPONSE_BYTES {
                    return Err(HttpError::TooLarge);
                }
                body.extend_from_slice(&chunk);
            }
            builder.body(body).map_err(HttpError::Response)
        })
    }
}
