//! Settling a dispatch that did not succeed: what a gateway failure means, and the fenced
//! writes that end the command and its outbox row.

use std::time::Duration;

use chrono::Utc;
use sea_orm::{DbErr, TransactionTrait};

use super::{LEASE_LOST, UNCERTAIN};
use crate::db::entity::task_command;
use crate::gateway::GatewayError;
use crate::ingest::bus::Notice;
use crate::store::commands::{self as command_store, Change, CommandStatus};
use crate::store::dispatch::{self as store, OutboxStatus};
use crate::store::leases::Held;
use crate::workers::WorkerDeps;

/// How a dispatch ended, for the command row.
pub(super) enum Settled {
    Failed(String),
    Uncertain(String),
    /// Not sent; try again after the delay.
    Retry(Duration, String),
}

/// What a gateway failure means for the command.
pub(super) fn classify(error: &GatewayError) -> Settled {
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

pub(super) async fn settle(
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
pub(super) async fn settle_outbox(
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

pub(super) fn publish_command(deps: &WorkerDeps, command: &task_command::Model) {
    deps.bus.publish(Notice::Command {
        organization_id: command.organization_id.clone(),
        command_id: command.id.clone(),
        conversation_id: command.conversation_id.clone(),
    });
}
