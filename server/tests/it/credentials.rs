//! Agent credentials (`shared/spec/security-and-durability.md` §2, issue #30) against the real
//! demo agent's protected variants over HTTP: rotation and revocation apply to the next call;
//! copied ciphertexts, missing keys and bindings that do not cover the card fail closed; echoed
//! secrets are redacted before they are stored; bindings are strict. The store part runs on
//! SQLite and PostgreSQL. Each kind of credential is `credentials_kinds.rs`'s.

use axum::http::StatusCode;
use sea_orm::{ActiveModelTrait, ActiveValue::Set, EntityTrait};
use serde_json::{Value, json};
use server::db::entity::agent_credential;
use server::demo_agent::locked::{API_KEY, BEARER_TOKEN};
use server::state::AppState;
use server::store::{agents as agent_store, audit, credentials as credential_store, organizations};
use server::vault::{Binding, KeyRing, Vault};

use crate::client::{Reply, call, get, post};
use crate::support::{self, TestDb};

pub(crate) const K1: &str = "1111111111111111111111111111111111111111111111111111111111111111";
const K2: &str = "2222222222222222222222222222222222222222222222222222222222222222";

pub(crate) fn keys(pairs: &[(&str, &str)]) -> String {
    serde_json::to_string(
        &pairs
            .iter()
            .map(|(k, v)| (*k, *v))
            .collect::<std::collections::BTreeMap<_, _>>(),
    )
    .unwrap()
}

/// A development-mode console that may reach loopback agents, with the vault keys `k1`.
pub(crate) async fn app() -> (AppState, TestDb) {
    let ring = keys(&[("k1", K1)]);
    support::app_with(&[
        ("A2A_ALLOW_PRIVATE_NETWORKS", "true"),
        ("A2A_VAULT_KEYS", &ring),
        ("A2A_VAULT_ACTIVE_KEY", "k1"),
    ])
    .await
}

pub(crate) use crate::api::register;

pub(crate) async fn put_binding(state: &AppState, agent: &str, binding: &Value) -> Reply {
    call(
        state,
        "PUT",
        &format!("/api/agents/{agent}/credential"),
        binding.to_string(),
        &[("content-type", "application/json")],
    )
    .await
}

/// Sends `text` and waits for the outcome (`returnImmediately: false`).
pub(crate) async fn send(state: &AppState, agent: &str, text: &str) -> Reply {
    post(
        state,
        &format!("/api/agents/{agent}/messages"),
        json!({"text": text, "messageId": uuid::Uuid::new_v4().to_string(), "config": {"returnImmediately": false}}),
        &[],
    )
    .await
}

pub(crate) fn completed_text(reply: &Reply) -> String {
    assert_eq!(reply.status, StatusCode::OK, "{}", reply.body);
    let task = &reply.json()["result"]["task"];
    assert_eq!(task["status"]["state"], "TASK_STATE_COMPLETED", "{task}");
    task["status"]["message"]["parts"][0]["text"]
        .as_str()
        .unwrap_or_default()
        .to_owned()
}

/// A plain HTTP client for talking to the demo agent directly (rustls with ring, as the server).
pub(crate) fn http() -> reqwest::Client {
    let tls = rustls::ClientConfig::builder_with_provider(std::sync::Arc::new(
        rustls::crypto::ring::default_provider(),
    ))
    .with_safe_default_protocol_versions()
    .unwrap()
    .with_root_certificates(rustls::RootCertStore::empty())
    .with_no_client_auth();
    reqwest::Client::builder()
        .tls_backend_preconfigured(tls)
        .build()
        .unwrap()
}

pub(crate) fn bearer(origin: &str, token: &str) -> Value {
    json!({"origins": [origin], "credential": {"type": "bearer", "token": token}})
}

#[tokio::test]
async fn rotation_applies_to_the_next_call_and_revocation_stops_it_section_2_2() {
    let origin = support::demo().await;
    let (state, _db) = app().await;
    let (_tracker, stop) = support::start_workers(&state);
    let agent = register(&state, &origin, "bearer").await;
    assert_eq!(
        put_binding(&state, &agent, &bearer(&origin, "wrong-token-1"))
            .await
            .status,
        StatusCode::OK
    );
    let refused = send(&state, &agent, "hello").await;
    assert_eq!(refused.status, StatusCode::CONFLICT, "{}", refused.body);
    assert!(!refused.body.contains("wrong-token-1"), "{}", refused.body);
    let rotated = put_binding(&state, &agent, &bearer(&origin, BEARER_TOKEN)).await;
    assert_eq!(rotated.json()["stored"]["revision"], 2);
    completed_text(&send(&state, &agent, "hello").await);
    let revoked = call(
        &state,
        "DELETE",
        &format!("/api/agents/{agent}/credential"),
        "",
        &[],
    )
    .await;
    assert_eq!(revoked.status, StatusCode::OK, "{}", revoked.body);
    assert_eq!(revoked.json()["state"], "revoked");
    send(&state, &agent, "hello")
        .await
        .assert_error(StatusCode::CONFLICT, "Agent credentials are disabled.");
    // The security overview lists it, without a value (§2.2).
    let overview = get(&state, "/api/admin/security").await;
    let listed = &overview.json()["credentials"];
    assert_eq!(listed.as_array().map(Vec::len), Some(1), "{listed}");
    assert_eq!(
        (&listed[0]["agentId"], &listed[0]["kind"], &listed[0]["enabled"]),
        (&json!(agent), &json!("bearer"), &json!(false))
    );
    assert!(!overview.body.contains(BEARER_TOKEN));
    let org = organizations::local(&state.db).await.unwrap();
    let facts: Vec<String> = audit::of_organization(&state.db.read, &org.id)
        .await
        .unwrap()
        .into_iter()
        .filter(|f| f.action.starts_with("credential."))
        .map(|f| f.action)
        .collect();
    assert_eq!(
        facts,
        ["credential.rotated", "credential.rotated", "credential.revoked"]
    );
    stop.cancel();
}

#[tokio::test]
async fn copied_ciphertexts_and_missing_keys_fail_closed_section_2_2() {
    let origin = support::demo().await;
    let (state, test_db) = app().await;
    let (tracker, stop) = support::start_workers(&state);
    let a = register(&state, &origin, "bearer").await;
    let b = register(&state, &origin, "apikey").await;
    put_binding(&state, &a, &bearer(&origin, BEARER_TOKEN)).await;
    let api =
        json!({"origins": [origin], "credential": {"type": "apiKey", "name": "X-API-Key", "value": API_KEY}});
    put_binding(&state, &b, &api).await;
    let org = organizations::local(&state.db).await.unwrap();
    let row_a = credential_store::find(&state.db.read, &org.id, &a)
        .await
        .unwrap()
        .unwrap();
    let row_b = credential_store::find(&state.db.read, &org.id, &b)
        .await
        .unwrap()
        .unwrap();
    // B's row now holds A's ciphertext: the payload names A, so it does not open for B.
    let mut copied: agent_credential::ActiveModel = row_b.into();
    copied.ciphertext = Set(row_a.ciphertext.clone());
    copied.update(&state.db.write).await.unwrap();
    let view = get(&state, &format!("/api/agents/{b}/credential")).await.json();
    assert_eq!(view["state"], "unavailable");
    send(&state, &b, "hello")
        .await
        .assert_error(StatusCode::CONFLICT, "Credential vault unavailable.");
    stop.cancel();
    tracker.close();
    tracker.wait().await;
    // The same database under a ring without k1: nothing opens, nothing goes out anonymously.
    let ring = keys(&[("k2", K2)]);
    let mut config = test_db.config.clone();
    config.vault_keys = KeyRing::from_vars(Some(&ring), Some("k2")).unwrap();
    let other = AppState::new(support::leptos_options(), config, state.db.clone()).unwrap();
    let (_tracker, stop) = support::start_workers(&other);
    assert_eq!(
        get(&other, &format!("/api/agents/{a}/credential")).await.json()["state"],
        "unavailable"
    );
    send(&other, &a, "hello")
        .await
        .assert_error(StatusCode::CONFLICT, "Credential vault unavailable.");
    stop.cancel();
}

#[tokio::test]
async fn a_binding_must_cover_the_card_and_every_interface_origin_section_2_1() {
    let origin = support::demo().await;
    let (state, _db) = app().await;
    let (_tracker, stop) = support::start_workers(&state);
    let agent = register(&state, &origin, "bearer").await;
    put_binding(&state, &agent, &bearer("https://elsewhere.example", BEARER_TOKEN)).await;
    send(&state, &agent, "hello").await.assert_error(
        StatusCode::CONFLICT,
        "Agent credential destination is not permitted.",
    );
    let detail = get(&state, &format!("/api/agents/{agent}")).await;
    assert!(
        detail
            .body
            .contains("Agent credential destination is not permitted."),
        "{}",
        detail.body
    );
    stop.cancel();
}

/// The rule's second half: a binding that covers the card's origin but not the origin of the
/// interface the card advertises (the demo agent's `bearer` card served from another origin,
/// its interfaces at `localhost`) is refused; listing the interface's origin too opens it.
#[tokio::test]
async fn a_binding_must_cover_the_interface_origins_too_not_only_the_card_s_section_2_1() {
    use axum::routing::get;
    let demo = support::demo().await;
    let interfaces = demo.replace("127.0.0.1", "localhost");
    let card =
        server::demo_agent::card::card(server::demo_agent::Variant::parse("bearer").unwrap(), &interfaces);
    let card_origin = support::serve(axum::Router::new().route(
        "/elsewhere/card.json",
        get(move || async move { axum::Json(card) }),
    ))
    .await;
    let (state, _db) = app().await;
    let (_tracker, stop) = support::start_workers(&state);
    let agent = register(&state, &card_origin, "elsewhere").await;
    let card_only = put_binding(&state, &agent, &bearer(&card_origin, BEARER_TOKEN)).await;
    assert_eq!(card_only.status, StatusCode::OK, "{}", card_only.body);
    send(&state, &agent, "hello").await.assert_error(
        StatusCode::CONFLICT,
        "Agent credential destination is not permitted.",
    );
    let both = json!({"origins": [card_origin, interfaces], "credential": {"type": "bearer", "token": BEARER_TOKEN}});
    let stored = put_binding(&state, &agent, &both).await;
    assert_eq!(stored.status, StatusCode::OK, "{}", stored.body);
    let answer = send(&state, &agent, "hello").await;
    assert!(!completed_text(&answer).is_empty());
    stop.cancel();
}

#[tokio::test]
async fn echoed_secrets_are_redacted_before_they_are_stored_section_2_3_step_9() {
    use base64::Engine as _;
    let origin = support::demo().await;
    let (state, _db) = app().await;
    let (_tracker, stop) = support::start_workers(&state);
    let agent = register(&state, &origin, "apikey").await;
    let api =
        json!({"origins": [origin], "credential": {"type": "apiKey", "name": "X-API-Key", "value": API_KEY}});
    put_binding(&state, &agent, &api).await;
    let answer = send(&state, &agent, "leak it").await;
    assert_eq!(answer.status, StatusCode::OK, "{}", answer.body);
    let local = answer.json()["localId"].as_str().unwrap().to_owned();
    let task = get(&state, &format!("/api/tasks/{local}")).await;
    let b64 = base64::engine::general_purpose::STANDARD.encode(API_KEY);
    for shown in [&answer.body, &task.body] {
        assert!(!shown.contains(API_KEY) && !shown.contains(&b64), "{shown}");
        assert!(shown.contains("[redacted]"), "{shown}");
    }
    // The file's bytes were patched before they were archived.
    let task = task.json();
    let digest = task.to_string();
    let start = digest.find("/api/artifacts/").expect("the file is archived");
    let path: String = digest[start..]
        .chars()
        .take_while(|c| *c != '"' && *c != '?')
        .collect();
    let file = get(&state, &path).await;
    assert_eq!(file.status, StatusCode::OK);
    assert_eq!(file.body, "credential dump\nsecret=[redacted]\n");
    stop.cancel();
}

#[tokio::test]
async fn bindings_are_strict_and_admins_only_see_what_is_stored() {
    let origin = support::demo().await;
    let (state, _db) = app().await;
    let agent = register(&state, &origin, "bearer").await;
    for (binding, message) in [
        (
            json!({"origins": [origin], "credential": {"type": "bearer", "token": "short"}}),
            "credential.token: 8 to 100000 characters.",
        ),
        (
            json!({"origins": [origin], "credential": {"type": "bearer", "token": "long-enough"}, "extra": 1}),
            "The binding is not valid JSON of the expected shape (an unknown field).",
        ),
        (
            json!({"origins": ["http://agent.example"], "credential": {"type": "bearer", "token": "long-enough"}}),
            "origins: each entry must be an exact https origin (http only for localhost), lower-case, with no path, query, fragment or credentials.",
        ),
    ] {
        put_binding(&state, &agent, &binding)
            .await
            .assert_error(StatusCode::BAD_REQUEST, message);
    }
    let missing = call(
        &state,
        "DELETE",
        &format!("/api/agents/{agent}/credential"),
        "",
        &[],
    )
    .await;
    missing.assert_error(StatusCode::NOT_FOUND, "No credential is stored for this agent.");
    // Without vault keys nothing can be stored.
    let (plain, _db2) = support::app_with(&[("A2A_ALLOW_PRIVATE_NETWORKS", "true")]).await;
    let agent = register(&plain, &origin, "bearer").await;
    put_binding(&plain, &agent, &bearer(&origin, BEARER_TOKEN))
        .await
        .assert_error(StatusCode::CONFLICT, "Credential vault unavailable.");
    assert_eq!(
        get(&plain, &format!("/api/agents/{agent}/credential"))
            .await
            .json()["vaultConfigured"],
        false
    );
}

#[tokio::test]
async fn the_credential_store_keeps_one_audited_row_per_agent_on_both_backends() {
    for backend in support::backends().await {
        let db = backend.migrated().await;
        let (org_id, agent_id) = support::local_agent(&db).await;
        let agent = agent_store::by_id(&db.read, &agent_id).await.unwrap().unwrap();
        let ring = keys(&[("k1", K1), ("k2", K2)]);
        let old = Vault::new(KeyRing::from_vars(Some(&ring), Some("k1")).unwrap());
        let new = Vault::new(KeyRing::from_vars(Some(&ring), Some("k2")).unwrap());
        let binding = Binding::parse(
            bearer("https://agent.example", "token-123456")
                .to_string()
                .as_bytes(),
        )
        .unwrap();
        let actor = audit::Actor::System;
        let sealed = old.seal(&org_id, &agent.id, &binding).unwrap();
        let row = credential_store::store(&db, &org_id, &agent.id, binding.credential.kind(), sealed, &actor)
            .await
            .unwrap();
        assert_eq!((row.revision, row.key_id.as_str(), row.enabled), (1, "k1", true));
        assert!(!row.ciphertext.contains("token-123456"), "{}", backend.name);
        let moved = credential_store::reencrypt(&db, &org_id, &agent.id, &actor, |row| {
            let binding = new.open(&org_id, &agent.id, &row.key_id, &row.ciphertext).ok()?;
            new.seal(&org_id, &agent.id, &binding).ok()
        })
        .await
        .unwrap();
        assert_eq!((moved.revision, moved.key_id.as_str()), (2, "k2"));
        // A re-encryption that read the credential before a rotation does not bring it back.
        let stale = credential_store::find(&db.read, &org_id, &agent.id)
            .await
            .unwrap()
            .unwrap();
        let rotated = Binding::parse(
            bearer("https://agent.example", "token-rotated-1")
                .to_string()
                .as_bytes(),
        )
        .unwrap();
        let sealed = new.seal(&org_id, &agent.id, &rotated).unwrap();
        credential_store::store(&db, &org_id, &agent.id, rotated.credential.kind(), sealed, &actor)
            .await
            .unwrap();
        let resealed = new
            .seal(
                &org_id,
                &agent.id,
                &new.open(&org_id, &agent.id, &stale.key_id, &stale.ciphertext)
                    .unwrap(),
            )
            .unwrap();
        let lost = credential_store::replace_ciphertext(&db, &stale, resealed, &actor).await;
        assert!(
            matches!(lost, Err(server::store::StoreError::Conflict(m)) if m == credential_store::CHANGED),
            "{}",
            backend.name
        );
        let kept = credential_store::find(&db.read, &org_id, &agent.id)
            .await
            .unwrap()
            .unwrap();
        let opened = new
            .open(&org_id, &agent.id, &kept.key_id, &kept.ciphertext)
            .unwrap();
        assert_eq!((kept.revision, opened.secrets()), (3, vec!["token-rotated-1"]));
        let revoked = credential_store::revoke(&db, &org_id, &agent.id, &actor)
            .await
            .unwrap();
        assert!(!revoked.enabled);
        let again = credential_store::reencrypt(&db, &org_id, &agent.id, &actor, |_| None).await;
        assert!(again.is_err(), "a revoked binding is not re-encrypted");
        assert_eq!(
            agent_credential::Entity::find()
                .all(&db.read)
                .await
                .unwrap()
                .len(),
            1
        );
        let facts: Vec<String> = audit::of_organization(&db.read, &org_id)
            .await
            .unwrap()
            .into_iter()
            .map(|f| f.action)
            .filter(|a| a.starts_with("credential."))
            .collect();
        assert_eq!(
            facts,
            [
                "credential.rotated",
                "credential.reencrypted",
                "credential.rotated",
                "credential.revoked"
            ],
            "{}",
            backend.name
        );
        db.close().await;
        backend.cleanup().await;
    }
}
