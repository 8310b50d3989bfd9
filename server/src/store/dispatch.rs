//! The dispatch outbox (`outbox_messages`, `shared/spec/security-and-durability.md` §3.4): the
//! intent to send a command, written in the command's transaction, claimed under a lease
//! ([`OUTBOX`]) and ended once, only by the worker that still holds that lease.

use chrono::{DateTime, Utc};
use sea_orm::{
    ActiveValue::Set, ColumnTrait, ConnectionTrait, DbErr, EntityTrait, QueryFilter, QueryOrder, QuerySelect,
    Value as DbValue,
};

use super::leases::{Held, OUTBOX};
use super::new_id;
use crate::db::entity::outbox_message;

/// Outbox topic of command dispatch.
pub const DISPATCH_TOPIC: &str = "a2a.command.dispatch";

app::stored_words! {
    /// An outbox row's status (`outbox_messages.status`).
    pub enum OutboxStatus {
        /// Waiting until `available_at`.
        Pending = "pending",
        /// Held by a dispatch worker under a lease.
        Processing = "processing",
        /// The command was sent and settled (or had settled already).
        Processed = "processed",
        /// Dispatch ended without a known success.
        Failed = "failed",
    }
}

/// Records the intent to dispatch command `command_id`, due at `now` (inside the transaction
/// that stores the command).
pub async fn enqueue<C: ConnectionTrait>(
    db: &C,
    organization_id: &str,
    command_id: &str,
    now: DateTime<Utc>,
) -> Result<(), DbErr> {
    outbox_message::Entity::insert(outbox_message::ActiveModel {
        id: Set(new_id()),
        organization_id: Set(organization_id.to_owned()),
        topic: Set(DISPATCH_TOPIC.into()),
        aggregate_type: Set("task_command".into()),
        aggregate_id: Set(command_id.to_owned()),
        status: Set(OutboxStatus::Pending),
        attempts: Set(0),
        available_at: Set(now),
        lease_owner: Set(None),
        lease_until: Set(None),
        last_error: Set(None),
        created_at: Set(now),
        processed_at: Set(None),
    })
    .exec_without_returning(db)
    .await?;
    Ok(())
}

/// Up to `limit` outbox rows of `topic` that may be claimed now, oldest first.
pub async fn due<C: ConnectionTrait>(
    db: &C,
    topic: &str,
    limit: u64,
) -> Result<Vec<outbox_message::Model>, DbErr> {
    outbox_message::Entity::find()
        .filter(outbox_message::Column::Topic.eq(topic))
        .filter(OUTBOX.due(Utc::now()))
        .order_by_asc(outbox_message::Column::AvailableAt)
        .limit(limit)
        .all(db)
        .await
}

/// How many times the outbox row has been claimed (this claim included), if it exists.
pub async fn attempts<C: ConnectionTrait>(db: &C, outbox_id: &str) -> Result<Option<i32>, DbErr> {
    Ok(outbox_message::Entity::find_by_id(outbox_id.to_owned())
        .one(db)
        .await?
        .map(|row| row.attempts))
}

/// Ends the lease on the outbox row with its final `status` (`processed` or `failed`); `false`
/// when the lease was no longer this owner's (nothing written).
pub async fn complete<C: ConnectionTrait>(
    db: &C,
    lease: &Held,
    status: OutboxStatus,
    error: Option<&str>,
) -> Result<bool, DbErr> {
    let values = vec![
        ("processed_at", DbValue::from(Utc::now())),
        ("last_error", DbValue::from(error.map(str::to_owned))),
    ];
    lease.release(db, status.as_str(), values).await
}

/// Gives the leased outbox row back as pending, due at `at`, with `error`; `false` when the
/// lease was no longer this owner's (nothing written).
pub async fn retry_at<C: ConnectionTrait>(
    db: &C,
    lease: &Held,
    at: DateTime<Utc>,
    error: &str,
) -> Result<bool, DbErr> {
    let values = vec![
        ("available_at", DbValue::from(at)),
        ("last_error", DbValue::from(error)),
    ];
    lease.release(db, OutboxStatus::Pending.as_str(), values).await
}
