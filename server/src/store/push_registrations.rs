//! Push registrations (`shared/spec/security-and-durability.md` §3.7): which followed tasks have
//! a push config at their agent, their lifecycle under leases, and the per-registration delivery
//! window the receiver counts in.

use std::collections::HashSet;

use chrono::{DateTime, Utc};
use sea_orm::sea_query::{Expr, ExprTrait as _};
use sea_orm::{
    ActiveValue::Set, ColumnTrait, Condition, ConnectionTrait, DbErr, EntityTrait, QueryFilter, QueryOrder,
    QuerySelect, Value,
};

use super::leases::{Held, PUSH_CREATE, PUSH_DELETE};
use crate::db::entity::{agent, task, task_push_registration as registration};
use app::projection::TaskKind;

app::stored_words! {
    /// A registration's status (`task_push_registrations.status`).
    pub enum PushStatus {
        /// Waiting for the worker: to be created (`desired`) or deleted (not).
        Pending = "pending",
        /// Being created at the agent under a lease.
        Registering = "registering",
        /// The agent holds the config; callbacks are accepted.
        Active = "active",
        /// Being deleted at the agent under a lease.
        Deleting = "deleting",
        /// Deleted at the agent (or never created): callbacks are refused.
        Deleted = "deleted",
        /// The agent refused it for good (no push support, unknown task): callbacks are refused.
        Failed = "failed",
    }
}

/// Deliveries one registration may make per minute (§3.7).
pub const DELIVERIES_PER_MINUTE: i32 = 120;

/// Creates a pending registration for every unfinished task of `agents` (those whose card
/// advertises push) that has none. How many it created.
pub async fn adopt<C: ConnectionTrait>(db: &C, agents: &[String]) -> Result<u64, DbErr> {
    if agents.is_empty() {
        return Ok(0);
    }
    let registered: HashSet<String> = registration::Entity::find()
        .select_only()
        .column(registration::Column::TaskId)
        .into_tuple::<String>()
        .all(db)
        .await?
        .into_iter()
        .collect();
    let tasks: Vec<(String, String, String)> = task::Entity::find()
        .select_only()
        .column(task::Column::Id)
        .column(task::Column::OrganizationId)
        .column(task::Column::AgentId)
        .filter(task::Column::TerminalAt.is_null())
        .filter(task::Column::Kind.eq(TaskKind::Task))
        .filter(task::Column::RemoteTaskId.is_not_null())
        .filter(task::Column::AgentId.is_in(agents.iter().map(String::as_str)))
        .into_tuple()
        .all(db)
        .await?;
    let now = Utc::now();
    let mut created = 0;
    for (task_id, organization_id, agent_id) in tasks.into_iter().filter(|t| !registered.contains(&t.0)) {
        created += registration::Entity::insert(registration::ActiveModel {
            id: Set(uuid::Uuid::new_v4().to_string()),
            organization_id: Set(organization_id),
            agent_id: Set(agent_id),
            task_id: Set(task_id),
            status: Set(PushStatus::Pending),
            desired: Set(true),
            attempts: Set(0),
            available_at: Set(now),
            lease_owner: Set(None),
            lease_until: Set(None),
            last_error: Set(None),
            window_start: Set(None),
            window_count: Set(0),
            created_at: Set(now),
            updated_at: Set(now),
        })
        .on_conflict(
            sea_orm::sea_query::OnConflict::column(registration::Column::TaskId)
                .do_nothing()
                .to_owned(),
        )
        .exec_without_returning(db)
        .await?;
    }
    Ok(created)
}

/// Marks for deletion every wanted registration whose task finished or whose agent is disabled
/// or removed; one never created (still pending, never tried, or failed) is deleted at once.
/// How many it changed.
pub async fn retire<C: ConnectionTrait>(db: &C) -> Result<u64, DbErr> {
    let wanted = registration::Entity::find()
        .filter(registration::Column::Desired.eq(true))
        .all(db)
        .await?;
    if wanted.is_empty() {
        return Ok(0);
    }
    let finished: HashSet<String> = task::Entity::find()
        .select_only()
        .column(task::Column::Id)
        .filter(task::Column::Id.is_in(wanted.iter().map(|r| r.task_id.as_str())))
        .filter(task::Column::TerminalAt.is_not_null())
        .into_tuple::<String>()
        .all(db)
        .await?
        .into_iter()
        .collect();
    let usable: HashSet<String> = agent::Entity::find()
        .select_only()
        .column(agent::Column::Id)
        .filter(agent::Column::Enabled.eq(true))
        .filter(agent::Column::RemovedAt.is_null())
        .into_tuple::<String>()
        .all(db)
        .await?
        .into_iter()
        .collect();
    let now = Utc::now();
    let mut changed = 0;
    for row in wanted {
        if !finished.contains(&row.task_id) && usable.contains(&row.agent_id) {
            continue;
        }
        let never_created =
            row.status == PushStatus::Failed || (row.status == PushStatus::Pending && row.attempts == 0);
        // A held row keeps its status and lease: its worker sees `desired` when it lets go
        // ([`delete_if_retired`]) and the next claim deletes it.
        let status = match row.status {
            PushStatus::Registering | PushStatus::Deleting => row.status,
            _ if never_created => PushStatus::Deleted,
            _ => PushStatus::Pending,
        };
        let done = registration::Entity::update_many()
            .col_expr(registration::Column::Desired, Expr::value(false))
            .col_expr(registration::Column::Status, Expr::value(status.as_str()))
            .col_expr(registration::Column::Attempts, Expr::value(0))
            .col_expr(registration::Column::AvailableAt, Expr::value(now))
            .col_expr(registration::Column::UpdatedAt, Expr::value(now))
            .filter(registration::Column::Id.eq(&row.id))
            .filter(registration::Column::Status.eq(row.status))
            .filter(registration::Column::Desired.eq(true))
            .exec(db)
            .await?;
        changed += done.rows_affected;
    }
    Ok(changed)
}

/// An active registration that was retired while it was being created is made pending, so the
/// worker deletes it at the agent. `true` when it was.
pub async fn delete_if_retired<C: ConnectionTrait>(db: &C, id: &str) -> Result<bool, DbErr> {
    let now = Utc::now();
    let done = registration::Entity::update_many()
        .col_expr(
            registration::Column::Status,
            Expr::value(PushStatus::Pending.as_str()),
        )
        .col_expr(registration::Column::AvailableAt, Expr::value(now))
        .col_expr(registration::Column::UpdatedAt, Expr::value(now))
        .filter(registration::Column::Id.eq(id))
        .filter(registration::Column::Status.eq(PushStatus::Active))
        .filter(registration::Column::Desired.eq(false))
        .exec(db)
        .await?;
    Ok(done.rows_affected == 1)
}

/// Registrations due for the worker: pending and available, or held under an expired lease.
pub async fn due<C: ConnectionTrait>(db: &C, limit: u64) -> Result<Vec<registration::Model>, DbErr> {
    let now = Utc::now();
    registration::Entity::find()
        .filter(
            Condition::any()
                .add(PUSH_CREATE.due(now))
                .add(PUSH_DELETE.due(now)),
        )
        .order_by_asc(registration::Column::AvailableAt)
        .limit(limit)
        .all(db)
        .await
}

/// Claims `row` for `owner`: with the lease of its work (creating while wanted, deleting once
/// not; a held row whose lease ran out, with the lease it was held under).
pub async fn claim<C: ConnectionTrait>(
    db: &C,
    row: &registration::Model,
    owner: &str,
    ttl: std::time::Duration,
) -> Result<Option<Held>, DbErr> {
    let lease = match row.status {
        PushStatus::Registering => PUSH_CREATE,
        PushStatus::Deleting => PUSH_DELETE,
        _ if row.desired => PUSH_CREATE,
        _ => PUSH_DELETE,
    };
    lease.claim(db, &row.id, owner, ttl).await
}

/// Ends the lease with `status`, recording `attempts`, the failure code and when to try again.
pub async fn release<C: ConnectionTrait>(
    db: &C,
    lease: &Held,
    status: PushStatus,
    attempts: i32,
    failure: Option<&str>,
    next: DateTime<Utc>,
) -> Result<bool, DbErr> {
    let values: Vec<(&'static str, Value)> = vec![
        ("attempts", attempts.into()),
        ("last_error", failure.map(str::to_owned).into()),
        ("available_at", next.into()),
    ];
    lease.release(db, status.as_str(), values).await
}

/// The registration `id`, if there is one.
pub async fn by_id<C: ConnectionTrait>(db: &C, id: &str) -> Result<Option<registration::Model>, DbErr> {
    registration::Entity::find_by_id(id.to_owned()).one(db).await
}

/// The registration of the local task `task_id`, if it has one.
pub async fn of_task<C: ConnectionTrait>(
    db: &C,
    task_id: &str,
) -> Result<Option<registration::Model>, DbErr> {
    registration::Entity::find()
        .filter(registration::Column::TaskId.eq(task_id))
        .one(db)
        .await
}

/// Inside a transaction: locks registration `id` (a no-op update takes its row lock on
/// PostgreSQL; SQLite has one writer) and answers whether it still accepts callbacks: not
/// deleted or failed, and its agent enabled and not removed.
pub async fn lock_accepting<C: ConnectionTrait>(tx: &C, id: &str) -> Result<bool, DbErr> {
    let locked = registration::Entity::update_many()
        .col_expr(registration::Column::Id, Expr::col(registration::Column::Id))
        .filter(registration::Column::Id.eq(id))
        .filter(registration::Column::Status.is_not_in([PushStatus::Deleted, PushStatus::Failed]))
        .exec(tx)
        .await?;
    if locked.rows_affected != 1 {
        return Ok(false);
    }
    let Some(row) = registration::Entity::find_by_id(id.to_owned()).one(tx).await? else {
        return Ok(false);
    };
    Ok(agent::Entity::find_by_id(row.agent_id)
        .one(tx)
        .await?
        .is_some_and(|a| a.enabled && a.removed_at.is_none()))
}

/// Counts one delivery in the registration's one-minute window; `false` when the window already
/// holds [`DELIVERIES_PER_MINUTE`]. Each step is one conditional update, so concurrent
/// deliveries on several replicas are counted exactly.
pub async fn take_delivery<C: ConnectionTrait>(db: &C, id: &str, now: DateTime<Utc>) -> Result<bool, DbErr> {
    let window_began = now - chrono::Duration::seconds(60);
    let opened = registration::Entity::update_many()
        .col_expr(registration::Column::WindowStart, Expr::value(now))
        .col_expr(registration::Column::WindowCount, Expr::value(1))
        .filter(registration::Column::Id.eq(id))
        .filter(
            Condition::any()
                .add(registration::Column::WindowStart.is_null())
                .add(registration::Column::WindowStart.lte(window_began)),
        )
        .exec(db)
        .await?;
    if opened.rows_affected == 1 {
        return Ok(true);
    }
    let counted = registration::Entity::update_many()
        .col_expr(
            registration::Column::WindowCount,
            Expr::col(registration::Column::WindowCount).add(1),
        )
        .filter(registration::Column::Id.eq(id))
        .filter(registration::Column::WindowCount.lt(DELIVERIES_PER_MINUTE))
        .exec(db)
        .await?;
    Ok(counted.rows_affected == 1)
}
