//! The JSON HTTP API for scripts (`shared/spec/reference.md` §4) through the real router, over a
//! real SQLite database, with the real workers calling the real demo agent over HTTP.

use server::store::access::Access;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use axum::body::Body;
use axum::http::{Request, StatusCode};
use axum::middleware::Next;
use sea_orm::{ColumnTrait, EntityTrait, PaginatorTrait, QueryFilter};
use serde_json::{Value, json};
use server::AppState;
use server::db::entity::task_command;
use server::http::api::commands::{outcome, wait_for};
use server::store::agents::{self as agent_store, AgentSource};
use server::store::organizations;

use crate::client::{call, get, post, reply};
use crate::support::{self, TestDb};

const KEY_REQUIRED: &str = "An idempotency key of 1–255 characters is required.";
const KEY_CONFLICT: &str = "This idempotency key already belongs to different command content.";
const SETTLE: Duration = Duration::from_secs(30);

async fn app() -> (AppState, TestDb) {
    support::app_with(&[("A2A_ALLOW_PRIVATE_NETWORKS", "true")]).await
}

/// The demo agent behind a layer that counts sends (`SendMessage` or `SendStreamingMessage`) and
/// delays each by `delay`.
async fn counted_demo(delay: Duration) -> (String, Arc<AtomicUsize>) {
    let sends = Arc::new(AtomicUsize::new(0));
    let counter = sends.clone();
    let layer = axum::middleware::from_fn(move |request: Request<Body>, next: Next| {
        let counter = counter.clone();
        async move {
            let (parts, body) = request.into_parts();
            let bytes = axum::body::to_bytes(body, usize::MAX).await.unwrap();
            let call: Value = serde_json::from_slice(&bytes).unwrap_or(Value::Null);
            if call["method"] == "SendMessage" || call["method"] == "SendStreamingMessage" {
                counter.fetch_add(1, Ordering::SeqCst);
                tokio::time::sleep(delay).await;
            }
            next.run(Request::from_parts(parts, Body::from(bytes))).await
        }
    });
    (
        support::serve(server::demo_agent::router().layer(layer)).await,
        sends,
    )
}

/// Registers `<origin>/<variant>/card.json` through the API; returns the agent id.
/// Registers the demo variant at `origin` through `POST /api/agents`; its id.
pub(crate) async fn register(state: &AppState, origin: &str, variant: &str) -> String {
    let reply = post(
        state,
        "/api/agents",
        json!({"cardUrl": format!("{origin}/{variant}/card.json")}),
        &[],
    )
    .await;
    assert_eq!(reply.status, StatusCode::CREATED, "{}", reply.body);
    reply.json()["agent"]["id"].as_str().unwrap().to_owned()
}

async fn org(state: &AppState) -> String {
    organizations::local(&state.db).await.unwrap().id
}

/// `(event, data)` of every SSE frame of a complete stream body (keep-alive comments skipped).
fn sse_frames(body: &str) -> Vec<(String, Value)> {
    body.split("\n\n")
        .filter_map(|block| {
            let field = |name: &str| {
                block
                    .lines()
                    .find_map(|l| l.strip_prefix(name))
                    .map(str::to_owned)
            };
            Some((
                field("event: ")?,
                serde_json::from_str(&field("data: ")?).unwrap(),
            ))
        })
        .collect()
}

fn task_state(event: &Value) -> &str {
    event
        .pointer("/task/status/state")
        .or_else(|| event.pointer("/status/state"))
        .and_then(Value::as_str)
        .unwrap_or("")
}

#[tokio::test]
async fn agent_routes_register_list_preview_detail_and_remove_reference_4_3() {
    let origin = support::demo().await;
    let (state, _db) = app().await;
    let url = format!("{origin}/form/card.json");
    let reply = post(&state, "/api/agents", json!({"cardUrl": url}), &[]).await;
    assert_eq!(reply.status, StatusCode::CREATED);
    let id = reply.json()["agent"]["id"].as_str().unwrap().to_owned();
    assert_eq!(
        reply.json(),
        json!({"agent": {"id": id, "cardUrl": url, "source": "managed"}})
    );
    assert_eq!(
        post(&state, "/api/agents", json!({"cardUrl": url}), &[])
            .await
            .json()["agent"]["id"],
        id.as_str()
    );
    post(&state, "/api/agents", json!({}), &[])
        .await
        .assert_error(StatusCode::BAD_REQUEST, "cardUrl is required.");
    post(
        &state,
        "/api/agents",
        json!({"cardUrl": "ftp://x/card.json"}),
        &[],
    )
    .await
    .assert_error(StatusCode::BAD_REQUEST, "Agent Card URL must be http(s).");
    post(
        &state,
        "/api/agents",
        json!({"cardUrl": format!("{url}?a=1")}),
        &[],
    )
    .await
    .assert_error(
        StatusCode::BAD_REQUEST,
        "Agent Card URL must not contain credentials, query strings or fragments.",
    );
    let gone = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let unreachable = register(&state, &format!("http://127.0.0.1:{gone}"), "gone").await;

    let list = get(&state, "/api/agents").await;
    assert_eq!(list.header("cache-control"), "no-store");
    let agents = list.json()["agents"].as_array().unwrap().clone();
    assert_eq!(agents.len(), 2);
    assert_eq!(agents[0]["name"], "Form fixture (form)");
    assert_eq!(
        (agents[0]["trust"].as_str(), agents[0]["skills"][0]["id"].as_str()),
        (Some("unsigned"), Some("form"))
    );
    assert_eq!(agents[0]["card"]["name"], "Form fixture (form)");
    assert_eq!(agents[1]["id"], unreachable.as_str());
    assert!(agents[1]["error"].as_str().is_some_and(|e| !e.is_empty()) && agents[1].get("card").is_none());

    let preview = post(
        &state,
        "/api/agents/preview",
        json!({"cardUrl": format!("{origin}/slow")}),
        &[],
    )
    .await
    .json();
    assert_eq!(
        preview["resolvedCardUrl"],
        format!("{origin}/slow/.well-known/agent-card.json")
    );
    assert_eq!(
        (
            preview["card"]["name"].as_str(),
            preview["report"]["version"].as_str()
        ),
        (Some("Demo agent (slow)"), Some("1.0"))
    );

    let detail = get(&state, &format!("/api/agents/{id}")).await.json();
    assert_eq!(
        (
            detail["id"].as_str(),
            detail["source"].as_str(),
            detail["trust"].as_str()
        ),
        (Some(id.as_str()), Some("managed"), Some("unsigned"))
    );
    assert_eq!(
        (
            detail["card"]["name"].as_str(),
            detail["report"]["version"].as_str()
        ),
        (Some("Form fixture (form)"), Some("1.0"))
    );
    let failed = get(&state, &format!("/api/agents/{unreachable}")).await;
    assert_eq!(failed.status, StatusCode::BAD_GATEWAY);
    assert!(!failed.json()["error"]["message"].as_str().unwrap().is_empty());
    get(&state, "/api/agents/nope")
        .await
        .assert_error(StatusCode::NOT_FOUND, "Unknown agent.");

    let removed = call(&state, "DELETE", &format!("/api/agents/{id}"), Body::empty(), &[]).await;
    assert_eq!(
        (removed.status, removed.json()),
        (StatusCode::OK, json!({"removed": true}))
    );
    get(&state, &format!("/api/agents/{id}"))
        .await
        .assert_error(StatusCode::NOT_FOUND, "Unknown agent.");
    let env = agent_store::register(
        &state.db,
        &org(&state).await,
        &format!("{origin}/plain/card.json"),
        AgentSource::Env,
    )
    .await
    .unwrap();
    call(
        &state,
        "DELETE",
        &format!("/api/agents/{}", env.id),
        Body::empty(),
        &[],
    )
    .await
    .assert_error(
        StatusCode::CONFLICT,
        "This agent comes from A2A_REGISTERED_AGENTS and can't be removed from the UI.",
    );
}

#[tokio::test]
async fn bodies_and_keys_are_checked_exactly_reference_4_1_and_4_4() {
    let (state, _db) = app().await;
    let id = agent_store::register(
        &state.db,
        &org(&state).await,
        "http://127.0.0.1:9/a/card.json",
        AgentSource::Managed,
    )
    .await
    .unwrap()
    .id;
    let uri = format!("/api/agents/{id}/commands");
    let key = [("idempotency-key", "k-1")];
    post(&state, &uri, json!({"text": "hi"}), &[])
        .await
        .assert_error(StatusCode::BAD_REQUEST, KEY_REQUIRED);
    let long = "k".repeat(256);
    post(&state, &uri, json!({"text": "hi"}), &[("idempotency-key", &long)])
        .await
        .assert_error(StatusCode::BAD_REQUEST, KEY_REQUIRED);
    post(&state, &uri, json!({"text": "hi", "surprise": 1}), &key).await.assert_error(
        StatusCode::BAD_REQUEST,
        "unknown field `surprise`, expected one of `action`, `text`, `parts`, `taskId`, `contextId`, `tenant`, `messageId`, `skillId`, `config`",
    );
    post(&state, &uri, json!({"text": 5}), &key).await.assert_error(
        StatusCode::BAD_REQUEST,
        "invalid type: integer `5`, expected a string",
    );
    post(&state, &uri, json!({"text": "  "}), &key)
        .await
        .assert_error(
            StatusCode::BAD_REQUEST,
            "A message needs at least one content part.",
        );
    post(
        &state,
        &uri,
        json!({"action": "cancelTask", "messageId": ""}),
        &key,
    )
    .await
    .assert_error(
        StatusCode::BAD_REQUEST,
        "messageId must be 1–255 characters.; taskId is required for cancellation.",
    );
    call(&state, "POST", &uri, "", &key)
        .await
        .assert_error(StatusCode::BAD_REQUEST, "Request body is required.");
    call(&state, "POST", &uri, "{\"text\":", &key)
        .await
        .assert_error(StatusCode::BAD_REQUEST, "Invalid request JSON.");
    let too_large = "Request body exceeds the 16 MB limit.";
    let big = format!("{{\"text\":\"{}\"}}", "x".repeat(16 * 1024 * 1024));
    call(&state, "POST", &uri, big, &key)
        .await
        .assert_error(StatusCode::BAD_REQUEST, too_large);
    let declared = [("idempotency-key", "k-1"), ("content-length", "16777217")];
    call(&state, "POST", &uri, "x".repeat(16_777_217), &declared)
        .await
        .assert_error(StatusCode::BAD_REQUEST, too_large);
    post(&state, "/api/agents/nope/commands", json!({"text": "hi"}), &key)
        .await
        .assert_error(StatusCode::NOT_FOUND, "Unknown agent.");
    for missing in [
        "/api/commands/not-a-uuid",
        &format!("/api/commands/{}", uuid::Uuid::new_v4()),
    ] {
        get(&state, missing)
            .await
            .assert_error(StatusCode::NOT_FOUND, "Command not found.");
    }
}

#[tokio::test]
async fn the_same_key_ten_times_at_once_is_one_command_and_one_send_security_3_10() {
    let (origin, sends) = counted_demo(Duration::ZERO).await;
    let (state, _db) = app().await;
    let agent = register(&state, &origin, "form").await;
    let uri = format!("/api/agents/{agent}/commands");
    let key = [("idempotency-key", "deploy-once")];
    let replies =
        futures::future::join_all((0..10).map(|_| post(&state, &uri, json!({"text": "deploy"}), &key))).await;
    let id = replies[0].json()["command"]["id"].as_str().unwrap().to_owned();
    for reply in &replies {
        assert_eq!(reply.status, StatusCode::ACCEPTED, "{}", reply.body);
        assert_eq!(reply.header("location"), format!("/api/commands/{id}"));
        assert_eq!(reply.json()["command"]["id"], id.as_str());
    }
    let rows = task_command::Entity::find().filter(task_command::Column::IdempotencyKey.eq("deploy-once"));
    assert_eq!(rows.count(&state.db.read).await.unwrap(), 1);
    post(&state, &uri, json!({"text": "deploy twice"}), &key)
        .await
        .assert_error(StatusCode::CONFLICT, KEY_CONFLICT);

    let (_tracker, stop) = support::start_workers(&state);
    let command = wait_for(&state.db, &Access::everything(org(&state).await), &id, SETTLE)
        .await
        .unwrap();
    assert_eq!(command.status, "succeeded", "{:?}", command.last_error);
    let replay = post(&state, &uri, json!({"text": "deploy"}), &key).await;
    assert_eq!(
        (replay.status, replay.json()["command"]["status"].as_str()),
        (StatusCode::ACCEPTED, Some("succeeded"))
    );
    tokio::time::sleep(Duration::from_secs(1)).await;
    assert_eq!(
        sends.load(Ordering::SeqCst),
        1,
        "exactly one send reached the agent"
    );
    let view = get(&state, &format!("/api/commands/{id}")).await.json()["command"].clone();
    assert_eq!(
        (
            view["status"].as_str(),
            view["action"].as_str(),
            view["error"].clone()
        ),
        (Some("succeeded"), Some("send"), Value::Null)
    );
    assert!(view["result"]["localId"].is_string() && view["result"]["event"]["task"].is_object());
    stop.cancel();
}

#[tokio::test]
async fn messages_wait_for_the_form_task_to_need_input_reference_4_5_and_4_7() {
    let origin = support::demo().await;
    let (state, _db) = app().await;
    let agent = register(&state, &origin, "form").await;
    let (_tracker, stop) = support::start_workers(&state);
    let body = json!({"text": "deploy", "messageId": "m-1", "config": {"returnImmediately": false}});
    let reply = post(
        &state,
        &format!("/api/agents/{agent}/messages"),
        body.clone(),
        &[],
    )
    .await;
    assert_eq!(reply.status, StatusCode::OK, "{}", reply.body);
    let answer = reply.json();
    assert_eq!(task_state(&answer["result"]), "TASK_STATE_INPUT_REQUIRED");
    let command = answer["commandId"].as_str().unwrap();
    assert_eq!(
        (answer["sessionId"].as_str(), answer["requestId"].as_str()),
        (Some(command), Some(command))
    );
    assert_eq!(answer["telemetry"], json!([]));
    // Without a header the key is `message:` + SHA-256 of the canonical {agentId, messageId, tenant}.
    let canonical = format!("{{\"agentId\":\"{agent}\",\"messageId\":\"m-1\",\"tenant\":\"\"}}");
    let key = format!(
        "message:{}",
        server::ingest::archive::digest(canonical.as_bytes())
    );
    let row = task_command::Entity::find_by_id(command.to_owned())
        .one(&state.db.read)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(row.idempotency_key, key);
    let again = post(&state, &format!("/api/agents/{agent}/messages"), body, &[])
        .await
        .json();
    assert_eq!(again["commandId"], command);

    let local = answer["localId"].as_str().unwrap();
    let task = get(&state, &format!("/api/tasks/{local}")).await.json()["task"].clone();
    assert_eq!(
        (task["localId"].as_str(), task["state"].as_str()),
        (Some(local), Some("TASK_STATE_INPUT_REQUIRED"))
    );
    let waiting = get(&state, "/api/tasks?filter=needs-input&limit=10").await.json();
    assert_eq!(waiting["tasks"][0]["localId"], local);
    assert_eq!(waiting["tasks"][0]["taskId"], task["remoteTaskId"]);
    assert_eq!(
        get(&state, "/api/tasks?filter=done").await.json(),
        json!({"tasks": []})
    );
    assert_eq!(
        get(&state, "/api/tasks?offset=1").await.json(),
        json!({"tasks": []})
    );
    get(&state, "/api/tasks?filter=mine")
        .await
        .assert_error(StatusCode::BAD_REQUEST, "Invalid task filter.");
    get(&state, "/api/tasks?limit=101").await.assert_error(
        StatusCode::BAD_REQUEST,
        "limit must be 1–100 and offset must be 0 or more.",
    );
    get(&state, &format!("/api/tasks/{}", uuid::Uuid::new_v4()))
        .await
        .assert_error(StatusCode::NOT_FOUND, "Task not found.");
    stop.cancel();
}

#[tokio::test]
async fn a_command_still_pending_after_the_wait_answers_504_security_3_4() {
    let (origin, sends) = counted_demo(Duration::from_secs(20)).await;
    let (state, _db) = app().await;
    let agent = register(&state, &origin, "form").await;
    let accepted = post(
        &state,
        &format!("/api/agents/{agent}/commands"),
        json!({"text": "hi"}),
        &[("idempotency-key", "slow")],
    )
    .await;
    let id = accepted.json()["command"]["id"].as_str().unwrap().to_owned();
    let (_tracker, stop) = support::start_workers(&state);
    let command = wait_for(
        &state.db,
        &Access::everything(org(&state).await),
        &id,
        Duration::from_secs(2),
    )
    .await
    .unwrap();
    assert!(
        matches!(command.status.as_str(), "pending" | "dispatching"),
        "{}",
        command.status
    );
    let reply = reply(outcome(&command)).await;
    let message = format!(
        "Command accepted; waiting stopped. Query /api/commands/{id} for its outcome before submitting again."
    );
    reply.assert_error(StatusCode::GATEWAY_TIMEOUT, &message);
    assert!(sends.load(Ordering::SeqCst) <= 1);
    stop.cancel();
}

#[tokio::test]
async fn cancel_of_a_slow_task_ends_canceled_reference_4_5() {
    let origin = support::demo().await;
    let (state, _db) = app().await;
    let agent = register(&state, &origin, "slow").await;
    let (_tracker, stop) = support::start_workers(&state);
    let sent = post(
        &state,
        &format!("/api/agents/{agent}/messages"),
        json!({"text": "report"}),
        &[],
    )
    .await;
    assert_eq!(sent.status, StatusCode::OK, "{}", sent.body);
    let remote = sent.json()["result"]["task"]["id"].as_str().unwrap().to_owned();
    let local = sent.json()["localId"].as_str().unwrap().to_owned();
    let canceled = post(
        &state,
        &format!("/api/agents/{agent}/tasks/{remote}/cancel?tenant="),
        json!({}),
        &[],
    )
    .await;
    assert_eq!(canceled.status, StatusCode::OK, "{}", canceled.body);
    assert_eq!(task_state(&canceled.json()["result"]), "TASK_STATE_CANCELED");
    assert_eq!(canceled.json()["localId"], local.as_str());
    let task = get(&state, &format!("/api/tasks/{local}")).await.json();
    assert_eq!(task["task"]["state"], "TASK_STATE_CANCELED");
    stop.cancel();
}

#[tokio::test]
async fn stream_sends_accepted_persisted_a2a_and_end_in_order_reference_4_6() {
    let origin = support::demo().await;
    let (state, _db) = app().await;
    let agent = register(&state, &origin, "form").await;
    let uri = format!("/api/agents/{agent}/stream");
    post(&state, &uri, json!([1]), &[]).await.assert_error(
        StatusCode::BAD_REQUEST,
        "A valid send or subscription object is required.",
    );
    post(&state, &uri, json!({"resubscribe": true}), &[])
        .await
        .assert_error(StatusCode::BAD_REQUEST, "taskId is required to resubscribe.");
    let (_tracker, stop) = support::start_workers(&state);
    let reply = tokio::time::timeout(SETTLE, post(&state, &uri, json!({"text": "deploy"}), &[]))
        .await
        .unwrap();
    assert_eq!(
        (reply.status, reply.header("content-type")),
        (StatusCode::OK, "text/event-stream")
    );
    assert_eq!(
        (reply.header("cache-control"), reply.header("x-accel-buffering")),
        ("no-store, no-transform", "no")
    );
    let frames = sse_frames(&reply.body);
    let names: Vec<&str> = frames.iter().map(|(name, _)| name.as_str()).collect();
    assert_eq!(
        (names[0], names[1], *names.last().unwrap()),
        ("accepted", "persisted", "end"),
        "{names:?}"
    );
    let command = frames[0].1["commandId"].as_str().unwrap();
    assert_eq!(
        frames.last().unwrap().1,
        json!({"sessionId": command, "requestId": command})
    );
    let first_a2a = names.iter().position(|n| *n == "a2a").expect("a2a frames");
    assert!(
        names[..first_a2a].contains(&"snapshot") && !names.contains(&"error"),
        "{names:?}"
    );
    let a2a: Vec<&Value> = frames
        .iter()
        .filter(|(n, _)| n == "a2a")
        .map(|(_, d)| d)
        .collect();
    assert!(
        a2a[0]["message"]["role"].as_str().is_some(),
        "the user's message first: {}",
        a2a[0]
    );
    assert!(
        a2a.iter()
            .any(|e| e.to_string().contains("TASK_STATE_INPUT_REQUIRED"))
    );
    let snapshot = frames.iter().rev().find(|(n, _)| n == "snapshot").unwrap();
    assert_eq!(snapshot.1["state"], "TASK_STATE_INPUT_REQUIRED");
    let persisted = &frames[1].1;
    assert_eq!(persisted["localId"], snapshot.1["localId"]);

    let again = json!({"resubscribe": true, "taskId": persisted["taskId"], "tenant": ""});
    let names: Vec<String> = sse_frames(&post(&state, &uri, again, &[]).await.body)
        .into_iter()
        .map(|(n, _)| n)
        .collect();
    // The resubscription asks the workers to read the waiting task again now (issue #27):
    // a fresh read may land in between, as `meta` + `a2a` (+ a new `snapshot`).
    assert_eq!(names[..2], ["persisted", "snapshot"], "{names:?}");
    assert_eq!(names.last().map(String::as_str), Some("end"), "{names:?}");
    assert!(
        names[2..names.len() - 1]
            .iter()
            .all(|n| ["persisted", "meta", "a2a", "snapshot"].contains(&n.as_str())),
        "{names:?}"
    );
    let unknown = json!({"resubscribe": true, "taskId": "nope"});
    post(&state, &uri, unknown, &[])
        .await
        .assert_error(StatusCode::NOT_FOUND, "Task not found.");
    stop.cancel();
}

#[tokio::test]
async fn a_dropped_stream_never_cancels_the_command_security_3_4() {
    let origin = support::demo().await;
    let (state, _db) = app().await;
    let agent = register(&state, &origin, "form").await;
    let (_tracker, stop) = support::start_workers(&state);
    let request = Request::post(format!("/api/agents/{agent}/stream"))
        .header("idempotency-key", "dropped")
        .body(Body::from(json!({"text": "deploy"}).to_string()))
        .unwrap();
    drop(support::send(&state, request).await);
    let row = task_command::Entity::find().filter(task_command::Column::IdempotencyKey.eq("dropped"));
    let command = row
        .one(&state.db.read)
        .await
        .unwrap()
        .expect("the command was stored");
    let command = wait_for(
        &state.db,
        &Access::everything(org(&state).await),
        &command.id,
        SETTLE,
    )
    .await
    .unwrap();
    assert_eq!(command.status, "succeeded", "{:?}", command.last_error);
    stop.cancel();
}

/// `(digest, filename)` of every archived part in a task view.
fn archived(value: &Value, out: &mut Vec<(String, String)>) {
    match value {
        Value::Object(map) => {
            if let Some(url) = map.get("content").and_then(|c| c["url"].as_str())
                && let Some(digest) = url.strip_prefix("/api/artifacts/")
            {
                out.push((
                    digest.to_owned(),
                    map["filename"].as_str().unwrap_or("").to_owned(),
                ));
            }
            map.values().for_each(|v| archived(v, out));
        }
        Value::Array(items) => items.iter().for_each(|v| archived(v, out)),
        _ => {}
    }
}

#[tokio::test]
async fn archived_files_download_with_safe_headers_reference_4_9() {
    let origin = support::demo().await;
    let (state, _db) = app().await;
    let agent = register(&state, &origin, "files").await;
    let (_tracker, stop) = support::start_workers(&state);
    let body = json!({"text": "files", "config": {"returnImmediately": false}});
    let sent = post(&state, &format!("/api/agents/{agent}/messages"), body, &[]).await;
    assert_eq!(sent.status, StatusCode::OK, "{}", sent.body);
    let local = sent.json()["localId"].as_str().unwrap().to_owned();
    let mut files = Vec::new();
    archived(
        &get(&state, &format!("/api/tasks/{local}")).await.json(),
        &mut files,
    );
    let find = |name: &str| {
        files
            .iter()
            .find(|(_, f)| f == name)
            .unwrap_or_else(|| panic!("{name} in {files:?}"))
            .0
            .clone()
    };

    let binary = get(&state, &format!("/api/artifacts/{}", find("sample.bin"))).await;
    assert_eq!(binary.status, StatusCode::OK);
    assert_eq!(binary.header("content-type"), "application/octet-stream");
    assert_eq!(
        binary.header("content-disposition"),
        "attachment; filename=\"sample.bin\""
    );
    assert_eq!(binary.header("x-content-type-options"), "nosniff");
    assert_eq!(
        binary.header("content-security-policy"),
        "sandbox; default-src 'none'"
    );
    assert_eq!(binary.header("cache-control"), "no-store");
    assert_eq!(binary.bytes, (0..=255).collect::<Vec<u8>>());

    let png = find("chart.png");
    let image = get(&state, &format!("/api/artifacts/{png}")).await;
    assert_eq!(
        (image.status, image.header("content-type")),
        (StatusCode::OK, "image/png")
    );
    assert_eq!(
        image.header("content-disposition"),
        "attachment; filename=\"chart.png\""
    );
    assert_eq!(server::ingest::archive::digest(&image.bytes), png);
    for missing in ["0".repeat(64), "not-a-digest".to_owned(), png.to_uppercase()] {
        let reply = get(&state, &format!("/api/artifacts/{missing}")).await;
        assert_eq!(
            (reply.status, reply.body.as_str()),
            (StatusCode::NOT_FOUND, "Not found")
        );
        assert_eq!(reply.header("cache-control"), "no-store");
    }
    stop.cancel();
}
