//! Completing a dispatch that the agent answered: the answer ingested, the command marked
//! succeeded and the outbox row completed in one transaction fenced by the lease.

use app::a2a::{Message, ProtocolVersion, StreamEvent, decode_stream_event, encode_message};
use app::projection::TaskKind;
use sea_orm::{DatabaseTransaction, DbErr, TransactionTrait};
use serde_json::{Value, json};

use super::message::context_of;
use super::settle::{Settled, publish_command, settle};
use super::{LEASE_LOST, UNCERTAIN};
use crate::db::entity::task_command;
use crate::gateway::Endpoint;
use crate::ingest::{Ingested, Observation, Prepared, Source};
use crate::store::commands::{self as command_store, Change, CommandStatus};
use crate::store::dispatch::{self as store, OutboxStatus};
use crate::store::leases::Held;
use crate::workers::WorkerDeps;
use crate::workers::subscriptions::{self, Handover};

/// The agent's answer to a dispatched command, with what the dispatch sent.
pub(super) struct Answered<'a> {
    pub answer: Value,
    /// The user's message the command sent (none for a cancel).
    pub user_message: Option<Message>,
    /// The sideband URIs negotiated for the send.
    pub extensions: &'a [String],
    pub endpoint: &'a Endpoint,
    /// The answer is the first event of a send stream the caller keeps open.
    pub keep_stream: bool,
}

/// Ingests the answer (and the user's message before it), marks the command succeeded and
/// completes the outbox row, in one transaction fenced by the lease. With `keep_stream` (the
/// answer is the first event of a send stream) and a task left active, the same transaction
/// claims the task's subscription, armed by that ingestion, and returns it with its lease owner
/// so the caller follows the rest of the stream; no subscription worker can claim it meanwhile.
pub(super) async fn complete(
    deps: &WorkerDeps,
    command: &task_command::Model,
    lease: &Held,
    answered: Answered<'_>,
) -> Result<Option<Handover>, DbErr> {
    let Some((observations, prepared, remote_task)) = prepare_answer(deps, command, &answered).await else {
        let settled = Settled::Uncertain(UNCERTAIN.into());
        settle(deps, command, CommandStatus::Dispatching, lease, settled).await?;
        return Ok(None);
    };
    // The command's result keeps the answer as stored: archive references, never inline bytes.
    let stored_answer = prepared
        .last()
        .map_or_else(|| answered.answer.clone(), |p| p.payload().clone());
    let tx = deps.db.write.begin().await?;
    if !lease.holds(&tx).await? {
        tracing::info!(command = %command.id, "{LEASE_LOST}");
        return Ok(None);
    }
    let ingested = apply_all(deps, &tx, command, observations, prepared).await?;
    let local_task = ingested
        .last()
        .map(|done| done.task_id.clone())
        .or_else(|| command.task_id.clone());
    let change = Change {
        last_error: Some(None),
        task_id: Some(local_task.clone()),
        result_json: Some(json!({
            "event": stored_answer,
            "localId": local_task,
            "taskId": remote_task,
            "tenant": command.tenant,
        })),
        ..Change::default()
    };
    let done = CommandStatus::Succeeded;
    if !command_store::transition(&tx, &command.id, CommandStatus::Dispatching, done, change).await?
        || !store::complete(&tx, lease, OutboxStatus::Processed, None).await?
    {
        tracing::info!(command = %command.id, "{LEASE_LOST}");
        return Ok(None);
    }
    let claimed = match ingested.last() {
        // Kept unless the answer finished the task: a reply's stream may open with an artifact
        // or a stale input-required snapshot before the agent's work (issue #27).
        // A direct message reply has no task to follow.
        Some(done) if answered.keep_stream && done.kind == TaskKind::Task && !done.state.is_terminal() => {
            subscriptions::claim_for_task(&tx, &done.task_id).await?
        }
        _ => None,
    };
    deps.ingestor.notify_in(&tx, &ingested).await?;
    tx.commit().await?;
    for done in &ingested {
        deps.ingestor.publish(done);
    }
    publish_command(deps, command);
    Ok(claimed)
}

/// The observations of an answer, prepared for ingestion off the executor, with the remote
/// task the answer names; `None` when the answer cannot be decoded or stored (its outcome is
/// then uncertain).
async fn prepare_answer(
    deps: &WorkerDeps,
    command: &task_command::Model,
    answered: &Answered<'_>,
) -> Option<(Vec<Observation>, Vec<Prepared>, Option<String>)> {
    let decoded = decode_stream_event(&answered.answer).ok()?;
    let remote_task = decoded.event.task_id().map(str::to_owned);
    let observations = observations(command, answered, &decoded.event, remote_task.as_deref());
    match deps.ingestor.prepare_all(&observations).await {
        Ok(prepared) => Some((observations, prepared, remote_task)),
        Err(error) => {
            tracing::warn!(%error, command = %command.id, "answer could not be ingested");
            None
        }
    }
}

/// Applies the prepared observations in order inside `tx`; the message joins the task the
/// answer creates or names.
async fn apply_all(
    deps: &WorkerDeps,
    tx: &DatabaseTransaction,
    command: &task_command::Model,
    observations: Vec<Observation>,
    prepared: Vec<Prepared>,
) -> Result<Vec<Ingested>, DbErr> {
    let mut ingested: Vec<Ingested> = Vec::new();
    for (mut observation, prepared) in observations.into_iter().zip(prepared) {
        observation.local_task_id = ingested
            .last()
            .map(|done| done.task_id.clone())
            .or_else(|| command.task_id.clone());
        let done = deps
            .ingestor
            .apply(tx, &observation, prepared)
            .await
            .map_err(|e| DbErr::Custom(e.to_string()))?;
        ingested.push(done);
    }
    Ok(ingested)
}

/// What a command's answer is stored as: the user's message (its task and context taken from
/// the answer) when the command sent one, then the answer itself, which re-arms the task's
/// subscription.
fn observations(
    command: &task_command::Model,
    answered: &Answered<'_>,
    event: &StreamEvent,
    remote_task: Option<&str>,
) -> Vec<Observation> {
    let conversation_id = command
        .conversation_id
        .clone()
        .unwrap_or_else(crate::store::new_id);
    let base = Observation {
        organization_id: command.organization_id.clone(),
        agent_id: command.agent_id.clone(),
        tenant: command.tenant.clone(),
        conversation_id,
        local_task_id: command.task_id.clone(),
        source: Source::Command,
        source_key: Some(format!("command:{}", command.id)),
        payload: Value::Null,
        extensions: answered.extensions.to_vec(),
        protocol_version: Some(answered.endpoint.version.as_str().to_owned()),
        skill_id: command.skill_id.clone(),
        fence: None,
        rearm: false,
    };
    let mut observations = Vec::new();
    if let Some(mut message) = answered.user_message.clone() {
        message.task_id = remote_task.map(str::to_owned);
        if message.context_id.is_none() {
            message.context_id = context_of(event);
        }
        observations.push(Observation {
            payload: json!({ "message": encode_message(&message, ProtocolVersion::V1_0) }),
            ..base.clone()
        });
    }
    observations.push(Observation {
        source: Source::CommandResponse,
        payload: answered.answer.clone(),
        rearm: true,
        ..base
    });
    observations
}
