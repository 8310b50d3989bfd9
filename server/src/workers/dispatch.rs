//! The dispatch worker (`shared/spec/security-and-durability.md` §3.4): sends stored commands.
//!
//! - Polls every 250 ms (at once when this process accepts a command) and claims at most 10
//!   due outbox rows per pass, each under a 60 s lease renewed every 20 s from the claim until
//!   the command settles, card discovery included (it can outlast a lease). A heartbeat that
//!   finds the lease gone stops the dispatch before anything is sent.
//! - Every fenced write is a conditional `UPDATE` ([`crate::store::leases`],
//!   [`crate::store::commands::transition`]): it commits only while this owner holds an
//!   unexpired lease and the command still has the status this worker expects; zero rows
//!   affected means the lease was lost, and the worker stops without sending.
//! - Failures before anything is sent (card discovery) retry up to three attempts, 1 s then
//!   2 s apart, then the command fails.
//! - An unknown outcome after the request left (timeout, dropped connection, unreadable answer)
//!   makes the command `uncertain`; nothing ever resends it. A dispatch whose lease expired
//!   (its worker died) becomes `uncertain` too. An agent that answered with an A2A error
//!   did not act: that command `failed` with the agent's message (ADR 0008).
//! - On success, ingesting the response, marking the command `succeeded` and completing the
//!   outbox row happen in one transaction fenced by the lease.
//! - An agent that streams is sent the command with `SendStreamingMessage`: its first event is
//!   the answer above, and when it leaves the task unfinished (waiting included: the stream of a
//!   reply may open with the stale snapshot) the same transaction claims the task's
//!   subscription, so the rest of that stream is followed by the subscription code instead of
//!   dropped (the events between a send's answer and a later `SubscribeToTask` would be lost
//!   for good). Cancel stays `CancelTask`; an agent that does not stream, or a caller that asked
//!   for a blocking answer (`returnImmediately: false`), gets `SendMessage`. A send stream
//!   takes one of the process's stream slots (`A2A_MAX_AGENT_STREAMS`); with none free the
//!   command goes out as `SendMessage` and the subscription worker follows the task.

use std::time::Duration;

use app::a2a::{
    AgentCard, Message, Part, ProtocolVersion, Role, SendConfiguration, SendParams, TaskState,
    decode_stream_event, encode_message, encode_send_params, encode_task_id,
};
use app::ext::{negotiation, skill_routing};
use app::projection::TaskKind;
use chrono::Utc;
use futures::StreamExt;
use sea_orm::{DbErr, TransactionTrait};
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

use super::subscriptions::{self, Handover};
use super::{Heartbeat, WorkerDeps, owner_id};
use crate::db::entity::task_command;
use crate::gateway::{Endpoint, EventStream, GatewayError};
use crate::ingest::bus::Notice;
use crate::ingest::{Observation, Source};
use crate::services::agents as agent_services;
use crate::services::commands::{CommandBody, DISPATCH_TOPIC};
use crate::store::commands::{self as command_store, Change, CommandAction, CommandStatus};
use crate::store::dispatch::{self as store, OutboxStatus};
use crate::store::leases::{Held, OUTBOX};
use crate::store::{agents, tasks};

pub const POLL: Duration = Duration::from_millis(250);
pub const BATCH: u64 = 10;
/// The dispatch lease (reference: 60 s); the heartbeat renews it every third of it.
pub const LEASE: Duration = Duration::from_secs(60);
/// Attempts before a command whose agent cannot be discovered fails.
pub const MAX_ATTEMPTS: i32 = 3;

pub const DISCOVERY_FAILED: &str = "Agent discovery failed before dispatch after three attempts.";
pub const UNCERTAIN: &str =
    "Remote outcome is uncertain. Automatic resend is disabled; check the task before submitting new work.";
pub const LEASE_EXPIRED: &str = "A previous dispatch lease expired. Remote outcome requires reconciliation.";
pub const LEASE_LOST: &str = "Dispatch lease lost before completion.";
pub const AGENT_REMOVED: &str = "The agent has been removed.";

/// Media types the console can show, asked for when the caller names none (reference §4.4).
pub use app::settings::DEFAULT_OUTPUT_MODES;

/// The loop: one pass every [`POLL`] until shutdown.
pub async fn run(deps: WorkerDeps, tracker: TaskTracker, shutdown: CancellationToken) {
    let mut notices = deps.bus.subscribe();
    loop {
        tokio::select! {
            () = shutdown.cancelled() => return,
            () = tokio::time::sleep(POLL) => {}
            () = super::command_notice(&mut notices) => {}
        }
        if let Err(error) = pass(&deps, &tracker, &shutdown).await {
            tracing::warn!(%error, "command dispatch pass failed");
        }
    }
}

/// Where a send stream kept after its answer is followed: the worker's tracker, and the token
/// that stops it at shutdown (like the subscription worker's follows).
#[derive(Clone)]
struct Follows {
    tracker: TaskTracker,
    shutdown: CancellationToken,
}

/// Claims due commands and dispatches each in its own task. Returns how many were claimed.
pub async fn pass(
    deps: &WorkerDeps,
    tracker: &TaskTracker,
    shutdown: &CancellationToken,
) -> Result<usize, DbErr> {
    let follows = Follows {
        tracker: tracker.clone(),
        shutdown: shutdown.clone(),
    };
    let due = store::due(&deps.db.write, DISPATCH_TOPIC, BATCH).await?;
    let mut claimed = 0;
    for row in due {
        let claimed_lease = OUTBOX
            .claim(&deps.db.write, &row.id, &owner_id(), deps.tuning.dispatch_lease)
            .await?;
        if let Some(lease) = claimed_lease {
            claimed += 1;
            let (deps, follows) = (deps.clone(), follows.clone());
            tracker.spawn(async move {
                if let Err(error) = handle(&deps, &follows, &row.aggregate_id, &lease).await {
                    tracing::warn!(%error, command = %row.aggregate_id, "command dispatch failed");
                }
            });
        }
    }
    Ok(claimed)
}

/// How a dispatch ended, for the command row.
enum Settled {
    Failed(String),
    Uncertain(String),
    /// Not sent; try again after the delay.
    Retry(Duration, String),
}

async fn handle(deps: &WorkerDeps, follows: &Follows, command_id: &str, lease: &Held) -> Result<(), DbErr> {
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
                Handover::Claimed(sub, lease) => Some((sub, lease)),
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
async fn start_dispatching(
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

/// Whether a send goes out as `SendStreamingMessage` and its stream is kept: the agent streams,
/// and the caller did not ask for a blocking answer (`returnImmediately: false` wants the
/// command's result to be the task as it paused or finished, which only `SendMessage` gives;
/// nothing is left to follow after such an answer).
fn keeps_send_stream(live_card: &Value, body: &CommandBody) -> bool {
    let blocking = body
        .config
        .as_ref()
        .and_then(|c| c.return_immediately)
        .is_some_and(|immediately| !immediately);
    !blocking && AgentCard::decode(live_card).is_ok_and(|card| card.capabilities.streaming)
}

/// The first event of a send stream (the send's answer, settled like a `SendMessage` result)
/// and the open rest of the stream. A stream that ends before any event has an unknown outcome.
async fn first_event(
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

/// What a gateway failure means for the command.
fn classify(error: &GatewayError) -> Settled {
    match error {
        // Refused before anything was sent.
        GatewayError::InvalidUrl(_)
        | GatewayError::InvalidParams(_)
        | GatewayError::Refused { .. }
        | GatewayError::Unsupported { .. }
        | GatewayError::Build(_) => Settled::Failed(error.to_string()),
        GatewayError::Transport(e) if e.is_connect() => {
            Settled::Failed(format!("{error} The agent was not reached."))
        }
        // The agent answered with an A2A error: it did not act.
        GatewayError::JsonRpc(_) => Settled::Failed(error.to_string()),
        GatewayError::Http { .. } if error.kind().is_some() => Settled::Failed(error.to_string()),
        _ => Settled::Uncertain(UNCERTAIN.into()),
    }
}

/// The remote context of the command's conversation, so a new task joins it.
async fn conversation_context(
    deps: &WorkerDeps,
    command: &task_command::Model,
) -> Result<Option<String>, DbErr> {
    let Some(conversation) = &command.conversation_id else {
        return Ok(None);
    };
    tasks::conversation_context(&deps.db.write, conversation).await
}

/// The message sent: the caller's parts, and the extension list and metadata of reference §2.2
/// (caller URIs, the skill-routing URI when the command is bound to a skill, the negotiated
/// sideband URIs; no caller-supplied routing metadata).
fn user_message(
    command: &task_command::Model,
    body: &CommandBody,
    context_id: Option<String>,
    negotiated: &[String],
) -> Message {
    let mut parts = Vec::new();
    if let Some(text) = body.text.as_deref().filter(|t| !t.trim().is_empty()) {
        parts.push(Part {
            media_type: Some("text/plain".into()),
            ..Part::text(text)
        });
    }
    parts.extend(body.parts.iter().flatten().filter_map(|p| Part::decode(p).ok()));
    let config = body.config.clone().unwrap_or_default();
    let mut metadata = config.metadata;
    if let Some(metadata) = metadata.as_mut() {
        skill_routing::strip_caller_routing(metadata);
    }
    Message {
        message_id: command.message_id.clone(),
        role: Role::User,
        parts,
        context_id,
        task_id: body.task_id.clone(),
        metadata,
        extensions: negotiation::message_extensions(
            &config.extensions.unwrap_or_default(),
            command.skill_id.is_some(),
            None,
            negotiated,
        ),
        reference_task_ids: config.reference_task_ids.unwrap_or_default(),
    }
}

fn send_params(message: &Message, body: &CommandBody, endpoint: &Endpoint, skill: Option<&str>) -> Value {
    let config = body.config.clone().unwrap_or_default();
    // Request-level routing is written by the server only (reference §1.3 rules 6, 8, 9).
    let mut request_metadata = config.request_metadata.unwrap_or_default();
    skill_routing::strip_caller_routing(&mut request_metadata);
    if let Some(skill) = skill {
        let (key, value) = skill_routing::routing_metadata(skill);
        request_metadata.insert(key, value);
    }
    let params = SendParams {
        // The request's tenant when the caller named one (the interface's tenant is added by the
        // gateway otherwise).
        tenant: body.tenant.clone().filter(|t| !t.is_empty()),
        message: message.clone(),
        configuration: Some(SendConfiguration {
            accepted_output_modes: config
                .accepted_output_modes
                .filter(|modes| !modes.is_empty())
                .unwrap_or_else(|| DEFAULT_OUTPUT_MODES.iter().map(|m| (*m).to_owned()).collect()),
            history_length: config.history_length,
            // The console asks for an immediate answer and follows progress separately.
            return_immediately: config.return_immediately.unwrap_or(true),
            push: None,
        }),
        metadata: Some(request_metadata).filter(|m| !m.is_empty()),
    };
    encode_send_params(&params, endpoint.version)
}

/// Ingests the answer (and the user's message before it), marks the command succeeded and
/// completes the outbox row, in one transaction fenced by the lease. With `keep_stream` (the
/// answer is the first event of a send stream) and a task left active, the same transaction
/// claims the task's subscription, armed by that ingestion, and returns it with its lease owner
/// so the caller follows the rest of the stream; no subscription worker can claim it meanwhile.
#[allow(clippy::too_many_arguments)]
async fn complete(
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
        message.task_id.clone_from(&remote_task);
        if message.context_id.is_none() {
            message.context_id = context_of(&decoded.event);
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

fn context_of(event: &app::a2a::StreamEvent) -> Option<String> {
    match event {
        app::a2a::StreamEvent::Task(t) => t.context_id.clone(),
        app::a2a::StreamEvent::Message(m) => m.context_id.clone(),
        app::a2a::StreamEvent::StatusUpdate(u) => u.context_id.clone(),
        app::a2a::StreamEvent::ArtifactUpdate(u) => u.context_id.clone(),
    }
}

async fn settle(
    deps: &WorkerDeps,
    command: &task_command::Model,
    from: CommandStatus,
    lease: &Held,
    settled: Settled,
) -> Result<(), DbErr> {
    let tx = deps.db.write.begin().await?;
    if !lease.holds(&tx).await? {
        tracing::info!(command = %command.id, "{LEASE_LOST}");
        return Ok(());
    }
    let (to, reason, outbox) = match settled {
        Settled::Failed(reason) => (CommandStatus::Failed, reason, None),
        Settled::Uncertain(reason) => (CommandStatus::Uncertain, reason, None),
        Settled::Retry(delay, reason) => (CommandStatus::Pending, reason, Some(delay)),
    };
    let change = Change {
        attempts: Some(command.attempts),
        last_error: Some(Some(reason)),
        ..Change::default()
    };
    if !command_store::transition(&tx, &command.id, from, to, change).await? {
        tracing::info!(command = %command.id, "{LEASE_LOST}");
        return Ok(());
    }
    let released = match (to, outbox) {
        (CommandStatus::Pending, Some(delay)) => {
            store::retry_at(&tx, lease, Utc::now() + delay, "discovery failed").await?
        }
        (CommandStatus::Uncertain, _) => {
            let error = Some("outcome uncertain");
            store::complete(&tx, lease, OutboxStatus::Failed, error).await?
        }
        _ => store::complete(&tx, lease, OutboxStatus::Failed, Some("dispatch failed")).await?,
    };
    if !released {
        tracing::info!(command = %command.id, "{LEASE_LOST}");
        return Ok(());
    }
    tx.commit().await?;
    publish_command(deps, command);
    Ok(())
}

/// Completes the outbox row alone (its command is missing or already settled).
async fn settle_outbox(
    deps: &WorkerDeps,
    lease: &Held,
    status: OutboxStatus,
    error: Option<&str>,
) -> Result<(), DbErr> {
    if !store::complete(&deps.db.write, lease, status, error).await? {
        tracing::info!(outbox = %lease.id(), "{LEASE_LOST}");
    }
    Ok(())
}

fn publish_command(deps: &WorkerDeps, command: &task_command::Model) {
    deps.bus.publish(Notice::Command {
        organization_id: command.organization_id.clone(),
        command_id: command.id.clone(),
        conversation_id: command.conversation_id.clone(),
    });
}
