//! The single ingestion path (`shared/spec/security-and-durability.md` §3.1–§3.2): every
//! observation of a task — a send's response, a stream event, a poll — is validated,
//! de-duplicated, appended to the ledger and folded into the projections in one transaction,
//! then published on the [`bus`].
//!
//! Inside the transaction: lock the task row (create it on first sight), check the task
//! identity and the caller's lease, de-duplicate on `(task, source, source_key)`, allocate the
//! next ledger sequence of the organization (under the counter's row lock, so sequences
//! commit in order and a reader following them never skips one), append, fold, bump the
//! task's version, and record the intent to keep following an active task.

pub mod archive;
pub mod bus;
pub mod committed;
mod fold;
pub mod gc;
pub mod verify;

use app::a2a::{DecodedEvent, StreamEvent, TaskState, decode_stream_event};
use app::projection::TaskKind;
use chrono::Utc;
use sea_orm::sea_query::OnConflict;
use sea_orm::{
    ActiveValue::Set, ColumnTrait, ConnectionTrait, DatabaseBackend, DatabaseTransaction, DbErr, EntityTrait,
    QueryFilter, QuerySelect, Statement, TransactionTrait,
};
use serde_json::Value;
use std::sync::atomic::{AtomicU64, Ordering};

use self::archive::{Archived, ArtifactStore, digest};
use self::bus::{Bus, Notice};
use crate::db::Db;
use crate::db::entity::{artifact_access, task, task_event, task_subscription};
use crate::store::new_id;

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
}

impl Source {
    pub fn as_str(self) -> &'static str {
        match self {
            Source::CommandResponse => "command_response",
            Source::Command => "command",
            Source::Stream => "stream",
            Source::Reconcile => "reconcile",
        }
    }
}

/// A lease the caller must still hold for its observation to commit (`fenced` writes, §3.5).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Fence {
    Subscription { id: String, owner: String },
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
    pub state: String,
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

/// Work a layer above ingestion does in ingestion's transaction after an event changed a task:
/// the approval detector opens a decision request in the same transaction as the prompt that
/// carries it. Ingestion calls it without knowing what it does, so `ingest` depends on no layer
/// above it; [`AppState`](crate::AppState) installs the services' hook.
pub trait TaskChanged: Send + Sync + std::fmt::Debug {
    /// Runs inside `tx`, after the change is folded into `row` and before it commits.
    fn task_changed<'a>(
        &'a self,
        tx: &'a DatabaseTransaction,
        row: &'a task::Model,
    ) -> futures::future::BoxFuture<'a, Result<(), DbErr>>;
}

/// The ingestion service: the database, the artifact store and the bus.
#[derive(Clone, Debug)]
pub struct Ingestor {
    pub db: Db,
    pub store: ArtifactStore,
    pub bus: Bus,
    pub subscribed: Subscribed,
    /// What this process stored, for `/metrics`.
    pub counters: std::sync::Arc<IngestCounters>,
    /// Run after an event changed a task; none in an ingestor built without one (tests, tools).
    pub on_change: Option<std::sync::Arc<dyn TaskChanged>>,
}

/// Counts of what ingestion committed in this process (`GET /metrics`).
#[derive(Debug, Default)]
pub struct IngestCounters {
    /// Events appended to the ledger (a duplicate is not).
    pub events: AtomicU64,
    /// Transactions that stored a group of several observations ([`Ingestor::ingest_group`]).
    pub group_commits: AtomicU64,
    /// Ledger events those transactions appended.
    pub grouped_events: AtomicU64,
}

/// Tasks whose subscription row is known to exist in the database. A row is never deleted, so
/// an event of a task in this set skips the lookup `subscriptions::arm` would make: one
/// statement fewer per followed event, each a round trip to the database driver (issue #6).
/// Filled only after a commit ([`Ingestor::publish`]); cleared when it grows past
/// [`Subscribed::CAPACITY`] tasks.
#[derive(Clone, Debug, Default)]
pub struct Subscribed(std::sync::Arc<std::sync::Mutex<std::collections::HashSet<String>>>);

impl Subscribed {
    /// Tasks remembered before the set starts over (a few MB at most).
    pub const CAPACITY: usize = 50_000;

    pub fn contains(&self, task_id: &str) -> bool {
        self.0.lock().is_ok_and(|set| set.contains(task_id))
    }

    fn remember(&self, task_id: &str) {
        if let Ok(mut set) = self.0.lock()
            && !set.contains(task_id)
        {
            if set.len() >= Self::CAPACITY {
                set.clear();
            }
            set.insert(task_id.to_owned());
        }
    }
}

/// An observation checked and with its bytes archived, ready for the transaction.
pub struct Prepared {
    event: StreamEvent,
    payload: Value,
    digest: String,
    archived: Vec<Archived>,
}

impl Prepared {
    /// The event as it will be stored: inline bytes replaced by archive references.
    pub fn payload(&self) -> &Value {
        &self.payload
    }
}

impl Ingestor {
    pub fn new(db: Db, store: ArtifactStore, bus: Bus) -> Ingestor {
        Ingestor {
            db,
            store,
            bus,
            subscribed: Subscribed::default(),
            counters: Default::default(),
            on_change: None,
        }
    }

    /// The same ingestor, running `hook` after every event that changes a task.
    pub fn with_task_hook(mut self, hook: std::sync::Arc<dyn TaskChanged>) -> Ingestor {
        self.on_change = Some(hook);
        self
    }

    /// Ingests one observation in its own transaction and publishes it.
    pub async fn ingest(&self, observation: &Observation) -> Result<Ingested, IngestError> {
        let mut done = self.ingest_group(std::slice::from_ref(observation)).await?;
        Ok(done.pop().expect("one observation is ingested or fails"))
    }

    /// Decodes the payload and archives its inline bytes. Called before the transaction, so no
    /// file is written while the database is locked; a file whose event is not stored has no
    /// `artifact_access` row and is never served. It blocks on file I/O: async callers use
    /// [`Ingestor::prepare_all`].
    pub fn prepare(&self, observation: &Observation) -> Result<Prepared, IngestError> {
        let DecodedEvent { event, .. } =
            decode_stream_event(&observation.payload).map_err(|e| IngestError::Invalid(e.to_string()))?;
        let original = canonical(&observation.payload);
        let digest = digest(original.as_bytes());
        let (payload, archived) = self
            .store
            .archive_parts(&observation.organization_id, &observation.payload)?;
        // The stored event is the rewritten one; decode it again so projections hold references.
        let event = if payload == observation.payload {
            event
        } else {
            // The complete original is archived under the event's digest, so a rebuild can
            // check the stored version against it (security-and-durability §3.2). When a part
            // was refused (too large, not base64, past the quota) the original would keep the
            // refused bytes, and when the original itself would pass the quota it is not kept
            // either: a marker then vouches for the stored version instead (verify.rs).
            let refused = archive::archive_notes(&payload)
                .iter()
                .any(|note| note.get("refused").is_some());
            let kept = !refused
                && match self.store.put(&observation.organization_id, original.as_bytes()) {
                    Ok(_) => true,
                    Err(archive::PutError::Io(error)) => return Err(error.into()),
                    Err(archive::PutError::QuotaFull(_)) => false,
                };
            if !kept {
                let stored = archive::digest(canonical(&payload).as_bytes());
                self.store.put_marker(
                    &observation.organization_id,
                    &archive::stored_marker(&digest, &stored),
                )?;
            }
            decode_stream_event(&payload)
                .map_err(|e| IngestError::Invalid(e.to_string()))?
                .event
        };
        Ok(Prepared {
            event,
            payload,
            digest,
            archived,
        })
    }

    /// [`Ingestor::prepare`] of each observation, on the blocking pool: decoding, digests and
    /// the archive's file writes stay off the async executor.
    pub async fn prepare_all(&self, observations: &[Observation]) -> Result<Vec<Prepared>, IngestError> {
        let ingestor = self.clone();
        let observations = observations.to_vec();
        let prepared = tokio::task::spawn_blocking(move || {
            observations
                .iter()
                .map(|observation| ingestor.prepare(observation))
                .collect::<Result<Vec<_>, _>>()
        })
        .await;
        match prepared {
            Ok(prepared) => prepared,
            Err(error) if error.is_panic() => std::panic::resume_unwind(error.into_panic()),
            Err(error) => Err(IngestError::Archive(std::io::Error::other(error))),
        }
    }

    /// Publishes what a committed [`Ingestor::apply`] did, and remembers that its task has a
    /// subscription row.
    pub fn publish(&self, ingested: &Ingested) {
        if ingested.subscribed {
            self.subscribed.remember(&ingested.task_id);
        }
        if let Some(sequence) = ingested.sequence {
            self.counters.events.fetch_add(1, Ordering::Relaxed);
            self.bus.publish(Notice::Ledger {
                organization_id: ingested.organization_id.clone(),
                task_id: ingested.task_id.clone(),
                conversation_id: ingested.conversation_id.clone(),
                sequence,
                new_task: ingested.new_task,
            });
        }
    }

    /// The ingestion steps inside the caller's transaction (the dispatch worker commits the
    /// command's outcome in the same one).
    pub async fn apply(
        &self,
        tx: &DatabaseTransaction,
        observation: &Observation,
        prepared: Prepared,
    ) -> Result<Ingested, IngestError> {
        if let Some(fence) = &observation.fence {
            check_fence(tx, fence).await?;
        }
        let (row, new_task) = locate_task(tx, observation, &prepared.event).await?;
        let mut open = Open::new(row, new_task);
        let ingested = self.fold_into(tx, &mut open, observation, prepared).await?;
        open.write(tx).await?;
        Ok(ingested)
    }

    /// Ingests observations in order in one transaction, and publishes them after it commits
    /// (more than one is a group commit, issue #6). Ingestion stops after the first observation
    /// that leaves its task's stream ended (the rest would only be ignored by the caller); the
    /// result holds what was ingested, in order. All or nothing: on an error nothing commits.
    ///
    /// Consecutive observations of the same local task share one task-row lookup and one
    /// write, and a lease is checked once for all the observations it fences, so a group of
    /// events costs far fewer statements (each a round trip to the driver) than one
    /// transaction per event.
    pub async fn ingest_group(&self, observations: &[Observation]) -> Result<Vec<Ingested>, IngestError> {
        if observations.is_empty() {
            return Ok(Vec::new());
        }
        let prepared = self.prepare_all(observations).await?;
        let tx = self.db.write.begin().await?;
        let mut checked: Option<&Fence> = None;
        let mut open: Option<Open> = None;
        let mut done = Vec::with_capacity(observations.len());
        for (observation, prepared) in observations.iter().zip(prepared) {
            if let Some(fence) = &observation.fence
                && checked != Some(fence)
            {
                check_fence(&tx, fence).await?;
                checked = Some(fence);
            }
            // The row is reused only for the same task seen by the same agent; anything else is
            // looked up (and checked) again.
            let same_task = open.as_ref().is_some_and(|open| {
                observation.local_task_id.as_deref() == Some(open.row.id.as_str())
                    && observation.agent_id == open.row.agent_id
            });
            if !same_task {
                if let Some(previous) = open.take() {
                    previous.write(&tx).await?;
                }
                let (row, new_task) = locate_task(&tx, observation, &prepared.event).await?;
                open = Some(Open::new(row, new_task));
            }
            let current = open.as_mut().expect("a task row is open");
            let ingested = self.fold_into(&tx, current, observation, prepared).await?;
            // Nothing after a terminal state can change the task; a paused one may still move
            // on (a stale snapshot first, then the agent's work: issue #27), so the rest of
            // the group is kept.
            let ended = TaskState::parse(&ingested.state).is_terminal();
            done.push(ingested);
            if ended {
                break;
            }
        }
        if let Some(last) = open {
            last.write(&tx).await?;
        }
        tx.commit().await?;
        let stored = done.iter().filter(|ingested| ingested.sequence.is_some()).count();
        if observations.len() > 1 && stored > 0 {
            self.counters.group_commits.fetch_add(1, Ordering::Relaxed);
            self.counters
                .grouped_events
                .fetch_add(stored as u64, Ordering::Relaxed);
        }
        for ingested in &done {
            self.publish(ingested);
        }
        Ok(done)
    }

    /// One observation folded into the open task row: identity check, de-duplication, ledger
    /// append, projections. The row itself is written by [`Open::write`].
    async fn fold_into(
        &self,
        tx: &DatabaseTransaction,
        open: &mut Open,
        observation: &Observation,
        prepared: Prepared,
    ) -> Result<Ingested, IngestError> {
        // Only the first observation of a row this transaction created reports it as new.
        let new_task = std::mem::replace(&mut open.new_task, false);
        let row = &mut open.row;
        if let (Some(remote), Some(incoming)) = (&row.remote_task_id, prepared.event.task_id())
            && remote != incoming
        {
            return Err(IngestError::Identity("Unexpected task identity."));
        }
        let source = observation.source.as_str();
        // Identical events are told apart by the user turn they belong to.
        let key = match &observation.source_key {
            Some(key) if matches!(observation.source, Source::Stream | Source::Reconcile) => {
                format!("t{}:{key}", row.turn)
            }
            Some(key) => key.clone(),
            None => format!("t{}:{}", row.turn, prepared.digest),
        };
        let duplicate = task_event::Entity::find()
            .filter(task_event::Column::TaskId.eq(&row.id))
            .filter(task_event::Column::Source.eq(source))
            .filter(task_event::Column::SourceKey.eq(&key))
            .one(tx)
            .await?
            .is_some();
        if duplicate {
            return Ok(outcome(row, None, new_task));
        }
        let sequence = next_sequence(tx, &observation.organization_id).await?;
        let now = Utc::now();
        task_event::Entity::insert(task_event::ActiveModel {
            id: Set(new_id()),
            organization_id: Set(observation.organization_id.clone()),
            task_id: Set(row.id.clone()),
            sequence: Set(sequence),
            source: Set(source.to_owned()),
            event_kind: Set(event_kind(&prepared.event).to_owned()),
            source_key: Set(key),
            payload_digest: Set(prepared.digest),
            payload_json: Set(prepared.payload),
            extensions_json: Set(serde_json::json!(observation.extensions)),
            protocol_version: Set(observation.protocol_version.clone()),
            remote_timestamp: Set(remote_timestamp(&prepared.event)),
            received_at: Set(now),
        })
        .exec_without_returning(tx)
        .await?;
        for archived in &prepared.archived {
            record_access(tx, observation, &row.id, archived).await?;
        }
        let was_terminal = TaskState::parse(&row.state).is_terminal();
        let mut folded = fold::Folded { row, changed: false };
        fold::fold(tx, &mut folded, sequence, &prepared.event).await?;
        let changed = folded.changed;
        if observation.source == Source::CommandResponse {
            row.turn += 1;
        }
        if changed {
            row.version += 1;
        }
        row.last_sequence = sequence;
        row.updated_at = now;
        let state = TaskState::parse(&row.state);
        if state.is_terminal() && !was_terminal {
            row.terminal_at = Some(now);
        }
        open.dirty = true;
        let row = &open.row;
        // An approval request opens in the same transaction as the prompt that carries it.
        if changed && let Some(hook) = &self.on_change {
            hook.task_changed(tx, row).await?;
        }
        let mut ingested = outcome(row, Some(sequence), new_task);
        // Every unfinished task is followed, a waiting one included: an agent may move on from
        // input-required by itself, and a reply's first answer may be a stale snapshot (the
        // subscription worker polls waiting tasks, security-and-durability §3.6).
        if row.kind == TaskKind::Task.as_str() && row.remote_task_id.is_some() && !state.is_terminal() {
            // Arming a task that has its row changes nothing, unless it restarts a stopped one.
            if observation.rearm || !(open.armed || self.subscribed.contains(&row.id)) {
                crate::store::subscriptions::arm(tx, row, observation.rearm).await?;
            }
            open.armed = true;
            ingested.subscribed = true;
        }
        Ok(ingested)
    }
}

/// The locked task row observations are folded into, written once when they are done.
struct Open {
    row: task::Model,
    /// The row was created by this transaction.
    new_task: bool,
    /// An event changed the row since it was read.
    dirty: bool,
    /// Its subscription row exists in this transaction.
    armed: bool,
}

impl Open {
    fn new(row: task::Model, new_task: bool) -> Self {
        Self {
            row,
            new_task,
            dirty: false,
            armed: false,
        }
    }

    async fn write(self, tx: &DatabaseTransaction) -> Result<(), DbErr> {
        if !self.dirty {
            return Ok(());
        }
        let saved = self.row;
        let active = task::ActiveModel {
            id: sea_orm::ActiveValue::Unchanged(saved.id),
            remote_task_id: Set(saved.remote_task_id),
            remote_context_id: Set(saved.remote_context_id),
            state: Set(saved.state),
            state_timestamp: Set(saved.state_timestamp),
            title: Set(saved.title),
            turn: Set(saved.turn),
            version: Set(saved.version),
            last_sequence: Set(saved.last_sequence),
            updated_at: Set(saved.updated_at),
            terminal_at: Set(saved.terminal_at),
            ..Default::default()
        };
        // Without returning: on SQLite, sea-orm reads an updated row back with a second
        // statement, and every statement is a round trip to the driver's thread (issue #6).
        task::Entity::update(active).exec_without_returning(tx).await?;
        Ok(())
    }
}

fn outcome(row: &task::Model, sequence: Option<i64>, new_task: bool) -> Ingested {
    Ingested {
        organization_id: row.organization_id.clone(),
        task_id: row.id.clone(),
        conversation_id: row.conversation_id.clone(),
        kind: TaskKind::parse(&row.kind),
        remote_task_id: row.remote_task_id.clone(),
        remote_context_id: row.remote_context_id.clone(),
        sequence,
        new_task,
        state: row.state.clone(),
        subscribed: false,
    }
}

/// The ledger form of canonical JSON, over which payload digests are computed; one writer for
/// the whole workspace lives in [`app::ext::canonical`], whose docs say why the ledger keeps its own
/// key order and number text.
pub use app::ext::canonical::ledger_json as canonical;

fn event_kind(event: &StreamEvent) -> &'static str {
    match event {
        StreamEvent::Task(_) => "task",
        StreamEvent::Message(_) => "message",
        StreamEvent::StatusUpdate(_) => "statusUpdate",
        StreamEvent::ArtifactUpdate(_) => "artifactUpdate",
    }
}

fn remote_timestamp(event: &StreamEvent) -> Option<String> {
    match event {
        StreamEvent::Task(t) => t.status.timestamp.clone(),
        StreamEvent::StatusUpdate(u) => u.status.timestamp.clone(),
        _ => None,
    }
}

async fn check_fence(tx: &DatabaseTransaction, fence: &Fence) -> Result<(), IngestError> {
    match fence {
        Fence::Subscription { id, owner } => {
            let held = task_subscription::Entity::find_by_id(id.clone())
                .filter(task_subscription::Column::LeaseOwner.eq(owner))
                .filter(task_subscription::Column::LeaseUntil.gt(Utc::now()))
                .one(tx)
                .await?
                .is_some();
            if held { Ok(()) } else { Err(IngestError::LeaseLost) }
        }
    }
}

/// The task row the event belongs to, locked; created on first sight.
async fn locate_task(
    tx: &DatabaseTransaction,
    observation: &Observation,
    event: &StreamEvent,
) -> Result<(task::Model, bool), IngestError> {
    let lock = |select: sea_orm::Select<task::Entity>| {
        if tx.get_database_backend() == DatabaseBackend::Postgres {
            select.lock_exclusive()
        } else {
            select
        }
    };
    if let Some(local) = &observation.local_task_id {
        let row = lock(task::Entity::find_by_id(local.clone()))
            .one(tx)
            .await?
            .ok_or(IngestError::Identity("Unknown local task."))?;
        if row.agent_id != observation.agent_id {
            return Err(IngestError::Identity("Unexpected push scope."));
        }
        return Ok((row, false));
    }
    let remote = event.task_id().map(str::to_owned);
    let find_remote = |remote: String| {
        lock(
            task::Entity::find()
                .filter(task::Column::AgentId.eq(&observation.agent_id))
                .filter(task::Column::Tenant.eq(&observation.tenant))
                .filter(task::Column::RemoteTaskId.eq(remote)),
        )
    };
    if let Some(remote) = &remote
        && let Some(row) = find_remote(remote.clone()).one(tx).await?
    {
        return Ok((row, false));
    }
    let now = Utc::now();
    let id = new_id();
    let kind = if remote.is_some() {
        TaskKind::Task
    } else {
        TaskKind::Message
    };
    let row = task::ActiveModel {
        id: Set(id.clone()),
        organization_id: Set(observation.organization_id.clone()),
        agent_id: Set(observation.agent_id.clone()),
        conversation_id: Set(observation.conversation_id.clone()),
        tenant: Set(observation.tenant.clone()),
        remote_task_id: Set(remote.clone()),
        remote_context_id: Set(None),
        kind: Set(kind.as_str().to_owned()),
        state: Set(match kind {
            TaskKind::Task => TaskState::Submitted.as_v1_str().to_owned(),
            TaskKind::Message => "MESSAGE".to_owned(),
        }),
        state_timestamp: Set(None),
        title: Set(String::new()),
        skill_id: Set(observation.skill_id.clone()),
        turn: Set(0),
        version: Set(0),
        last_sequence: Set(0),
        created_at: Set(now),
        updated_at: Set(now),
        terminal_at: Set(None),
    };
    task::Entity::insert(row)
        .on_conflict(
            OnConflict::columns([
                task::Column::AgentId,
                task::Column::Tenant,
                task::Column::RemoteTaskId,
            ])
            .do_nothing()
            .to_owned(),
        )
        .exec_without_returning(tx)
        .await?;
    let row = match remote {
        Some(remote) => find_remote(remote).one(tx).await?,
        None => task::Entity::find_by_id(id.clone()).one(tx).await?,
    }
    .ok_or(IngestError::Identity("Task row vanished."))?;
    let created = row.id == id;
    Ok((row, created))
}

/// The next ledger sequence of the organization. The counter row stays locked until the
/// transaction commits, so sequences become visible in order.
async fn next_sequence(tx: &DatabaseTransaction, organization_id: &str) -> Result<i64, DbErr> {
    let backend = tx.get_database_backend();
    let placeholder = if backend == DatabaseBackend::Postgres {
        "$1"
    } else {
        "?"
    };
    let sql = format!(
        "INSERT INTO ledger_counters (organization_id, value) VALUES ({placeholder}, 1) \
         ON CONFLICT (organization_id) DO UPDATE SET value = ledger_counters.value + 1 RETURNING value"
    );
    let row = tx
        .query_one_raw(Statement::from_sql_and_values(
            backend,
            sql,
            [organization_id.into()],
        ))
        .await?
        .ok_or_else(|| DbErr::Custom("ledger counter returned no row".into()))?;
    row.try_get_by_index::<i64>(0)
}

async fn record_access(
    tx: &DatabaseTransaction,
    observation: &Observation,
    task_id: &str,
    archived: &Archived,
) -> Result<(), DbErr> {
    artifact_access::Entity::insert(artifact_access::ActiveModel {
        id: Set(new_id()),
        organization_id: Set(observation.organization_id.clone()),
        task_id: Set(task_id.to_owned()),
        digest: Set(archived.digest.clone()),
        media_type: Set(archived.media_type.clone()),
        filename: Set(archived.filename.clone()),
        size: Set(archived.size as i64),
        created_at: Set(Utc::now()),
    })
    .on_conflict(
        OnConflict::columns([artifact_access::Column::TaskId, artifact_access::Column::Digest])
            .do_nothing()
            .to_owned(),
    )
    .exec_without_returning(tx)
    .await?;
    Ok(())
}

/// Rebuilds a task's projections from its ledger: the projection rows are dropped and every
/// stored event is folded again, in sequence order, in one transaction under the task lock.
/// A stored event that no longer decodes fails the rebuild and leaves the previous projection
/// in place. Rebuilding never writes ledger events or contacts an agent, and rebuilding twice
/// gives the same projection. Returns how many events were folded.
pub async fn rebuild(db: &Db, task_id: &str) -> Result<usize, IngestError> {
    use crate::db::entity::{task_artifact, task_artifact_chunk, task_message, task_transition};
    use sea_orm::QueryOrder;

    let tx = db.write.begin().await?;
    let select = task::Entity::find_by_id(task_id.to_owned());
    let select = if tx.get_database_backend() == DatabaseBackend::Postgres {
        select.lock_exclusive()
    } else {
        select
    };
    let mut row = select
        .one(&tx)
        .await?
        .ok_or(IngestError::Identity("Unknown local task."))?;
    task_message::Entity::delete_many()
        .filter(task_message::Column::TaskId.eq(task_id))
        .exec(&tx)
        .await?;
    task_artifact_chunk::Entity::delete_many()
        .filter(task_artifact_chunk::Column::TaskId.eq(task_id))
        .exec(&tx)
        .await?;
    task_artifact::Entity::delete_many()
        .filter(task_artifact::Column::TaskId.eq(task_id))
        .exec(&tx)
        .await?;
    task_transition::Entity::delete_many()
        .filter(task_transition::Column::TaskId.eq(task_id))
        .exec(&tx)
        .await?;
    // The row as ingestion first created it; identity and scheduling columns stay.
    row.state = match TaskKind::parse(&row.kind) {
        TaskKind::Task => TaskState::Submitted.as_v1_str().to_owned(),
        TaskKind::Message => "MESSAGE".to_owned(),
    };
    row.state_timestamp = None;
    row.remote_context_id = None;
    row.title = String::new();
    row.terminal_at = None;
    let events = task_event::Entity::find()
        .filter(task_event::Column::TaskId.eq(task_id))
        .order_by_asc(task_event::Column::Sequence)
        .all(&tx)
        .await?;
    let mut folded = fold::Folded {
        row: &mut row,
        changed: false,
    };
    for event in &events {
        let decoded =
            decode_stream_event(&event.payload_json).map_err(|e| IngestError::Invalid(e.to_string()))?;
        fold::fold(&tx, &mut folded, event.sequence, &decoded.event).await?;
    }
    let now = chrono::Utc::now();
    if TaskState::parse(&row.state).is_terminal() {
        row.terminal_at = Some(row.updated_at);
    }
    let active = task::ActiveModel {
        id: sea_orm::ActiveValue::Unchanged(row.id.clone()),
        remote_task_id: Set(row.remote_task_id.clone()),
        remote_context_id: Set(row.remote_context_id.clone()),
        state: Set(row.state.clone()),
        state_timestamp: Set(row.state_timestamp.clone()),
        title: Set(row.title.clone()),
        version: Set(row.version + 1),
        terminal_at: Set(row.terminal_at),
        updated_at: Set(now),
        ..Default::default()
    };
    task::Entity::update(active).exec(&tx).await?;
    tx.commit().await?;
    Ok(events.len())
}

/// The ids of the organization's tasks, oldest first (for a rebuild of all of them).
pub async fn task_ids(db: &Db) -> Result<Vec<String>, DbErr> {
    use sea_orm::QueryOrder;
    Ok(task::Entity::find()
        .order_by_asc(task::Column::CreatedAt)
        .all(&db.read)
        .await?
        .into_iter()
        .map(|t| t.id)
        .collect())
}

#[cfg(test)]
mod tests {
    use super::Subscribed;

    #[test]
    fn the_remembered_tasks_start_over_when_full() {
        let subscribed = Subscribed::default();
        for n in 0..Subscribed::CAPACITY {
            subscribed.remember(&n.to_string());
        }
        assert!(subscribed.contains("0"));
        subscribed.remember("0");
        assert!(subscribed.contains("0"), "a known task does not count twice");
        subscribed.remember("one more");
        assert!(subscribed.contains("one more"));
        assert!(
            !subscribed.contains("0"),
            "forgotten: it is looked up again, never skipped wrongly"
        );
    }
}
