//! The demo agent's `mtls` variant over TLS (issue #30): a throwaway CA (made at the first start
//! and kept in `--tls-dir`) signs a server certificate for `127.0.0.1` and `localhost` and one
//! client certificate; the TLS listener asks every client for a certificate, and the `mtls` variant's A2A routes answer only
//! connections that presented one signed by that CA. Cards stay public (no certificate needed
//! to fetch them). Nothing here is fit for anything but a demo and tests.

use std::net::SocketAddr;
use std::path::Path;
use std::sync::Arc;

use axum::extract::connect_info::Connected;
use axum::serve::{IncomingStream, Listener};
use rcgen::{
    BasicConstraints, CertificateParams, CertifiedIssuer, DnType, ExtendedKeyUsagePurpose, IsCa, KeyPair,
    KeyUsagePurpose,
};
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};
use tokio::net::{TcpListener, TcpStream};
use tokio_rustls::TlsAcceptor;
use tokio_rustls::server::TlsStream;

/// The demo PKI, as PEM.
#[derive(Clone)]
pub struct DemoPki {
    pub ca_cert: String,
    pub server_cert: String,
    server_key: String,
    pub client_cert: String,
    pub client_key: String,
}

impl std::fmt::Debug for DemoPki {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("DemoPki(***)")
    }
}

impl DemoPki {
    /// A fresh CA, server certificate (`127.0.0.1`, `localhost`) and client certificate.
    pub fn generate() -> Result<DemoPki, rcgen::Error> {
        let mut ca = CertificateParams::new(Vec::<String>::new())?;
        ca.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        ca.distinguished_name
            .push(DnType::CommonName, "Agent Taskbay demo CA");
        ca.key_usages = vec![KeyUsagePurpose::KeyCertSign, KeyUsagePurpose::DigitalSignature];
        let ca = CertifiedIssuer::self_signed(ca, KeyPair::generate()?)?;
        let leaf = |names: Vec<String>,
                    name: &str,
                    usage: ExtendedKeyUsagePurpose|
         -> Result<(String, String), rcgen::Error> {
            let mut params = CertificateParams::new(names)?;
            params.distinguished_name.push(DnType::CommonName, name);
            params.extended_key_usages = vec![usage];
            let key = KeyPair::generate()?;
            let cert = params.signed_by(&key, &ca)?;
            Ok((cert.pem(), key.serialize_pem()))
        };
        let (server_cert, server_key) = leaf(
            vec!["127.0.0.1".into(), "localhost".into()],
            "Agent Taskbay demo agent",
            ExtendedKeyUsagePurpose::ServerAuth,
        )?;
        let (client_cert, client_key) = leaf(
            Vec::new(),
            "taskbay-demo-client",
            ExtendedKeyUsagePurpose::ClientAuth,
        )?;
        Ok(DemoPki {
            ca_cert: ca.pem(),
            server_cert,
            server_key,
            client_cert,
            client_key,
        })
    }

    /// The PKI kept in `dir` by an earlier start, or a new one written there (every file
    /// readable by this user only): `ca.pem`, `client.pem` and `client-key.pem` are for
    /// `A2A_EXTRA_CA_CERTS` and the credential form, `server*.pem` for the next start. Keeping
    /// them means a client certificate stored in a console stays valid across restarts.
    pub fn load_or_generate(dir: &Path) -> std::io::Result<DemoPki> {
        let read = |name: &str| std::fs::read_to_string(dir.join(name));
        if let (Ok(ca_cert), Ok(server_cert), Ok(server_key), Ok(client_cert), Ok(client_key)) = (
            read("ca.pem"),
            read("server.pem"),
            read("server-key.pem"),
            read("client.pem"),
            read("client-key.pem"),
        ) {
            let pki = DemoPki {
                ca_cert,
                server_cert,
                server_key,
                client_cert,
                client_key,
            };
            if pki.server_config().is_ok() {
                return Ok(pki);
            }
        }
        let pki = DemoPki::generate().map_err(std::io::Error::other)?;
        pki.write_files(dir)?;
        Ok(pki)
    }

    fn write_files(&self, dir: &Path) -> std::io::Result<()> {
        use std::io::Write as _;
        use std::os::unix::fs::OpenOptionsExt as _;
        std::fs::create_dir_all(dir)?;
        for (name, pem) in [
            ("ca.pem", &self.ca_cert),
            ("server.pem", &self.server_cert),
            ("server-key.pem", &self.server_key),
            ("client.pem", &self.client_cert),
            ("client-key.pem", &self.client_key),
        ] {
            let mut file = std::fs::OpenOptions::new()
                .write(true)
                .create(true)
                .truncate(true)
                .mode(0o600)
                .open(dir.join(name))?;
            file.write_all(pem.as_bytes())?;
        }
        Ok(())
    }

    /// The server side: this certificate, and client certificates of the demo CA asked for
    /// (verified when presented; a connection without one may still fetch cards).
    fn server_config(&self) -> Result<rustls::ServerConfig, String> {
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let mut roots = rustls::RootCertStore::empty();
        for cert in CertificateDer::pem_slice_iter(self.ca_cert.as_bytes()) {
            roots
                .add(cert.map_err(|e| e.to_string())?)
                .map_err(|e| e.to_string())?;
        }
        let verifier =
            rustls::server::WebPkiClientVerifier::builder_with_provider(Arc::new(roots), provider.clone())
                .allow_unauthenticated()
                .build()
                .map_err(|e| e.to_string())?;
        let chain: Vec<CertificateDer<'static>> = CertificateDer::pem_slice_iter(self.server_cert.as_bytes())
            .collect::<Result<_, _>>()
            .map_err(|e| e.to_string())?;
        let key = PrivateKeyDer::from_pem_slice(self.server_key.as_bytes()).map_err(|e| e.to_string())?;
        let mut config = rustls::ServerConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .map_err(|e| e.to_string())?
            .with_client_cert_verifier(verifier)
            .with_single_cert(chain, key)
            .map_err(|e| e.to_string())?;
        config.alpn_protocols = vec![b"http/1.1".to_vec()];
        Ok(config)
    }
}

/// Who is on the other end of a TLS connection.
#[derive(Clone, Copy, Debug)]
pub struct TlsPeer {
    pub addr: SocketAddr,
    /// The client presented a certificate that the demo CA signed.
    pub client_certificate: bool,
}

impl Connected<IncomingStream<'_, TlsListener>> for TlsPeer {
    fn connect_info(stream: IncomingStream<'_, TlsListener>) -> TlsPeer {
        *stream.remote_addr()
    }
}

/// How long a client has to finish the TLS handshake.
const HANDSHAKE_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(5);

/// A TCP listener that completes the TLS handshake before handing a connection over; failed
/// handshakes (a client certificate of another CA, plain HTTP) are dropped.
pub struct TlsListener {
    tcp: TcpListener,
    acceptor: TlsAcceptor,
}

impl TlsListener {
    pub fn new(tcp: TcpListener, pki: &DemoPki) -> Result<TlsListener, String> {
        Ok(TlsListener {
            tcp,
            acceptor: TlsAcceptor::from(Arc::new(pki.server_config()?)),
        })
    }
}

impl Listener for TlsListener {
    type Io = TlsStream<TcpStream>;
    type Addr = TlsPeer;

    async fn accept(&mut self) -> (Self::Io, Self::Addr) {
        loop {
            let (tcp, addr) = match self.tcp.accept().await {
                Ok(accepted) => accepted,
                Err(error) => {
                    // Out of file descriptors and the like: pause instead of spinning.
                    tracing::debug!(%error, "demo agent TLS accept failed");
                    tokio::time::sleep(std::time::Duration::from_millis(100)).await;
                    continue;
                }
            };
            // A client that connects and says nothing must not hold up the others for long.
            let handshake = tokio::time::timeout(HANDSHAKE_TIMEOUT, self.acceptor.accept(tcp)).await;
            match handshake.unwrap_or_else(|_| Err(std::io::Error::other("handshake timed out"))) {
                Ok(stream) => {
                    let client_certificate = stream
                        .get_ref()
                        .1
                        .peer_certificates()
                        .is_some_and(|c| !c.is_empty());
                    return (
                        stream,
                        TlsPeer {
                            addr,
                            client_certificate,
                        },
                    );
                }
                Err(error) => tracing::debug!(%addr, %error, "demo agent TLS handshake failed"),
            }
        }
    }

    fn local_addr(&self) -> std::io::Result<Self::Addr> {
        Ok(TlsPeer {
            addr: self.tcp.local_addr()?,
            client_certificate: false,
        })
    }
}
