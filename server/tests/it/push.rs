//! Push notifications from agents (`shared/spec/security-and-durability.md` §3.7): the
//! receiver's checks in order, each with its exact status and message; and the whole
//! lifecycle against the real demo agent over real HTTP: the registration is created at the
//! agent (a create whose answer was lost is found by its id, never sent twice), the agent's
//! deliveries reach the ledger, the task's text is never doubled, and the config is deleted at
//! the agent once the task finished.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use axum::body::Body;
use axum::extract::Request;
use axum::http::StatusCode;
use serde_json::{Value, json};
use server::AppState;
use server::http::api::webhooks::*;
use server::store::push_registrations::{self, PushStatus};
use server::store::subscriptions;

use crate::client::{Reply, call};
use crate::ledger::eventually;
use crate::support;

const KEY_HEX: &str = "8f3a1c0e5b7d9f2a4c6e8b0d1f3a5c7e9b2d4f6a8c0e1b3d5f7a9c2e4b6d8f0a";

fn key() -> [u8; 32] {
    hex::decode(KEY_HEX).unwrap().try_into().unwrap()
}

fn push_vars(origin: &str) -> Vec<(&'static str, String)> {
    vec![
        ("A2A_PUSH_CALLBACK_ORIGIN", origin.to_owned()),
        ("A2A_PUSH_SIGNING_KEY", KEY_HEX.to_owned()),
        ("A2A_PUSH_ALLOW_LOOPBACK_HTTP", "true".to_owned()),
        ("A2A_ALLOW_PRIVATE_NETWORKS", "true".to_owned()),
    ]
}

async fn app(origin: &str) -> (AppState, support::TestDb) {
    let vars = push_vars(origin);
    let vars: Vec<(&str, &str)> = vars.iter().map(|(k, v)| (*k, v.as_str())).collect();
    support::app_with(&vars).await
}

/// A followed task `remote` (context `ctx-1`) of an agent the console knows, and its push
/// registration; `(org, agent, local task, registration id)`.
async fn registered_task(state: &AppState, remote: &str) -> (String, String, String, String) {
    let (org, agent) = support::local_agent(&state.db).await;
    let answer =
        json!({"task": {"id": remote, "contextId": "ctx-1", "status": {"state": "TASK_STATE_WORKING"}}});
    let task = state
        .ingestor
        .ingest(&support::observation(&org, &agent, "conv-1", answer))
        .await
        .unwrap()
        .task_id;
    push_registrations::adopt(&state.db.write, std::slice::from_ref(&agent))
        .await
        .unwrap();
    let registration = push_registrations::of_task(&state.db.read, &task)
        .await
        .unwrap()
        .unwrap();
    (org, agent, task, registration.id)
}

async fn deliver(
    state: &AppState,
    registration: &str,
    authorization: &str,
    content_type: &str,
    body: &str,
) -> Reply {
    call(
        state,
        "POST",
        &format!("/api/webhooks/a2a/{registration}"),
        body.to_owned(),
        &[("authorization", authorization), ("content-type", content_type)],
    )
    .await
}

fn status_update(task: &str, context: &str, state: &str, message_id: &str) -> String {
    json!({"statusUpdate": {"taskId": task, "contextId": context, "status": {"state": state,
        "message": {"messageId": message_id, "role": "ROLE_AGENT", "parts": [{"text": "Which region?"}]}}}})
    .to_string()
}

async fn push_rows(state: &AppState, task: &str) -> usize {
    server::store::tasks::ledger(&state.db.read, task)
        .await
        .unwrap()
        .iter()
        .filter(|e| e.source == "push")
        .count()
}

#[tokio::test]
async fn the_receiver_checks_each_rule_in_order_with_its_exact_answer_3_7() {
    let (off, _off_db) = support::app().await;
    deliver(&off, "any", "Bearer x", "application/json", "{}")
        .await
        .assert_error(StatusCode::SERVICE_UNAVAILABLE, NOT_CONFIGURED);

    let (state, _db) = app("http://127.0.0.1:3002/").await;
    let (org, _agent, task, registration) = registered_task(&state, "remote-1").await;
    let token = server::push::callback_token(&key(), &org, &registration);
    let bearer = format!("Bearer {token}");
    let body = status_update("remote-1", "ctx-1", "TASK_STATE_INPUT_REQUIRED", "ask-1");

    // Authentication, before the body is read.
    for authorization in [
        String::new(),
        token.clone(),
        format!(
            "Bearer {}",
            server::push::callback_token(&key(), &org, "another-registration")
        ),
        format!(
            "Bearer {}",
            server::push::callback_token(&[1; 32], &org, &registration)
        ),
    ] {
        deliver(&state, &registration, &authorization, "application/json", &body)
            .await
            .assert_error(StatusCode::UNAUTHORIZED, INVALID_AUTHENTICATION);
    }
    // The callback origin (127.0.0.1:3002 here, not the console's address) answers the push
    // receiver only: the API or a page named by it is misdirected.
    let via_callback = |method: &'static str, path: &'static str| {
        let state = state.clone();
        async move {
            call(
                &state,
                method,
                path,
                "",
                &[("host", "127.0.0.1:3002"), ("authorization", "Bearer x")],
            )
            .await
        }
    };
    assert_eq!(
        via_callback("GET", "/api/agents").await.status,
        StatusCode::MISDIRECTED_REQUEST
    );
    assert_eq!(
        via_callback("GET", "/chat").await.status,
        StatusCode::MISDIRECTED_REQUEST
    );
    assert_eq!(
        via_callback("POST", "/api/agents").await.status,
        StatusCode::MISDIRECTED_REQUEST
    );
    via_callback("POST", "/api/webhooks/a2a/any")
        .await
        .assert_error(StatusCode::UNAUTHORIZED, INVALID_AUTHENTICATION);
    // Nothing of the body is read first: a wrong token with a body that is not even JSON
    // is a 401, not a 400.
    deliver(
        &state,
        &registration,
        &format!("Bearer {}", "A".repeat(43)),
        "application/json",
        "not json",
    )
    .await
    .assert_error(StatusCode::UNAUTHORIZED, INVALID_AUTHENTICATION);
    deliver(&state, "no-such-registration", &bearer, "application/json", &body)
        .await
        .assert_error(StatusCode::UNAUTHORIZED, INVALID_AUTHENTICATION);

    // The body.
    deliver(&state, &registration, &bearer, "text/plain", &body)
        .await
        .assert_error(StatusCode::UNSUPPORTED_MEDIA_TYPE, NOT_JSON);
    deliver(&state, &registration, &bearer, "application/json", "not json")
        .await
        .assert_error(StatusCode::BAD_REQUEST, INVALID_PAYLOAD);
    let two = json!({"task": {"id": "remote-1", "status": {"state": "TASK_STATE_WORKING"}}, "message": {}})
        .to_string();
    deliver(&state, &registration, &bearer, "application/json", &two)
        .await
        .assert_error(StatusCode::BAD_REQUEST, INVALID_ENVELOPE);
    deliver(
        &state,
        &registration,
        &bearer,
        "application/json",
        r#"{"statusUpdate": {"taskId": "remote-1"}}"#,
    )
    .await
    .assert_error(StatusCode::BAD_REQUEST, INVALID_PAYLOAD);

    // Identity: the registration's task and context only.
    deliver(
        &state,
        &registration,
        &bearer,
        "application/json",
        &status_update("remote-2", "ctx-1", "TASK_STATE_WORKING", "m"),
    )
    .await
    .assert_error(StatusCode::CONFLICT, UNEXPECTED_TASK);
    deliver(
        &state,
        &registration,
        &bearer,
        "application/json",
        &status_update("remote-1", "ctx-9", "TASK_STATE_WORKING", "m"),
    )
    .await
    .assert_error(StatusCode::CONFLICT, UNEXPECTED_SCOPE);
    assert_eq!(push_rows(&state, &task).await, 0, "nothing refused was stored");

    // Accepted, committed before 204; the same delivery again commits nothing more.
    for _ in 0..2 {
        let accepted = deliver(
            &state,
            &registration,
            &bearer,
            "application/a2a+json; charset=utf-8",
            &body,
        )
        .await;
        assert_eq!(accepted.status, StatusCode::NO_CONTENT, "{}", accepted.body);
    }
    assert_eq!(
        push_rows(&state, &task).await,
        1,
        "a duplicate delivery commits once"
    );
    let row = server::store::tasks::by_id(&state.db.read, &task)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(row.state.as_v1_str(), "TASK_STATE_INPUT_REQUIRED");

    // An appended chunk is not applied (a stream may carry it too): the task is read at once.
    let chunk = json!({"artifactUpdate": {"taskId": "remote-1", "contextId": "ctx-1", "append": true,
        "artifact": {"artifactId": "a", "parts": [{"text": "more"}]}}})
    .to_string();
    let accepted = deliver(&state, &registration, &bearer, "application/json", &chunk).await;
    assert_eq!(accepted.status, StatusCode::NO_CONTENT, "{}", accepted.body);
    assert_eq!(push_rows(&state, &task).await, 1);
    let sub = subscriptions::of_task(&state.db, &task).await.unwrap().unwrap();
    assert!(
        sub.available_at <= chrono::Utc::now(),
        "the task's next read is due now"
    );

    // A finished task takes nothing more; once its registration is retired, callbacks are refused.
    let (org_id, agent_id) = (org.clone(), row.agent_id.clone());
    let done = json!({"statusUpdate": {"taskId": "remote-1", "contextId": "ctx-1", "status": {"state": "TASK_STATE_COMPLETED"}}});
    state
        .ingestor
        .ingest(&server::ingest::Observation {
            local_task_id: Some(task.clone()),
            source: server::ingest::Source::Stream,
            source_key: Some("done".into()),
            ..support::observation(&org_id, &agent_id, "conv-1", done)
        })
        .await
        .unwrap();
    let late = status_update("remote-1", "ctx-1", "TASK_STATE_WORKING", "late-1");
    let accepted = deliver(&state, &registration, &bearer, "application/json", &late).await;
    assert_eq!(accepted.status, StatusCode::NO_CONTENT);
    assert_eq!(
        push_rows(&state, &task).await,
        1,
        "a callback for a finished task changes nothing"
    );
    let row = server::store::tasks::by_id(&state.db.read, &task)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(row.state.as_v1_str(), "TASK_STATE_COMPLETED");
    // Never created at the agent (no worker ran): retired straight to deleted, and refused.
    push_registrations::retire(&state.db.write).await.unwrap();
    let retired = push_registrations::by_id(&state.db.read, &registration)
        .await
        .unwrap()
        .unwrap();
    assert!(!retired.desired);
    assert_eq!(retired.status, PushStatus::Deleted);
    // Checked again inside the ingestion transaction (§3.7 step 7): a delivery on a registration
    // deleted after it was authenticated commits nothing.
    let in_flight = state
        .ingestor
        .ingest(&server::ingest::Observation {
            local_task_id: Some(task.clone()),
            source: server::ingest::Source::Push,
            fence: Some(server::ingest::Fence::Push {
                registration: registration.clone(),
            }),
            ..support::observation(&org_id, &agent_id, "conv-1", serde_json::from_str(&late).unwrap())
        })
        .await;
    assert!(
        matches!(in_flight, Err(server::ingest::IngestError::LeaseLost)),
        "{in_flight:?}"
    );
    deliver(&state, &registration, &bearer, "application/json", &late)
        .await
        .assert_error(StatusCode::UNAUTHORIZED, INVALID_AUTHENTICATION);
}

#[tokio::test]
async fn a_registration_takes_120_deliveries_a_minute_then_429_with_retry_after_3_7() {
    let (state, _db) = app("http://127.0.0.1:3002/").await;
    let (org, _agent, _task, registration) = registered_task(&state, "remote-r").await;
    let bearer = format!(
        "Bearer {}",
        server::push::callback_token(&key(), &org, &registration)
    );
    let body = status_update("remote-r", "ctx-1", "TASK_STATE_WORKING", "same");
    let mut accepted = 0;
    let refused = loop {
        let reply = deliver(&state, &registration, &bearer, "application/json", &body).await;
        if reply.status != StatusCode::NO_CONTENT {
            break reply;
        }
        accepted += 1;
        assert!(accepted <= 120, "more than 120 deliveries accepted in a minute");
    };
    assert_eq!(accepted, push_registrations::DELIVERIES_PER_MINUTE);
    refused.assert_error(StatusCode::TOO_MANY_REQUESTS, RATE_LIMITED);
    assert_eq!(refused.header("retry-after"), "60");
}

/// §2.3 step 9 holds for pushes too: a push that echoes the agent's credential (literally, in
/// base64, inside a key) is stored with the secret redacted; a credential that cannot be opened
/// (the vault lost its key) refuses the push with 503 so the agent retries, and stores nothing.
#[tokio::test]
async fn a_pushed_event_is_stored_with_the_agent_s_secrets_redacted_2_3_step_9() {
    use base64::Engine as _;
    use server::vault::{Binding, KeyRing, Vault};

    let (one, nine) = ("1".repeat(64), "9".repeat(64));
    let ring = crate::credentials::keys(&[("k1", one.as_str())]);
    let mut vars = push_vars("http://127.0.0.1:3002/");
    vars.push(("A2A_VAULT_KEYS", ring.clone()));
    vars.push(("A2A_VAULT_ACTIVE_KEY", "k1".to_owned()));
    let vars: Vec<(&str, &str)> = vars.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let (state, _db) = support::app_with(&vars).await;
    let (org, agent, task, registration) = registered_task(&state, "remote-s").await;
    let secret = "push-echo-token-4242";
    let binding = Binding::parse(
        crate::credentials::bearer("http://127.0.0.1:9", secret)
            .to_string()
            .as_bytes(),
    )
    .unwrap();
    let vault = Vault::new(KeyRing::from_vars(Some(&ring), Some("k1")).unwrap());
    let sealed = vault.seal(&org, &agent, &binding).unwrap();
    server::store::credentials::store(
        &state.db,
        &org,
        &agent,
        binding.credential.kind(),
        sealed,
        &server::store::audit::Actor::System,
    )
    .await
    .unwrap();
    let bearer = format!(
        "Bearer {}",
        server::push::callback_token(&key(), &org, &registration)
    );
    let encoded = base64::engine::general_purpose::STANDARD.encode(secret);
    let body = json!({"statusUpdate": {"taskId": "remote-s", "contextId": "ctx-1", "status": {
        "state": "TASK_STATE_WORKING",
        "message": {"messageId": "echo-1", "role": "ROLE_AGENT",
            "parts": [{"text": format!("your token is {secret}, or {encoded}")}],
            "metadata": {secret: "as a key"}}}}})
    .to_string();
    let reply = deliver(&state, &registration, &bearer, "application/json", &body).await;
    assert_eq!(reply.status, StatusCode::NO_CONTENT, "{}", reply.body);
    let stored = server::store::tasks::ledger(&state.db.read, &task).await.unwrap();
    let pushed = stored
        .iter()
        .find(|e| e.source == "push")
        .expect("the push is stored");
    let text = pushed.payload_json.to_string();
    assert!(!text.contains(secret) && !text.contains(&encoded), "{text}");
    assert!(text.contains("your token is [redacted], or [redacted]"), "{text}");
    assert!(text.contains(r#""[redacted]":"as a key""#), "{text}");

    // Revoked, the secret is still redacted from what the agent echoes (and the push accepted).
    server::store::credentials::revoke(&state.db, &org, &agent, &server::store::audit::Actor::System)
        .await
        .unwrap();
    let revoked = body.replace("echo-1", "echo-r");
    let reply = deliver(&state, &registration, &bearer, "application/json", &revoked).await;
    assert_eq!(reply.status, StatusCode::NO_CONTENT, "{}", reply.body);
    let stored = server::store::tasks::ledger(&state.db.read, &task).await.unwrap();
    let text = serde_json::to_string(&stored.iter().map(|e| &e.payload_json).collect::<Vec<_>>()).unwrap();
    assert!(!text.contains(secret), "{text}");
    assert_eq!(push_rows(&state, &task).await, 2);

    // The vault loses its key: the agent's secrets are unknown, the push waits.
    let mut config = (*state.config).clone();
    let other_ring = crate::credentials::keys(&[("k9", nine.as_str())]);
    config.vault_keys = KeyRing::from_vars(Some(&other_ring), Some("k9")).unwrap();
    let blind = AppState::new(support::leptos_options(), config, state.db.clone()).unwrap();
    let again = body.replace("echo-1", "echo-2");
    deliver(&blind, &registration, &bearer, "application/json", &again)
        .await
        .assert_error(StatusCode::SERVICE_UNAVAILABLE, UNAVAILABLE);
    assert_eq!(push_rows(&state, &task).await, 2);
}

/// The demo agent, with a layer that loses the answer to the first push config create (the
/// config is stored, then the client gets a 502), counting creates and reads.
async fn lossy_demo() -> (String, Arc<AtomicUsize>, Arc<AtomicUsize>) {
    let (creates, gets) = (Arc::new(AtomicUsize::new(0)), Arc::new(AtomicUsize::new(0)));
    let (c, g) = (creates.clone(), gets.clone());
    let layer = axum::middleware::from_fn(move |request: Request, next: axum::middleware::Next| {
        let (c, g) = (c.clone(), g.clone());
        async move {
            let (parts, body) = request.into_parts();
            let bytes = axum::body::to_bytes(body, usize::MAX).await.unwrap();
            let method = serde_json::from_slice::<Value>(&bytes).unwrap_or(Value::Null)["method"]
                .as_str()
                .unwrap_or_default()
                .to_owned();
            let response = next.run(Request::from_parts(parts, Body::from(bytes))).await;
            match method.as_str() {
                "CreateTaskPushNotificationConfig" if c.fetch_add(1, Ordering::SeqCst) == 0 => {
                    axum::response::IntoResponse::into_response(StatusCode::BAD_GATEWAY)
                }
                "GetTaskPushNotificationConfig" => {
                    g.fetch_add(1, Ordering::SeqCst);
                    response
                }
                _ => response,
            }
        }
    });
    (
        support::serve(server::demo_agent::router().layer(layer)).await,
        creates,
        gets,
    )
}

#[tokio::test]
async fn the_demo_agent_pushes_a_task_to_its_end_and_its_config_is_deleted_after_3_7() {
    let (demo, creates, gets) = lossy_demo().await;
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let origin = format!("http://{}", listener.local_addr().unwrap());
    let (state, _db) = app(&origin).await;
    let router = server::http::router::build_router(state.clone());
    tokio::spawn(async move { axum::serve(listener, router.into_make_service()).await });
    let workers = support::Workers::start(&state);
    let agent = crate::api::register(&state, &demo, "slow").await;
    let sent = crate::client::post(
        &state,
        &format!("/api/agents/{agent}/commands"),
        json!({"text": "the push report"}),
        &[("idempotency-key", "push-1")],
    )
    .await;
    assert_eq!(sent.status, StatusCode::ACCEPTED, "{}", sent.body);
    let location = sent.header("location").to_owned();
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    let task = loop {
        let command = crate::client::get(&state, &location).await.json();
        if let Some(task) = command["command"]["result"]["localId"].as_str() {
            break task.to_owned();
        }
        assert!(std::time::Instant::now() < deadline, "no task: {command}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    // Registered at the agent: the lost answer is found by reading the config back, and the
    // config is never created twice.
    assert!(
        eventually(Duration::from_secs(10), || async {
            push_registrations::of_task(&state.db.read, &task)
                .await
                .unwrap()
                .is_some_and(|r| r.status == PushStatus::Active)
        })
        .await,
        "the registration became active"
    );
    assert_eq!(creates.load(Ordering::SeqCst), 1, "one create");
    assert!(gets.load(Ordering::SeqCst) >= 1, "the retry read the config back");
    // The agent's deliveries reach the ledger while the task runs.
    assert!(
        eventually(Duration::from_secs(15), || async {
            push_rows(&state, &task).await > 0
        })
        .await,
        "a delivery was stored"
    );
    assert!(
        eventually(Duration::from_secs(30), || async {
            crate::client::get(&state, &format!("/api/tasks/{task}"))
                .await
                .json()["task"]["state"]
                == "TASK_STATE_COMPLETED"
        })
        .await
    );
    let view = crate::client::get(&state, &format!("/api/tasks/{task}"))
        .await
        .json();
    let text = view["task"]["artifacts"][0]["parts"][0]["content"]["text"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    let expected: String = (1..=20)
        .map(|n| format!("Chunk {n} of 20: still going.\n"))
        .collect();
    assert_eq!(text, expected, "every chunk once, pushed or streamed");
    // Finished: the config is deleted at the agent and the registration is `deleted`.
    assert!(
        eventually(Duration::from_secs(15), || async {
            push_registrations::of_task(&state.db.read, &task)
                .await
                .unwrap()
                .is_some_and(|r| r.status == PushStatus::Deleted)
        })
        .await,
        "the registration was deleted"
    );
    // …at the agent too: it holds no config for the task any more.
    let remote = server::store::tasks::by_id(&state.db.read, &task)
        .await
        .unwrap()
        .unwrap()
        .remote_task_id
        .unwrap();
    let listed: Value = crate::credentials::http()
        .post(format!("{demo}/slow/a2a"))
        .header("A2A-Version", "1.0")
        .json(
            &json!({"jsonrpc": "2.0", "id": 1, "method": "ListTaskPushNotificationConfigs",
            "params": {"taskId": remote}}),
        )
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(listed["result"]["configs"], json!([]), "{listed}");
    workers.stop().await;
}
