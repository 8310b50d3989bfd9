//! Inside the transaction: the lease check, then for each observation the identity check,
//! de-duplication, the ledger append and the fold into the locked task row, which is written
//! once when its observations are done.

use app::a2a::StreamEvent;
use app::projection::TaskKind;
use chrono::{DateTime, Utc};
use sea_orm::{ConnectionTrait, DatabaseBackend, DatabaseTransaction, DbErr, TransactionTrait};
use std::collections::HashMap;
use std::sync::atomic::Ordering;

use super::artifacts::Artifacts;
use super::batch::{Batch, source_key};
use super::locate::{open_all, open_task};
use super::observation::outcome;
use super::{Fence, IngestError, Ingested, Ingestor, Observation, Prepared, Source, fold};
use crate::db::entity::task;
use crate::store::deferred::Deferred;
use crate::store::leases::Held;
use crate::store::ledger::{self, NewAccess, NewEvent};
use crate::store::opening::Opened;
use crate::store::sequences::Sequences;
use crate::store::{subscriptions, task_rows};

impl Ingestor {
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
        let mut sequences = Sequences::default();
        let (row, new_task, batch) = open_task(tx, &mut sequences, &[(observation, &prepared)], None).await?;
        let mut open = Open::new(row, new_task, batch);
        let ingested = self
            .fold_into(tx, &mut open, &mut sequences, observation, prepared)
            .await?;
        let mut writes = Deferred::default();
        open.defer(tx.get_database_backend(), &mut writes)?;
        sequences.defer(tx.get_database_backend(), &mut writes);
        writes.flush(tx).await?;
        Ok(ingested)
    }

    /// Ingests observations in order in one transaction, and publishes them after it commits
    /// (more than one is a group commit, issue #6; the other processes' notices go inside it,
    /// [`Ingestor::notices_statement`]). Ingestion stops after the first observation
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
        let mut done = self.commit_runs(vec![(observations, prepared)]).await?;
        Ok(done.pop().unwrap_or_default())
    }

    /// Several groups ([`Ingestor::ingest_group`] each, already prepared) in one transaction,
    /// in order: what each ingested, or the first error (then nothing commits). The commit
    /// queue ([`super::queue`]) commits the groups of many tasks together this way.
    pub(super) async fn commit_runs(
        &self,
        runs: Vec<(&[Observation], Vec<Prepared>)>,
    ) -> Result<Vec<Vec<Ingested>>, IngestError> {
        let tx = self.db.write.begin().await?;
        // Sequences for every observation are reserved with the counter's lock: a group that
        // appends them all writes the counter no second time.
        let mut work = Work {
            sequences: Sequences::expecting(
                runs.iter()
                    .flat_map(|(observations, _)| observations.iter())
                    .map(|observation| observation.organization_id.as_str()),
            ),
            ..Work::default()
        };
        if runs.len() > 1 {
            // Every task row before any counter (the order a single task's transaction, the
            // dispatch worker's say, takes them in, so the two cannot wait on each other), and
            // on PostgreSQL every group's first task probed, in one statement.
            work.opened = open_all(&tx, &mut work.sequences, &runs).await?;
            // Every group's lease in one statement, after the task rows.
            let mut leases: Vec<&Held> = Vec::new();
            for observation in runs.iter().flat_map(|&(observations, _)| observations.iter()) {
                if let Some(Fence::Lease(lease) | Fence::Read { lease, .. }) = &observation.fence
                    && !leases.contains(&lease)
                {
                    leases.push(lease);
                }
            }
            if !Held::hold_all(&tx, &leases).await? {
                return Err(IngestError::LeaseLost);
            }
            work.held = leases;
        }
        let mut all = Vec::with_capacity(runs.len());
        for (observations, prepared) in runs {
            all.push(self.fold_run(&tx, &mut work, observations, prepared).await?);
        }
        // The last task's writes and the counters', together.
        let mut writes = Deferred::default();
        if let Some(last) = work.open {
            last.defer(tx.get_database_backend(), &mut writes)?;
        }
        work.sequences.defer(tx.get_database_backend(), &mut writes);
        // The other processes' notices last: PostgreSQL runs a `WITH` part that only reads when
        // the statement's own query uses it, and the last statement gathered is that query.
        if let Some(notify) = self.notices_statement(all.iter().flatten())? {
            writes.push(notify);
        }
        writes.flush(&tx).await?;
        tx.commit().await?;
        let observed: usize = all.iter().map(Vec::len).sum();
        let stored = all.iter().flatten().filter(|i| i.sequence.is_some()).count();
        if observed > 1 && stored > 0 {
            self.counters.group_commits.fetch_add(1, Ordering::Relaxed);
            self.counters
                .grouped_events
                .fetch_add(stored as u64, Ordering::Relaxed);
        }
        for ingested in all.iter().flatten() {
            self.publish(ingested);
        }
        Ok(all)
    }

    /// One group's observations folded in order inside the transaction, up to the first that
    /// ends its task's stream.
    async fn fold_run<'a>(
        &self,
        tx: &DatabaseTransaction,
        work: &mut Work<'a>,
        observations: &'a [Observation],
        prepared: Vec<Prepared>,
    ) -> Result<Vec<Ingested>, IngestError> {
        let mut prepared: Vec<Option<Prepared>> = prepared.into_iter().map(Some).collect();
        let mut done = Vec::with_capacity(observations.len());
        for (n, observation) in observations.iter().enumerate() {
            if let Some(fence) = &observation.fence
                && !work.holds(fence)
            {
                check_fence(tx, fence).await?;
                work.checked = Some(fence);
            }
            // The row is reused only for the same task seen by the same agent; anything else is
            // looked up (and checked) again.
            let same_task = work.open.as_ref().is_some_and(|open| {
                observation.local_task_id.as_deref() == Some(open.row.id.as_str())
                    && observation.agent_id == open.row.agent_id
            });
            if !same_task {
                if let Some(previous) = work.open.take() {
                    previous.write(tx).await?;
                }
                // Opened with the others when this group's first observation names it.
                let opened = match &observation.local_task_id {
                    Some(task) => work.opened.remove(task).filter(|_| n == 0),
                    None => None,
                };
                // The rest of the group is still prepared, this observation first.
                let rest: Vec<(&Observation, &Prepared)> = observations[n..]
                    .iter()
                    .zip(prepared[n..].iter().flatten())
                    .collect();
                let (row, new_task, batch) = open_task(tx, &mut work.sequences, &rest, opened).await?;
                work.open = Some(Open::new(row, new_task, batch));
            }
            let prepared = prepared[n].take().expect("each observation is folded once");
            let current = work.open.as_mut().expect("a task row is open");
            let ingested = self
                .fold_into(tx, current, &mut work.sequences, observation, prepared)
                .await?;
            // Nothing after a terminal state can change the task; a paused one may still move
            // on (a stale snapshot first, then the agent's work: issue #27), so the rest of
            // the group is kept.
            let ended = ingested.state.is_terminal();
            done.push(ingested);
            if ended {
                break;
            }
        }
        Ok(done)
    }

    /// One observation folded into the open task row: identity check, de-duplication, ledger
    /// append, projections. The row itself is written by [`Open::write`].
    async fn fold_into(
        &self,
        tx: &DatabaseTransaction,
        open: &mut Open,
        sequences: &mut Sequences,
        observation: &Observation,
        prepared: Prepared,
    ) -> Result<Ingested, IngestError> {
        // Only the first observation of a row this transaction created reports it as new.
        let new_task = std::mem::replace(&mut open.new_task, false);
        // A read made against an older version of the task loses to what changed it since.
        if let Some(Fence::Read { version, .. }) = &observation.fence
            && open.row.version != *version
        {
            return Ok(outcome(&open.row, None, new_task));
        }
        let now = Utc::now();
        let Some((sequence, event)) = append(tx, open, sequences, observation, prepared, now).await? else {
            return Ok(outcome(&open.row, None, new_task));
        };
        let row = &mut open.row;
        let was_terminal = row.state.is_terminal();
        let mut folded = fold::Folded {
            row,
            changed: false,
            artifacts: &mut open.artifacts,
            messages: &mut open.batch.messages,
            writes: &mut open.writes,
        };
        fold::fold(tx, &mut folded, sequence, &event).await?;
        let changed = folded.changed;
        if observation.source == Source::CommandResponse {
            row.turn += 1;
        }
        if changed {
            row.version += 1;
        }
        row.last_sequence = sequence;
        row.updated_at = now;
        let state = row.state.clone();
        if state.is_terminal() && !was_terminal {
            row.terminal_at = Some(now);
        }
        open.dirty = true;
        let row = &open.row;
        // An approval request opens in the same transaction as the prompt that carries it.
        if changed && let Some(hook) = &self.on_change {
            // What it reads is written first.
            if hook.reads_projections(row) {
                open.batch
                    .messages
                    .defer(tx.get_database_backend(), &mut open.writes);
                open.writes.flush(tx).await?;
            }
            hook.task_changed(tx, row).await?;
        }
        let mut ingested = outcome(row, Some(sequence), new_task);
        // Every unfinished task is followed, a waiting one included: an agent may move on from
        // input-required by itself, and a reply's first answer may be a stale snapshot (the
        // subscription worker polls waiting tasks, security-and-durability §3.6).
        if row.kind == TaskKind::Task && row.remote_task_id.is_some() && !state.is_terminal() {
            // Arming a task that has its row changes nothing, unless it restarts a stopped one.
            if observation.rearm || !(open.armed || self.subscribed.contains(&row.id)) {
                subscriptions::arm(tx, row, observation.rearm).await?;
            }
            open.armed = true;
            ingested.subscribed = true;
        }
        Ok(ingested)
    }
}

/// Checks the event's task identity and appends it with the organization's next sequence
/// unless the task has it already (de-duplicated on `(task, source, key)`), recording the
/// archived objects it references. Gives back the sequence and the event to fold; `None` for a
/// duplicate, which changes nothing and uses no sequence.
async fn append(
    tx: &DatabaseTransaction,
    open: &mut Open,
    sequences: &mut Sequences,
    observation: &Observation,
    prepared: Prepared,
    now: DateTime<Utc>,
) -> Result<Option<(i64, StreamEvent)>, IngestError> {
    let row = &open.row;
    if let (Some(remote), Some(incoming)) = (&row.remote_task_id, prepared.event.task_id())
        && remote != incoming
    {
        return Err(IngestError::Identity("Unexpected task identity."));
    }
    let source = observation.source.as_str();
    let key = source_key(row.turn, observation, &prepared);
    let sequence = sequences.next(tx, &observation.organization_id).await?;
    let covered = open.batch.covers(source, &key);
    let event = NewEvent {
        organization_id: &observation.organization_id,
        task_id: &row.id,
        sequence,
        source,
        event_kind: event_kind(&prepared.event),
        source_key: key,
        payload_digest: prepared.digest,
        payload: prepared.payload,
        extensions: &observation.extensions,
        protocol_version: observation.protocol_version.clone(),
        remote_timestamp: remote_timestamp(&prepared.event),
        received_at: now,
    };
    // A stream event of the group is appended with the others when the row is written.
    let appended = if covered {
        open.batch.add(event)
    } else {
        ledger::append(tx, event).await?
    };
    if !appended {
        return Ok(None);
    }
    sequences.used(&observation.organization_id);
    for archived in &prepared.archived {
        let access = NewAccess {
            organization_id: &observation.organization_id,
            task_id: &row.id,
            digest: &archived.digest,
            media_type: archived.media_type.clone(),
            filename: archived.filename.clone(),
            size: archived.size,
        };
        ledger::record_access(tx, access).await?;
    }
    Ok(Some((sequence, prepared.event)))
}

/// What a transaction of several groups carries from one observation to the next.
#[derive(Default)]
struct Work<'a> {
    /// The leases of every group, held (checked together when the transaction began).
    held: Vec<&'a Held>,
    /// The fence checked last (observations it fences need no second check).
    checked: Option<&'a Fence>,
    /// The task row being folded into.
    open: Option<Open>,
    /// Task rows opened before the groups were folded ([`open_all`]), not taken yet.
    opened: HashMap<String, Opened>,
    sequences: Sequences,
}

impl Work<'_> {
    /// Whether `fence` is known to hold in this transaction.
    fn holds(&self, fence: &Fence) -> bool {
        match fence {
            Fence::Lease(lease) | Fence::Read { lease, .. } if self.held.contains(&lease) => true,
            _ => self.checked == Some(fence),
        }
    }
}

/// The locked task row observations are folded into, written once when they are done, with
/// everything folding decided to write (one statement, ADR 0050).
struct Open {
    row: task::Model,
    /// The row was created by this transaction.
    new_task: bool,
    /// An event changed the row since it was read.
    dirty: bool,
    /// Its subscription row exists in this transaction.
    armed: bool,
    /// The group's stream events for it, appended when it is written.
    batch: Batch,
    /// Its artifacts: chunks gathered and rows changed, written with it.
    artifacts: Artifacts,
    /// Transitions folding added, written with it (new messages are gathered in `batch`).
    writes: Deferred,
}

impl Open {
    fn new(row: task::Model, new_task: bool, batch: Batch) -> Self {
        Self {
            row,
            new_task,
            dirty: false,
            armed: false,
            batch,
            artifacts: Artifacts::default(),
            writes: Deferred::default(),
        }
    }

    /// Sends the group's events, what folding added, the artifacts and the task row, together.
    async fn write(self, tx: &DatabaseTransaction) -> Result<(), DbErr> {
        let mut writes = Deferred::default();
        self.defer(tx.get_database_backend(), &mut writes)?;
        writes.flush(tx).await
    }

    /// Adds the group's events, what folding added, the artifacts and the task row to `writes`,
    /// to be sent together.
    fn defer(self, backend: DatabaseBackend, writes: &mut Deferred) -> Result<(), DbErr> {
        self.batch.defer(backend, writes);
        writes.append(self.writes);
        let mut artifacts = self.artifacts;
        artifacts.defer(backend, writes)?;
        if self.dirty {
            writes.push(task_rows::folded_update(backend, self.row)?);
        }
        Ok(())
    }
}

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
    let held = match fence {
        Fence::Lease(lease) | Fence::Read { lease, .. } => lease.holds(tx).await?,
        Fence::Push { registration } => {
            crate::store::push_registrations::lock_accepting(tx, registration).await?
        }
    };
    if held { Ok(()) } else { Err(IngestError::LeaseLost) }
}
