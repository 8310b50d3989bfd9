//! What an ingesting transaction reads to learn which of a group's keys a task holds (the probe,
//! `store::probe`) costs the same on a task of any length (issue #33: per-event cost flat from
//! 100 to 1,000,000 events). Found by the long-task benchmark: PostgreSQL's generic plan (a
//! prepared statement's, after five runs) estimated a task's events from the table's statistics
//! and joined a group of 1,024 keys against every event of the task, 0.2 s a group on a task of
//! 400,000 events, growing with it. The probe is now one index lookup per key; this reads the
//! table's counters of the probe's own transaction (`pg_stat_xact_user_tables`) under the
//! generic plan. SQLite plans each key as an index lookup (its rows are not counted there).

use sea_orm::{ConnectionTrait, DatabaseBackend, DatabaseTransaction, Statement, TransactionTrait};
use server::store::probe::{self, EventKey, Probe};

use crate::ledger::{setup, started};
use crate::support;

/// Events of the task besides those `started` stored; keys `bulk:{n}`.
const TASK_EVENTS: i64 = 20_000;
/// Keys in the probe: a queue transaction's most (`TRANSACTION_LIMIT`).
const KEYS: usize = 1024;

/// Rows of `task_events` this transaction has read so far: by sequential scans, and fetched
/// from the table by index scans.
async fn rows_read(tx: &DatabaseTransaction) -> i64 {
    let sql = "SELECT COALESCE(seq_tup_read, 0) + COALESCE(idx_tup_fetch, 0) AS n \
               FROM pg_stat_xact_user_tables WHERE relname = 'task_events'";
    let row = tx
        .query_one_raw(Statement::from_string(DatabaseBackend::Postgres, sql))
        .await
        .unwrap()
        .unwrap();
    row.try_get::<i64>("", "n").unwrap()
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
        db.write.execute_unprepared("ANALYZE task_events").await.unwrap();

        let mut probe = Probe::new(&task_id);
        // Every other key is the task's: the probe must find exactly those.
        for n in 0..KEYS as i64 {
            let key = if n % 2 == 0 {
                format!("bulk:{}", n * 7 + 1)
            } else {
                format!("missing:{n}")
            };
            probe.event("stream", EventKey::Exact(key));
        }
        let tx = db.write.begin().await.unwrap();
        tx.execute_unprepared("SET LOCAL plan_cache_mode = force_generic_plan")
            .await
            .unwrap();
        let before = rows_read(&tx).await;
        let taken = probe::read(&tx, &probe).await.unwrap();
        let read = rows_read(&tx).await - before;
        tx.rollback().await.unwrap();

        assert_eq!(taken.events.len(), KEYS / 2);
        assert!(
            taken
                .events
                .iter()
                .all(|(source, key)| source == "stream" && key.starts_with("bulk:")),
            "{taken:?}"
        );
        assert!(
            read <= KEYS as i64,
            "the probe of {KEYS} keys read {read} of the task's {TASK_EVENTS} events"
        );
    }
}
