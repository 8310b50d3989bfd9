//! What an ingesting transaction reads to learn which of a group's keys a task holds (the probe,
//! `store::probe`) costs the same on a task of any length (issue #33: per-event cost flat from
//! 100 to 1,000,000 events). Found by the long-task benchmark: PostgreSQL's generic plan (a
//! prepared statement's, after five runs) estimated a task's events from the table's statistics
//! and joined a group of 1,024 keys against every event of the task, 0.2 s a group on a task of
//! 400,000 events, growing with it; and it filtered every message of the task through the list of
//! message keys (seconds a group at 280,000 messages). The probe is now one index lookup per key
//! (ADR 0052); this reads the tables' counters of the probe's own transaction
//! (`pg_stat_xact_user_tables`) under the generic plan, on a task much longer than the
//! statistics' average task. SQLite plans each key as an index lookup (its rows are not counted
//! there).

use sea_orm::{ConnectionTrait, DatabaseBackend, DatabaseTransaction, Statement, TransactionTrait};
use server::store::probe::{self, EventKey, Probe};

use crate::ledger::{setup, started};
use crate::support;

/// Events and messages of the task besides those `started` stored; keys `bulk:{n}` and
/// `id:bulk:{n}`.
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

/// `OTHER_TASKS` copies of the task, five messages each (copies of its first), and
/// `TASK_EVENTS` more messages of the task itself, written straight into the tables.
async fn seed_messages(db: &server::db::Db, task_id: &str) {
    let copy = |table: &str, changes: &str| {
        format!(
            "(jsonb_populate_record(NULL::{table}, to_jsonb(original) || jsonb_build_object({changes}))).*"
        )
    };
    let statements = [
        format!(
            "INSERT INTO tasks SELECT {} FROM tasks AS original, generate_series(1, {OTHER_TASKS}) AS n \
             WHERE original.id = '{task_id}'",
            copy(
                "tasks",
                "'id', gen_random_uuid()::text, 'remote_task_id', 'other-' || n"
            )
        ),
        format!(
            "INSERT INTO task_messages SELECT {} FROM (SELECT * FROM task_messages WHERE task_id = '{task_id}' \
             LIMIT 1) AS original, tasks AS other, generate_series(1, 5) AS n WHERE other.remote_task_id LIKE 'other-%'",
            copy(
                "task_messages",
                "'id', gen_random_uuid()::text, 'task_id', other.id, 'dedupe_key', 'id:other:' || n, 'sequence', n"
            )
        ),
        format!(
            "INSERT INTO task_messages SELECT {} FROM (SELECT * FROM task_messages WHERE task_id = '{task_id}' \
             LIMIT 1) AS original, generate_series(1, {TASK_EVENTS}) AS n",
            copy(
                "task_messages",
                "'id', gen_random_uuid()::text, 'dedupe_key', 'id:bulk:' || n, 'sequence', 1000000 + n"
            )
        ),
    ];
    for statement in statements {
        db.write.execute_unprepared(&statement).await.unwrap();
    }
}

#[tokio::test]
async fn a_probe_of_a_long_task_reads_its_keys_not_the_task_under_the_generic_plan() {
    for test_db in support::backends().await {
        if test_db.name != "postgresql" {
            continue;
        }
        let (db, ingestor, org, agent, _dir) = setup(&test_db).await;
        let task_id = started(&ingestor, &org, &agent).await;
        // A long task, written straight into the ledger; then statistics, as autovacuum keeps.
        let seed = format!(
            "INSERT INTO task_events (id, organization_id, task_id, sequence, source, event_kind, source_key, \
             payload_digest, payload_json, extensions_json, received_at) \
             SELECT gen_random_uuid()::text, '{org}', '{task_id}', 1000000 + n, 'stream', 'statusUpdate', 'bulk:' || n, \
             'x', '{{}}', '[]', now() FROM generate_series(1, {TASK_EVENTS}) AS n"
        );
        db.write.execute_unprepared(&seed).await.unwrap();
        seed_messages(&db, &task_id).await;
        db.write.execute_unprepared("ANALYZE").await.unwrap();

        let mut probe = Probe::new(&task_id);
        // Every other key is the task's: the probe must find exactly those.
        for n in 0..KEYS as i64 {
            let key = if n % 2 == 0 {
                format!("bulk:{}", n * 7 + 1)
            } else {
                format!("missing:{n}")
            };
            probe.event("stream", EventKey::Exact(key));
            probe.message(if n % 2 == 0 {
                format!("id:bulk:{}", n * 7 + 1)
            } else {
                format!("id:missing:{n}")
            });
        }
        let tx = db.write.begin().await.unwrap();
        tx.execute_unprepared("SET LOCAL plan_cache_mode = force_generic_plan")
            .await
            .unwrap();
        let before = (
            rows_read(&tx, "task_events").await,
            rows_read(&tx, "task_messages").await,
        );
        let taken = probe::read(&tx, &probe).await.unwrap();
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
            "the probe of {KEYS} keys read {events_read} of the task's {TASK_EVENTS} events"
        );
        assert!(
            messages_read <= KEYS as i64,
            "the probe of {KEYS} message keys read {messages_read} of the task's {TASK_EVENTS} messages"
        );
    }
}
