//! Issue #26, "Browser sends are not idempotent": the browser's sends and cancels
//! (`/api/fn/send_message`, `/api/fn/cancel_task`) carry the draft's idempotency key, with the
//! JSON API's rules (`shared/spec/reference.md` §4.4, `security-and-durability.md` §3.4): the
//! same key and content replay the stored command, other content is `409`, and a missing,
//! blank or over-long key is `400`.

use axum::http::StatusCode;
use sea_orm::{ColumnTrait, EntityTrait, PaginatorTrait, QueryFilter};
use serde_json::{Value, json};
use server::AppState;
use server::db::entity::{outbox_message, task_command};

use crate::client::{Reply, call, post};
use crate::support;

const KEY_REQUIRED: &str = "An idempotency key of 1–255 characters is required.";
const KEY_CONFLICT: &str = "This idempotency key already belongs to different command content.";

/// A registered agent (never called: no workers run) and the local organization's id.
async fn agent(state: &AppState) -> (String, String) {
    let (org, agent) = support::local_agent(&state.db).await;
    (agent, org)
}

/// The chat composer's send of `text` in a new chat, under `key` (`null`: none).
fn new_chat(agent: &str, text: &str, key: Value) -> Value {
    json!({"input": {"agentId": agent, "conversationId": null, "taskId": null, "text": text,
        "parts": [], "options": {}, "idempotencyKey": key}})
}

async fn send(state: &AppState, body: Value) -> Reply {
    post(
        state,
        "/api/fn/send_message",
        body,
        &[("content-type", "application/json")],
    )
    .await
}

async fn commands_under(state: &AppState, key: &str) -> u64 {
    task_command::Entity::find()
        .filter(task_command::Column::IdempotencyKey.eq(key))
        .count(&state.db.read)
        .await
        .unwrap()
}

async fn all_commands(state: &AppState) -> (u64, u64) {
    (
        task_command::Entity::find().count(&state.db.read).await.unwrap(),
        outbox_message::Entity::find()
            .count(&state.db.read)
            .await
            .unwrap(),
    )
}

#[tokio::test]
async fn a_retried_send_with_the_same_key_is_one_command_with_the_same_answer_reference_4_4() {
    let (state, _db) = support::app().await;
    let (agent, _) = agent(&state).await;
    let first = send(&state, new_chat(&agent, "deploy", json!("draft-1"))).await;
    assert_eq!(first.status, StatusCode::OK, "{}", first.body);
    // A retry of a new chat's first send: the same command, in the same new conversation.
    let again = send(&state, new_chat(&agent, "deploy", json!("draft-1"))).await;
    assert_eq!(again.status, StatusCode::OK, "{}", again.body);
    assert_eq!(again.json(), first.json());
    assert_eq!(commands_under(&state, "draft-1").await, 1);
    assert_eq!(
        all_commands(&state).await,
        (1, 1),
        "one command, one dispatch intent"
    );
    // The next draft (a new key) is a new command, even with the same text.
    let next = send(&state, new_chat(&agent, "deploy", json!("draft-2"))).await;
    assert_eq!(next.status, StatusCode::OK, "{}", next.body);
    assert_ne!(next.json()["id"], first.json()["id"]);
    assert_ne!(next.json()["conversationId"], first.json()["conversationId"]);
    assert_eq!(all_commands(&state).await, (2, 2));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_double_click_racing_itself_is_one_command() {
    let (state, _db) = support::app().await;
    let (agent, _) = agent(&state).await;
    let replies = futures::future::join_all(
        (0..6).map(|_| send(&state, new_chat(&agent, "once", json!("double-click")))),
    )
    .await;
    let id = replies[0].json()["id"].clone();
    for reply in &replies {
        assert_eq!(reply.status, StatusCode::OK, "{}", reply.body);
        assert_eq!(reply.json()["id"], id);
    }
    assert_eq!(all_commands(&state).await, (1, 1));
}

#[tokio::test]
async fn the_same_key_with_other_content_is_refused_409_reference_4_4() {
    let (state, _db) = support::app().await;
    let (agent, _) = agent(&state).await;
    let first = send(&state, new_chat(&agent, "deploy staging", json!("k"))).await;
    assert_eq!(first.status, StatusCode::OK, "{}", first.body);
    let conversation = first.json()["conversationId"].as_str().unwrap().to_owned();
    let edited = send(&state, new_chat(&agent, "deploy production", json!("k"))).await;
    assert_eq!(edited.status, StatusCode::CONFLICT, "{}", edited.body);
    assert_eq!(edited.json(), json!({"Conflict": KEY_CONFLICT}));
    // In the conversation the first send made, too.
    let mut body = new_chat(&agent, "deploy production", json!("k"));
    body["input"]["conversationId"] = json!(conversation);
    let edited = send(&state, body).await;
    assert_eq!(edited.status, StatusCode::CONFLICT, "{}", edited.body);
    assert_eq!(all_commands(&state).await, (1, 1));
}

#[tokio::test]
async fn a_send_without_a_valid_key_is_refused_400_and_stores_nothing() {
    let (state, _db) = support::app().await;
    let (agent, _) = agent(&state).await;
    let refused = json!({"Invalid": {"field": "idempotencyKey", "message": KEY_REQUIRED}});
    for key in [Value::Null, json!(""), json!("   "), json!("é".repeat(256))] {
        let reply = send(&state, new_chat(&agent, "hi", key.clone())).await;
        assert_eq!(reply.status, StatusCode::BAD_REQUEST, "{key}: {}", reply.body);
        assert_eq!(reply.json(), refused, "{key}");
    }
    // No key at all in the body.
    let mut body = new_chat(&agent, "hi", Value::Null);
    body["input"].as_object_mut().unwrap().remove("idempotencyKey");
    let reply = send(&state, body).await;
    assert_eq!(reply.status, StatusCode::BAD_REQUEST, "{}", reply.body);
    assert_eq!(reply.json(), refused);
    assert_eq!(all_commands(&state).await, (0, 0));
    // The longest key is fine, and is stored trimmed.
    let longest = "é".repeat(255);
    let reply = send(&state, new_chat(&agent, "hi", json!(format!(" {longest} ")))).await;
    assert_eq!(reply.status, StatusCode::OK, "{}", reply.body);
    assert_eq!(commands_under(&state, &longest).await, 1);
}

/// A task with a remote id, made the way a send's answer makes one.
async fn task(state: &AppState, agent: &str, org: &str) -> String {
    state
        .ingestor
        .ingest(&server::ingest::Observation {
            source_key: Some("command:seed".into()),
            protocol_version: None,
            ..support::observation(
                org,
                agent,
                "00000000-0000-4000-8000-00000000c0de",
                json!({"task": {"id": "r1", "contextId": "c1", "status": {"state": "TASK_STATE_WORKING"}}}),
            )
        })
        .await
        .unwrap()
        .task_id
}

async fn cancel(state: &AppState, form: &str) -> Reply {
    call(
        state,
        "POST",
        "/api/fn/cancel_task",
        form.to_owned(),
        &[("content-type", "application/x-www-form-urlencoded")],
    )
    .await
}

#[tokio::test]
async fn a_retried_cancel_with_the_same_key_is_one_command_and_needs_a_key() {
    let (state, _db) = support::app().await;
    let (agent, org) = agent(&state).await;
    let task = task(&state, &agent, &org).await;
    let form = format!("task_id={task}&idempotency_key=cancel-1");
    let first = cancel(&state, &form).await;
    assert_eq!(first.status, StatusCode::OK, "{}", first.body);
    assert_eq!(first.json()["action"], "cancelTask");
    let again = cancel(&state, &form).await;
    assert_eq!(again.status, StatusCode::OK, "{}", again.body);
    assert_eq!(again.json(), first.json());
    assert_eq!(commands_under(&state, "cancel-1").await, 1);
    for form in [
        format!("task_id={task}"),
        format!("task_id={task}&idempotency_key="),
    ] {
        let reply = cancel(&state, &form).await;
        assert_eq!(reply.status, StatusCode::BAD_REQUEST, "{form}: {}", reply.body);
        assert_eq!(
            reply.json(),
            json!({"Invalid": {"field": "idempotencyKey", "message": KEY_REQUIRED}})
        );
    }
    // A send's key is not a cancel's: other content under the key is refused.
    let reply = send(&state, new_chat(&agent, "hi", json!("cancel-1"))).await;
    assert_eq!(reply.status, StatusCode::CONFLICT, "{}", reply.body);
    assert_eq!(all_commands(&state).await, (1, 1));
}
