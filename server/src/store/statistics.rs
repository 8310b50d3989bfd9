//! PostgreSQL's planner statistics of the ledger tables, refreshed as the tables grow (ADR 0061).
//!
//! PostgreSQL keeps a prepared statement's generic plan until the statistics of a table it reads
//! change. A plan made while the ledger was nearly empty (a new deployment's first minutes, or any
//! time on a server whose autovacuum is off) looked a probe's keys up through the `(task,
//! sequence)` index, reading every event of the task for each key, and kept doing so as the task
//! grew: the ingest benchmark under load stored half as many events a second (ADR 0060).
//! `ANALYZE` makes PostgreSQL plan
//! again with what the tables hold. Autovacuum runs it too, but only once a minute at best; the
//! workers check every [`PERIOD`](crate::workers::statistics::PERIOD) and analyze a ledger table
//! once it has changed by [`CHANGED_ROWS`] rows and a tenth of its size since its last analysis
//! (autovacuum's rule, with a larger floor). SQLite has no such plans: nothing to do there.

use sea_orm::{ConnectionTrait, DatabaseBackend, DatabaseConnection, DbErr, Statement};

/// The tables an ingesting transaction reads by key.
pub const LEDGER_TABLES: [&str; 3] = ["tasks", "task_events", "task_messages"];

/// Rows changed since a table's last analysis before it is analyzed again, besides a tenth of
/// its rows (autovacuum's `autovacuum_analyze_threshold` is 50).
pub const CHANGED_ROWS: i64 = 500;

/// Analyzes the ledger tables whose statistics are stale and names them (none on SQLite). A
/// table the connection's role does not own is skipped by PostgreSQL with a warning, and named
/// again at the next call.
pub async fn refresh(db: &DatabaseConnection) -> Result<Vec<String>, DbErr> {
    if db.get_database_backend() != DatabaseBackend::Postgres {
        return Ok(Vec::new());
    }
    let tables: Vec<String> = LEDGER_TABLES.iter().map(|name| format!("'{name}'")).collect();
    let sql = format!(
        "SELECT CAST(s.relname AS TEXT) AS name FROM pg_stat_user_tables AS s JOIN pg_class AS c ON c.oid = s.relid \
         WHERE s.schemaname = current_schema() AND s.relname IN ({}) \
         AND s.n_mod_since_analyze > CAST($1 AS BIGINT) + 0.1 * GREATEST(c.reltuples, 0) ORDER BY s.relname",
        tables.join(", ")
    );
    let stale = db
        .query_all_raw(Statement::from_sql_and_values(
            DatabaseBackend::Postgres,
            sql,
            [CHANGED_ROWS.into()],
        ))
        .await?
        .iter()
        .map(|row| row.try_get::<String>("", "name"))
        .collect::<Result<Vec<_>, _>>()?;
    if !stale.is_empty() {
        // The names are the fixed list's, never input.
        db.execute_unprepared(&format!("ANALYZE {}", stale.join(", ")))
            .await?;
    }
    Ok(stale)
}
