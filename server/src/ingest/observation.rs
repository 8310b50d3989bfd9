//! What ingestion takes and gives: an [`Observation`] of a task from some [`Source`], possibly
//! [`Fence`]d by a lease, and what was [`Ingested`] or why not ([`IngestError`]).

use app::projection::TaskKind;
use sea_orm::DbErr;
use serde_json::Value;

use crate::db::entity::task;
use crate::store::leases::Held;

/// Where an observation came from (`task_events.source`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Source {
    /// The result of a SendMessage / CancelTask the console dispatched.
    CommandResponse,
    /// The user's own message, recorded when its send succeeds.
    Command,
    /// SendStreamingMessage / SubscribeToTask events.
    Stream,
    /// GetTask polling.
    Reconcile,
    /// A push notification the agent delivered to the receiver.
    Push,
}

impl Source {
    pub fn as_str(self) -> &'static str {
        match self {
            Source::CommandResponse => "command_response",
            Source::Command => "command",
            Source::Stream => "stream",
            Source::Reconcile => "reconcile",
            Source::Push => "push",
        }
    }
}

/// A lease the caller must still hold for its observation to commit (`fenced` writes, §3.5).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Fence {
    /// The lease on the task's subscription, checked with [`Held::holds`] inside the writing
    /// transaction: it renews the lease and locks the row until commit, so a competing claim
    /// waits and then finds it renewed.
    Lease(Held),
    /// A read of the task (a `ListTasks` page) made under `lease` (the reconciliation
    /// cursor's) against the task's `version` as it was before the remote read: it commits only
    /// while the lease is held, and is skipped if anything changed the task since
    /// (security-and-durability §3.8: "a concurrent update wins").
    Read { lease: Held, version: i64 },
    /// A push delivery on the registration `id` (security-and-durability §3.7 step 7): inside
    /// the writing transaction the registration is locked and must still accept callbacks (not
    /// deleted or failed, its agent enabled); otherwise nothing commits ([`IngestError::LeaseLost`]).
    Push { registration: String },
}

/// One observation to ingest.
#[derive(Clone, Debug)]
pub struct Observation {
    pub organization_id: String,
    pub agent_id: String,
    pub tenant: String,
    /// The conversation a newly seen task joins.
    pub conversation_id: String,
    /// The local task when the caller knows it (a follow-up, a subscription).
    pub local_task_id: Option<String>,
    pub source: Source,
    /// The source's own identity of the event; `None` uses the payload's canonical digest.
    pub source_key: Option<String>,
    /// The stream response as received (1.0 wrapper or 0.3 `kind` object).
    pub payload: Value,
    /// Extension URIs negotiated for the exchange.
    pub extensions: Vec<String>,
    pub protocol_version: Option<String>,
    pub skill_id: Option<String>,
    pub fence: Option<Fence>,
    /// Re-arm the task's subscription when this leaves it active (a new command did).
    pub rearm: bool,
}

/// What ingestion did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Ingested {
    pub organization_id: String,
    pub task_id: String,
    pub conversation_id: String,
    pub kind: TaskKind,
    pub remote_task_id: Option<String>,
    pub remote_context_id: Option<String>,
    /// The new ledger sequence; `None` when the event was a duplicate and changed nothing.
    pub sequence: Option<i64>,
    pub new_task: bool,
    pub state: app::a2a::TaskState,
    /// The task's subscription row exists once this commits.
    pub subscribed: bool,
}

/// Why an observation was not ingested.
#[derive(Debug, thiserror::Error)]
pub enum IngestError {
    #[error("Invalid A2A event: {0}")]
    Invalid(String),
    #[error("{0}")]
    Identity(&'static str),
    #[error("Read lease lost.")]
    LeaseLost,
    #[error("Artifact store unavailable: {0}")]
    Archive(#[from] std::io::Error),
    #[error(transparent)]
    Db(#[from] DbErr),
}

pub(super) fn outcome(row: &task::Model, sequence: Option<i64>, new_task: bool) -> Ingested {
    Ingested {
        organization_id: row.organization_id.clone(),
        task_id: row.id.clone(),
        conversation_id: row.conversation_id.clone(),
        kind: row.kind,
        remote_task_id: row.remote_task_id.clone(),
        remote_context_id: row.remote_context_id.clone(),
        sequence,
        new_task,
        state: row.state.clone(),
        subscribed: false,
    }
}
