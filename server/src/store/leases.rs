//! Leases on work rows (`shared/spec/security-and-durability.md` §3.5, "Lease protocol"): a
//! dispatch outbox row or a task subscription is claimed with a time-limited lease carrying a
//! fresh owner id, renewed by a heartbeat, and every write the work produces commits only while
//! that owner still holds it.
//!
//! Every operation here is one conditional `UPDATE` whose `WHERE` names the row, the held
//! status, the owner and an unexpired lease, and whose `rows_affected` is the answer: there is
//! no read-then-write window in which another worker can claim the row between the check and
//! the act. [`Lease`] says which table and statuses; [`Held`] is one claimed lease, with the
//! operations a worker runs on it (`renew`, `holds`, `release`). Inside a transaction,
//! [`Held::holds`] also locks the row (PostgreSQL row lock,
//! SQLite's single writer) until commit, so a competing claim waits and then finds the lease
//! renewed.

use std::time::Duration;

use chrono::{DateTime, Utc};
use sea_orm::sea_query::{Alias, Condition, Expr, ExprTrait, Query, SimpleExpr, UpdateStatement};
use sea_orm::{ConnectionTrait, DbErr, Value};

/// One kind of leased row: its table and the status it has while held.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Lease {
    table: &'static str,
    /// The status of a held row (`processing`, `streaming`).
    held: &'static str,
    /// Whether a claim counts as an attempt (`attempts + 1`).
    counts_attempts: bool,
    /// A column stamped with the time of every change, if the table has one.
    touched: Option<&'static str>,
}

/// Dispatch outbox rows (`outbox_messages`), held while `processing`.
pub const OUTBOX: Lease = Lease {
    table: "outbox_messages",
    held: super::dispatch::OutboxStatus::Processing.as_str(),
    counts_attempts: true,
    touched: None,
};

/// Task subscriptions (`task_subscriptions`), held while `streaming`.
pub const SUBSCRIPTIONS: Lease = Lease {
    table: "task_subscriptions",
    held: super::subscriptions::SubscriptionStatus::Streaming.as_str(),
    counts_attempts: false,
    touched: Some("updated_at"),
};

/// `ListTasks` sweep schedules (`sync_cursors`), held while `syncing`.
pub const SYNC_CURSORS: Lease = Lease {
    table: "sync_cursors",
    held: super::sync_cursors::SyncStatus::Syncing.as_str(),
    counts_attempts: false,
    touched: Some("updated_at"),
};

/// Push registrations (`task_push_registrations`) being created at the agent, held while
/// `registering`.
pub const PUSH_CREATE: Lease = Lease {
    table: "task_push_registrations",
    held: super::push_registrations::PushStatus::Registering.as_str(),
    counts_attempts: false,
    touched: Some("updated_at"),
};

/// Push registrations being deleted at the agent, held while `deleting`.
pub const PUSH_DELETE: Lease = Lease {
    table: "task_push_registrations",
    held: super::push_registrations::PushStatus::Deleting.as_str(),
    counts_attempts: false,
    touched: Some("updated_at"),
};

/// The status of a row waiting to be claimed, the same word in every leased table.
const PENDING: &str = super::dispatch::OutboxStatus::Pending.as_str();

fn col(name: &'static str) -> Expr {
    Expr::col(Alias::new(name))
}

fn until(now: DateTime<Utc>, ttl: Duration) -> DateTime<Utc> {
    now + chrono::Duration::from_std(ttl).unwrap_or(chrono::Duration::MAX)
}

impl Lease {
    /// Rows that may be claimed at `now`: pending and available, or held under an expired lease.
    pub fn due(&self, now: DateTime<Utc>) -> SimpleExpr {
        col("status")
            .eq(PENDING)
            .and(col("available_at").lte(now))
            .or(col("status").eq(self.held).and(col("lease_until").lt(now)))
    }

    /// The `UPDATE` that claims due rows for `owner` for `ttl` (the caller names which rows).
    fn claiming(&self, owner: &str, ttl: Duration) -> UpdateStatement {
        let now = Utc::now();
        let mut update = Query::update();
        update
            .table(Alias::new(self.table))
            .value(Alias::new("status"), self.held)
            .value(Alias::new("lease_owner"), owner)
            .value(Alias::new("lease_until"), until(now, ttl))
            .and_where(self.due(now));
        if self.counts_attempts {
            update.value(Alias::new("attempts"), col("attempts").add(1));
        }
        if let Some(touched) = self.touched {
            update.value(Alias::new(touched), now);
        }
        update
    }

    /// Claims row `id` for `owner` for `ttl` if it is due; the held lease when this call won it.
    /// Of any number of concurrent claims, at most one wins.
    pub async fn claim<C: ConnectionTrait>(
        &self,
        db: &C,
        id: &str,
        owner: &str,
        ttl: Duration,
    ) -> Result<Option<Held>, DbErr> {
        let mut update = self.claiming(owner, ttl);
        update.and_where(col("id").eq(id));
        let done = db.execute(&update).await?;
        Ok((done.rows_affected() == 1).then(|| self.held_as(id, owner, ttl)))
    }

    /// Claims every row of `ids` that is due for `owner` for `ttl`, in one statement (one write
    /// however many rows: on SQLite each write waits for the single writer); the held leases,
    /// one per row this call won. Of any number of concurrent claims of a row, at most one wins.
    pub async fn claim_many<C: ConnectionTrait>(
        &self,
        db: &C,
        ids: &[String],
        owner: &str,
        ttl: Duration,
    ) -> Result<Vec<Held>, DbErr> {
        if ids.is_empty() {
            return Ok(Vec::new());
        }
        let mut update = self.claiming(owner, ttl);
        update
            .and_where(col("id").is_in(ids.iter().map(String::as_str)))
            .returning_col(Alias::new("id"));
        let won = db.query_all(&update).await?;
        won.iter()
            .map(|row| Ok(self.held_as(&row.try_get::<String>("", "id")?, owner, ttl)))
            .collect()
    }

    /// The lease on row `id` as `owner` believes it holds it (a claim won earlier, or one named
    /// by a fence). Nothing is checked here: every operation on it is.
    pub fn held_as(&self, id: &str, owner: &str, ttl: Duration) -> Held {
        Held {
            lease: *self,
            id: id.to_owned(),
            owner: owner.to_owned(),
            ttl,
        }
    }

    /// The row is held by `owner` under a lease that has not run out at `now`.
    fn held_by(&self, id: &str, owner: &str, now: DateTime<Utc>) -> SimpleExpr {
        col("id")
            .eq(id)
            .and(col("status").eq(self.held))
            .and(col("lease_owner").eq(owner))
            .and(col("lease_until").gt(now))
    }
}

/// A lease one worker holds (or held) on one row: what every fenced write names. Each
/// operation is conditional on the lease still being this owner's.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Held {
    lease: Lease,
    id: String,
    owner: String,
    /// How long each renewal extends the lease.
    ttl: Duration,
}

impl Held {
    /// The leased row's id.
    pub fn id(&self) -> &str {
        &self.id
    }

    /// The owner id this lease was claimed with.
    pub fn owner(&self) -> &str {
        &self.owner
    }

    /// Extends the lease by its ttl, only while it is held and unexpired; `false` means the
    /// lease is lost (expired, taken over or released) and the work must stop. The heartbeat.
    pub async fn renew<C: ConnectionTrait>(&self, db: &C) -> Result<bool, DbErr> {
        let now = Utc::now();
        let mut update = Query::update();
        update
            .table(Alias::new(self.lease.table))
            .value(Alias::new("lease_until"), until(now, self.ttl))
            .and_where(self.lease.held_by(&self.id, &self.owner, now));
        let done = db.execute(&update).await?;
        Ok(done.rows_affected() == 1)
    }

    /// Sets `values` on the held row and extends the lease, only while it is held and
    /// unexpired (a page token saved by the sweep that holds the cursor); `false` when the lease
    /// is lost and nothing was written.
    pub async fn write<C: ConnectionTrait>(
        &self,
        db: &C,
        values: Vec<(&'static str, Value)>,
    ) -> Result<bool, DbErr> {
        let now = Utc::now();
        let mut update = Query::update();
        update
            .table(Alias::new(self.lease.table))
            .value(Alias::new("lease_until"), until(now, self.ttl))
            .and_where(self.lease.held_by(&self.id, &self.owner, now));
        for (column, value) in values {
            update.value(Alias::new(column), value);
        }
        if let Some(touched) = self.lease.touched {
            update.value(Alias::new(touched), now);
        }
        let done = db.execute(&update).await?;
        Ok(done.rows_affected() == 1)
    }

    /// [`Held::holds`] for several leases at once, one statement per kind of lease and ttl
    /// (issue #33: a transaction of the commit queue fences the groups of many tasks): `true`
    /// when every one is still held, each then renewed and its row locked until commit; a lease
    /// named twice counts once. `false` when any is lost (what was renewed is undone with the
    /// transaction the caller then rolls back).
    pub async fn hold_all<C: ConnectionTrait>(db: &C, leases: &[&Held]) -> Result<bool, DbErr> {
        let now = Utc::now();
        let mut kinds: Vec<(Lease, Duration, Vec<&Held>)> = Vec::new();
        for &held in leases {
            match kinds
                .iter_mut()
                .find(|(lease, ttl, _)| *lease == held.lease && *ttl == held.ttl)
            {
                Some((_, _, same)) if same.contains(&held) => {}
                Some((_, _, same)) => same.push(held),
                None => kinds.push((held.lease, held.ttl, vec![held])),
            }
        }
        for (lease, ttl, same) in kinds {
            let named = same.iter().fold(Condition::any(), |any, held| {
                any.add(
                    col("id")
                        .eq(held.id.as_str())
                        .and(col("lease_owner").eq(held.owner.as_str())),
                )
            });
            let mut update = Query::update();
            update
                .table(Alias::new(lease.table))
                .value(Alias::new("lease_until"), until(now, ttl))
                .cond_where(
                    Condition::all()
                        .add(col("status").eq(lease.held))
                        .add(col("lease_until").gt(now))
                        .add(named),
                );
            if db.execute(&update).await?.rows_affected() != same.len() as u64 {
                return Ok(false);
            }
        }
        Ok(true)
    }

    /// The fence of a write: inside the transaction that writes, whether this lease is still
    /// held. It is [`renew`](Held::renew), so it also locks the row until commit (PostgreSQL
    /// row lock, SQLite's single writer) and a competing claim waits, then finds it renewed.
    pub async fn holds<C: ConnectionTrait>(&self, tx: &C) -> Result<bool, DbErr> {
        self.renew(tx).await
    }

    /// Ends the lease: sets `status` and the given columns and clears the lease, only while
    /// this owner still holds it (expired or not: nobody else has claimed it). `false` when
    /// someone else holds the row now; nothing was written.
    pub async fn release<C: ConnectionTrait>(
        &self,
        db: &C,
        status: &str,
        values: Vec<(&'static str, Value)>,
    ) -> Result<bool, DbErr> {
        let lease = &self.lease;
        let mut update = Query::update();
        update
            .table(Alias::new(lease.table))
            .value(Alias::new("status"), status)
            .value(Alias::new("lease_owner"), Option::<String>::None)
            .value(Alias::new("lease_until"), Option::<DateTime<Utc>>::None)
            .and_where(col("id").eq(self.id.as_str()))
            .and_where(col("status").eq(lease.held))
            .and_where(col("lease_owner").eq(self.owner.as_str()));
        for (column, value) in values {
            update.value(Alias::new(column), value);
        }
        if let Some(touched) = lease.touched {
            update.value(Alias::new(touched), Utc::now());
        }
        let done = db.execute(&update).await?;
        Ok(done.rows_affected() == 1)
    }
}
