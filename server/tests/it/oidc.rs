//! OpenID Connect sign-in against a real provider (issue #29, `shared/spec/security-and-durability.md`
//! §1.1): panva's `oidc-provider` over HTTPS with a throwaway CA (`end2end/oidc/provider.mjs`),
//! trusted only through `A2A_EXTRA_CA_CERTS`. The flow is driven as a browser would: the
//! authorization URL the console names, the provider's redirects with its cookies, the
//! interaction page signing a chosen subject in, and back to the console's redirect URI.

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};

use sea_orm::{ConnectionTrait, Statement};
use server::config::auth::{AuthMode, OidcSettings, auth_mode};
use server::services::sign_in::{SignIn, SignInError};
use server::store::identity::{self, Provision, Role};
use server::store::sessions;

use crate::support::{self, TestDb};

const ORIGIN: &str = "https://taskbay.test";
const CLIENT_ID: &str = "taskbay-test";
const CLIENT_SECRET: &str = "taskbay-test-secret";

/// A running provider; killed when dropped.
struct Provider {
    child: Child,
    issuer: String,
    ca: String,
    _dir: tempfile::TempDir,
}

impl Drop for Provider {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Provider {
    fn start() -> Provider {
        let dir = tempfile::tempdir().unwrap();
        let end2end = concat!(env!("CARGO_MANIFEST_DIR"), "/../end2end");
        let mut child = Command::new("node")
            .arg("oidc/provider.mjs")
            .current_dir(end2end)
            .env("OP_DIR", dir.path())
            .env("OP_CLIENT_ID", CLIENT_ID)
            .env("OP_CLIENT_SECRET", CLIENT_SECRET)
            .env("OP_REDIRECT_URI", format!("{ORIGIN}/api/auth/callback"))
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("node runs end2end/oidc/provider.mjs (scripts/test installs its packages)");
        let mut line = String::new();
        let mut stdout = BufReader::new(child.stdout.take().unwrap());
        stdout.read_line(&mut line).unwrap();
        // Keep reading: a closed pipe would stop the provider at its next line (EPIPE).
        std::thread::spawn(move || std::io::copy(&mut stdout, &mut std::io::sink()));
        let ready: serde_json::Value = serde_json::from_str(&line)
            .unwrap_or_else(|_| panic!("the provider did not start (npm ci in end2end?): {line:?}"));
        Provider {
            issuer: ready["issuer"].as_str().unwrap().to_owned(),
            ca: ready["ca"].as_str().unwrap().to_owned(),
            child,
            _dir: dir,
        }
    }

    /// The console's settings for this provider, as the environment would give them.
    fn settings(&self, extra: &[(&str, &str)]) -> OidcSettings {
        let mut vars: BTreeMap<&str, &str> = [
            ("A2A_AUTH_MODE", "oidc"),
            ("A2A_OIDC_ISSUER", self.issuer.as_str()),
            ("A2A_OIDC_CLIENT_ID", CLIENT_ID),
            ("A2A_OIDC_CLIENT_SECRET", CLIENT_SECRET),
            ("A2A_AUTH_ORGANIZATION_SLUG", "acme"),
            ("A2A_AUTH_ORIGIN", ORIGIN),
            ("A2A_EXTRA_CA_CERTS", self.ca.as_str()),
        ]
        .into_iter()
        .collect();
        for (name, value) in extra {
            vars.insert(name, value);
        }
        match auth_mode(&|name: &str| vars.get(name).filter(|v| !v.is_empty()).map(|v| (*v).to_owned()))
            .unwrap()
        {
            AuthMode::Oidc(Ok(settings)) => settings,
            other => panic!("usable settings expected: {other:?}"),
        }
    }
}

/// Plays the browser from the provider's authorization URL to the console's redirect URI,
/// signing `subject` in; returns that URI's query (`code`, `state`, `iss`).
async fn authorize(provider_url: &url::Url, ca: &str, subject: &str) -> BTreeMap<String, String> {
    use rustls::pki_types::CertificateDer;
    use rustls::pki_types::pem::PemObject;
    let mut roots = rustls::RootCertStore::empty();
    roots.add(CertificateDer::from_pem_file(ca).unwrap()).unwrap();
    let tls = rustls::ClientConfig::builder_with_provider(std::sync::Arc::new(
        rustls::crypto::ring::default_provider(),
    ))
    .with_safe_default_protocol_versions()
    .unwrap()
    .with_root_certificates(roots)
    .with_no_client_auth();
    let browser = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .no_proxy()
        .tls_backend_preconfigured(tls)
        .build()
        .unwrap();
    let mut cookies: BTreeMap<String, String> = BTreeMap::new();
    let mut url = provider_url.clone();
    for _ in 0..10 {
        if url.as_str().starts_with(&format!("{ORIGIN}/api/auth/callback")) {
            return url.query_pairs().into_owned().collect();
        }
        if url.path().starts_with("/interaction/") {
            url.query_pairs_mut().append_pair("subject", subject);
        }
        let cookie = cookies
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect::<Vec<_>>()
            .join("; ");
        let response = browser
            .get(url.clone())
            .header("cookie", cookie)
            .send()
            .await
            .unwrap_or_else(|e| panic!("GET {url}: {e:?}"));
        for set in response.headers().get_all("set-cookie") {
            let pair = set.to_str().unwrap().split(';').next().unwrap_or_default();
            if let Some((name, value)) = pair.split_once('=') {
                cookies.insert(name.to_owned(), value.to_owned());
            }
        }
        let location = response
            .headers()
            .get("location")
            .unwrap_or_else(|| panic!("{} answered {} without a redirect", url, response.status()))
            .to_str()
            .unwrap()
            .to_owned();
        url = url.join(&location).unwrap();
    }
    panic!("no redirect back to the console within 10 steps");
}

async fn provisioned(db: &server::db::Db, provider: &Provider, subject: &str) -> identity::Member {
    identity::provision(
        db,
        &Provision {
            issuer: &provider.issuer,
            subject,
            organization: "acme",
            name: "Ada Lovelace",
            role: Role::Operator,
        },
    )
    .await
    .unwrap()
}

async fn setup() -> (Provider, SignIn, TestDb, server::db::Db) {
    let provider = Provider::start();
    let sign_in = SignIn::new(provider.settings(&[])).unwrap();
    let test_db = support::sqlite();
    let db = test_db.migrated().await;
    (provider, sign_in, test_db, db)
}

/// §1.1: the whole flow, then a session that resolves to the provisioned member; the attempt is
/// gone, so the same callback again fails.
#[tokio::test]
async fn a_provisioned_person_signs_in_once_per_attempt_security_1_1() {
    let (provider, sign_in, test_db, db) = setup().await;
    let ada = provisioned(&db, &provider, "ada").await;
    let started = sign_in.start(&db, "/chat/42".into()).await.unwrap();
    let query: BTreeMap<String, String> = started.provider_url.query_pairs().into_owned().collect();
    assert_eq!(query["code_challenge_method"], "S256");
    assert_eq!(query["scope"], "openid profile");
    assert_eq!(query["redirect_uri"], format!("{ORIGIN}/api/auth/callback"));
    assert!(query.contains_key("state") && query.contains_key("nonce"));

    let back = authorize(&started.provider_url, &provider.ca, "ada").await;
    let finished = sign_in
        .finish(&db, Some(&started.login_token), &back["code"], &back["state"])
        .await
        .unwrap();
    assert_eq!(finished.return_to, "/chat/42");
    assert_eq!(finished.member.membership_id, ada.membership_id);
    let member = sessions::member(&db, &finished.session_token, chrono::Utc::now())
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        (member.membership_id, member.role),
        (ada.membership_id, Role::Operator)
    );

    let replayed = sign_in
        .finish(&db, Some(&started.login_token), &back["code"], &back["state"])
        .await;
    assert_eq!(replayed.unwrap_err(), SignInError::Failed);
    db.close().await;
    test_db.cleanup().await;
}

/// §1.1 step 3: a wrong state, a changed nonce, an expired attempt, no login cookie, an
/// unprovisioned or disabled person: every one fails the same way.
#[tokio::test]
async fn every_bad_callback_fails_the_same_way_security_1_1() {
    let (provider, sign_in, test_db, db) = setup().await;
    let ada = provisioned(&db, &provider, "ada").await;
    let attempt_row = |sql: &'static str| {
        let db = db.clone();
        async move {
            db.write
                .execute_raw(Statement::from_string(db.write.get_database_backend(), sql))
                .await
                .unwrap();
        }
    };
    // Each case: how to spoil a fresh attempt, and the subject that signs in.
    for case in [
        "state",
        "nonce",
        "expired",
        "no cookie",
        "unprovisioned",
        "disabled",
    ] {
        let started = sign_in.start(&db, "/tasks".into()).await.unwrap();
        let subject = if case == "unprovisioned" { "mallory" } else { "ada" };
        let back = authorize(&started.provider_url, &provider.ca, subject).await;
        let mut state = back["state"].clone();
        let mut cookie = Some(started.login_token.as_str());
        match case {
            "state" => state.push('x'),
            "nonce" => attempt_row("UPDATE login_attempts SET nonce = 'not-the-nonce'").await,
            "expired" => {
                attempt_row("UPDATE login_attempts SET expires_at = '2000-01-01 00:00:00+00:00'").await
            }
            "no cookie" => cookie = None,
            "disabled" => identity::set_membership_enabled(&db, &ada.membership_id, false)
                .await
                .unwrap(),
            _ => {}
        }
        let outcome = sign_in.finish(&db, cookie, &back["code"], &state).await;
        assert_eq!(outcome.unwrap_err(), SignInError::Failed, "{case}");
        identity::set_membership_enabled(&db, &ada.membership_id, true)
            .await
            .unwrap();
        attempt_row("DELETE FROM login_attempts").await;
    }
    db.close().await;
    test_db.cleanup().await;
}

/// A code issued by another provider (another issuer) is refused by this one's token endpoint.
#[tokio::test]
async fn a_code_from_another_issuer_is_refused() {
    let (provider, sign_in, test_db, db) = setup().await;
    provisioned(&db, &provider, "ada").await;
    let other = Provider::start();
    let started = sign_in.start(&db, "/tasks".into()).await.unwrap();
    let mut elsewhere = started.provider_url.clone();
    let other_url = url::Url::parse(&other.issuer).unwrap();
    elsewhere.set_port(other_url.port()).unwrap();
    let back = authorize(&elsewhere, &other.ca, "ada").await;
    assert_eq!(back["iss"], other.issuer);
    let outcome = sign_in
        .finish(&db, Some(&started.login_token), &back["code"], &back["state"])
        .await;
    assert_eq!(outcome.unwrap_err(), SignInError::Failed);
    db.close().await;
    test_db.cleanup().await;
}

/// The provider is trusted only through `A2A_EXTRA_CA_CERTS`; unreachable or untrusted, sign-in
/// is unavailable (never a fallback).
#[tokio::test]
async fn an_untrusted_or_unreachable_provider_makes_sign_in_unavailable() {
    let (provider, _, test_db, db) = setup().await;
    let untrusted = SignIn::new(provider.settings(&[("A2A_EXTRA_CA_CERTS", "")])).unwrap();
    assert_eq!(
        untrusted.start(&db, "/tasks".into()).await.unwrap_err(),
        SignInError::Unavailable
    );
    let gone = SignIn::new(provider.settings(&[("A2A_OIDC_ISSUER", "https://127.0.0.1:9")])).unwrap();
    assert_eq!(
        gone.start(&db, "/tasks".into()).await.unwrap_err(),
        SignInError::Unavailable
    );
    let missing_ca = provider.settings(&[("A2A_EXTRA_CA_CERTS", "/nonexistent/ca.pem")]);
    assert!(
        SignIn::new(missing_ca)
            .unwrap_err()
            .to_string()
            .starts_with("A2A_EXTRA_CA_CERTS: cannot read")
    );
    db.close().await;
    test_db.cleanup().await;
}
