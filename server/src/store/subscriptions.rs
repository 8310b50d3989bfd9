//! Stream subscriptions: the intent that a worker follows a task live.

use chrono::Utc;
use sea_orm::{ActiveValue::Set, ColumnTrait, EntityTrait, QueryFilter};

use super::{StoreError, new_id};
use crate::db::Db;
use crate::db::entity::{task, task_subscription};

/// Asks the workers to follow `task` again now (the task page's Subscribe button). A
/// subscription already being followed is left alone.
pub async fn rearm(db: &Db, task: &task::Model) -> Result<(), StoreError> {
    let now = Utc::now();
    let existing = task_subscription::Entity::find()
        .filter(task_subscription::Column::TaskId.eq(&task.id))
        .one(&db.write)
        .await?;
    match existing {
        Some(sub) if sub.status == "streaming" => {}
        Some(sub) => {
            let mut sub: task_subscription::ActiveModel = sub.into();
            sub.status = Set("pending".into());
            sub.attempts = Set(0);
            sub.available_at = Set(now);
            sub.last_error = Set(None);
            sub.updated_at = Set(now);
            task_subscription::Entity::update(sub).exec(&db.write).await?;
        }
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
            .exec_without_returning(&db.write)
            .await?;
        }
    }
    Ok(())
}

/// The subscription row of a task, if any.
pub async fn of_task(db: &Db, task_id: &str) -> Result<Option<task_subscription::Model>, StoreError> {
    Ok(task_subscription::Entity::find()
        .filter(task_subscription::Column::TaskId.eq(task_id))
        .one(&db.read)
        .await?)
}
