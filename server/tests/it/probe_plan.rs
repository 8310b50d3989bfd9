//! What an ingesting transaction reads to learn which of a group's keys a task holds (the probe,
//! `store::probe`) costs the same on a task of any length (issue #33: per-event cost flat from
//! 100 to 1,000,000 events). Found by the long-task benchmark: PostgreSQL's generic plan (a
//! prepared statement's, after five runs) estimated a task's events from the table's statistics
//! and joined a group of 1,024 keys against every event of the task, 0.2 s a group on a task of
//! 400,000 events, growing with it; and it filtered every message of the task through the list of
//! message keys (seconds a group at 280,000 messages). The probe is now one index lookup per key
//! (ADR 0052); these read the tables' counters of the probe's own transaction
//! (`pg_stat_xact_user_tables`) under the generic and a custom plan, on a task much longer than
//! the statistics' average task, and on one the statistics do not know (a first build of the
//! lookups, planned for that task's id, read the whole task for each key there). SQLite plans each key as an index lookup (its rows
//! are not counted there). A generic plan made while the tables were nearly empty is made again
//! once the workers refresh the tables' statistics (ADR 0061).

use std::time::{Duration, Instant};

use sea_orm::{
    ConnectOptions, ConnectionTrait, Database, DatabaseBackend, DatabaseConnection, DatabaseTransaction,
    Statement, TransactionTrait,
};
use server::config::DatabaseConfig;
use server::db::Db;
use server::store::probe::{self, EventKey, Probe, Taken};
use server::store::statistics;

use crate::ledger::{setup, started};
use crate::support;

/// Events and messages added to the probed task; keys `bulk:{n}` and `id:bulk:{n}`.
const TASK_EVENTS: i64 = 20_000;
/// Other tasks, each with a few messages: the statistics' average task is short.
const OTHER_TASKS: i64 = 200;
/// Keys in the probe: a queue transaction's most (`TRANSACTION_LIMIT`).
const KEYS: usize = 1024;

/// Rows of `table` this transaction has read so far: by sequential scans, and fetched from the
/// table by index scans.
async fn rows_read(tx: &DatabaseTransaction, table: &str) -> i64 {
    let sql = format!(
        "SELECT COALESCE(seq_tup_read, 0) + COALESCE(idx_tup_fetch, 0) AS n \
         FROM pg_stat_xact_user_tables WHERE relname = '{table}'"
    );
    let row = tx
        .query_one_raw(Statement::from_string(DatabaseBackend::Postgres, sql))
        .await
        .unwrap()
        .unwrap();
    row.try_get::<i64>("", "n").unwrap()
}

/// A row of `table` copied from `original` with `changes` (`jsonb_build_object` arguments).
fn copy(table: &str, changes: &str) -> String {
    format!("(jsonb_populate_record(NULL::{table}, to_jsonb(original) || jsonb_build_object({changes}))).*")
}

/// Copies of the task `task_id` (remote ids `{prefix}-{n}`), each with `messages` copies of the
/// task's first message.
async fn copies(db: &Db, task_id: &str, prefix: &str, count: i64, messages: i64) {
    let tasks = format!(
        "INSERT INTO tasks SELECT {} FROM tasks AS original, generate_series(1, {count}) AS n \
         WHERE original.id = '{task_id}'",
        copy(
            "tasks",
            &format!("'id', gen_random_uuid()::text, 'remote_task_id', '{prefix}-' || n")
        )
    );
    let messages = format!(
        "INSERT INTO task_messages SELECT {} FROM (SELECT * FROM task_messages WHERE task_id = '{task_id}' \
         LIMIT 1) AS original, tasks AS other, generate_series(1, {messages}) AS n \
         WHERE other.remote_task_id LIKE '{prefix}-%'",
        copy(
            "task_messages",
            "'id', gen_random_uuid()::text, 'task_id', other.id, 'dedupe_key', 'id:copy:' || n, 'sequence', n"
        )
    );
    db.write.execute_unprepared(&tasks).await.unwrap();
    db.write.execute_unprepared(&messages).await.unwrap();
}

/// `count` ledger events (`bulk:{n}`) and messages (`id:bulk:{n}`, copies of the first message
/// of `template`) added to `task_id`, written straight into the tables.
async fn grow(db: &Db, org: &str, template: &str, task_id: &str, count: i64) {
    let events = format!(
        "INSERT INTO task_events (id, organization_id, task_id, sequence, source, event_kind, source_key, \
         payload_digest, payload_json, extensions_json, received_at) \
         SELECT gen_random_uuid()::text, '{org}', '{task_id}', \
         (SELECT COALESCE(MAX(sequence), 0) FROM task_events) + n, 'stream', 'statusUpdate', 'bulk:' || n, \
         'x', '{{}}', '[]', now() FROM generate_series(1, {count}) AS n"
    );
    let messages = format!(
        "INSERT INTO task_messages SELECT {} FROM (SELECT * FROM task_messages WHERE task_id = '{template}' \
         LIMIT 1) AS original, generate_series(1, {count}) AS n",
        copy(
            "task_messages",
            &format!(
                "'id', gen_random_uuid()::text, 'task_id', '{task_id}', 'dedupe_key', 'id:bulk:' || n, 'sequence', 1000000 + n"
            )
        )
    );
    db.write.execute_unprepared(&events).await.unwrap();
    db.write.execute_unprepared(&messages).await.unwrap();
}

/// Probes `task_id` for `KEYS` event keys and as many message keys, every other key the task's
/// (`bulk:{7n+1}`), under the generic plan (a prepared statement's after five runs, planned for
/// any task) and under a custom plan (the first five, and whenever PostgreSQL finds one cheaper:
/// planned for this task's id with what the statistics say of it); checks the answers and what
/// the probe read.
async fn probe_reads_only_its_keys(db: &Db, task_id: &str) {
    for plan in ["force_generic_plan", "force_custom_plan"] {
        probe_reads_only_its_keys_with(db, task_id, plan).await;
    }
}

async fn probe_reads_only_its_keys_with(db: &Db, task_id: &str, plan: &str) {
    let tx = db.write.begin().await.unwrap();
    tx.execute_unprepared(&format!("SET LOCAL plan_cache_mode = {plan}"))
        .await
        .unwrap();
    let read = probe_in(&tx, task_id).await;
    tx.rollback().await.unwrap();
    read_only_its_keys(plan, read);
}

/// What the probe of [`probe_reads_only_its_keys`] found in `tx` under whatever plan the
/// connection has, and the rows of `task_events` and of `task_messages` it read.
async fn probe_in(tx: &DatabaseTransaction, task_id: &str) -> (Taken, i64, i64) {
    let mut probe = Probe::new(task_id);
    for n in 0..KEYS as i64 {
        let key = if n % 2 == 0 {
            format!("bulk:{}", n * 7 + 1)
        } else {
            format!("missing:{n}")
        };
        probe.message(format!("id:{key}"));
        probe.event("stream", EventKey::Exact(key));
    }
    let before = (
        rows_read(tx, "task_events").await,
        rows_read(tx, "task_messages").await,
    );
    let taken: Taken = probe::read(tx, &probe).await.unwrap();
    let events_read = rows_read(tx, "task_events").await - before.0;
    let messages_read = rows_read(tx, "task_messages").await - before.1;
    (taken, events_read, messages_read)
}

/// Checks [`probe_in`]'s answer: every other key found, no more rows read than keys.
fn read_only_its_keys(plan: &str, (taken, events_read, messages_read): (Taken, i64, i64)) {
    assert_eq!(taken.events.len(), KEYS / 2);
    assert!(
        taken
            .events
            .iter()
            .all(|(source, key)| source == "stream" && key.starts_with("bulk:")),
        "{taken:?}"
    );
    assert_eq!(taken.messages.len(), KEYS / 2);
    assert!(
        taken.messages.iter().all(|key| key.starts_with("id:bulk:")),
        "{taken:?}"
    );
    assert!(
        events_read <= KEYS as i64,
        "{plan}: the probe of {KEYS} event keys read {events_read} rows of task_events"
    );
    assert!(
        messages_read <= KEYS as i64,
        "{plan}: the probe of {KEYS} message keys read {messages_read} rows of task_messages"
    );
}

#[tokio::test]
async fn a_probe_of_a_long_task_reads_its_keys_not_the_task_under_the_generic_plan() {
    let Some(test_db) = support::postgres().await else {
        return;
    };
    let (db, ingestor, org, agent, _dir) = setup(&test_db).await;
    let task_id = started(&ingestor, &org, &agent).await;
    copies(&db, &task_id, "other", OTHER_TASKS, 5).await;
    grow(&db, &org, &task_id, &task_id, TASK_EVENTS).await;
    // Statistics, as autovacuum keeps them: the long task is one of 201.
    db.write.execute_unprepared("ANALYZE").await.unwrap();
    probe_reads_only_its_keys(&db, &task_id).await;
    drop(db);
    test_db.cleanup().await;
}

/// The statistics were taken when the table held another task only: a task started since has no
/// estimate of its own (a new deployment, or any task between two runs of autovacuum's
/// `ANALYZE`), and the probe must not read it whole for each key either.
#[tokio::test]
async fn a_probe_of_a_task_the_statistics_do_not_know_reads_its_keys() {
    let Some(test_db) = support::postgres().await else {
        return;
    };
    let (db, ingestor, org, agent, _dir) = setup(&test_db).await;
    let template = started(&ingestor, &org, &agent).await;
    copies(&db, &template, "earlier", 1, 0).await;
    let earlier = task_with_remote_id(&db, "earlier-1").await;
    grow(&db, &org, &template, &earlier, 2_000).await;
    db.write.execute_unprepared("ANALYZE").await.unwrap();
    copies(&db, &template, "new", 1, 0).await;
    let new = task_with_remote_id(&db, "new-1").await;
    grow(&db, &org, &template, &new, TASK_EVENTS).await;
    probe_reads_only_its_keys(&db, &new).await;
    drop(db);
    test_db.cleanup().await;
}

/// ADR 0061: PostgreSQL keeps a prepared statement's generic plan until the statistics of the
/// tables it reads change. One made while the ledger was nearly empty (a new deployment, before
/// autovacuum's first analysis or without autovacuum) could look each key up through the `(task,
/// sequence)` index, reading every event of the task for each key, for as long as the connection
/// lived. The workers' refresh of the statistics (`store::statistics`) makes PostgreSQL plan again.
#[tokio::test]
async fn a_plan_made_while_the_ledger_was_nearly_empty_is_made_again_once_the_statistics_are_refreshed() {
    let Some((test_db, db, org, task_id, _dir)) = unanalyzed().await else {
        return;
    };
    // One connection: the same prepared statement, and its plan, both times.
    let conn = one_connection(&test_db.config.database).await;
    conn.execute_unprepared("SET plan_cache_mode = force_generic_plan")
        .await
        .unwrap();
    let tx = conn.begin().await.unwrap();
    let (taken, _, _) = probe_in(&tx, &task_id).await;
    tx.rollback().await.unwrap();
    assert!(taken.events.is_empty(), "{taken:?}");

    grow(&db, &org, &task_id, &task_id, TASK_EVENTS).await;
    analyzed(&db, &["task_events", "task_messages"]).await;
    let tx = conn.begin().await.unwrap();
    let read = probe_in(&tx, &task_id).await;
    tx.rollback().await.unwrap();
    read_only_its_keys("the plan made after the refresh", read);
    conn.close().await.unwrap();
    drop(db);
    test_db.cleanup().await;
}

/// The refresh is a no-op until a ledger table has changed by `CHANGED_ROWS` rows and a tenth of
/// its size; then it analyzes the tables that have, and only those. Nothing on SQLite.
#[tokio::test]
async fn the_statistics_refresh_analyzes_the_ledger_tables_that_changed_enough() {
    let sqlite = support::sqlite();
    let sqlite_db = sqlite.migrated().await;
    assert_eq!(
        statistics::refresh(&sqlite_db.write).await.unwrap(),
        Vec::<String>::new()
    );
    drop(sqlite_db);
    sqlite.cleanup().await;
    let Some((test_db, db, org, task_id, _dir)) = unanalyzed().await else {
        return;
    };
    assert_eq!(
        statistics::refresh(&db.write).await.unwrap(),
        Vec::<String>::new()
    );
    grow(&db, &org, &task_id, &task_id, statistics::CHANGED_ROWS + 10).await;
    let tables = analyzed(&db, &["task_events", "task_messages"]).await;
    assert!(!tables.contains(&"tasks".to_owned()), "{tables:?}");
    assert!(last_analyzed(&db, "task_events").await);
    assert!(!last_analyzed(&db, "tasks").await);
    assert_eq!(
        statistics::refresh(&db.write).await.unwrap(),
        Vec::<String>::new()
    );
    drop(db);
    test_db.cleanup().await;
}

/// The workers run the refresh on their own (`workers::statistics`).
#[tokio::test]
async fn the_workers_analyze_a_ledger_table_once_it_has_grown() {
    let Some((test_db, db, org, task_id, _dir)) = unanalyzed().await else {
        return;
    };
    let state = server::AppState::new(support::leptos_options(), test_db.config.clone(), db.clone()).unwrap();
    let shutdown = tokio_util::sync::CancellationToken::new();
    let worker = tokio::spawn(server::workers::statistics::run(
        state.worker_deps(),
        Duration::from_millis(10),
        shutdown.clone(),
    ));
    grow(&db, &org, &task_id, &task_id, statistics::CHANGED_ROWS + 10).await;
    let done = crate::ledger::eventually(Duration::from_secs(30), || last_analyzed(&db, "task_events")).await;
    assert!(done, "task_events is analyzed");
    shutdown.cancel();
    worker.await.unwrap();
    drop(db);
    test_db.cleanup().await;
}

/// A new PostgreSQL database (as [`setup`] gives it) with one task, whose ledger tables only the
/// refresh analyzes (autovacuum could run first): the database, the organization and the task.
async fn unanalyzed() -> Option<(support::TestDb, Db, String, String, tempfile::TempDir)> {
    let test_db = support::postgres().await?;
    let (db, ingestor, org, agent, _dir) = setup(&test_db).await;
    for table in statistics::LEDGER_TABLES {
        let sql = format!("ALTER TABLE {table} SET (autovacuum_enabled = false)");
        db.write.execute_unprepared(&sql).await.unwrap();
    }
    let task_id = started(&ingestor, &org, &agent).await;
    Some((test_db, db, org, task_id, _dir))
}

async fn one_connection(config: &DatabaseConfig) -> DatabaseConnection {
    let DatabaseConfig::Postgres { url, .. } = config else {
        panic!("a PostgreSQL test database");
    };
    let mut options = ConnectOptions::new(url.expose().to_owned());
    options.max_connections(1).min_connections(1).sqlx_logging(false);
    Database::connect(options).await.unwrap()
}

/// Calls the refresh until it has analyzed each of `tables` (a table's changes reach the
/// statistics within a second of their commit); every table it analyzed meanwhile.
async fn analyzed(db: &Db, tables: &[&str]) -> Vec<String> {
    let deadline = Instant::now() + Duration::from_secs(30);
    let mut all: Vec<String> = Vec::new();
    loop {
        all.extend(statistics::refresh(&db.write).await.unwrap());
        if tables.iter().all(|table| all.iter().any(|name| name == table)) {
            return all;
        }
        assert!(Instant::now() < deadline, "{tables:?} not all analyzed: {all:?}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// Whether `table` was ever analyzed by hand (not by autovacuum).
async fn last_analyzed(db: &Db, table: &str) -> bool {
    let sql = format!(
        "SELECT last_analyze IS NOT NULL AS analyzed FROM pg_stat_user_tables WHERE relname = '{table}'"
    );
    let row = db
        .read
        .query_one_raw(Statement::from_string(DatabaseBackend::Postgres, sql))
        .await
        .unwrap()
        .unwrap();
    row.try_get::<bool>("", "analyzed").unwrap()
}

async fn task_with_remote_id(db: &Db, remote: &str) -> String {
    let sql = format!("SELECT id FROM tasks WHERE remote_task_id = '{remote}'");
    let row = db
        .read
        .query_one_raw(Statement::from_string(DatabaseBackend::Postgres, sql))
        .await
        .unwrap()
        .unwrap();
    row.try_get::<String>("", "id").unwrap()
}
