//! The push registration lifecycle (`shared/spec/security-and-durability.md` §3.5, §3.7), run
//! only when `A2A_PUSH_CALLBACK_ORIGIN` is set.
//!
//! - Every [`ADOPT_EVERY`], each unfinished task of an agent whose card advertises push gets a
//!   registration with a durable id (existing tasks are adopted the same way), and one whose
//!   task finished or whose agent is disabled is marked for deletion. The registration is kept
//!   through input-required and auth-required.
//! - Due registrations are claimed under a 15 s lease (renewed every 5 s), at most
//!   [`CONCURRENT`] at once per process, and created or deleted at the agent:
//!   - **create** sends `CreateTaskPushNotificationConfig` with the registration's id as the
//!     config id, the callback URL `<origin>/api/webhooks/a2a/<id>` and the derived token as
//!     its `Bearer` credential. A retry first asks `GetTaskPushNotificationConfig` for that id:
//!     a create whose answer was lost is found there and never sent twice;
//!   - **delete** sends `DeleteTaskPushNotificationConfig`; "not found" counts as deleted.
//! - An agent that does not do push (`Unsupported`, `-32003`, `-32601`) or refuses the task
//!   marks the registration `failed` (callbacks are refused); anything else is retried after
//!   1 s doubling to 60 s. Every outcome is written only while the lease is held.

use std::time::Duration;

use app::a2a::{AgentCard, PushAuth, PushConfig, encode_push_config_ref};
use chrono::Utc;
use sea_orm::DbErr;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

use super::claim_loop::{self, Pace};
use super::{Heartbeat, WorkerDeps, owner_id};
use crate::config::push::PushSettings;
use crate::db::entity::task_push_registration as registration;
use crate::gateway::{Endpoint, Gateway, GatewayError};
use crate::services::agents as agent_services;
use crate::store::leases::Held;
use crate::store::push_registrations::{self as store, PushStatus};
use crate::store::{agents, card_snapshots, tasks};

pub const POLL: Duration = Duration::from_millis(500);
pub const ADOPT_EVERY: Duration = Duration::from_secs(2);
pub const CONCURRENT: usize = 4;
pub const LEASE: Duration = Duration::from_secs(15);
pub const HEARTBEAT: Duration = Duration::from_secs(5);
pub const BACKOFF_START: Duration = Duration::from_secs(1);
pub const BACKOFF_MAX: Duration = Duration::from_secs(60);

/// The loop; returns at once when push is off.
pub async fn run(deps: WorkerDeps, tracker: TaskTracker, shutdown: CancellationToken) {
    let Some(settings) = deps.push.clone() else { return };
    let pace = Pace {
        name: "push registrations",
        poll: POLL,
        adopt_every: ADOPT_EVERY,
        concurrent: CONCURRENT,
    };
    let worker = deps.clone();
    claim_loop::run(
        pace,
        tracker,
        shutdown,
        || adopt(&deps),
        |limit| claim_due(&deps, limit),
        move |row, lease| {
            let (deps, settings) = (worker.clone(), settings.clone());
            async move {
                work(&deps, &settings, &row, &lease).await;
            }
        },
    )
    .await;
}

/// Creates registrations for the unfinished tasks of agents that advertise push, and marks
/// for deletion those whose task finished or whose agent is disabled.
pub async fn adopt(deps: &WorkerDeps) -> Result<u64, DbErr> {
    let mut pushing = Vec::new();
    for agent in agents::enabled_all(&deps.db.write).await? {
        let advertises = card_snapshots::latest(&deps.db, &agent.id)
            .await
            .map_err(|e| DbErr::Custom(e.to_string()))?
            .and_then(|s| AgentCard::decode(&s.raw_card_json).ok())
            .is_some_and(|card| card.capabilities.push_notifications);
        if advertises {
            pushing.push(agent.id);
        }
    }
    let created = store::adopt(&deps.db.write, &pushing).await?;
    Ok(created + store::retire(&deps.db.write).await?)
}

/// Claims up to `limit` due registrations, each for a fresh owner.
pub async fn claim_due(deps: &WorkerDeps, limit: usize) -> Result<Vec<(registration::Model, Held)>, DbErr> {
    let mut claimed = Vec::new();
    for row in store::due(&deps.db.write, limit as u64).await? {
        if let Some(lease) = store::claim(&deps.db.write, &row, &owner_id(), LEASE).await? {
            claimed.push((row, lease));
        }
    }
    Ok(claimed)
}

/// How one lifecycle step ended.
#[derive(Debug, PartialEq, Eq)]
pub enum Step {
    /// The agent holds the config.
    Active,
    /// The agent no longer holds it (or never did).
    Deleted,
    /// The agent refused for good (a fixed code).
    Failed(&'static str),
    /// Try again after a backoff (a fixed code).
    Retry(&'static str),
    /// The lease was lost: nothing was written.
    Abandoned,
}

/// Creates or deletes the registration at its agent under `lease` (renewed while it runs), and
/// records the outcome.
pub async fn work(
    deps: &WorkerDeps,
    settings: &PushSettings,
    row: &registration::Model,
    lease: &Held,
) -> Step {
    let heartbeat = Heartbeat::start(&deps.db, lease, HEARTBEAT);
    let step = tokio::select! {
        step = lifecycle(deps, settings, row) => step,
        () = heartbeat.lost.cancelled() => Step::Abandoned,
    };
    drop(heartbeat);
    let now = Utc::now();
    let written = match &step {
        // Retired while it was being created: deleted next.
        Step::Active => match store::release(&deps.db.write, lease, PushStatus::Active, 0, None, now).await {
            Ok(true) => store::delete_if_retired(&deps.db.write, &row.id)
                .await
                .map(|_| true),
            other => other,
        },
        Step::Deleted => store::release(&deps.db.write, lease, PushStatus::Deleted, 0, None, now).await,
        Step::Failed(code) => {
            store::release(
                &deps.db.write,
                lease,
                PushStatus::Failed,
                row.attempts,
                Some(code),
                now,
            )
            .await
        }
        Step::Retry(code) => {
            let attempts = row.attempts.saturating_add(1);
            let next = now + chrono::Duration::from_std(backoff(attempts)).unwrap_or(chrono::Duration::MAX);
            store::release(
                &deps.db.write,
                lease,
                PushStatus::Pending,
                attempts,
                Some(code),
                next,
            )
            .await
        }
        Step::Abandoned => Ok(true),
    };
    if let Err(error) = written {
        tracing::warn!(%error, registration = %row.id, "push registration release failed");
    }
    step
}

/// 1 s doubling to 60 s.
pub fn backoff(attempts: i32) -> Duration {
    super::doubling(attempts, BACKOFF_START, BACKOFF_MAX)
}

async fn lifecycle(deps: &WorkerDeps, settings: &PushSettings, row: &registration::Model) -> Step {
    let task = match tasks::by_id(&deps.db.write, &row.task_id).await {
        Ok(Some(task)) => task,
        // The task is gone: so is anything to register for it.
        Ok(None) => {
            return if row.desired {
                Step::Failed("no_task")
            } else {
                Step::Deleted
            };
        }
        Err(_) => return Step::Retry("database"),
    };
    let Some(remote) = task.remote_task_id.clone() else {
        return Step::Failed("no_remote_task");
    };
    let agent = match agents::by_id(&deps.db.write, &row.agent_id).await {
        Ok(agent) => agent.filter(|a| a.removed_at.is_none()),
        Err(_) => return Step::Retry("database"),
    };
    // A removed agent cannot be reached to delete anything: its configs die with it.
    let Some(agent) = agent else { return Step::Deleted };
    let (endpoint, gateway) =
        match agent_services::connect(&deps.db, &deps.gateway, &deps.vault, &agent).await {
            Ok(connected) => connected,
            Err(_) => return Step::Retry("unreachable"),
        };
    let gateway = crate::workers::for_task(gateway, &task);
    let reference = encode_push_config_ref(&remote, &row.id, &task.tenant, endpoint.version);
    if !row.desired {
        return match gateway.delete_push_config(&endpoint, reference, &[]).await {
            Ok(_) => Step::Deleted,
            Err(error) if not_found(&error) => Step::Deleted,
            Err(error) => classify(&error),
        };
    }
    // A retry, or a create another worker may have sent before it lost the row (its lease
    // ran out while `registering`): a create whose answer was lost is found by its id, never
    // sent twice.
    if row.attempts > 0 || row.status == PushStatus::Registering {
        match gateway.get_push_config(&endpoint, reference, &[]).await {
            Ok(found)
                if PushConfig::decode(&found).is_ok_and(|c| c.url == settings.callback_url(&row.id)) =>
            {
                return Step::Active;
            }
            Ok(_) => {}
            Err(error) if not_found(&error) => {}
            Err(error) => return classify(&error),
        }
    }
    create(&gateway, &endpoint, settings, row, &remote, &task.tenant).await
}

async fn create(
    gateway: &Gateway,
    endpoint: &Endpoint,
    settings: &PushSettings,
    row: &registration::Model,
    remote: &str,
    tenant: &str,
) -> Step {
    let config = PushConfig {
        id: Some(row.id.clone()),
        task_id: Some(remote.to_owned()),
        url: settings.callback_url(&row.id),
        token: None,
        authentication: Some(PushAuth {
            scheme: "Bearer".into(),
            credentials: Some(crate::push::callback_token(
                settings.key(),
                &row.organization_id,
                &row.id,
            )),
        }),
        tenant: Some(tenant.to_owned()).filter(|t| !t.is_empty()),
    };
    match gateway
        .create_push_config(endpoint, config.encode(endpoint.version), &[])
        .await
    {
        Ok(_) => Step::Active,
        Err(error) => classify(&error),
    }
}

/// The agent says there is no such config (or task).
fn not_found(error: &GatewayError) -> bool {
    match error {
        GatewayError::JsonRpc(e) => e.code == -32001,
        GatewayError::Http { status, .. } => *status == 404,
        _ => false,
    }
}

/// A refusal for good, or something to retry.
fn classify(error: &GatewayError) -> Step {
    match error {
        GatewayError::Unsupported { .. } => Step::Failed("unsupported"),
        GatewayError::JsonRpc(e) if matches!(e.code, -32003 | -32601) => Step::Failed("unsupported"),
        GatewayError::JsonRpc(e) if e.code == -32001 => Step::Failed("task_not_found"),
        // Any other agent error may pass (an internal error, a busy agent).
        GatewayError::JsonRpc(_) => Step::Retry("agent_error"),
        GatewayError::Refused { .. } | GatewayError::CardTrust | GatewayError::Credential(_) => {
            Step::Retry("refused")
        }
        _ => Step::Retry("unreachable"),
    }
}
