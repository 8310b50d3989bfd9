//! One dispatch from claim to answer: the state machine that checks the command and its
//! agent, discovers the card, moves the command to `dispatching` and sends it.

use std::time::Duration;

use app::a2a::{Message, encode_task_id};
use app::ext::negotiation;
use futures::StreamExt;
use sea_orm::{DbErr, TransactionTrait};
use serde_json::Value;
use tokio::sync::OwnedSemaphorePermit;

use super::complete::{Answered, complete};
use super::message::{keeps_send_stream, send_params, user_message};
use super::settle::{Settled, classify, publish_command, settle, settle_outbox};
use super::{AGENT_REMOVED, DISCOVERY_FAILED, Follows, LEASE_EXPIRED, LEASE_LOST, MAX_ATTEMPTS};
use crate::db::entity::task_command;
use crate::gateway::{Endpoint, EventStream, GatewayError};
use crate::services::agents as agent_services;
use crate::services::commands::CommandBody;
use crate::store::commands::{self as command_store, Change, CommandAction, CommandStatus};
use crate::store::dispatch::{self as store, OutboxStatus};
use crate::store::leases::Held;
use crate::store::{agents, tasks};
use crate::workers::subscriptions::{self, Handover};
use crate::workers::{Heartbeat, WorkerDeps};

/// A send stream's open rest and the stream slot it holds.
type OpenRest = (EventStream, OwnedSemaphorePermit);

/// Where a dispatch goes, as discovered for it: the live card, the sideband URIs it negotiates
/// and the agent's endpoint.
struct Target {
    card: Value,
    negotiated: Vec<String>,
    endpoint: Endpoint,
    /// The gateway with the agent's credential, resolved for this dispatch.
    gateway: crate::gateway::Gateway,
}

/// One dispatch of a claimed outbox row, from the checks to the follow of its send stream.
/// Every step that ends the dispatch settles it (or finds the lease lost) before it returns.
pub(super) async fn handle(
    deps: &WorkerDeps,
    follows: &Follows,
    command_id: &str,
    lease: &Held,
) -> Result<(), DbErr> {
    // Renewed from the claim on: discovery below can outlast a lease.
    let heartbeat = Heartbeat::start(&deps.db, lease, deps.tuning.dispatch_lease / 3);
    let Some(command) = pending_command(deps, command_id, lease).await? else {
        return Ok(());
    };
    let Some(target) = discover_target(deps, &command, lease, &heartbeat).await? else {
        return Ok(());
    };
    let body: CommandBody = serde_json::from_value(command.payload_json.clone()).unwrap_or_default();
    // A send stream takes a stream slot; at the cap the send goes out as `SendMessage` and the
    // subscription worker follows the task (by polling until a slot frees).
    let slot = (command.action != CommandAction::CancelTask && keeps_send_stream(&target.card, &body))
        .then(|| deps.streams.try_take())
        .flatten();
    let context_id = match &body.context_id {
        Some(context) => Some(context.clone()),
        // A new skill-bound task starts its own context instead of joining the chat's, so the
        // agent can keep that context inside the skill (reference §1.3 rule 7).
        None if command.skill_id.is_some() && body.task_id.is_none() => None,
        None => conversation_context(deps, &command).await?,
    };
    if !start_dispatching(deps, &command, lease).await? {
        tracing::info!(command = %command.id, "{LEASE_LOST}");
        return Ok(());
    }
    publish_command(deps, &command);

    let (result, user_message) = send(&command, &body, &target, context_id, slot).await;
    let (answer, rest) = match result {
        Ok(answered) => answered,
        Err(error) => {
            let settled = classify(&error);
            return settle(deps, &command, CommandStatus::Dispatching, lease, settled).await;
        }
    };
    let answered = Answered {
        answer,
        user_message,
        extensions: &target.negotiated,
        endpoint: &target.endpoint,
        keep_stream: rest.is_some(),
    };
    let claimed = complete(deps, &command, lease, answered).await?;
    drop(heartbeat);
    if let (Some(handover), Some(rest)) = (claimed, rest) {
        follow_rest(deps, follows, handover, rest);
    }
    Ok(())
}

/// The command of the claimed row when it is still `pending`, with the row's attempts; `None`
/// when there is nothing to send (missing, already settled, or left `dispatching` by a lease
/// that expired, whose outcome is now uncertain), settled here.
async fn pending_command(
    deps: &WorkerDeps,
    command_id: &str,
    lease: &Held,
) -> Result<Option<task_command::Model>, DbErr> {
    let Some(mut command) = command_store::by_id(&deps.db.write, command_id).await? else {
        settle_outbox(deps, lease, OutboxStatus::Failed, Some("command missing")).await?;
        return Ok(None);
    };
    match command.status {
        CommandStatus::Pending => {}
        CommandStatus::Dispatching => {
            let settled = Settled::Uncertain(LEASE_EXPIRED.into());
            settle(deps, &command, CommandStatus::Dispatching, lease, settled).await?;
            return Ok(None);
        }
        _ => {
            settle_outbox(deps, lease, OutboxStatus::Processed, None).await?;
            return Ok(None);
        }
    }
    command.attempts = store::attempts(&deps.db.write, lease.id()).await?.unwrap_or(1);
    Ok(Some(command))
}

/// The agent's live card and endpoint for a pending command; `None` when the dispatch ends
/// here: the agent is removed or disabled, discovery failed (retried with backoff up to
/// [`MAX_ATTEMPTS`]), the endpoint is refused, or the lease was lost while discovering.
async fn discover_target(
    deps: &WorkerDeps,
    command: &task_command::Model,
    lease: &Held,
    heartbeat: &Heartbeat,
) -> Result<Option<Target>, DbErr> {
    let from = CommandStatus::Pending;
    let agent = agents::by_id(&deps.db.write, &command.agent_id).await?;
    let Some(agent) = agent.filter(|a| a.removed_at.is_none() && a.enabled) else {
        settle(deps, command, from, lease, Settled::Failed(AGENT_REMOVED.into())).await?;
        return Ok(None);
    };
    // The card fetched now decides which sideband URIs are negotiated (reference §2.1).
    let discovered = tokio::select! {
        discovered = agent_services::discover(&deps.db, &deps.gateway, &deps.vault, &agent) => discovered,
        () = heartbeat.lost.cancelled() => {
            tracing::info!(command = %command.id, "{LEASE_LOST}");
            return Ok(None);
        }
    };
    let card = match discovered {
        Ok(preview) => preview.raw,
        // A credential that does not fit the card will not fit on a retry either.
        Err(agent_services::AgentServiceError::Gateway(GatewayError::Credential(failure))) => {
            settle(deps, command, from, lease, Settled::Failed(failure.to_string())).await?;
            return Ok(None);
        }
        Err(error) => {
            let attempts = command.attempts;
            let settled = if attempts >= MAX_ATTEMPTS {
                Settled::Failed(DISCOVERY_FAILED.into())
            } else {
                Settled::Retry(
                    Duration::from_secs(1 << (attempts - 1).clamp(0, 4)),
                    error.to_string(),
                )
            };
            settle(deps, command, from, lease, settled).await?;
            return Ok(None);
        }
    };
    let negotiated = negotiation::negotiated_sideband(&card, &deps.understood_sideband);
    match agent_services::connect(&deps.db, &deps.gateway, &deps.vault, &agent).await {
        Ok((endpoint, gateway)) => Ok(Some(Target {
            card,
            negotiated,
            endpoint,
            gateway: crate::workers::for_conversation(
                gateway,
                &command.organization_id,
                &command.agent_id,
                command.conversation_id.as_deref(),
                command.task_id.as_deref(),
            ),
        })),
        Err(error) => {
            settle(deps, command, from, lease, Settled::Failed(error.to_string())).await?;
            Ok(None)
        }
    }
}

/// Sends the command to the agent: a cancel, or the user's message as a send stream (with a
/// slot) or a `SendMessage`. The header carries the negotiated sideband URIs only (reference
/// §2.2). Returns the answer with the open rest of a send stream, and the message sent.
async fn send(
    command: &task_command::Model,
    body: &CommandBody,
    target: &Target,
    context_id: Option<String>,
    slot: Option<OwnedSemaphorePermit>,
) -> (Result<(Value, Option<OpenRest>), GatewayError>, Option<Message>) {
    let (endpoint, extensions) = (&target.endpoint, &target.negotiated);
    match command.action {
        CommandAction::CancelTask => {
            let params = encode_task_id(
                body.task_id.as_deref().unwrap_or_default(),
                &command.tenant,
                endpoint.version,
            );
            let answer = target.gateway.cancel_task(endpoint, params, extensions).await;
            (answer.map(|answer| (answer, None)), None)
        }
        CommandAction::Send => {
            let message = user_message(command, body, context_id, extensions);
            let params = send_params(&message, body, endpoint, command.skill_id.as_deref());
            let answer = if let Some(slot) = slot {
                let opened = target
                    .gateway
                    .send_streaming_message(endpoint, params, extensions)
                    .await;
                first_event(opened)
                    .await
                    .map(|(answer, rest)| (answer, Some((rest, slot))))
            } else {
                let answer = target.gateway.send_message(endpoint, params, extensions).await;
                answer.map(|answer| (answer, None))
            };
            (answer, Some(message))
        }
    }
}

/// Follows the rest of a send stream under the task's subscription, claimed with the answer
/// or, when a read held it, as soon as it is free; the stream slot is freed at the end.
fn follow_rest(deps: &WorkerDeps, follows: &Follows, handover: Handover, (rest, slot): OpenRest) {
    let (deps, shutdown) = (deps.clone(), follows.shutdown.clone());
    follows.tracker.spawn(async move {
        let claimed = match handover {
            Handover::Claimed(sub, lease) => Some((*sub, lease)),
            Handover::Busy(task_id) => subscriptions::claim_when_free(&deps, &task_id).await,
        };
        if let Some((sub, sub_lease)) = claimed {
            subscriptions::follow_open_stream(&deps, &sub, &sub_lease, rest, &shutdown).await;
        }
        drop(slot);
    });
}

/// Moves the command from `pending` to `dispatching`, fenced: only while `owner` holds the
/// lease and nobody moved the command first. `false`: lost, send nothing.
pub(super) async fn start_dispatching(
    deps: &WorkerDeps,
    command: &task_command::Model,
    lease: &Held,
) -> Result<bool, DbErr> {
    let tx = deps.db.write.begin().await?;
    if !lease.holds(&tx).await? {
        return Ok(false);
    }
    let change = Change {
        attempts: Some(command.attempts),
        ..Change::default()
    };
    let moved = command_store::transition(
        &tx,
        &command.id,
        CommandStatus::Pending,
        CommandStatus::Dispatching,
        change,
    )
    .await?;
    if !moved {
        return Ok(false);
    }
    tx.commit().await?;
    Ok(true)
}

/// The first event of a send stream (the send's answer, settled like a `SendMessage` result)
/// and the open rest of the stream. A stream that ends before any event has an unknown outcome.
pub(super) async fn first_event(
    opened: Result<EventStream, GatewayError>,
) -> Result<(Value, EventStream), GatewayError> {
    let mut events = opened?;
    match events.next().await {
        Some(Ok(first)) => Ok((first, events)),
        Some(Err(error)) => Err(error),
        None => Err(GatewayError::Decode(
            "the stream ended before its first event".into(),
        )),
    }
}

/// The remote context of the command's conversation, so a new task joins it.
pub(super) async fn conversation_context(
    deps: &WorkerDeps,
    command: &task_command::Model,
) -> Result<Option<String>, DbErr> {
    let Some(conversation) = &command.conversation_id else {
        return Ok(None);
    };
    tasks::conversation_context(&deps.db.write, conversation).await
}
