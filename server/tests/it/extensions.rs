//! Extension negotiation and skill routing on the wire (seed "Negotiation rules",
//! `shared/spec/reference.md` §1.3, §2, §3.5): what the real dispatch worker sends to a real
//! agent over HTTP (an in-process recording agent), what is stored with each ledger event, and
//! the API stream's `meta` and `sideband` frames from the demo agent's `trace` variant.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Json;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::routing::{get, post};
use sea_orm::{ColumnTrait, EntityTrait, QueryFilter};
use serde_json::{Value, json};
use server::db::entity::task_event;

use crate::client::{Reply, get as api_get, post as api_post};
use crate::ledger::eventually;
use crate::support;

const SIDEBAND: &str = "urn:agent-observability:sideband-events:v1";
const TRACE: &str = "urn:x-a2a:trace:v1";
const SKILL_ROUTING: &str = "https://extensions.allsrc.dev/agent-taskbay/skill-routing/v1";
const UNKNOWN: &str = "https://example.com/extensions/unknown/v9";
const DEPLOYMENT: &str = "urn:example:deployment-sideband:v1";

/// What the recording agent received: the `A2A-Extensions` header and the JSON-RPC body.
type Calls = Arc<Mutex<Vec<(Option<String>, Value)>>>;

/// An A2A 1.0 JSON-RPC agent that records every call and completes every task at once. Its
/// card advertises the generic sideband URI, a deployment URI, skill routing with one skill,
/// and an unknown extension (not the trace URI).
async fn recording_agent() -> (String, Calls) {
    let calls: Calls = Arc::default();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let origin = format!("http://{}", listener.local_addr().unwrap());
    let card = json!({
        "name": "Recorder", "description": "Records calls", "version": "1.0.0",
        "supportedInterfaces": [{"url": format!("{origin}/a2a"), "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}],
        "capabilities": {"streaming": false, "extensions": [
            {"uri": UNKNOWN}, {"uri": DEPLOYMENT}, {"uri": SKILL_ROUTING}, {"uri": SIDEBAND}, {"uri": ""}, {"uri": 7}
        ]},
        "defaultInputModes": ["text/plain"], "defaultOutputModes": ["text/plain"],
        "skills": [{"id": "triage", "name": "Triage", "description": "Sorts incidents", "tags": []}],
    });
    let router = axum::Router::new()
        .route("/card.json", get(move || async move { Json(card.clone()) }))
        .route(
            "/a2a",
            post(|State(calls): State<Calls>, headers: HeaderMap, Json(body): Json<Value>| async move {
                let header = headers
                    .get("a2a-extensions")
                    .map(|v| v.to_str().unwrap().to_owned());
                calls.lock().unwrap().push((header, body.clone()));
                let message = &body["params"]["message"];
                let task = json!({
                    "id": message["taskId"].as_str().map_or_else(|| uuid::Uuid::new_v4().to_string(), str::to_owned),
                    "contextId": message["contextId"].as_str().unwrap_or("ctx-1"),
                    "status": {"state": "TASK_STATE_COMPLETED"},
                });
                Json(json!({"jsonrpc": "2.0", "id": body["id"], "result": {"task": task}}))
            }),
        )
        .with_state(calls.clone());
    tokio::spawn(async move { axum::serve(listener, router).await.unwrap() });
    (origin, calls)
}

async fn app() -> (server::AppState, support::TestDb) {
    support::app_with(&[
        ("A2A_ALLOW_PRIVATE_NETWORKS", "true"),
        ("A2A_SIDEBAND_EXTENSION_URIS", DEPLOYMENT),
    ])
    .await
}

/// Registers the agent through the API (which fetches and stores its card).
async fn register(state: &server::AppState, card_url: &str) -> String {
    let reply = api_post(state, "/api/agents", json!({"cardUrl": card_url}), &[]).await;
    assert!(reply.status.is_success(), "{}", reply.body);
    let id = reply.json()["agent"]["id"].as_str().unwrap().to_owned();
    // `GET /api/agents/{id}` stores the card snapshot the rules consult (reference §1.0).
    assert_eq!(
        api_get(state, &format!("/api/agents/{id}")).await.status,
        StatusCode::OK
    );
    id
}

async fn command(state: &server::AppState, agent: &str, body: Value, key: &str) -> Reply {
    api_post(
        state,
        &format!("/api/agents/{agent}/commands"),
        body,
        &[("idempotency-key", key)],
    )
    .await
}

#[tokio::test]
async fn a_send_carries_caller_skill_routing_and_negotiated_sideband_uris_seed_negotiation_rules() {
    let (origin, calls) = recording_agent().await;
    let (state, _db) = app().await;
    let agent = register(&state, &format!("{origin}/card.json")).await;
    let (tracker, stop) = support::start_workers(&state);
    let body = json!({
        "text": "Sort this incident",
        "skillId": "triage",
        "config": {
            "extensions": ["urn:caller:a", SIDEBAND, "urn:caller:a"],
            "metadata": {SKILL_ROUTING: {"skillId": "forged"}, "keep": 1},
            "requestMetadata": {SKILL_ROUTING: {"skillId": "forged"}, "trace": "on"},
        },
    });
    let reply = command(&state, &agent, body, "negotiation-1").await;
    assert_eq!(reply.status, StatusCode::ACCEPTED, "{}", reply.body);
    assert!(
        eventually(Duration::from_secs(20), || async {
            !calls.lock().unwrap().is_empty()
        })
        .await
    );
    let (header, sent) = calls.lock().unwrap()[0].clone();
    // The header carries the negotiated sideband URIs only, in card order (reference §2.2).
    assert_eq!(header.as_deref(), Some(&*format!("{DEPLOYMENT},{SIDEBAND}")));
    let params = &sent["params"];
    // Caller URIs first, de-duplicated; then skill routing; then negotiated sideband URIs.
    assert_eq!(
        params["message"]["extensions"],
        json!(["urn:caller:a", SIDEBAND, SKILL_ROUTING, DEPLOYMENT])
    );
    // Caller-supplied routing is stripped; the server writes its own (reference §1.3 rules 6, 8).
    assert_eq!(params["message"]["metadata"], json!({"keep": 1}));
    assert_eq!(
        params["metadata"],
        json!({"trace": "on", SKILL_ROUTING: {"skillId": "triage"}})
    );
    assert!(
        !params["message"]["extensions"].to_string().contains(UNKNOWN),
        "unknown URIs are never negotiated"
    );
    // The ledger event records what was negotiated for the exchange (reference §3.5).
    let events = task_event::Entity::find()
        .filter(task_event::Column::Source.eq("command_response"))
        .all(&state.db.read)
        .await
        .unwrap();
    assert_eq!(events.len(), 1);
    assert_eq!(events[0].extensions_json, json!([DEPLOYMENT, SIDEBAND]));
    stop.cancel();
    tracker.close();
    tracker.wait().await;
}

#[tokio::test]
async fn skill_routing_refusals_use_the_original_messages_reference_1_3() {
    let (origin, _calls) = recording_agent().await;
    let (state, _db) = app().await;
    let agent = register(&state, &format!("{origin}/card.json")).await;
    // A skill the card does not list.
    command(&state, &agent, json!({"text": "x", "skillId": "billing"}), "k1")
        .await
        .assert_error(
            StatusCode::FORBIDDEN,
            "This agent does not support bounded skill routing.",
        );
    // An unknown task.
    command(&state, &agent, json!({"text": "x", "taskId": "nope"}), "k2")
        .await
        .assert_error(StatusCode::NOT_FOUND, "Task not found.");
    // An agent that does not advertise skill routing at all.
    let demo = support::demo().await;
    let form = register(&state, &format!("{demo}/form/card.json")).await;
    command(&state, &form, json!({"text": "x", "skillId": "form"}), "k3")
        .await
        .assert_error(
            StatusCode::FORBIDDEN,
            "This agent does not support bounded skill routing.",
        );
}

#[tokio::test]
async fn a_task_keeps_its_skill_and_its_context_reference_1_3() {
    let (origin, calls) = recording_agent().await;
    let (state, _db) = app().await;
    let agent = register(&state, &format!("{origin}/card.json")).await;
    let (tracker, stop) = support::start_workers(&state);
    let first = command(&state, &agent, json!({"text": "one", "skillId": "triage"}), "s1").await;
    assert_eq!(first.status, StatusCode::ACCEPTED, "{}", first.body);
    assert!(
        eventually(Duration::from_secs(20), || async {
            calls.lock().unwrap().len() == 1
        })
        .await
    );
    let remote = {
        let view = api_get(&state, "/api/tasks").await.json();
        view["tasks"][0]["taskId"].as_str().unwrap().to_owned()
    };
    command(
        &state,
        &agent,
        json!({"text": "two", "taskId": remote, "skillId": "other"}),
        "s2",
    )
    .await
    .assert_error(StatusCode::FORBIDDEN, "Task skill cannot be changed.");
    command(
        &state,
        &agent,
        json!({"text": "two", "taskId": remote, "contextId": "elsewhere"}),
        "s3",
    )
    .await
    .assert_error(StatusCode::FORBIDDEN, "Task context mismatch.");
    // A follow-up without a skill keeps the task's skill on the wire.
    let follow = command(&state, &agent, json!({"text": "two", "taskId": remote}), "s4").await;
    assert_eq!(follow.status, StatusCode::ACCEPTED, "{}", follow.body);
    assert!(
        eventually(Duration::from_secs(20), || async {
            calls.lock().unwrap().len() == 2
        })
        .await
    );
    let (_, sent) = calls.lock().unwrap()[1].clone();
    assert_eq!(
        sent["params"]["metadata"][SKILL_ROUTING],
        json!({"skillId": "triage"})
    );
    stop.cancel();
    tracker.close();
    tracker.wait().await;
}

/// The SSE frames of a response body, as (event, data).
#[tokio::test]
async fn the_stream_route_sends_meta_before_each_a2a_frame_and_decoded_sideband_after_it_reference_3_5() {
    let demo = support::demo().await;
    let (state, _db) = app().await;
    let agent = register(&state, &format!("{demo}/trace/card.json")).await;
    let (tracker, stop) = support::start_workers(&state);
    let reply = api_post(
        &state,
        &format!("/api/agents/{agent}/stream"),
        json!({"text": "check health"}),
        &[("idempotency-key", "trace-1")],
    )
    .await;
    assert_eq!(reply.status, StatusCode::OK);
    let frames = reply.frames();
    let names: Vec<&str> = frames.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names.last(), Some(&"end"), "{names:?}");
    // Every a2a frame comes right after its meta frame.
    for (i, name) in names.iter().enumerate() {
        if *name == "a2a" {
            assert_eq!(names[i - 1], "meta", "{names:?}");
        }
    }
    let sideband: Vec<&Value> = frames
        .iter()
        .filter(|(n, _)| n == "sideband")
        .map(|(_, d)| d)
        .collect();
    assert!(
        !sideband.is_empty(),
        "the trace variant's events are decoded: {names:?}"
    );
    let uris: Vec<&str> = sideband
        .iter()
        .filter_map(|e| e["extensionUri"].as_str())
        .collect();
    assert!(uris.contains(&TRACE) && uris.contains(&SIDEBAND), "{uris:?}");
    let started = sideband
        .iter()
        .find(|e| e["type"] == "agent.started")
        .expect("lifecycle start mapped");
    assert_eq!(started["title"], "Agent execution started");
    let meta = frames
        .iter()
        .find(|(n, d)| n == "meta" && d["negotiatedExtensions"] != json!([]));
    assert!(
        meta.is_some(),
        "the subscription's events carry their negotiated list"
    );
    stop.cancel();
    tracker.close();
    tracker.wait().await;
}
