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

    /// Replaces the provider's signing key (`query` `?publish=stale` keeps publishing the old one).
    async fn rotate(&self, query: &str) {
        let answer = client_trusting(&self.ca)
            .post(format!("{}/test/rotate-keys{query}", self.issuer))
            .send()
            .await
            .unwrap();
        assert_eq!(answer.status(), 204);
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
    let browser = client_trusting(ca);
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

/// A client that trusts only the test CA `ca` and follows no redirect.
pub(crate) fn client_trusting(ca: &str) -> reqwest::Client {
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
    reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .no_proxy()
        .tls_backend_preconfigured(tls)
        .build()
        .unwrap()
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

/// The provider rotates its signing key: the next token is signed by a key the console has not
/// seen, and the console discovers the keys again instead of refusing it. A token signed by a key
/// the provider does not publish (a forged one, as far as the console can tell) is refused.
#[tokio::test]
async fn a_rotated_key_is_discovered_again_and_an_unpublished_one_refused_security_1_1() {
    let (provider, sign_in, test_db, db) = setup().await;
    let ada = provisioned(&db, &provider, "ada").await;
    let (sign_in, db_ref, provider_ref) = (&sign_in, &db, &provider);
    let once = move || async move {
        let started = sign_in.start(db_ref, "/tasks".into()).await.unwrap();
        let back = authorize(&started.provider_url, &provider_ref.ca, "ada").await;
        sign_in
            .finish(db_ref, Some(&started.login_token), &back["code"], &back["state"])
            .await
    };
    assert_eq!(once().await.unwrap().member.membership_id, ada.membership_id);
    provider.rotate("").await;
    assert_eq!(
        once().await.unwrap().member.membership_id,
        ada.membership_id,
        "the new key is discovered"
    );
    provider.rotate("?publish=stale").await;
    assert_eq!(
        once().await.unwrap_err(),
        SignInError::Failed,
        "an unpublished key"
    );
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

// ---- Through the console's routes: the request guard, the session cookie, the API ----

use axum::body::Body;
use axum::http::{Request, Response, StatusCode};

fn oidc_vars(provider: &Provider) -> Vec<(&'static str, String)> {
    vec![
        ("A2A_AUTH_MODE", "oidc".into()),
        ("A2A_OIDC_ISSUER", provider.issuer.clone()),
        ("A2A_OIDC_CLIENT_ID", CLIENT_ID.into()),
        ("A2A_OIDC_CLIENT_SECRET", CLIENT_SECRET.into()),
        ("A2A_AUTH_ORGANIZATION_SLUG", "acme".into()),
        ("A2A_AUTH_ORIGIN", ORIGIN.into()),
        ("A2A_EXTRA_CA_CERTS", provider.ca.clone()),
    ]
}

async fn console(vars: &[(&'static str, String)]) -> (server::AppState, TestDb) {
    let vars: Vec<(&str, &str)> = vars.iter().map(|(k, v)| (*k, v.as_str())).collect();
    support::app_with(&vars).await
}

async fn call(state: &server::AppState, method: &str, uri: &str, cookie: Option<&str>) -> Response<Body> {
    let mut request = Request::builder().method(method).uri(uri);
    if let Some(cookie) = cookie {
        request = request.header("cookie", cookie);
    }
    support::send(state, request.body(Body::empty()).unwrap()).await
}

fn location(response: &Response<Body>) -> String {
    response.headers()["location"].to_str().unwrap().to_owned()
}

/// The `name=value` of the response's `Set-Cookie` for `name`, and the whole header.
fn set_cookie(response: &Response<Body>, name: &str) -> (String, String) {
    let header = response
        .headers()
        .get_all("set-cookie")
        .iter()
        .map(|v| v.to_str().unwrap().to_owned())
        .find(|v| v.starts_with(&format!("{name}=")))
        .unwrap_or_else(|| panic!("no {name} cookie"));
    (header.split(';').next().unwrap().to_owned(), header)
}

/// Signs `subject` in through the console's routes, asking to return to `return_to`; returns
/// the callback's response.
async fn sign_in(
    state: &server::AppState,
    provider: &Provider,
    subject: &str,
    return_to: &str,
) -> Response<Body> {
    let login = call(
        state,
        "GET",
        &format!("/api/auth/login?returnTo={return_to}"),
        None,
    )
    .await;
    assert_eq!(login.status(), StatusCode::SEE_OTHER);
    let (login_cookie, header) = set_cookie(&login, "__Host-a2a-login");
    assert!(
        header.ends_with("; Max-Age=600; Path=/; HttpOnly; Secure; SameSite=Lax"),
        "{header}"
    );
    let back = authorize(
        &url::Url::parse(&location(&login)).unwrap(),
        &provider.ca,
        subject,
    )
    .await;
    let callback = format!("/api/auth/callback?code={}&state={}", back["code"], back["state"]);
    call(state, "GET", &callback, Some(&login_cookie)).await
}

/// §1.1–§1.2 end to end: pages send a stranger to sign in, the API answers 401, a provisioned
/// person signs in and uses the API with the session cookie, a disabled one is refused on the
/// next request and stream reconnect, sign-out ends the session, and sessions outlive a restart.
#[tokio::test]
async fn sign_in_through_the_console_security_1_1_and_1_2() {
    let provider = Provider::start();
    let (state, test_db) = console(&oidc_vars(&provider)).await;

    let page = call(&state, "GET", "/tasks?state=working", None).await;
    assert_eq!(page.status(), StatusCode::SEE_OTHER);
    assert_eq!(
        location(&page),
        "/api/auth/login?returnTo=%2Ftasks%3Fstate%3Dworking"
    );
    let api = call(&state, "GET", "/api/agents", None).await;
    assert_eq!(api.status(), StatusCode::UNAUTHORIZED);
    assert_eq!(
        support::text(api).await,
        r#"{"error":{"message":"Sign in to continue."}}"#
    );
    let forged = call(
        &state,
        "GET",
        "/api/agents",
        Some("__Host-a2a-session=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"),
    )
    .await;
    assert_eq!(forged.status(), StatusCode::UNAUTHORIZED);
    assert_eq!(
        call(&state, "GET", "/healthz", None).await.status(),
        StatusCode::OK,
        "public"
    );

    // Not provisioned yet: the provider signs mallory in, the console does not.
    let stranger = sign_in(&state, &provider, "mallory", "/chat").await;
    assert_eq!(stranger.status(), StatusCode::UNAUTHORIZED);
    assert_eq!(
        support::text(stranger).await,
        r#"{"error":{"message":"Sign-in failed. Start a new sign-in attempt."}}"#
    );

    let ada = provisioned(&state.db, &provider, "ada").await;
    let signed_in = sign_in(&state, &provider, "ada", "/chat").await;
    assert_eq!(signed_in.status(), StatusCode::SEE_OTHER);
    assert_eq!(location(&signed_in), format!("{ORIGIN}/chat"));
    let (session, header) = set_cookie(&signed_in, "__Host-a2a-session");
    assert!(
        header.ends_with("; Max-Age=28800; Path=/; HttpOnly; Secure; SameSite=Lax"),
        "{header}"
    );
    let (_, cleared) = set_cookie(&signed_in, "__Host-a2a-login");
    assert!(cleared.starts_with("__Host-a2a-login=; Max-Age=0;"), "{cleared}");

    assert_eq!(
        call(&state, "GET", "/api/agents", Some(&session)).await.status(),
        StatusCode::OK
    );
    assert_eq!(
        call(&state, "GET", "/tasks", Some(&session)).await.status(),
        StatusCode::OK
    );
    let me = call(&state, "GET", "/api/auth/session", Some(&session)).await;
    assert_eq!(
        support::text(me).await,
        r#"{"user":{"displayName":"Ada Lovelace","role":"operator"},"mode":"oidc"}"#
    );

    // A returnTo that leaves the console is replaced (§1.1 step 2).
    let evil = sign_in(&state, &provider, "ada", "//evil.test").await;
    assert_eq!(location(&evil), format!("{ORIGIN}/tasks"));

    // Disabled: refused on the next request, a live stream's reconnect included.
    identity::set_membership_enabled(&state.db, &ada.membership_id, false)
        .await
        .unwrap();
    assert_eq!(
        call(&state, "GET", "/api/agents", Some(&session)).await.status(),
        StatusCode::UNAUTHORIZED
    );
    let stream = format!("/api/live/tasks/{}", uuid::Uuid::now_v7());
    assert_eq!(
        call(&state, "GET", &stream, Some(&session)).await.status(),
        StatusCode::UNAUTHORIZED
    );
    identity::set_membership_enabled(&state.db, &ada.membership_id, true)
        .await
        .unwrap();
    assert_eq!(
        call(&state, "GET", &stream, Some(&session)).await.status(),
        StatusCode::NOT_FOUND
    );

    // A restart (a new process over the same database) keeps the session.
    let restarted = server::AppState::new(
        support::leptos_options(),
        test_db.config.clone(),
        state.db.clone(),
    )
    .unwrap();
    assert_eq!(
        call(&restarted, "GET", "/api/agents", Some(&session))
            .await
            .status(),
        StatusCode::OK
    );

    let no_origin = call(&state, "POST", "/api/auth/logout", Some(&session)).await;
    assert_eq!(
        no_origin.status(),
        StatusCode::FORBIDDEN,
        "reference §4.1: a change needs the console's Origin"
    );
    let logout = Request::post("/api/auth/logout")
        .header("cookie", session.as_str())
        .header("origin", ORIGIN)
        .body(Body::empty())
        .unwrap();
    let out = support::send(&state, logout).await;
    assert_eq!(out.status(), StatusCode::OK);
    let (_, cleared) = set_cookie(&out, "__Host-a2a-session");
    assert!(
        cleared.starts_with("__Host-a2a-session=; Max-Age=0;"),
        "{cleared}"
    );
    assert_eq!(support::text(out).await, r#"{"signedOut":true}"#);
    assert_eq!(
        call(&state, "GET", "/api/agents", Some(&session)).await.status(),
        StatusCode::UNAUTHORIZED
    );
    test_db.cleanup().await;
}

/// §1.1: a misconfigured OIDC never falls back to development mode; it fails closed.
#[tokio::test]
async fn a_misconfigured_oidc_fails_closed_security_1_1() {
    let (state, test_db) = console(&[("A2A_AUTH_MODE", "oidc".into())]).await;
    let api = call(&state, "GET", "/api/agents", None).await;
    assert_eq!(api.status(), StatusCode::SERVICE_UNAVAILABLE);
    assert_eq!(
        support::text(api).await,
        r#"{"error":{"message":"Identity service unavailable."}}"#
    );
    let login = call(&state, "GET", "/api/auth/login", None).await;
    assert_eq!(login.status(), StatusCode::SERVICE_UNAVAILABLE);
    assert_eq!(
        support::text(login).await,
        r#"{"error":{"message":"Sign-in service unavailable."}}"#
    );
    let page = call(&state, "GET", "/tasks", None).await;
    assert_eq!(page.status(), StatusCode::SERVICE_UNAVAILABLE);
    assert_eq!(
        call(&state, "GET", "/readyz", None).await.status(),
        StatusCode::OK
    );
    test_db.cleanup().await;
}

/// Development mode: no sign-in, the local administrator, and login simply goes back.
#[tokio::test]
async fn development_mode_needs_no_sign_in() {
    let (state, test_db) = console(&[]).await;
    let me = call(&state, "GET", "/api/auth/session", None).await;
    assert_eq!(
        support::text(me).await,
        r#"{"user":{"displayName":"Local operator","role":"admin"},"mode":"development"}"#
    );
    let login = call(&state, "GET", "/api/auth/login?returnTo=/chat", None).await;
    assert_eq!(
        (login.status(), location(&login)),
        (StatusCode::SEE_OTHER, "/chat".to_owned())
    );
    test_db.cleanup().await;
}

/// §1.3: a viewer reads but never changes anything, through the API or a server function.
#[tokio::test]
async fn a_viewer_is_refused_every_mutation_security_1_3() {
    let provider = Provider::start();
    let (state, test_db) = console(&oidc_vars(&provider)).await;
    identity::provision(
        &state.db,
        &Provision {
            issuer: &provider.issuer,
            subject: "vic",
            organization: "acme",
            name: "Vic",
            role: Role::Viewer,
        },
    )
    .await
    .unwrap();
    let signed_in = sign_in(&state, &provider, "vic", "/tasks").await;
    let (session, _) = set_cookie(&signed_in, "__Host-a2a-session");
    let function = |path: &str, body: &str| {
        Request::post(path)
            .header("cookie", session.as_str())
            .header("content-type", "application/x-www-form-urlencoded")
            .header("origin", ORIGIN)
            .body(Body::from(body.to_owned()))
            .unwrap()
    };
    let read = support::send(&state, function("/api/fn/list_agents", "")).await;
    assert_eq!(read.status(), StatusCode::OK);
    let task = uuid::Uuid::now_v7();
    let cancel = support::send(
        &state,
        function(
            "/api/fn/cancel_task",
            &format!("task_id={task}&idempotency_key=k1"),
        ),
    )
    .await;
    assert_eq!(cancel.status(), StatusCode::FORBIDDEN);
    assert_eq!(
        support::text(cancel).await,
        r#"{"error":{"message":"This action is not permitted."}}"#
    );
    let register = Request::post("/api/agents")
        .header("cookie", session.as_str())
        .header("origin", ORIGIN)
        .header("content-type", "application/json")
        .body(Body::from(r#"{"cardUrl":"http://127.0.0.1:9/card.json"}"#))
        .unwrap();
    assert_eq!(
        support::send(&state, register).await.status(),
        StatusCode::FORBIDDEN
    );
    test_db.cleanup().await;
}

/// §1.6: with sign-in each member has a budget per permission and minute, counted in the
/// database; past it `429`. Reads keep their own budget.
#[tokio::test]
async fn a_member_past_their_budget_is_refused_security_1_6() {
    let provider = Provider::start();
    let (state, test_db) = console(&oidc_vars(&provider)).await;
    let ada = provisioned(&state.db, &provider, "ada").await;
    let signed_in = sign_in(&state, &provider, "ada", "/tasks").await;
    let (session, _) = set_cookie(&signed_in, "__Host-a2a-session");
    // The window's 120 operate requests, already spent.
    let key = format!("user:{}:operate", ada.membership_id);
    for _ in 0..120 {
        assert!(
            server::store::budgets::take(&state.db, &key, 120, chrono::Utc::now())
                .await
                .unwrap()
        );
    }
    let cancel = Request::post(format!(
        "/api/agents/{}/tasks/{}/cancel",
        uuid::Uuid::now_v7(),
        uuid::Uuid::now_v7()
    ))
    .header("cookie", session.as_str())
    .header("origin", ORIGIN)
    .header("content-type", "application/json")
    .body(Body::from("{}"))
    .unwrap();
    let refused = support::send(&state, cancel).await;
    assert_eq!(refused.status(), StatusCode::TOO_MANY_REQUESTS);
    assert_eq!(
        support::text(refused).await,
        r#"{"error":{"message":"Too many requests. Try again shortly."}}"#
    );
    assert_eq!(
        call(&state, "GET", "/api/agents", Some(&session)).await.status(),
        StatusCode::OK
    );
    test_db.cleanup().await;
}

/// §1.6: starting and finishing sign-in are budgeted for everyone together, 240 a minute each;
/// past that the console answers 429 without calling the provider.
#[tokio::test]
async fn sign_in_routes_have_a_global_budget_security_1_6() {
    let provider = Provider::start();
    let (state, test_db) = console(&oidc_vars(&provider)).await;
    // This minute's window and the next one are spent: a request that crosses into the next
    // minute while the test runs still finds its window full.
    let now = chrono::Utc::now();
    for route in ["login", "callback"] {
        for window in [now, now + chrono::Duration::seconds(60)] {
            for _ in 0..server::http::api::auth::SIGN_IN_BUDGET {
                assert!(
                    server::store::budgets::take(&state.db, &format!("auth:{route}"), 240, window)
                        .await
                        .unwrap()
                );
            }
        }
    }
    for path in [
        "/api/auth/login?returnTo=/tasks",
        "/api/auth/callback?code=c&state=s",
    ] {
        let refused = call(&state, "GET", path, None).await;
        assert_eq!(refused.status(), StatusCode::TOO_MANY_REQUESTS, "{path}");
        assert_eq!(
            support::text(refused).await,
            format!(
                r#"{{"error":{{"message":"{}"}}}}"#,
                server::http::api::auth::TOO_MANY_SIGN_INS
            )
        );
    }
    test_db.cleanup().await;
}

/// What a stranger can do: nothing but start a sign-in. A server function answers 401 before
/// its body is read; the provider's error or a doubled parameter is the uniform 401 and spends
/// the attempt; a session of another organization's membership is no session here.
#[tokio::test]
async fn strangers_and_other_organizations_get_nothing() {
    let provider = Provider::start();
    let (state, test_db) = console(&oidc_vars(&provider)).await;
    let function = Request::post("/api/fn/list_agents")
        .header("origin", ORIGIN)
        .header("content-type", "application/x-www-form-urlencoded")
        .body(Body::empty())
        .unwrap();
    assert_eq!(
        support::send(&state, function).await.status(),
        StatusCode::UNAUTHORIZED
    );

    let login = call(&state, "GET", "/api/auth/login", None).await;
    let (login_cookie, _) = set_cookie(&login, "__Host-a2a-login");
    for query in ["error=access_denied&state=x", "code=a&code=b&state=x"] {
        let refused = call(
            &state,
            "GET",
            &format!("/api/auth/callback?{query}"),
            Some(&login_cookie),
        )
        .await;
        assert_eq!(refused.status(), StatusCode::UNAUTHORIZED, "{query}");
        assert_eq!(
            support::text(refused).await,
            r#"{"error":{"message":"Sign-in failed. Start a new sign-in attempt."}}"#
        );
    }
    let token = login_cookie.split_once('=').unwrap().1;
    assert_eq!(
        sessions::consume_attempt(&state.db, token, chrono::Utc::now())
            .await
            .unwrap(),
        None,
        "spent"
    );

    // Elsewhere: a member of another organization with a valid session.
    let other = identity::provision(
        &state.db,
        &Provision {
            issuer: &provider.issuer,
            subject: "eve",
            organization: "other",
            name: "Eve",
            role: Role::Admin,
        },
    )
    .await
    .unwrap();
    let token = sessions::create(
        &state.db,
        &other.membership_id,
        chrono::Utc::now() + chrono::Duration::hours(1),
    )
    .await
    .unwrap();
    let cookie = format!("__Host-a2a-session={token}");
    assert_eq!(
        call(&state, "GET", "/api/agents", Some(&cookie)).await.status(),
        StatusCode::UNAUTHORIZED
    );
    test_db.cleanup().await;
}
