//! Immutable history (`shared/spec/security-and-durability.md` §3.2 "append-only", §4.1
//! "Database triggers", threat 24 "Audit tampering"): database triggers, on SQLite and
//! PostgreSQL, that refuse what the application never does.
//!
//! - `task_events` (the ledger), `decision_revisions` and `decisions`: no update, no delete
//!   ("audit records are append-only").
//! - `decision_requests`: no delete, and the identity and proposal columns never change
//!   ("decision request core is immutable"); the status, current revision, assignment, expiry
//!   and `updated_at` are the request's state and do change.
//! - `decision_executions`: no delete, and the correlation columns never change; the observed
//!   `status`, `task_state` and `updated_at` do.

use sea_orm::{ConnectionTrait, DatabaseBackend};
use sea_orm_migration::prelude::*;

#[derive(DeriveMigrationName)]
pub struct Migration;

/// The error of an update or delete of an append-only table.
pub const APPEND_ONLY: &str = "audit records are append-only";
/// The error of a delete of a request or a change to its core.
pub const REQUEST_CORE: &str = "decision request core is immutable";
/// The error of a delete of an execution or a change to what it correlates.
pub const EXECUTION_CORE: &str = "decision execution correlation is immutable";

/// Tables that are only ever inserted into.
const APPEND_ONLY_TABLES: [&str; 3] = ["task_events", "decision_revisions", "decisions"];

/// The columns of a decision request that never change after it is opened.
const REQUEST_CORE_COLUMNS: [&str; 15] = [
    "id",
    "organization_id",
    "task_id",
    "agent_id",
    "tenant",
    "skill_id",
    "request_key",
    "source_message_id",
    "kind",
    "title",
    "summary",
    "risk",
    "policy_json",
    "requester_user_id",
    "created_at",
];

/// The columns of an execution that tie it to its decision and command.
const EXECUTION_CORE_COLUMNS: [&str; 5] = ["id", "decision_id", "request_id", "command_id", "created_at"];

/// `NEW.a IS NOT OLD.a OR …` (SQLite) / `NEW.a IS DISTINCT FROM OLD.a OR …` (PostgreSQL).
fn changed(columns: &[&str], differs: &str) -> String {
    columns
        .iter()
        .map(|c| format!("NEW.{c} {differs} OLD.{c}"))
        .collect::<Vec<_>>()
        .join(" OR ")
}

fn sqlite_up() -> Vec<String> {
    let mut sql = Vec::new();
    for table in APPEND_ONLY_TABLES {
        for op in ["UPDATE", "DELETE"] {
            sql.push(format!(
                "CREATE TRIGGER {table}_no_{op} BEFORE {op} ON {table} \
                 BEGIN SELECT RAISE(ABORT, '{APPEND_ONLY}'); END",
                op = op.to_lowercase(),
            ));
        }
    }
    for (table, columns, message) in [
        ("decision_requests", &REQUEST_CORE_COLUMNS[..], REQUEST_CORE),
        ("decision_executions", &EXECUTION_CORE_COLUMNS[..], EXECUTION_CORE),
    ] {
        sql.push(format!(
            "CREATE TRIGGER {table}_core_no_update BEFORE UPDATE ON {table} WHEN {} \
             BEGIN SELECT RAISE(ABORT, '{message}'); END",
            changed(columns, "IS NOT")
        ));
        sql.push(format!(
            "CREATE TRIGGER {table}_no_delete BEFORE DELETE ON {table} \
             BEGIN SELECT RAISE(ABORT, '{message}'); END"
        ));
    }
    sql
}

fn postgres_up() -> Vec<String> {
    let mut sql = vec![format!(
        "CREATE FUNCTION agent_taskbay_append_only() RETURNS trigger LANGUAGE plpgsql AS $$ \
         BEGIN RAISE EXCEPTION '{APPEND_ONLY}'; END $$"
    )];
    for table in APPEND_ONLY_TABLES {
        sql.push(format!(
            "CREATE TRIGGER {table}_append_only BEFORE UPDATE OR DELETE ON {table} \
             FOR EACH ROW EXECUTE FUNCTION agent_taskbay_append_only()"
        ));
        sql.push(format!(
            "CREATE TRIGGER {table}_no_truncate BEFORE TRUNCATE ON {table} \
             FOR EACH STATEMENT EXECUTE FUNCTION agent_taskbay_append_only()"
        ));
    }
    for (table, columns, message) in [
        ("decision_requests", &REQUEST_CORE_COLUMNS[..], REQUEST_CORE),
        ("decision_executions", &EXECUTION_CORE_COLUMNS[..], EXECUTION_CORE),
    ] {
        sql.push(format!(
            "CREATE FUNCTION agent_taskbay_{table}_core() RETURNS trigger LANGUAGE plpgsql AS $$ \
             BEGIN \
               IF TG_OP = 'DELETE' THEN RAISE EXCEPTION '{message}'; END IF; \
               IF {} THEN RAISE EXCEPTION '{message}'; END IF; \
               RETURN NEW; \
             END $$",
            changed(columns, "IS DISTINCT FROM")
        ));
        sql.push(format!(
            "CREATE TRIGGER {table}_core BEFORE UPDATE OR DELETE ON {table} \
             FOR EACH ROW EXECUTE FUNCTION agent_taskbay_{table}_core()"
        ));
        sql.push(format!(
            "CREATE TRIGGER {table}_no_truncate BEFORE TRUNCATE ON {table} \
             FOR EACH STATEMENT EXECUTE FUNCTION agent_taskbay_append_only()"
        ));
    }
    sql
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, m: &SchemaManager) -> Result<(), DbErr> {
        let db = m.get_connection();
        let statements = match db.get_database_backend() {
            DatabaseBackend::Postgres => postgres_up(),
            _ => sqlite_up(),
        };
        for statement in statements {
            db.execute_unprepared(&statement).await?;
        }
        Ok(())
    }

    async fn down(&self, m: &SchemaManager) -> Result<(), DbErr> {
        let db = m.get_connection();
        let mut statements = Vec::new();
        match db.get_database_backend() {
            DatabaseBackend::Postgres => {
                for table in APPEND_ONLY_TABLES {
                    statements.push(format!("DROP TRIGGER IF EXISTS {table}_append_only ON {table}"));
                    statements.push(format!("DROP TRIGGER IF EXISTS {table}_no_truncate ON {table}"));
                }
                for table in ["decision_requests", "decision_executions"] {
                    statements.push(format!("DROP TRIGGER IF EXISTS {table}_core ON {table}"));
                    statements.push(format!("DROP TRIGGER IF EXISTS {table}_no_truncate ON {table}"));
                    statements.push(format!("DROP FUNCTION IF EXISTS agent_taskbay_{table}_core()"));
                }
                statements.push("DROP FUNCTION IF EXISTS agent_taskbay_append_only()".into());
            }
            _ => {
                for table in APPEND_ONLY_TABLES {
                    statements.push(format!("DROP TRIGGER IF EXISTS {table}_no_update"));
                    statements.push(format!("DROP TRIGGER IF EXISTS {table}_no_delete"));
                }
                for table in ["decision_requests", "decision_executions"] {
                    statements.push(format!("DROP TRIGGER IF EXISTS {table}_core_no_update"));
                    statements.push(format!("DROP TRIGGER IF EXISTS {table}_no_delete"));
                }
            }
        }
        for statement in statements {
            db.execute_unprepared(&statement).await?;
        }
        Ok(())
    }
}
