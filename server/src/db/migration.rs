//! Schema migrations, one set for SQLite and PostgreSQL. Applied at start for the embedded
//! database, with `A2A_AUTO_MIGRATE=true` for PostgreSQL, and by `agent-taskbay migrate`.

use sea_orm::DbErr;
use sea_orm_migration::prelude::*;

use super::Db;

/// The column list of an index (`cols![Table::A, Table::B]`), for the migrations below.
macro_rules! cols {
    ($($c:expr),+) => { vec![$($c.into_iden()),+] };
}

mod m20261129_000001_initial;
mod m20261129_000002_agent_interface_pin;
mod m20261130_000003_ledger;
mod m20261130_000004_approvals;
pub mod m20261203_000005_immutable_history;
pub mod m20261203_000006_follow_waiting_tasks;
pub mod m20261204_000007_long_task_pages;
mod m20261205_000008_identity;
mod m20261205_000009_access;
mod m20261205_000010_decision_people;
mod m20261205_000011_agent_credentials;
mod m20261205_000012_sync_cursors;
mod m20261205_000013_push_registrations;
mod m20261205_000014_wire_exchanges;

/// An index named `name` on `columns` of `table`.
fn index(name: &str, table: impl IntoIden, columns: Vec<DynIden>, unique: bool) -> IndexCreateStatement {
    let mut index = Index::create();
    index.name(name).table(table);
    for column in columns {
        index.col(column);
    }
    if unique {
        index.unique();
    }
    index.to_owned()
}

/// The migration table keeps the original console's name.
pub const MIGRATION_TABLE: &str = "agent_taskbay_migrations";

/// Every migration, oldest first.
pub struct Migrator;

#[async_trait::async_trait]
impl MigratorTrait for Migrator {
    fn migrations() -> Vec<Box<dyn MigrationTrait>> {
        vec![
            Box::new(m20261129_000001_initial::Migration),
            Box::new(m20261129_000002_agent_interface_pin::Migration),
            Box::new(m20261130_000003_ledger::Migration),
            Box::new(m20261130_000004_approvals::Migration),
            Box::new(m20261203_000005_immutable_history::Migration),
            Box::new(m20261203_000006_follow_waiting_tasks::Migration),
            Box::new(m20261204_000007_long_task_pages::Migration),
            Box::new(m20261205_000008_identity::Migration),
            Box::new(m20261205_000009_access::Migration),
            Box::new(m20261205_000010_decision_people::Migration),
            Box::new(m20261205_000011_agent_credentials::Migration),
            Box::new(m20261205_000012_sync_cursors::Migration),
            Box::new(m20261205_000013_push_registrations::Migration),
            Box::new(m20261205_000014_wire_exchanges::Migration),
        ]
    }

    fn migration_table_name() -> DynIden {
        Alias::new(MIGRATION_TABLE).into_iden()
    }
}

/// Applies every pending migration through the writer. Returns how many ran.
pub async fn migrate(db: &Db) -> Result<usize, DbErr> {
    let pending = Migrator::get_pending_migrations(&db.write).await?.len();
    Migrator::up(&db.write, None).await?;
    Ok(pending)
}

/// Names of the migrations not yet applied, without changing anything (used by `/readyz`).
pub async fn pending(db: &Db) -> Result<Vec<String>, DbErr> {
    let pending = Migrator::get_pending_migrations_read_only(&db.read).await?;
    Ok(pending.iter().map(|m| m.name().to_owned()).collect())
}
