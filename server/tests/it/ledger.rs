//! The durable core against real databases (SQLite always, PostgreSQL when configured) and the
//! real demo agent over HTTP: the single ingestion path, its de-duplication and fencing, the
//! projections against the browser's fold of the same ledger, and commands dispatched by the
//! workers (`shared/spec/security-and-durability.md` §3).

use server::store::access::Access;
use std::time::Duration;

use app::a2a::{TaskState, decode_stream_event};
use app::projection::TaskView;
use serde_json::{Value, json};
use server::db::Db;
use server::ingest::archive::ArtifactStore;
use server::ingest::bus::Bus;
use server::ingest::{Fence, IngestError, Ingestor, Observation, Source};
use server::store::leases::SUBSCRIPTIONS;
use server::store::organizations;
use server::store::subscriptions::SubscriptionStatus;
use server::store::tasks::{self as task_store, EventScope};

use crate::support;

/// What every test here starts from: a migrated database, an ingestor with its own artifact
/// directory (kept until the test ends), and the organization and id of one registered agent.
pub(crate) async fn setup(test_db: &support::TestDb) -> (Db, Ingestor, String, String, tempfile::TempDir) {
    let db = test_db.migrated().await;
    let dir = tempfile::tempdir().unwrap();
    let ingestor = Ingestor::new(
        db.clone(),
        ArtifactStore::new(dir.path().join("artifacts")),
        Bus::default(),
    );
    let (org, agent) = agent(&db).await;
    (db, ingestor, org, agent, dir)
}

async fn agent(db: &Db) -> (String, String) {
    let org = organizations::local(db).await.unwrap();
    let agent = server::store::agents::register(
        db,
        &org.id,
        "http://127.0.0.1:9/card.json",
        server::store::agents::AgentSource::Managed,
    )
    .await
    .unwrap();
    (org.id, agent.id)
}

pub(crate) fn observation(
    org: &str,
    agent: &str,
    source: Source,
    key: Option<&str>,
    payload: Value,
) -> Observation {
    Observation {
        organization_id: org.into(),
        agent_id: agent.into(),
        tenant: String::new(),
        conversation_id: "00000000-0000-4000-8000-00000000c0de".into(),
        local_task_id: None,
        source,
        source_key: key.map(str::to_owned),
        payload,
        extensions: vec!["urn:x-a2a:trace:v1".into()],
        protocol_version: Some("1.0".into()),
        skill_id: None,
        fence: None,
        rearm: false,
    }
}

/// A working task answered to a command: the workers follow it.
async fn followed_task(
    ingestor: &Ingestor,
    db: &Db,
    org: &str,
    agent: &str,
) -> (
    server::ingest::Ingested,
    server::db::entity::task_subscription::Model,
) {
    let first = ingestor
        .ingest(&observation(
            org,
            agent,
            Source::CommandResponse,
            Some("c"),
            json!({"task": {"id": "remote-1", "status": {"state": "TASK_STATE_WORKING"}}}),
        ))
        .await
        .unwrap();
    let sub = server::store::subscriptions::of_task(db, &first.task_id)
        .await
        .unwrap()
        .expect("an active task is followed");
    assert_eq!(sub.status, "pending");
    (first, sub)
}

fn status(state: &str, ts: Option<&str>, text: Option<&str>) -> Value {
    let mut status = json!({"state": state});
    if let Some(ts) = ts {
        status["timestamp"] = json!(ts);
    }
    if let Some(text) = text {
        status["message"] =
            json!({"messageId": format!("m-{text}"), "role": "ROLE_AGENT", "parts": [{"text": text}]});
    }
    json!({"statusUpdate": {"taskId": "remote-1", "contextId": "ctx-1", "status": status}})
}

fn chunk(n: u32, append: bool, last: bool) -> Value {
    json!({"artifactUpdate": {"taskId": "remote-1", "artifact": {"artifactId": "report", "name": "report.txt",
        "parts": [{"text": format!("Chunk {n}. ")}]}, "append": append, "lastChunk": last}})
}

/// A task started by the script's first three events (the user's message, the send's answer,
/// "Working"); its local id.
pub(crate) async fn started(ingestor: &Ingestor, org: &str, agent: &str) -> String {
    let mut task_id = None;
    for (source, key, payload) in script().into_iter().take(3) {
        let mut obs = observation(org, agent, source, key.as_deref(), payload);
        obs.local_task_id = task_id.clone();
        task_id = Some(ingestor.ingest(&obs).await.unwrap().task_id);
    }
    task_id.expect("the script's first event names a task")
}

/// The events of a task's life, including a duplicate, a stale status, a snapshot that
/// corrects the artifact, and late events after the terminal state.
pub(crate) fn script() -> Vec<(Source, Option<String>, Value)> {
    let mut events = vec![(
        Source::Command,
        Some("command:1".into()),
        json!({"message": {"messageId": "u1", "role": "ROLE_USER", "taskId": "remote-1", "parts": [{"text": "Write a report"}]}}),
    )];
    events.push((
        Source::CommandResponse,
        Some("command:1".into()),
        json!({"task": {"id": "remote-1", "contextId": "ctx-1",
        "status": {"state": "TASK_STATE_SUBMITTED", "timestamp": "2026-11-30T10:00:00Z"}}}),
    ));
    events.push((
        Source::Stream,
        Some("a:1".into()),
        status(
            "TASK_STATE_WORKING",
            Some("2026-11-30T10:00:01Z"),
            Some("Working"),
        ),
    ));
    for n in 1..=5 {
        events.push((Source::Stream, Some(format!("c{n}:1")), chunk(n, n > 1, false)));
    }
    // A stale status (older remote timestamp) changes nothing.
    events.push((
        Source::Stream,
        Some("stale:1".into()),
        status(
            "TASK_STATE_SUBMITTED",
            Some("2026-11-30T09:00:00Z"),
            Some("stale"),
        ),
    ));
    // A snapshot after a reconnect: the artifact so far, then more chunks.
    events.push((Source::Stream, Some("snap:1".into()), json!({"task": {"id": "remote-1", "contextId": "ctx-1",
        "status": {"state": "TASK_STATE_WORKING", "timestamp": "2026-11-30T10:00:02Z"},
        "history": [{"messageId": "u1", "role": "ROLE_USER", "parts": [{"text": "Write a report"}]}],
        "artifacts": [{"artifactId": "report", "name": "report.txt", "parts": [{"text": "Chunk 1. Chunk 2. Chunk 3. Chunk 4. Chunk 5. "}]}]}})));
    events.push((Source::Stream, Some("c6:1".into()), chunk(6, true, true)));
    events.push((
        Source::Stream,
        Some("done:1".into()),
        status("TASK_STATE_COMPLETED", Some("2026-11-30T10:00:03Z"), Some("Done")),
    ));
    events.push((
        Source::Stream,
        Some("late:1".into()),
        status("TASK_STATE_WORKING", None, Some("late")),
    ));
    events.push((Source::Stream, Some("c7:1".into()), chunk(7, true, true)));
    events
}

/// The projection of [`script`], however it was ingested.
fn assert_scripted(view: &TaskView, backend: &str) {
    assert_eq!(view.state, "TASK_STATE_COMPLETED", "{backend}");
    assert_eq!(view.title, "Write a report");
    assert_eq!(view.remote_context_id.as_deref(), Some("ctx-1"));
    assert_eq!(view.artifacts.len(), 1);
    assert_eq!(
        view.artifacts[0].parts[0].as_text(),
        Some("Chunk 1. Chunk 2. Chunk 3. Chunk 4. Chunk 5. Chunk 6. "),
        "{backend}: no chunk lost or doubled, nothing after the terminal state"
    );
    assert!(!view.artifacts[0].streaming);
    let states: Vec<_> = view.transitions.iter().map(|t| t.state.as_v1_str()).collect();
    assert_eq!(
        states,
        ["TASK_STATE_WORKING", "TASK_STATE_COMPLETED"],
        "{backend}"
    );
    let texts: Vec<String> = view
        .messages
        .iter()
        .map(|m| m.parts[0].as_text().unwrap_or_default().to_owned())
        .collect();
    assert_eq!(texts, ["Write a report", "Working", "Done"], "{backend}");
}

#[tokio::test]
async fn ingestion_folds_dedupes_and_matches_the_browser_fold_on_every_backend() {
    for test_db in support::backends().await {
        let (db, ingestor, org, agent, _dir) = setup(&test_db).await;
        let mut task_id = None;
        let mut sequences = Vec::new();
        for (source, key, payload) in script() {
            let mut obs = observation(&org, &agent, source, key.as_deref(), payload.clone());
            obs.local_task_id = task_id.clone();
            let done = ingestor.ingest(&obs).await.unwrap();
            task_id = Some(done.task_id.clone());
            sequences.push(done.sequence.unwrap());
            // The same event again (a replay after a reconnect) is a no-op.
            let again = ingestor.ingest(&obs).await.unwrap();
            assert_eq!(again.sequence, None, "{}: duplicate committed", test_db.name);
        }
        assert!(
            sequences.windows(2).all(|w| w[0] < w[1]),
            "{}: sequences increase",
            test_db.name
        );
        let task_id = task_id.unwrap();
        let view = task_store::view(&db.read, &Access::everything(org.as_str()), &task_id)
            .await
            .unwrap();
        assert_scripted(&view, test_db.name);

        // Rebuild: folding the stored ledger with the browser's code gives the same view.
        let events = task_store::events_after(
            &db.read,
            &Access::everything(org.as_str()),
            &EventScope::Task(task_id.clone()),
            0,
        )
        .await
        .unwrap();
        assert_eq!(events.len(), script().len());
        let mut folded = TaskView {
            state: TaskState::Submitted,
            ..TaskView::default()
        };
        for event in &events {
            folded.apply(
                event.sequence,
                &decode_stream_event(&event.payload).unwrap().event,
            );
        }
        assert_eq!(folded.state, view.state);
        assert_eq!(folded.messages, view.messages, "{}: messages", test_db.name);
        assert_eq!(folded.artifacts, view.artifacts, "{}: artifacts", test_db.name);
        assert_eq!(folded.transitions, view.transitions);
        assert_eq!(folded.last_sequence, view.last_sequence);
        assert_eq!(events[0].extensions, ["urn:x-a2a:trace:v1"]);

        // The server's own rebuild folds the ledger again into the same projection, twice over.
        for _ in 0..2 {
            assert_eq!(
                server::ingest::rebuild(&db, &task_id).await.unwrap(),
                script().len()
            );
            let rebuilt = task_store::view(&db.read, &Access::everything(org.as_str()), &task_id)
                .await
                .unwrap();
            assert_eq!(
                rebuilt.messages, view.messages,
                "{}: rebuilt messages",
                test_db.name
            );
            assert_eq!(
                rebuilt.artifacts, view.artifacts,
                "{}: rebuilt artifacts",
                test_db.name
            );
            assert_eq!(rebuilt.transitions, view.transitions);
            assert_eq!(
                (rebuilt.state, rebuilt.title.as_str()),
                (view.state.clone(), "Write a report")
            );
            assert_eq!(rebuilt.remote_context_id, view.remote_context_id);
        }
        test_db.cleanup().await;
    }
}

#[tokio::test]
async fn a_direct_message_reply_is_its_own_row_never_a_fake_task() {
    for test_db in support::backends().await {
        let (db, ingestor, org, agent, _dir) = setup(&test_db).await;
        let user = observation(
            &org,
            &agent,
            Source::Command,
            Some("command:m"),
            json!({"message": {"messageId": "u", "role": "ROLE_USER", "parts": [{"text": "hi"}]}}),
        );
        let first = ingestor.ingest(&user).await.unwrap();
        let mut reply = observation(
            &org,
            &agent,
            Source::CommandResponse,
            Some("command:m"),
            json!({"message": {"messageId": "a", "role": "ROLE_AGENT", "contextId": "c", "parts": [{"text": "hello"}]}}),
        );
        reply.local_task_id = Some(first.task_id.clone());
        ingestor.ingest(&reply).await.unwrap();
        let view = task_store::view(&db.read, &Access::everything(org.as_str()), &first.task_id)
            .await
            .unwrap();
        assert_eq!(view.kind, app::projection::TaskKind::Message);
        assert_eq!(view.remote_task_id, None);
        assert_eq!(view.messages.len(), 2);
        assert!(
            server::store::subscriptions::of_task(&db, &first.task_id)
                .await
                .unwrap()
                .is_none(),
            "direct messages are never followed"
        );
        test_db.cleanup().await;
    }
}

#[tokio::test]
async fn an_observation_without_the_lease_commits_nothing() {
    for test_db in support::backends().await {
        let (db, ingestor, org, agent, _dir) = setup(&test_db).await;
        let (first, sub) = followed_task(&ingestor, &db, &org, &agent).await;
        let mut late = observation(
            &org,
            &agent,
            Source::Stream,
            Some("x"),
            status("TASK_STATE_COMPLETED", None, None),
        );
        late.local_task_id = Some(first.task_id.clone());
        late.fence = Some(Fence::Lease(SUBSCRIPTIONS.held_as(
            &sub.id,
            "someone-else",
            Duration::from_secs(60),
        )));
        assert!(matches!(
            ingestor.ingest(&late).await,
            Err(IngestError::LeaseLost)
        ));
        let view = task_store::view(&db.read, &Access::everything(org.as_str()), &first.task_id)
            .await
            .unwrap();
        assert_eq!(view.state, "TASK_STATE_WORKING");
        assert_eq!(view.last_sequence, first.sequence.unwrap());
        test_db.cleanup().await;
    }
}

#[tokio::test]
async fn events_for_another_remote_task_are_refused() {
    let test_db = support::sqlite();
    let (_, ingestor, org, agent, _dir) = setup(&test_db).await;
    let first = ingestor
        .ingest(&observation(
            &org,
            &agent,
            Source::CommandResponse,
            Some("c"),
            json!({"task": {"id": "remote-1", "status": {"state": "TASK_STATE_WORKING"}}}),
        ))
        .await
        .unwrap();
    let mut foreign = observation(
        &org,
        &agent,
        Source::Stream,
        Some("f"),
        json!({"statusUpdate": {"taskId": "remote-2", "status": {"state": "TASK_STATE_FAILED"}}}),
    );
    foreign.local_task_id = Some(first.task_id);
    assert!(matches!(
        ingestor.ingest(&foreign).await,
        Err(IngestError::Identity("Unexpected task identity."))
    ));
    let garbage = observation(&org, &agent, Source::Stream, Some("g"), json!({"nothing": true}));
    assert!(matches!(
        ingestor.ingest(&garbage).await,
        Err(IngestError::Invalid(_))
    ));
}

#[tokio::test]
async fn inline_bytes_are_archived_and_the_ledger_holds_references() {
    let test_db = support::sqlite();
    let (db, ingestor, org, agent, _dir) = setup(&test_db).await;
    let png = base64_of(b"\x89PNG fake image bytes");
    let done = ingestor
        .ingest(&observation(&org, &agent, Source::CommandResponse, Some("c"), json!({"task": {"id": "remote-1",
            "status": {"state": "TASK_STATE_COMPLETED"},
            "artifacts": [{"artifactId": "img", "parts": [{"raw": png, "mediaType": "image/png", "filename": "chart.png"}]}]}})))
        .await
        .unwrap();
    let view = task_store::view(&db.read, &Access::everything(org.as_str()), &done.task_id)
        .await
        .unwrap();
    let digest = server::ingest::archive::digest(b"\x89PNG fake image bytes");
    assert_eq!(
        view.artifacts[0].parts[0].content,
        app::a2a::PartContent::Url(format!("/api/artifacts/{digest}"))
    );
    let ledger = task_store::ledger(&db.read, &done.task_id).await.unwrap();
    assert!(
        !ledger[0].payload_json.to_string().contains(&png),
        "no bytes in the ledger"
    );
    assert!(ingestor.store.path(&org, &digest).unwrap().exists());
}

fn base64_of(bytes: &[u8]) -> String {
    use base64::Engine as _;
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

/// Waits until `check` holds, up to `limit`.
pub async fn eventually<F, Fut>(limit: Duration, mut check: F) -> bool
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = bool>,
{
    let until = tokio::time::Instant::now() + limit;
    while tokio::time::Instant::now() < until {
        if check().await {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    false
}

/// Waits until nothing follows `task_id` any more (its subscription row `stopped`): a task that
/// finished through a stream resumed after a gap is read once more after its final status is
/// committed (`workers::subscriptions::observer`), and that read may still add a tail. What a
/// test reads after this is final. `false` if following has not stopped within `limit`.
pub async fn following_stopped(db: &server::db::Db, task_id: &str, limit: Duration) -> bool {
    use server::store::subscriptions::{SubscriptionStatus, of_task};
    eventually(limit, || async {
        of_task(db, task_id)
            .await
            .unwrap()
            .is_some_and(|s| s.status == SubscriptionStatus::Stopped)
    })
    .await
}

/// An active task's events skip the subscription lookup once its row is known to exist
/// (`Ingestor::subscribed`); what they do to the row is what `subscriptions::arm` did: nothing
/// for a repeated event, a restart for a new command's answer (`rearm`).
#[tokio::test]
async fn a_followed_task_is_armed_once_and_still_restarts_on_a_new_command() {
    use sea_orm::{ActiveModelTrait, ActiveValue::Set};
    use server::db::entity::task_subscription;

    for test_db in support::backends().await {
        let (db, ingestor, org, agent, _dir) = setup(&test_db).await;
        let (first, sub) = followed_task(&ingestor, &db, &org, &agent).await;
        assert!(first.subscribed);
        assert!(
            ingestor.subscribed.contains(&first.task_id),
            "remembered after the commit"
        );
        // The follower stopped (say, the agent closed the stream).
        let mut stopped: task_subscription::ActiveModel = sub.into();
        stopped.status = Set(server::store::subscriptions::SubscriptionStatus::Stopped);
        stopped.update(&db.write).await.unwrap();
        let event = |key: &str, text: &str| {
            let mut o = observation(
                &org,
                &agent,
                Source::Stream,
                Some(key),
                status("TASK_STATE_WORKING", None, Some(text)),
            );
            o.local_task_id = Some(first.task_id.clone());
            o
        };
        ingestor.ingest(&event("s1", "still working")).await.unwrap();
        let sub = server::store::subscriptions::of_task(&db, &first.task_id)
            .await
            .unwrap()
            .unwrap();
        assert_eq!(
            sub.status, "stopped",
            "a repeated event does not restart the follower"
        );
        let mut answer = event("s2", "answered");
        answer.rearm = true;
        ingestor.ingest(&answer).await.unwrap();
        let sub = server::store::subscriptions::of_task(&db, &first.task_id)
            .await
            .unwrap()
            .unwrap();
        assert_eq!(sub.status, "pending", "a new command's answer restarts it");

        // A direct message has no row and is not remembered.
        let message = ingestor
            .ingest(&observation(
                &org,
                &agent,
                Source::CommandResponse,
                Some("m"),
                json!({"message": {"messageId": "a", "role": "ROLE_AGENT", "parts": [{"text": "hi"}]}}),
            ))
            .await
            .unwrap();
        assert!(!message.subscribed);
        assert!(!ingestor.subscribed.contains(&message.task_id));
        test_db.cleanup().await;
    }
}

/// Issue #27: a task waiting for input stays followed (it is polled). A new command's answer
/// that lands while a worker holds the row (one GetTask in flight) leaves the holder's lease
/// alone; once that worker released the row for its next read in 15 s, the turn it read is
/// behind and the row is made due at once.
#[tokio::test]
async fn a_waiting_task_stays_followed_and_a_command_during_a_read_makes_it_due_at_once() {
    use sea_orm::EntityTrait;
    use sea_orm::sea_query::Expr;
    use server::db::entity::task_subscription;
    use server::store::leases::SUBSCRIPTIONS;
    use server::store::subscriptions::{of_task, wake_if_turned};

    for test_db in support::backends().await {
        let (db, ingestor, org, agent, _dir) = setup(&test_db).await;
        let (first, sub) = followed_task(&ingestor, &db, &org, &agent).await;
        let reply = |key: &str| {
            let mut o = observation(
                &org,
                &agent,
                Source::CommandResponse,
                Some(key),
                status("TASK_STATE_INPUT_REQUIRED", None, Some(key)),
            );
            o.local_task_id = Some(first.task_id.clone());
            o.rearm = true;
            o
        };
        let asked = ingestor.ingest(&reply("ask")).await.unwrap();
        assert!(
            asked.subscribed,
            "{}: a waiting task is still followed",
            test_db.name
        );
        let read_at = task_store::find(&db.read, &Access::everything(org.as_str()), &first.task_id)
            .await
            .unwrap()
            .turn;
        let fifteen = std::time::Duration::from_secs(15);
        let reader = SUBSCRIPTIONS
            .claim(&db.write, &sub.id, "reader", fifteen)
            .await
            .unwrap()
            .expect("the reader claims it");
        ingestor.ingest(&reply("answer")).await.unwrap();
        let held = of_task(&db, &first.task_id).await.unwrap().unwrap();
        assert_eq!(
            (held.status.as_str(), held.lease_owner.as_deref()),
            ("streaming", Some("reader")),
            "{}: the holder keeps its lease",
            test_db.name
        );
        let later = chrono::Utc::now() + chrono::Duration::seconds(15);
        let values = vec![("available_at", sea_orm::Value::from(later))];
        assert!(reader.release(&db.write, "pending", values).await.unwrap());
        wake_if_turned(&db.write, &first.task_id, read_at).await.unwrap();
        let due = of_task(&db, &first.task_id).await.unwrap().unwrap();
        assert!(
            due.available_at <= chrono::Utc::now(),
            "{}: due at once",
            test_db.name
        );
        // Without a command since the read, the next read stays 15 s away.
        let now_turn = task_store::find(&db.read, &Access::everything(org.as_str()), &first.task_id)
            .await
            .unwrap()
            .turn;
        task_subscription::Entity::update_many()
            .col_expr(task_subscription::Column::AvailableAt, Expr::value(later))
            .exec(&db.write)
            .await
            .unwrap();
        wake_if_turned(&db.write, &first.task_id, now_turn).await.unwrap();
        let waiting = of_task(&db, &first.task_id).await.unwrap().unwrap();
        assert!(
            waiting.available_at > chrono::Utc::now(),
            "{}: not woken",
            test_db.name
        );
        test_db.cleanup().await;
    }
}

/// Issue #27: the subscriptions of tasks already waiting when the console is upgraded were
/// stopped by the old rule; the migration makes them due, and leaves finished tasks alone.
#[tokio::test]
async fn the_upgrade_resumes_following_tasks_that_were_waiting() {
    use sea_orm::{ActiveModelTrait, ActiveValue::Set, ConnectionTrait};
    use server::db::entity::task_subscription;
    use server::db::migration::m20261203_000006_follow_waiting_tasks::RESUME;
    use server::store::subscriptions::of_task;

    for test_db in support::backends().await {
        let (db, ingestor, org, agent, _dir) = setup(&test_db).await;
        let mut stopped = Vec::new();
        for (key, state) in [("w", "TASK_STATE_INPUT_REQUIRED"), ("d", "TASK_STATE_COMPLETED")] {
            let mut o = observation(
                &org,
                &agent,
                Source::CommandResponse,
                Some(key),
                json!({"task": {"id": format!("remote-{key}"), "status": {"state": "TASK_STATE_WORKING"}}}),
            );
            let task = ingestor.ingest(&o).await.unwrap().task_id;
            o.local_task_id = Some(task.clone());
            o.source_key = Some(format!("{key}-2"));
            o.payload = json!({"task": {"id": format!("remote-{key}"), "status": {"state": state}}});
            ingestor.ingest(&o).await.unwrap();
            let sub = of_task(&db, &task).await.unwrap().unwrap();
            let mut sub: task_subscription::ActiveModel = sub.into();
            sub.status = Set(server::store::subscriptions::SubscriptionStatus::Stopped);
            sub.update(&db.write).await.unwrap();
            stopped.push(task);
        }
        db.write.execute_unprepared(RESUME).await.unwrap();
        let waiting = of_task(&db, &stopped[0]).await.unwrap().unwrap();
        assert_eq!(
            waiting.status, "pending",
            "{}: the waiting task is followed again",
            test_db.name
        );
        assert!(waiting.available_at <= chrono::Utc::now(), "{}", test_db.name);
        let done = of_task(&db, &stopped[1]).await.unwrap().unwrap();
        assert_eq!(
            done.status, "stopped",
            "{}: a finished task stays stopped",
            test_db.name
        );
        test_db.cleanup().await;
    }
}

/// A stream's events in one transaction (group commit, issue #6) end as the same record as
/// one transaction each: the same projection, consecutive sequences, one notice per stored
/// event; a repeat inside the group is a duplicate; ingestion stops at the terminal state.
#[tokio::test]
async fn a_group_of_stream_events_commits_like_one_event_at_a_time() {
    use sea_orm::{ActiveModelTrait, ActiveValue::Set};
    use server::db::entity::task_subscription;
    use server::ingest::bus::Notice;

    for test_db in support::backends().await {
        let (db, ingestor, org, agent, _dir) = setup(&test_db).await;
        let mut script = script().into_iter();
        let mut task_id = None;
        for (source, key, payload) in script.by_ref().take(2) {
            let mut obs = observation(&org, &agent, source, key.as_deref(), payload);
            obs.local_task_id = task_id.clone();
            task_id = Some(ingestor.ingest(&obs).await.unwrap().task_id);
        }
        let task_id = task_id.unwrap();
        let sub = server::store::subscriptions::of_task(&db, &task_id)
            .await
            .unwrap()
            .unwrap();
        let mut leased: task_subscription::ActiveModel = sub.clone().into();
        leased.status = Set(SubscriptionStatus::Streaming);
        leased.lease_owner = Set(Some("worker-1".into()));
        leased.lease_until = Set(Some(chrono::Utc::now() + chrono::Duration::minutes(1)));
        leased.update(&db.write).await.unwrap();
        let fenced = |(source, key, payload): (Source, Option<String>, Value), owner: &str| {
            let mut obs = observation(&org, &agent, source, key.as_deref(), payload);
            obs.local_task_id = Some(task_id.clone());
            obs.fence = Some(Fence::Lease(SUBSCRIPTIONS.held_as(
                &sub.id,
                owner,
                Duration::from_secs(300),
            )));
            obs
        };
        let rest: Vec<_> = script.collect();
        let before = task_store::view(&db.read, &Access::everything(org.as_str()), &task_id)
            .await
            .unwrap();

        // Without the lease, the whole group commits nothing.
        let stranger: Vec<_> = rest.iter().cloned().map(|e| fenced(e, "worker-2")).collect();
        assert!(matches!(
            ingestor.ingest_group(&stranger).await,
            Err(IngestError::LeaseLost)
        ));
        // One event for another remote task fails the group: nothing of it is stored.
        let mut hostile: Vec<_> = rest.iter().cloned().map(|e| fenced(e, "worker-1")).collect();
        hostile[3].payload["artifactUpdate"]["taskId"] = json!("remote-2");
        assert!(matches!(
            ingestor.ingest_group(&hostile).await,
            Err(IngestError::Identity(_))
        ));
        // The same task claimed by another agent in the middle of a group is refused too.
        let mut foreign: Vec<_> = rest.iter().cloned().map(|e| fenced(e, "worker-1")).collect();
        foreign[2].agent_id = "another-agent".into();
        assert!(matches!(
            ingestor.ingest_group(&foreign).await,
            Err(IngestError::Identity("Unexpected push scope."))
        ));
        let unchanged = task_store::view(&db.read, &Access::everything(org.as_str()), &task_id)
            .await
            .unwrap();
        assert_eq!(
            unchanged.last_sequence, before.last_sequence,
            "{}: all or nothing",
            test_db.name
        );

        let mut group: Vec<_> = rest.iter().cloned().map(|e| fenced(e, "worker-1")).collect();
        group.insert(2, group[1].clone());
        let mut notices = ingestor.bus.subscribe();
        let done = ingestor.ingest_group(&group).await.unwrap();
        let completed = group
            .iter()
            .position(|o| o.source_key.as_deref() == Some("done:1"))
            .unwrap();
        assert_eq!(
            done.len(),
            completed + 1,
            "{}: stops at the terminal state",
            test_db.name
        );
        assert_eq!(
            done[2].sequence, None,
            "{}: a repeat is a duplicate",
            test_db.name
        );
        let sequences: Vec<i64> = done.iter().filter_map(|d| d.sequence).collect();
        assert_eq!(sequences.len(), done.len() - 1);
        assert!(sequences.windows(2).all(|w| w[1] == w[0] + 1));
        assert_eq!(sequences[0], before.last_sequence + 1);
        assert!(done.iter().all(|d| !d.new_task && d.task_id == task_id));
        for sequence in &sequences {
            match notices.try_recv().unwrap() {
                Notice::Ledger { sequence: s, .. } => assert_eq!(s, *sequence),
                other => panic!("{other:?}"),
            }
        }
        assert!(notices.try_recv().is_err(), "one notice per stored event");

        let view = task_store::view(&db.read, &Access::everything(org.as_str()), &task_id)
            .await
            .unwrap();
        assert_scripted(&view, test_db.name);
        assert_eq!(view.last_sequence, *sequences.last().unwrap());
        assert!(view.version > before.version);
        use std::sync::atomic::Ordering::Relaxed;
        assert_eq!(ingestor.counters.group_commits.load(Relaxed), 1);
        assert_eq!(
            ingestor.counters.grouped_events.load(Relaxed),
            sequences.len() as u64
        );
        // The group again (a replay): all duplicates, nothing stored, no group commit counted.
        let renewed = server::store::subscriptions::of_task(&db, &task_id)
            .await
            .unwrap()
            .unwrap();
        assert!(
            renewed.lease_until.unwrap() > chrono::Utc::now() + chrono::Duration::minutes(4),
            "{}: the fence of a committed group renews the lease it checked",
            test_db.name
        );
        let replay = ingestor.ingest_group(&group[..completed]).await.unwrap();
        assert!(replay.iter().all(|d| d.sequence.is_none()));
        assert_eq!(ingestor.counters.group_commits.load(Relaxed), 1);
        test_db.cleanup().await;
    }
}

/// ADR 0050: what a task holds is read before the fold writes anything. A message a later event
/// repeats is stored once, one event at a time and in a group; an event replayed is a duplicate;
/// a stream event's key still names the user turn, so the same key after a command response is a
/// new event.
#[tokio::test]
async fn messages_and_keys_read_before_writing_keep_one_row_per_message_and_per_turn() {
    for test_db in support::backends().await {
        let (db, ingestor, org, agent, _dir) = setup(&test_db).await;
        let task_id = started(&ingestor, &org, &agent).await;
        let obs = |source: Source, key: &str, payload: Value| {
            let mut obs = observation(&org, &agent, source, Some(key), payload);
            obs.local_task_id = Some(task_id.clone());
            obs
        };
        let working = |text: &str| status("TASK_STATE_WORKING", None, Some(text));
        let again = obs(Source::Stream, "again:1", working("Working"));
        assert!(
            ingestor.ingest(&again).await.unwrap().sequence.is_some(),
            "{}: a new event",
            test_db.name
        );
        assert!(
            ingestor.ingest(&again).await.unwrap().sequence.is_none(),
            "{}: replayed",
            test_db.name
        );
        let snapshot = json!({"task": {"id": "remote-1", "contextId": "ctx-1", "status": {"state": "TASK_STATE_WORKING"},
            "history": [{"messageId": "u1", "role": "ROLE_USER", "parts": [{"text": "Write a report"}]},
                {"messageId": "m-Step", "role": "ROLE_AGENT", "parts": [{"text": "Step"}]},
                {"messageId": "m-More", "role": "ROLE_AGENT", "parts": [{"text": "More"}]}]}});
        let group = vec![
            obs(Source::Stream, "g1:1", working("Working")),
            obs(Source::Stream, "g2:1", working("Step")),
            obs(Source::Stream, "g3:1", working("Step")),
            obs(Source::Stream, "g4:1", snapshot),
            obs(Source::Stream, "again:1", working("Working")),
        ];
        let done = ingestor.ingest_group(&group).await.unwrap();
        let stored: Vec<bool> = done.iter().map(|d| d.sequence.is_some()).collect();
        assert_eq!(stored, [true, true, true, true, false], "{}", test_db.name);
        let texts = |view: &TaskView| -> Vec<String> {
            view.messages
                .iter()
                .map(|m| m.parts[0].as_text().unwrap_or_default().to_owned())
                .collect()
        };
        let access = Access::everything(org.as_str());
        let view = task_store::view(&db.read, &access, &task_id).await.unwrap();
        assert_eq!(
            texts(&view),
            ["Write a report", "Working", "Step", "More"],
            "{}",
            test_db.name
        );
        // The stored task row counts the messages stored: none counted twice.
        let stored = server::store::task_rows::find_any(&db.read, &task_id)
            .await
            .unwrap()
            .unwrap();
        assert_eq!(stored.message_count, 4, "{}", test_db.name);
        assert_eq!(view.title, "Write a report");

        // A command response moves the turn: "again:1" is a new event after it, alone and in a group.
        let answer = json!({"task": {"id": "remote-1", "contextId": "ctx-1", "status": {"state": "TASK_STATE_WORKING"}}});
        ingestor
            .ingest(&obs(Source::CommandResponse, "command:2", answer))
            .await
            .unwrap();
        let after = obs(Source::Stream, "again:1", working("After"));
        assert!(
            ingestor.ingest(&after).await.unwrap().sequence.is_some(),
            "{}: the next turn",
            test_db.name
        );
        let done = ingestor
            .ingest_group(&[after.clone(), obs(Source::Stream, "g1:1", working("Later"))])
            .await
            .unwrap();
        assert_eq!(done[0].sequence, None, "{}", test_db.name);
        assert!(done[1].sequence.is_some(), "{}", test_db.name);
        let view = task_store::view(&db.read, &access, &task_id).await.unwrap();
        assert_eq!(
            texts(&view),
            ["Write a report", "Working", "Step", "More", "After", "Later"],
            "{}",
            test_db.name
        );
        let stored = server::store::task_rows::find_any(&db.read, &task_id)
            .await
            .unwrap()
            .unwrap();
        assert_eq!(stored.message_count, 6, "{}", test_db.name);
        // The user's message, the answer, "Working", "again", four of the group, the second
        // answer, "After", "Later": one ledger row each, in order.
        let scope = EventScope::Task(task_id.clone());
        let events = task_store::events_after(&db.read, &access, &scope, 0)
            .await
            .unwrap();
        assert_eq!(events.len(), 11, "{}", test_db.name);
        assert!(events.windows(2).all(|w| w[1].sequence == w[0].sequence + 1));
        db.close().await;
        test_db.cleanup().await;
    }
}
