//! A streaming agent's send stream is kept (`shared/spec/security-and-durability.md` §3.4–§3.6):
//! the dispatch worker sends with `SendStreamingMessage`, stores the first event as the send's
//! answer and follows the rest of the same stream under the task's subscription lease, so no
//! event is lost between the answer and a later `SubscribeToTask`. Agents that do not stream
//! still get `SendMessage`. Real workers, the real demo agent (or a recording agent) over HTTP,
//! SQLite always and PostgreSQL when `A2A_TEST_POSTGRES_URL` is set.

use server::store::access::Access;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Json;
use axum::extract::State;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use sea_orm::{ColumnTrait, EntityTrait, QueryFilter};
use serde_json::{Value, json};
use server::AppState;
use server::db::entity::{task_command, task_subscription};
use server::services::commands::CommandBody;
use server::store::tasks as task_store;
use server::workers::dispatch::UNCERTAIN;

use crate::ledger::eventually;
use crate::support::{self, Workers};
use crate::workers::register;

/// The application over `test_db`, allowed to call agents on loopback.
async fn app_on(test_db: &support::TestDb) -> AppState {
    let db = test_db.migrated().await;
    let mut config = test_db.config.clone();
    config.outbound.allow_private_networks = true;
    AppState::new(support::leptos_options(), config, db).unwrap()
}

/// Accepts a text command for `agent`; returns its id.
async fn send(state: &AppState, org: &str, agent: &server::db::entity::agent::Model, text: &str) -> String {
    let body = CommandBody {
        text: Some(text.into()),
        ..CommandBody::default()
    };
    crate::workers::send(state, org, agent, body).await.id
}

async fn settled(state: &AppState, id: &str) -> task_command::Model {
    let read = || async {
        task_command::Entity::find_by_id(id.to_owned())
            .one(&state.db.write)
            .await
            .unwrap()
            .unwrap()
    };
    let done = eventually(Duration::from_secs(20), || async {
        !matches!(read().await.status.as_str(), "pending" | "dispatching")
    })
    .await;
    assert!(done, "command {id} did not settle");
    read().await
}

async fn subscription(state: &AppState, task_id: &str) -> Option<task_subscription::Model> {
    task_subscription::Entity::find()
        .filter(task_subscription::Column::TaskId.eq(task_id))
        .one(&state.db.write)
        .await
        .unwrap()
}

#[tokio::test]
async fn dispatch_keeps_the_send_stream_so_no_event_is_lost() {
    // Fewer events than the demo agent buffers per follower (1024), so a slow reader is never
    // resynchronised with a snapshot; fast enough that events fall between send and subscribe.
    const COUNT: u64 = 300;
    let origin = support::demo().await;
    for test_db in support::backends().await {
        let name = test_db.name;
        let state = app_on(&test_db).await;
        let (org, agent) = register(&state, &format!("{origin}/flood/card.json")).await;
        let workers = Workers::start(&state);
        let command = send(&state, &org, &agent, &format!("rate=500 count={COUNT}")).await;
        let done = settled(&state, &command).await;
        assert_eq!(done.status, "succeeded", "{name}: {:?}", done.last_error);
        let task_id = done.task_id.unwrap();
        assert!(
            eventually(Duration::from_secs(30), || async {
                task_store::view(&state.db.read, &Access::everything(org.as_str()), &task_id)
                    .await
                    .unwrap()
                    .state
                    == "TASK_STATE_COMPLETED"
            })
            .await,
            "{name}: the flood completes"
        );
        // Following ends at the terminal state: the row is released as `stopped`.
        assert!(
            eventually(Duration::from_secs(10), || async {
                subscription(&state, &task_id)
                    .await
                    .is_some_and(|s| s.status == "stopped" && s.lease_owner.is_none())
            })
            .await,
            "{name}: the subscription ends stopped: {:?}",
            subscription(&state, &task_id).await
        );
        workers.stop().await;

        let ledger = task_store::ledger(&state.db.read, &task_id).await.unwrap();
        let mut seqs: Vec<u64> = ledger
            .iter()
            .filter_map(|e| e.payload_json.pointer("/statusUpdate/metadata/seq")?.as_u64())
            .collect();
        seqs.sort_unstable();
        assert_eq!(
            seqs,
            (1..=COUNT).collect::<Vec<_>>(),
            "{name}: every flood event is stored exactly once"
        );
        let sources = |source: &str| ledger.iter().filter(|e| e.source == source).count();
        assert_eq!(sources("command"), 1, "{name}: the user's message");
        assert_eq!(
            sources("command_response"),
            1,
            "{name}: the stream's first event is the send's answer"
        );
        // The rest of that one stream: WORKING, the flood, COMPLETED; no resubscription snapshot.
        assert_eq!(
            sources("stream"),
            COUNT as usize + 2,
            "{name}: the send stream was followed to its end, nothing twice"
        );
        assert_eq!(ledger.len(), COUNT as usize + 4, "{name}: nothing else");
        test_db.cleanup().await;
    }
}

/// What the recording agent received: the JSON-RPC method of each call.
type Methods = Arc<Mutex<Vec<String>>>;

/// How the recording agent answers `SendStreamingMessage`.
#[derive(Clone, Copy)]
enum StreamReply {
    /// One event (the completed task), then the stream closes.
    Completed,
    /// The stream opens and closes with no event.
    Empty,
    /// A working task, then `count` status updates (numbered in `metadata.seq`) and the
    /// completed status, all at once, each event in an HTTP chunk of its own as agents write
    /// them; with `malformed`, an event that is not A2A sits in the middle.
    Burst { count: u64, malformed: bool },
}

/// The events of a [`StreamReply::Burst`], one SSE frame each.
fn burst(id: &Value, count: u64, malformed: bool) -> Vec<String> {
    let task_id = uuid::Uuid::new_v4().to_string();
    let frame = |result: Value| {
        format!(
            "data: {}\n\n",
            json!({"jsonrpc": "2.0", "id": id, "result": result})
        )
    };
    let status = |state: &str, seq: u64| {
        json!({"statusUpdate": {"taskId": task_id, "contextId": "ctx-1",
            "status": {"state": state, "message": {"messageId": format!("m{seq}"), "role": "ROLE_AGENT",
                "parts": [{"text": format!("step {seq}")}]}},
            "metadata": {"seq": seq}}})
    };
    let mut frames = vec![frame(
        json!({"task": {"id": task_id, "contextId": "ctx-1", "status": {"state": "TASK_STATE_WORKING"}}}),
    )];
    for seq in 1..=count {
        frames.push(frame(status("TASK_STATE_WORKING", seq)));
        if malformed && seq == count / 2 {
            frames.push(frame(
                json!({"statusUpdate": {"taskId": task_id, "status": "not a status"}}),
            ));
        }
    }
    frames.push(frame(status("TASK_STATE_COMPLETED", count + 1)));
    frames
}

/// An A2A 1.0 JSON-RPC agent that records each method and completes every task at once;
/// `streaming` is what its card advertises.
async fn recording_agent(streaming: bool, reply: StreamReply) -> (String, Methods) {
    let methods: Methods = Arc::default();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let origin = format!("http://{}", listener.local_addr().unwrap());
    let card = support::jsonrpc_card(&origin, "Recorder", streaming);
    let router = axum::Router::new()
        .route("/card.json", get(move || async move { Json(card.clone()) }))
        .route(
            "/a2a",
            post(
                move |State(methods): State<Methods>, Json(body): Json<Value>| async move {
                    let method = body["method"].as_str().unwrap_or_default().to_owned();
                    methods.lock().unwrap().push(method.clone());
                    let task = json!({"task": {
                        "id": uuid::Uuid::new_v4().to_string(), "contextId": "ctx-1",
                        "status": {"state": "TASK_STATE_COMPLETED"},
                    }});
                    let answer = json!({"jsonrpc": "2.0", "id": body["id"], "result": task});
                    if method != "SendStreamingMessage" {
                        return Json(answer).into_response();
                    }
                    let frames = match reply {
                        StreamReply::Completed => vec![format!("data: {answer}\n\n")],
                        StreamReply::Empty => Vec::new(),
                        StreamReply::Burst { count, malformed } => burst(&body["id"], count, malformed),
                    };
                    sse(frames)
                },
            ),
        )
        .with_state(methods.clone());
    tokio::spawn(async move { axum::serve(listener, router).await.unwrap() });
    (origin, methods)
}

/// An SSE response writing each frame as an HTTP chunk of its own.
fn sse(frames: Vec<String>) -> Response {
    let chunks = futures::stream::iter(frames.into_iter().map(Ok::<_, std::convert::Infallible>));
    (
        [(axum::http::header::CONTENT_TYPE, "text/event-stream")],
        axum::body::Body::from_stream(chunks),
    )
        .into_response()
}

/// One command sent to a fresh recording agent with running workers, settled.
struct Recorded {
    state: AppState,
    org: String,
    done: task_command::Model,
    methods: Methods,
    workers: Workers,
    _db: support::TestDb,
}

async fn send_to_recorder(streaming: bool, reply: StreamReply, text: &str) -> Recorded {
    let (origin, methods) = recording_agent(streaming, reply).await;
    let test_db = support::sqlite();
    let state = app_on(&test_db).await;
    let (org, agent) = register(&state, &format!("{origin}/card.json")).await;
    let workers = Workers::start(&state);
    let done = settled(&state, &send(&state, &org, &agent, text).await).await;
    Recorded {
        state,
        org,
        done,
        methods,
        workers,
        _db: test_db,
    }
}

#[tokio::test]
async fn an_agent_that_does_not_stream_is_still_sent_send_message() {
    let r = send_to_recorder(false, StreamReply::Completed, "hello").await;
    assert_eq!(r.done.status, "succeeded", "{:?}", r.done.last_error);
    assert_eq!(*r.methods.lock().unwrap(), ["SendMessage"]);
    r.workers.stop().await;
}

#[tokio::test]
async fn a_streaming_agent_is_sent_send_streaming_message_and_a_finished_answer_is_not_followed() {
    let r = send_to_recorder(true, StreamReply::Completed, "hello").await;
    assert_eq!(r.done.status, "succeeded", "{:?}", r.done.last_error);
    let task_id = r.done.task_id.unwrap();
    assert_eq!(
        task_store::view(&r.state.db.read, &Access::everything(r.org.as_str()), &task_id)
            .await
            .unwrap()
            .state,
        "TASK_STATE_COMPLETED"
    );
    // The user's message armed a subscription before the answer finished the task; the
    // worker settles it without opening anything.
    assert!(
        eventually(Duration::from_secs(10), || async {
            subscription(&r.state, &task_id)
                .await
                .is_some_and(|s| s.status == "stopped")
        })
        .await
    );
    assert_eq!(
        *r.methods.lock().unwrap(),
        ["SendStreamingMessage"],
        "a finished task is never followed"
    );
    let ledger = task_store::ledger(&r.state.db.read, &task_id).await.unwrap();
    let sources: Vec<&str> = ledger.iter().map(|e| e.source.as_str()).collect();
    assert_eq!(sources, ["command", "command_response"]);
    r.workers.stop().await;
}

#[tokio::test]
async fn a_send_stream_that_ends_before_its_first_event_is_uncertain_and_never_resent() {
    let r = send_to_recorder(true, StreamReply::Empty, "hello?").await;
    assert_eq!(r.done.status, "uncertain");
    assert_eq!(r.done.last_error.as_deref(), Some(UNCERTAIN));
    assert_eq!(r.done.task_id, None);
    tokio::time::sleep(Duration::from_secs(1)).await;
    assert_eq!(
        *r.methods.lock().unwrap(),
        ["SendStreamingMessage"],
        "an uncertain command is never resent"
    );
    r.workers.stop().await;
}

/// What `/metrics` says of one ingest counter.
async fn counter(state: &AppState, name: &str) -> u64 {
    let body = support::text(support::get(state, "/metrics").await).await;
    body.lines()
        .find_map(|line| line.strip_prefix(name)?.strip_prefix(' ')?.parse().ok())
        .unwrap_or_else(|| panic!("{name} missing from /metrics: {body}"))
}

/// Events that arrive together are stored together (group commit, issue #6), in order, each
/// once; a malformed one among them is skipped and the rest are kept, as when stored alone.
/// Each event comes in an HTTP chunk of its own, as agents write them: the stream must be read
/// ahead for a group to form (ADR 0030; without it no group ever formed).
#[tokio::test]
async fn a_burst_of_stream_events_is_stored_in_groups_in_order_and_a_bad_event_only_skips_itself() {
    const COUNT: u64 = 200;
    for malformed in [false, true] {
        let r = send_to_recorder(
            true,
            StreamReply::Burst {
                count: COUNT,
                malformed,
            },
            "burst",
        )
        .await;
        assert_eq!(r.done.status, "succeeded", "{:?}", r.done.last_error);
        let task_id = r.done.task_id.clone().unwrap();
        assert!(
            eventually(Duration::from_secs(20), || async {
                task_store::view(&r.state.db.read, &Access::everything(r.org.as_str()), &task_id)
                    .await
                    .unwrap()
                    .state
                    == "TASK_STATE_COMPLETED"
            })
            .await,
            "the burst is stored to its end (malformed: {malformed})"
        );
        r.workers.stop().await;
        let ledger = task_store::ledger(&r.state.db.read, &task_id).await.unwrap();
        let seqs: Vec<u64> = ledger
            .iter()
            .filter_map(|e| e.payload_json.pointer("/statusUpdate/metadata/seq")?.as_u64())
            .collect();
        assert_eq!(
            seqs,
            (1..=COUNT + 1).collect::<Vec<_>>(),
            "every event once, in the order sent (malformed: {malformed})"
        );
        assert_eq!(
            ledger.len() as u64,
            COUNT + 3,
            "plus the message and the answer; nothing else"
        );
        // More than the default view holds (issue #26): read them all with a larger limit.
        let view = task_store::view_limited(
            &r.state.db.read,
            &Access::everything(r.org.as_str()),
            &task_id,
            COUNT + 2,
        )
        .await
        .unwrap();
        assert_eq!(view.omitted.messages, 0);
        assert_eq!(
            view.messages.len() as u64,
            COUNT + 2,
            "the user's and one per status"
        );
        assert_eq!(
            counter(&r.state, "taskbay_ingest_events_total").await,
            ledger.len() as u64
        );
        let grouped = counter(&r.state, "taskbay_ingest_grouped_events_total").await;
        let groups = counter(&r.state, "taskbay_ingest_group_commits_total").await;
        if malformed {
            // The group holding the bad event was stored one event at a time instead.
            assert!(grouped < COUNT, "{grouped} grouped");
        } else {
            assert!(
                grouped > COUNT / 2,
                "most of a burst is stored in groups: {grouped}"
            );
        }
        assert!(
            groups > 0 && groups * 2 <= grouped,
            "{groups} groups of {grouped} events"
        );
    }
}
