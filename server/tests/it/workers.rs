//! Commands dispatched and tasks followed by the real workers against the real demo agent
//! over HTTP (`shared/spec/security-and-durability.md` §3.4–§3.6, §3.11).

use server::store::access::Access;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use sea_orm::{ColumnTrait, EntityTrait, QueryFilter};
use server::AppState;
use server::db::entity::{task_command, task_subscription};
use server::services::commands::{self, CommandBody, NewCommand};
use server::store::agents::{self as agent_store, AgentSource};
use server::store::organizations;
use server::store::tasks as task_store;
use server::workers::dispatch::{DISCOVERY_FAILED, UNCERTAIN};
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

use crate::ledger::eventually;
use crate::support;

async fn demo() -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let origin = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, server::demo_agent::router()).await.unwrap() });
    origin
}

struct Workers {
    tracker: TaskTracker,
    stop: CancellationToken,
}

impl Workers {
    fn start(state: &AppState) -> Workers {
        let tracker = TaskTracker::new();
        let stop = CancellationToken::new();
        server::workers::start(state.worker_deps(), &tracker, stop.clone());
        Workers { tracker, stop }
    }

    /// Stops the loops and their in-flight work, like a process that dies.
    async fn kill(self) {
        self.stop.cancel();
        self.tracker.close();
        self.tracker.wait().await;
    }
}

/// Registers `card_url` as a managed agent of the local organization.
pub(crate) async fn register(state: &AppState, card_url: &str) -> (String, server::db::entity::agent::Model) {
    let org = organizations::local(&state.db).await.unwrap();
    let agent = agent_store::register(&state.db, &org.id, card_url, AgentSource::Managed)
        .await
        .unwrap();
    (org.id, agent)
}

/// Accepts a command for `agent`, as the HTTP API would.
pub(crate) async fn send(
    state: &AppState,
    org: &str,
    agent: &server::db::entity::agent::Model,
    body: CommandBody,
) -> task_command::Model {
    let body = commands::validate(body).unwrap();
    commands::accept(
        &state.db,
        &state.bus,
        NewCommand {
            access: Access::everything(org),
            agent: agent.clone(),
            body,
            idempotency_key: uuid::Uuid::new_v4().to_string(),
            conversation_id: None,
        },
    )
    .await
    .unwrap()
    .0
}

fn text(t: &str) -> CommandBody {
    CommandBody {
        text: Some(t.into()),
        ..CommandBody::default()
    }
}

async fn command(state: &AppState, id: &str) -> task_command::Model {
    task_command::Entity::find_by_id(id.to_owned())
        .one(&state.db.write)
        .await
        .unwrap()
        .unwrap()
}

async fn settled(state: &AppState, id: &str) -> task_command::Model {
    let done = eventually(Duration::from_secs(20), || async {
        !matches!(
            command(state, id).await.status.as_str(),
            "pending" | "dispatching"
        )
    })
    .await;
    assert!(done, "command {id} did not settle");
    command(state, id).await
}

async fn task_state(state: &AppState, org: &str, task_id: &str) -> String {
    task_store::view(&state.db.read, &Access::everything(org), task_id)
        .await
        .unwrap()
        .state
        .to_string()
}

#[tokio::test]
async fn a_send_is_dispatched_once_and_its_answer_lands_in_the_ledger() {
    let origin = demo().await;
    let (state, _db) = support::app_with(&[("A2A_ALLOW_PRIVATE_NETWORKS", "true")]).await;
    let (org, agent) = register(&state, &format!("{origin}/form/card.json")).await;
    let accepted = send(&state, &org, &agent, text("Deploy please")).await;
    assert_eq!(accepted.status, "pending", "stored before anything goes out");
    let workers = Workers::start(&state);
    let done = settled(&state, &accepted.id).await;
    assert_eq!(done.status, "succeeded", "{:?}", done.last_error);
    let task_id = done.task_id.clone().unwrap();
    let view = task_store::view(&state.db.read, &Access::everything(org.as_str()), &task_id)
        .await
        .unwrap();
    assert!(
        eventually(Duration::from_secs(10), || async {
            task_state(&state, &org, &task_id).await == "TASK_STATE_INPUT_REQUIRED"
        })
        .await
    );
    assert_eq!(
        view.messages[0].message_id, accepted.message_id,
        "the fixed messageId went out"
    );
    assert_eq!(view.messages[0].parts[0].as_text(), Some("Deploy please"));
    assert_eq!(view.title, "Deploy please");
    workers.kill().await;
}

#[tokio::test]
async fn slow_chunks_arrive_in_order_through_the_subscription_and_cancel_works() {
    let origin = demo().await;
    let (state, _db) = support::app_with(&[("A2A_ALLOW_PRIVATE_NETWORKS", "true")]).await;
    let (org, agent) = register(&state, &format!("{origin}/slow/card.json")).await;
    let workers = Workers::start(&state);
    let first = settled(&state, &send(&state, &org, &agent, text("rust")).await.id).await;
    let second = settled(&state, &send(&state, &org, &agent, text("cancel me")).await.id).await;
    let (first_task, second_task) = (first.task_id.unwrap(), second.task_id.unwrap());
    let remote = task_store::find(&state.db.read, &Access::everything(org.as_str()), &second_task)
        .await
        .unwrap()
        .remote_task_id
        .unwrap();
    let cancel = send(
        &state,
        &org,
        &agent,
        CommandBody {
            action: Some("cancelTask".into()),
            task_id: Some(remote),
            ..CommandBody::default()
        },
    )
    .await;
    assert_eq!(settled(&state, &cancel.id).await.status, "succeeded");
    assert!(
        eventually(Duration::from_secs(10), || async {
            task_state(&state, &org, &second_task).await == "TASK_STATE_CANCELED"
        })
        .await
    );
    assert!(
        eventually(Duration::from_secs(25), || async {
            task_state(&state, &org, &first_task).await == "TASK_STATE_COMPLETED"
        })
        .await,
        "the slow task completes with no browser open"
    );
    let view = task_store::view(&state.db.read, &Access::everything(org.as_str()), &first_task)
        .await
        .unwrap();
    let expected: String = (1..=20)
        .map(|n| format!("Chunk {n} of 20: still going.\n"))
        .collect();
    assert_eq!(
        view.artifacts[0]
            .parts
            .iter()
            .filter_map(|p| p.as_text())
            .collect::<String>(),
        expected
    );
    let sub = task_subscription::Entity::find()
        .filter(task_subscription::Column::TaskId.eq(&first_task))
        .one(&state.db.read)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(sub.status, "stopped", "following stops at the terminal state");
    workers.kill().await;
}

#[tokio::test]
async fn a_dead_worker_is_replaced_and_nothing_is_lost_or_doubled() {
    let origin = demo().await;
    let (state, _db) = support::app_with(&[("A2A_ALLOW_PRIVATE_NETWORKS", "true")]).await;
    let (org, agent) = register(&state, &format!("{origin}/slow/card.json")).await;
    let workers = Workers::start(&state);
    let sent = settled(&state, &send(&state, &org, &agent, text("takeover")).await.id).await;
    let task_id = sent.task_id.unwrap();
    // Let a few chunks arrive, then the worker dies holding the lease.
    assert!(
        eventually(Duration::from_secs(10), || async {
            task_store::view(&state.db.read, &Access::everything(org.as_str()), &task_id)
                .await
                .unwrap()
                .artifacts
                .first()
                .is_some_and(|a| a.chunks >= 3)
        })
        .await
    );
    workers.kill().await;
    let held = task_subscription::Entity::find()
        .filter(task_subscription::Column::TaskId.eq(&task_id))
        .one(&state.db.write)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(held.status, "streaming", "a dead worker leaves its lease behind");
    // Its lease runs out (15 s in real life; expired here by hand) and another worker resumes.
    task_subscription::Entity::update_many()
        .col_expr(
            task_subscription::Column::LeaseUntil,
            sea_orm::sea_query::Expr::value(chrono::Utc::now() - chrono::Duration::seconds(1)),
        )
        .filter(task_subscription::Column::Id.eq(&held.id))
        .exec(&state.db.write)
        .await
        .unwrap();
    let replacement = Workers::start(&state);
    assert!(
        eventually(Duration::from_secs(25), || async {
            task_state(&state, &org, &task_id).await == "TASK_STATE_COMPLETED"
        })
        .await
    );
    let view = task_store::view(&state.db.read, &Access::everything(org.as_str()), &task_id)
        .await
        .unwrap();
    let expected: String = (1..=20)
        .map(|n| format!("Chunk {n} of 20: still going.\n"))
        .collect();
    assert_eq!(
        view.artifacts[0]
            .parts
            .iter()
            .filter_map(|p| p.as_text())
            .collect::<String>(),
        expected
    );
    replacement.kill().await;
}

#[tokio::test]
async fn discovery_failures_retry_three_times_then_fail() {
    let (state, _db) = support::app_with(&[("A2A_ALLOW_PRIVATE_NETWORKS", "true")]).await;
    // Nothing listens on port 9 (discard) here.
    let (org, agent) = register(&state, "http://127.0.0.1:9/card.json").await;
    let workers = Workers::start(&state);
    let accepted = send(&state, &org, &agent, text("anyone?")).await;
    let done = settled(&state, &accepted.id).await;
    assert_eq!(done.status, "failed");
    assert_eq!(done.last_error.as_deref(), Some(DISCOVERY_FAILED));
    assert_eq!(done.attempts, 3);
    workers.kill().await;
}

/// An agent whose card is fine but whose endpoint drops every request after reading it.
async fn dropping_agent(calls: Arc<AtomicUsize>) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let origin = format!("http://{}", listener.local_addr().unwrap());
    let card = support::jsonrpc_card(&origin, "Dropper", true);
    let app = axum::Router::new()
        .route(
            "/card.json",
            axum::routing::get(move || {
                let card = card.clone();
                async move { axum::Json(card) }
            }),
        )
        .route(
            "/a2a",
            axum::routing::post(move || {
                let calls = calls.clone();
                async move {
                    calls.fetch_add(1, Ordering::SeqCst);
                    // Never answers: the connection is dropped when the handler panics.
                    panic!("dropping the request on purpose");
                    #[allow(unreachable_code)]
                    ()
                }
            }),
        );
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    origin
}

#[tokio::test]
async fn an_unknown_outcome_is_uncertain_and_never_resent() {
    let calls = Arc::new(AtomicUsize::new(0));
    let origin = dropping_agent(calls.clone()).await;
    let (state, _db) = support::app_with(&[("A2A_ALLOW_PRIVATE_NETWORKS", "true")]).await;
    let (org, agent) = register(&state, &format!("{origin}/card.json")).await;
    let workers = Workers::start(&state);
    let done = settled(&state, &send(&state, &org, &agent, text("hello?")).await.id).await;
    assert_eq!(done.status, "uncertain");
    assert_eq!(done.last_error.as_deref(), Some(UNCERTAIN));
    tokio::time::sleep(Duration::from_secs(2)).await;
    assert_eq!(
        calls.load(Ordering::SeqCst),
        1,
        "an uncertain command is never resent"
    );
    workers.kill().await;
}
