//! Live fan-out (issue #33, ADR 0034): every connection following a scope is served by one
//! reader, which reads each commit once; a connection that falls behind that reader reads the
//! gap from the database and still gets every event once, in order. On both databases.

use server::store::access::Access;
use std::time::{Duration, Instant};

use axum::body::BodyDataStream;
use serde_json::{Value, json};
use server::AppState;
use server::http::live::REREAD;
use server::http::live::fanout::{FEED_CAPACITY, RECENT};
use server::ingest::Observation;
use server::store::organizations;

use crate::live::seed;
use crate::live_cap::{next_ledger, status_update};
use crate::support::{self, TestDb};

const WAIT: Duration = Duration::from_secs(10);

async fn app(backend: &TestDb) -> AppState {
    let db = backend.migrated().await;
    AppState::new(support::leptos_options(), backend.config.clone(), db).unwrap()
}

/// The value of an unlabelled series on `/metrics`.
async fn metric(state: &AppState, name: &str) -> u64 {
    let body = support::text(support::get(state, "/metrics").await).await;
    body.lines()
        .find_map(|line| line.strip_prefix(name)?.strip_prefix(' ')?.parse().ok())
        .unwrap_or_else(|| panic!("{name} on /metrics:\n{body}"))
}

/// `count` status updates of the task, each with a message saying `<prefix>-<n>`.
async fn updates(state: &AppState, task_id: &str, prefix: &str, count: usize) -> Vec<Observation> {
    let org = organizations::local(&state.db).await.unwrap().id;
    let task = server::store::tasks::find(&state.db.read, &Access::everything(org.as_str()), task_id)
        .await
        .unwrap();
    (0..count)
        .map(|n| {
            let text = format!("{prefix}-{n}");
            let mut observation = status_update("TASK_STATE_WORKING", &org, &task, &text);
            observation.payload["statusUpdate"]["status"]["message"] =
                json!({"role": "ROLE_AGENT", "messageId": text, "parts": [{"text": text}]});
            observation
        })
        .collect()
}

/// What [`updates`] wrote into the event.
fn said(event: &Value) -> String {
    event["payload"]["statusUpdate"]["status"]["message"]["parts"][0]["text"]
        .as_str()
        .unwrap_or_default()
        .to_owned()
}

async fn follow(state: &AppState, task_id: &str, after: i64) -> (BodyDataStream, String) {
    let response = support::get(state, &format!("/api/live/tasks/{task_id}?after={after}")).await;
    assert_eq!(response.status(), 200);
    (response.into_body().into_data_stream(), String::new())
}

/// Waits until the metric satisfies `ready`.
async fn eventually(state: &AppState, name: &str, ready: impl Fn(u64) -> bool) {
    let deadline = Instant::now() + WAIT;
    while !ready(metric(state, name).await) {
        assert!(Instant::now() < deadline, "{name} within {WAIT:?}");
        tokio::task::yield_now().await;
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
}

#[tokio::test]
async fn every_connection_following_a_task_is_served_by_one_read_per_commit() {
    const FOLLOWERS: u64 = 20;
    const COMMITS: usize = 5;
    for backend in support::backends().await {
        let state = app(&backend).await;
        let (task_id, _) = seed(&state, 1).await;
        // The first connection starts the feed; every connection starts from the feed's copy of
        // the task's newest events, none reads the database itself.
        let mut streams = Vec::new();
        for _ in 0..FOLLOWERS {
            streams.push(follow(&state, &task_id, 0).await);
        }
        for (stream, buffer) in &mut streams {
            assert!(
                next_ledger(stream, buffer, WAIT).await.is_some(),
                "the seeded event"
            );
        }
        assert_eq!(metric(&state, "taskbay_live_feeds").await, 1, "{}", backend.name);
        assert_eq!(metric(&state, "taskbay_live_connections").await, FOLLOWERS);
        assert_eq!(metric(&state, "taskbay_live_catch_up_reads_total").await, 0);

        let reads_before = metric(&state, "taskbay_live_feed_reads_total").await;
        let started = Instant::now();
        for observation in updates(&state, &task_id, "late", COMMITS).await {
            state.ingestor.ingest(&observation).await.unwrap();
        }
        for (stream, buffer) in &mut streams {
            let mut keys = Vec::new();
            for _ in 0..COMMITS {
                let event = next_ledger(stream, buffer, WAIT)
                    .await
                    .expect("every commit reaches every connection");
                keys.push(said(&event));
            }
            assert_eq!(
                keys,
                (0..COMMITS).map(|n| format!("late-{n}")).collect::<Vec<_>>()
            );
        }
        // One read per commit at most, however many connections follow (PostgreSQL's feed also
        // re-reads once per REREAD for other replicas' commits).
        let rereads = if state.db.is_sqlite() {
            0
        } else {
            started.elapsed().as_millis() as u64 / REREAD.as_millis() as u64 + 1
        };
        let reads = metric(&state, "taskbay_live_feed_reads_total").await - reads_before;
        assert!(
            reads <= COMMITS as u64 + rereads,
            "{reads} reads on {}",
            backend.name
        );
        assert_eq!(metric(&state, "taskbay_live_catch_up_reads_total").await, 0);

        // The feed stops with its last connection.
        drop(streams);
        assert_eq!(metric(&state, "taskbay_live_connections").await, 0);
        assert_eq!(metric(&state, "taskbay_live_feeds").await, 0);
        drop(state);
        backend.cleanup().await;
    }
}

/// The next `count` ledger events' sequences and what they said.
async fn collect(stream: &mut BodyDataStream, buffer: &mut String, count: usize) -> (Vec<i64>, Vec<String>) {
    let (mut sequences, mut said_all) = (Vec::new(), Vec::new());
    while said_all.len() < count {
        let event = next_ledger(stream, buffer, WAIT)
            .await
            .unwrap_or_else(|| panic!("{} of {count} events", said_all.len()));
        sequences.push(event["sequence"].as_i64().unwrap());
        said_all.push(said(&event));
    }
    (sequences, said_all)
}

#[tokio::test]
async fn a_connection_that_falls_behind_the_feed_reads_the_gap_and_misses_nothing() {
    let total = FEED_CAPACITY + 300;
    let expected: Vec<String> = (0..total).map(|n| format!("burst-{n}")).collect();
    for backend in support::backends().await {
        let state = app(&backend).await;
        let (task_id, _) = seed(&state, 1).await;
        let (mut reading, mut reading_buffer) = follow(&state, &task_id, 0).await;
        let (mut stalled, mut stalled_buffer) = follow(&state, &task_id, 0).await;
        // Both catch up to the feed (the seeded event); then one reads as the events commit
        // and the other reads nothing meanwhile.
        next_ledger(&mut reading, &mut reading_buffer, WAIT)
            .await
            .unwrap();
        next_ledger(&mut stalled, &mut stalled_buffer, WAIT)
            .await
            .unwrap();
        let reader = tokio::spawn(async move {
            let got = collect(&mut reading, &mut reading_buffer, total).await;
            (got, reading, reading_buffer)
        });

        // More events than the feed keeps for a connection that is behind.
        let observations = updates(&state, &task_id, "burst", total).await;
        for group in observations.chunks(64) {
            state.ingestor.ingest_group(group).await.unwrap();
        }
        let ((sequences, got), mut reading, mut reading_buffer) = reader.await.unwrap();
        assert_eq!(got, expected, "the reading connection on {}", backend.name);
        assert!(sequences.windows(2).all(|w| w[0] < w[1]));

        let catch_ups_before = metric(&state, "taskbay_live_catch_up_reads_total").await;
        let (sequences, got) = collect(&mut stalled, &mut stalled_buffer, total).await;
        assert_eq!(got, expected, "the stalled connection on {}", backend.name);
        assert!(sequences.windows(2).all(|w| w[0] < w[1]), "in order, once each");
        // It fell behind the feed's channel and read the gap from the database itself.
        assert!(metric(&state, "taskbay_live_catch_up_reads_total").await > catch_ups_before);
        // Nothing is sent twice.
        for (stream, buffer) in [
            (&mut reading, &mut reading_buffer),
            (&mut stalled, &mut stalled_buffer),
        ] {
            assert!(
                next_ledger(stream, buffer, Duration::from_millis(300))
                    .await
                    .is_none()
            );
        }
        drop((reading, stalled));
        drop(state);
        backend.cleanup().await;
    }
}

#[tokio::test]
async fn a_connection_resuming_within_the_feeds_newest_frames_reads_nothing_and_one_further_back_reads_the_rest()
 {
    let older = RECENT + 20;
    for backend in support::backends().await {
        let state = app(&backend).await;
        let (task_id, _) = seed(&state, 1).await;
        for group in updates(&state, &task_id, "old", older).await.chunks(64) {
            state.ingestor.ingest_group(group).await.unwrap();
        }
        // From the start: more than the feed keeps, so the connection reads the database, in
        // pages, then follows the feed.
        let (mut first, mut first_buffer) = follow(&state, &task_id, 0).await;
        let (sequences, _) = collect(&mut first, &mut first_buffer, older + 1).await;
        assert!(sequences.windows(2).all(|w| w[0] < w[1]));
        eventually(&state, "taskbay_live_feed_reads_total", |reads| reads >= 1).await;
        let catch_ups = metric(&state, "taskbay_live_catch_up_reads_total").await;

        // Within the newest frames: from memory, exactly what follows.
        let recent_start = sequences[sequences.len() - 5];
        let (mut near, mut near_buffer) = follow(&state, &task_id, recent_start).await;
        let (near_got, said_near) = collect(&mut near, &mut near_buffer, 4).await;
        assert_eq!(
            near_got,
            sequences[sequences.len() - 4..].to_vec(),
            "{}",
            backend.name
        );
        assert_eq!(said_near.last().unwrap(), &format!("old-{}", older - 1));
        assert_eq!(
            metric(&state, "taskbay_live_catch_up_reads_total").await,
            catch_ups
        );

        // Further back than the feed keeps: from the database, then the feed's frames.
        let (mut far, mut far_buffer) = follow(&state, &task_id, sequences[10]).await;
        let (far_got, _) = collect(&mut far, &mut far_buffer, sequences.len() - 11).await;
        assert_eq!(far_got, sequences[11..].to_vec());
        assert!(metric(&state, "taskbay_live_catch_up_reads_total").await > catch_ups);

        // Then every connection gets the next commit once.
        let next = updates(&state, &task_id, "new", 1).await;
        state.ingestor.ingest(&next[0]).await.unwrap();
        for (stream, buffer) in [
            (&mut first, &mut first_buffer),
            (&mut near, &mut near_buffer),
            (&mut far, &mut far_buffer),
        ] {
            let (_, got) = collect(stream, buffer, 1).await;
            assert_eq!(got, ["new-0"]);
            assert!(
                next_ledger(stream, buffer, Duration::from_millis(200))
                    .await
                    .is_none()
            );
        }
        drop((first, near, far));
        drop(state);
        backend.cleanup().await;
    }
}

#[tokio::test]
async fn an_unknown_task_is_404_and_leaves_no_feed_or_connection_behind() {
    let (state, _db) = support::app().await;
    for path in [
        "/api/live/tasks/00000000-0000-4000-8000-000000000999",
        "/api/live/tasks/not-a-uuid",
    ] {
        let response = support::get(&state, path).await;
        assert_eq!(response.status(), 404, "{path}");
        let body: Value = serde_json::from_str(&support::text(response).await).unwrap();
        assert_eq!(body["error"]["message"], "Not found.", "{path}");
    }
    assert_eq!(metric(&state, "taskbay_live_feeds").await, 0);
    assert_eq!(metric(&state, "taskbay_live_connections").await, 0);
}

#[tokio::test]
async fn a_conversation_stream_announces_a_task_joining_it_then_sends_its_events() {
    for backend in support::backends().await {
        let state = app(&backend).await;
        let (task_id, conversation_id) = seed(&state, 1).await;
        let response = support::get(
            &state,
            &format!("/api/live/conversations/{conversation_id}?after=0"),
        )
        .await;
        let reader = tokio::spawn(crate::live::frames(response, &["ledger", "task"], 3));
        eventually(&state, "taskbay_live_feed_reads_total", |reads| reads >= 1).await;

        let org = organizations::local(&state.db).await.unwrap().id;
        let first = server::store::tasks::find(&state.db.read, &Access::everything(org.as_str()), &task_id)
            .await
            .unwrap();
        let joined = state
            .ingestor
            .ingest(&support::observation(
                &org,
                &first.agent_id,
                &conversation_id,
                json!({"task": {"id": "r2", "contextId": "c1", "status": {"state": "TASK_STATE_WORKING"}}}),
            ))
            .await
            .unwrap();
        let got = reader.await.unwrap();
        let names: Vec<&str> = got.iter().map(|(_, name, _)| name.as_str()).collect();
        assert_eq!(names, ["ledger", "task", "ledger"], "{}", backend.name);
        assert_eq!(got[1].2["taskId"], joined.task_id);
        assert_eq!(got[2].2["taskId"], joined.task_id);
        assert_eq!(got[2].2["conversationId"], conversation_id);
        drop(state);
        backend.cleanup().await;
    }
}

#[tokio::test]
async fn at_shutdown_a_live_stream_ends_and_its_feed_stops() {
    let (state, _db) = support::app().await;
    let (task_id, _) = seed(&state, 1).await;
    let (mut stream, mut buffer) = follow(&state, &task_id, 0).await;
    assert!(next_ledger(&mut stream, &mut buffer, WAIT).await.is_some());
    state.shutdown.cancel();
    let end = tokio::time::timeout(WAIT, async {
        while let Some(chunk) = futures::StreamExt::next(&mut stream).await {
            chunk.unwrap();
        }
    })
    .await;
    assert!(end.is_ok(), "the body ends at shutdown");
    drop(stream);
    assert_eq!(metric(&state, "taskbay_live_feeds").await, 0);
}
