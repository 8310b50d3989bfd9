//! What an agent can make the workers do, bounded (issue #26): the dispatch fence holds when
//! two worker sets race for one command, the stream cap counts every stream, reconnects back
//! off and polling keeps the reference's interval (`shared/spec/security-and-durability.md`
//! §3.4–§3.6). Real workers, real agents over HTTP on 127.0.0.1; SQLite always and PostgreSQL
//! when `A2A_TEST_POSTGRES_URL` is set.

use server::store::access::Access;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Json;
use axum::body::Body;
use axum::extract::{Request, State};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use futures::StreamExt;
use sea_orm::{ColumnTrait, EntityTrait, QueryFilter};
use serde_json::{Value, json};
use server::AppState;
use server::db::entity::{task_command, task_subscription};
use server::services::commands::CommandBody;
use server::store::tasks as task_store;

use crate::ledger::eventually;
use crate::support::{self, Workers};
use crate::workers::register;

/// A worker set over `deps`, as one process runs it.
/// One application ("process") over the database of `test_db`, allowed to call loopback agents.
async fn process(test_db: &support::TestDb) -> AppState {
    let db = test_db.connect().await;
    let mut config = test_db.config.clone();
    config.outbound.allow_private_networks = true;
    AppState::new(support::leptos_options(), config, db).unwrap()
}

async fn send_text(
    state: &AppState,
    org: &str,
    agent: &server::db::entity::agent::Model,
    text: &str,
) -> String {
    let body = CommandBody {
        text: Some(text.into()),
        ..CommandBody::default()
    };
    crate::workers::send(state, org, agent, body).await.id
}

async fn command(state: &AppState, id: &str) -> task_command::Model {
    task_command::Entity::find_by_id(id.to_owned())
        .one(&state.db.write)
        .await
        .unwrap()
        .unwrap()
}

async fn settled(state: &AppState, id: &str, limit: Duration) -> task_command::Model {
    let done = eventually(limit, || async {
        !matches!(
            command(state, id).await.status.as_str(),
            "pending" | "dispatching"
        )
    })
    .await;
    assert!(done, "command {id} did not settle");
    command(state, id).await
}

/// What a small A2A 1.0 agent was asked: each JSON-RPC method, and the messageId of each send.
#[derive(Clone, Default)]
struct Calls {
    methods: Arc<Mutex<Vec<String>>>,
    sent: Arc<Mutex<Vec<String>>>,
}

impl Calls {
    fn count(&self, method: &str) -> usize {
        self.methods
            .lock()
            .unwrap()
            .iter()
            .filter(|m| *m == method)
            .count()
    }
}

/// A JSON-RPC agent whose card answers after `card_delay` and whose tasks stay `WORKING`.
/// A stream (send or subscribe) carries one event, the working task, and closes cleanly.
async fn counting_agent(streaming: bool, card_delay: Duration) -> (String, Calls) {
    let calls = Calls::default();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let origin = format!("http://{}", listener.local_addr().unwrap());
    let card = support::jsonrpc_card(&origin, "Counter", streaming);
    let router = axum::Router::new()
        .route(
            "/card.json",
            get(move || async move {
                tokio::time::sleep(card_delay).await;
                Json(card.clone())
            }),
        )
        .route(
            "/a2a",
            post(|State(calls): State<Calls>, Json(body): Json<Value>| async move {
                let method = body["method"].as_str().unwrap_or_default().to_owned();
                calls.methods.lock().unwrap().push(method.clone());
                let task_id = match method.as_str() {
                    "SendMessage" | "SendStreamingMessage" => {
                        let message_id = body["params"]["message"]["messageId"]
                            .as_str()
                            .unwrap_or_default();
                        calls.sent.lock().unwrap().push(message_id.to_owned());
                        format!("task-{message_id}")
                    }
                    _ => body["params"]["id"].as_str().unwrap_or_default().to_owned(),
                };
                let task =
                    json!({"id": task_id, "contextId": "ctx-1", "status": {"state": "TASK_STATE_WORKING"}});
                let result = if method == "GetTask" {
                    task
                } else {
                    json!({ "task": task })
                };
                let answer = json!({"jsonrpc": "2.0", "id": body["id"], "result": result});
                if matches!(method.as_str(), "SendStreamingMessage" | "SubscribeToTask") {
                    let headers = [(axum::http::header::CONTENT_TYPE, "text/event-stream")];
                    return (headers, format!("data: {answer}\n\n")).into_response();
                }
                Json(answer).into_response()
            }),
        )
        .with_state(calls.clone());
    tokio::spawn(async move { axum::serve(listener, router).await.unwrap() });
    (origin, calls)
}

/// Two worker sets (two processes) over one database race for the same commands while card
/// discovery outlasts the dispatch lease: the heartbeat runs from the claim, so the lease never
/// lapses, nobody takes the command over, and every command is sent exactly once (§3.5 lease
/// protocol: "Every write the work produces commits only if that owner still holds the lease").
#[tokio::test]
async fn two_worker_sets_racing_for_a_command_send_it_exactly_once() {
    const LEASE: Duration = Duration::from_millis(600);
    const ROUNDS: usize = 4;
    let (origin, calls) = counting_agent(false, LEASE * 2).await;
    for test_db in support::backends().await {
        let name = test_db.name;
        test_db.migrated().await;
        let (one, two) = (process(&test_db).await, process(&test_db).await);
        let (org, agent) = register(&one, &format!("{origin}/card.json")).await;
        let sets: Vec<Workers> = [&one, &two]
            .into_iter()
            .map(|state| {
                let mut deps = state.worker_deps();
                deps.tuning.dispatch_lease = LEASE;
                Workers::with(deps)
            })
            .collect();
        for round in 0..ROUNDS {
            // Accepted by one process (two SQLite processes on one file can refuse a stale
            // read-then-write transaction, SQLITE_BUSY_SNAPSHOT); both worker sets race for it.
            let id = send_text(&one, &org, &agent, &format!("round {round}")).await;
            let done = settled(&one, &id, Duration::from_secs(20)).await;
            assert_eq!(
                done.status, "succeeded",
                "{name} round {round}: {:?}",
                done.last_error
            );
            assert_eq!(
                done.attempts, 1,
                "{name} round {round}: claimed once; the lease never lapsed during discovery"
            );
            let sent = calls.sent.lock().unwrap().clone();
            assert_eq!(
                sent.iter().filter(|m| **m == done.message_id).count(),
                1,
                "{name} round {round}: exactly one send: {sent:?}"
            );
        }
        for set in sets {
            set.stop().await;
        }
        test_db.cleanup().await;
    }
}

/// A dispatch pass claims its whole batch with one write (issue #33): every due row is won once,
/// a row already held is left alone, and a second claim of the same rows wins nothing.
#[tokio::test]
async fn a_batch_of_due_commands_is_claimed_in_one_write_and_only_once() {
    use server::store::leases::OUTBOX;
    let (origin, _calls) = counting_agent(false, Duration::ZERO).await;
    for test_db in support::backends().await {
        let name = test_db.name;
        test_db.migrated().await;
        let state = process(&test_db).await;
        let rows = due_outbox_rows(&state, &origin, 4, "batch").await;
        assert_eq!(rows.len(), 4, "{name}");
        let db = &state.db.write;
        let ttl = Duration::from_secs(60);
        // One row is held by another worker already.
        assert!(OUTBOX.claim(db, &rows[0], "other", ttl).await.unwrap().is_some());
        let won = OUTBOX.claim_many(db, &rows, "batch", ttl).await.unwrap();
        let mut won_ids: Vec<&str> = won.iter().map(|held| held.id()).collect();
        won_ids.sort_unstable();
        let mut expected: Vec<&str> = rows[1..].iter().map(String::as_str).collect();
        expected.sort_unstable();
        assert_eq!(won_ids, expected, "{name}: the held row is not taken");
        assert!(won.iter().all(|held| held.owner() == "batch"));
        for held in &won {
            assert!(held.holds(db).await.unwrap(), "{name}: the claim is stored");
        }
        assert!(
            OUTBOX
                .claim_many(db, &rows, "late", ttl)
                .await
                .unwrap()
                .is_empty(),
            "{name}: a row is won once"
        );
        assert!(OUTBOX.claim_many(db, &[], "none", ttl).await.unwrap().is_empty());
        test_db.cleanup().await;
    }
}

/// Sends `count` texts to a newly registered agent at `origin`; the ids of their dispatch outbox
/// rows, due and not claimed yet.
async fn due_outbox_rows(state: &AppState, origin: &str, count: usize, label: &str) -> Vec<String> {
    let (org, agent) = register(state, &format!("{origin}/card.json")).await;
    let mut ids = Vec::new();
    for n in 0..count {
        ids.push(send_text(state, &org, &agent, &format!("{label} {n}")).await);
    }
    let topic = server::services::commands::DISPATCH_TOPIC;
    let due = server::store::dispatch::due(&state.db.write, topic, 10)
        .await
        .unwrap();
    due.iter()
        .filter(|o| ids.contains(&o.aggregate_id))
        .map(|o| o.id.clone())
        .collect()
}

/// The commit queue fences the groups of many tasks with one statement per kind of lease
/// (issue #33): it holds only when every lease named is still its owner's, and then renews each.
#[tokio::test]
async fn several_leases_are_held_together_only_when_every_one_is_still_held() {
    use server::db::entity::outbox_message;
    use server::store::leases::{Held, OUTBOX};
    let (origin, _calls) = counting_agent(false, Duration::ZERO).await;
    for test_db in support::backends().await {
        let name = test_db.name;
        test_db.migrated().await;
        let state = process(&test_db).await;
        let rows = due_outbox_rows(&state, &origin, 3, "fence").await;
        let db = &state.db.write;
        // Long enough that no lease runs out while the test runs (each step renews them).
        let ttl = Duration::from_secs(60);
        let a = OUTBOX.claim(db, &rows[0], "a", ttl).await.unwrap().unwrap();
        let b = OUTBOX.claim(db, &rows[1], "b", ttl).await.unwrap().unwrap();
        let lease_until = |id: String| async move {
            outbox_message::Entity::find_by_id(id)
                .one(db)
                .await
                .unwrap()
                .and_then(|row| row.lease_until)
                .unwrap()
        };
        let (a_before, b_before) = (
            lease_until(rows[0].clone()).await,
            lease_until(rows[1].clone()).await,
        );
        // The same lease named twice counts once; each is renewed by its own ttl.
        let a_long = OUTBOX.held_as(&rows[0], "a", Duration::from_secs(600));
        assert!(
            Held::hold_all(db, &[&a_long, &b, &a_long]).await.unwrap(),
            "{name}"
        );
        let a_renewed = lease_until(rows[0].clone()).await;
        assert!(
            a_renewed - a_before > chrono::Duration::seconds(500),
            "{name}: {a_before} -> {a_renewed}"
        );
        let b_renewed = lease_until(rows[1].clone()).await;
        assert!(
            b_renewed >= b_before && b_renewed - b_before < chrono::Duration::seconds(30),
            "{name}: b by its own ttl: {b_before} -> {b_renewed}"
        );
        assert!(Held::hold_all(db, &[]).await.unwrap(), "{name}: nothing to hold");
        // A lease that is not its owner's (another owner, a row nobody claimed) fails them all.
        let intruder = OUTBOX.held_as(&rows[1], "c", ttl);
        assert!(!Held::hold_all(db, &[&a, &intruder]).await.unwrap(), "{name}");
        let unclaimed = OUTBOX.held_as(&rows[2], "a", ttl);
        assert!(!Held::hold_all(db, &[&unclaimed, &b]).await.unwrap(), "{name}");
        // Two owners named for one row: at most one holds it.
        let b_too = OUTBOX.held_as(&rows[0], "b", ttl);
        assert!(!Held::hold_all(db, &[&a, &b_too]).await.unwrap(), "{name}");
        assert!(Held::hold_all(db, &[&a, &b]).await.unwrap(), "{name}: still held");
        test_db.cleanup().await;
    }
}

/// The lease queries themselves, on each backend: a claim, hold or release wins only for the
/// owner of an unexpired lease (one conditional UPDATE each), and a command moves out of a
/// status only once.
#[tokio::test]
async fn lease_writes_are_conditional_and_a_command_leaves_a_status_once() {
    use server::store::commands::{self, Change, CommandStatus};
    use server::store::dispatch;
    use server::store::leases::OUTBOX;
    let (origin, _calls) = counting_agent(false, Duration::ZERO).await;
    for test_db in support::backends().await {
        let name = test_db.name;
        test_db.migrated().await;
        let state = process(&test_db).await;
        let (org, agent) = register(&state, &format!("{origin}/card.json")).await;
        let id = send_text(&state, &org, &agent, "lease").await;
        let outbox = dispatch::due(&state.db.write, server::services::commands::DISPATCH_TOPIC, 10)
            .await
            .unwrap();
        let row = outbox.iter().find(|o| o.aggregate_id == id).unwrap();
        let db = &state.db.write;
        let short = Duration::from_millis(300);
        let a = OUTBOX.claim(db, &row.id, "a", short).await.unwrap();
        let a = a.unwrap_or_else(|| panic!("{name}: a claims it"));
        assert_eq!((a.id(), a.owner()), (row.id.as_str(), "a"), "{name}");
        assert!(
            OUTBOX.claim(db, &row.id, "b", short).await.unwrap().is_none(),
            "{name}: held"
        );
        let b = OUTBOX.held_as(&row.id, "b", short);
        assert!(!b.renew(db).await.unwrap(), "{name}: not b's");
        assert!(!b.holds(db).await.unwrap(), "{name}: not b's");
        assert!(a.renew(db).await.unwrap(), "{name}: a's");
        assert!(a.holds(db).await.unwrap(), "{name}: a's");
        assert!(
            eventually(Duration::from_secs(5), || async {
                OUTBOX.claim(db, &row.id, "b", short).await.unwrap().is_some()
            })
            .await,
            "{name}: an expired lease is claimed by the next worker"
        );
        assert!(!a.renew(db).await.unwrap(), "{name}: a lost it");
        assert!(!a.holds(db).await.unwrap(), "{name}: a lost it");
        assert!(!a.release(db, "processed", Vec::new()).await.unwrap(), "{name}");
        let moved = |from, to| commands::transition(db, &id, from, to, Change::default());
        assert!(
            moved(CommandStatus::Pending, CommandStatus::Dispatching)
                .await
                .unwrap(),
            "{name}"
        );
        assert!(
            !moved(CommandStatus::Pending, CommandStatus::Dispatching)
                .await
                .unwrap(),
            "{name}: a second worker cannot move it again"
        );
        assert_eq!(command(&state, &id).await.status, "dispatching", "{name}");
        assert!(b.release(db, "processed", Vec::new()).await.unwrap(), "{name}");
        test_db.cleanup().await;
    }
}

/// Open `text/event-stream` responses of an agent, now and at most.
#[derive(Default)]
struct Gauge {
    open: AtomicUsize,
    most: AtomicUsize,
    total: AtomicUsize,
}

/// Held by an open stream's body; closes it in the gauge when dropped.
struct Open(Arc<Gauge>);

impl Drop for Open {
    fn drop(&mut self) {
        self.0.open.fetch_sub(1, Ordering::SeqCst);
    }
}

async fn count_streams(State(gauge): State<Arc<Gauge>>, request: Request, next: Next) -> Response {
    let response = next.run(request).await;
    let streams = response
        .headers()
        .get(axum::http::header::CONTENT_TYPE)
        .is_some_and(|v| v.as_bytes().starts_with(b"text/event-stream"));
    if !streams {
        return response;
    }
    let now = gauge.open.fetch_add(1, Ordering::SeqCst) + 1;
    gauge.most.fetch_max(now, Ordering::SeqCst);
    gauge.total.fetch_add(1, Ordering::SeqCst);
    let open = Open(gauge);
    let (parts, body) = response.into_parts();
    let body = Body::from_stream(body.into_data_stream().map(move |chunk| {
        let _held = &open;
        chunk
    }));
    Response::from_parts(parts, body)
}

/// Many sends to a streaming agent whose streams stay open (the demo agent's `slow` report,
/// about ten seconds each): the agent never sees more streams at once than
/// `A2A_MAX_AGENT_STREAMS`, send streams included, and every task still completes (the
/// tasks over the cap are polled).
#[tokio::test]
async fn the_stream_cap_counts_send_streams_and_the_rest_are_polled_to_the_end() {
    const CAP: usize = 3;
    const SENDS: usize = 16;
    let gauge = Arc::new(Gauge::default());
    let router =
        server::demo_agent::router().layer(middleware::from_fn_with_state(gauge.clone(), count_streams));
    let origin = support::serve(router).await;
    let (state, _db) = support::app_with(&[
        ("A2A_ALLOW_PRIVATE_NETWORKS", "true"),
        ("A2A_MAX_AGENT_STREAMS", "3"),
    ])
    .await;
    let (org, agent) = register(&state, &format!("{origin}/slow/card.json")).await;
    let mut deps = state.worker_deps();
    assert_eq!(
        deps.tuning.max_streams, CAP,
        "A2A_MAX_AGENT_STREAMS reaches the workers"
    );
    deps.tuning.get_task_interval = Duration::from_millis(1000);
    let workers = Workers::with(deps);
    let mut ids = Vec::new();
    for n in 0..SENDS {
        ids.push(send_text(&state, &org, &agent, &format!("report {n}")).await);
    }
    let mut tasks = Vec::new();
    for id in &ids {
        let done = settled(&state, id, Duration::from_secs(30)).await;
        assert_eq!(done.status, "succeeded", "{:?}", done.last_error);
        tasks.push(done.task_id.unwrap());
    }
    for task in &tasks {
        assert!(
            eventually(Duration::from_secs(60), || async {
                task_store::view(&state.db.read, &Access::everything(org.as_str()), task)
                    .await
                    .unwrap()
                    .state
                    == "TASK_STATE_COMPLETED"
            })
            .await,
            "task {task} completes although it was over the cap"
        );
    }
    workers.stop().await;
    let most = gauge.most.load(Ordering::SeqCst);
    assert!(most <= CAP, "{most} streams were open at once; the cap is {CAP}");
    assert!(gauge.total.load(Ordering::SeqCst) > 0, "streams were used");
}

async fn subscription_of_command(state: &AppState, command_id: &str) -> Option<task_subscription::Model> {
    let task_id = command(state, command_id).await.task_id?;
    task_subscription::Entity::find()
        .filter(task_subscription::Column::TaskId.eq(task_id))
        .one(&state.db.read)
        .await
        .unwrap()
}

/// An agent whose streams close cleanly at once, the task still working, is not reconnected
/// at once each time: every reconnect backs off, 1 s doubling (§3.5 "reconnect backoff 1 s
/// doubling to 30 s"), so in four seconds it is subscribed to at most three times.
#[tokio::test]
async fn a_stream_that_closes_cleanly_is_reconnected_with_backoff() {
    let (origin, calls) = counting_agent(true, Duration::ZERO).await;
    let (state, _db) = support::app_with(&[("A2A_ALLOW_PRIVATE_NETWORKS", "true")]).await;
    let (org, agent) = register(&state, &format!("{origin}/card.json")).await;
    let workers = Workers::with(state.worker_deps());
    let id = send_text(&state, &org, &agent, "close at once").await;
    assert_eq!(
        settled(&state, &id, Duration::from_secs(20)).await.status,
        "succeeded"
    );
    assert!(
        eventually(Duration::from_secs(10), || async {
            calls.count("SubscribeToTask") >= 1
        })
        .await,
        "the task is followed again after its send stream closed"
    );
    tokio::time::sleep(Duration::from_secs(4)).await;
    let subscribes = calls.count("SubscribeToTask");
    assert!(
        (1..=3).contains(&subscribes),
        "{subscribes} SubscribeToTask calls in about four seconds"
    );
    let sub = subscription_of_command(&state, &id).await.unwrap();
    assert!(sub.attempts >= 1, "the reconnects are counted: {sub:?}");
    workers.stop().await;
}

/// An agent that does not stream is read with `GetTask` every 15 s (§3.6 "`GetTask` runs every
/// 15 s for each known unfinished task"), not every 2 s: one read in the first five seconds.
#[tokio::test]
async fn a_task_that_is_not_streamed_is_polled_at_the_reference_interval() {
    assert_eq!(
        server::workers::Tuning::default().get_task_interval,
        Duration::from_secs(15)
    );
    let (origin, calls) = counting_agent(false, Duration::ZERO).await;
    let (state, _db) = support::app_with(&[("A2A_ALLOW_PRIVATE_NETWORKS", "true")]).await;
    let (org, agent) = register(&state, &format!("{origin}/card.json")).await;
    let workers = Workers::with(state.worker_deps());
    let id = send_text(&state, &org, &agent, "poll me").await;
    assert_eq!(
        settled(&state, &id, Duration::from_secs(20)).await.status,
        "succeeded"
    );
    assert!(
        eventually(Duration::from_secs(10), || async { calls.count("GetTask") >= 1 }).await,
        "the working task is read"
    );
    tokio::time::sleep(Duration::from_secs(5)).await;
    assert_eq!(calls.count("GetTask"), 1, "one GetTask in five seconds");
    let sub = subscription_of_command(&state, &id).await.unwrap();
    assert_eq!(sub.status, "pending", "released between reads");
    workers.stop().await;
}
