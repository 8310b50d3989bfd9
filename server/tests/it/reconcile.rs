//! Reconciliation sweeps (`shared/spec/security-and-durability.md` §3.8) against the real demo
//! agent, on SQLite and PostgreSQL: a task whose every stream was lost comes into line with one
//! `ListTasks` sweep; only tasks the console knows in that scope change; pages are followed with
//! the agent's tokens; a read made against an older version of a task loses; a 0.3 agent is
//! `unsupported`; a scope with nothing unfinished stops until a task wakes it.

use std::time::{Duration, Instant};

use serde_json::{Value, json};
use server::AppState;
use server::ingest::{Fence, Source};
use server::store::leases::SYNC_CURSORS;
use server::store::sync_cursors::{self, SyncStatus};
use server::store::{organizations, tasks};
use server::workers::reconcile::{self, Swept};

use crate::support::{self, TestDb};

async fn app_on(test_db: &TestDb, page_size: u32) -> (AppState, server::workers::WorkerDeps) {
    let mut config = test_db.config.clone();
    config.outbound.allow_private_networks = true;
    let state = AppState::new(support::leptos_options(), config, test_db.migrated().await).unwrap();
    let mut deps = state.worker_deps();
    deps.tuning.sweep_page_size = page_size;
    (state, deps)
}

/// A JSON-RPC call straight to the demo variant (the console is not involved).
async fn agent_call(demo: &str, variant: &str, method: &str, params: Value) -> Value {
    let reply: Value = crate::credentials::http()
        .post(format!("{demo}/{variant}/a2a"))
        .header("A2A-Version", "1.0")
        .json(&json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params}))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert!(reply.get("error").is_none(), "{method}: {reply}");
    reply["result"].clone()
}

/// A task the agent runs on its own (`returnImmediately`), of which the console stored only
/// the send's first answer, as if every stream had then failed; `(local id, remote id)`.
async fn lost_task(state: &AppState, demo: &str, agent: &str, text: &str) -> (String, String) {
    let params = json!({
        "message": {"messageId": uuid::Uuid::new_v4().to_string(), "role": "ROLE_USER", "parts": [{"text": text}]},
        "configuration": {"returnImmediately": true},
    });
    let answer = agent_call(demo, "flood", "SendMessage", params).await;
    let remote = answer["task"]["id"]
        .as_str()
        .unwrap_or_else(|| panic!("{answer}"))
        .to_owned();
    let org = organizations::local(&state.db).await.unwrap().id;
    let conversation = uuid::Uuid::new_v4().to_string();
    let ingested = state
        .ingestor
        .ingest(&support::observation(&org, agent, &conversation, answer))
        .await
        .unwrap();
    (ingested.task_id, remote)
}

/// Waits (at most 20 s) until the agent says the task is completed; its artifact text then.
async fn finished_at_agent(demo: &str, remote: &str) -> String {
    finished_at(demo, "flood", remote).await
}

/// [`finished_at_agent`] for a task of `variant`.
async fn finished_at(demo: &str, variant: &str, remote: &str) -> String {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let task = agent_call(demo, variant, "GetTask", json!({"id": remote})).await;
        if task["status"]["state"] == "TASK_STATE_COMPLETED" {
            return artifact_text(&task["artifacts"]);
        }
        assert!(Instant::now() < deadline, "the agent did not finish: {task}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

fn artifact_text(artifacts: &Value) -> String {
    artifacts
        .as_array()
        .into_iter()
        .flatten()
        .flat_map(|a| a["parts"].as_array().cloned().unwrap_or_default())
        .filter_map(|p| p["text"].as_str().map(str::to_owned))
        .collect()
}

async fn local_view(state: &AppState, task: &str) -> Value {
    crate::client::call(state, "GET", &format!("/api/tasks/{task}"), "", &[])
        .await
        .json()["task"]
        .clone()
}

fn local_artifact_text(view: &Value) -> String {
    view["artifacts"]
        .as_array()
        .into_iter()
        .flatten()
        .flat_map(|a| a["parts"].as_array().cloned().unwrap_or_default())
        .filter_map(|p| p["content"]["text"].as_str().map(str::to_owned))
        .collect()
}

async fn sweep_now(deps: &server::workers::WorkerDeps) -> Swept {
    let mut claimed = reconcile::claim_due(deps, 1).await.unwrap();
    assert_eq!(claimed.len(), 1, "one cursor due");
    let (cursor, lease) = claimed.pop().unwrap();
    reconcile::sweep(deps, &cursor, &lease).await
}

#[tokio::test]
async fn a_sweep_brings_lost_tasks_into_line_page_by_page_and_touches_nothing_else_3_8() {
    let demo = support::demo().await;
    for test_db in support::backends().await {
        let (state, deps) = app_on(&test_db, 1).await;
        let agent = crate::api::register(&state, &demo, "flood").await;
        // Work of the same agent the console never saw: listed, never imported.
        agent_call(
            &demo,
            "flood",
            "SendMessage",
            json!({"message": {"messageId": uuid::Uuid::new_v4().to_string(), "role": "ROLE_USER",
                "parts": [{"text": "rate=500 count=4"}]}}),
        )
        .await;
        let (one, remote_one) = lost_task(&state, &demo, &agent, "rate=200 count=12 mix=chunks").await;
        let (two, remote_two) = lost_task(&state, &demo, &agent, "rate=200 count=8 mix=chunks").await;
        let (text_one, text_two) = (
            finished_at_agent(&demo, &remote_one).await,
            finished_at_agent(&demo, &remote_two).await,
        );
        assert!(!text_one.is_empty() && !text_two.is_empty());
        assert_ne!(local_view(&state, &one).await["state"], "TASK_STATE_COMPLETED");
        let before = tasks::count_all(&state.db.read).await.unwrap();

        assert_eq!(
            sync_cursors::adopt(&state.db.write).await.unwrap(),
            1,
            "one scope, one cursor"
        );
        let outcome = sweep_now(&deps).await;
        // Page size 1, newest first: one page per task until both known tasks are in line
        // (the newer on the first page, the older on the second); the rest is not read.
        let Swept::Done { pages, applied } = outcome else {
            panic!("{outcome:?}")
        };
        assert_eq!(pages, 2);
        assert_eq!(applied, 2, "the two known tasks changed");
        for (task, text) in [(&one, &text_one), (&two, &text_two)] {
            let view = local_view(&state, task).await;
            assert_eq!(view["state"], "TASK_STATE_COMPLETED", "{view}");
            assert_eq!(&local_artifact_text(&view), text);
        }
        assert_eq!(
            tasks::count_all(&state.db.read).await.unwrap(),
            before,
            "nothing imported"
        );

        // The cursor: the sweep finished, no token kept, the next one in about a minute.
        let org = organizations::local(&state.db).await.unwrap().id;
        let cursor = sync_cursors::of_scope(&state.db.read, &org, &agent, "")
            .await
            .unwrap()
            .unwrap();
        assert_eq!(cursor.status, SyncStatus::Pending);
        assert_eq!(cursor.page_token, None);
        assert!(cursor.swept_at.is_some() && cursor.last_error.is_none());
        let wait = cursor.available_at - chrono::Utc::now();
        assert!(
            wait > chrono::Duration::seconds(50) && wait <= chrono::Duration::seconds(60),
            "{wait}"
        );
        assert!(
            reconcile::claim_due(&deps, 1).await.unwrap().is_empty(),
            "not due again yet"
        );

        // Nothing unfinished left in the scope: the next sweep stops the cursor, and a new
        // unfinished task wakes it.
        sync_cursors::make_due(&state.db.write, &cursor.id).await.unwrap();
        assert_eq!(sweep_now(&deps).await, Swept::Stopped);
        let stopped = sync_cursors::of_scope(&state.db.read, &org, &agent, "")
            .await
            .unwrap()
            .unwrap();
        assert_eq!(stopped.status, SyncStatus::Stopped);
        assert_eq!(sync_cursors::adopt(&state.db.write).await.unwrap(), 0);
        lost_task(&state, &demo, &agent, "rate=100 count=2").await;
        assert_eq!(sync_cursors::adopt(&state.db.write).await.unwrap(), 1, "woken");
        test_db.cleanup().await;
    }
}

#[tokio::test]
async fn a_sweep_resumes_from_its_saved_page_token_3_8() {
    let demo = support::demo().await;
    let test_db = support::sqlite();
    let (state, deps) = app_on(&test_db, 1).await;
    let agent = crate::api::register(&state, &demo, "flood").await;
    let (task, remote) = lost_task(&state, &demo, &agent, "rate=200 count=6 mix=chunks").await;
    let text = finished_at_agent(&demo, &remote).await;
    // Newer work of the agent comes first in its list: the known task is on a later page.
    for _ in 0..2 {
        lost_task(&state, &demo, &agent, "rate=1 count=1000").await;
    }
    let first = agent_call(&demo, "flood", "ListTasks", json!({"pageSize": 1})).await;
    let token = first["nextPageToken"].as_str().unwrap().to_owned();
    sync_cursors::adopt(&state.db.write).await.unwrap();
    let mut claimed = reconcile::claim_due(&deps, 1).await.unwrap();
    let (cursor, lease) = claimed.pop().unwrap();
    // A sweep that saved the first page's token (then crashed) goes on from the second page.
    assert!(
        sync_cursors::save_page(&state.db.write, &lease, &token)
            .await
            .unwrap()
    );
    let saved = sync_cursors::of_scope(&state.db.read, &cursor.organization_id, &agent, "")
        .await
        .unwrap()
        .unwrap();
    assert_eq!(saved.page_token.as_deref(), Some(token.as_str()));
    let total = agent_call(&demo, "flood", "ListTasks", json!({"pageSize": 100})).await["tasks"]
        .as_array()
        .unwrap()
        .len();
    let Swept::Done { pages, .. } = reconcile::sweep(&deps, &saved, &lease).await else {
        panic!()
    };
    assert_eq!(pages, total - 1, "every page after the saved one");
    let view = local_view(&state, &task).await;
    assert_eq!(view["state"], "TASK_STATE_COMPLETED");
    assert_eq!(local_artifact_text(&view), text);
}

#[tokio::test]
async fn a_read_made_against_an_older_version_loses_and_a_lost_lease_commits_nothing_3_8() {
    let demo = support::demo().await;
    for test_db in support::backends().await {
        let (state, deps) = app_on(&test_db, 50).await;
        let agent = crate::api::register(&state, &demo, "flood").await;
        let (task, remote) = lost_task(&state, &demo, &agent, "rate=200 count=4").await;
        finished_at_agent(&demo, &remote).await;
        let snapshot = agent_call(&demo, "flood", "GetTask", json!({"id": remote})).await;
        sync_cursors::adopt(&state.db.write).await.unwrap();
        let (cursor, lease) = reconcile::claim_due(&deps, 1).await.unwrap().pop().unwrap();
        let row = tasks::by_id(&state.db.read, &task).await.unwrap().unwrap();
        let read = |version: i64, lease: server::store::leases::Held| server::ingest::Observation {
            local_task_id: Some(task.clone()),
            source: Source::Reconcile,
            fence: Some(Fence::Read { lease, version }),
            ..support::observation(
                &cursor.organization_id,
                &agent,
                "",
                json!({"task": snapshot.clone()}),
            )
        };
        // Something changed the task after its version was read: the read is skipped.
        let stale = state
            .ingestor
            .ingest(&read(row.version - 1, lease.clone()))
            .await
            .unwrap();
        assert_eq!(stale.sequence, None);
        assert_ne!(local_view(&state, &task).await["state"], "TASK_STATE_COMPLETED");
        // Released meanwhile (another worker's now): nothing commits.
        let other = SYNC_CURSORS.held_as(lease.id(), "someone-else", reconcile::LEASE);
        let lost = state.ingestor.ingest(&read(row.version, other)).await;
        assert!(
            matches!(lost, Err(server::ingest::IngestError::LeaseLost)),
            "{lost:?}"
        );
        // Read against the current version: applied.
        let applied = state
            .ingestor
            .ingest(&read(row.version, lease.clone()))
            .await
            .unwrap();
        assert!(applied.sequence.is_some());
        assert_eq!(local_view(&state, &task).await["state"], "TASK_STATE_COMPLETED");
        test_db.cleanup().await;
    }
}

#[tokio::test]
async fn an_agent_without_list_tasks_is_unsupported_and_never_asked_again_3_8() {
    let demo = support::demo().await;
    let test_db = support::sqlite();
    let (state, deps) = app_on(&test_db, 50).await;
    // `legacy` speaks A2A 0.3 over JSON-RPC, which has no ListTasks.
    let agent = crate::api::register(&state, &demo, "legacy").await;
    let org = organizations::local(&state.db).await.unwrap().id;
    let answer = json!({"task": {"id": "remote-legacy-1", "contextId": "c1",
        "status": {"state": "TASK_STATE_WORKING"}}});
    state
        .ingestor
        .ingest(&support::observation(&org, &agent, "conv-legacy", answer))
        .await
        .unwrap();
    assert_eq!(sync_cursors::adopt(&state.db.write).await.unwrap(), 1);
    assert_eq!(sweep_now(&deps).await, Swept::Unsupported);
    let cursor = sync_cursors::of_scope(&state.db.read, &org, &agent, "")
        .await
        .unwrap()
        .unwrap();
    assert_eq!(cursor.status, SyncStatus::Unsupported);
    assert_eq!(
        sync_cursors::adopt(&state.db.write).await.unwrap(),
        0,
        "not woken"
    );
    assert!(reconcile::claim_due(&deps, 1).await.unwrap().is_empty());
}

#[test]
fn a_failed_sweep_backs_off_from_one_second_doubling_to_a_minute_3_5() {
    let seconds: Vec<u64> = (1..=9).map(|n| reconcile::backoff(n).as_secs()).collect();
    assert_eq!(seconds, [1, 2, 4, 8, 16, 32, 60, 60, 60]);
}

#[tokio::test]
async fn a_task_whose_stream_died_silently_is_caught_up_by_the_sweep_3_8() {
    // The demo agent behind a proxy that freezes the console's open stream: it stays open and
    // carries nothing more, so the task's follower waits on it; new requests still go through.
    let demo = support::demo().await;
    let port: u16 = demo.rsplit(':').next().unwrap().parse().unwrap();
    let (mut proxy, listener) = crate::tcp_proxy::Proxy::bind().await;
    proxy.forward_to(listener, port);
    let test_db = support::sqlite();
    let (state, _deps) = app_on(&test_db, 50).await;
    let workers = support::Workers::start(&state);
    let agent = crate::api::register(&state, &proxy.origin, "slow").await;
    let sent = crate::client::post(
        &state,
        &format!("/api/agents/{agent}/commands"),
        json!({"text": "a report nobody streams"}),
        &[("idempotency-key", "silent-1")],
    )
    .await;
    assert_eq!(sent.status, axum::http::StatusCode::ACCEPTED, "{}", sent.body);
    let location = sent.header("location").to_owned();
    let deadline = Instant::now() + Duration::from_secs(10);
    let task = loop {
        let command = crate::client::get(&state, &location).await.json();
        if let Some(task) = command["command"]["result"]["localId"].as_str() {
            break task.to_owned();
        }
        assert!(Instant::now() < deadline, "no task: {command}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    // Two chunks in, the stream goes silent.
    let deadline = Instant::now() + Duration::from_secs(10);
    while !local_artifact_text(&local_view(&state, &task).await).contains("Chunk 2 of 20") {
        assert!(Instant::now() < deadline, "two chunks arrived");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    proxy.freeze();
    let remote = tasks::by_id(&state.db.read, &task)
        .await
        .unwrap()
        .unwrap()
        .remote_task_id
        .unwrap();
    let text = finished_at(&demo, "slow", &remote).await;
    // The workers' own sweep brings it into line: its cursor was adopted within 5 s and swept at
    // once; its next sweep (due 60 s after that one) is made due now instead of waited for.
    let org = organizations::local(&state.db).await.unwrap().id;
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let cursor = sync_cursors::of_scope(&state.db.read, &org, &agent, "")
            .await
            .unwrap();
        if let Some(cursor) = cursor
            && sync_cursors::make_due(&state.db.write, &cursor.id).await.unwrap()
        {
            break;
        }
        assert!(Instant::now() < deadline, "the scope's cursor is pending");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let view = local_view(&state, &task).await;
        if view["state"] == "TASK_STATE_COMPLETED" {
            assert_eq!(local_artifact_text(&view), text, "every chunk once");
            break;
        }
        assert!(Instant::now() < deadline, "not caught up: {view}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let org = organizations::local(&state.db).await.unwrap().id;
    let cursor = sync_cursors::of_scope(&state.db.read, &org, &agent, "")
        .await
        .unwrap()
        .unwrap();
    assert!(cursor.swept_at.is_some(), "the sweep ran");
    workers.stop().await;
}
