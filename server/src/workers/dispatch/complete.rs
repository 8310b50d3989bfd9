//! Completing a dispatch that the agent answered: the answer ingested, the command marked
//! succeeded and the outbox row completed in one transaction fenced by the lease.

use app::a2a::{Message, ProtocolVersion, StreamEvent, TaskState, decode_stream_event, encode_message};
use app::projection::TaskKind;
use sea_orm::{DbErr, TransactionTrait};
use serde_json::{Value, json};

use super::message::context_of;
use super::settle::{Settled, publish_command, settle};
use super::{LEASE_LOST, UNCERTAIN};
use crate::db::entity::task_command;
use crate::gateway::Endpoint;
use crate::ingest::{Observation, Source};
use crate::store::commands::{self as command_store, Change, CommandStatus};
use crate::store::dispatch::{self as store, OutboxStatus};
use crate::store::leases::Held;
use crate::workers::WorkerDeps;
use crate::workers::subscriptions::{self, Handover};

/// Ingests the answer (and the user's message before it), marks the command succeeded and
/// completes the outbox row, in one transaction fenced by the lease. With `keep_stream` (the
/// answer is the first event of a send stream) and a task left active, the same transaction
/// claims the task's subscription, armed by that ingestion, and returns it with its lease owner
/// so the caller follows the rest of the stream; no subscription worker can claim it meanwhile.
#[allow(clippy::too_many_arguments)]
pub(super) async fn complete(
    deps: &WorkerDeps,
    command: &task_command::Model,
    lease: &Held,
    answer: Value,
    user_message: Option<Message>,
    extensions: &[String],
    endpoint: &Endpoint,
    keep_stream: bool,
) -> Result<Option<Handover>, DbErr> {
    let decoded = match decode_stream_event(&answer) {
        Ok(decoded) => decoded,
        Err(_) => {
            settle(
                deps,
                command,
                CommandStatus::Dispatching,
                lease,
                Settled::Uncertain(UNCERTAIN.into()),
            )
            .await?;
            return Ok(None);
        }
    };
    let remote_task = decoded.event.task_id().map(str::to_owned);
    let observations = observations(
        command,
        &answer,
        user_message,
        &decoded.event,
        remote_task.as_deref(),
        extensions,
        endpoint,
    );
    let mut prepared = Vec::new();
    for observation in &observations {
        match deps.ingestor.prepare(observation) {
            Ok(p) => prepared.push(p),
            Err(error) => {
                tracing::warn!(%error, command = %command.id, "answer could not be ingested");
                settle(
                    deps,
                    command,
                    CommandStatus::Dispatching,
                    lease,
                    Settled::Uncertain(UNCERTAIN.into()),
                )
                .await?;
                return Ok(None);
            }
        }
    }
    // The command's result keeps the answer as stored: archive references, never inline bytes.
    let stored_answer = prepared
        .last()
        .map_or_else(|| answer.clone(), |p| p.payload().clone());
    let tx = deps.db.write.begin().await?;
    if !lease.holds(&tx).await? {
        tracing::info!(command = %command.id, "{LEASE_LOST}");
        return Ok(None);
    }
    let mut ingested = Vec::new();
    let mut local_task = command.task_id.clone();
    for (mut observation, prepared) in observations.into_iter().zip(prepared) {
        observation.local_task_id.clone_from(&local_task);
        let done = deps
            .ingestor
            .apply(&tx, &observation, prepared)
            .await
            .map_err(|e| DbErr::Custom(e.to_string()))?;
        local_task = Some(done.task_id.clone());
        ingested.push(done);
    }
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
        Some(answered)
            if keep_stream
                && answered.kind == TaskKind::Task
                && !TaskState::parse(&answered.state).is_terminal() =>
        {
            subscriptions::claim_for_task(&tx, &answered.task_id).await?
        }
        _ => None,
    };
    tx.commit().await?;
    for done in &ingested {
        deps.ingestor.publish(done);
    }
    publish_command(deps, command);
    Ok(claimed)
}

/// What a command's answer is stored as: the user's message (its task and context taken from
/// the answer) when the command sent one, then the answer itself, which re-arms the task's
/// subscription.
fn observations(
    command: &task_command::Model,
    answer: &Value,
    user_message: Option<Message>,
    event: &StreamEvent,
    remote_task: Option<&str>,
    extensions: &[String],
    endpoint: &Endpoint,
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
        extensions: extensions.to_vec(),
        protocol_version: Some(endpoint.version.as_str().to_owned()),
        skill_id: command.skill_id.clone(),
        fence: None,
        rearm: false,
    };
    let mut observations = Vec::new();
    if let Some(mut message) = user_message {
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
        payload: answer.clone(),
        rearm: true,
        ..base
    });
    observations
}
