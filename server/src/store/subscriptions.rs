//! Stream subscriptions: the intent that a worker follows a task live.

use chrono::Utc;
use sea_orm::{
    ActiveValue::Set, ColumnTrait, ConnectionTrait, DbErr, EntityTrait, QueryFilter, QueryOrder, QuerySelect,
};

use super::{StoreError, new_id};
use crate::db::Db;
use crate::db::entity::{task, task_subscription};

/// Records that `task` should be followed: a task seen for the first time gets a pending
/// subscription; a stopped one comes back, and a waiting one is made due now, only when
/// `restart` says so (a new command made the task active again, or the operator pressed
/// Subscribe). One being followed (held under a lease) is left alone.
/// Runs on whatever connection it is given, so ingestion calls it inside its transaction.
pub async fn arm<C: ConnectionTrait>(db: &C, task: &task::Model, restart: bool) -> Result<(), DbErr> {
    let now = Utc::now();
    let existing = task_subscription::Entity::find()
        .filter(task_subscription::Column::TaskId.eq(&task.id))
        .one(db)
        .await?;
    match existing {
        None => {
            task_subscription::Entity::insert(task_subscription::ActiveModel {
                id: Set(new_id()),
                organization_id: Set(task.organization_id.clone()),
                task_id: Set(task.id.clone()),
                status: Set("pending".into()),
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
        // Held by a worker: due again as soon as it lets go (see `woken`); the holder's
        // lease is not touched.
        Some(sub) if restart && sub.status == "streaming" => {
            let mut sub: task_subscription::ActiveModel = sub.into();
            sub.available_at = Set(now);
            task_subscription::Entity::update(sub).exec(db).await?;
        }
        Some(sub) if restart => {
            let mut sub: task_subscription::ActiveModel = sub.into();
            sub.status = Set("pending".into());
            sub.attempts = Set(0);
            sub.available_at = Set(now);
            sub.last_error = Set(None);
            sub.updated_at = Set(now);
            task_subscription::Entity::update(sub).exec(db).await?;
        }
        Some(_) => {}
    }
    Ok(())
}

/// Whether the held row `current` was asked to restart while held: [`arm`] moved its
/// `available_at` past the claim (stamped in `updated_at`, which a renewal leaves alone).
pub fn woken(current: &task_subscription::Model) -> bool {
    current.available_at > current.updated_at
}

/// Asks the workers to follow `task` again now (the task page's Subscribe button).
pub async fn rearm(db: &Db, task: &task::Model) -> Result<(), StoreError> {
    Ok(arm(&db.write, task, true).await?)
}

/// The subscription row of a task, if any.
pub async fn of_task(db: &Db, task_id: &str) -> Result<Option<task_subscription::Model>, StoreError> {
    Ok(task_subscription::Entity::find()
        .filter(task_subscription::Column::TaskId.eq(task_id))
        .one(&db.read)
        .await?)
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
