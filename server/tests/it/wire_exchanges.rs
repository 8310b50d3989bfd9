//! Issue #32, the Wire panel as an inspector (ADR 0046): each HTTP request the workers made for
//! a conversation is listed with its operation, method, URL, status, latency and headers both
//! ways; the agent's credential never appears (issue #30 "never leaked": not in the Wire
//! panel); another organization's reader sees nothing of it; old rows are purged.

use std::time::Duration;

use axum::http::StatusCode;
use serde_json::Value;
use server::demo_agent::locked::BEARER_TOKEN;
use server::state::AppState;

use crate::client::{call, get};
use crate::credentials::{app, bearer, put_binding, register, send};
use crate::support;

async fn exchanges(state: &AppState, conversation: &str) -> (StatusCode, Value) {
    let reply = call(
        state,
        "POST",
        "/api/fn/get_conversation_exchanges",
        format!("conversation_id={conversation}"),
        &[("content-type", "application/x-www-form-urlencoded")],
    )
    .await;
    let json = serde_json::from_str(&reply.body).unwrap_or(Value::Null);
    (reply.status, json)
}

#[tokio::test]
async fn each_http_exchange_of_a_conversation_is_listed_without_its_secrets() {
    let origin = support::demo().await;
    let (state, _db) = app().await;
    let (_tracker, stop) = support::start_workers(&state);
    let agent = register(&state, &origin, "bearer").await;
    let stored = put_binding(&state, &agent, &bearer(&origin, BEARER_TOKEN)).await;
    assert_eq!(stored.status, StatusCode::OK, "{}", stored.body);
    let answer = send(&state, &agent, "hello").await;
    assert_eq!(answer.status, StatusCode::OK, "{}", answer.body);
    let local = answer.json()["localId"].as_str().unwrap().to_owned();
    let task = get(&state, &format!("/api/tasks/{local}")).await.json();
    let conversation = task["task"]["conversationId"].as_str().unwrap().to_owned();

    // The writer stores exchanges after the fact: wait until the send's is there.
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    let listed = loop {
        let (status, json) = exchanges(&state, &conversation).await;
        assert_eq!(status, StatusCode::OK, "{json}");
        if json.as_array().is_some_and(|list| !list.is_empty()) {
            break json;
        }
        assert!(tokio::time::Instant::now() < deadline, "no exchange was listed");
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    let text = listed.to_string();
    assert!(!text.contains(BEARER_TOKEN), "{text}");
    let first = &listed[0];
    assert!(
        ["SendMessage", "SendStreamingMessage"].contains(&first["operation"].as_str().unwrap()),
        "{first}"
    );
    assert_eq!(first["method"], "POST", "{first}");
    assert_eq!(first["status"], 200, "{first}");
    assert!(
        first["url"]
            .as_str()
            .unwrap()
            .starts_with(&format!("{origin}/bearer/")),
        "{first}"
    );
    assert!(first["latencyMs"].as_u64().is_some(), "{first}");
    assert_eq!(
        first["taskId"],
        Value::Null,
        "a first send has no task yet: {first}"
    );
    let header = |list: &Value, name: &str| {
        list.as_array()
            .unwrap()
            .iter()
            .find(|pair| pair[0] == name)
            .map(|pair| pair[1].as_str().unwrap().to_owned())
    };
    assert_eq!(
        header(&first["requestHeaders"], "authorization").as_deref(),
        Some("[redacted]")
    );
    assert_eq!(
        header(&first["requestHeaders"], "a2a-version").as_deref(),
        Some("1.0")
    );
    assert!(
        header(&first["responseHeaders"], "content-type").is_some(),
        "{first}"
    );

    // Not a conversation: 404; nobody's conversation: an empty list.
    let (status, _) = exchanges(&state, "not-a-uuid").await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    let (status, json) = exchanges(&state, &uuid::Uuid::now_v7().to_string()).await;
    assert_eq!((status, json), (StatusCode::OK, serde_json::json!([])));

    // Past the retention, housekeeping's purge takes them.
    let later = chrono::Utc::now() + server::store::wire_exchanges::RETENTION + chrono::Duration::minutes(1);
    let purged = server::store::wire_exchanges::purge_before(&state.db.write, later)
        .await
        .unwrap();
    assert!(purged >= 1);
    let (_, json) = exchanges(&state, &conversation).await;
    assert_eq!(json, serde_json::json!([]));
    stop.cancel();
}
