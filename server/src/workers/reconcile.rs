//! The reconciliation sweep (`shared/spec/security-and-durability.md` §3.8, ADR 0043): if
//! every stream were lost, each scope's unfinished tasks still come into line within about a
//! minute. (Each task's own `GetTask` every 15 s, waiting tasks included, is the subscription
//! worker's: [`super::subscriptions`].)
//!
//! - One cursor per (organization, agent, tenant) with unfinished tasks (`sync_cursors`,
//!   created or woken by [`store::adopt`], so tasks that existed before this worker are
//!   adopted too), claimed under a 15 s lease renewed every 5 s; at most [`READERS`] sweeps at
//!   once per process.
//! - A sweep asks `ListTasks` for full pages (history and artifacts, no timestamp filter: a
//!   change that only touched an artifact must be seen) and ingests each listed task the
//!   console already knows in that exact scope and has not seen finish; it never imports
//!   other remote work, and never settles an uncertain send by guessing which listed task it
//!   made.
//! - Each page's snapshots are applied only if nothing changed their task since its version
//!   was read, before the page was asked for (a concurrent update wins); an older timestamp
//!   never rolls content back and a finished task is never reopened (the ingestion rules).
//! - The next page's token is saved only after its page was ingested; a crash replays the
//!   page (ingestion de-duplicates it). A failed page starts the next sweep from the first
//!   page, after a backoff of 1 s doubling to 60 s. A sweep that read every page starts again
//!   [`SWEEP_INTERVAL`] after it finished.
//! - An agent without `ListTasks` (0.3 JSON-RPC, or an answer that the method does not exist)
//!   is marked `unsupported` and never asked again; its tasks are still read with `GetTask`.

use std::collections::HashMap;
use std::time::Duration;

use app::a2a::{TaskPage, encode_list_tasks};
use app::ext::negotiation;
use chrono::Utc;
use sea_orm::DbErr;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

use super::claim_loop::{self, Pace};
use super::{Heartbeat, WorkerDeps, owner_id};
use crate::db::entity::sync_cursor;
use crate::gateway::GatewayError;
use crate::ingest::{Fence, IngestError, Observation, Source};
use crate::services::agents as agent_services;
use crate::store::leases::{Held, SYNC_CURSORS};
use crate::store::sync_cursors::{self as store, SyncFailure, SyncStatus};
use crate::store::{agents, card_snapshots};

/// How often the loop looks for due cursors.
pub const POLL: Duration = Duration::from_secs(1);
/// How often scopes are adopted (cursors created for new ones, stopped ones woken).
pub const ADOPT_EVERY: Duration = Duration::from_secs(5);
/// Sweeps at once per process (reference: "2 concurrent readers").
pub const READERS: usize = 2;
pub const LEASE: Duration = Duration::from_secs(15);
pub const HEARTBEAT: Duration = Duration::from_secs(5);
/// A sweep starts again this long after the last one finished (reference: ~60 s).
pub const SWEEP_INTERVAL: Duration = Duration::from_secs(60);
pub const BACKOFF_START: Duration = Duration::from_secs(1);
pub const BACKOFF_MAX: Duration = Duration::from_secs(60);
/// Tasks asked for per page (`Tuning::sweep_page_size`).
pub const PAGE_SIZE: u32 = 50;
/// Pages read in one sweep at most (a token that never ends the list ends the sweep instead).
pub const MAX_PAGES: usize = 1_000;

/// The loop: adopts scopes every [`ADOPT_EVERY`], claims due cursors while fewer than
/// [`READERS`] sweeps run.
pub async fn run(deps: WorkerDeps, tracker: TaskTracker, shutdown: CancellationToken) {
    let pace = Pace {
        name: "reconciliation",
        poll: POLL,
        adopt_every: ADOPT_EVERY,
        concurrent: READERS,
    };
    let worker = deps.clone();
    claim_loop::run(
        pace,
        tracker,
        shutdown,
        || store::adopt(&deps.db.write),
        |limit| claim_due(&deps, limit),
        move |cursor, lease| {
            let deps = worker.clone();
            async move {
                sweep(&deps, &cursor, &lease).await;
            }
        },
    )
    .await;
}

/// Claims up to `limit` due cursors, each for a fresh owner.
pub async fn claim_due(deps: &WorkerDeps, limit: usize) -> Result<Vec<(sync_cursor::Model, Held)>, DbErr> {
    let mut claimed = Vec::new();
    for cursor in store::due(&deps.db.write, limit as u64).await? {
        if let Some(lease) = SYNC_CURSORS
            .claim(&deps.db.write, &cursor.id, &owner_id(), LEASE)
            .await?
        {
            claimed.push((cursor, lease));
        }
    }
    Ok(claimed)
}

/// How a sweep ended.
#[derive(Debug, PartialEq, Eq)]
pub enum Swept {
    /// Every page read; `applied` snapshots changed a task.
    Done { pages: usize, applied: usize },
    /// The agent has no ListTasks: the cursor is `unsupported`.
    Unsupported,
    /// The scope has nothing to reconcile (no unfinished task, or the agent is disabled or
    /// gone): the cursor is `stopped` until a task wakes it.
    Stopped,
    /// A page failed: the next sweep starts from the first page after a backoff.
    Failed(SyncFailure),
    /// The lease was lost: nothing more was written.
    Abandoned,
}

/// Sweeps the scope of `cursor` under `lease` (renewed while it runs) and releases the cursor
/// as the outcome says.
pub async fn sweep(deps: &WorkerDeps, cursor: &sync_cursor::Model, lease: &Held) -> Swept {
    let heartbeat = Heartbeat::start(&deps.db, lease, HEARTBEAT);
    let outcome = tokio::select! {
        outcome = pages(deps, cursor, lease) => outcome,
        () = heartbeat.lost.cancelled() => Swept::Abandoned,
    };
    drop(heartbeat);
    let released = match &outcome {
        Swept::Done { .. } => {
            store::swept(&deps.db.write, lease, Utc::now() + chrono_of(SWEEP_INTERVAL)).await
        }
        Swept::Unsupported => store::settle(&deps.db.write, lease, SyncStatus::Unsupported).await,
        Swept::Stopped => store::settle(&deps.db.write, lease, SyncStatus::Stopped).await,
        Swept::Failed(failure) => {
            let attempts = cursor.attempts.saturating_add(1);
            let next = Utc::now() + chrono_of(backoff(attempts));
            store::failed(&deps.db.write, lease, attempts, *failure, next).await
        }
        Swept::Abandoned => Ok(true),
    };
    if let Err(error) = released {
        tracing::warn!(%error, cursor = %cursor.id, "reconciliation cursor release failed");
    }
    outcome
}

/// The delay before the next sweep after `attempts` failures in a row: 1 s doubling to 60 s.
pub fn backoff(attempts: i32) -> Duration {
    super::doubling(attempts, BACKOFF_START, BACKOFF_MAX)
}

fn chrono_of(duration: Duration) -> chrono::Duration {
    chrono::Duration::from_std(duration).unwrap_or(chrono::Duration::MAX)
}

/// Reads the scope's pages from the saved token on, ingesting what the console knows.
async fn pages(deps: &WorkerDeps, cursor: &sync_cursor::Model, lease: &Held) -> Swept {
    let agent = match agents::by_id(&deps.db.write, &cursor.agent_id).await {
        Ok(agent) => agent.filter(|a| a.enabled && a.removed_at.is_none()),
        Err(_) => return Swept::Failed(SyncFailure::Database),
    };
    let Some(agent) = agent else { return Swept::Stopped };
    let (endpoint, gateway) =
        match agent_services::connect(&deps.db, &deps.gateway, &deps.vault, &agent).await {
            Ok(connected) => connected,
            Err(agent_services::AgentServiceError::Gateway(GatewayError::Credential(_))) => {
                return Swept::Failed(SyncFailure::Credentials);
            }
            Err(_) => return Swept::Failed(SyncFailure::Unreachable),
        };
    let negotiated = match card_snapshots::latest(&deps.db, &agent.id).await {
        Ok(snapshot) => snapshot.map_or_else(Vec::new, |s| {
            negotiation::negotiated_sideband(&s.raw_card_json, &deps.understood_sideband)
        }),
        Err(_) => return Swept::Failed(SyncFailure::Database),
    };
    let mut token = cursor.page_token.clone();
    let mut applied = 0;
    for page in 1..=MAX_PAGES {
        // Versions before the remote read: a snapshot applies only to a task nothing changed since.
        let known: HashMap<String, (String, i64)> =
            match store::known_unfinished(&deps.db.write, cursor).await {
                Ok(known) => known
                    .into_iter()
                    .map(|(remote, local, v)| (remote, (local, v)))
                    .collect(),
                Err(_) => return Swept::Failed(SyncFailure::Database),
            };
        // Nothing unfinished: at the start the scope stops; later, every known task finished
        // during this sweep and the rest of the list can change nothing.
        if known.is_empty() {
            return if page == 1 {
                Swept::Stopped
            } else {
                Swept::Done {
                    pages: page - 1,
                    applied,
                }
            };
        }
        let params = encode_list_tasks(&cursor.tenant, deps.tuning.sweep_page_size, token.as_deref());
        let answer = match gateway.list_tasks(&endpoint, params, &negotiated).await {
            Ok(answer) => answer,
            Err(error) if lacks_list_tasks(&error) => return Swept::Unsupported,
            Err(GatewayError::Credential(_)) => return Swept::Failed(SyncFailure::Credentials),
            Err(GatewayError::Decode(_)) => return Swept::Failed(SyncFailure::InvalidAnswer),
            Err(_) => return Swept::Failed(SyncFailure::Unreachable),
        };
        let Ok(listed) = TaskPage::decode(&answer) else {
            return Swept::Failed(SyncFailure::InvalidAnswer);
        };
        let raw_tasks = answer
            .get("tasks")
            .and_then(|t| t.as_array())
            .cloned()
            .unwrap_or_default();
        for (task, raw) in listed.tasks.iter().zip(raw_tasks) {
            let Some((local, version)) = known.get(&task.id) else {
                continue;
            };
            let observation = observation(cursor, &endpoint, &negotiated, lease, local, *version, raw);
            match deps.ingestor.ingest(&observation).await {
                Ok(done) if done.sequence.is_some() => applied += 1,
                Ok(_) | Err(IngestError::Invalid(_)) => {}
                Err(IngestError::LeaseLost) => return Swept::Abandoned,
                Err(_) => return Swept::Failed(SyncFailure::Database),
            }
        }
        match listed.next_page_token.filter(|t| !t.is_empty()) {
            None => return Swept::Done { pages: page, applied },
            Some(next) => {
                match store::save_page(&deps.db.write, lease, &next).await {
                    Ok(true) => {}
                    Ok(false) => return Swept::Abandoned,
                    Err(_) => return Swept::Failed(SyncFailure::Database),
                }
                token = Some(next);
            }
        }
    }
    Swept::Done {
        pages: MAX_PAGES,
        applied,
    }
}

/// Whether the agent said it has no ListTasks: the binding has none (0.3 JSON-RPC), the
/// JSON-RPC method does not exist (-32601), or the REST route is not there (404, 405, 501).
fn lacks_list_tasks(error: &GatewayError) -> bool {
    match error {
        GatewayError::Unsupported { .. } => true,
        GatewayError::JsonRpc(e) => e.code == -32601,
        GatewayError::Http { status, .. } => matches!(status, 404 | 405 | 501),
        _ => false,
    }
}

/// A listed task as a reconciliation read of the local task `local`, fenced by the cursor's
/// lease and the task's `version` before the read.
fn observation(
    cursor: &sync_cursor::Model,
    endpoint: &crate::gateway::Endpoint,
    negotiated: &[String],
    lease: &Held,
    local: &str,
    version: i64,
    task: serde_json::Value,
) -> Observation {
    Observation {
        organization_id: cursor.organization_id.clone(),
        agent_id: cursor.agent_id.clone(),
        tenant: cursor.tenant.clone(),
        conversation_id: String::new(),
        local_task_id: Some(local.to_owned()),
        source: Source::Reconcile,
        source_key: None,
        payload: serde_json::json!({ "task": task }),
        extensions: negotiated.to_vec(),
        protocol_version: Some(endpoint.version.as_str().to_owned()),
        skill_id: None,
        fence: Some(Fence::Read {
            lease: lease.clone(),
            version,
        }),
        rearm: false,
    }
}
