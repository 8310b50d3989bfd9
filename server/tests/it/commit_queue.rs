//! Group commit across tasks (issue #33, ADR 0032): the groups of followed streams that queue
//! while a transaction commits are committed together in the next one, each answered only after
//! that commit, in the order they queued; a group that fails the shared transaction is answered
//! with its own error and the others still commit.

use server::store::access::Access;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;

use sea_orm::{ActiveModelTrait, ActiveValue::Set, ConnectionTrait, Statement, TransactionTrait};
use serde_json::json;
use server::db::Db;
use server::db::entity::task_subscription;
use server::ingest::{Fence, IngestError, Ingested, Ingestor, Observation, Source};
use server::store::leases::SUBSCRIPTIONS;
use server::store::subscriptions::SubscriptionStatus;
use server::store::tasks as task_store;
use tokio::task::JoinHandle;

use crate::ledger::{eventually, observation, setup};
use crate::support;

pub(crate) const WAIT: Duration = Duration::from_secs(10);

/// A working task `remote-<n>` whose subscription is leased to `worker-1`; its local id and
/// subscription id.
pub(crate) async fn leased_task(
    ingestor: &Ingestor,
    db: &Db,
    org: &str,
    agent: &str,
    n: usize,
) -> (String, String) {
    let first = ingestor
        .ingest(&observation(
            org,
            agent,
            Source::CommandResponse,
            Some(&format!("command:{n}")),
            json!({"task": {"id": format!("remote-{n}"), "contextId": "ctx",
                "status": {"state": "TASK_STATE_WORKING"}}}),
        ))
        .await
        .unwrap();
    let sub = server::store::subscriptions::of_task(db, &first.task_id)
        .await
        .unwrap()
        .expect("an active task is followed");
    let mut leased: task_subscription::ActiveModel = sub.clone().into();
    leased.status = Set(SubscriptionStatus::Streaming);
    leased.lease_owner = Set(Some("worker-1".into()));
    leased.lease_until = Set(Some(chrono::Utc::now() + chrono::Duration::minutes(5)));
    leased.update(&db.write).await.unwrap();
    (first.task_id, sub.id)
}

/// Tasks `remote-0` to `remote-{count - 1}`, each made by [`leased_task`].
pub(crate) async fn leased_tasks(
    ingestor: &Ingestor,
    db: &Db,
    org: &str,
    agent: &str,
    count: usize,
) -> Vec<(String, String)> {
    let mut tasks = Vec::with_capacity(count);
    for n in 0..count {
        tasks.push(leased_task(ingestor, db, org, agent, n).await);
    }
    tasks
}

/// Two stream events of task `n`, fenced by its lease as `owner` holds it.
pub(crate) fn group(
    org: &str,
    agent: &str,
    task: &(String, String),
    n: usize,
    owner: &str,
) -> Arc<[Observation]> {
    steps(org, agent, task, n, owner, &[1, 2])
}

/// Stream events `s{k}` of task `n` for each step `k`, fenced by its lease as `owner` holds it.
pub(crate) fn steps(
    org: &str,
    agent: &str,
    task: &(String, String),
    n: usize,
    owner: &str,
    steps: &[usize],
) -> Arc<[Observation]> {
    steps
        .iter()
        .map(|&k| {
            let mut obs = observation(
                org,
                agent,
                Source::Stream,
                Some(&format!("s{k}")),
                json!({"statusUpdate": {"taskId": format!("remote-{n}"), "contextId": "ctx",
                    "status": {"state": "TASK_STATE_WORKING", "message": {"messageId": format!("m{n}-{k}"),
                        "role": "ROLE_AGENT", "parts": [{"text": format!("Step {k} of task {n}")}]}}}}),
            );
            obs.local_task_id = Some(task.0.clone());
            obs.fence = Some(Fence::Lease(SUBSCRIPTIONS.held_as(
                &task.1,
                owner,
                Duration::from_secs(300),
            )));
            obs
        })
        .collect()
}

pub(crate) type Pending = JoinHandle<Result<Vec<Ingested>, IngestError>>;

/// Holds the database while groups queue: task 0's group is taken (and waits for the database),
/// then the groups of tasks 1.. queue one after another. Returns them all, in that order.
pub(crate) async fn queue_behind_a_held_database(
    db: &Db,
    ingestor: &Ingestor,
    org: &str,
    groups: Vec<Arc<[Observation]>>,
) -> Vec<Pending> {
    let held = db.write.begin().await.unwrap();
    let pending = queue_behind(&held, ingestor, org, groups).await;
    held.commit().await.unwrap();
    pending
}

/// Queues `groups` behind `held`, a transaction that then holds the organization's ledger
/// counter (on SQLite that is the one writer connection, on PostgreSQL the counter's row lock
/// every commit needs); the caller commits `held` once they all wait.
pub(crate) async fn queue_behind(
    held: &sea_orm::DatabaseTransaction,
    ingestor: &Ingestor,
    org: &str,
    groups: Vec<Arc<[Observation]>>,
) -> Vec<Pending> {
    let queue = ingestor.queue.clone().expect("a commit queue");
    held.execute_raw(Statement::from_sql_and_values(
        held.get_database_backend(),
        match held.get_database_backend() {
            sea_orm::DbBackend::Postgres => {
                "UPDATE ledger_counters SET value = value WHERE organization_id = $1"
            }
            _ => "UPDATE ledger_counters SET value = value WHERE organization_id = ?",
        },
        [org.into()],
    ))
    .await
    .unwrap();
    let mut pending = Vec::new();
    for (n, group) in groups.into_iter().enumerate() {
        let queued_by = ingestor.clone();
        pending.push(tokio::spawn(async move { queued_by.ingest_queued(group).await }));
        let taken = &ingestor.counters.queue_groups;
        let queued = if n == 0 {
            eventually(WAIT, || async { taken.load(Ordering::SeqCst) == 1 }).await
        } else {
            eventually(WAIT, || async { queue.waiting() == n }).await
        };
        assert!(queued, "group {n} queued");
    }
    assert!(
        pending.iter().all(|p| !p.is_finished()),
        "nothing is answered before its commit"
    );
    pending
}

#[tokio::test]
async fn groups_of_several_tasks_that_queued_together_commit_together_in_order() {
    for test_db in support::backends().await {
        let (db, ingestor, org, agent, _dir) = setup(&test_db).await;
        let ingestor = ingestor.with_commit_queue();
        let tasks = leased_tasks(&ingestor, &db, &org, &agent, 5).await;
        let groups = (0..5)
            .map(|n| group(&org, &agent, &tasks[n], n, "worker-1"))
            .collect();
        let commits_before = ingestor.counters.queue_commits.load(Ordering::SeqCst);
        let pending = queue_behind_a_held_database(&db, &ingestor, &org, groups).await;
        let mut sequences = Vec::new();
        for (n, p) in pending.into_iter().enumerate() {
            let done = p.await.unwrap().unwrap();
            assert_eq!(done.len(), 2, "{}: task {n}", test_db.name);
            assert!(done.iter().all(|d| d.task_id == tasks[n].0));
            sequences.extend(done.iter().map(|d| d.sequence.expect("stored")));
        }
        let first = sequences[0];
        assert_eq!(
            sequences,
            (first..first + 10).collect::<Vec<_>>(),
            "{}: the groups took the ledger's next sequences in the order they queued",
            test_db.name
        );
        assert_eq!(
            ingestor.counters.queue_commits.load(Ordering::SeqCst) - commits_before,
            2,
            "{}: task 0's group alone, then the four that queued meanwhile in one transaction",
            test_db.name
        );
        for (n, task) in tasks.iter().enumerate() {
            let view = task_store::view(&db.read, &Access::everything(org.as_str()), &task.0)
                .await
                .unwrap();
            assert_eq!(view.last_sequence, first + 2 * n as i64 + 1, "{}", test_db.name);
        }
        test_db.cleanup().await;
    }
}

#[tokio::test]
async fn a_group_that_lost_its_lease_fails_alone_and_the_others_still_commit() {
    for test_db in support::backends().await {
        let (db, ingestor, org, agent, _dir) = setup(&test_db).await;
        let ingestor = ingestor.with_commit_queue();
        let tasks = leased_tasks(&ingestor, &db, &org, &agent, 4).await;
        // Task 2's lease is held by another worker: its group must not commit.
        let groups = (0..4)
            .map(|n| {
                group(
                    &org,
                    &agent,
                    &tasks[n],
                    n,
                    if n == 2 { "worker-2" } else { "worker-1" },
                )
            })
            .collect();
        let before = task_store::view(&db.read, &Access::everything(org.as_str()), &tasks[2].0)
            .await
            .unwrap();
        let pending = queue_behind_a_held_database(&db, &ingestor, &org, groups).await;
        let mut results = Vec::new();
        for p in pending {
            results.push(p.await.unwrap());
        }
        assert!(
            matches!(results[2], Err(IngestError::LeaseLost)),
            "{}: {:?}",
            test_db.name,
            results[2]
        );
        for n in [0, 1, 3] {
            let done = results[n].as_ref().expect("committed");
            assert!(
                done.iter().all(|d| d.sequence.is_some()),
                "{}: task {n}",
                test_db.name
            );
        }
        let after = task_store::view(&db.read, &Access::everything(org.as_str()), &tasks[2].0)
            .await
            .unwrap();
        assert_eq!(after.last_sequence, before.last_sequence, "{}", test_db.name);
        // No sequence was lost to the failed transaction: the six stored events follow on.
        let mut stored: Vec<i64> = [0, 1, 3]
            .iter()
            .flat_map(|&n| results[n].as_ref().unwrap().iter().map(|d| d.sequence.unwrap()))
            .collect();
        stored.sort_unstable();
        let first = stored[0];
        assert_eq!(stored, (first..first + 6).collect::<Vec<_>>(), "{}", test_db.name);
        test_db.cleanup().await;
    }
}

/// PostgreSQL: another transaction (a single task's, as the dispatch worker's storing a reply)
/// holds task 2's row; task 0's group is taken while the counter is held and the others queue
/// behind it; task 0 commits alone, then the shared transaction of the others waits for task
/// 2's row. Gives back the groups' answers and the transaction holding the row.
pub(crate) async fn queue_waiting_for_task_2(
    db: &Db,
    ingestor: &Ingestor,
    org: &str,
    tasks: &[(String, String)],
    groups: Vec<Arc<[Observation]>>,
) -> (Vec<Pending>, sea_orm::DatabaseTransaction) {
    let held = db.write.begin().await.unwrap();
    let other = db.write.begin().await.unwrap();
    server::store::task_rows::lock(&other, &tasks[2].0)
        .await
        .unwrap()
        .expect("task 2");
    let pending = queue_behind(&held, ingestor, org, groups).await;
    held.commit().await.unwrap();
    assert!(eventually(WAIT, || async { pending[0].is_finished() }).await);
    let waiting = || async { crate::ledger_race::waiting_for_a_lock(db).await >= 1 };
    assert!(eventually(WAIT, waiting).await, "the shared transaction waits");
    (pending, other)
}

/// PostgreSQL: a transaction of several tasks takes their rows before the ledger counter, the
/// order a single task's transaction (the dispatch worker storing a reply) takes them in. Here
/// such a transaction holds task 2's row while the queue commits tasks 1 and 2 together; once
/// the queue waits for that row, it takes the counter and commits. Taking the counter after task
/// 1's events, as a group alone does, would make the two wait on each other (PostgreSQL aborts
/// one of them as a deadlock).
#[tokio::test]
async fn a_shared_transaction_takes_task_rows_before_the_counter_so_it_cannot_deadlock() {
    let Some(test_db) = support::postgres().await else {
        return;
    };
    let (db, ingestor, org, agent, _dir) = setup(&test_db).await;
    let ingestor = ingestor.with_commit_queue();
    let tasks = leased_tasks(&ingestor, &db, &org, &agent, 3).await;
    let groups: Vec<_> = (0..3)
        .map(|n| group(&org, &agent, &tasks[n], n, "worker-1"))
        .collect();
    let commits_before = ingestor.counters.queue_commits.load(Ordering::SeqCst);
    let pending = {
        let (pending, other) = queue_waiting_for_task_2(&db, &ingestor, &org, &tasks, groups).await;
        // Now the single task's transaction takes the counter and commits.
        other
            .execute_raw(Statement::from_sql_and_values(
                sea_orm::DbBackend::Postgres,
                "UPDATE ledger_counters SET value = value WHERE organization_id = $1",
                [org.clone().into()],
            ))
            .await
            .expect("no deadlock: the counter is free while the queue waits for task 2's row");
        other.commit().await.unwrap();
        pending
    };
    for (n, p) in pending.into_iter().enumerate() {
        let done = p.await.unwrap().unwrap();
        assert!(done.iter().all(|d| d.sequence.is_some()), "task {n}");
    }
    assert_eq!(
        ingestor.counters.queue_commits.load(Ordering::SeqCst) - commits_before,
        2,
        "task 0 alone, then tasks 1 and 2 in one transaction that was never aborted"
    );
    test_db.cleanup().await;
}

/// The commit queue has a PostgreSQL connection of its own (ADR 0056): with every connection of
/// the shared pool taken (pages and workers busy reading), a queued group still commits, and is
/// answered as soon as it has.
#[tokio::test]
async fn the_commit_queue_commits_while_every_pooled_connection_is_taken() {
    let Some(test_db) = support::postgres().await else {
        return;
    };
    let (db, ingestor, org, agent, _dir) = setup(&test_db).await;
    let ingestor = ingestor.with_commit_queue();
    let task = leased_task(&ingestor, &db, &org, &agent, 0).await;
    let mut taken = Vec::new();
    for _ in 0..server::db::connect::POSTGRES_POOL_SIZE {
        taken.push(db.write.begin().await.unwrap());
    }
    let done = tokio::time::timeout(
        server::db::connect::ACQUIRE_TIMEOUT / 2,
        ingestor.ingest_queued(group(&org, &agent, &task, 0, "worker-1")),
    )
    .await
    .expect("answered before the shared pool would have timed out")
    .expect("committed");
    assert!(done.iter().all(|d| d.sequence.is_some()));
    for tx in taken {
        tx.rollback().await.unwrap();
    }
    let stored = task_store::view(&db.read, &Access::everything(org.as_str()), &task.0)
        .await
        .unwrap();
    assert_eq!(
        stored.last_sequence,
        done[1].sequence.unwrap(),
        "the group is in the ledger"
    );
    test_db.cleanup().await;
}
