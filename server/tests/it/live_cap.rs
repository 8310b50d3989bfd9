//! Issue #26 "Unbounded things": live SSE connections are capped per process
//! (`A2A_MAX_LIVE_CONNECTIONS`, `503` + `Retry-After` past it), and a live stream wakes on the
//! in-process bus instead of re-reading the database every second.

use server::store::access::Access;
use std::time::Duration;

use axum::body::{Body, BodyDataStream};
use axum::http::{Request, StatusCode};
use futures::StreamExt;
use serde_json::{Value, json};
use server::AppState;
use server::http::live::{LIVE_BUSY, SAFETY_NET_REREAD};
use server::ingest::archive::ArtifactStore;
use server::ingest::bus::Bus;
use server::ingest::{Ingestor, Observation, Source};
use server::store::organizations;

use crate::client::reply;
use crate::live::seed;
use crate::support;

async fn assert_busy(response: axum::response::Response) {
    let busy = reply(response).await;
    busy.assert_error(StatusCode::SERVICE_UNAVAILABLE, LIVE_BUSY);
    assert_eq!(busy.header("retry-after"), "5");
}

#[tokio::test]
async fn past_the_cap_a_live_route_answers_503_with_retry_after_until_a_connection_closes() {
    let (state, _db) = support::app_with(&[("A2A_MAX_LIVE_CONNECTIONS", "2")]).await;
    let (task_id, conversation_id) = seed(&state, 1).await;
    let first = support::get(&state, &format!("/api/live/tasks/{task_id}")).await;
    assert_eq!(first.status(), StatusCode::OK);
    let second = support::get(&state, "/api/tasks/events").await;
    assert_eq!(second.status(), StatusCode::OK);

    for uri in [
        format!("/api/live/tasks/{task_id}"),
        format!("/api/live/conversations/{conversation_id}"),
        "/api/tasks/events".to_owned(),
    ] {
        assert_busy(support::get(&state, &uri).await).await;
    }
    // The compatibility stream counts too, and past the cap submits nothing.
    let send = support::send(
        &state,
        Request::post("/api/agents/00000000-0000-4000-8000-000000000001/stream")
            .header("content-type", "application/json")
            .body(Body::from(
                json!({"message": {"parts": [{"text": "hi"}]}}).to_string(),
            ))
            .unwrap(),
    )
    .await;
    assert_busy(send).await;

    // Closing a connection frees its slot at once: the body owns the permit.
    drop(first);
    let third = support::get(&state, &format!("/api/live/conversations/{conversation_id}")).await;
    assert_eq!(third.status(), StatusCode::OK);
    assert_busy(support::get(&state, "/api/tasks/events").await).await;
    drop(second);
    drop(third);
    assert_eq!(
        support::get(&state, "/api/tasks/events").await.status(),
        StatusCode::OK
    );
}

/// The next `ledger` frame's data within `wait`, or `None`.
pub(crate) async fn next_ledger(
    stream: &mut BodyDataStream,
    buffer: &mut String,
    wait: Duration,
) -> Option<Value> {
    let deadline = tokio::time::Instant::now() + wait;
    loop {
        if let Some(end) = buffer.find("\n\n") {
            let frame: String = buffer.drain(..end + 2).collect();
            let is_ledger = frame
                .lines()
                .any(|l| l.strip_prefix("event:").map(str::trim) == Some("ledger"));
            if is_ledger {
                let data: String = frame
                    .lines()
                    .filter_map(|l| l.strip_prefix("data: ").or_else(|| l.strip_prefix("data:")))
                    .collect();
                return Some(serde_json::from_str(&data).unwrap());
            }
            continue;
        }
        let chunk = tokio::time::timeout_at(deadline, stream.next()).await.ok()?;
        buffer.push_str(std::str::from_utf8(&chunk.expect("stream open").unwrap()).unwrap());
    }
}

pub(crate) fn status_update(
    state: &str,
    org: &str,
    task: &server::db::entity::task::Model,
    key: &str,
) -> Observation {
    Observation {
        organization_id: org.to_owned(),
        agent_id: task.agent_id.clone(),
        tenant: String::new(),
        conversation_id: task.conversation_id.clone(),
        local_task_id: Some(task.id.clone()),
        source: Source::Stream,
        source_key: Some(key.into()),
        payload: json!({"statusUpdate": {"taskId": "r1", "status": {"state": state}}}),
        extensions: vec![],
        protocol_version: None,
        skill_id: None,
        fence: None,
        rearm: false,
    }
}

#[tokio::test]
async fn a_live_stream_wakes_on_the_bus_and_does_not_poll_the_database_every_second() {
    let (state, test_db): (AppState, _) = support::app().await;
    let (task_id, _) = seed(&state, 1).await;
    let org = organizations::local(&state.db).await.unwrap().id;
    let task = server::store::tasks::find(&state.db.read, &Access::everything(org.as_str()), &task_id)
        .await
        .unwrap();
    let response = support::get(&state, &format!("/api/live/tasks/{task_id}?after=0")).await;
    let mut stream = response.into_body().into_data_stream();
    let mut buffer = String::new();
    let first = next_ledger(&mut stream, &mut buffer, Duration::from_secs(10)).await;
    assert!(first.is_some(), "the seeded event");

    // A commit the bus does not announce (as another process's would be) is not picked up by a
    // one-second poll: the SQLite stream only re-reads as a slow safety net.
    let unannounced = Ingestor::new(
        state.db.clone(),
        ArtifactStore::new(test_db.config.artifact_dir.clone()),
        Bus::default(),
    );
    unannounced
        .ingest(&status_update("TASK_STATE_WORKING", &org, &task, "quiet"))
        .await
        .unwrap();
    assert!(SAFETY_NET_REREAD >= Duration::from_secs(10));
    let polled = next_ledger(&mut stream, &mut buffer, Duration::from_millis(2500)).await;
    assert!(polled.is_none(), "read without a wake-up: {polled:?}");

    // A commit through the ingestor wakes the stream at once, long before the safety net.
    let started = std::time::Instant::now();
    state
        .ingestor
        .ingest(&status_update("TASK_STATE_COMPLETED", &org, &task, "loud"))
        .await
        .unwrap();
    let woken = next_ledger(&mut stream, &mut buffer, Duration::from_secs(5)).await;
    let late = next_ledger(&mut stream, &mut buffer, Duration::from_secs(5)).await;
    assert!(
        started.elapsed() < SAFETY_NET_REREAD / 2,
        "{:?}",
        started.elapsed()
    );
    let states: Vec<Value> = [woken, late]
        .into_iter()
        .map(|frame| frame.expect("woken by the bus")["payload"]["statusUpdate"]["status"]["state"].clone())
        .collect();
    assert_eq!(
        states,
        [json!("TASK_STATE_WORKING"), json!("TASK_STATE_COMPLETED")]
    );
}
