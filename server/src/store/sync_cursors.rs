//! `ListTasks` sweep schedules (`shared/spec/security-and-durability.md` §3.8): one cursor per
//! (organization, agent, tenant) scope that has unfinished tasks, claimed under a lease by the
//! reconciliation worker ([`crate::workers::reconcile`]).

use std::collections::HashSet;

use chrono::{DateTime, Utc};
use sea_orm::sea_query::OnConflict;
use sea_orm::{
    ActiveValue::Set, ColumnTrait, ConnectionTrait, DbErr, EntityTrait, QueryFilter, QueryOrder, QuerySelect,
    Value,
};

use super::leases::{Held, SYNC_CURSORS};
use super::new_id;
use crate::db::entity::{sync_cursor, task};
use app::projection::TaskKind;

app::stored_words! {
    /// A cursor's status (`sync_cursors.status`).
    pub enum SyncStatus {
        /// Swept once `available_at` has passed.
        Pending = "pending",
        /// Held by a worker under a lease, a sweep in progress.
        Syncing = "syncing",
        /// Not swept: the scope has no unfinished task, or its agent is disabled or removed.
        /// A new unfinished task makes it pending again.
        Stopped = "stopped",
        /// The agent has no `ListTasks` (0.3 JSON-RPC, or it answered that the method does not
        /// exist); its tasks are still read one by one with `GetTask`.
        Unsupported = "unsupported",
    }
}

app::stored_words! {
    /// Why the last sweep failed (`sync_cursors.last_error`): fixed codes, never the agent's
    /// words (§3.8: "never raw remote error text").
    pub enum SyncFailure {
        /// The agent could not be reached, or answered with an HTTP or protocol error.
        Unreachable = "unreachable",
        /// The agent's answer was not a ListTasks page.
        InvalidAnswer = "invalid_answer",
        /// The agent needs credentials the console does not have (or cannot open).
        Credentials = "credentials",
        /// The console's database failed mid-sweep.
        Database = "database",
    }
}

/// One scope: organization, agent, tenant.
pub type Scope = (String, String, String);

/// Makes sure every scope with an unfinished task has a cursor that will sweep it: a new one
/// pending now, a stopped one pending again. Unsupported and held cursors are left alone. How
/// many cursors it created or woke.
pub async fn adopt<C: ConnectionTrait>(db: &C) -> Result<u64, DbErr> {
    let scopes: HashSet<Scope> = task::Entity::find()
        .select_only()
        .column(task::Column::OrganizationId)
        .column(task::Column::AgentId)
        .column(task::Column::Tenant)
        .distinct()
        .filter(task::Column::TerminalAt.is_null())
        .filter(task::Column::Kind.eq(TaskKind::Task))
        .filter(task::Column::RemoteTaskId.is_not_null())
        .into_tuple::<Scope>()
        .all(db)
        .await?
        .into_iter()
        .collect();
    if scopes.is_empty() {
        return Ok(0);
    }
    let cursors = sync_cursor::Entity::find().all(db).await?;
    let now = Utc::now();
    let mut changed = 0;
    for scope in &scopes {
        let existing = cursors
            .iter()
            .find(|c| (&c.organization_id, &c.agent_id, &c.tenant) == (&scope.0, &scope.1, &scope.2));
        match existing {
            None => {
                let inserted = sync_cursor::Entity::insert(sync_cursor::ActiveModel {
                    id: Set(new_id()),
                    organization_id: Set(scope.0.clone()),
                    agent_id: Set(scope.1.clone()),
                    tenant: Set(scope.2.clone()),
                    status: Set(SyncStatus::Pending),
                    page_token: Set(None),
                    attempts: Set(0),
                    available_at: Set(now),
                    lease_owner: Set(None),
                    lease_until: Set(None),
                    last_error: Set(None),
                    swept_at: Set(None),
                    updated_at: Set(now),
                })
                .on_conflict(
                    OnConflict::columns([
                        sync_cursor::Column::OrganizationId,
                        sync_cursor::Column::AgentId,
                        sync_cursor::Column::Tenant,
                    ])
                    .do_nothing()
                    .to_owned(),
                )
                .exec_without_returning(db)
                .await?;
                changed += inserted;
            }
            Some(cursor) if cursor.status == SyncStatus::Stopped => {
                let woken = sync_cursor::Entity::update_many()
                    .col_expr(sync_cursor::Column::Status, SyncStatus::Pending.as_str().into())
                    .col_expr(sync_cursor::Column::AvailableAt, now.into())
                    .col_expr(sync_cursor::Column::UpdatedAt, now.into())
                    .filter(sync_cursor::Column::Id.eq(&cursor.id))
                    .filter(sync_cursor::Column::Status.eq(SyncStatus::Stopped))
                    .exec(db)
                    .await?;
                changed += woken.rows_affected;
            }
            Some(_) => {}
        }
    }
    Ok(changed)
}

/// Cursors due for a sweep, oldest first.
pub async fn due<C: ConnectionTrait>(db: &C, limit: u64) -> Result<Vec<sync_cursor::Model>, DbErr> {
    sync_cursor::Entity::find()
        .filter(SYNC_CURSORS.due(Utc::now()))
        .order_by_asc(sync_cursor::Column::AvailableAt)
        .limit(limit)
        .all(db)
        .await
}

/// The scope's unfinished tasks the console knows, as `(remote task id, local id, version)`:
/// read before each page is asked for, so a page's snapshot is applied only if nothing changed
/// the task meanwhile (§3.8: "the task's version is captured before the remote read").
pub async fn known_unfinished<C: ConnectionTrait>(
    db: &C,
    cursor: &sync_cursor::Model,
) -> Result<Vec<(String, String, i64)>, DbErr> {
    task::Entity::find()
        .select_only()
        .column(task::Column::RemoteTaskId)
        .column(task::Column::Id)
        .column(task::Column::Version)
        .filter(task::Column::OrganizationId.eq(&cursor.organization_id))
        .filter(task::Column::AgentId.eq(&cursor.agent_id))
        .filter(task::Column::Tenant.eq(&cursor.tenant))
        .filter(task::Column::TerminalAt.is_null())
        .filter(task::Column::Kind.eq(TaskKind::Task))
        .filter(task::Column::RemoteTaskId.is_not_null())
        .into_tuple::<(String, String, i64)>()
        .all(db)
        .await
}

/// Saves the token of the next page once the page before it is ingested; `false` when the
/// lease is lost (nothing saved).
pub async fn save_page<C: ConnectionTrait>(db: &C, lease: &Held, token: &str) -> Result<bool, DbErr> {
    lease.write(db, vec![("page_token", token.into())]).await
}

/// Ends a sweep that read every page: the next one starts from the first page at `next`.
pub async fn swept<C: ConnectionTrait>(db: &C, lease: &Held, next: DateTime<Utc>) -> Result<bool, DbErr> {
    lease
        .release(
            db,
            SyncStatus::Pending.as_str(),
            vec![
                ("page_token", Option::<String>::None.into()),
                ("attempts", 0.into()),
                ("available_at", next.into()),
                ("last_error", Option::<String>::None.into()),
                ("swept_at", Utc::now().into()),
            ],
        )
        .await
}

/// Ends a failed sweep: pagination starts again from the first page (which also recovers
/// from an expired token) at `next`, the failure recorded by its code.
pub async fn failed<C: ConnectionTrait>(
    db: &C,
    lease: &Held,
    attempts: i32,
    failure: SyncFailure,
    next: DateTime<Utc>,
) -> Result<bool, DbErr> {
    lease
        .release(
            db,
            SyncStatus::Pending.as_str(),
            vec![
                ("page_token", Option::<String>::None.into()),
                ("attempts", attempts.into()),
                ("available_at", next.into()),
                ("last_error", Some(failure.as_str()).into()),
            ],
        )
        .await
}

/// Ends the cursor's sweeps with `status` (stopped or unsupported).
pub async fn settle<C: ConnectionTrait>(db: &C, lease: &Held, status: SyncStatus) -> Result<bool, DbErr> {
    let values: Vec<(&'static str, Value)> = vec![("page_token", Option::<String>::None.into())];
    lease.release(db, status.as_str(), values).await
}

/// Makes a pending cursor due now (a sweep at once instead of at its time).
pub async fn make_due<C: ConnectionTrait>(db: &C, id: &str) -> Result<bool, DbErr> {
    let now = Utc::now();
    let done = sync_cursor::Entity::update_many()
        .col_expr(sync_cursor::Column::AvailableAt, now.into())
        .col_expr(sync_cursor::Column::UpdatedAt, now.into())
        .filter(sync_cursor::Column::Id.eq(id))
        .filter(sync_cursor::Column::Status.eq(SyncStatus::Pending))
        .exec(db)
        .await?;
    Ok(done.rows_affected == 1)
}

/// The cursor of a scope, if it has one (for tests and the admin view).
pub async fn of_scope<C: ConnectionTrait>(
    db: &C,
    organization_id: &str,
    agent_id: &str,
    tenant: &str,
) -> Result<Option<sync_cursor::Model>, DbErr> {
    sync_cursor::Entity::find()
        .filter(sync_cursor::Column::OrganizationId.eq(organization_id))
        .filter(sync_cursor::Column::AgentId.eq(agent_id))
        .filter(sync_cursor::Column::Tenant.eq(tenant))
        .one(db)
        .await
}
