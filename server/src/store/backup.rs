//! Copies of the embedded SQLite database (`agent-taskbay backup`, ADR 0042).
//!
//! `VACUUM INTO` writes a transactionally consistent copy while the console keeps serving: it
//! reads one snapshot of the database (in WAL mode, writers go on meanwhile) and writes it,
//! compacted, to a new file. SQLite's C backup API would give the same guarantee, but only
//! through unsafe FFI, which this workspace forbids.

use std::path::Path;

use sea_orm::{ConnectionTrait, DatabaseConnection, DbBackend, DbErr, Statement};

use crate::db::migration::MIGRATION_TABLE;

/// Writes a consistent copy of the SQLite database `db` is connected to into `target`, which
/// must not exist yet.
pub async fn vacuum_into(db: &DatabaseConnection, target: &Path) -> Result<(), DbErr> {
    let target = target
        .to_str()
        .ok_or_else(|| DbErr::Custom("The backup path is not valid UTF-8.".into()))?;
    db.execute_raw(Statement::from_sql_and_values(
        DbBackend::Sqlite,
        "VACUUM INTO ?",
        [target.into()],
    ))
    .await?;
    Ok(())
}

/// What a copy holds, read back from it after SQLite's own check.
#[derive(Debug, PartialEq, Eq)]
pub struct Contents {
    pub migrations: i64,
    pub organizations: i64,
    pub tasks: i64,
    pub ledger_events: i64,
}

/// Runs `PRAGMA quick_check` on the database `db` is connected to (an error naming the first
/// problem unless it answers `ok`), then counts what it holds.
pub async fn check(db: &DatabaseConnection) -> Result<Contents, DbErr> {
    let verdict = scalar_text(db, "PRAGMA quick_check").await?;
    if verdict != "ok" {
        return Err(DbErr::Custom(format!(
            "The copy failed SQLite's check: {verdict}"
        )));
    }
    Ok(Contents {
        migrations: count(db, MIGRATION_TABLE).await?,
        organizations: count(db, "organizations").await?,
        tasks: count(db, "tasks").await?,
        ledger_events: count(db, "task_events").await?,
    })
}

async fn scalar_text(db: &DatabaseConnection, sql: &str) -> Result<String, DbErr> {
    let row = db
        .query_one_raw(Statement::from_string(DbBackend::Sqlite, sql))
        .await?
        .ok_or_else(|| DbErr::Custom(format!("{sql} answered nothing")))?;
    row.try_get_by_index(0)
}

async fn count(db: &DatabaseConnection, table: &str) -> Result<i64, DbErr> {
    let row = db
        .query_one_raw(Statement::from_string(
            DbBackend::Sqlite,
            format!("SELECT COUNT(*) FROM \"{table}\""),
        ))
        .await?
        .ok_or_else(|| DbErr::Custom(format!("counting {table} answered nothing")))?;
    row.try_get_by_index(0)
}
