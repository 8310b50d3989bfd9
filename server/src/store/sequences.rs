//! The organizations' ledger sequence counters (`ledger_counters`) within one ingesting
//! transaction: locked, reserved, counted in memory and written back (issue #33, ADRs 0031 and
//! 0048). Only `ingest` calls these.

use sea_orm::{
    ConnectionTrait, DatabaseBackend, DatabaseTransaction, DbErr, EntityTrait, FromQueryResult, QueryResult,
    QueryTrait, Statement,
};

use super::deferred::Deferred;
use super::probe::{self, Probe, Taken};
use super::task_rows;
use crate::db::entity::task;

/// Locks the counter row (creating it at 0) and adds the reservation to it; gives back the new
/// value. SQLite and PostgreSQL both name the proposed row `excluded`.
const RESERVE: &str = "INSERT INTO ledger_counters (organization_id, value) VALUES ({org}, {count}) \
     ON CONFLICT (organization_id) DO UPDATE SET value = ledger_counters.value + excluded.value \
     RETURNING value";

/// [`RESERVE`] for PostgreSQL's [`Sequences::lock_task`]: made only once the `locked` part has
/// the task row (none when there is no task).
const RESERVE_LOCKED: &str = "INSERT INTO ledger_counters (organization_id, value) SELECT {org}, {count} FROM locked \
     ON CONFLICT (organization_id) DO UPDATE SET value = ledger_counters.value + excluded.value \
     RETURNING value";

/// The organizations' ledger sequences within one transaction. The first sequence an
/// organization needs locks its counter row and reserves as many sequences as the transaction
/// expects to append for it ([`Sequences::expecting`]; one by default) in one statement; the
/// next ones are counted here. [`Sequences::defer`] stores the last one used before the
/// transaction commits, and only when that is not what was reserved (a duplicate, a group that
/// stopped early): one event appended costs one counter statement, a group two at most. The
/// row stays locked until the transaction ends, so sequences become visible in order (SQLite
/// has one writer anyway), and a sequence reserved but not used is given back before commit,
/// so the ledger has no gaps.
#[derive(Default)]
pub struct Sequences {
    counters: Vec<Counter>,
    /// How many events the transaction expects to append per organization.
    expected: Vec<(String, i64)>,
}

struct Counter {
    organization_id: String,
    /// The counter's value once the reservation was made.
    reserved: i64,
    /// The last sequence handed out.
    last: i64,
}

impl Sequences {
    /// Sequences for a transaction that expects to append an event for each organization in
    /// `organizations` (one per item, repeats counted).
    pub fn expecting<'a>(organizations: impl IntoIterator<Item = &'a str>) -> Self {
        let mut expected: Vec<(String, i64)> = Vec::new();
        for organization in organizations {
            match expected.iter_mut().find(|(id, _)| id == organization) {
                Some((_, count)) => *count += 1,
                None => expected.push((organization.to_owned(), 1)),
            }
        }
        Self {
            counters: Vec::new(),
            expected,
        }
    }

    /// The task by its local id, locked, the organization's sequences reserved as well when they
    /// are not yet, and what the task holds of `probe`'s keys: one statement (ADRs 0048, 0050
    /// and 0051). `None` for the probe when its answer cannot be trusted (PostgreSQL, the row
    /// changed while the statement waited for its lock): the caller reads it again with
    /// [`Sequences::reserve_probing`], the sequences already reserved.
    pub async fn lock_task(
        &mut self,
        tx: &DatabaseTransaction,
        organization_id: &str,
        task_id: &str,
        probe: &Probe,
    ) -> Result<(Option<task::Model>, Option<Taken>), DbErr> {
        match tx.get_database_backend() {
            DatabaseBackend::Postgres => {
                return self.lock_task_postgres(tx, organization_id, task_id, probe).await;
            }
            _ if self.counter(organization_id).is_some() => {
                return Ok((task_rows::lock(tx, task_id).await?, None));
            }
            _ => {}
        }
        let count = self.expected(organization_id);
        let select = task::Entity::find_by_id(task_id.to_owned()).build(DatabaseBackend::Sqlite);
        let mut values = select.values.map(|values| values.0).unwrap_or_default();
        values.extend([organization_id.into(), count.into()]);
        let mut sql = format!("{}; {}", select.sql, reserve_sql(tx));
        if !probe.is_empty() {
            let (probe_sql, probe_values) = probe.select(DatabaseBackend::Sqlite, values.len() + 1);
            sql = format!("{sql}; {probe_sql}");
            values.extend(probe_values);
        }
        let rows = tx
            .query_all_raw(Statement::from_sql_and_values(
                DatabaseBackend::Sqlite,
                sql,
                values,
            ))
            .await?;
        // The task's row if there is one, the counter's, then the probe's.
        let mut rows = rows.iter();
        let mut next = rows.next();
        let task = match next {
            Some(row) if row.try_get::<String>("", "id").is_ok() => {
                let task = task::Model::from_query_result(row, "")?;
                next = rows.next();
                Some(task)
            }
            _ => None,
        };
        let counter = next.ok_or_else(|| DbErr::Custom("ledger counter returned no row".into()))?;
        self.reserved(organization_id, count, value(counter)?);
        let mut taken = Taken::default();
        for row in rows {
            taken.note(row)?;
        }
        Ok((task, Some(taken)))
    }

    /// [`Sequences::lock_task`] on PostgreSQL, one statement: the row locked in a `WITH` part the
    /// counter's reservation reads from, so the task row is locked before the counter as in every
    /// ingesting transaction (the data orders them, not the planner). The probe reads under the
    /// statement's snapshot, taken before the lock was granted: when the row changed while the
    /// statement waited (its `xmin` under the lock is not the one the snapshot sees), a
    /// transaction that held the lock wrote to the task since, and the probe is not trusted.
    async fn lock_task_postgres(
        &mut self,
        tx: &DatabaseTransaction,
        organization_id: &str,
        task_id: &str,
        probe: &Probe,
    ) -> Result<(Option<task::Model>, Option<Taken>), DbErr> {
        let mut values: Vec<sea_orm::Value> = vec![task_id.into()];
        let mut parts = vec![
            "WITH locked AS MATERIALIZED (SELECT tasks.*, CAST(xmin AS TEXT) AS row_xmin FROM tasks \
             WHERE id = $1 FOR UPDATE)"
                .to_owned(),
        ];
        let mut columns = vec![
            "locked.*".to_owned(),
            "(SELECT CAST(xmin AS TEXT) FROM tasks WHERE id = $1) AS seen_xmin".to_owned(),
        ];
        let count = self.expected(organization_id);
        let reserving = self.counter(organization_id).is_none();
        if reserving {
            values.extend([organization_id.into(), count.into()]);
            parts.push(format!(
                "reserved AS ({})",
                RESERVE_LOCKED.replace("{org}", "$2").replace("{count}", "$3")
            ));
            columns.push("(SELECT value FROM reserved) AS reserved_value".to_owned());
        }
        if !probe.is_empty() {
            let (taken, probe_values) =
                probe.aggregate(DatabaseBackend::Postgres, values.len() + 1, "locked");
            values.extend(probe_values);
            columns.push(format!("{taken} AS taken"));
        }
        let sql = format!("{} SELECT {} FROM locked", parts.join(", "), columns.join(", "));
        let row = tx
            .query_one_raw(Statement::from_sql_and_values(
                DatabaseBackend::Postgres,
                sql,
                values,
            ))
            .await?;
        let Some(row) = row else {
            return Ok((None, None));
        };
        let task = task::Model::from_query_result(&row, "")?;
        if reserving {
            let reserved = row.try_get::<i64>("", "reserved_value")?;
            self.reserved(organization_id, count, reserved);
        }
        let taken = probe::trusted_taken(&row, probe)?;
        Ok((Some(task), taken))
    }

    /// What the task holds of `probe`'s keys (nothing is read for an empty probe), the
    /// organization's sequences reserved in the same statement when they are not yet (call it
    /// with the task row locked). On PostgreSQL the reservation is a `WITH` part of the probe's
    /// `SELECT`; on SQLite the two are one SQL text.
    pub async fn reserve_probing(
        &mut self,
        tx: &DatabaseTransaction,
        organization_id: &str,
        probe: &Probe,
    ) -> Result<Taken, DbErr> {
        if probe.is_empty() {
            return Ok(Taken::default());
        }
        if self.counter(organization_id).is_some() {
            return probe::read(tx, probe).await;
        }
        let backend = tx.get_database_backend();
        let count = self.expected(organization_id);
        let mut values: Vec<sea_orm::Value> = vec![organization_id.into(), count.into()];
        let (probe_sql, probe_values) = probe.select(backend, 3);
        values.extend(probe_values);
        let sql = match backend {
            DatabaseBackend::Postgres => format!(
                "WITH reserved AS ({}) SELECT 'c' AS probe_kind, '' AS probe_source, \
                 CAST(value AS TEXT) AS probe_key FROM reserved UNION ALL {probe_sql}",
                reserve_sql(tx)
            ),
            _ => format!("{}; {probe_sql}", reserve_sql(tx)),
        };
        let rows = tx
            .query_all_raw(Statement::from_sql_and_values(backend, sql, values))
            .await?;
        // PostgreSQL's counter is the probe's row of kind `c`; SQLite's the `RETURNING` row.
        let mut taken = Taken::default();
        let mut reserved = None;
        for row in &rows {
            match row.try_get::<String>("", "probe_kind").as_deref() {
                Ok("c") => reserved = row.try_get::<String>("", "probe_key")?.parse().ok(),
                Ok(_) => taken.note(row)?,
                Err(_) => reserved = Some(value(row)?),
            }
        }
        let reserved = reserved.ok_or_else(|| DbErr::Custom("ledger counter returned no row".into()))?;
        self.reserved(organization_id, count, reserved);
        Ok(taken)
    }

    /// The organization's next sequence, not yet used: [`Sequences::used`] takes it once its
    /// event is in the ledger.
    pub async fn next(&mut self, tx: &DatabaseTransaction, organization_id: &str) -> Result<i64, DbErr> {
        if let Some(counter) = self.counter(organization_id) {
            return Ok(counter.last + 1);
        }
        let count = self.expected(organization_id);
        let row = tx
            .query_one_raw(Statement::from_sql_and_values(
                tx.get_database_backend(),
                reserve_sql(tx),
                [organization_id.into(), count.into()],
            ))
            .await?
            .ok_or_else(|| DbErr::Custom("ledger counter returned no row".into()))?;
        self.reserved(organization_id, count, value(&row)?);
        Ok(self
            .counter(organization_id)
            .map_or(1, |counter| counter.last + 1))
    }

    /// The sequence [`Sequences::next`] gave is used.
    pub fn used(&mut self, organization_id: &str) {
        if let Some(counter) = self
            .counters
            .iter_mut()
            .find(|c| c.organization_id == organization_id)
        {
            counter.last += 1;
        }
    }

    /// Adds to `writes` the update of each counter whose last sequence used is not the one
    /// reserved; they must be sent before the transaction commits.
    pub fn defer(self, backend: DatabaseBackend, writes: &mut Deferred) {
        for counter in self.counters.into_iter().filter(|c| c.last != c.reserved) {
            let sql = format!(
                "UPDATE ledger_counters SET value = {} WHERE organization_id = {}",
                placeholder(backend, 1),
                placeholder(backend, 2)
            );
            let values = [counter.last.into(), counter.organization_id.into()];
            writes.push(Statement::from_sql_and_values(backend, sql, values));
        }
    }

    /// Whether the organization's sequences are reserved in this transaction.
    pub(super) fn has_reserved(&self, organization_id: &str) -> bool {
        self.counter(organization_id).is_some()
    }

    fn counter(&self, organization_id: &str) -> Option<&Counter> {
        self.counters
            .iter()
            .find(|c| c.organization_id == organization_id)
    }

    /// How many sequences to reserve for the organization: what the transaction expects, at
    /// least one.
    pub(super) fn expected(&self, organization_id: &str) -> i64 {
        self.expected
            .iter()
            .find(|(id, _)| id == organization_id)
            .map_or(1, |(_, count)| (*count).max(1))
    }

    /// Notes the reservation of `count` sequences that left the counter at `reserved`.
    pub(super) fn reserved(&mut self, organization_id: &str, count: i64, reserved: i64) {
        self.counters.push(Counter {
            organization_id: organization_id.to_owned(),
            reserved,
            last: reserved - count,
        });
    }
}

fn reserve_sql(tx: &DatabaseTransaction) -> String {
    RESERVE
        .replace("{org}", &placeholder(tx.get_database_backend(), 1))
        .replace("{count}", &placeholder(tx.get_database_backend(), 2))
}

fn value(row: &QueryResult) -> Result<i64, DbErr> {
    row.try_get_by_index::<i64>(0)
}

fn placeholder(backend: DatabaseBackend, n: usize) -> String {
    if backend == DatabaseBackend::Postgres {
        format!("${n}")
    } else {
        "?".to_owned()
    }
}
