//! Opening the task row an observation belongs to, inside the transaction: by the caller's local
//! id, else by the agent's remote task id, else a new row (a task, or a direct message reply);
//! with what the task already holds of the observations' keys ([`Batch`]).

use app::a2a::{StreamEvent, TaskState};
use app::projection::TaskKind;
use chrono::Utc;
use sea_orm::{ConnectionTrait, DatabaseBackend, DatabaseTransaction};
use std::collections::HashMap;

use super::batch::{Batch, probe_of};
use super::{IngestError, Observation, Prepared};
use crate::db::entity::task;
use crate::store::opening::{self, Opened};
use crate::store::probe::{Probe, Taken};
use crate::store::sequences::Sequences;
use crate::store::{new_id, task_rows};

/// The task rows of a commit-queue transaction's groups, opened in one statement before any is
/// folded (PostgreSQL, ADR 0060): every task an observation names locked, the organizations'
/// sequences reserved, and each group's first task probed for the group's keys ([`probe_of`]).
/// A task is opened for the first group it begins; the caller takes it from the map when that
/// group's first observation is folded ([`open_task`]), or drops it when the task is opened
/// otherwise first. Empty on SQLite, whose single writer waits for nothing: each task is
/// opened as it comes.
pub(super) async fn open_all(
    tx: &DatabaseTransaction,
    sequences: &mut Sequences,
    runs: &[(&[Observation], Vec<Prepared>)],
) -> Result<HashMap<String, Opened>, IngestError> {
    if tx.get_database_backend() != DatabaseBackend::Postgres {
        return Ok(HashMap::new());
    }
    let all = || runs.iter().flat_map(|(observations, _)| observations.iter());
    let ids: Vec<&str> = all().filter_map(|o| o.local_task_id.as_deref()).collect();
    let organizations: Vec<&str> = all()
        .filter(|o| o.local_task_id.is_some())
        .map(|o| o.organization_id.as_str())
        .collect();
    let mut probes: Vec<Probe> = Vec::new();
    for (observations, prepared) in runs {
        let Some(local) = observations.first().and_then(|o| o.local_task_id.as_deref()) else {
            continue;
        };
        if !probes.iter().any(|probe| probe.task_id() == local) {
            let run: Vec<(&Observation, &Prepared)> = observations.iter().zip(prepared).collect();
            probes.push(probe_of(local, &run));
        }
    }
    let probes: Vec<&Probe> = probes.iter().collect();
    Ok(opening::open_tasks(tx, sequences, &ids, &organizations, &probes).await?)
}

/// The task row a run of observations (the first of them and what follows it, prepared)
/// belongs to, locked, created on first sight; `true` when this transaction created it. With
/// it, what the task holds of the run's ledger and message keys ([`Batch`]), read in the same
/// round trip as the row and the organization's counter when the caller names the task (ADRs
/// 0048, 0050 and 0051), or already read with the other tasks' ([`open_all`]: `opened`).
pub(super) async fn open_task(
    tx: &DatabaseTransaction,
    sequences: &mut Sequences,
    run: &[(&Observation, &Prepared)],
    opened: Option<Opened>,
) -> Result<(task::Model, bool, Batch), IngestError> {
    let (observation, prepared) = run[0];
    let organization = observation.organization_id.as_str();
    if let Some(local) = &observation.local_task_id {
        let probe = probe_of(local, run);
        let (row, taken) = match opened {
            Some(Opened { row, taken }) => (Some(row), taken),
            None => sequences.lock_task(tx, organization, local, &probe).await?,
        };
        let row = row.ok_or(IngestError::Identity("Unknown local task."))?;
        if row.agent_id != observation.agent_id {
            return Err(IngestError::Identity("Unexpected push scope."));
        }
        let (probe, taken) = match taken {
            Some(taken) => (probe, taken),
            None => {
                let mut probe = probe;
                probe.at_turn(row.turn);
                let taken = sequences.reserve_probing(tx, organization, &probe).await?;
                (probe, taken)
            }
        };
        let batch = Batch::known(&probe, row.turn, taken);
        return Ok((row, false, batch));
    }
    let (row, created) = locate_remote(tx, observation, &prepared.event).await?;
    let mut probe = probe_of(&row.id, run);
    probe.at_turn(row.turn);
    let taken = if created {
        // Nothing is stored for a task this transaction created.
        Taken::default()
    } else {
        sequences.reserve_probing(tx, organization, &probe).await?
    };
    let batch = Batch::known(&probe, row.turn, taken);
    Ok((row, created, batch))
}

/// The task row of an observation without a local id: by the agent's remote task id, else a new
/// row (a task, or a direct message reply). `true` when this transaction created it.
async fn locate_remote(
    tx: &DatabaseTransaction,
    observation: &Observation,
    event: &StreamEvent,
) -> Result<(task::Model, bool), IngestError> {
    let remote = event.task_id().map(str::to_owned);
    let (agent, tenant) = (observation.agent_id.as_str(), observation.tenant.as_str());
    if let Some(remote) = &remote
        && let Some(row) = task_rows::lock_remote(tx, agent, tenant, remote).await?
    {
        return Ok((row, false));
    }
    let row = first_sight(observation, remote.clone());
    let id = row.id.clone();
    task_rows::insert_if_absent(tx, row).await?;
    // Another transaction may have created the remote task's row first; that row is the one.
    let row = match &remote {
        Some(remote) => task_rows::lock_remote(tx, agent, tenant, remote).await?,
        None => task_rows::find(tx, &id).await?,
    }
    .ok_or(IngestError::Identity("Task row vanished."))?;
    let created = row.id == id;
    Ok((row, created))
}

/// A new task row as ingestion first creates it: a task when the event names a remote task,
/// else a direct message reply.
fn first_sight(observation: &Observation, remote: Option<String>) -> task::Model {
    let now = Utc::now();
    let kind = if remote.is_some() {
        TaskKind::Task
    } else {
        TaskKind::Message
    };
    task::Model {
        id: new_id(),
        organization_id: observation.organization_id.clone(),
        agent_id: observation.agent_id.clone(),
        conversation_id: observation.conversation_id.clone(),
        tenant: observation.tenant.clone(),
        remote_task_id: remote,
        remote_context_id: None,
        kind,
        state: initial_state(kind),
        state_timestamp: None,
        title: String::new(),
        skill_id: observation.skill_id.clone(),
        turn: 0,
        version: 0,
        last_sequence: 0,
        message_count: 0,
        transition_count: 0,
        created_at: now,
        updated_at: now,
        terminal_at: None,
    }
}

/// The state of a row no event has been folded into yet.
pub(super) fn initial_state(kind: TaskKind) -> TaskState {
    match kind {
        TaskKind::Task => TaskState::Submitted,
        TaskKind::Message => TaskState::Other("MESSAGE".to_owned()),
    }
}
