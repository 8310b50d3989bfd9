//! Request budgets (`shared/spec/security-and-durability.md` §1.6): fixed 60-second windows
//! counted in `security_rate_buckets`, so a budget holds across replicas and restarts. One
//! statement per request takes a token: it adds one to the window's count (creating it) and reads
//! the count back.

use chrono::{DateTime, Utc};
use sea_orm::{ConnectionTrait, DatabaseBackend, DbErr, Statement};

use super::StoreError;
use crate::db::Db;

/// A budget's window.
pub const WINDOW_SECONDS: i64 = 60;

/// Takes one request from the budget `key` (`user:<membershipId>:<permission>`, `login`, …) of
/// `limit` per window: `true` when it was within the limit. Requests over it still count, so a
/// caller that keeps trying stays refused until the window ends.
pub async fn take(db: &Db, key: &str, limit: u32, now: DateTime<Utc>) -> Result<bool, StoreError> {
    let window = now.timestamp().div_euclid(WINDOW_SECONDS) * WINDOW_SECONDS;
    let backend = db.write.get_database_backend();
    let (a, b) = match backend {
        DatabaseBackend::Postgres => ("$1", "$2"),
        _ => ("?", "?"),
    };
    let sql = format!(
        "INSERT INTO security_rate_buckets (bucket_key, window_start, count) VALUES ({a}, {b}, 1) \
         ON CONFLICT (bucket_key, window_start) DO UPDATE SET count = security_rate_buckets.count + 1 \
         RETURNING count"
    );
    let row = db
        .write
        .query_one_raw(Statement::from_sql_and_values(
            backend,
            sql,
            [key.into(), window.into()],
        ))
        .await?
        .ok_or_else(|| DbErr::Custom("budget update returned no row".into()))?;
    let count: i32 = row.try_get_by_index(0)?;
    Ok(count <= i32::try_from(limit).unwrap_or(i32::MAX))
}

/// Deletes windows that ended before `now`; returns how many.
pub async fn purge_past(db: &Db, now: DateTime<Utc>) -> Result<u64, StoreError> {
    let current = now.timestamp().div_euclid(WINDOW_SECONDS) * WINDOW_SECONDS;
    let backend = db.write.get_database_backend();
    let sql = match backend {
        DatabaseBackend::Postgres => "DELETE FROM security_rate_buckets WHERE window_start < $1",
        _ => "DELETE FROM security_rate_buckets WHERE window_start < ?",
    };
    let done = db
        .write
        .execute_raw(Statement::from_sql_and_values(backend, sql, [current.into()]))
        .await?;
    Ok(done.rows_affected())
}
