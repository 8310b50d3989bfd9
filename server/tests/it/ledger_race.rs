//! PostgreSQL's one-statement task open (ADR 0051): the task row is locked, the organization's
//! sequences reserved and what the task holds of the event's keys read in one statement. The
//! read sees the statement's snapshot, taken before the lock was granted, so when another
//! transaction held the row and wrote to the task meanwhile, the read is stale: ingestion must
//! notice and read again, and it must take the row lock before the counter's (a transaction
//! holding the row and then the counter would otherwise deadlock with it). SQLite has one
//! writer: nothing to race.

use sea_orm::{ConnectionTrait, DatabaseBackend, Statement, TransactionTrait, Value};
use serde_json::json;
use server::ingest::Source;
use server::store::access::Access;
use server::store::tasks::{self as task_store, EventScope};

use crate::ledger::{observation, setup, started};
use crate::support;

fn statement(sql: &str, values: Vec<Value>) -> Statement {
    Statement::from_sql_and_values(DatabaseBackend::Postgres, sql, values)
}

/// How many of this database's connections wait for a lock.
pub(crate) async fn waiting_for_a_lock(db: &server::db::Db) -> i64 {
    let sql = "SELECT count(*) AS n FROM pg_stat_activity WHERE datname = current_database() \
               AND wait_event_type = 'Lock'";
    let row = db
        .read
        .query_one_raw(statement(sql, vec![]))
        .await
        .unwrap()
        .unwrap();
    row.try_get::<i64>("", "n").unwrap()
}

/// Stores a stream event of the task in `tx` as an ingest would: the organization's counter,
/// the ledger row with key `key`, the task row. Gives back its sequence.
pub(crate) async fn store_as_an_ingest(
    tx: &sea_orm::DatabaseTransaction,
    org: &str,
    task_id: &str,
    key: &str,
    payload: &serde_json::Value,
) -> i64 {
    let sequence = tx
        .query_one_raw(statement(
            "UPDATE ledger_counters SET value = value + 1 WHERE organization_id = $1 RETURNING value",
            vec![org.into()],
        ))
        .await
        .expect("the counter is free")
        .unwrap()
        .try_get::<i64>("", "value")
        .unwrap();
    tx.execute_raw(statement(
        "INSERT INTO task_events (id, organization_id, task_id, sequence, source, event_kind, \
         source_key, payload_digest, payload_json, extensions_json, received_at) \
         VALUES ($1, $2, $3, $4, 'stream', 'statusUpdate', $5, 'raced', $6, '[]', now())",
        vec![
            uuid::Uuid::new_v4().to_string().into(),
            org.into(),
            task_id.into(),
            sequence.into(),
            key.into(),
            payload.clone().into(),
        ],
    ))
    .await
    .unwrap();
    tx.execute_raw(statement(
        "UPDATE tasks SET last_sequence = $1, version = version + 1 WHERE id = $2",
        vec![sequence.into(), task_id.into()],
    ))
    .await
    .unwrap();
    sequence
}

#[tokio::test]
async fn an_event_stored_while_the_open_waited_for_the_row_is_a_duplicate_not_a_conflict() {
    for test_db in support::backends().await {
        if test_db.name != "postgresql" {
            continue;
        }
        let (db, ingestor, org, agent, _dir) = setup(&test_db).await;
        let task_id = started(&ingestor, &org, &agent).await;
        let row = server::store::task_rows::find_any(&db.read, &task_id)
            .await
            .unwrap()
            .unwrap();
        let payload = json!({"statusUpdate": {"taskId": "remote-1", "contextId": "ctx-1",
            "status": {"state": "TASK_STATE_WORKING"}}});
        let mut raced = observation(&org, &agent, Source::Stream, Some("race:1"), payload.clone());
        raced.local_task_id = Some(task_id.clone());
        let key = format!("t{}:race:1", row.turn);

        // Another transaction holds the task row.
        let other = db.write.begin().await.unwrap();
        other
            .execute_raw(statement(
                "SELECT id FROM tasks WHERE id = $1 FOR UPDATE",
                vec![task_id.clone().into()],
            ))
            .await
            .unwrap();
        let (ingested, stored) = tokio::join!(ingestor.ingest(&raced), async {
            // Once the ingest waits for the row, the other transaction stores the same event
            // as an ingest would (the counter, the ledger row, the task row) and commits.
            let waits = async {
                while waiting_for_a_lock(&db).await == 0 {
                    tokio::task::yield_now().await;
                }
            };
            tokio::time::timeout(std::time::Duration::from_secs(30), waits)
                .await
                .expect("the ingest waits for the task's row");
            let sequence = store_as_an_ingest(&other, &org, &task_id, &key, &payload).await;
            other.commit().await.unwrap();
            sequence
        });
        let ingested = ingested.expect("the ingest reads the task again after the wait, no key conflict");
        assert_eq!(
            ingested.sequence, None,
            "the event is already stored: a duplicate"
        );

        let access = Access::everything(org.as_str());
        let events = task_store::events_after(&db.read, &access, &EventScope::Task(task_id.clone()), 0)
            .await
            .unwrap();
        let rows = db
            .read
            .query_one_raw(statement(
                "SELECT count(*) AS n FROM task_events WHERE task_id = $1 AND source_key = $2",
                vec![task_id.clone().into(), key.clone().into()],
            ))
            .await
            .unwrap()
            .unwrap();
        assert_eq!(
            rows.try_get::<i64>("", "n").unwrap(),
            1,
            "one ledger row for the event"
        );
        assert_eq!(events.last().unwrap().sequence, stored);
        // The sequence the ingest reserved and did not use was given back: the next event
        // follows the raced one, no gap.
        let mut next = observation(&org, &agent, Source::Stream, Some("after:1"), payload);
        next.local_task_id = Some(task_id.clone());
        assert_eq!(ingestor.ingest(&next).await.unwrap().sequence, Some(stored + 1));
        db.close().await;
        test_db.cleanup().await;
    }
}
