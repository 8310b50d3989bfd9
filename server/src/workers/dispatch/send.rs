//! One dispatch from claim to answer: the state machine that checks the command and its
//! agent, discovers the card, moves the command to `dispatching` and sends it.

use std::time::Duration;

use app::a2a::encode_task_id;
use app::ext::negotiation;
use futures::StreamExt;
use sea_orm::{DbErr, TransactionTrait};
use serde_json::Value;

use super::complete::complete;
use super::message::{keeps_send_stream, send_params, user_message};
use super::settle::{Settled, classify, publish_command, settle, settle_outbox};
use super::{AGENT_REMOVED, DISCOVERY_FAILED, Follows, LEASE_EXPIRED, LEASE_LOST, MAX_ATTEMPTS};
use crate::db::entity::task_command;
use crate::gateway::{EventStream, GatewayError};
use crate::services::agents as agent_services;
use crate::services::commands::CommandBody;
use crate::store::commands::{self as command_store, Change, CommandAction, CommandStatus};
use crate::store::dispatch::{self as store, OutboxStatus};
use crate::store::leases::Held;
use crate::store::{agents, tasks};
use crate::workers::subscriptions::{self, Handover};
use crate::workers::{Heartbeat, WorkerDeps};

pub(super) async fn handle(
    deps: &WorkerDeps,
    follows: &Follows,
    command_id: &str,
    lease: &Held,
) -> Result<(), DbErr> {
    // Renewed from the claim on: discovery below can outlast a lease.
    let heartbeat = Heartbeat::start(&deps.db, lease, deps.tuning.dispatch_lease / 3);
    let Some(command) = command_store::by_id(&deps.db.write, command_id).await? else {
        return settle_outbox(deps, lease, OutboxStatus::Failed, Some("command missing")).await;
    };
    let from = match command.status {
        CommandStatus::Pending => CommandStatus::Pending,
        CommandStatus::Dispatching => {
            let settled = Settled::Uncertain(LEASE_EXPIRED.into());
            return settle(deps, &command, CommandStatus::Dispatching, lease, settled).await;
        }
        _ => return settle_outbox(deps, lease, OutboxStatus::Processed, None).await,
    };
    let attempts = store::attempts(&deps.db.write, lease.id()).await?.unwrap_or(1);
    let mut command = command;
    command.attempts = attempts;
    let agent = agents::by_id(&deps.db.write, &command.agent_id).await?;
    let Some(agent) = agent.filter(|a| a.removed_at.is_none() && a.enabled) else {
        let settled = Settled::Failed(AGENT_REMOVED.into());
        return settle(deps, &command, from, lease, settled).await;
    };
    // The card fetched now decides which sideband URIs are negotiated (reference §2.1).
    let discovered = tokio::select! {
        discovered = agent_services::discover(&deps.db, &deps.gateway, &agent) => discovered,
        () = heartbeat.lost.cancelled() => {
            tracing::info!(command = %command.id, "{LEASE_LOST}");
            return Ok(());
        }
    };
    let live_card = match discovered {
        Ok(preview) => preview.raw,
        Err(error) => {
            let settled = if attempts >= MAX_ATTEMPTS {
                Settled::Failed(DISCOVERY_FAILED.into())
            } else {
                Settled::Retry(
                    Duration::from_secs(1 << (attempts - 1).clamp(0, 4)),
                    error.to_string(),
                )
            };
            return settle(deps, &command, from, lease, settled).await;
        }
    };
    let negotiated = negotiation::negotiated_sideband(&live_card, &deps.understood_sideband);
    let endpoint = match agent_services::endpoint(&deps.db, &agent).await {
        Ok(endpoint) => endpoint,
        Err(error) => {
            let settled = Settled::Failed(error.to_string());
            return settle(deps, &command, from, lease, settled).await;
        }
    };
    let body: CommandBody = serde_json::from_value(command.payload_json.clone()).unwrap_or_default();
    // A send stream takes a stream slot; at the cap the send goes out as `SendMessage` and the
    // subscription worker follows the task (by polling until a slot frees).
    let slot = (command.action != CommandAction::CancelTask && keeps_send_stream(&live_card, &body))
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

    // The header carries the negotiated sideband URIs only (reference §2.2).
    let extensions = negotiated;
    let (result, user_message) = match command.action {
        CommandAction::CancelTask => {
            let params = encode_task_id(
                body.task_id.as_deref().unwrap_or_default(),
                &command.tenant,
                endpoint.version,
            );
            (
                deps.gateway
                    .cancel_task(&endpoint, params, &extensions)
                    .await
                    .map(|answer| (answer, None)),
                None,
            )
        }
        CommandAction::Send => {
            let message = user_message(&command, &body, context_id, &extensions);
            let params = send_params(&message, &body, &endpoint, command.skill_id.as_deref());
            let answer = if let Some(slot) = slot {
                first_event(
                    deps.gateway
                        .send_streaming_message(&endpoint, params, &extensions)
                        .await,
                )
                .await
                .map(|(answer, rest)| (answer, Some((rest, slot))))
            } else {
                deps.gateway
                    .send_message(&endpoint, params, &extensions)
                    .await
                    .map(|answer| (answer, None))
            };
            (answer, Some(message))
        }
    };
    let (answer, rest) = match result {
        Ok(answered) => answered,
        Err(error) => {
            let settled = classify(&error);
            return settle(deps, &command, CommandStatus::Dispatching, lease, settled).await;
        }
    };
    let claimed = complete(
        deps,
        &command,
        lease,
        answer,
        user_message,
        &extensions,
        &endpoint,
        rest.is_some(),
    )
    .await?;
    drop(heartbeat);
    if let (Some(handover), Some((rest, slot))) = (claimed, rest) {
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
    Ok(())
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
