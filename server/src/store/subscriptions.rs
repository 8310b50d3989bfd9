//! Stream subscriptions: the intent that a worker follows a task live.

use chrono::Utc;
use sea_orm::sea_query::Expr;
use sea_orm::{
    ActiveValue::Set, ColumnTrait, ConnectionTrait, DbErr, EntityTrait, QueryFilter, QueryOrder, QuerySelect,
    Value,
};

use super::leases::Held;
use super::{StoreError, new_id};

app::stored_words! {
    /// A subscription's status (`task_subscriptions.status`).
    pub enum SubscriptionStatus {
        /// To be followed once `available_at` has passed.
        Pending = "pending",
        /// Held by a worker under a lease (a stream open, or one `GetTask` read in flight).
        Streaming = "streaming",
        /// Not followed: the task finished (or the agent is gone).
        Stopped = "stopped",
    }
}

use crate::db::Db;
use crate::db::entity::{task, task_subscription};

/// Records that `task` should be followed: a task seen for the first time gets a pending
/// subscription; with `restart` (a new command made the task active again, or the operator
/// pressed Subscribe) a stopped or waiting one is made due now. One held under a lease is left
/// alone: its worker reads the task again at once when it lets go, if a command came meanwhile
/// ([`wake_if_turned`]). Every change is conditional on the status read, so a claim that lands
/// in between is never undone. Runs on whatever connection it is given, so ingestion calls it
/// inside its transaction.
pub async fn arm<C: ConnectionTrait>(db: &C, task: &task::Model, restart: bool) -> Result<(), DbErr> {
    let existing = task_subscription::Entity::find()
        .filter(task_subscription::Column::TaskId.eq(&task.id))
        .one(db)
        .await?;
    let now = Utc::now();
    match existing {
        None => {
            task_subscription::Entity::insert(task_subscription::ActiveModel {
                id: Set(new_id()),
                organization_id: Set(task.organization_id.clone()),
                task_id: Set(task.id.clone()),
                status: Set(SubscriptionStatus::Pending),
                attempts: Set(0),
                available_at: Set(now),
                lease_owner: Set(None),
                lease_until: Set(None),
                last_error: Set(None),
                updated_at: Set(now),
            })
            .exec_without_returning(db)
            .await?;
        }
        Some(sub) if restart && sub.status != SubscriptionStatus::Streaming => {
            task_subscription::Entity::update_many()
                .col_expr(
                    task_subscription::Column::Status,
                    Expr::value(SubscriptionStatus::Pending),
                )
                .col_expr(task_subscription::Column::Attempts, Expr::value(0))
                .col_expr(task_subscription::Column::AvailableAt, Expr::value(now))
                .col_expr(
                    task_subscription::Column::LastError,
                    Expr::value(Option::<String>::None),
                )
                .col_expr(task_subscription::Column::UpdatedAt, Expr::value(now))
                .filter(task_subscription::Column::Id.eq(&sub.id))
                .filter(task_subscription::Column::Status.eq(sub.status))
                .exec(db)
                .await?;
        }
        Some(_) => {}
    }
    Ok(())
}

/// After a worker released the subscription of `task_id` as pending (a `GetTask` read), makes
/// it due now if a command's answer was stored since the worker read the task at turn `turn`:
/// that answer's [`arm`] found the row held and left it. Checked after the release is
/// written, so a command is either seen here or finds the row released.
pub async fn wake_if_turned<C: ConnectionTrait>(db: &C, task_id: &str, turn: i64) -> Result<(), DbErr> {
    let turned = task::Entity::find_by_id(task_id.to_owned())
        .one(db)
        .await?
        .is_some_and(|t| t.turn > turn);
    if turned {
        task_subscription::Entity::update_many()
            .col_expr(task_subscription::Column::AvailableAt, Expr::value(Utc::now()))
            .filter(task_subscription::Column::TaskId.eq(task_id))
            .filter(task_subscription::Column::Status.eq(SubscriptionStatus::Pending))
            .exec(db)
            .await?;
    }
    Ok(())
}

/// Asks the workers to follow `task` again now (the task page's Subscribe button).
pub async fn rearm(db: &Db, task: &task::Model) -> Result<(), StoreError> {
    Ok(arm(&db.write, task, true).await?)
}

/// The subscription row of a task, if any.
pub async fn of_task(db: &Db, task_id: &str) -> Result<Option<task_subscription::Model>, StoreError> {
    Ok(of_task_on(&db.read, task_id).await?)
}

/// [`of_task`] on any connection (the dispatch transaction that hands a send stream over).
pub async fn of_task_on<C: ConnectionTrait>(
    db: &C,
    task_id: &str,
) -> Result<Option<task_subscription::Model>, DbErr> {
    task_subscription::Entity::find()
        .filter(task_subscription::Column::TaskId.eq(task_id))
        .one(db)
        .await
}

/// The reconnect attempts of the subscription `lease` is on, while its owner holds it
/// (`None`: held by someone else now).
pub async fn attempts_held<C: ConnectionTrait>(db: &C, lease: &Held) -> Result<Option<i32>, DbErr> {
    Ok(task_subscription::Entity::find_by_id(lease.id().to_owned())
        .filter(task_subscription::Column::LeaseOwner.eq(lease.owner()))
        .one(db)
        .await?
        .map(|sub| sub.attempts))
}

/// When and how a held subscription is given back.
#[derive(Debug)]
pub struct Release {
    pub status: SubscriptionStatus,
    pub available_at: chrono::DateTime<Utc>,
    pub attempts: i32,
    pub last_error: Option<String>,
}

/// Gives the leased subscription back with `release`, only while its owner holds it; `false`
/// when someone else holds it now (nothing written).
pub async fn release<C: ConnectionTrait>(db: &C, lease: &Held, release: Release) -> Result<bool, DbErr> {
    let values = vec![
        ("available_at", Value::from(release.available_at)),
        ("attempts", Value::from(release.attempts)),
        ("last_error", Value::from(release.last_error)),
    ];
    lease.release(db, release.status.as_str(), values).await
}

/// Up to `limit` subscriptions a worker may claim now (see [`super::leases::SUBSCRIPTIONS`]),
/// longest waiting first.
pub async fn due<C: ConnectionTrait>(db: &C, limit: u64) -> Result<Vec<task_subscription::Model>, DbErr> {
    task_subscription::Entity::find()
        .filter(super::leases::SUBSCRIPTIONS.due(Utc::now()))
        .order_by_asc(task_subscription::Column::AvailableAt)
        .limit(limit)
        .all(db)
        .await
}

/// Makes the pending subscription of the local task `task_id` due now (a push delivery said the
/// task moved on: it is read at once instead of at its next interval). A held one is left alone:
/// its stream or read sees the change itself. `true` when it was woken.
pub async fn wake<C: ConnectionTrait>(db: &C, task_id: &str) -> Result<bool, DbErr> {
    let now = Utc::now();
    let done = task_subscription::Entity::update_many()
        .col_expr(task_subscription::Column::AvailableAt, Expr::value(now))
        .col_expr(task_subscription::Column::UpdatedAt, Expr::value(now))
        .filter(task_subscription::Column::TaskId.eq(task_id))
        .filter(task_subscription::Column::Status.eq(SubscriptionStatus::Pending))
        .exec(db)
        .await?;
    Ok(done.rows_affected == 1)
}
