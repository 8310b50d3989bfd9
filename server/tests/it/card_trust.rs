//! Signed Agent Cards against the real demo agent (`shared/spec/security-and-durability.md` §2.4):
//! its `signed` card verifies with the pin it publishes, its `forged` card does not, an unpinned
//! or expired pin leaves a signed card untrusted, and `A2A_REQUIRE_SIGNED_CARDS` refuses unsigned
//! ones. Untrusted and invalid cards are shown (the API reports the state) but never called.

use axum::http::StatusCode;
use serde_json::{Value, json};
use server::state::AppState;

use crate::client::{Reply, get};
use crate::credentials::register;
use crate::support::{self, TestDb};

const REJECTED: &str = "Agent Card trust policy rejected this connection.";

async fn app(extra: &[(&str, &str)]) -> (AppState, TestDb) {
    let mut vars = vec![("A2A_ALLOW_PRIVATE_NETWORKS", "true")];
    vars.extend_from_slice(extra);
    support::app_with(&vars).await
}

async fn send(state: &AppState, agent: &str) -> Reply {
    crate::credentials::send(state, agent, "hello").await
}

async fn trust(state: &AppState, agent: &str) -> String {
    let detail = get(state, &format!("/api/agents/{agent}")).await;
    assert_eq!(detail.status, StatusCode::OK, "{}", detail.body);
    detail.json()["trust"].as_str().unwrap().to_owned()
}

/// The demo agent's own pin (`GET /card-keys.json`), with `expiresAt` when given.
async fn pins(origin: &str, expires_at: Option<String>) -> String {
    let mut pins: Value = crate::credentials::http()
        .get(format!("{origin}/card-keys.json"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    if let Some(at) = expires_at {
        pins[0]["expiresAt"] = json!(at);
    }
    pins.to_string()
}

#[tokio::test]
async fn signed_cards_are_verified_against_pins_and_the_rest_never_called_section_2_4() {
    let origin = support::demo().await;
    // Without pins a signed card is untrusted: shown, never called.
    let (state, _db) = app(&[]).await;
    let (_tracker, stop) = support::start_workers(&state);
    let signed = register(&state, &origin, "signed").await;
    assert_eq!(trust(&state, &signed).await, "untrusted");
    send(&state, &signed)
        .await
        .assert_error(StatusCode::CONFLICT, REJECTED);
    let plain = register(&state, &origin, "form").await;
    assert_eq!(trust(&state, &plain).await, "unsigned");
    stop.cancel();

    let pinned = pins(&origin, None).await;
    let (state, _db) = app(&[("A2A_TRUSTED_CARD_KEYS", &pinned)]).await;
    let (_tracker, stop) = support::start_workers(&state);
    let signed = register(&state, &origin, "signed").await;
    assert_eq!(trust(&state, &signed).await, "verified");
    let answer = send(&state, &signed).await;
    assert_eq!(answer.status, StatusCode::OK, "{}", answer.body);
    let forged = register(&state, &origin, "forged").await;
    assert_eq!(trust(&state, &forged).await, "invalid");
    let report = get(&state, &format!("/api/agents/{forged}")).await.json()["report"].clone();
    assert!(report.to_string().contains("does not verify"), "{report}");
    send(&state, &forged)
        .await
        .assert_error(StatusCode::CONFLICT, REJECTED);
    stop.cancel();

    let expired = pins(&origin, Some("2020-01-01T00:00:00Z".into())).await;
    let (state, _db) = app(&[("A2A_TRUSTED_CARD_KEYS", &expired)]).await;
    let signed = register(&state, &origin, "signed").await;
    assert_eq!(
        trust(&state, &signed).await,
        "untrusted",
        "an expired pin counts as absent"
    );

    let (state, _db) = app(&[
        ("A2A_TRUSTED_CARD_KEYS", &pinned),
        ("A2A_REQUIRE_SIGNED_CARDS", "true"),
    ])
    .await;
    let (_tracker, stop) = support::start_workers(&state);
    let plain = register(&state, &origin, "form").await;
    send(&state, &plain)
        .await
        .assert_error(StatusCode::CONFLICT, REJECTED);
    let signed = register(&state, &origin, "signed").await;
    assert_eq!(send(&state, &signed).await.status, StatusCode::OK);
    stop.cancel();
}
