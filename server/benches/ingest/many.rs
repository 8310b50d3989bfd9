//! Many tasks streaming at once (issue #33): [`TASKS`] tasks each ingesting [`PER_TASK`] events
//! (status updates and artifact chunks, alternately) in groups of [`GROUP`], all concurrently,
//! as the followed streams of a busy console do, each group acknowledged after its commit.
//! Measured with each group committed alone and through the commit queue (ADR 0032), beside
//! the floor: the same ledger rows inserted bare, in multi-row `INSERT`s of 64 per transaction,
//! with no de-duplication, counter or projection.

use std::sync::Arc;
use std::time::Instant;

use sea_orm::TransactionTrait;
use serde_json::Value;
use server::ingest::{Ingestor, Observation};
use server::store::ledger::{self, EventRows, NewEvent};

use super::{Backend, Fixture, chunk, new_task, observation, status};

/// Tasks streaming at once.
pub const TASKS: usize = 100;
/// Events each task ingests.
pub const PER_TASK: usize = 200;
/// Events per group (what a stream delivered while its previous group was committing).
pub const GROUP: usize = 8;
/// Rows per transaction of the floor beside many tasks.
pub const FLOOR_GROUP: usize = 64;

/// CPU time of this process (user + system), in seconds.
fn cpu_seconds() -> f64 {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    let fields: Vec<&str> = stat
        .rsplit_once(") ")
        .map(|(_, rest)| rest.split(' ').collect())
        .unwrap_or_default();
    let ticks = |i: usize| fields.get(i).and_then(|f| f.parse::<f64>().ok()).unwrap_or(0.0);
    (ticks(11) + ticks(12)) / 100.0
}

/// Events per second and CPU microseconds per event.
pub struct Rate {
    pub per_second: f64,
    pub cpu_us: f64,
}

fn rate(events: usize, started: Instant, cpu: f64) -> Rate {
    Rate {
        per_second: events as f64 / started.elapsed().as_secs_f64(),
        cpu_us: (cpu_seconds() - cpu) * 1e6 / events as f64,
    }
}

/// The events of one task, grouped.
fn groups(f: &Fixture, task: &str, remote: &str) -> Vec<Arc<[Observation]>> {
    let events: Vec<Observation> = (0..PER_TASK)
        .map(|n| {
            let payload = if n.is_multiple_of(2) {
                status(remote, n)
            } else {
                chunk(remote, n / 2)
            };
            observation(f, Some(task), format!("e{n}"), payload)
        })
        .collect();
    events.chunks(GROUP).map(Arc::from).collect()
}

/// [`TASKS`] tasks ingesting concurrently; `queued`: through the commit queue.
pub async fn many_tasks(f: &Fixture, queued: bool) -> Rate {
    let ingestor: Ingestor = if queued {
        f.ingestor.clone().with_commit_queue()
    } else {
        f.ingestor.clone()
    };
    let mut work = Vec::with_capacity(TASKS);
    for _ in 0..TASKS {
        let remote = uuid::Uuid::new_v4().to_string();
        let task = new_task(f, &remote).await;
        work.push(groups(f, &task, &remote));
    }
    let (started, cpu) = (Instant::now(), cpu_seconds());
    let handles: Vec<_> = work
        .into_iter()
        .map(|task_groups| {
            let ingestor = ingestor.clone();
            tokio::spawn(async move {
                for group in task_groups {
                    let done = ingestor.ingest_queued(group.clone()).await.expect("ingest");
                    assert_eq!(done.len(), group.len());
                }
            })
        })
        .collect();
    for handle in handles {
        handle.await.expect("task");
    }
    rate(TASKS * PER_TASK, started, cpu)
}

/// The floor: `events` ledger rows like the ones ingestion appends, inserted bare,
/// `per_transaction` rows in each transaction (one: the cost of a commit).
pub async fn floor(
    backend: &Backend,
    f: &Fixture,
    offset: i64,
    events: usize,
    per_transaction: usize,
) -> Rate {
    let remote = uuid::Uuid::new_v4().to_string();
    let task = new_task(f, &remote).await;
    let payloads: Vec<Value> = (0..events)
        .map(|n| {
            if n.is_multiple_of(2) {
                status(&remote, n)
            } else {
                chunk(&remote, n / 2)
            }
        })
        .collect();
    let extensions: Vec<String> = Vec::new();
    let (started, cpu) = (Instant::now(), cpu_seconds());
    for (g, batch) in payloads.chunks(per_transaction).enumerate() {
        let tx = backend.db.write.begin().await.expect("begin");
        let mut rows = EventRows::default();
        for (i, payload) in batch.iter().enumerate() {
            let n = g * per_transaction + i;
            rows.push(NewEvent {
                organization_id: &f.org,
                task_id: &task,
                // Negative: never meets the counter's sequences.
                sequence: -(offset + n as i64 + 1),
                source: "stream",
                event_kind: if n.is_multiple_of(2) {
                    "statusUpdate"
                } else {
                    "artifactUpdate"
                },
                source_key: format!("floor-{n}"),
                payload_digest: "x".into(),
                payload: payload.clone(),
                extensions: &extensions,
                protocol_version: Some("1.0".into()),
                remote_timestamp: None,
                received_at: chrono::Utc::now(),
            });
        }
        ledger::append_all(&tx, rows).await.expect("insert");
        tx.commit().await.expect("commit");
    }
    rate(events, started, cpu)
}
