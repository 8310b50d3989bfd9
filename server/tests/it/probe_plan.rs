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
//! are not counted there).

use sea_orm::{ConnectionTrait, DatabaseBackend, DatabaseTransaction, Statement, TransactionTrait};
use server::db::Db;
use server::store::probe::{self, EventKey, Probe, Taken};

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
    let tx = db.write.begin().await.unwrap();
    tx.execute_unprepared(&format!("SET LOCAL plan_cache_mode = {plan}"))
        .await
        .unwrap();
    let before = (
        rows_read(&tx, "task_events").await,
        rows_read(&tx, "task_messages").await,
    );
    let taken: Taken = probe::read(&tx, &probe).await.unwrap();
    let events_read = rows_read(&tx, "task_events").await - before.0;
    let messages_read = rows_read(&tx, "task_messages").await - before.1;
    tx.rollback().await.unwrap();

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
