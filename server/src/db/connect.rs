//! Opening the database.
//!
//! SQLite gets one writer connection and a separate read-only pool: sea-orm begins
//! transactions with a deferred `BEGIN`, and a read-then-write transaction racing another
//! writer fails at once with `SQLITE_BUSY` without consulting the busy handler
//! (`shared/spec/crates.md` §2). With a single writer that race cannot happen; WAL lets the
//! readers run beside it. PostgreSQL uses one pool for both.

use std::path::Path;
use std::time::Duration;

use sea_orm::sqlx::sqlite::{SqliteJournalMode, SqliteSynchronous};
use sea_orm::{ConnectOptions, ConnectionTrait, Database, DatabaseConnection, DbErr};

use crate::config::DatabaseConfig;

/// How long a SQLite connection waits for a lock before giving up.
pub const SQLITE_BUSY_TIMEOUT: Duration = Duration::from_secs(5);
/// Connections in the SQLite read pool.
pub const SQLITE_READ_POOL_SIZE: u32 = 4;
/// Connections in the PostgreSQL pool (per replica).
pub const POSTGRES_POOL_SIZE: u32 = 10;
/// How long to wait for a pooled connection before reporting the database unavailable.
pub const ACQUIRE_TIMEOUT: Duration = Duration::from_secs(5);
/// A pooled connection idle this long is pinged before it is handed out; a busy one is not
/// (a ping on every acquire was a round trip more for every transaction, issue #33).
pub const PING_WHEN_IDLE_FOR: Duration = Duration::from_secs(30);

/// The database handles. Cheap to clone (each is a pool handle).
#[derive(Clone, Debug)]
pub struct Db {
    /// Every write goes through this connection (one connection for SQLite).
    pub write: DatabaseConnection,
    /// Queries; a read-only pool for SQLite, the same pool as `write` for PostgreSQL.
    pub read: DatabaseConnection,
}

impl Db {
    /// How many connections the read pool has.
    pub fn read_pool_size(&self) -> usize {
        match self.read.get_database_backend() {
            sea_orm::DatabaseBackend::Postgres => POSTGRES_POOL_SIZE as usize,
            _ => SQLITE_READ_POOL_SIZE as usize,
        }
    }

    /// Closes every pool so the SQLite WAL is checkpointed before the process exits.
    pub async fn close(self) {
        // Closing an already-closed pool is harmless; errors here have nobody to report to.
        let _ = self.read.close().await;
        let _ = self.write.close().await;
    }

    /// Whether this is the embedded SQLite database.
    pub fn is_sqlite(&self) -> bool {
        matches!(
            self.write.get_database_backend(),
            sea_orm::DatabaseBackend::Sqlite
        )
    }
}

/// Opens the database named by `config`, creating the SQLite file (and its directory) if needed.
/// Migrations are not run here; see [`super::migration`].
pub async fn connect(config: &DatabaseConfig) -> Result<Db, DbErr> {
    match config {
        DatabaseConfig::Sqlite { path } => connect_sqlite(path).await,
        DatabaseConfig::Postgres { url, .. } => {
            let mut options = ConnectOptions::new(url.expose().to_owned());
            options
                .max_connections(POSTGRES_POOL_SIZE)
                .min_connections(1)
                .acquire_timeout(ACQUIRE_TIMEOUT)
                .test_before_acquire_if_idle_for(PING_WHEN_IDLE_FOR)
                .sqlx_logging(false);
            let pool = Database::connect(options).await?;
            Ok(Db {
                write: pool.clone(),
                read: pool,
            })
        }
    }
}

async fn connect_sqlite(path: &Path) -> Result<Db, DbErr> {
    if let Some(dir) = path.parent().filter(|dir| !dir.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)
            .map_err(|e| DbErr::Custom(format!("cannot create database directory {}: {e}", dir.display())))?;
    }
    let write = sqlite_pool(path, 1, false).await?;
    // The read-only pool can only open a file that exists: the writer created it above.
    write.execute_unprepared("PRAGMA user_version").await?;
    let read = sqlite_pool(path, SQLITE_READ_POOL_SIZE, true).await?;
    Ok(Db { write, read })
}

pub(crate) async fn sqlite_pool(
    path: &Path,
    size: u32,
    read_only: bool,
) -> Result<DatabaseConnection, DbErr> {
    let file = path.to_path_buf();
    let mut options = ConnectOptions::new(format!("sqlite://{}", path.display()));
    options
        .max_connections(size)
        .min_connections(1)
        .acquire_timeout(ACQUIRE_TIMEOUT)
        .test_before_acquire_if_idle_for(PING_WHEN_IDLE_FOR)
        .sqlx_logging(false)
        .map_sqlx_sqlite_opts(move |o| {
            o.filename(&file)
                .create_if_missing(!read_only)
                .read_only(read_only)
                .journal_mode(SqliteJournalMode::Wal)
                .synchronous(SqliteSynchronous::Normal)
                .busy_timeout(SQLITE_BUSY_TIMEOUT)
                .foreign_keys(true)
        });
    Database::connect(options).await
}
