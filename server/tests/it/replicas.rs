//! A team deployment as real processes on one PostgreSQL database
//! (`shared/spec/security-and-durability.md` §3.5, §3.9, §6.1): two web replicas with
//! `A2A_COMMAND_WORKER_MODE=external` and a separate `agent-taskbay worker`. A send accepted by
//! replica A is dispatched by the worker; replica B's live stream shows the task's events as
//! they commit (the notice relay over `LISTEN/NOTIFY`); the worker is killed with SIGKILL
//! mid-stream, a second worker takes the task over after its lease, and the task ends with
//! every chunk exactly once, in order. Skipped without `A2A_TEST_POSTGRES_URL`.

use std::time::{Duration, Instant};

use futures::StreamExt;
use server::ingest::bus::{Bus, Notice};

use crate::processes::{command, get_json, register, serve, start, task_of};
use crate::support;

#[tokio::test]
async fn two_replicas_and_a_worker_share_one_database_and_a_killed_worker_is_taken_over() {
    let Some(test_db) = support::postgres().await else {
        return;
    };
    test_db.migrated().await.close().await;
    let url = test_db.postgres_url();
    let demo = support::demo().await;
    let dir = tempfile::tempdir().unwrap();
    let env = |name: &str| {
        vec![
            ("A2A_DATABASE_URL", url.clone()),
            ("A2A_COMMAND_WORKER_MODE", "external".to_owned()),
            ("A2A_ALLOW_PRIVATE_NETWORKS", "true".to_owned()),
            ("A2A_DATA_DIR", dir.path().join(name).to_str().unwrap().to_owned()),
            (
                "A2A_ARTIFACT_DATA_DIR",
                dir.path().join("artifacts").to_str().unwrap().to_owned(),
            ),
        ]
    };
    let http = crate::credentials::http();
    let web_a = serve(&http, &env("a")).await;
    let web_b = serve(&http, &env("b")).await;
    let (a, b) = (web_a.base.clone(), web_b.base.clone());
    let mut worker = start(&["worker"], &env("w1"));

    // Registered and sent on A; nothing in A runs a worker.
    let agent = register(&http, &a, &format!("{demo}/slow/card.json")).await;
    // B's app-wide freshness stream, open before the send on A.
    let freshness = http.get(format!("{b}/api/tasks/events")).send().await.unwrap();
    let mut signals = freshness.bytes_stream();
    let first = tokio::time::timeout(Duration::from_secs(5), signals.next())
        .await
        .unwrap();
    assert!(String::from_utf8_lossy(&first.unwrap().unwrap()).contains("event: ready"));
    let sent_at = Instant::now();
    let location = command(&http, &a, &agent, "replicas-1", "a report across processes").await;
    // The commit on A (and the worker's) signals B within a second or two, not after its 15 s
    // resync: the notice came through PostgreSQL.
    let signal = tokio::time::timeout(Duration::from_secs(5), signals.next())
        .await
        .unwrap();
    assert!(String::from_utf8_lossy(&signal.unwrap().unwrap()).contains("event: freshness"));
    assert!(
        sent_at.elapsed() < Duration::from_secs(3),
        "{:?}",
        sent_at.elapsed()
    );
    drop(signals);
    let task = task_of(&http, &a, &location).await;

    // B's live stream of the task, read while the worker behind it changes.
    let stream = http
        .get(format!("{b}/api/live/tasks/{task}"))
        .send()
        .await
        .unwrap();
    assert_eq!(stream.status(), 200);
    let mut body = stream.bytes_stream();
    let (mut buffer, mut ids, mut killed, mut completed) = (String::new(), Vec::<i64>::new(), false, false);
    let mut second = None;
    let deadline = Instant::now() + Duration::from_secs(90);
    while Instant::now() < deadline {
        let chunk = tokio::time::timeout(Duration::from_secs(30), body.next()).await;
        let Ok(Some(Ok(chunk))) = chunk else { break };
        buffer.push_str(&String::from_utf8_lossy(&chunk));
        while let Some(end) = buffer.find("\n\n") {
            let frame: String = buffer.drain(..end + 2).collect();
            if let Some(id) = frame.lines().find_map(|l| l.strip_prefix("id: ")) {
                ids.push(id.trim().parse().unwrap());
            }
            completed |= frame.contains("TASK_STATE_COMPLETED");
        }
        if !killed && ids.len() >= 3 {
            // SIGKILL: no goodbye, its leases stay until they expire.
            worker.0.kill().unwrap();
            worker.0.wait().unwrap();
            killed = true;
            second = Some(start(&["worker"], &env("w2")));
        }
        if completed {
            break;
        }
    }
    assert!(
        killed && second.is_some(),
        "the stream showed events before the worker was killed"
    );
    assert!(completed, "the task completed on the other replica's stream");
    let mut sorted = ids.clone();
    sorted.sort_unstable();
    sorted.dedup();
    assert_eq!(ids, sorted, "every event once, in order, on the other replica");

    let view = get_json(&http, &format!("{b}/api/tasks/{task}")).await;
    assert_eq!(view["task"]["state"], "TASK_STATE_COMPLETED", "{view}");
    let text = view["task"]["artifacts"][0]["parts"][0]["content"]["text"]
        .as_str()
        .unwrap_or_default();
    let expected: String = (1..=20)
        .map(|n| format!("Chunk {n} of 20: still going.\n"))
        .collect();
    assert_eq!(text, expected, "every chunk exactly once, in order");
    drop(second);
    test_db.cleanup().await;
}

#[tokio::test]
async fn a_notice_published_in_one_process_reaches_the_others_through_postgres() {
    let Some(test_db) = support::postgres().await else {
        return;
    };
    let pair = Pair::start(&test_db).await;
    let (bus_one, bus_two) = (&pair.bus_one, &pair.bus_two);
    let mut heard = bus_two.subscribe();
    let mut own = bus_one.subscribe();
    let notice = Notice::Ledger {
        organization_id: "org".into(),
        task_id: "task".into(),
        conversation_id: "conv".into(),
        sequence: 42,
        new_task: true,
    };
    let got = publish_until_heard(bus_one, &mut heard, &notice).await;
    assert_eq!(got, notice);
    // The sender does not hear its own notice back.
    while let Ok(received) = own.try_recv() {
        assert_eq!(received, notice);
    }
    tokio::time::sleep(Duration::from_millis(300)).await;
    let own_count = std::iter::from_fn(|| own.try_recv().ok()).count();
    assert_eq!(own_count, 0, "no echo of its own notices");
    pair.stop().await;
    test_db.cleanup().await;
}

/// Ledger notices leave with their events (ADR 0059): ingestion sends them inside the
/// transaction that commits them, one per task naming its newest sequence, and the relay does
/// not send them again; a transaction that rolls back sends nothing.
#[tokio::test]
async fn ingested_events_reach_the_others_once_per_task_and_transaction_and_only_if_committed() {
    let Some(test_db) = support::postgres().await else {
        return;
    };
    let pair = Pair::start(&test_db).await;
    let (one, bus_one, bus_two) = (&pair.one, &pair.bus_one, &pair.bus_two);
    let mut heard = bus_two.subscribe();
    // The relay is up once a marker goes through.
    publish_until_heard(bus_one, &mut heard, &Notice::Approvals).await;
    while heard.try_recv().is_ok() {}

    // Rolled back: never delivered.
    let tx = sea_orm::TransactionTrait::begin(&one.write).await.unwrap();
    let dropped = Notice::Ledger {
        organization_id: "org".into(),
        task_id: "rolled-back".into(),
        conversation_id: "conv".into(),
        sequence: 99,
        new_task: true,
    };
    server::ingest::relay::notify_in(&tx, bus_one.origin(), [dropped])
        .await
        .unwrap();
    tx.rollback().await.unwrap();

    let dir = tempfile::tempdir().unwrap();
    let ingestor = server::ingest::Ingestor::new(
        one.clone(),
        server::ingest::archive::ArtifactStore::new(dir.path()),
        bus_one.clone(),
    );
    let (org, agent) = support::local_agent(one).await;
    let conversation = "00000000-0000-4000-8000-00000000c0de";
    let created = ingestor
        .ingest(&support::observation(
            &org,
            &agent,
            conversation,
            serde_json::json!({"task": {"id": "r1", "contextId": "c", "status": {"state": "TASK_STATE_WORKING"}}}),
        ))
        .await
        .unwrap();
    let status = |state: &str, key: &str| server::ingest::Observation {
        source: server::ingest::Source::Stream,
        source_key: Some(key.into()),
        ..support::observation(
            &org,
            &agent,
            conversation,
            serde_json::json!({"statusUpdate": {"taskId": "r1", "contextId": "c", "status": {"state": state}}}),
        )
    };
    let group = ingestor
        .ingest_group(&[
            status("TASK_STATE_WORKING", "s1"),
            status("TASK_STATE_COMPLETED", "s2"),
        ])
        .await
        .unwrap();
    assert_eq!(group.len(), 2);
    // Whatever the relay would send again goes out before this marker.
    bus_one.publish(Notice::Approvals);

    let got = until_marker(&mut heard).await;
    let ledger = |sequence: Option<i64>, new_task: bool| Notice::Ledger {
        organization_id: org.clone(),
        task_id: created.task_id.clone(),
        conversation_id: conversation.into(),
        sequence: sequence.unwrap(),
        new_task,
    };
    assert_eq!(
        got,
        vec![
            ledger(created.sequence, true),
            ledger(group[1].sequence, false),
            Notice::Approvals
        ]
    );

    // While PostgreSQL's notification queue is half full the relay turns this off, and the
    // notices go after the commit instead, through the relay: still heard once.
    let usage = server::ingest::relay::queue_usage(one).await.unwrap();
    assert!((0.0..0.5).contains(&usage), "{usage}");
    bus_one.set_notify_inside(false);
    let after = ingestor
        .ingest(&support::observation(
            &org,
            &agent,
            conversation,
            serde_json::json!({"task": {"id": "r2", "contextId": "c", "status": {"state": "TASK_STATE_WORKING"}}}),
        ))
        .await
        .unwrap();
    bus_one.publish(Notice::Approvals);
    let got = until_marker(&mut heard).await;
    let relayed = Notice::Ledger {
        organization_id: org.clone(),
        task_id: after.task_id.clone(),
        conversation_id: conversation.into(),
        sequence: after.sequence.unwrap(),
        new_task: true,
    };
    assert_eq!(got, vec![relayed, Notice::Approvals]);
    pair.stop().await;
    test_db.cleanup().await;
}

/// Publishes `notice` on `bus` until `heard` (another process's bus) receives something, which
/// it gives back: the listener may still be subscribing when the first one goes out.
async fn publish_until_heard(
    bus: &Bus,
    heard: &mut tokio::sync::broadcast::Receiver<Notice>,
    notice: &Notice,
) -> Notice {
    let started = Instant::now();
    loop {
        bus.publish(notice.clone());
        if let Ok(Ok(got)) = tokio::time::timeout(Duration::from_millis(200), heard.recv()).await {
            return got;
        }
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "nothing relayed within 10 s"
        );
    }
}

/// What `heard` receives up to and including the next [`Notice::Approvals`] (the tests' marker).
async fn until_marker(heard: &mut tokio::sync::broadcast::Receiver<Notice>) -> Vec<Notice> {
    let mut got = Vec::new();
    while got.last() != Some(&Notice::Approvals) {
        let notice = tokio::time::timeout(Duration::from_secs(10), heard.recv())
            .await
            .expect("the marker within 10 s")
            .unwrap();
        got.push(notice);
    }
    got
}

/// Two processes' worth of one database: a connection pool, a bus and a running relay each.
struct Pair {
    one: server::db::Db,
    two: server::db::Db,
    bus_one: Bus,
    bus_two: Bus,
    tracker: tokio_util::task::TaskTracker,
    stop: tokio_util::sync::CancellationToken,
}

impl Pair {
    async fn start(test_db: &support::TestDb) -> Pair {
        let pair = Pair {
            one: test_db.migrated().await,
            two: test_db.connect().await,
            bus_one: Bus::default(),
            bus_two: Bus::default(),
            tracker: tokio_util::task::TaskTracker::new(),
            stop: tokio_util::sync::CancellationToken::new(),
        };
        server::ingest::relay::start(&pair.one, &pair.bus_one, &pair.tracker, pair.stop.clone());
        server::ingest::relay::start(&pair.two, &pair.bus_two, &pair.tracker, pair.stop.clone());
        pair
    }

    /// Stops both relays and closes both pools.
    async fn stop(self) {
        self.stop.cancel();
        self.tracker.close();
        self.tracker.wait().await;
        self.one.close().await;
        self.two.close().await;
    }
}
