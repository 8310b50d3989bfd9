//! The live SSE routes: committed ledger events with `id:` = sequence, resumable with
//! `Last-Event-ID`, and the app-wide freshness signal (`shared/spec/reference.md` §4.6).

use server::store::access::Access;
use std::time::Duration;

use axum::body::Body;
use axum::http::Request;
use futures::StreamExt;
use serde_json::{Value, json};
use server::AppState;
use server::ingest::{Observation, Source};
use server::store::organizations;

use crate::support;

/// Reads SSE frames from a response body until `count` frames of the named events arrived.
pub(crate) async fn frames(
    response: axum::http::Response<Body>,
    names: &[&str],
    count: usize,
) -> Vec<(Option<String>, String, Value)> {
    let mut stream = response.into_body().into_data_stream();
    let mut buffer = String::new();
    let mut out = Vec::new();
    while out.len() < count {
        let chunk = tokio::time::timeout(Duration::from_secs(10), stream.next())
            .await
            .expect("a frame within 10 s")
            .expect("the stream stays open")
            .unwrap();
        buffer.push_str(std::str::from_utf8(&chunk).unwrap());
        while let Some(end) = buffer.find("\n\n") {
            let frame: String = buffer.drain(..end + 2).collect();
            let (mut id, mut event, mut data) = (None, String::new(), String::new());
            for line in frame.lines() {
                if let Some(v) = line.strip_prefix("id: ").or_else(|| line.strip_prefix("id:")) {
                    id = Some(v.trim().to_owned());
                } else if let Some(v) = line
                    .strip_prefix("event: ")
                    .or_else(|| line.strip_prefix("event:"))
                {
                    event = v.trim().to_owned();
                } else if let Some(v) = line.strip_prefix("data: ").or_else(|| line.strip_prefix("data:")) {
                    data.push_str(v);
                }
            }
            if names.contains(&event.as_str()) {
                out.push((id, event, serde_json::from_str(&data).unwrap_or(Value::Null)));
            }
        }
    }
    out
}

pub(crate) async fn seed(state: &AppState, n: u32) -> (String, String) {
    let org = organizations::local(&state.db).await.unwrap();
    let agent = server::store::agents::register(
        &state.db,
        &org.id,
        "http://127.0.0.1:9/c.json",
        server::store::agents::AgentSource::Managed,
    )
    .await
    .unwrap();
    let mut task_id = None;
    for i in 0..n {
        let payload = if i == 0 {
            json!({"task": {"id": "r1", "contextId": "c1", "status": {"state": "TASK_STATE_WORKING"}}})
        } else {
            json!({"artifactUpdate": {"taskId": "r1", "artifact": {"artifactId": "a", "parts": [{"text": format!("{i} ")}]}, "append": i > 1}})
        };
        let done = state
            .ingestor
            .ingest(&Observation {
                organization_id: org.id.clone(),
                agent_id: agent.id.clone(),
                tenant: String::new(),
                conversation_id: "00000000-0000-4000-8000-0000000000c1".into(),
                local_task_id: task_id.clone(),
                source: Source::Stream,
                source_key: Some(format!("k{i}")),
                payload,
                extensions: vec![],
                protocol_version: Some("1.0".into()),
                skill_id: None,
                fence: None,
                rearm: false,
            })
            .await
            .unwrap();
        task_id = Some(done.task_id);
    }
    (task_id.unwrap(), "00000000-0000-4000-8000-0000000000c1".into())
}

#[tokio::test]
async fn the_task_stream_sends_committed_events_and_resumes_after_last_event_id() {
    let (state, _db) = support::app().await;
    let (task_id, conversation_id) = seed(&state, 4).await;
    let response = support::get(&state, &format!("/api/live/tasks/{task_id}")).await;
    assert_eq!(response.status(), 200);
    assert_eq!(response.headers()["content-type"], "text/event-stream");
    assert_eq!(response.headers()["cache-control"], "no-store, no-transform");
    let got = frames(response, &["ledger"], 4).await;
    let ids: Vec<i64> = got
        .iter()
        .map(|(id, _, _)| id.as_deref().unwrap().parse().unwrap())
        .collect();
    assert!(ids.windows(2).all(|w| w[0] < w[1]));
    assert_eq!(got[0].2["taskId"], task_id);
    assert_eq!(got[0].2["conversationId"], conversation_id);
    assert_eq!(
        got[1].2["payload"]["artifactUpdate"]["artifact"]["parts"][0]["text"],
        "1 "
    );

    // Reconnect after the second event: only what follows comes again.
    let resumed = support::send(
        &state,
        Request::get(format!("/api/live/conversations/{conversation_id}"))
            .header("last-event-id", ids[1].to_string())
            .body(Body::empty())
            .unwrap(),
    )
    .await;
    let again = frames(resumed, &["ledger"], 2).await;
    let again_ids: Vec<i64> = again
        .iter()
        .map(|(id, _, _)| id.as_deref().unwrap().parse().unwrap())
        .collect();
    assert_eq!(again_ids, ids[2..].to_vec());
}

#[tokio::test]
async fn new_commits_reach_an_open_stream() {
    let (state, _db) = support::app().await;
    let (task_id, _) = seed(&state, 1).await;
    let response = support::get(&state, &format!("/api/live/tasks/{task_id}?after=0")).await;
    let reader = tokio::spawn(frames(response, &["ledger"], 2));
    tokio::time::sleep(Duration::from_millis(200)).await;
    let org = organizations::local(&state.db).await.unwrap();
    let task = server::store::tasks::find(&state.db.read, &Access::everything(org.id.as_str()), &task_id)
        .await
        .unwrap();
    state
        .ingestor
        .ingest(&Observation {
            organization_id: org.id,
            agent_id: task.agent_id,
            tenant: String::new(),
            conversation_id: task.conversation_id,
            local_task_id: Some(task_id),
            source: Source::Stream,
            source_key: Some("late".into()),
            payload: json!({"statusUpdate": {"taskId": "r1", "status": {"state": "TASK_STATE_COMPLETED"}}}),
            extensions: vec![],
            protocol_version: None,
            skill_id: None,
            fence: None,
            rearm: false,
        })
        .await
        .unwrap();
    let got = reader.await.unwrap();
    assert_eq!(
        got[1].2["payload"]["statusUpdate"]["status"]["state"],
        "TASK_STATE_COMPLETED"
    );
}

#[tokio::test]
async fn unknown_scopes_are_404() {
    let (state, _db) = support::app().await;
    assert_eq!(
        support::get(&state, "/api/live/tasks/not-a-uuid").await.status(),
        404
    );
    assert_eq!(
        support::get(&state, "/api/live/tasks/00000000-0000-4000-8000-000000000999")
            .await
            .status(),
        404
    );
    assert_eq!(
        support::get(&state, "/api/live/conversations/nope")
            .await
            .status(),
        404
    );
}

#[tokio::test]
async fn the_freshness_signal_says_ready_then_freshness_and_carries_no_data() {
    let (state, _db) = support::app().await;
    let response = support::get(&state, "/api/tasks/events").await;
    assert_eq!(response.status(), 200);
    let reader = tokio::spawn(frames(response, &["ready", "freshness"], 2));
    tokio::time::sleep(Duration::from_millis(200)).await;
    seed(&state, 1).await;
    let got = reader.await.unwrap();
    assert_eq!(got[0].1, "ready");
    assert_eq!(got[1].1, "freshness");
    assert_eq!(got[1].2, json!({}));
}

/// An open SSE response read frame by frame.
struct SseReader {
    stream: axum::body::BodyDataStream,
    buffer: String,
}

impl SseReader {
    fn new(response: axum::http::Response<Body>) -> SseReader {
        SseReader {
            stream: response.into_body().into_data_stream(),
            buffer: String::new(),
        }
    }

    /// The name of the next frame called one of `names`, waiting at most `limit` for it.
    async fn next(&mut self, names: &[&str], limit: Duration) -> String {
        let deadline = tokio::time::Instant::now() + limit;
        loop {
            while let Some(end) = self.buffer.find("\n\n") {
                let frame: String = self.buffer.drain(..end + 2).collect();
                let name = frame
                    .lines()
                    .find_map(|line| line.strip_prefix("event:"))
                    .map(|name| name.trim().to_owned());
                if let Some(name) = name.filter(|name| names.contains(&name.as_str())) {
                    return name;
                }
            }
            let chunk = tokio::time::timeout_at(deadline, self.stream.next())
                .await
                .unwrap_or_else(|_| panic!("no {names:?} frame within {limit:?}"))
                .expect("the stream stays open")
                .unwrap();
            self.buffer.push_str(std::str::from_utf8(&chunk).unwrap());
        }
    }
}

/// Issue #26: a request the sweep expires on its own reaches open pages like a reviewer's
/// decision does: the freshness signal (reference §4.6, §4.8 "Sweep").
#[tokio::test]
async fn the_sweep_expiring_a_request_signals_open_pages_reference_4_8() {
    use sea_orm::{ActiveValue::Set, EntityTrait};
    use server::db::entity::decision_request;

    let (state, _db) = support::app().await;
    let (task_id, _) = seed(&state, 1).await;
    let task = server::store::tasks::find(
        &state.db.read,
        &Access::everything(organizations::local(&state.db).await.unwrap().id.as_str()),
        &task_id,
    )
    .await
    .unwrap();
    let mut open = SseReader::new(support::get(&state, "/api/tasks/events").await);
    assert_eq!(open.next(&["ready"], Duration::from_secs(10)).await, "ready");
    let stop = tokio_util::sync::CancellationToken::new();
    let sweep = tokio::spawn(server::workers::approvals::run(
        state.worker_deps(),
        Duration::from_millis(50),
        stop.clone(),
    ));
    // Opened without any notice, already overdue: only the sweep can tell anyone.
    let now = chrono::Utc::now();
    let id = server::store::new_id();
    decision_request::Entity::insert(decision_request::ActiveModel {
        id: Set(id.clone()),
        organization_id: Set(task.organization_id.clone()),
        task_id: Set(task.id.clone()),
        agent_id: Set(task.agent_id.clone()),
        tenant: Set(String::new()),
        skill_id: Set(None),
        request_key: Set(format!("agent:{task_id}:m:d")),
        source_message_id: Set(Some("m".into())),
        kind: Set(app::ext::approval::ActionKind::SendMessage),
        status: Set(server::store::approvals::RequestStatus::Pending),
        title: Set("Deploy".into()),
        summary: Set(String::new()),
        risk: Set("low".into()),
        policy_json: Set(json!({})),
        requester_user_id: Set(None),
        assigned_membership_id: Set(None),
        current_revision: Set(1),
        expires_at: Set(now - chrono::Duration::seconds(1)),
        created_at: Set(now),
        updated_at: Set(now),
    })
    .exec_without_returning(&state.db.write)
    .await
    .unwrap();
    assert_eq!(
        open.next(&["freshness"], Duration::from_secs(10)).await,
        "freshness"
    );
    let row = decision_request::Entity::find_by_id(id)
        .one(&state.db.read)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(row.status, "expired", "the signal follows the commit");
    stop.cancel();
    sweep.await.unwrap();
}
