//! Following a task to its end (issue #27, `shared/spec/security-and-durability.md` §3.5–§3.6)
//! against a scripted A2A 1.0 JSON-RPC agent over real HTTP: a reply whose stream opens with
//! the stale input-required snapshot, a waiting task the agent finishes by itself, a stale
//! `SendMessage` answer, and events lost between two streams. The same rules are exercised
//! against the official SDKs in `sdk_agents.rs`; these run without them, on both backends.

use server::store::access::Access;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use app::a2a::PartContent;
use axum::Json;
use axum::extract::State;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use serde_json::{Value, json};
use server::AppState;
use server::services::commands::CommandBody;
use server::store::tasks as task_store;

use crate::ledger::eventually;
use crate::support::{self, Workers};
use crate::workers::{register, send};

/// What the scripted agent does.
#[derive(Clone, Copy, PartialEq)]
enum Script {
    /// Asks a question; a reply gets the stale snapshot first (streaming: then the artifact and
    /// COMPLETED on the same stream; not streaming: the next GetTask says COMPLETED).
    Ask,
    /// Asks a question and, without any reply, finishes on the second GetTask.
    FinishesAlone,
    /// Asks a question (status stamped `…:00Z`); a reply is answered with a new question,
    /// still INPUT_REQUIRED, stamped `…:01Z`.
    AsksAgain,
    /// Streams `part-1`, `part-2` and closes the stream with the task working; emits `part-3`
    /// while nothing is subscribed (only the first GetTask shows it); `SubscribeToTask` sends
    /// `part-4`, `part-5` and COMPLETED with no snapshot first (a2a-sdk 0.3); later GetTasks
    /// show the finished task as `finish` says.
    Gap { finish: Finish },
}

/// What `GetTask` says once a [`Script::Gap`] task finished.
#[derive(Clone, Copy, PartialEq)]
enum Finish {
    /// Exactly what was emitted.
    Exact,
    /// Every chunk appended after the resubscription twice (a2a-sdk 0.3.26's own store).
    Doubled,
    /// A `part-6` the stream never carried.
    Longer,
    /// The first read after the task finished still shows it as at the gap (working, three
    /// parts: the agent's store lags its stream, as a2a-sdk 0.3's does under load); the next one
    /// shows it finished, with a `part-6` the stream never carried.
    Lagging,
}

#[derive(Default)]
struct Agent {
    /// Calls received, by JSON-RPC method.
    methods: Vec<String>,
    /// The task as `GetTask` reports it.
    task: Option<Value>,
    get_tasks: u32,
}

type Shared = Arc<Mutex<Agent>>;

const TASK: &str = "remote-1";

fn task(state: &str, parts: &[&str]) -> Value {
    let mut task = json!({"id": TASK, "contextId": "ctx-1", "status": {"state": state,
        "message": {"messageId": format!("status-{state}"), "role": "ROLE_AGENT", "parts": [{"text": state}]}}});
    if !parts.is_empty() {
        let parts: Vec<Value> = parts.iter().map(|p| json!({"text": p})).collect();
        task["artifacts"] = json!([{"artifactId": "story", "name": "story", "parts": parts}]);
    }
    task
}

fn chunk(text: &str, append: bool, last: bool) -> Value {
    json!({"artifactUpdate": {"taskId": TASK, "contextId": "ctx-1", "append": append, "lastChunk": last,
        "artifact": {"artifactId": "story", "name": "story", "parts": [{"text": text}]}}})
}

fn status(state: &str) -> Value {
    json!({"statusUpdate": {"taskId": TASK, "contextId": "ctx-1", "status": {"state": state}}})
}

fn sse(id: &Value, events: &[Value]) -> Response {
    let body: String = events
        .iter()
        .map(|result| {
            format!(
                "data: {}\n\n",
                json!({"jsonrpc": "2.0", "id": id, "result": result})
            )
        })
        .collect();
    ([(axum::http::header::CONTENT_TYPE, "text/event-stream")], body).into_response()
}

fn answer(id: &Value, result: Value) -> Response {
    Json(json!({"jsonrpc": "2.0", "id": id, "result": result})).into_response()
}

async fn call(script: Script, agent: &Shared, body: Value) -> Response {
    let id = &body["id"];
    let method = body["method"].as_str().unwrap_or_default().to_owned();
    let reply = body.pointer("/params/message/taskId").is_some();
    let mut agent = agent.lock().unwrap();
    agent.methods.push(method.clone());
    match (method.as_str(), script, reply) {
        // No ListTasks: the reconciliation sweep marks the scope unsupported.
        ("ListTasks", _, _) => Json(json!({"jsonrpc": "2.0", "id": id,
            "error": {"code": -32601, "message": "Method not found"}}))
        .into_response(),
        ("GetTask", _, _) => {
            agent.get_tasks += 1;
            match (script, agent.get_tasks) {
                (Script::FinishesAlone, 2..) => {
                    agent.task = Some(task("TASK_STATE_COMPLETED", &["done by itself"]));
                }
                // The first read (the gap) sees three parts; later ones the finished task.
                (
                    Script::Gap {
                        finish: Finish::Lagging,
                    },
                    2,
                ) => {}
                (Script::Gap { finish }, 2..) => {
                    let parts: &[&str] = match finish {
                        Finish::Exact => &["part-1 ", "part-2 ", "part-3 ", "part-4 ", "part-5 "],
                        Finish::Doubled => &[
                            "part-1 ", "part-2 ", "part-3 ", "part-4 ", "part-4 ", "part-5 ", "part-5 ",
                        ],
                        Finish::Longer | Finish::Lagging => {
                            &["part-1 ", "part-2 ", "part-3 ", "part-4 ", "part-5 ", "part-6 "]
                        }
                    };
                    agent.task = Some(task("TASK_STATE_COMPLETED", parts));
                }
                _ => {}
            }
            answer(id, agent.task.clone().unwrap_or(Value::Null))
        }
        ("SendStreamingMessage" | "SendMessage", Script::Gap { .. }, _) => {
            agent.task = Some(task("TASK_STATE_WORKING", &["part-1 ", "part-2 ", "part-3 "]));
            let first = json!({"task": task("TASK_STATE_WORKING", &[])});
            sse(
                id,
                &[
                    first,
                    chunk("part-1 ", false, false),
                    chunk("part-2 ", true, false),
                ],
            )
        }
        ("SubscribeToTask", Script::Gap { .. }, _) => {
            let events = [
                chunk("part-4 ", true, false),
                chunk("part-5 ", true, true),
                status("TASK_STATE_COMPLETED"),
            ];
            sse(id, &events)
        }
        (_, Script::AsksAgain, true) => {
            let mut again = task("TASK_STATE_INPUT_REQUIRED", &[]);
            again["status"]["timestamp"] = json!("2026-12-03T10:00:01Z");
            again["status"]["message"]["messageId"] = json!("second-question");
            agent.task = Some(again.clone());
            answer(id, json!({"task": again}))
        }
        (_, _, false) => {
            let mut asked = task("TASK_STATE_INPUT_REQUIRED", &[]);
            if script == Script::AsksAgain {
                asked["status"]["timestamp"] = json!("2026-12-03T10:00:00Z");
            }
            agent.task = Some(asked.clone());
            let asked = json!({"task": asked});
            if method == "SendStreamingMessage" {
                sse(id, &[asked])
            } else {
                answer(id, asked)
            }
        }
        (_, _, true) => {
            // The request's task as it stood, first (the JS SDK's order), then the work.
            let stale = json!({"task": task("TASK_STATE_INPUT_REQUIRED", &[])});
            agent.task = Some(task("TASK_STATE_COMPLETED", &["Hello, Ada!"]));
            if method == "SendStreamingMessage" {
                let done = [
                    stale,
                    chunk("Hello, Ada!", false, true),
                    status("TASK_STATE_COMPLETED"),
                ];
                sse(id, &done)
            } else {
                answer(id, stale)
            }
        }
    }
}

/// A scripted agent on a loopback port; `streaming` is what its card says.
async fn scripted_agent(script: Script, streaming: bool) -> (String, Shared) {
    let shared = Shared::default();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let origin = format!("http://{}", listener.local_addr().unwrap());
    let card = support::jsonrpc_card(&origin, "Scripted", streaming);
    let router = axum::Router::new()
        .route("/card.json", get(move || async move { Json(card.clone()) }))
        .route(
            "/a2a",
            post(
                move |State(agent): State<Shared>, Json(body): Json<Value>| async move {
                    call(script, &agent, body).await
                },
            ),
        )
        .with_state(shared.clone());
    tokio::spawn(async move { axum::serve(listener, router).await.unwrap() });
    (origin, shared)
}

/// An application with running workers that poll every 200 ms instead of 15 s.
async fn app_on(test_db: &support::TestDb) -> (AppState, Workers) {
    let mut config = test_db.config.clone();
    config.outbound.allow_private_networks = true;
    let state = AppState::new(support::leptos_options(), config, test_db.migrated().await).unwrap();
    let mut deps = state.worker_deps();
    deps.tuning.get_task_interval = Duration::from_millis(200);
    (state, Workers::with(deps))
}

/// The local task's state and the text of its `story`/`Hello` artifacts, once it is `want`.
async fn reaches(state: &AppState, org: &str, task: &str, want: &str) -> (String, String) {
    let read = || async {
        let view = task_store::view(&state.db.read, &Access::everything(org), task)
            .await
            .unwrap();
        let text: String = view
            .artifacts
            .iter()
            .flat_map(|a| a.parts.iter())
            .filter_map(|p| match &p.content {
                PartContent::Text(text) => Some(text.clone()),
                _ => None,
            })
            .collect();
        (view.state.to_string(), text)
    };
    eventually(Duration::from_secs(20), || async { read().await.0 == want }).await;
    read().await
}

/// Sends `text` (a reply when `task` is the remote task id) and returns the local task id.
async fn say(
    state: &AppState,
    org: &str,
    agent: &server::db::entity::agent::Model,
    text: &str,
    task: Option<&str>,
) -> String {
    let body = CommandBody {
        text: Some(text.into()),
        task_id: task.map(str::to_owned),
        context_id: task.map(|_| "ctx-1".to_owned()),
        ..CommandBody::default()
    };
    let id = send(state, org, agent, body).await.id;
    let settled = eventually(Duration::from_secs(20), || async {
        let command = server::services::commands::find(&state.db, &Access::everything(org), &id)
            .await
            .unwrap();
        command.status == "succeeded"
    })
    .await;
    assert!(settled, "the send {text:?} succeeded");
    server::services::commands::find(&state.db, &Access::everything(org), &id)
        .await
        .unwrap()
        .task_id
        .unwrap()
}

/// Issue #27 defect 1: after a reply, following goes on past the agent's stale first answer.
async fn a_reply_is_followed_past_its_stale_answer(streaming: bool) {
    for test_db in support::backends().await {
        let name = test_db.name;
        let (origin, agent_calls) = scripted_agent(Script::Ask, streaming).await;
        let (state, workers) = app_on(&test_db).await;
        let (org, agent) = register(&state, &format!("{origin}/card.json")).await;
        let local = say(&state, &org, &agent, "hi", None).await;
        let (asked, _) = reaches(&state, &org, &local, "TASK_STATE_INPUT_REQUIRED").await;
        assert_eq!(asked, "TASK_STATE_INPUT_REQUIRED", "{name}");
        say(&state, &org, &agent, "Ada", Some(TASK)).await;
        let (done, text) = reaches(&state, &org, &local, "TASK_STATE_COMPLETED").await;
        assert_eq!(
            (done.as_str(), text.as_str()),
            ("TASK_STATE_COMPLETED", "Hello, Ada!"),
            "{name}: streaming {streaming}: {:?}",
            agent_calls.lock().unwrap().methods
        );
        workers.stop().await;
        test_db.cleanup().await;
    }
}

#[tokio::test]
async fn a_reply_stream_that_opens_with_the_stale_snapshot_is_followed_to_completion_issue_27() {
    a_reply_is_followed_past_its_stale_answer(true).await;
}

#[tokio::test]
async fn a_stale_send_message_answer_to_a_reply_is_followed_by_polling_issue_27() {
    a_reply_is_followed_past_its_stale_answer(false).await;
}

#[tokio::test]
async fn a_waiting_task_is_polled_until_the_agent_finishes_it_by_itself_security_3_6() {
    for test_db in support::backends().await {
        let name = test_db.name;
        let (origin, _calls) = scripted_agent(Script::FinishesAlone, false).await;
        let (state, workers) = app_on(&test_db).await;
        let (org, agent) = register(&state, &format!("{origin}/card.json")).await;
        let local = say(&state, &org, &agent, "hi", None).await;
        let (done, text) = reaches(&state, &org, &local, "TASK_STATE_COMPLETED").await;
        assert_eq!(
            (done.as_str(), text.as_str()),
            ("TASK_STATE_COMPLETED", "done by itself"),
            "{name}"
        );
        workers.stop().await;
        test_db.cleanup().await;
    }
}

#[tokio::test]
async fn events_emitted_between_two_streams_are_reconciled_issue_27() {
    follows_across_a_gap(Finish::Exact, "part-1 part-2 part-3 part-4 part-5 ").await;
}

#[tokio::test]
async fn a_final_snapshot_that_disagrees_with_the_streams_does_not_rewrite_them_a2a_sdk_0_3_26() {
    follows_across_a_gap(Finish::Doubled, "part-1 part-2 part-3 part-4 part-5 ").await;
}

#[tokio::test]
async fn a_final_snapshot_adds_the_tail_the_streams_missed_issue_27() {
    follows_across_a_gap(Finish::Longer, "part-1 part-2 part-3 part-4 part-5 part-6 ").await;
}

#[tokio::test]
async fn a_final_snapshot_that_lags_the_stream_is_read_again_until_it_says_finished() {
    follows_across_a_gap(Finish::Lagging, "part-1 part-2 part-3 part-4 part-5 part-6 ").await;
}

async fn follows_across_a_gap(finish: Finish, want: &str) {
    for test_db in support::backends().await {
        let name = test_db.name;
        let (origin, calls) = scripted_agent(Script::Gap { finish }, true).await;
        let (state, workers) = app_on(&test_db).await;
        let (org, agent) = register(&state, &format!("{origin}/card.json")).await;
        let local = say(&state, &org, &agent, "story", None).await;
        reaches(&state, &org, &local, "TASK_STATE_COMPLETED").await;
        // The stream's last event finishes the task before the final snapshot is read and
        // stored: read the task once following has stopped, after that snapshot.
        assert!(
            crate::ledger::following_stopped(&state.db, &local, Duration::from_secs(20)).await,
            "{name}: following stopped"
        );
        let (done, text) = reaches(&state, &org, &local, "TASK_STATE_COMPLETED").await;
        let methods = calls.lock().unwrap().methods.clone();
        assert_eq!(
            (done.as_str(), text.as_str()),
            ("TASK_STATE_COMPLETED", want),
            "{name}: {methods:?}"
        );
        // One read before the resubscription, one after it finished the task.
        let reads = methods.iter().filter(|m| *m == "GetTask").count();
        assert!(reads >= 2, "{name}: {methods:?}");
        workers.stop().await;
        test_db.cleanup().await;
    }
}

/// `POST /api/agents/{id}/stream` for a reply to a waiting task ends only once the task left
/// that state: not at the agent's stale first answer (issue #27, http-api.md "end").
#[tokio::test]
async fn the_stream_route_of_a_reply_ends_after_the_task_moved_on_not_at_its_stale_answer() {
    let test_db = support::sqlite();
    let (origin, _calls) = scripted_agent(Script::Ask, false).await;
    let (state, workers) = app_on(&test_db).await;
    let (org, agent) = register(&state, &format!("{origin}/card.json")).await;
    let local = say(&state, &org, &agent, "hi", None).await;
    reaches(&state, &org, &local, "TASK_STATE_INPUT_REQUIRED").await;
    let reply = crate::client::post(
        &state,
        &format!("/api/agents/{}/stream", agent.id),
        json!({"text": "Ada", "taskId": TASK, "contextId": "ctx-1"}),
        &[("idempotency-key", "reply-1")],
    )
    .await;
    assert_eq!(reply.status, axum::http::StatusCode::OK, "{}", reply.body);
    let frames = reply.frames();
    let names: Vec<&str> = frames.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names.last(), Some(&"end"), "{names:?}");
    let last_snapshot = frames.iter().rev().find(|(n, _)| n == "snapshot").map(|(_, d)| d);
    assert_eq!(
        last_snapshot.map(|s| s["state"].clone()),
        Some(json!("TASK_STATE_COMPLETED")),
        "{names:?}"
    );
    workers.stop().await;
}

/// A reply answered with a new question (same state, a newer status) ends the stream of the
/// reply at once, not after the stream's 50 s lifetime.
#[tokio::test]
async fn the_stream_route_of_a_reply_ends_at_a_new_question() {
    let test_db = support::sqlite();
    let (origin, _calls) = scripted_agent(Script::AsksAgain, false).await;
    let (state, workers) = app_on(&test_db).await;
    let (org, agent) = register(&state, &format!("{origin}/card.json")).await;
    let local = say(&state, &org, &agent, "hi", None).await;
    reaches(&state, &org, &local, "TASK_STATE_INPUT_REQUIRED").await;
    let started = std::time::Instant::now();
    let reply = crate::client::post(
        &state,
        &format!("/api/agents/{}/stream", agent.id),
        json!({"text": "Ada", "taskId": TASK, "contextId": "ctx-1"}),
        &[("idempotency-key", "reply-again")],
    )
    .await;
    assert!(
        started.elapsed() < Duration::from_secs(20),
        "{:?}",
        started.elapsed()
    );
    let frames = reply.frames();
    let names: Vec<&str> = frames.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names.last(), Some(&"end"), "{names:?}");
    let last = frames
        .iter()
        .rev()
        .find(|(n, _)| n == "snapshot")
        .map(|(_, d)| d.clone());
    assert_eq!(
        last.map(|s| (s["state"].clone(), s["stateTimestamp"].clone())),
        Some((json!("TASK_STATE_INPUT_REQUIRED"), json!("2026-12-03T10:00:01Z"))),
        "{names:?}"
    );
    workers.stop().await;
}
