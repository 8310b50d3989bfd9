//! The commit queue's shared transaction opens its tasks together (issue #33, ADR 0060): on
//! PostgreSQL one statement locks every task row, reserves the counter once they are all
//! locked, and reads what each group's first task holds of the group's keys. What it must keep:
//! a task two groups of one transaction share is read again for the second (what the open read
//! is stale once the first group wrote), and a task row another transaction wrote while the
//! statement waited for its lock is read again under the lock (the snapshot check of ADR 0051),
//! so an event stored meanwhile is a duplicate, not a key conflict that fails the transaction.

use std::sync::atomic::Ordering;

use sea_orm::{ConnectionTrait, DbBackend, Statement};
use server::db::Db;
use server::store::access::Access;
use server::store::tasks as task_store;

use crate::commit_queue::{leased_tasks, queue_behind_a_held_database, queue_waiting_for_task_2, steps};
use crate::ledger::setup;
use crate::ledger_race::store_as_an_ingest;
use crate::support;

/// The organization's ledger has no gap and no repeat: its sequences are 1..=n.
async fn ledger_is_contiguous(db: &Db, org: &str) -> bool {
    let backend = db.read.get_database_backend();
    let sql = match backend {
        DbBackend::Postgres => {
            "SELECT count(*) AS n, count(DISTINCT sequence) AS d, max(sequence) AS top FROM task_events \
             WHERE organization_id = $1"
        }
        _ => {
            "SELECT count(*) AS n, count(DISTINCT sequence) AS d, max(sequence) AS top FROM task_events \
             WHERE organization_id = ?"
        }
    };
    let row = db
        .read
        .query_one_raw(Statement::from_sql_and_values(backend, sql, [org.into()]))
        .await
        .unwrap()
        .unwrap();
    let n: i64 = row.try_get("", "n").unwrap();
    n == row.try_get::<i64>("", "d").unwrap() && n == row.try_get::<i64>("", "top").unwrap()
}

#[tokio::test]
async fn a_task_in_two_groups_of_one_transaction_is_read_again_for_the_second() {
    for test_db in support::backends().await {
        let (db, ingestor, org, agent, _dir) = setup(&test_db).await;
        let ingestor = ingestor.with_commit_queue();
        let tasks = leased_tasks(&ingestor, &db, &org, &agent, 3).await;
        // Task 1's second group repeats the first's last event (a stream resumed after it).
        let groups = vec![
            steps(&org, &agent, &tasks[0], 0, "worker-1", &[1, 2]),
            steps(&org, &agent, &tasks[1], 1, "worker-1", &[1, 2]),
            steps(&org, &agent, &tasks[2], 2, "worker-1", &[1, 2]),
            steps(&org, &agent, &tasks[1], 1, "worker-1", &[2, 3]),
        ];
        let commits_before = ingestor.counters.queue_commits.load(Ordering::SeqCst);
        let pending = queue_behind_a_held_database(&db, &ingestor, &org, groups).await;
        let mut results = Vec::new();
        for p in pending {
            results.push(p.await.unwrap().expect("committed"));
        }
        let name = test_db.name;
        assert_eq!(
            ingestor.counters.queue_commits.load(Ordering::SeqCst) - commits_before,
            2,
            "{name}: group 0 alone, then the three others in one transaction that did not fail"
        );
        let second: Vec<Option<i64>> = results[3].iter().map(|d| d.sequence).collect();
        assert_eq!(
            second[0], None,
            "{name}: s2 of task 1 is already stored: a duplicate"
        );
        assert_eq!(
            second[1],
            Some(results[2][1].sequence.unwrap() + 1),
            "{name}: s3 follows"
        );
        let view = task_store::view(&db.read, &Access::everything(org.as_str()), &tasks[1].0)
            .await
            .unwrap();
        assert_eq!(view.last_sequence, second[1].unwrap(), "{name}");
        assert_eq!(view.messages.len(), 3, "{name}: task 1's three steps, once each");
        assert!(ledger_is_contiguous(&db, &org).await, "{name}");
        test_db.cleanup().await;
    }
}

/// PostgreSQL: another transaction holds task 2's row while the queue opens tasks 1 and 2
/// together; once the open waits for it, that transaction stores task 2's first event as an
/// ingest would (counter, ledger row, task row) and commits. The open's snapshot predates that
/// commit: the shared transaction must see the row changed, read task 2's keys again, count
/// the event a duplicate and still commit, with no sequence lost.
#[tokio::test]
async fn an_event_stored_while_the_shared_open_waited_is_a_duplicate_not_a_conflict() {
    let Some(test_db) = support::postgres().await else {
        return;
    };
    let (db, ingestor, org, agent, _dir) = setup(&test_db).await;
    let ingestor = ingestor.with_commit_queue();
    let tasks = leased_tasks(&ingestor, &db, &org, &agent, 3).await;
    let groups: Vec<_> = (0..3)
        .map(|n| steps(&org, &agent, &tasks[n], n, "worker-1", &[1, 2]))
        .collect();
    let turn = server::store::task_rows::find_any(&db.read, &tasks[2].0)
        .await
        .unwrap()
        .unwrap()
        .turn;
    let commits_before = ingestor.counters.queue_commits.load(Ordering::SeqCst);
    let (pending, other) = queue_waiting_for_task_2(&db, &ingestor, &org, &tasks, groups).await;
    // The counter is free while the open waits (it is reserved once every row is locked).
    let key = format!("t{turn}:s1");
    let sequence = store_as_an_ingest(&other, &org, &tasks[2].0, &key, &serde_json::json!({})).await;
    other.commit().await.unwrap();
    let mut results = Vec::new();
    for p in pending {
        results.push(p.await.unwrap().expect("committed, no key conflict"));
    }
    assert_eq!(
        ingestor.counters.queue_commits.load(Ordering::SeqCst) - commits_before,
        2,
        "task 0 alone, then tasks 1 and 2 in one transaction that did not fail"
    );
    let task2: Vec<Option<i64>> = results[2].iter().map(|d| d.sequence).collect();
    assert_eq!(task2[0], None, "s1 of task 2 was stored meanwhile: a duplicate");
    assert!(
        task2[1].is_some_and(|s| s > sequence),
        "s2 of task 2 is stored after it"
    );
    assert!(
        results[1].iter().all(|d| d.sequence.is_some()),
        "task 1's group is stored"
    );
    assert!(
        ledger_is_contiguous(&db, &org).await,
        "the sequence reserved for s1 was given back"
    );
    test_db.cleanup().await;
}
